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
# make SANITIZER=address or SANITIZER=undefined (or address,undefined).
ifneq ($(SANITIZER),)
SANFLAGS := -fsanitize=$(SANITIZER) -fno-sanitize-recover=all -fno-omit-frame-pointer
B := build/san-$(subst $(comma),-,$(SANITIZER))
BIN := $(B)/harness
else
B := build
BIN := harness
endif

ALL_CPPFLAGS := -Isrc -isystem $(CUDA_HOME)/include -D_GNU_SOURCE \
                -DHARNESS_VERSION='"$(VERSION)"' -DHARNESS_CUDA_HOME='"$(CUDA_HOME)"'
ALL_CFLAGS   := -std=c11 -pthread $(WARN) $(SANFLAGS) $(CFLAGS)
LDLIBS       := -ldl -lm -pthread

SRCS := $(wildcard src/*.c) $(wildcard src/sections/*.c)
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
KERNELS := $(wildcard kernels/*.cu)
OBJS := $(SRCS:%.c=$(B)/obj/%.o) $(B)/obj/src/kernels_src.o
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/obj/%.o) $(B)/obj/src/kernels_src.o
TEST_SRCS := $(filter-out tests/probe_host.c,$(wildcard tests/*.c))
TEST_OBJS := $(TEST_SRCS:%.c=$(B)/obj/%.o)
# The probe's sources (see its rule below).
PROBE := harness-probe.so
PROBE_SRCS := src/probe/probe.c src/nvml.c src/precord.c src/results.c src/stats.c src/clock.c
PROBE_OBJS := $(PROBE_SRCS:%.c=build/pic/%.o)
PIC_CFLAGS := -std=c11 -pthread $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden

.PHONY: all test test-gpu sanitize fault-walk valgrind sanitize-gpu install clean fuzz
all: $(BIN) $(PROBE)

$(BIN): $(OBJS)
	@if [ -d $@ ]; then echo "make: $@ is a directory (left from the layout before src/); move it away, then make" >&2; exit 1; fi
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/unit: $(TEST_OBJS) $(LIB_OBJS) $(B)/obj/src/probe/probe.o
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The kernel sources are embedded with the assembler's .incbin (toolchain only).
$(B)/obj/src/kernels_src.o: src/kernels_src.S $(KERNELS)
	@mkdir -p $(@D)
	$(CC) -c -o $@ $<

# The probe (src/probe/): the library the driver loads into a user's program
# (CUDA_INJECTION64_PATH). Position-independent objects of its own, every
# symbol hidden but InitializeInjection; libcupti and libcuda are reached
# through dlopen. The plain build only: a sanitizer build tests this one.
$(PROBE): $(PROBE_OBJS)
	$(CC) $(PIC_CFLAGS) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $^ -ldl -lpthread -lm

build/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(PIC_CFLAGS) -MMD -MP -c -o $@ $<

# The CPU test's host program: loads the probe as the driver would.
build/probe_host: tests/probe_host.c build/pic/src/precord.o build/pic/src/results.o build/pic/src/stats.o
	$(CC) $(ALL_CPPFLAGS) $(PIC_CFLAGS) $(LDFLAGS) -o $@ $^ -ldl -lm

# A stand-in driver library for the CPU tests of the driver paths (no GPU).
$(B)/libfakecuda.so: tests/fakecuda/fake_libcuda.c src/cudadrv.h
	@mkdir -p $(@D)
	$(CC) -std=c11 $(CFLAGS) -Isrc -isystem $(CUDA_HOME)/include -D_GNU_SOURCE -shared -fPIC -o $@ $<

# A stand-in NVML for the CPU tests of the device's names (HARNESS_NVML).
$(B)/libfakenvml.so: tests/fakenvml/fake_nvml.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -shared -fPIC -o $@ $<

# The README's test command: CPU tests everywhere, GPU tests where a GPU is usable.
test: $(BIN) $(B)/unit $(B)/libfakecuda.so $(B)/libfakenvml.so $(PROBE) build/probe_host
	HARNESS=./$(BIN) UNIT=$(B)/unit FAKECUDA=$(B)/libfakecuda.so PROBE=./$(PROBE) \
	    FAKENVML=$(B)/libfakenvml.so PROBE_HOST=build/probe_host sh tests/run.sh

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
# kernel names' demangler and shortener (tests/fuzz/names).
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := $(ALL_CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=all
fuzz:
	@mkdir -p build/fuzz/corpus build/fuzz/modules
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_cli tests/fuzz/fuzz_cli.c $(LIB_SRCS) src/kernels_src.S
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_modfile tests/fuzz/fuzz_modfile.c src/modfile.c
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_record tests/fuzz/fuzz_record.c src/precord.c \
	    src/results.c src/stats.c
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_kcache tests/fuzz/fuzz_kcache.c src/kcache.c \
	    src/atomicfile.c src/proc.c src/sig.c src/clock.c
	clang $(FUZZ_FLAGS) -o build/fuzz/fuzz_demangle tests/fuzz/fuzz_demangle.c src/demangle.c
	@mkdir -p build/fuzz/records build/fuzz/kcache build/fuzz/names
	cp tests/fuzz/corpus/* build/fuzz/corpus/
	cp tests/fuzz/modules/* build/fuzz/modules/
	cp tests/fuzz/records/* build/fuzz/records/
	cp tests/fuzz/kcache/* build/fuzz/kcache/
	cp tests/fuzz/names/* build/fuzz/names/
	build/fuzz/fuzz_cli -max_total_time=$(FUZZ_SECONDS) -max_len=512 build/fuzz/corpus \
	    >build/fuzz/log 2>&1; rc=$$?; tail -3 build/fuzz/log; exit $$rc
	build/fuzz/fuzz_modfile -max_total_time=$(FUZZ_SECONDS) -max_len=16384 build/fuzz/modules \
	    >build/fuzz/modfile.log 2>&1; rc=$$?; tail -3 build/fuzz/modfile.log; exit $$rc
	build/fuzz/fuzz_record -max_total_time=$(FUZZ_SECONDS) -max_len=8192 build/fuzz/records \
	    >build/fuzz/record.log 2>&1; rc=$$?; tail -3 build/fuzz/record.log; exit $$rc
	build/fuzz/fuzz_kcache -max_total_time=$(FUZZ_SECONDS) -max_len=4096 build/fuzz/kcache \
	    >build/fuzz/kcache.log 2>&1; rc=$$?; tail -3 build/fuzz/kcache.log; exit $$rc
	build/fuzz/fuzz_demangle -max_total_time=$(FUZZ_SECONDS) -max_len=8192 build/fuzz/names \
	    >build/fuzz/demangle.log 2>&1; rc=$$?; tail -3 build/fuzz/demangle.log; exit $$rc

install: $(BIN) $(PROBE)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/harness
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/harness
	install -m 755 $(PROBE) $(DESTDIR)$(PREFIX)/lib/harness/$(PROBE)

clean:
	rm -rf build harness $(PROBE)

-include $(OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(PROBE_OBJS:.o=.d) $(B)/obj/src/probe/probe.d
