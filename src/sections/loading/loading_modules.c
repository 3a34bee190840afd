/* loading_modules.c: section loading's --module part: each file's
 * inventory (read by modfile, no driver), stored as derived entries; in a
 * child, every image of it loaded through cuModuleLoadDataEx and through
 * cuLibraryLoadData, every function enumerated and loaded, each step timed
 * and counted; after the rounds, the slowest fatbins and where the cost
 * went between the modes, stored as derived entries. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "cuda/modfile.h"
#include "os/clock.h"
#include "os/phase.h"
#include "os/proc.h"
#include "run/section_child.h"
#include "run/table.h"
#include "sections/loading/loading.h"

#define LD "loading"
#define MIB (1024.0 * 1024.0)

/* Reading a module file, "module.<i>.read". */
static const sch_key lm_read = { "read", "ms", RES_PROCESS, "reading the module file (no driver)",
                                 "host clock around mf_read: open, the headers, the fatbin "
                                 "sections, every entry header" };

/* The child's other figures of a module, after "module.<i>.": later and
 * fb.<i>.refused after "<api>.", fb.<i>.load after "mod.", rss_peak as it
 * is. */
enum { LM_M_LATER, LM_M_REFUSED, LM_M_IMAGE_LOAD, LM_M_RSS_PEAK, LM_M_NMORE };
static const sch_key lm_more[LM_M_NMORE] = {
    { LM_LATER, "ms", RES_PROCESS, "later: getting and loading every function", "get + func_load" },
    { "fb.<i>.refused", "CUresult", RES_PROCESS, "the CUresult the driver refused this image with",
      "the load call's return" },
    { "fb.<i>.load", "ms", RES_PROCESS, "load of one image (cuModuleLoadDataEx)",
      "host clock around it" },
    { "rss_peak", "MiB", RES_PROCESS, "the child's peak host memory (VmHWM)",
      "/proc/self/status at the child's end: the module file's bytes, the driver, both passes" },
};

/* The derived entries --module writes (in section loading's derived list). */
enum { LM_DK_MODULE, LM_DK_FATBIN, LM_DK_RELFATBIN, LM_DK_ARCH, LM_DK_SKIPPED, LM_DK_REFUSED,
       LM_DK_SLOWEST, LM_DK_WHERE, LM_DK_COMPARE, LM_NDKEYS };
#define LM_SLOWEST 10        /* the slowest images named, per module and mode */
#define LM_STR_(x) #x
#define LM_STR(x) LM_STR_(x)
static const sch_key lm_derived[LM_NDKEYS] = {
    { LM_MODULE, "images", RES_PROCESS, "<file>",
      "its kind (\"host ELF\", \"cubin for sm_90\", \"PTX 9.0 for sm_90\", \"fatbin\")" },
    { LM_MODULE ".fatbin.<i>", "bytes", RES_PROCESS, "fatbin <i> of module <i>: its entries",
      "its entries (\"ELF sm_90 5,536; PTX compute_90 zstd 400 (1,422)\")" },
    { LM_MODULE ".relfatbin.<i>", "bytes", RES_PROCESS,
      "relocatable fatbin (listed, not loaded) <i> of module <i>: its entries", "its entries" },
    { LM_MODULE ".arch.<word>", "entries", RES_PROCESS, "<kind> entries for <word>",
      "\"ELF\" or \"PTX\"" },
    { LM_MODULE "." LM_D_SKIPPED, "images", RES_PROCESS,
      "images left out: each killed a child loading it", "what happened to each" },
    { LM_MODULE "." LM_D_REFUSED, "images", RES_PROCESS,
      "images the driver refused by another error",
      "each image and its CUresult (\"image 3: CUDA_ERROR_INVALID_IMAGE (200)\")" },
    { "<pre>" LM_MODULE ".slowest.<i>", "ms", RES_PROCESS,
      "slowest image <i> by median load time",
      "the " LM_STR(LM_SLOWEST) " slowest images, fields fatbin and share_pct" },
    { LM_MODULE "." LM_D_WHERE, "ms", RES_PROCESS, "where the cost of loading went",
      "a sentence on the mode's or both modes' load, later function loads and memory" },
    { "compare." LM_MODULE ".<api>.<word>", "", RES_PROCESS,
      "eager against lazy, <step> (module.<i>, <api>): the U test's p", "the verdict" },
};

void lm_key(char *buf, size_t len, const char *pre, size_t mi, const char *suffix)
{
    char n[SCH_NUM], pattern[128];
    const char *part = sch_num(n, (long long)mi);
    snprintf(pattern, sizeof pattern, LM_MODULE "%s%s", suffix ? "." : "", suffix ? suffix : "");
    sch_fill(buf, len, pre, pattern, &part, 1);
}

/* The key of derived entry k into key (96 bytes): its <pre> (where it
 * has one) pre, its module's <i> mi, a last <i> or <word> last. */
static void lm_dkey(char *key, int k, const char *pre, size_t mi, const char *last)
{
    char a[SCH_NUM];
    const char *parts[3], *p;
    size_t n = 0, want = 0;
    for (p = lm_derived[k].key; (p = strchr(p, '<')) != NULL; p++) want++;
    if (strncmp(lm_derived[k].key, "<pre>", 5) == 0) parts[n++] = pre;
    parts[n++] = sch_num(a, (long long)mi);
    if (n < want) parts[n++] = last;
    sch_fill(key, 96, NULL, lm_derived[k].key, parts, n);
}

/* Store derived entry k under key, its name the declaration's filled in
 * with nn parts; NULL on out of memory. */
static res_derived *lm_derive(results *r, int k, const char *key, const char *const *nparts,
                              size_t nn, double value, const char *text)
{
    char name[192];
    sch_fill(name, sizeof name, NULL, lm_derived[k].name, nparts, nn);
    return res_derive(r, LD, key, name, value, lm_derived[k].unit, text);
}

/* ---------------------------------------------------------- inventory --- */

int lm_target(const char *arch, int *major, int *minor)
{
    unsigned a = 90;
    if (!arch || sscanf(arch, "sm_%u", &a) != 1 || a < 10 || a > 999) a = 90;
    *major = (int)(a / 10);
    *minor = (int)(a % 10);
    return (int)a;
}

/* "ELF sm_90 5,536; PTX compute_90 zstd 400 (1,422)" for fatbin i. */
static void lm_entries_text(const mf_module *m, size_t i, char *buf, size_t len)
{
    const mf_fatbin *fb = &m->fatbins[i];
    size_t j, at = 0;

    buf[0] = '\0';
    if (fb->n == 0) snprintf(buf, len, "no entries");
    for (j = 0; j < fb->n && at + 1 < len; j++) {
        const mf_entry *e = &m->entries[fb->first + j];
        char arch[24], kind[24], a[32], b[32];
        int n;
        sec_commas(a, sizeof a, (double)e->stored_bytes);
        sec_commas(b, sizeof b, (double)e->raw_bytes);
        if (e->comp == MF_COMP_NONE)
            n = snprintf(buf + at, len - at, "%s%s %s %s", j ? "; " : "",
                         mf_entry_kind(e, kind, sizeof kind), mf_arch_name(e, arch, sizeof arch), a);
        else
            n = snprintf(buf + at, len - at, "%s%s %s %s %s (%s)", j ? "; " : "",
                         mf_entry_kind(e, kind, sizeof kind), mf_arch_name(e, arch, sizeof arch),
                         mf_comp_name(e->comp), a, b);
        if (n < 0) break;
        at += (size_t)n;
    }
}

/* One derived entry per fatbin: "module.<i>.fatbin.<j>" (relocatable:
 * "module.<i>.relfatbin.<j>"), value its bytes, text its entries. */
static int lm_store_fatbins(results *r, size_t mi, const mf_module *m, int major, int minor)
{
    size_t j, nrel = 0;
    for (j = 0; j < m->nfatbins; j++) {
        const mf_fatbin *fb = &m->fatbins[j];
        char key[96], text[1024], a[32], b[32];
        const char *parts[2];
        res_derived *d;
        size_t idx = fb->relocatable ? nrel++ : j;
        int k = fb->relocatable ? LM_DK_RELFATBIN : LM_DK_FATBIN;
        snprintf(a, sizeof a, "%zu", idx);
        snprintf(b, sizeof b, "%zu", mi);
        parts[0] = a;
        parts[1] = b;
        lm_dkey(key, k, NULL, mi, a);
        lm_entries_text(m, j, text, sizeof text);
        d = lm_derive(r, k, key, parts, 2, (double)fb->bytes, text);
        if (!d || res_derived_field(d, "offset", (double)fb->offset) ||
            res_derived_field(d, "entries", (double)fb->n) ||
            res_derived_field(d, "use", fb->relocatable ? 0 : (double)mf_image_use(m, j, major, minor)))
            return -1;
    }
    return 0;
}

/* Per architecture of the loadable entries: "module.<i>.arch.<sm_90a>",
 * value the entries, fields stored and raw bytes, how many compressed; a
 * cubin or PTX file is one entry of its own arch. */
static int lm_store_archs(results *r, size_t mi, const mf_module *m)
{
    size_t j, count = m->kind == MF_CUBIN || m->kind == MF_PTX ? 1 : m->nloadable_entries;
    mf_entry whole;
    memset(&whole, 0, sizeof whole);
    whole.kind = m->kind == MF_CUBIN ? MF_ENTRY_ELF : MF_ENTRY_PTX;
    whole.arch = m->arch;
    whole.variant = m->variant;
    whole.stored_bytes = whole.raw_bytes = m->data_bytes;
    for (j = 0; j < count; j++) {
        const mf_entry *e = m->kind == MF_CUBIN || m->kind == MF_PTX ? &whole : &m->entries[j];
        char key[96], arch[24], kind[24];
        const char *parts[2];
        const res_derived *old;
        res_derived *d;
        double n = 1, stored = (double)e->stored_bytes, raw = (double)e->raw_bytes;
        double comp = e->comp != MF_COMP_NONE;
        lm_dkey(key, LM_DK_ARCH, NULL, mi, mf_arch_name(e, arch, sizeof arch));
        if ((old = res_derived_find(r, LD, key)) != NULL) {
            n += old->value;
            stored += res_derived_num(old, "stored_bytes");
            raw += res_derived_num(old, "raw_bytes");
            comp += res_derived_num(old, "compressed");
        }
        parts[0] = mf_entry_kind(e, kind, sizeof kind);
        parts[1] = arch;
        d = lm_derive(r, LM_DK_ARCH, key, parts, 2, n, parts[0]);
        if (!d || res_derived_field(d, "stored_bytes", stored) ||
            res_derived_field(d, "raw_bytes", raw) || res_derived_field(d, "compressed", comp))
            return -1;
    }
    return 0;
}

/* "module.<i>": the path, its kind and totals. */
static int lm_store_module(results *r, size_t mi, const mf_module *m, int major, int minor)
{
    double elf = 0, ptx = 0, comp = 0, nocode = 0, ptxonly = 0;
    size_t j, nimg = mf_nimages(m);
    char key[96], text[160];
    const char *path = m->path;
    res_derived *d;

    for (j = 0; j < m->nloadable_entries; j++) {
        elf += m->entries[j].kind == MF_ENTRY_ELF;
        ptx += m->entries[j].kind == MF_ENTRY_PTX;
        comp += m->entries[j].comp != MF_COMP_NONE;
    }
    for (j = 0; j < nimg; j++) {
        mf_use u = mf_image_use(m, j, major, minor);
        nocode += u == MF_USE_NONE;
        ptxonly += u == MF_USE_PTX;
    }
    if (m->kind == MF_CUBIN) snprintf(text, sizeof text, "cubin for sm_%u", m->arch);
    else if (m->kind == MF_PTX)
        snprintf(text, sizeof text, "PTX %u.%u for sm_%u%s", m->ptx_major, m->ptx_minor, m->arch,
                 m->variant == 'a' ? "a" : m->variant == 'f' ? "f" : "");
    else snprintf(text, sizeof text, "%s", mf_kind_name(m->kind));
    lm_dkey(key, LM_DK_MODULE, NULL, mi, NULL);
    d = lm_derive(r, LM_DK_MODULE, key, &path, 1, (double)nimg, text);
    if (!d || res_derived_field(d, "file_bytes", (double)m->file_bytes) ||
        res_derived_field(d, "fatbins", (double)m->nloadable) ||
        res_derived_field(d, "entries", (double)m->nloadable_entries) ||
        res_derived_field(d, "elf", elf) || res_derived_field(d, "ptx", ptx) ||
        res_derived_field(d, "compressed", comp) || res_derived_field(d, "no_code", nocode) ||
        res_derived_field(d, "ptx_only", ptxonly) ||
        res_derived_field(d, "relfatbins", (double)(m->nfatbins - m->nloadable)) ||
        res_derived_field(d, "section_offset", (double)m->section_offset) ||
        res_derived_field(d, "section_bytes", (double)m->section_bytes) ||
        res_derived_field(d, "rel_bytes", (double)m->rel_bytes))
        return -1;
    return 0;
}

int lm_inventory(sec_ctx *c)
{
    int major, minor, a = lm_target(c->o->arch, &major, &minor);
    char arch[16];
    size_t i;

    snprintf(arch, sizeof arch, "sm_%d", a);
    res_env_str(c->r, "module_target_arch", arch);
    for (i = 0; i < c->o->nmodules; i++) {
        char why[600];
        double t0 = clk_now_ms();
        mf_module m;
        if (mf_read(c->o->modules[i], &m, why, sizeof why) != 0) {
            char reason[700];
            snprintf(reason, sizeof reason, "--module: %s", why);
            fprintf(stderr, "harness: error: %s\n", reason);
            res_skip_section(c->r, LD, reason);
            return SEC_USAGE;
        }
        {
            char key[48];
            double ms = clk_now_ms() - t0;
            lm_key(key, sizeof key, NULL, i, lm_read.key);
            res_add(c->r, LD, key, lm_read.name, lm_read.desc, lm_read.state, lm_read.unit, &ms, 1);
        }
        /* The archs before the fatbins: each arch entry is looked up again
         * per entry, over the few stored before it. */
        if (lm_store_module(c->r, i, &m, major, minor) || lm_store_archs(c->r, i, &m) ||
            lm_store_fatbins(c->r, i, &m, major, minor)) {
            mf_free(&m);
            fprintf(stderr, "harness: error: " LD ": out of memory storing the inventory\n");
            return SEC_FAILED;
        }
        mf_free(&m);
    }
    return SEC_OK;
}

/* -------------------------------------------------------- the child --- */

/* Host memory of this process from /proc/self/status: field "VmRSS" or
 * "VmHWM" (the peak) in MiB; NaN where it cannot be read. */
static double lm_proc_mib(const char *field)
{
    char line[256];
    size_t len = strlen(field);
    double v = NAN;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return NAN;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, len) == 0 && line[len] == ':') {
            v = strtod(line + len + 1, NULL) / 1024.0;
            break;
        }
    fclose(f);
    return v;
}

/* What one API's pass over the images found and took. */
typedef struct lm_pass {
    double loaded, nobin, ptxver, other;    /* images loaded, refused by code */
    double skipped;                         /* images not loaded: one killed an earlier child */
    double load_ms, jit_ms, jit_images;
    double functions, get_ms, loaded_get, func_load_ms, loaded_all;
    double mem_load, mem_all, rss_base, rss_load, rss_all;
    unsigned char *refused_nobin;           /* per image: 1 when refused for no code */
    int *refused_code;                      /* per image: the CUresult of another refusal, or 0 */
    const unsigned char *skip;              /* per image: 1 to leave out (HARNESS_MODULE_SKIP) */
    CUfunction *fn;
    size_t nfn;
} lm_pass;

/* A load's CUresult: 0 loaded; 1 refused: no code for this GPU or PTX
 * newer than the driver, counted; 2 refused by another error (a corrupt
 * image: CUDA_ERROR_INVALID_IMAGE), counted and its code kept for the
 * image's name in the table; the other images are loaded all the same,
 * and the parent fails the run on it (lm_say_refused). */
static int lm_classify(CUresult r, lm_pass *p, size_t j)
{
    if (r == CUDA_SUCCESS) {
        p->loaded++;
        return 0;
    }
    (void)ft_take_injected();
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
        p->nobin++;
        p->refused_nobin[j] = 1;
        return 1;
    }
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
        p->ptxver++;
        return 1;
    }
    p->other++;
    p->refused_code[j] = (int)r;
    return 2;
}

/* For the parent (HARNESS_MODULE_PROGRESS=FILE, lm_child_env's): what this
 * child is doing, "mod 3" before image 3's load, "mod functions" after the
 * last, "" at its end, so that a child killed inside the driver leaves the
 * image it died on. Written before the timer starts; nothing without the
 * variable. */
static void lm_progress(const char *api, long j)
{
    const char *path = getenv("HARNESS_MODULE_PROGRESS");
    char line[64];
    int fd, n = 0;

    if (!path || !*path) return;
    if (api) n = j < 0 ? snprintf(line, sizeof line, "%s functions\n", api)
                       : snprintf(line, sizeof line, "%s %ld\n", api, j);
    if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) return;
    if (n > 0 && write(fd, line, (size_t)n) != n) fprintf(stderr, "harness: cannot write %s\n", path);
    close(fd);
}

/* The images to leave out, from HARNESS_MODULE_SKIP ("3,7": image numbers,
 * set by the parent after a child died loading each) into skip[0 .. n). */
static void lm_read_skip(unsigned char *skip, size_t n)
{
    const char *s = getenv("HARNESS_MODULE_SKIP");
    char *end;

    while (s && *s) {
        unsigned long j = strtoul(s, &end, 10);
        if (end == s) break;
        if (j < n) skip[j] = 1;
        s = *end == ',' ? end + 1 : end;
    }
}

/* The image j of m, 8-byte aligned (copied into *tmp when it is not). */
static const void *lm_image(const mf_module *m, size_t j, void **tmp)
{
    size_t len = 0;
    const void *img = mf_image(m, j, &len);
    *tmp = NULL;
    if (img && ((uintptr_t)img & 7u) != 0) {
        if (!(*tmp = malloc(len))) return NULL;
        memcpy(*tmp, img, len);
        img = *tmp;
    }
    return img;
}

/* Count the loaded functions among fn[0..n-1] into *count (sec_count_loaded, as a figure). */
static int lm_count_loaded(CUfunction *fn, size_t n, double *count)
{
    size_t k = 0;
    int rc = sec_count_loaded(fn, n, &k);
    *count = (double)k;
    return rc;
}

/* cuFuncLoad of every function not loaded yet, timed, then the count. */
static int lm_load_functions(lm_pass *p)
{
    if (lm_count_loaded(p->fn, p->nfn, &p->loaded_get) != 0 ||
        sec_load_rest(p->fn, p->nfn, &p->func_load_ms) != 0)
        return -1;
    return lm_count_loaded(p->fn, p->nfn, &p->loaded_all);
}

/* Memory after the load step, before the functions. */
static int lm_after_load(lm_pass *p, size_t free0)
{
    size_t f = 0, total = 0;
    if (drv_mem_info(&f, &total) != 0) return -1;
    p->mem_load = ((double)free0 - (double)f) / MIB;
    p->rss_load = lm_proc_mib("VmRSS");
    return 0;
}

/* Memory once every function is loaded. */
static int lm_after_all(lm_pass *p, size_t free0)
{
    size_t f = 0, total = 0;
    if (drv_mem_info(&f, &total) != 0) return -1;
    p->mem_all = ((double)free0 - (double)f) / MIB;
    p->rss_all = lm_proc_mib("VmRSS");
    return 0;
}

/* Every image through cuModuleLoadDataEx (CU_JIT_WALL_TIME asked: the
 * JIT's own time where the driver compiles PTX), each load's time stored
 * as "mod.fb.<j>.load"; then every function enumerated and loaded. */
static int lm_module_pass(sec_ctx *c, const mf_module *m, lm_pass *p)
{
    size_t n = mf_nimages(m), j, k, free0 = 0, total = 0;
    CUmodule *mods = calloc(n ? n : 1, sizeof *mods);
    int rc = -1;
    double t0;

    if (!mods) return -1;
    p->rss_base = lm_proc_mib("VmRSS");
    if (drv_mem_info(&free0, &total) != 0) goto out;
    for (j = 0; j < n; j++) {
        CUjit_option opt[1] = { CU_JIT_WALL_TIME };
        void *val[1] = { NULL }, *tmp;
        const void *img = lm_image(m, j, &tmp);
        float wall = 0;
        double ms;
        CUresult r;
        char key[64];
        if (p->skip[j]) {
            free(tmp);
            p->skipped++;
            continue;
        }
        if (!img) goto out;
        lm_progress(LM_MOD, (long)j);
        t0 = clk_now_ms();
        DRV_CALL(r, drv.cuModuleLoadDataEx(&mods[j], img, 1, opt, val));
        ms = clk_now_ms() - t0;
        free(tmp);
        lm_classify(r, p, j);
        if (r != CUDA_SUCCESS) {
            mods[j] = NULL;
            continue;
        }
        memcpy(&wall, &val[0], sizeof wall);
        p->load_ms += ms;
        if (mf_image_use(m, j, c->gpu.cc_major, c->gpu.cc_minor) == MF_USE_PTX) {
            p->jit_ms += wall;
            p->jit_images++;
        }
        snprintf(key, sizeof key, LM_MOD ".fb.%zu." LM_LOAD, j);
        if (!res_add(c->r, LD, key, lm_more[LM_M_IMAGE_LOAD].name, lm_more[LM_M_IMAGE_LOAD].desc,
                     lm_more[LM_M_IMAGE_LOAD].state, lm_more[LM_M_IMAGE_LOAD].unit, &ms, 1))
            goto out;
    }
    lm_progress(LM_MOD, -1);
    if (lm_after_load(p, free0) != 0) goto out;
    {   /* every function: counted, then enumerated, the two passes timed */
        unsigned cnt;
        double get = 0;
        t0 = clk_now_ms();
        for (j = 0; j < n; j++)
            if (mods[j]) {
                CK(drv.cuModuleGetFunctionCount(&cnt, mods[j]));
                p->nfn += cnt;
            }
        get += clk_now_ms() - t0;
        if (!(p->fn = calloc(p->nfn ? p->nfn : 1, sizeof *p->fn))) goto out;
        t0 = clk_now_ms();
        for (j = 0, k = 0; j < n; j++)
            if (mods[j]) {
                CK(drv.cuModuleGetFunctionCount(&cnt, mods[j]));
                if (cnt > p->nfn - k) cnt = (unsigned)(p->nfn - k);
                CK(drv.cuModuleEnumerateFunctions(p->fn + k, cnt, mods[j]));
                k += cnt;
            }
        p->get_ms = get + clk_now_ms() - t0;
        p->functions = (double)p->nfn;
    }
    if (lm_load_functions(p) != 0 || lm_after_all(p, free0) != 0) goto out;
    rc = 0;
out:
    for (j = 0; j < n; j++)
        if (mods[j]) drv.cuModuleUnload(mods[j]);
    free(mods);
    return rc;
fail:
    rc = -1;
    goto out;
}

/* Every image through cuLibraryLoadData (context-independent), its
 * kernels enumerated, each one's function in this context taken
 * (cuKernelGetFunction) and loaded. */
static int lm_library_pass(sec_ctx *c, const mf_module *m, lm_pass *p)
{
    size_t n = mf_nimages(m), j, k, nk = 0, free0 = 0, total = 0;
    CUlibrary *libs = calloc(n ? n : 1, sizeof *libs);
    CUkernel *kern = NULL;
    int rc = -1;
    double t0;

    (void)c;
    if (!libs) return -1;
    p->rss_base = lm_proc_mib("VmRSS");
    if (drv_mem_info(&free0, &total) != 0) goto out;
    for (j = 0; j < n; j++) {
        void *tmp;
        const void *img = lm_image(m, j, &tmp);
        double ms;
        CUresult r;
        if (p->skip[j]) {
            free(tmp);
            p->skipped++;
            continue;
        }
        if (!img) goto out;
        lm_progress("lib", (long)j);
        t0 = clk_now_ms();
        DRV_CALL(r, drv.cuLibraryLoadData(&libs[j], img, NULL, NULL, 0, NULL, NULL, 0));
        ms = clk_now_ms() - t0;
        free(tmp);
        lm_classify(r, p, j);
        if (r != CUDA_SUCCESS) libs[j] = NULL;
        else p->load_ms += ms;
    }
    lm_progress("lib", -1);
    if (lm_after_load(p, free0) != 0) goto out;
    {
        unsigned cnt;
        t0 = clk_now_ms();
        for (j = 0; j < n; j++)
            if (libs[j]) {
                CK(drv.cuLibraryGetKernelCount(&cnt, libs[j]));
                nk += cnt;
            }
        p->get_ms = clk_now_ms() - t0;
        if (!(kern = calloc(nk ? nk : 1, sizeof *kern)) ||
            !(p->fn = calloc(nk ? nk : 1, sizeof *p->fn)))
            goto out;
        t0 = clk_now_ms();
        for (j = 0, k = 0; j < n; j++)
            if (libs[j]) {
                CK(drv.cuLibraryGetKernelCount(&cnt, libs[j]));
                if (cnt > nk - k) cnt = (unsigned)(nk - k);
                CK(drv.cuLibraryEnumerateKernels(kern + k, cnt, libs[j]));
                k += cnt;
            }
        for (k = 0; k < nk; k++) CK(drv.cuKernelGetFunction(&p->fn[k], kern[k]));
        p->get_ms += clk_now_ms() - t0;
        p->nfn = nk;
        p->functions = (double)nk;
    }
    if (lm_load_functions(p) != 0 || lm_after_all(p, free0) != 0) goto out;
    rc = 0;
out:
    free(kern);
    for (j = 0; j < n; j++)
        if (libs[j]) drv.cuLibraryUnload(libs[j]);
    free(libs);
    return rc;
fail:
    rc = -1;
    goto out;
}

/* The figures of a pass over a module's images, "<api>.<step>" (api "mod",
 * cuModuleLoadDataEx, or "lib", cuLibraryLoadData: the name says which). */
static const struct lm_fig {
    sch_key k;          /* key: the step, after "<api>." */
    size_t off;         /* its figure in lm_pass */
} lm_figs[] = {
#define LMF(s, n, rg, u, m) { { s, u, RES_PROCESS, n, rg }, offsetof(lm_pass, m) }
    LMF(LM_LOADED, "images loaded", "count", "images", loaded),
    LMF(LM_REFUSED_NOBIN, "images refused: no code for this GPU",
        "count of CUDA_ERROR_NO_BINARY_FOR_GPU", "images", nobin),
    LMF(LM_REFUSED_PTX, "images refused: PTX newer than the driver",
        "count of CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "images", ptxver),
    LMF(LM_REFUSED_OTHER, "images refused by another error (named: <api>.fb.<j>.refused)",
        "count", "images", other),
    LMF(LM_SKIPPED, "images left out: each killed an earlier child loading it", "count", "images",
        skipped),
    LMF(LM_LOAD, "load of every image", "host clock summed over each image's load call", "ms", load_ms),
    LMF(LM_JIT, "driver JIT of the images with only PTX for this GPU",
        "CU_JIT_WALL_TIME summed over those images' loads", "ms", jit_ms),
    LMF(LM_JIT_IMAGES, "images with only PTX for this GPU", "count", "images", jit_images),
    LMF(LM_FUNCTIONS, "functions", "count (enumerated)", "functions", functions),
    LMF(LM_GET, "getting every function", "host clock around the count and enumerate calls "
        "(and cuKernelGetFunction of each kernel)", "ms", get_ms),
    LMF(LM_LOADED_GET, "functions loaded once got", "cuFuncIsLoaded over all", "functions", loaded_get),
    LMF(LM_FUNC_LOAD, "cuFuncLoad of every function not loaded",
        "host clock summed over each cuFuncLoad", "ms", func_load_ms),
    LMF(LM_LOADED_ALL, "functions loaded after cuFuncLoad", "cuFuncIsLoaded over all", "functions",
        loaded_all),
    LMF(LM_MEM_LOAD, "device memory used after the load", "cuMemGetInfo free before the first "
        "load minus free after the last", "MiB", mem_load),
    LMF(LM_MEM_ALL, "device memory used, every function loaded", "cuMemGetInfo free before the "
        "first load minus free after the last cuFuncLoad", "MiB", mem_all),
    LMF(LM_RSS_BASE, "host memory (VmRSS) before the first load", "/proc/self/status", "MiB", rss_base),
    LMF(LM_RSS_LOAD, "host memory (VmRSS) after the load", "/proc/self/status", "MiB", rss_load),
    LMF(LM_RSS_ALL, "host memory (VmRSS), every function loaded", "/proc/self/status", "MiB", rss_all),
#undef LMF
};
#define LM_NFIGS (sizeof lm_figs / sizeof lm_figs[0])

/* Store a pass over n images as "<api>.<step>" figures, one sample each,
 * and each image refused by another error as "<api>.fb.<j>.refused" (its
 * CUresult). */
static int lm_store_pass(results *r, const char *api, const lm_pass *p, size_t n)
{
    size_t i;
    for (i = 0; i < LM_NFIGS; i++) {
        const sch_key *k = &lm_figs[i].k;
        char key[64], name[160];
        double v = *(const double *)(const void *)((const char *)p + lm_figs[i].off);
        /* cuLibraryLoadData takes no JIT options: no JIT figure of its own. */
        if (strcmp(api, LM_LIB) == 0 && strncmp(k->key, LM_JIT, strlen(LM_JIT)) == 0) continue;
        snprintf(key, sizeof key, "%s.%s", api, k->key);
        snprintf(name, sizeof name, "%s (%s)", k->name, strcmp(api, LM_MOD) == 0
                 ? "cuModuleLoadDataEx" : "cuLibraryLoadData");
        if (!res_add(r, LD, key, name, k->desc, k->state, k->unit, &v, 1)) return -1;
    }
    {
        char key[64];
        double later = p->get_ms + p->func_load_ms;
        snprintf(key, sizeof key, "%s.later", api);
        if (!res_add(r, LD, key, lm_more[LM_M_LATER].name, lm_more[LM_M_LATER].desc,
                     lm_more[LM_M_LATER].state, lm_more[LM_M_LATER].unit, &later, 1))
            return -1;
    }
    for (i = 0; i < n; i++) {
        char key[64];
        double code = p->refused_code[i];
        if (!p->refused_code[i]) continue;
        snprintf(key, sizeof key, "%s.fb.%zu.refused", api, i);
        if (!res_add(r, LD, key, lm_more[LM_M_REFUSED].name, lm_more[LM_M_REFUSED].desc,
                     lm_more[LM_M_REFUSED].state, lm_more[LM_M_REFUSED].unit, &code, 1))
            return -1;
    }
    return 0;
}

/* The checks on a pass: for the module path, the reader's no-code
 * prediction against the driver's refusals (cuLibraryLoadData refuses none:
 * on the H200 it accepted all 1185 of libcublasLt's images without sm_90
 * code, so the library path's refusals are a figure, not a check); every
 * function loaded after cuFuncLoad. */
static void lm_check_pass(sec_ctx *c, const mf_module *m, const char *api, const lm_pass *p)
{
    size_t n = mf_nimages(m), j, predicted = 0, first = (size_t)-1, diff = 0;
    char what[160], detail[400];
    for (j = 0; j < n && strcmp(api, "mod") == 0; j++) {
        int none = mf_image_use(m, j, c->gpu.cc_major, c->gpu.cc_minor) == MF_USE_NONE;
        if (p->skip[j]) continue;            /* not handed to the driver */
        predicted += (size_t)none;
        if (none != (p->refused_nobin[j] != 0)) {
            diff++;
            if (first == (size_t)-1) first = j;
        }
    }
    if (strcmp(api, "mod") == 0) {
        snprintf(what, sizeof what, "%s: the images the reader finds no code for %s in are those the "
                 "driver refused (CUDA_ERROR_NO_BINARY_FOR_GPU)", api, c->gpu.arch);
        if (diff == 0)
            snprintf(detail, sizeof detail, "%zu of %zu images, both", predicted, n);
        else
            snprintf(detail, sizeof detail, "the reader predicts %zu, the driver refused %.0f; %zu "
                     "differ, the first image %zu", predicted, p->nobin, diff, first);
        res_check_add(c->r, LD, what, diff == 0, detail);
    }
    snprintf(what, sizeof what, "%s: every function loaded after cuFuncLoad", api);
    snprintf(detail, sizeof detail, "%.0f of %.0f loaded", p->loaded_all, p->functions);
    res_check_add(c->r, LD, what, p->loaded_all == p->functions, detail);
}

int lm_measure(sec_ctx *c)
{
    mf_module m;
    lm_pass p[2];
    char why[600];
    unsigned char *skip = NULL;
    int rc, i, failed = 0;
    double peak;
    size_t n;

    if ((rc = sec_begin(c, LD, 1, 0)) != SEC_OK) return rc;
    ph_set(LD ": --module child");
    memset(p, 0, sizeof p);
    if (c->o->nmodules != 1 || mf_read(c->o->modules[0], &m, why, sizeof why) != 0) {
        fprintf(stderr, "harness: error: --module: %s\n", c->o->nmodules != 1
                ? "a child measures one module" : why);
        return SEC_USAGE;
    }
    n = mf_nimages(&m);
    if (!(skip = calloc(n ? n : 1, 1))) failed = 1;
    else lm_read_skip(skip, n);
    for (i = 0; i < 2; i++) {
        p[i].skip = skip;
        if (!(p[i].refused_nobin = calloc(n ? n : 1, 1)) ||
            !(p[i].refused_code = calloc(n ? n : 1, sizeof *p[i].refused_code)))
            failed = 1;
    }
    if (!failed && (lm_module_pass(c, &m, &p[0]) != 0 ||
                    lm_store_pass(c->r, LM_MOD, &p[0], mf_nimages(&m)) != 0 ||
                    lm_library_pass(c, &m, &p[1]) != 0 ||
                    lm_store_pass(c->r, LM_LIB, &p[1], mf_nimages(&m)) != 0))
        failed = 1;
    if (!failed) {
        lm_check_pass(c, &m, LM_MOD, &p[0]);
        lm_check_pass(c, &m, LM_LIB, &p[1]);
    }
    peak = lm_proc_mib("VmHWM");
    if (!res_add(c->r, LD, lm_more[LM_M_RSS_PEAK].key, lm_more[LM_M_RSS_PEAK].name,
                 lm_more[LM_M_RSS_PEAK].desc, lm_more[LM_M_RSS_PEAK].state, lm_more[LM_M_RSS_PEAK].unit,
                 &peak, 1))
        failed = 1;
    for (i = 0; i < 2; i++) {
        free(p[i].refused_nobin);
        free(p[i].refused_code);
        free(p[i].fn);
    }
    free(skip);
    mf_free(&m);
    lm_progress(NULL, 0);
    ph_set(NULL);
    return failed ? SEC_FAILED : SEC_OK;
}

/* ------------------------------------------------------- the parent --- */

/* What the parent keeps across one run's children: the file each child
 * names the image it is loading in (lm_progress), and per module the images
 * left out since one killed a child loading it, with what happened. */
#define LM_MAX_SKIP 8
typedef struct lm_state {
    char dir[512], progress[600];
    size_t skip[CLI_MAX_MODULES][LM_MAX_SKIP];
    char died[CLI_MAX_MODULES][LM_MAX_SKIP][600];
    size_t nskip[CLI_MAX_MODULES];
} lm_state;

/* The image the last child was loading when it ended, from its progress
 * file: 1 with its API ("mod" or "lib") and number, 0 when it was not
 * inside an image's load (it ended, or had loaded them all). */
static int lm_dying_image(const lm_state *st, char *api, size_t *j)
{
    char line[64] = "";
    unsigned long v;
    FILE *f = fopen(st->progress, "r");
    int n;

    if (!f) return 0;
    n = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!n || sscanf(line, "%3s %lu", api, &v) != 2) return 0;
    *j = (size_t)v;
    return 1;
}

/* One child measuring module mi (--child=results --module=PATH), JIT cache
 * disabled; mode "eager", "lazy" or NULL (the run's); its figures become
 * one sample each of "<prefix>module.<mi>.<key>", its failed checks
 * copied. The images of st's skip list are left out (HARNESS_MODULE_SKIP);
 * a child that dies (or hangs) inside an image's load names that image, in
 * a failed check and a line, and a fresh child measures the module again
 * without it (LM_MAX_SKIP images at most). Returns 0, 1 (it failed:
 * recorded) or -1 (not started). */
static int lm_child_env(sec_ctx *c, lm_state *st, size_t mi, const char *mode, const char *expect,
                        const char *prefix, int round, const char *const *env, size_t nenv);

static int lm_child(sec_ctx *c, lm_state *st, size_t mi, const char *mode, const char *expect,
                    const char *prefix, int round)
{
    static const char *const env[1] = { "CUDA_CACHE_DISABLE=1" };
    return lm_child_env(c, st, mi, mode, expect, prefix, round, env, 1);
}

/* After a child of module mi that did not end well: when it died inside
 * an image's load, that image joins the skip list (named on stderr, its
 * story kept for module.<mi>.skipped). Returns 1 when the module is to be
 * measured again without it, else 0. */
static int lm_after_death(sec_ctx *c, lm_state *st, size_t mi, const char *detail)
{
    char api[4] = "";
    size_t j, k;

    if (!lm_dying_image(st, api, &j) || st->nskip[mi] >= LM_MAX_SKIP) return 0;
    for (k = 0; k < st->nskip[mi]; k++)
        if (st->skip[mi][k] == j) return 0;
    st->skip[mi][st->nskip[mi]] = j;
    snprintf(st->died[mi][st->nskip[mi]], sizeof st->died[mi][0], "image %zu: %s while %s loaded it",
             j, detail, strcmp(api, "lib") == 0 ? "cuLibraryLoadData" : "cuModuleLoadDataEx");
    fprintf(stderr, "harness: " LD ": --module=%s: %s; measured again without it, in a fresh child\n",
            c->o->modules[mi], st->died[mi][st->nskip[mi]]);
    st->nskip[mi]++;
    return 1;
}

/* lm_child with the environment changes env (nenv of them). */
static int lm_child_env(sec_ctx *c, lm_state *st, size_t mi, const char *mode, const char *expect,
                        const char *prefix, int round, const char *const *env, size_t nenv)
{
    char arg[6][4200], detail[512], what[300], pre[64], skipvar[32 + LM_MAX_SKIP * 21];
    char progvar[640];
    const char *args[6], *envs[8];
    size_t nargs = 0, i, k, at;
    results child;
    const res_kv *eff;
    int ok, failed = 0, again;

    snprintf(arg[nargs++], sizeof arg[0], "--child=results");
    snprintf(arg[nargs++], sizeof arg[0], "--section=loading");
    snprintf(arg[nargs++], sizeof arg[0], "--module=%s", c->o->modules[mi]);
    snprintf(arg[nargs++], sizeof arg[0], "--device=%d", c->o->device);
    if (mode) snprintf(arg[nargs++], sizeof arg[0], "--module-loading=%s", mode);
    if (c->o->arch) snprintf(arg[nargs++], sizeof arg[0], "--arch=%s", c->o->arch);
    for (i = 0; i < nargs; i++) args[i] = arg[i];
    for (i = 0; i < nenv && i < 6; i++) envs[i] = env[i];
    snprintf(progvar, sizeof progvar, "HARNESS_MODULE_PROGRESS=%s", st->progress);
    envs[i++] = progvar;
    snprintf(skipvar, sizeof skipvar, "HARNESS_MODULE_SKIP%s", st->nskip[mi] ? "=" : "");
    for (at = strlen(skipvar), k = 0; k < st->nskip[mi]; k++)
        at += (size_t)snprintf(skipvar + at, sizeof skipvar - at, "%s%zu", k ? "," : "", st->skip[mi][k]);
    envs[i++] = skipvar;                /* "HARNESS_MODULE_SKIP" alone: none (removed) */
    unlink(st->progress);
    sec_status cs = sec_run_child(c, args, nargs, envs, i, &child, detail, sizeof detail);
    if (cs == SEC_ERROR) return -1;
    ok = cs == SEC_OK;
    eff = res_env_get(&child, "module_loading_effective");
    if (ok && expect && (!eff || eff->kind != RES_STR || !eff->str || strcmp(eff->str, expect) != 0)) {
        ok = 0;
        snprintf(detail, sizeof detail, "asked for %s, the child ran %s", expect,
                 eff && eff->str ? eff->str : "in an unknown mode");
    }
    if (ok && eff && eff->kind == RES_STR && eff->str && !res_env_get(c->r, "module_loading_effective"))
        res_env_str(c->r, "module_loading_effective", eff->str);
    if (ok && !res_env_get(c->r, "arch") && res_env_get(&child, "arch"))
        res_env_str(c->r, "arch", res_env_get(&child, "arch")->str);
    if (ok && !res_env_get(c->r, "driver_cuda_version") && res_env_get(&child, "driver_cuda_version"))
        res_env_str(c->r, "driver_cuda_version", res_env_get(&child, "driver_cuda_version")->str);
    snprintf(what, sizeof what, "--module %zu, %s%s%schild %d ran to the end%s", mi, prefix,
             mode ? mode : "", mode ? " " : "", round + 1,
             st->nskip[mi] ? " (without the images that killed a child)" : "");
    res_check_add(c->r, LD, what, ok, ok ? "ran" : detail);
    if (!ok) {
        fprintf(stderr, "harness: " LD ": %s (%s): %s\n", what, c->o->modules[mi], detail);
        failed = 1;
    }
    again = !ok && lm_after_death(c, st, mi, detail);
    lm_key(pre, sizeof pre, prefix, mi, "");
    if (ok && sec_accumulate(c->r, LD, pre, &child) != 0) {
        res_free(&child);
        return -1;
    }
    /* The first round's checks, every later failed one (also from a child
     * that exited 1). */
    for (i = 0; i < child.ncheck; i++)
        if (round == 0 || !child.check[i].passed) {
            char w[400];
            snprintf(w, sizeof w, "--module %zu, %s%schild %d: %s", mi, mode ? mode : "", mode ? " " : "",
                     round + 1, child.check[i].what);
            res_check_add(c->r, LD, w, child.check[i].passed, child.check[i].detail);
            if (!child.check[i].passed) failed = 1;
        }
    res_free(&child);
    if (again) return lm_child_env(c, st, mi, mode, expect, prefix, round, env, nenv) < 0 ? -1 : 1;
    return failed;
}

/* The PTX-only images' JIT with the driver's cache on: for each module
 * with such images, --rounds pairs of EAGER children over one private
 * cache directory each, the first finding it empty, the second warm:
 * "cache.empty.module.<i>.*" and "cache.warm.module.<i>.*" (the rounds
 * themselves ran with the cache disabled). Returns 0, 1 or -1. */
static int lm_cache_states(sec_ctx *c, lm_state *st)
{
    char key[96], dir[512], pathvar[600];
    const char *env[2];
    size_t i;
    int round, r, failed = 0;

    for (i = 0; i < c->o->nmodules; i++) {
        lm_dkey(key, LM_DK_MODULE, NULL, i, NULL);
        if (!(res_derived_num(res_derived_find(c->r, LD, key), "ptx_only") > 0)) continue;
        for (round = 0; round < c->o->rounds; round++) {
            if (sec_private_cache(LD, "module-cache", dir, sizeof dir, pathvar, sizeof pathvar,
                                  env) != 0)
                return -1;
            r = lm_child_env(c, st, i, "eager", "EAGER", LM_CACHE_EMPTY, round, env, 2);
            if (r >= 0) {
                failed |= r;
                r = lm_child_env(c, st, i, "eager", "EAGER", LM_CACHE_WARM, round, env, 2);
            }
            if (pr_rmtree(dir) != 0) fprintf(stderr, "harness: " LD ": could not remove %s\n", dir);
            if (r < 0) return -1;
            failed |= r;
        }
    }
    return failed;
}

/* One line per module whose images the driver refused as PTX newer than
 * it takes: the path, how many, the driver's CUDA version. */
static void lm_say_ptx_refused(const sec_ctx *c)
{
    static const char *const pre[3] = { "", LD_EAGER, LD_LAZY };
    size_t i;
    int p;
    for (i = 0; i < c->o->nmodules; i++) {
        double n = 0;
        for (p = 0; p < 3; p++) {
            char key[96];
            const res_meas *m;
            lm_key(key, sizeof key, pre[p], i, LM_MOD "." LM_REFUSED_PTX);
            if ((m = res_find(c->r, LD, key)) && m->stats.max > n) n = m->stats.max;
        }
        if (n > 0)
            fprintf(stderr, "harness: " LD ": --module=%s: %.0f image%s refused as PTX newer than this "
                    "driver (CUDA %s) takes (CUDA_ERROR_UNSUPPORTED_PTX_VERSION): counted, not an "
                    "error\n", c->o->modules[i], n, n == 1 ? "" : "s",
                    tb_env_str(c->r, "driver_cuda_version", "?"));
    }
}

/* The images that killed a child, per module: "module.<i>.skipped" (value:
 * how many; text: each one's story, "image 3: the child --child=results
 * died of signal 6 (Aborted) while cuModuleLoadDataEx loaded it"), left
 * out of every later child. Returns 0, or -1 on out of memory. */
static int lm_store_skipped(sec_ctx *c, const lm_state *st)
{
    size_t mi, k, at;
    for (mi = 0; mi < c->o->nmodules; mi++) {
        char key[96], text[LM_MAX_SKIP * 610];
        if (!st->nskip[mi]) continue;
        for (text[0] = '\0', at = 0, k = 0; k < st->nskip[mi] && at < sizeof text; k++)
            at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", k ? "; " : "", st->died[mi][k]);
        lm_dkey(key, LM_DK_SKIPPED, NULL, mi, NULL);
        if (!lm_derive(c->r, LM_DK_SKIPPED, key, NULL, 0, (double)st->nskip[mi], text))
            return -1;
    }
    return 0;
}

/* Images the driver refused by another error than no code or a PTX
 * version (a corrupt image): one line per module naming them (from the
 * conclusion lm_refused stored) and a failed check: the other images were
 * measured, but one the user handed over was not loaded. Returns 1 when
 * there were any, else 0. */
static int lm_say_refused(sec_ctx *c)
{
    size_t mi;
    int any = 0;
    for (mi = 0; mi < c->o->nmodules; mi++) {
        char key[96], what[200];
        const res_derived *d;
        lm_dkey(key, LM_DK_REFUSED, NULL, mi, NULL);
        if (!(d = res_derived_find(c->r, LD, key)) || !(d->value > 0)) continue;
        fprintf(stderr, "harness: " LD ": --module=%s: %.0f image%s refused by the driver: %s; the "
                "other images measured\n", c->o->modules[mi], d->value, d->value == 1 ? "" : "s", d->text);
        snprintf(what, sizeof what, "--module %zu: every image loaded, or refused for no code for this "
                 "GPU or a PTX version", mi);
        res_check_add(c->r, LD, what, 0, d->text);
        any = 1;
    }
    return any;
}

int lm_run(sec_ctx *c)
{
    static const char *const modes[2] = { "eager", "lazy" };
    static const char *const effective[2] = { "EAGER", "LAZY" };
    static const char *const prefix[2] = { LD_EAGER, LD_LAZY };
    size_t i;
    int rc, round, mi, r = 0, failed = 0;
    int rounds = c->o->compare_loading ? c->o->compare_rounds : c->o->rounds;
    lm_state *st;
    char why[300];

    ph_set(LD ": --module inventory");
    if ((rc = lm_inventory(c)) != SEC_OK) return rc;
    if (sec_need_driver(c, LD, "the GPU part of --module (loading every image, its functions, "
                        "memory)") != 0)
        return SEC_NO_GPU;
    if (!(st = calloc(1, sizeof *st))) {
        fprintf(stderr, "harness: error: " LD ": out of memory\n");
        return SEC_FAILED;
    }
    if (pr_mkdtemp("module-progress", st->dir, sizeof st->dir, why, sizeof why) != 0) {
        fprintf(stderr, "harness: error: " LD ": %s\n", why);
        free(st);
        return SEC_FAILED;
    }
    snprintf(st->progress, sizeof st->progress, "%s/progress", st->dir);
    ph_set(LD ": --module children");
    for (i = 0; i < c->o->nmodules; i++)
        for (round = 0; round < rounds; round++) {
            if (!c->o->compare_loading) {
                if ((r = lm_child(c, st, i, NULL, NULL, "", round)) < 0) goto out;
                failed |= r;
                continue;
            }
            for (mi = 0; mi < 2; mi++) {
                if ((r = lm_child(c, st, i, modes[mi], effective[mi], prefix[mi], round)) < 0)
                    goto out;
                failed |= r;
            }
        }
    if ((r = lm_cache_states(c, st)) < 0) goto out;
    failed |= r;
    lm_say_ptx_refused(c);
    if (c->o->compare_loading) {
        res_env_num(c->r, "compare_loading_rounds", c->o->compare_rounds);
        res_env_num(c->r, "compare_threshold_pct", c->o->threshold);
    } else {
        res_env_num(c->r, "loading_rounds", c->o->rounds);
    }
    r = 0;
    if (lm_store_skipped(c, st) != 0 || lm_conclude(c->r) != 0) {
        fprintf(stderr, "harness: error: " LD ": out of memory storing the conclusions\n");
        r = -1;
    }
    failed |= lm_say_refused(c);
out:
    if (pr_rmtree(st->dir) != 0) fprintf(stderr, "harness: " LD ": could not remove %s\n", st->dir);
    free(st);
    if (r < 0) return SEC_FAILED;
    return failed ? SEC_FAILED : SEC_OK;
}

/* ---------------------------------------------------- conclusions --- */

const char *const lm_compare_steps[LM_COMPARE_NSTEPS] = {
    LM_LOAD, LM_JIT, LM_GET, LM_FUNC_LOAD, LM_LATER, LM_MEM_LOAD, LM_MEM_ALL
};

typedef struct lm_slow { double ms; size_t fatbin; } lm_slow;

static int lm_slow_cmp(const void *a, const void *b)
{
    const lm_slow *x = a, *y = b;
    return x->ms < y->ms ? 1 : x->ms > y->ms ? -1 : (x->fatbin > y->fatbin) - (x->fatbin < y->fatbin);
}

/* The LM_SLOWEST slowest images of module mi under prefix pre. */
static int lm_slowest(results *r, size_t mi, const char *pre)
{
    char head[64], key[96];
    size_t i, n = 0, hl;
    lm_slow *s;
    double total;

    lm_key(head, sizeof head, pre, mi, LM_MOD ".fb.");
    lm_key(key, sizeof key, pre, mi, LM_MOD "." LM_LOAD);
    total = tb_med(r, LD, key);
    hl = strlen(head);
    if (!(s = calloc(r->nm ? r->nm : 1, sizeof *s))) return -1;
    for (i = 0; i < r->nm; i++) {
        const char *k = r->m[i].key;
        char *end;
        unsigned long j;
        if (strcmp(r->m[i].section, LD) != 0 || strncmp(k, head, hl) != 0) continue;
        j = strtoul(k + hl, &end, 10);
        if (strcmp(end, ".load") != 0) continue;
        s[n].ms = r->m[i].stats.median;
        s[n].fatbin = j;
        n++;
    }
    qsort(s, n, sizeof *s, lm_slow_cmp);
    for (i = 0; i < n && i < LM_SLOWEST; i++) {
        char rank[32];
        const char *part = rank;
        res_derived *d;
        snprintf(rank, sizeof rank, "%zu", i + 1);
        lm_dkey(key, LM_DK_SLOWEST, pre, mi, rank);
        d = lm_derive(r, LM_DK_SLOWEST, key, &part, 1, s[i].ms, "");
        if (!d || res_derived_field(d, "fatbin", (double)s[i].fatbin) ||
            res_derived_field(d, "share_pct", total > 0 ? 100.0 * s[i].ms / total : NAN)) {
            free(s);
            return -1;
        }
    }
    free(s);
    return 0;
}

/* The median of "<pre>module.<mi>.<step>" (NaN when absent). */
static double lm_med(const results *r, const char *pre, size_t mi, const char *step)
{
    char key[96];
    lm_key(key, sizeof key, pre, mi, step);
    return tb_med(r, LD, key);
}

/* "module.<mi>.where": where the load's cost went, in words, from the
 * medians (both modes when the run has them, else the run's one). */
static int lm_where(results *r, size_t mi)
{
    const char *mode = tb_env_str(r, "module_loading_effective", "this run's mode");
    int both = !isnan(lm_med(r, LD_EAGER, mi, LM_MOD "." LM_LOAD)) && !isnan(lm_med(r, LD_LAZY, mi, LM_MOD "." LM_LOAD));
    const char *pe = both ? LD_EAGER : "", *pl = both ? LD_LAZY : "";
    double el = lm_med(r, pe, mi, LM_MOD "." LM_LOAD), ell = lm_med(r, pe, mi, LM_MOD "." LM_LATER);
    double ll = lm_med(r, pl, mi, LM_MOD "." LM_LOAD), lll = lm_med(r, pl, mi, LM_MOD "." LM_LATER);
    double em = lm_med(r, pe, mi, LM_MOD "." LM_MEM_LOAD), lm = lm_med(r, pl, mi, LM_MOD "." LM_MEM_LOAD);
    double ema = lm_med(r, pe, mi, LM_MOD "." LM_MEM_ALL), lma = lm_med(r, pl, mi, LM_MOD "." LM_MEM_ALL);
    double img = lm_med(r, pe, mi, LM_MOD "." LM_LOADED) + lm_med(r, pe, mi, LM_MOD "." LM_REFUSED_NOBIN) +
                 lm_med(r, pe, mi, LM_MOD "." LM_REFUSED_PTX) + lm_med(r, pe, mi, LM_MOD "." LM_REFUSED_OTHER);
    double nobin = lm_med(r, pe, mi, LM_MOD "." LM_REFUSED_NOBIN);
    char text[600], key[96];
    res_derived *d;

    if (isnan(el)) return 0;
    if (both)
        snprintf(text, sizeof text, "EAGER pays %.1f ms at load and %.1f ms later (%.0f MiB of device "
                 "memory after load, %.0f MiB with every function); LAZY pays %.1f ms at load and "
                 "%.1f ms later (%.0f MiB after load, %.0f MiB with every function): %s %.1f ms of "
                 "the load %s; %.0f of %.0f images hold no code for this GPU",
                 el, ell, em, ema, ll, lll, lm, lma, ll <= el ? "lazy loading moves" : "lazy loading adds",
                 fabs(el - ll), ll <= el ? "to the first use of each function" : "at load",
                 nobin, img);
    else
        snprintf(text, sizeof text, "%s: %.1f ms at load, %.1f ms later to get and load every "
                 "function; %.0f MiB of device memory after load, %.0f MiB with every function; "
                 "%.0f of %.0f images hold no code for this GPU", mode, el, ell, em, ema, nobin, img);
    lm_dkey(key, LM_DK_WHERE, NULL, mi, NULL);
    d = lm_derive(r, LM_DK_WHERE, key, NULL, 0, both ? ll - el : el, text);
    if (!d || res_derived_field(d, "eager_load", both ? el : NAN) ||
        res_derived_field(d, "eager_later", both ? ell : NAN) ||
        res_derived_field(d, "lazy_load", both ? ll : NAN) ||
        res_derived_field(d, "lazy_later", both ? lll : NAN) ||
        res_derived_field(d, "load", both ? NAN : el) || res_derived_field(d, "later", both ? NAN : ell) ||
        res_derived_field(d, "eager_mem_load", em) || res_derived_field(d, "lazy_mem_load", lm) ||
        res_derived_field(d, "eager_mem_all", ema) || res_derived_field(d, "lazy_mem_all", lma) ||
        res_derived_field(d, "no_code", nobin) || res_derived_field(d, "images", img))
        return -1;
    return 0;
}

/* "module.<mi>.refused": the images the driver refused by another error,
 * from the children's "<pre>module.<mi>.<api>.fb.<j>.refused" (value: how
 * many images; text: "image 3: CUDA_ERROR_INVALID_IMAGE (200); ...", the
 * first code seen for each). Nothing when there were none. Returns 0, or
 * -1 on out of memory. */
static int lm_refused(results *r, size_t mi)
{
    static const char *const pre[3] = { "", LD_EAGER, LD_LAZY };
    char head[3][64], key[96], text[2048];
    size_t i, hl, at = 0, n = 0, seen[64];
    int p;

    text[0] = '\0';
    for (p = 0; p < 3; p++) lm_key(head[p], sizeof head[p], pre[p], mi, "");
    for (i = 0; i < r->nm; i++) {
        const char *k = r->m[i].key, *api;
        char *end;
        unsigned long j;
        size_t q;
        if (strcmp(r->m[i].section, LD) != 0) continue;
        for (p = 0; p < 3 && strncmp(k, head[p], strlen(head[p])) != 0; p++) {}
        if (p == 3) continue;
        hl = strlen(head[p]);
        api = k + hl;
        if (strncmp(api, LM_MOD ".fb.", 7) != 0 && strncmp(api, LM_LIB ".fb.", 7) != 0) continue;
        j = strtoul(api + 7, &end, 10);
        if (strcmp(end, ".refused") != 0) continue;
        for (q = 0; q < n && seen[q] != j; q++) {}
        if (q < n || n == sizeof seen / sizeof seen[0]) continue;
        seen[n++] = j;
        if (at < sizeof text)
            at += (size_t)snprintf(text + at, sizeof text - at, "%simage %lu: %s (%.0f)", n > 1 ? "; " : "",
                                   j, drv_result_name((CUresult)r->m[i].stats.median),
                                   r->m[i].stats.median);
    }
    if (n == 0) return 0;
    lm_dkey(key, LM_DK_REFUSED, NULL, mi, NULL);
    return lm_derive(r, LM_DK_REFUSED, key, NULL, 0, (double)n, text) ? 0 : -1;
}

int lm_conclude(results *r)
{
    static const char *const pre[3] = { "", LD_EAGER, LD_LAZY };
    static const char *const fmts[2] = { LM_MOD, LM_LIB };
    double pct = vd_threshold(r);
    size_t mi, p, f, s;
    char key[96];

    for (mi = 0;; mi++) {
        lm_dkey(key, LM_DK_MODULE, NULL, mi, NULL);
        if (!res_derived_find(r, LD, key)) break;
        for (p = 0; p < 3; p++)
            if (lm_slowest(r, mi, pre[p]) != 0) return -1;
        if (lm_where(r, mi) != 0 || lm_refused(r, mi) != 0) return -1;
        for (f = 0; f < 2; f++)
            for (s = 0; s < LM_COMPARE_NSTEPS; s++)
                if (vd_compare_one(r, LD, key, fmts[f], lm_compare_steps[s], pct) != 0) return -1;
    }
    return 0;
}

void lm_schema(sch_out *o)
{
    size_t i;

    sch_put(o, LM_MODULE ".", &lm_read, NULL);
    for (i = 0; i < LM_NFIGS; i++) {
        sch_key k = lm_figs[i].k;
        char name[160];
        /* cuLibraryLoadData takes no JIT options: the JIT figures are mod's. */
        int mod = strncmp(k.key, LM_JIT, strlen(LM_JIT)) == 0;
        snprintf(name, sizeof name, "%s (%s)", k.name,
                 mod ? "cuModuleLoadDataEx" : "cuModuleLoadDataEx or cuLibraryLoadData");
        k.name = name;
        sch_put(o, mod ? "<modpre>" LM_MODULE "." LM_MOD "." : "<modpre>" LM_MODULE ".<api>.", &k, NULL);
    }
    sch_put(o, "<modpre>" LM_MODULE ".<api>.", &lm_more[LM_M_LATER], NULL);
    sch_put(o, "<modpre>" LM_MODULE ".<api>.", &lm_more[LM_M_REFUSED], NULL);
    sch_put(o, "<modpre>" LM_MODULE "." LM_MOD ".", &lm_more[LM_M_IMAGE_LOAD], NULL);
    sch_put(o, "<modpre>" LM_MODULE ".", &lm_more[LM_M_RSS_PEAK], NULL);
}

void lm_schema_derived(sch_out *o)
{
    sch_put_table(o, NULL, lm_derived, LM_NDKEYS);
}
