/* figures.c: the program entry's run-level figures and derived entries
 * (figures.h), and their declarations for --schema. */
#include "sections/program/figures.h"

#include <stdio.h>

#include "core/answer.h"
#include "core/results.h"
#include "probe/precord.h"

const pgf_fig pgf_figs[PGF_N] = {
#define PGF_ROW(id, key, unit, name, region, proc) [PGF_##id] = { key, unit, name, region, proc },
    PGF_FIGS(PGF_ROW)
#undef PGF_ROW
};

const pgf_id pgf_cost[PGF_NCOST] = { PGF_WALL, PGF_CPU, PGF_MEM_PEAK };

const sch_key pgf_derived[PGF_NDERIVED] = {
    [PGF_D_COLD_START] = { AN_PREFIX "cold_start", "ms", RES_PROCESS, "where the cold start went",
                           "the second setting's median first kernel inside the process less the first's" },
    [PGF_D_WALL] = { AN_PREFIX "wall", "ms", RES_PROCESS, "the whole process",
                     "the second setting's median whole process less the first's" },
    [PGF_D_JIT] = { AN_PREFIX "jit", "", RES_PROCESS, "what the JIT cache changes",
                    "the PTX images compiled (--jit-cache)" },
    [PGF_D_READY] = { AN_PREFIX "ready", "", RES_PROCESS, "first uses after the program was ready", "" },
    [PGF_D_HEADROOM] = { AN_PREFIX "headroom", "MiB", RES_PROCESS,
                         "the device memory free at the tightest load", "" },
    [PGF_D_AUTOTUNE] = { AN_PREFIX "autotune", "", RES_PROCESS, "first launches many times the later ones",
                         "the kernels named" },
    [PGF_D_CONCURRENT] = { AN_PREFIX "concurrent", "", RES_PROCESS,
                           "first uses while other streams were busy", "" },
    [PGF_D_ROUNDS] = { AN_PREFIX "rounds", "rounds", RES_PROCESS, "the runs the answer took", "" },
    [PGF_D_LOADS] = { AN_PREFIX "loads", "ms", RES_PROCESS, "the loads",
                      "LAZY's median time inside module and library loads less EAGER's" },
    [PGF_D_MEMORY] = { AN_PREFIX "memory", "MiB", RES_PROCESS, "what each mode costs in device memory",
                       "EAGER's median device memory peak less LAZY's" },
    [PGF_D_LATER] = { AN_PREFIX "later", "ms", RES_PROCESS, "what LAZY pays later",
                      "LAZY's median time inside cuKernelGetFunction plus its median time inside "
                      "first launches" },
    [PGF_D_MODE] = { AN_PREFIX "mode.<side>", "", RES_PROCESS, "the loading mode in effect",
                     "the CUDA processes where the other mode was in effect" },
    [PGF_D_PROBE_COST_ANSWER] = { AN_PREFIX "probe_cost", "", RES_PROCESS, "what the measurement added",
                                  "" },
    [PGF_D_CUDA] = { AN_PREFIX "cuda", "", RES_PROCESS, "whether the program used CUDA",
                     "1: NVML saw it on a device without a record; 0: no CUDA process" },
    [PGF_D_CUPTI] = { AN_PREFIX "cupti", "", RES_PROCESS, "whether CUPTI answered inside",
                      "the CUDA processes where it did not" },
    [PGF_D_FAILED] = { AN_PREFIX "failed", "", RES_PROCESS, "runs that failed", "" },
    [PGF_D_SLOWEST] = { "slowest.<side>.<i>", "ms", RES_PROCESS,
                        "a slowest first use, by rank: the kernel's symbol",
                        "get + first launch, host time; median over the times it came (fields "
                        "runs, and times where a name came more than once a run)" },
    [PGF_D_READY_RANK] = { "ready.<side>.<i>", "ms", RES_PROCESS,
                           "a first use after ready, by rank: the kernel's symbol",
                           "its stall (get + first launch, or a burst of loads' span), host time; "
                           "median over the times it came (fields runs, and times where a name "
                           "came more than once a run); field after_ms, when after ready" },
};

void pgf_rank_key(enum pgf_derived_id what, const char *side, size_t k, char *buf, size_t len)
{
    char rank[SCH_NUM];
    const char *const parts[2] = { side, sch_num(rank, (long long)k) };
    sch_fill(buf, len, NULL, pgf_derived[what].key, parts, 2);
}

/* ------------------------------------------------------------ schema --- */

/* A figure (unit, name and region) as the declaration of key prefix + key. */
static void pgf_schema_fig(sch_out *o, const char *prefix, const char *key, const char *unit,
                           const char *name, const char *region)
{
    const sch_key k = { key, unit, RES_PROCESS, name, region };
    sch_put(o, prefix, &k, NULL);
}

/* A verdict over figure key: its declaration under prefix (the U test's
 * p; unit none). */
static void pgf_schema_verdict(sch_out *o, const char *prefix, const char *key, const char *who)
{
    char name[160];
    const sch_key k = { key, "", RES_PROCESS, name, "the U test's p over the runs of the two sides; "
                        "text: the verdict" };
    snprintf(name, sizeof name, "%s, %s: the U test's p", who, key);
    sch_put(o, prefix, &k, NULL);
}

void pgf_schema_figures(sch_out *o)
{
    const pgf_fig *peak = &pgf_figs[PGF_MEM_PEAK];
    size_t i;

    for (i = 0; i < PGF_N; i++)
        pgf_schema_fig(o, "<side>.", pgf_figs[i].key, pgf_figs[i].unit, pgf_figs[i].name,
                       pgf_figs[i].region);
    for (i = 0; i < PRC_NFIGS; i++)
        pgf_schema_fig(o, "<side>.", prc_figs[i].key, prc_figs[i].unit, prc_figs[i].name,
                       prc_figs[i].region);
    for (i = 0; i < PRC_NFIGS; i++)
        pgf_schema_fig(o, "proc<i>.<side>.", prc_figs[i].key, prc_figs[i].unit, prc_figs[i].name,
                       prc_figs[i].region);
    pgf_schema_fig(o, "proc<i>.<side>.", peak->key, peak->unit, peak->name, PGF_PROC_PEAK_REGION);
}

void pgf_schema_derived(sch_out *o)
{
    const char *both = "the second setting against the first";
    const char *proc = "process <i>, the second setting against the first";
    size_t i;
    char key[64];

    for (i = 0; i < PGF_N + PRC_NFIGS; i++) {
        const char *fk = i < PGF_N ? pgf_figs[i].key : prc_figs[i - PGF_N].key;
        pgf_schema_verdict(o, "compare.", fk, both);
        pgf_schema_verdict(o, "compare.<side>.", fk, "side <side> against the first of its group");
    }
    for (i = 0; i < PRC_NFIGS; i++) pgf_schema_verdict(o, "compare.proc<i>.", prc_figs[i].key, proc);
    pgf_schema_verdict(o, "compare.proc<i>.", PGF_KEY(MEM_PEAK), proc);
    for (i = 0; i < PGF_NCOST; i++) {
        const sch_key k = { key, "", RES_PROCESS,
                            "the probe's cost: probed median less bare, in the figure's unit",
                            "the U test over the bare and probed runs; fields pct_of_bare" };
        snprintf(key, sizeof key, PGF_COST_PREFIX "<side>.%s", pgf_figs[pgf_cost[i]].key);
        sch_put(o, NULL, &k, NULL);
    }
    sch_put_table(o, NULL, pgf_derived, PGF_NDERIVED);
}
