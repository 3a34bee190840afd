/* failures.c: the runs that failed, counted, kept apart and diagnosed
 * from their live records (failures.h). */
#include "sections/program/failures.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/answer.h"
#include "core/results.h"
#include "run/table.h"
#include "sections/program/figures.h"
#include "sections/program/recdir.h"
#include "sections/program/tally.h"

#define PGX_NAMED 3             /* threads or streams named in one sentence */

/* ------------------------------------------------------------ words --- */

/* Append to buf (len bytes) at *at, as snprintf; never past the end. */
static void pgx_put(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void pgx_put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (*at >= len) return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (n > 0) *at = *at + (size_t)n < len ? *at + (size_t)n : len - 1;
}

/* Seconds of ns on the run's clock (from its spawn). */
static double pgx_s(const pgx_seen *s, long long ns)
{
    return (double)(ns - s->p->t0_ns) / 1e9;
}

/* The run's end, on the clock the live records use. */
static long long pgx_end_ns(const pgx_seen *s)
{
    return s->p->t0_ns + (long long)(s->p->ms * 1e6);
}

/* A call's result in words ("CUDA_SUCCESS", "error 2"). */
static const char *pgx_result(int result, char *buf, size_t len)
{
    if (result == 0) return "CUDA_SUCCESS";
    snprintf(buf, len, "error %d", result);
    return buf;
}

/* What became of the run, into how. */
static void pgx_how(const pgx_seen *s, char *how, size_t len)
{
    const pr_program *p = s->p;
    if (p->timed_out && s->bounded)
        snprintf(how, len, "killed at the default bound of %.0f s", s->limit_s);
    else if (p->timed_out)
        snprintf(how, len, "killed at --child-timeout=%.0f s", s->limit_s);
    else if (p->signal)
        snprintf(how, len, "killed by signal %d (%s)", p->signal, strsignal(p->signal));
    else
        snprintf(how, len, "exited with %d", p->exit_code);
}

/* ------------------------------------------------------------ causes --- */

/* The longest wait of a first use beside another stream's work: ended (a
 * WAIT event) or still open at the run's end (a FIRST_USE beside a busy
 * stream with no WAIT after it). NULL where none reached PGX_WAIT_MIN_MS. */
static const lv_event *pgx_wait(const pgx_seen *s, double *ms, int *open)
{
    const lv_event *best = NULL;
    size_t i, j, k;
    *ms = 0;
    *open = 0;
    for (i = 0; i < s->nlive; i++) {
        const lv_view *v = &s->live[i];
        for (j = 0; j < v->ne; j++) {
            const lv_event *e = &v->e[j];
            double w = -1;
            int ended = 0;
            if (e->kind == LV_EV_WAIT) w = e->ms;
            if (e->kind == LV_EV_FIRST_USE && e->other[0]) {
                for (k = j + 1; k < v->ne && !ended; k++)
                    ended = v->e[k].kind == LV_EV_WAIT && v->e[k].stream == e->stream &&
                            strcmp(v->e[k].name, e->name) == 0;
                if (!ended) w = (double)(pgx_end_ns(s) - e->at_ns) / 1e6;
            }
            if (w >= PGX_WAIT_MIN_MS && w > *ms) {
                best = e;
                *ms = w;
                *open = e->kind == LV_EV_FIRST_USE;
            }
        }
    }
    return best;
}

static void pgx_say_wait(const pgx_seen *s, const lv_event *e, double ms, int open, char *buf,
                         size_t len, size_t *at)
{
    double began = open ? pgx_s(s, e->at_ns) : pgx_s(s, e->at_ns) - ms / 1e3;
    pgx_put(buf, len, at, "a load beside running work: %s's first use (%s) began %.2f s into the run "
            "while %s ran on stream 0x%llx, and ", e->name[0] ? e->name : "(unnamed)",
            e->call[0] ? e->call : "a launch", began, e->other[0] ? e->other : "a kernel",
            (unsigned long long)e->stream);
    if (open)
        pgx_put(buf, len, at, "it was still waiting %.2f s later, when the run ended", ms / 1e3);
    else
        pgx_put(buf, len, at, "it waited %.2f s, until a synchronize saw that work end", ms / 1e3);
    if (s->mode && strcmp(s->mode, "EAGER") == 0)
        pgx_put(buf, len, at, "; two kernels that must run together never did");
    else
        pgx_put(buf, len, at, "; under LAZY a kernel's first use loads it, and the load waits for "
                "the kernels in flight: preload it (--preload-list writes the list) or run EAGER");
}

/* The first failed call of the records (fail.<i>), NULL where none. */
static const res_derived *pgx_record_fail(const pgx_seen *s)
{
    size_t i, j;
    for (i = 0; i < s->nrec; i++)
        for (j = 0; j < s->recs[i].r.nd; j++)
            if (strncmp(s->recs[i].r.d[j].key, "fail.", 5) == 0) return &s->recs[i].r.d[j];
    return NULL;
}

/* The first failed call of the live records, NULL where none. */
static const lv_event *pgx_live_fail(const pgx_seen *s)
{
    size_t i, j;
    for (i = 0; i < s->nlive; i++)
        for (j = 0; j < s->live[i].ne; j++)
            if (s->live[i].e[j].kind == LV_EV_FAILURE) return &s->live[i].e[j];
    return NULL;
}

static void pgx_say_call(const pgx_seen *s, const res_derived *d, const lv_event *e, char *buf,
                         size_t len, size_t *at)
{
    char call[48] = "", err[64] = "", res[32];
    double free_mib = NAN;
    if (d && prc_fail_text(d->text, call, sizeof call, err, sizeof err) == 0) {
        free_mib = res_derived_num(d, "free_mib");
        pgx_put(buf, len, at, "a failure inside a CUDA call: %s returned %s %.2f s into the run, on %s",
                call, err, d->value / 1e3, d->name);
    } else {
        pgx_put(buf, len, at, "a failure inside a CUDA call: %s returned %s %.2f s into the run, on %s",
                e->call, pgx_result(e->result, res, sizeof res), pgx_s(s, e->at_ns),
                e->name[0] ? e->name : "(unnamed)");
    }
    if (!isnan(free_mib))
        pgx_put(buf, len, at, ", with %.0f MiB of device memory free", free_mib);
    if (s->mode && strcmp(s->mode, "LAZY") == 0 && strstr(err, "OUT_OF_MEMORY"))
        pgx_put(buf, len, at, "; under LAZY a kernel's first use loads its module and needs device "
                "memory then: leave room, preload it (--preload-list writes the list) or run EAGER");
}

/* The threads inside a call at the run's end (inside = 1), or each
 * thread's last call (inside = 0), at most PGX_NAMED. */
static void pgx_say_threads(const pgx_seen *s, int inside, char *buf, size_t len, size_t *at)
{
    size_t i, j, named = 0, more = 0;
    char res[32];
    for (i = 0; i < s->nlive; i++)
        for (j = 0; j < s->live[i].nt; j++) {
            const lv_thread *t = &s->live[i].t[j];
            if (inside && t->state != LV_INSIDE) continue;
            if (named == PGX_NAMED) { more++; continue; }
            pgx_put(buf, len, at, "%sthread %d (pid %d) ", named ? "; " : "", t->tid, s->live[i].pid);
            if (t->state == LV_INSIDE)
                pgx_put(buf, len, at, "inside %s%s%s for %.2f s", t->call, t->what[0] ? " on " : "",
                        t->what, (double)(pgx_end_ns(s) - t->since_ns) / 1e9);
            else
                pgx_put(buf, len, at, "%s%s%s returned %s %.2f s into the run", t->call,
                        t->what[0] ? " on " : "", t->what, pgx_result(t->result, res, sizeof res),
                        pgx_s(s, t->end_ns));
            named++;
        }
    if (more) pgx_put(buf, len, at, "; %zu more", more);
    if (!named && !s->nlive)
        pgx_put(buf, len, at, "no live record was read (none was made, or it was refused)");
    else if (!named)
        pgx_put(buf, len, at, inside ? "no thread inside a CUDA call the probe follows"
                                     : "no CUDA call seen");
}

/* The streams whose last launch no synchronize saw end. */
static void pgx_say_streams(const pgx_seen *s, char *buf, size_t len, size_t *at)
{
    size_t i, j, named = 0, more = 0;
    for (i = 0; i < s->nlive; i++)
        for (j = 0; j < s->live[i].ns; j++) {
            const lv_stream *st = &s->live[i].s[j];
            if (st->done_ns) continue;
            if (named == PGX_NAMED) { more++; continue; }
            pgx_put(buf, len, at, "%s%s on stream 0x%llx since %.2f s", named ? ", " : "; in flight: ",
                    st->kernel[0] ? st->kernel : "(unnamed)", (unsigned long long)(st->key - 1),
                    pgx_s(s, st->since_ns));
            named++;
        }
    if (more) pgx_put(buf, len, at, " and %zu more", more);
    if (!named && s->nlive) pgx_put(buf, len, at, "; no kernel in flight that the probe saw launched");
}

pgx_kind pgx_diagnose(const pgx_seen *s, char *buf, size_t len, double *wait_out)
{
    double wait_ms;
    int open;
    const lv_event *wait = pgx_wait(s, &wait_ms, &open), *lfail = pgx_live_fail(s);
    const res_derived *rfail = pgx_record_fail(s);
    pgx_kind kind = PGX_NONE;
    size_t at = 0;

    buf[0] = '\0';
    *wait_out = NAN;
    if (!s->nlive && !s->nrec) {
        pgx_put(buf, len, &at, "no CUDA process left a record (the probe was not loaded, or the "
                "program failed before cuInit).");
        return PGX_EXIT;
    }
    *wait_out = wait ? wait_ms : NAN;
    if (wait) {
        pgx_say_wait(s, wait, wait_ms, open, buf, len, &at);
        kind = PGX_WAIT;
    } else if (rfail || lfail) {
        pgx_say_call(s, rfail, lfail, buf, len, &at);
        kind = PGX_CALL;
    }
    if (s->p->timed_out) {
        pgx_put(buf, len, &at, "%sa hang at the time limit: at the kill, %.1f s into the run, ",
                at ? ". Then " : "", s->p->ms / 1e3);
        pgx_say_threads(s, 1, buf, len, &at);
        pgx_say_streams(s, buf, len, &at);
        if (kind == PGX_NONE) kind = PGX_HANG;
    } else if (s->p->signal) {
        pgx_put(buf, len, &at, "%sa crash by signal %d (%s); the last CUDA call of each thread: ",
                at ? ". Then " : "", s->p->signal, strsignal(s->p->signal));
        pgx_say_threads(s, 0, buf, len, &at);
        if (kind == PGX_NONE) kind = PGX_SIGNAL;
    } else if (kind == PGX_NONE) {
        pgx_put(buf, len, &at, "exited with %d after no failed CUDA call and no wait beside running "
                "work; the last CUDA call of each thread: ", s->p->exit_code);
        pgx_say_threads(s, 0, buf, len, &at);
        kind = PGX_EXIT;
    }
    pgx_put(buf, len, &at, ".");
    return kind;
}

/* ------------------------------------------------------------- bound --- */

double pgx_limit(const pgx_tally *t, const cli_opts *o, int *bounded)
{
    double bound = fmax(PGX_BOUND_FLOOR_S, PGX_BOUND_FACTOR * t->ok_max_ms / 1e3);
    *bounded = 0;
    if (o->child_timeout_given || t->ok_max_ms <= 0 || bound >= o->child_timeout) return o->child_timeout;
    *bounded = 1;
    return bound;
}

void pgx_ran(pgx_tally *t, size_t si, int measured, int ok, double ms)
{
    if (measured) t->side[si].runs++;
    if (measured && !ok) t->side[si].failed++;
    if (ok && ms > t->ok_max_ms) t->ok_max_ms = ms;
}

/* ------------------------------------------------------- live records --- */

size_t pgx_read_live(const char *dir, int (*known)(long), lv_view *views, size_t max)
{
    long pids[PG_MAX_PROCS * 4];
    size_t n = 0, np, i;
    char path[4600], why[512];

    np = rd_live_pids(dir, known, pids, sizeof pids / sizeof pids[0]);
    for (i = 0; i < np && n < max; i++) {
        snprintf(path, sizeof path, "%s/%ld.live", dir, pids[i]);
        if (lv_read_file(path, (int)pids[i], &views[n], why, sizeof why) == 0) n++;
    }
    return n;
}

/* -------------------------------------------------------------- tally --- */

static const char *const pgx_kind_name[PGX_NKINDS] = {
    [PGX_NONE] = "none", [PGX_WAIT] = "a load beside running work", [PGX_CALL] = "a failed CUDA call",
    [PGX_HANG] = "a hang at the time limit", [PGX_SIGNAL] = "a crash by signal",
    [PGX_EXIT] = "a non-zero exit",
};

static const sch_key pgx_keys[] = {
    { "diagnosis.<side>.<i>", "ms", RES_PROCESS, "a failed run's diagnosis: what was found",
      "time to failure (spawn to the main process's end); text: one sentence from its live records; "
      "fields run, exit, signal, timed_out, bounded, and wait_ms where a first use waited beside "
      "running work" },
    { AN_PREFIX "diagnosis.<side>", "", RES_PROCESS, "why a side's runs failed",
      "its first failed run's diagnosis" },
};

void pgx_note(pgx_tally *t, results *r, size_t si, const char *key, int number, const pgx_seen *s)
{
    pgx_side *sd = &t->side[si];
    char how[200], prefix[64], k[96], why[PGX_WHY], num[SCH_NUM];
    const char *const kparts[2] = { key, sch_num(num, sd->noted + 1) };
    double wait_ms;
    pgx_kind kind = pgx_diagnose(s, why, sizeof why, &wait_ms);
    res_derived *d;

    pgx_how(s, how, sizeof how);
    if (!sd->noted) {
        snprintf(sd->first_how, sizeof sd->first_how, "%s", how);
        sd->same_how = 1;
    } else if (strcmp(sd->first_how, how) != 0) {
        sd->same_how = 0;
    }
    sd->noted++;
    snprintf(prefix, sizeof prefix, "failed.%s", key);
    pgt_put_failed(r, prefix, s->p, s->recs, s->nrec);
    sch_fill(k, sizeof k, NULL, pgx_keys[0].key, kparts, 2);
    if ((d = sch_derive(r, PG, &pgx_keys[0], k, pgx_kind_name[kind], s->p->ms, why)) != NULL) {
        res_derived_field(d, "run", number);
        res_derived_field(d, "exit", s->p->timed_out || s->p->signal ? NAN : (double)s->p->exit_code);
        res_derived_field(d, "signal", s->p->signal && !s->p->timed_out ? (double)s->p->signal : NAN);
        res_derived_field(d, "timed_out", s->p->timed_out);
        res_derived_field(d, "bounded", s->bounded);
        if (!isnan(wait_ms)) res_derived_field(d, "wait_ms", wait_ms);
    }
    if (sd->nkept < PGX_KEEP) {
        pgx_run *k2 = &sd->kept[sd->nkept++];
        k2->number = number;
        snprintf(k2->how, sizeof k2->how, "%s", how);
        snprintf(k2->why, sizeof k2->why, "%s", why);
    }
}

/* ------------------------------------------------------------ answers --- */

/* The median time to failure of side key, "15.0 s" (NaN: none) into buf. */
static const char *pgx_median(const results *r, const char *prefix, const char *key, char *buf,
                              size_t len)
{
    char k[96];
    const res_meas *m;
    snprintf(k, sizeof k, "%s%s.%s", prefix, key, pgf_figs[PGF_WALL].key);
    m = res_find(r, PG, k);
    if (!m || isnan(m->stats.median)) snprintf(buf, len, "?");
    else if (m->nsamples >= 2)
        snprintf(buf, len, "%.2f s [%.2f, %.2f]", m->stats.median / 1e3, m->stats.ci_low / 1e3,
                 m->stats.ci_high / 1e3);
    else snprintf(buf, len, "%.2f s", m->stats.median / 1e3);
    return buf;
}

void pgx_answer(const pgx_tally *t, results *r, const char *const *keys, const char *const *labels,
                size_t nsides, size_t nall)
{
    char text[4000], med[96], k[96];
    size_t i, at = 0;
    int any = 0, runs = 0, failed = 0;

    for (i = 0; i < nall; i++) {
        any |= i < nsides && t->side[i].noted > 0;
        runs += t->side[i].runs;
        failed += t->side[i].failed;
    }
    if (!any) return;
    for (i = 0; i < nsides; i++) {
        const pgx_side *sd = &t->side[i];
        int ran = sd->runs - sd->failed;
        if (sd->runs == 0) continue;
        if (sd->failed)
            pgx_put(text, sizeof text, &at, "%s%s failed in %d of %d runs (%s after %s)%s", at ? "; " : "",
                    labels[i], sd->failed, sd->runs, sd->same_how ? sd->first_how : "in several ways",
                    pgx_median(r, "failed.", keys[i], med, sizeof med), ran ? ", the others ran" : "");
        else
            pgx_put(text, sizeof text, &at, "%s%s ran in %d of %d (%s)", at ? "; " : "", labels[i], ran,
                    sd->runs, pgx_median(r, "", keys[i], med, sizeof med));
    }
    pgx_put(text, sizeof text, &at, ". ");
    if (nall > nsides)
        pgx_put(text, sizeof text, &at, "In all, %d of %d measured runs failed, the bare sides' too. ",
                failed, runs);
    pgx_put(text, sizeof text, &at, "The failed runs' figures are apart (failed.<side>.* in the JSON); "
            "the rest are compared.");
    sch_derive(r, PG, &pgf_derived[PGF_D_FAILED], NULL, NULL, 0, text);
    for (i = 0; i < nsides; i++) {
        const pgx_side *sd = &t->side[i];
        const char *const parts[1] = { keys[i] };
        char why[PGX_WHY + 200];
        if (!sd->nkept) continue;
        snprintf(why, sizeof why, "Why %s's run %d failed (%s): %s", labels[i], sd->kept[0].number,
                 sd->kept[0].how, sd->kept[0].why);
        sch_fill(k, sizeof k, NULL, pgx_keys[1].key, parts, 1);
        sch_derive(r, PG, &pgx_keys[1], k, NULL, sd->failed, why);
    }
}

/* -------------------------------------------------------------- table --- */

void pgx_print(FILE *f, const results *r, const char *const *keys, const char *const *labels,
               size_t nsides)
{
    size_t i, j, n = 0;
    for (i = 0; i < r->nd; i++) {
        const res_derived *d = &r->d[i];
        const char *side = "?";
        if (strcmp(d->section, PG) != 0 || strncmp(d->key, "diagnosis.", 10) != 0) continue;
        for (j = 0; j < nsides; j++) {
            size_t kl = strlen(keys[j]);
            if (strncmp(d->key + 10, keys[j], kl) == 0 && d->key[10 + kl] == '.') side = labels[j];
        }
        if (!n++) fprintf(f, "\n  Failed runs (their figures apart: failed.<side>.* in the JSON):\n");
        tb_wrap(f, "  ", "    ", tb_width(), "%s, run %.0f, after %.2f s: %s", side,
                res_derived_num(d, "run"), d->value / 1e3, d->text);
    }
}

/* ------------------------------------------------------------- schema --- */

void pgx_schema_figures(sch_out *o)
{
    size_t i;
    for (i = 0; i < PGF_N; i++) {
        const sch_key k = { pgf_figs[i].key, pgf_figs[i].unit, RES_PROCESS, pgf_figs[i].name,
                            "a failed run's, apart from the runs that exited 0" };
        sch_put(o, "failed.<side>.", &k, NULL);
    }
    for (i = 0; i < PRC_NFIGS; i++) {
        const sch_key k = { prc_figs[i].key, prc_figs[i].unit, RES_PROCESS, prc_figs[i].name,
                            "a failed run's records, apart from the runs that exited 0" };
        sch_put(o, "failed.<side>.", &k, NULL);
    }
}

void pgx_schema_derived(sch_out *o)
{
    sch_put_table(o, NULL, pgx_keys, sizeof pgx_keys / sizeof pgx_keys[0]);
}
