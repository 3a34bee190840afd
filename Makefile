# harness: build, test, install. `make` links the program as ./harness at the
# top (sources in src/, objects in build/), and the probe as
# ./harness-probe.so beside it; a sanitizer build links
# build/san-<name>/harness beside its own objects (the probe stays the plain
# build's).
CUDA_HOME ?= /usr/local/cuda
PREFIX    ?= /usr/local
CC        ?= cc
CFLAGS    ?= -O2 -g
VERSION   := 0.1.0

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wold-style-definition -Wconversion -Wpointer-arith -Wcast-qual \
        -Wformat=2 -Wundef -Wvla -Wno-format-nonliteral
# CI builds with WERROR=1.
ifeq ($(WERROR),1)
WARN += -Werror
endif

comma := ,
# A quiet build: one short line a step ("  CC      src/main.c"); make V=1
# prints every command in full.
ifeq ($(V),1)
Q :=
msg = :
else
Q := @
msg = printf '  %-7s %s\n' '$(1)' '$(2)'
endif
# make SANITIZER=address or SANITIZER=undefined (or address,undefined).
ifneq ($(SANITIZER),)
SANFLAGS := -fsanitize=$(SANITIZER) -fno-sanitize-recover=all -fno-omit-frame-pointer
B := build/san-$(subst $(comma),-,$(SANITIZER))
BIN := $(B)/harness
else
B := build
BIN := harness
# glibc's checks of sizes at run time, as Ubuntu's gcc turns them on by
# default (a machine with such a gcc aborts where one without passes).
FORTIFY := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2
endif

ALL_CPPFLAGS := -Isrc -isystem $(CUDA_HOME)/include -D_GNU_SOURCE $(FORTIFY) \
                -DHARNESS_VERSION='"$(VERSION)"' -DHARNESS_CUDA_HOME='"$(CUDA_HOME)"'
ALL_CFLAGS   := -std=c11 -pthread $(WARN) $(SANFLAGS) $(CFLAGS)
LDLIBS       := -ldl -lm -pthread

# The sources by layer (docs/architecture.md, "Layers"): main.c at the top,
# then a folder per layer, and one folder per entry of the list under
# src/sections/. Of src/probe/, the record (precord.c) and the live record
# (live.c) are the harness's too;
# the probe's own files go into the probe alone (and the unit tests).
SRCS := $(wildcard src/*.c) $(wildcard src/os/*.c) $(wildcard src/core/*.c) \
        $(wildcard src/cuda/*.c) src/probe/precord.c src/probe/live.c $(wildcard src/run/*.c) \
        $(wildcard src/sections/*/*.c)
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
KERNELS := $(wildcard kernels/*.cu)
# The commit the binary is built from (src/version.h): $(B)/version.c,
# written at every make and replaced only when it changed.
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
DIRTY := $(if $(COMMIT),$(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo -dirty))
VERSION_C := $(B)/version.c
VERSION_O := $(B)/obj/version.o
OBJS := $(SRCS:%.c=$(B)/obj/%.o) $(B)/obj/src/cuda/kernels_src.o $(VERSION_O)
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/obj/%.o) $(B)/obj/src/cuda/kernels_src.o $(VERSION_O)
TEST_SRCS := $(filter-out tests/probe_host.c tests/bench_record.c tests/live_plant.c,$(wildcard tests/*.c))
TEST_OBJS := $(TEST_SRCS:%.c=$(B)/obj/%.o)
# The probe's sources (see its rule below).
PROBE := harness-probe.so
PROBE_SRCS := src/probe/probe.c src/probe/pbcupti.c src/probe/pbimage.c src/probe/pbrecord.c src/probe/pbstate.c src/probe/pblive.c src/probe/live.c src/probe/marks.c src/cuda/nvml.c src/probe/precord.c src/core/results.c src/core/stats.c src/core/rx.c src/os/clock.c
PROBE_OBJS := $(PROBE_SRCS:%.c=build/pic/%.o)
PIC_CFLAGS := -std=c11 -pthread $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden
# The keys a run can write (./harness --schema), read by the scripts: from
# build/ in the source tree, installed beside them.
SCHEMA := build/schema.json

.PHONY: all test test-gpu sanitize fault-walk valgrind sanitize-gpu install clean fuzz FORCE
all: $(BIN) $(PROBE) $(SCHEMA)

$(SCHEMA): $(BIN)
	@mkdir -p $(@D)
	@$(call msg,GEN,$@)
	$(Q)./$(BIN) --schema >$@.tmp && mv $@.tmp $@ || { rm -f $@.tmp; exit 1; }

$(VERSION_C): FORCE
	@mkdir -p $(@D)
	@printf '#include "version.h"\nconst char harness_commit[] = "%s";\n' \
	    '$(or $(COMMIT),unknown)$(DIRTY)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(VERSION_O): $(VERSION_C)
	@$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BIN): $(OBJS)
	@if [ -d $@ ]; then echo "make: $@ is a directory (left from the layout before src/); move it away, then make" >&2; exit 1; fi
	@$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/unit: $(TEST_OBJS) $(LIB_OBJS) $(B)/obj/src/probe/probe.o $(B)/obj/src/probe/pbcupti.o $(B)/obj/src/probe/pbrecord.o $(B)/obj/src/probe/pbstate.o $(B)/obj/src/probe/pbimage.o $(B)/obj/src/probe/pblive.o $(B)/obj/src/probe/marks.o
	@$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	@$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The kernel sources are embedded with the assembler's .incbin (toolchain only).
$(B)/obj/src/cuda/kernels_src.o: src/cuda/kernels_src.S $(KERNELS)
	@mkdir -p $(@D)
	@$(call msg,CC,$<)
	$(Q)$(CC) -c -o $@ $<

# The probe (src/probe/): the library the driver loads into a user's program
# (CUDA_INJECTION64_PATH). Position-independent objects of its own, every
# symbol hidden but InitializeInjection (and InitializeInjectionNvtx2: NVTX's); libcupti and libcuda are reached
# through dlopen. The plain build only: a sanitizer build tests this one.
$(PROBE): $(PROBE_OBJS)
	@$(call msg,LD,$@)
	$(Q)$(CC) $(PIC_CFLAGS) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $^ -ldl -lpthread -lm

build/pic/%.o: %.c
	@mkdir -p $(@D)
	@$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(PIC_CFLAGS) -MMD -MP -c -o $@ $<

# The CPU test's host program: loads the probe as the driver would.
build/probe_host: tests/probe_host.c build/pic/src/probe/precord.o build/pic/src/core/results.o build/pic/src/core/stats.o
	@$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(PIC_CFLAGS) $(LDFLAGS) -o $@ $^ -ldl -lm

# The live records the stand-in program plants (tests/live_plant.c).
$(B)/live_plant: tests/live_plant.c $(B)/obj/src/probe/live.o
	@$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Isrc $(LDFLAGS) -o $@ $^

# The record reader's benchmark: records at the size cap, each read in under
# a second (docs/program.md); make test runs it.
$(B)/bench_record: tests/bench_record.c $(B)/obj/src/probe/precord.o $(B)/obj/src/core/results.o $(B)/obj/src/core/stats.o
	@$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# A stand-in driver library for the CPU tests of the driver paths (no GPU).
$(B)/libfakecuda.so: tests/fakecuda/fake_libcuda.c src/cuda/cudadrv.h
	@mkdir -p $(@D)
	@$(call msg,LD,$@)
	$(Q)$(CC) -std=c11 $(CFLAGS) -Isrc -isystem $(CUDA_HOME)/include -D_GNU_SOURCE -shared -fPIC -o $@ $<

# A stand-in NVML for the CPU tests of the device's names (HARNESS_NVML).
$(B)/libfakenvml.so: tests/fakenvml/fake_nvml.c
	@mkdir -p $(@D)
	@$(call msg,LD,$@)
	$(Q)$(CC) -std=c11 $(WARN) $(CFLAGS) -shared -fPIC -o $@ $<

# The README's test command: CPU tests everywhere, GPU tests where a GPU is usable.
test: $(BIN) $(B)/unit $(B)/libfakecuda.so $(B)/libfakenvml.so $(PROBE) build/probe_host $(B)/bench_record \
      $(B)/live_plant $(SCHEMA)
	HARNESS=./$(BIN) UNIT=$(B)/unit FAKECUDA=$(B)/libfakecuda.so PROBE=./$(PROBE) \
	    FAKENVML=$(B)/libfakenvml.so PROBE_HOST=build/probe_host BENCH=$(B)/bench_record \
	    LIVE_PLANT=$(B)/live_plant sh tests/run.sh

# GPU tests only (both sections, their checks and invariants); needs a GPU.
test-gpu: $(BIN)
	HARNESS=./$(BIN) sh tests/gpu.sh

# make test under ASan+UBSan, then the fault walk over every section on the
# stand-in driver (make test walks section crossover only).
sanitize:
	$(MAKE) SANITIZER=address,undefined test
	$(MAKE) SANITIZER=address,undefined fault-walk

# HARNESS_FAULT at call 1, 2 and last of every entry point the stand-in
# driver serves, for every section (FAULT_WALK_JOBS at a time, default the
# CPUs); make sanitize runs it on the sanitizer build.
fault-walk: $(BIN) $(B)/libfakecuda.so
	HARNESS=./$(BIN) FAKECUDA=$(B)/libfakecuda.so sh tests/fault_walk_fake.sh

# The unit tests and harness runs without a GPU under valgrind memcheck.
valgrind: $(BIN) $(B)/unit $(B)/libfakecuda.so
	HARNESS=./$(BIN) UNIT=$(B)/unit FAKECUDA=$(B)/libfakecuda.so sh tests/valgrind.sh

# Every section's kernels under compute-sanitizer memcheck and racecheck,
# small sizes; needs a GPU and compute-sanitizer (says why when it is absent).
sanitize-gpu: $(BIN)
	HARNESS=./$(BIN) CUDA_HOME=$(CUDA_HOME) sh tests/gpu/sanitize.sh

# libFuzzer, FUZZ_SECONDS each, from the seed corpora (new inputs go to
# scratch copies): the command-line parsers (tests/fuzz/corpus) and the
# module reader (tests/fuzz/modules: small real and broken modules), the
# program record's reader (tests/fuzz/records), the compile cache's
# reader (tests/fuzz/kcache: files of one key, whole and broken) and the
# whole record path of -- CMD: a record directory's contents, FIFOs, links,
# directories, foreign pids and all (tests/fuzz/recdirs, recdir.h),
# the kernel names' demangler and shortener (tests/fuzz/names), and the
# live record's reader (tests/fuzz/lives: patches over a whole record),
# and --ready's matcher (tests/fuzz/patterns: a pattern, then lines).
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := $(ALL_CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=all
fuzz: $(VERSION_C)
	@mkdir -p build/fuzz/corpus build/fuzz/modules
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_cli tests/fuzz/fuzz_cli.c $(LIB_SRCS) src/cuda/kernels_src.S \
	    $(VERSION_C)
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_modfile tests/fuzz/fuzz_modfile.c src/cuda/modfile.c
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_record tests/fuzz/fuzz_record.c src/probe/precord.c \
	    src/core/results.c src/core/stats.c
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_kcache tests/fuzz/fuzz_kcache.c src/cuda/kcache.c \
	    src/os/atomicfile.c src/os/proc.c src/os/ptree.c src/os/ufile.c src/os/sig.c src/os/clock.c
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_recdir tests/fuzz/fuzz_recdir.c src/sections/program/recdir.c \
	    src/os/ufile.c src/probe/precord.c src/core/results.c src/core/stats.c src/os/proc.c src/os/ptree.c src/os/sig.c src/os/clock.c
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_demangle tests/fuzz/fuzz_demangle.c src/cuda/demangle.c
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_live tests/fuzz/fuzz_live.c src/probe/live.c
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_rx tests/fuzz/fuzz_rx.c src/core/rx.c
	@mkdir -p build/fuzz/records build/fuzz/kcache build/fuzz/recdirs build/fuzz/names build/fuzz/lives build/fuzz/patterns
	cp tests/fuzz/corpus/* build/fuzz/corpus/
	cp tests/fuzz/modules/* build/fuzz/modules/
	cp tests/fuzz/records/* build/fuzz/records/
	cp tests/fuzz/kcache/* build/fuzz/kcache/
	cp tests/fuzz/recdirs/* build/fuzz/recdirs/
	cp tests/fuzz/names/* build/fuzz/names/
	cp tests/fuzz/lives/* build/fuzz/lives/
	cp tests/fuzz/patterns/* build/fuzz/patterns/
	build/fuzz/fuzz_cli -max_total_time=$(FUZZ_SECONDS) -max_len=512 build/fuzz/corpus \
	    >build/fuzz/log 2>&1; rc=$$?; tail -3 build/fuzz/log; exit $$rc
	build/fuzz/fuzz_modfile -max_total_time=$(FUZZ_SECONDS) -max_len=16384 build/fuzz/modules \
	    >build/fuzz/modfile.log 2>&1; rc=$$?; tail -3 build/fuzz/modfile.log; exit $$rc
	build/fuzz/fuzz_record -max_total_time=$(FUZZ_SECONDS) -max_len=8192 build/fuzz/records \
	    >build/fuzz/record.log 2>&1; rc=$$?; tail -3 build/fuzz/record.log; exit $$rc
	build/fuzz/fuzz_kcache -max_total_time=$(FUZZ_SECONDS) -max_len=4096 build/fuzz/kcache \
	    >build/fuzz/kcache.log 2>&1; rc=$$?; tail -3 build/fuzz/kcache.log; exit $$rc
	build/fuzz/fuzz_recdir -max_total_time=$(FUZZ_SECONDS) -max_len=16384 build/fuzz/recdirs \
	    >build/fuzz/recdir.log 2>&1; rc=$$?; tail -3 build/fuzz/recdir.log; exit $$rc
	build/fuzz/fuzz_demangle -max_total_time=$(FUZZ_SECONDS) -max_len=8192 build/fuzz/names \
	    >build/fuzz/demangle.log 2>&1; rc=$$?; tail -3 build/fuzz/demangle.log; exit $$rc
	build/fuzz/fuzz_live -max_total_time=$(FUZZ_SECONDS) -max_len=4096 build/fuzz/lives \
	    >build/fuzz/live.log 2>&1; rc=$$?; tail -3 build/fuzz/live.log; exit $$rc
	build/fuzz/fuzz_rx -max_total_time=$(FUZZ_SECONDS) -timeout=10 -max_len=512 build/fuzz/patterns \
	    >build/fuzz/rx.log 2>&1; rc=$$?; tail -3 build/fuzz/rx.log; exit $$rc

# The binary, the probe, the scripts (as harness-compare, harness-plot,
# harness-node-summary, harness-fleet.sbatch: links into lib/harness, where
# their shared JSON reader, the key schema and plot's figures are), the
# manual page harness(1) and the docs.
SCRIPTS := compare plot node-summary fleet.sbatch ncu-bytes reference.sh
install: $(BIN) $(PROBE) $(SCHEMA)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/harness \
	    $(DESTDIR)$(PREFIX)/lib/harness/harness_plot \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/doc/harness \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/harness
	install -m 755 $(PROBE) $(DESTDIR)$(PREFIX)/lib/harness/$(PROBE)
	install -m 644 scripts/harness_json.py scripts/harness_cli.py $(SCHEMA) \
	    $(DESTDIR)$(PREFIX)/lib/harness/
	install -m 644 scripts/harness_plot/*.py $(DESTDIR)$(PREFIX)/lib/harness/harness_plot/
	for s in $(SCRIPTS); do \
	    install -m 755 scripts/$$s $(DESTDIR)$(PREFIX)/lib/harness/$$s && \
	    ln -sf ../lib/harness/$$s $(DESTDIR)$(PREFIX)/bin/harness-$$s || exit 1; \
	done
	install -m 644 man/harness.1 $(DESTDIR)$(PREFIX)/share/man/man1/harness.1
	install -m 644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/harness/
	./$(BIN) --completion=bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/harness
	./$(BIN) --completion=zsh >$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_harness

clean:
	rm -rf build harness $(PROBE)

-include $(OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(PROBE_OBJS:.o=.d) $(B)/obj/src/probe/probe.d $(B)/obj/src/probe/marks.d
