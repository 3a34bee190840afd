/* setting_snapshot_words.c: --snapshot's figures and derived entries,
 * declared once; its answer per mode (a restore and what stays cold after
 * it, against the cold start to ready it replaces) and its block of the
 * program's table, from the results alone (setting_snapshot.h). */
#include "sections/program/setting_snapshot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/answer.h"
#include "run/table.h"
#include "sections/program/figures.h"
#include "sections/program/sentences.h"

const sch_key pgn_figs[PGN_NFIGS] = {
#define PGN_ROW(id, key, unit, name, region) [PGN_##id] = { key, unit, RES_PROCESS, name, region },
    PGN_FIGS(PGN_ROW)
#undef PGN_ROW
};

const sch_key pgn_derived[PGN_ND] = {
    [PGN_D_MODE] = { "snapshot.<side>", "ms", RES_PROCESS,
                     "--snapshot, one mode: the cold start to ready less the restore and the first "
                     "uses after it (positive: the restore is sooner)",
                     "text: the mode's sentence; fields restore_ms, checkpoint_ms, mem_mib (before "
                     "the lock), cold_start_ms (spawn to ready without the snapshot), after_ms (the "
                     "first uses after the restore, their stalls summed), plain_after_ms (the same "
                     "after ready without the snapshot), uses, plain_uses" },
    [PGN_D_ANSWER] = { AN_PREFIX "snapshot", "", RES_PROCESS,
                       "a restore against the cold start it replaces",
                       "each mode's sentence of snapshot.<side>" },
};

void pgn_key(char *buf, size_t len, const char *prefix, const char *side, pgn_fig f)
{
    snprintf(buf, len, "%s%s.%s", prefix, side, pgn_figs[f].key);
}

/* ------------------------------------------------------------ schema --- */

void pgn_schema_figures(sch_out *o)
{
    int f;
    sch_put_table(o, "<side>.", pgn_figs, PGN_NFIGS);
    for (f = 0; f < PGN_NFIGS; f++)
        if (PGN_PER_PROC(f)) sch_put(o, "proc<i>.<side>.", &pgn_figs[f], NULL);
}

void pgn_schema(sch_out *o)
{
    sch_put_table(o, NULL, pgn_derived, PGN_ND);
}

/* ------------------------------------------------------------ answer --- */

/* ms as words: "80 ms", "4.2 ms", "1.9 s". */
static const char *pgn_time(double ms, char *buf, size_t len)
{
    if (fabs(ms) >= 1000) snprintf(buf, len, "%.1f s", ms / 1e3);
    else if (fabs(ms) >= 10) snprintf(buf, len, "%.0f ms", ms);
    else snprintf(buf, len, "%.1f ms", ms);
    return buf;
}

/* MiB as words: "64 MiB", "4.1 GiB". */
static const char *pgn_size(double mib, char *buf, size_t len)
{
    if (isnan(mib)) snprintf(buf, len, "(NVML did not say how much)");
    else if (mib >= 1024) snprintf(buf, len, "%.1f GiB", mib / 1024);
    else snprintf(buf, len, "%.0f MiB", mib);
    return buf;
}

/* The medians one mode's sentence is made of: the snapshot side sn
 * against the side pl of the same mode without it. */
typedef struct pgn_mode {
    double restore, ckpt, mem, cold, after, plain_after, uses, plain_uses;
} pgn_mode;

static void pgn_mode_read(const results *r, const char *sn, const char *pl, pgn_mode *m)
{
    m->restore = pga_med(r, sn, pgn_figs[PGN_RESTORE].key);
    m->ckpt = pga_med(r, sn, pgn_figs[PGN_CHECKPOINT].key);
    m->mem = pga_med(r, sn, pgn_figs[PGN_MEM_BEFORE].key);
    m->cold = pga_med(r, pl, PGF_KEY(READY_AT));
    m->after = pga_med(r, sn, PGF_KEY(READY_STALL));
    m->plain_after = pga_med(r, pl, PGF_KEY(READY_STALL));
    m->uses = pga_med(r, sn, PGF_KEY(READY_USES));
    m->plain_uses = pga_med(r, pl, PGF_KEY(READY_USES));
}

/* One mode's sentence into t; the break-even (cold start less restore and
 * the first uses after it), NaN where a part is missing. */
static double pgn_mode_words(const char *mode, const pgn_mode *m, char *t, size_t len)
{
    char a[32], b[32], c[32], d[32], e[32];
    double cost = m->restore + (isnan(m->after) ? 0 : m->after), saved = m->cold - cost;
    size_t at = (size_t)snprintf(t, len, "%s: a restore of %s took %s", mode, pgn_size(m->mem, a, sizeof a),
                                 pgn_time(m->restore, b, sizeof b));
    if (!isnan(m->cold))
        at += (size_t)snprintf(t + at, len - at, " against a cold start to ready of %s",
                               pgn_time(m->cold, c, sizeof c));
    if (!isnan(m->after) && at < len)
        at += (size_t)snprintf(t + at, len - at, "; after it the first uses cost %s (%.0f of them)%s%s",
                               pgn_time(m->after, d, sizeof d), m->uses,
                               isnan(m->plain_after) ? "" : ", after ready without the snapshot ",
                               isnan(m->plain_after) ? "" : pgn_time(m->plain_after, e, sizeof e));
    if (!isnan(saved) && at < len)
        at += (size_t)snprintf(t + at, len - at, ": restore and first uses, %s, are %s %s than "
                               "the cold start", pgn_time(cost, a, sizeof a),
                               pgn_time(fabs(saved), b, sizeof b), saved >= 0 ? "less" : "more");
    if (at < len) snprintf(t + at, len - at, ".");
    return saved;
}

void pgn_answer(results *r, const pgk_plan *plan)
{
    char all[2400] = "", t[800], key[96];
    size_t i, at = 0;

    for (i = 1; i < plan->nsettings; i += 2) {
        const pgk_side *sn = &plan->side[i], *pl = &plan->side[i - 1];
        pgn_mode m;
        res_derived *d;
        double saved;
        pgn_mode_read(r, sn->key, pl->key, &m);
        if (isnan(m.restore)) continue;
        saved = pgn_mode_words(pl->label, &m, t, sizeof t);
        snprintf(key, sizeof key, "snapshot.%s", pl->key);
        if ((d = sch_derive(r, PG, &pgn_derived[PGN_D_MODE], key, NULL, saved, t))) {
            res_derived_field(d, "restore_ms", m.restore);
            res_derived_field(d, "checkpoint_ms", m.ckpt);
            res_derived_field(d, "mem_mib", m.mem);
            res_derived_field(d, "cold_start_ms", m.cold);
            res_derived_field(d, "after_ms", m.after);
            res_derived_field(d, "plain_after_ms", m.plain_after);
            res_derived_field(d, "uses", m.uses);
            res_derived_field(d, "plain_uses", m.plain_uses);
        }
        if (at < sizeof all) at += (size_t)snprintf(all + at, sizeof all - at, "%s%s", at ? " " : "", t);
    }
    if (all[0]) sch_derive(r, PG, &pgn_derived[PGN_D_ANSWER], NULL, NULL, NAN, all);
}

/* ------------------------------------------------------------- table --- */

/* One row: the steps and the memory of "<prefix><side>." (medians). */
static void pgn_row(FILE *f, const results *r, const char *label, const char *what, const char *prefix,
                    const char *side)
{
    char k[200], cell[PGN_MEM_AFTER + 1][16];
    int i;
    for (i = 0; i <= PGN_MEM_AFTER; i++) {
        const res_meas *m;
        pgn_key(k, sizeof k, prefix, side, (pgn_fig)i);
        m = res_find(r, PG, k);
        if (!m) snprintf(cell[i], sizeof cell[i], "-");
        else snprintf(cell[i], sizeof cell[i], i < PGN_MEM_BEFORE ? "%.1f" : "%.0f", m->stats.median);
    }
    fprintf(f, "    %-20.20s %-7.7s %7s %11s %9s %7s  %7s %13s %6s\n", label, what, cell[0], cell[1],
            cell[2], cell[3], cell[4], cell[5], cell[6]);
}

void pgn_print(FILE *f, const results *r)
{
    const char *cmp = tb_env_str(r, "program_compare", NULL);
    size_t i, j;
    int head = 0;

    if (!cmp || strcmp(cmp, "snapshot") != 0) return;
    for (i = 1; i <= PG_MAX_SIDES; i++) {
        char k1[64], k2[64], k[200];
        const char *key, *label;
        const res_meas *n;
        snprintf(k1, sizeof k1, "program_side%zu_key", i);
        snprintf(k2, sizeof k2, "program_side%zu_label", i);
        if (!(key = tb_env_str(r, k1, NULL))) break;
        label = tb_env_str(r, k2, "?");
        pgn_key(k, sizeof k, "", key, PGN_PROCS);
        if (!(n = res_find(r, PG, k))) continue;
        if (!head++)
            fprintf(f, "\n  --snapshot: each CUDA process locked, checkpointed, restored and unlocked by the "
                    "driver at ready\n  (medians, ms; device memory, MiB, from NVML)\n"
                    "    %-20s %-7s %7s %11s %9s %7s  %7s %13s %6s\n", "side", "process", "lock",
                    "checkpoint", "restore", "unlock", "before", "checkpointed", "after");
        pgn_row(f, r, label, n->stats.median > 1 ? "all" : "1", "", key);
        for (j = 1; n->stats.median > 1 && j <= PG_MAX_PROCS; j++) {
            char prefix[32], what[16];
            snprintf(prefix, sizeof prefix, "proc%zu.", j);
            pgn_key(k, sizeof k, prefix, key, PGN_RESTORE);
            if (!res_find(r, PG, k)) break;
            snprintf(what, sizeof what, "%zu", j);
            pgn_row(f, r, "", what, prefix, key);
        }
        pgn_key(k, sizeof k, "", key, PGN_HELD);
        if ((n = res_find(r, PG, k)))
            fprintf(f, "    %-20.20s held %.1f ms from ready to the last unlock", "", n->stats.median);
        pgn_key(k, sizeof k, "", key, PGN_WAIT);
        if ((n = res_find(r, PG, k))) fprintf(f, " (%.1f ms of it before the first lock)", n->stats.median);
        fprintf(f, "\n");
    }
    /* The sentences per mode (snapshot.<side>) are the answer's, said once
     * in the answers below (answer.snapshot), not here too. */
}
