/* markdown.c: a run's tables and answers as Markdown (markdown.h). */
#include "run/markdown.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/answer.h"
#include "os/atomicfile.h"

/* s in a cell of a Markdown table: '|' escaped, line breaks as spaces. */
static void md_cell(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n' || *s == '\r') fputc(' ', f);
        else fputc(*s, f);
    }
}

/* The answers of the sections named, in that order, as a table. */
static void md_answers(FILE *f, const md_doc *d)
{
    const results *r = d->r;
    size_t i, k, n = 0;

    for (k = 0; k < d->nsections; k++)
        for (i = 0; i < r->nd; i++) {
            const res_derived *x = &r->d[i];
            if (strcmp(x->section, d->sections[k]) != 0 ||
                strncmp(x->key, AN_PREFIX, strlen(AN_PREFIX)) != 0)
                continue;
            if (!n++) fprintf(f, "\n## Answers\n\n| answer | what the run says | page |\n|---|---|---|\n");
            fputs("| ", f);
            md_cell(f, x->name);
            fputs(" | ", f);
            md_cell(f, x->text);
            fprintf(f, " | docs/%s.md |\n", x->section);
        }
    if (!n) fprintf(f, "\n## Answers\n\nNo section stored one.\n");
}

int md_emit(FILE *f, const md_doc *d)
{
    const results *r = d->r;
    const res_kv *cmd = res_env_get(r, "command_line"), *ver = res_env_get(r, "harness_version");
    size_t failed = res_failed(r), i;

    fprintf(f, "# harness %s\n\n", ver && ver->kind == RES_STR && ver->str ? ver->str : "?");
    if (cmd && cmd->kind == RES_STR && cmd->str) fprintf(f, "````sh\n%s\n````\n", cmd->str);
    if (d->tables && *d->tables) {
        fprintf(f, "\n## Tables\n\n````text\n%s", d->tables);
        if (d->tables[strlen(d->tables) - 1] != '\n') fputc('\n', f);
        fprintf(f, "````\n");
    }
    md_answers(f, d);
    fprintf(f, "\n## Run\n\n- run time: %.1f s\n- exit code: %d\n- checks: %zu passed, %zu failed\n",
            d->seconds, d->exit_code, r->ncheck - failed, failed);
    for (i = 0; i < r->ncheck; i++)
        if (!r->check[i].passed) {
            fputs("  - FAILED ", f);
            md_cell(f, r->check[i].section);
            fputs(": ", f);
            md_cell(f, r->check[i].what);
            fputs(": ", f);
            md_cell(f, r->check[i].detail);
            fputc('\n', f);
        }
    for (i = 0; i < r->nskip; i++) {
        fputs("- skipped: ", f);
        md_cell(f, r->skip[i].section);
        fputs(": ", f);
        md_cell(f, r->skip[i].reason);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

static int md_emit_cb(FILE *f, const void *arg)
{
    return md_emit(f, arg);
}

int md_write(const char *path, const md_doc *d)
{
    if (strcmp(path, "-") == 0) {
        if (md_emit(stdout, d) == 0 && fflush(stdout) == 0) return 0;
        fprintf(stderr, "harness: cannot write the Markdown to stdout: %s\n", strerror(errno));
        return -1;
    }
    return af_write(path, md_emit_cb, d);
}
