/* setting.c: the table of kinds of setting, the sides they make, their
 * hooks called in order (setting.h). */
#include "sections/program/setting.h"

#include <stdio.h>
#include <string.h>

#include "sections/program/figures.h"

static const pgk_kind *const pgk_kinds[PGK_NKINDS] = {
#define PGK_ROW(name) &pgk_##name,
    PGK_KINDS(PGK_ROW)
#undef PGK_ROW
};

/* ---------------------------------------------------------- the sides --- */

/* Setting i of the maker's comparison into d: its command and the mode of
 * --module-loading, then what the maker makes of it; a mode it sets
 * without a variable of its own sets CUDA_MODULE_LOADING. */
static void pgk_make_side(pgk_plan *plan, const cli_opts *o, size_t i, pgk_side *d)
{
    memset(d, 0, sizeof *d);
    d->cmd = o->cmd;
    d->path = o->cmd_path;
    d->mode = o->loading == CLI_LOAD_DEFAULT ? NULL : cli_loading_name(o->loading);
    d->which = i;
    plan->maker->side(o, plan, i, d);
    if (d->against >= i) d->against = 0;     /* only a setting made before it */
    if (d->mode && !d->set[0]) snprintf(d->set, sizeof d->set, "CUDA_MODULE_LOADING=%s", d->mode);
}

/* The kinds the options ask for, in the table's order; the first that
 * makes sides is the maker (the one without a comparison where none is). */
static void pgk_ask(pgk_plan *plan, const cli_opts *o)
{
    size_t k;
    plan->maker = &pgk_none;
    for (k = 0; k < PGK_NKINDS; k++) {
        const pgk_kind *kd = pgk_kinds[k];
        if (!kd->asked(o)) continue;
        plan->on[plan->non++] = kd;
        if (kd->side && plan->maker == &pgk_none) plan->maker = kd;
        if (kd->search) plan->searching = 1;
    }
}

void pgk_plan_make(pgk_plan *plan, const cli_opts *o, int probe)
{
    size_t n, i, bare;

    memset(plan, 0, sizeof *plan);
    plan->probe = probe;
    pgk_ask(plan, o);
    n = plan->maker->settings(o);
    plan->nsettings = n;
    for (bare = probe ? 0 : 1; bare < 2; bare++)
        for (i = 0; i < n; i++) {
            pgk_side *d = &plan->side[plan->nsides++];
            pgk_make_side(plan, o, i, d);
            memcpy(d->setting, d->label, sizeof d->setting);
            d->probed = !bare;
            if (bare) {
                char k[sizeof d->key], l[sizeof d->label];
                snprintf(k, sizeof k, "%s", d->key);
                snprintf(l, sizeof l, "%s", d->label);
                snprintf(d->key, sizeof d->key, "bare.%.30s", k);
                snprintf(d->label, sizeof d->label, "%.40s bare", l);
            }
        }
}

/* NULL-terminated words as one line, into buf. */
static void pgk_command_words(const char *const *w, char *buf, size_t len)
{
    size_t i, at = 0;
    buf[0] = '\0';
    for (i = 0; w[i] && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", w[i]);
}

void pgk_command_line(const pgk_plan *plan, const cli_opts *o, char *buf, size_t len)
{
    static const char cut[] = " [cut here: command_line holds the whole]";
    if (plan->maker->command_line) plan->maker->command_line(o, buf, len);
    else pgk_command_words(o->cmd, buf, len);
    /* Full: said at the end, not cut silently. */
    if (len > 2 * sizeof cut && strlen(buf) + 1 >= len) memcpy(buf + len - sizeof cut, cut, sizeof cut);
}

void pgk_env_fields(results *r, const pgk_plan *plan, const cli_opts *o)
{
    size_t i;
    res_env_str(r, "program_compare", plan->maker->name);
    res_env_str(r, "program_setting", o->setting_name[0] ? o->setting_name : NULL);
    res_env_num(r, "program_settings", (double)plan->nsettings);
    for (i = 0; i < plan->nsides; i++) {
        const pgk_side *sd = &plan->side[i];
        char k[64], line[4096];
        snprintf(k, sizeof k, "program_side%zu_key", i + 1);
        res_env_str(r, k, sd->key);
        snprintf(k, sizeof k, "program_side%zu_label", i + 1);
        res_env_str(r, k, sd->label);
        if (sd->against) {
            snprintf(k, sizeof k, "program_side%zu_against", i + 1);
            res_env_str(r, k, plan->side[i - sd->which + sd->against].label);
        }
        if (plan->maker->names_commands && sd->probed == plan->probe) {
            snprintf(k, sizeof k, "program_side%zu_command", i + 1);
            pgk_command_words(sd->cmd, line, sizeof line);
            res_env_str(r, k, line);
        }
    }
}

size_t pgk_headline(const pgk_plan *plan, const results *r, const char **key)
{
    char k[160];
    size_t n = 0;
    snprintf(k, sizeof k, "%s.%s", plan->side[0].key, PGF_KEY(IN_FIRST_KERNEL));
    if (plan->probe && res_find(r, PG, k)) {
        key[n++] = PGF_KEY(IN_FIRST_KERNEL);
        key[n++] = PGF_KEY(IN_CONTEXT);
        if (plan->maker->headline_code) key[n++] = PGF_KEY(CODE_MS);
    }
    if (!n || plan->maker->headline_wall) key[n++] = PGF_KEY(WALL);
    return n;
}

/* ---------------------------------------------------------- the hooks --- */

int pgk_start(pgk_plan *plan, sec_ctx *c, const char *no_driver)
{
    int worst = SEC_OK;
    size_t k;
    for (k = 0; k < plan->non; k++) {
        int rc;
        if (!plan->on[k]->start) continue;
        rc = plan->on[k]->start(c, plan, no_driver, &plan->state[k]);
        if (rc == SEC_ERROR) worst = SEC_ERROR;
        else if (rc != SEC_OK) return rc;
    }
    return worst;
}

int pgk_before(pgk_plan *plan, sec_ctx *c, pgk_run *run, size_t *begun)
{
    for (*begun = 0; *begun < plan->non; ++*begun) {
        int rc;
        if (!plan->on[*begun]->before) continue;
        if ((rc = plan->on[*begun]->before(c, plan->state[*begun], run)) != 0) return rc;
    }
    return 0;
}

void pgk_ended(pgk_plan *plan, sec_ctx *c, pgk_run *run)
{
    size_t k;
    for (k = 0; k < plan->non; k++)
        if (plan->on[k]->ended) plan->on[k]->ended(c, plan->state[k], run);
}

void pgk_keep(pgk_plan *plan, sec_ctx *c, const pgk_run *run)
{
    size_t k;
    for (k = 0; k < plan->non; k++)
        if (plan->on[k]->keep) plan->on[k]->keep(c, plan->state[k], run);
}

void pgk_done(pgk_plan *plan, sec_ctx *c, const pgk_run *run, size_t begun)
{
    size_t k;
    for (k = 0; k < begun && k < plan->non; k++)
        if (plan->on[k]->done) plan->on[k]->done(c, plan->state[k], run);
}

int pgk_wants_ready(const pgk_plan *plan)
{
    size_t k;
    for (k = 0; k < plan->non; k++)
        if (plan->on[k]->ready) return 1;
    return 0;
}

void pgk_ready(pgk_plan *plan, sec_ctx *c, const pgk_run *run, const pgk_ready_at *at)
{
    size_t k;
    for (k = 0; k < plan->non; k++)
        if (plan->on[k]->ready) plan->on[k]->ready(c, plan->state[k], run, at);
}

int pgk_search(pgk_plan *plan, sec_ctx *c, pgk_try_fn try_run, void *arg, char *stop,
               size_t stoplen)
{
    size_t k;
    for (k = 0; k < plan->non; k++)
        if (plan->on[k]->search)
            return plan->on[k]->search(c, plan->state[k], try_run, arg, stop, stoplen);
    return 0;
}

int pgk_conclude(pgk_plan *plan, sec_ctx *c)
{
    int failed = 0;
    size_t k;
    for (k = 0; k < plan->non; k++)
        if (plan->on[k]->conclude) failed += plan->on[k]->conclude(c, plan->state[k], plan);
    return failed;
}

void pgk_answer(const pgk_plan *plan, results *r)
{
    size_t k;
    for (k = 0; k < plan->non; k++)
        if (plan->on[k]->answer) plan->on[k]->answer(r, plan);
}

void pgk_print(FILE *f, const results *r)
{
    size_t k;
    for (k = 0; k < PGK_NKINDS; k++)
        if (pgk_kinds[k]->print) pgk_kinds[k]->print(f, r);
}

void pgk_schema(sch_out *o)
{
    size_t k;
    for (k = 0; k < PGK_NKINDS; k++)
        if (pgk_kinds[k]->schema) pgk_kinds[k]->schema(o);
}

void pgk_schema_figures(sch_out *o)
{
    size_t k;
    for (k = 0; k < PGK_NKINDS; k++)
        if (pgk_kinds[k]->schema_figures) pgk_kinds[k]->schema_figures(o);
}

void pgk_stop(pgk_plan *plan)
{
    size_t k;
    for (k = 0; k < plan->non; k++) {
        if (plan->on[k]->stop && plan->state[k]) plan->on[k]->stop(plan->state[k]);
        plan->state[k] = NULL;
    }
}
