/* test_layout.c: tables and paragraphs laid out for a width (run/layout.c):
 * no line wider than the width, every cell's words back in order from its
 * own column, blocks that repeat the keys, a label beside its value. */
#include <stdlib.h>
#include <string.h>

#include "run/layout.h"
#include "testhelp.h"

/* The widest line of s. */
static size_t tl_widest(const char *s)
{
    size_t w = 0, n;
    while (s && *s) {
        n = strcspn(s, "\n");
        if (n > w) w = n;
        s += n + (s[n] == '\n');
    }
    return w;
}

/* The text of columns [from, to) of every line of s joined with spaces,
 * runs of spaces made one: what a reader of that column reads. */
static void tl_column(const char *s, size_t from, size_t to, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    while (*s) {
        size_t n = strcspn(s, "\n"), c;
        for (c = from; c < to && c < n && at + 2 < len; c++) {
            char ch = s[c];
            if (ch == ' ' && (at == 0 || out[at - 1] == ' ')) continue;
            out[at++] = ch;
        }
        if (at && out[at - 1] != ' ' && at + 1 < len) out[at++] = ' ';
        out[at] = '\0';
        s += n + (s[n] == '\n');
    }
    while (at && out[at - 1] == ' ') out[--at] = '\0';
}

/* The table printed at width, into a string (the caller frees it). */
static char *tl_print(const ly_table *t, size_t width)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return NULL;
    ly_print(f, t, width);
    fclose(f);
    return out;
}

static ly_table *tl_sides(void)
{
    ly_table *t = ly_new(2, 5);
    ly_column(t, 0, "figure", LY_LEFT, 12);
    ly_column(t, 1, "unit", LY_LEFT, 0);
    ly_column(t, 2, "LAZY", LY_LEFT, 0);
    ly_column(t, 3, "EAGER", LY_LEFT, 0);
    ly_column(t, 4, "EAGER against LAZY", LY_LEFT, 10);
    ly_keys(t, 2);
    ly_group(t, 2);
    ly_group(t, 3);
    ly_group(t, 4);
    ly_rowv(t, "first kernel, from cuInit", "ms", "313 [306, 326]", "2502 [2433, 2918]",
            "EAGER higher", NULL);
    ly_rowv(t, "whole process, from the spawn", "ms", "3482 [3269, 4326]", "7488 [6937, 9310]",
            "EAGER higher", NULL);
    return t;
}

static void tl_table_tests(void)
{
    ly_table *t = tl_sides();
    char *o = tl_print(t, 120), col[256];
    size_t w;

    th_check("layout: a table that fits is printed on one line a row",
             o && strstr(o, "  first kernel, from cuInit      ms    313 [306, 326]") &&
             tl_widest(o) <= 120);
    free(o);
    o = tl_print(t, 80);
    th_check("layout: at 80 columns no line is wider than 80", o && tl_widest(o) <= 80);
    /* The figure column is 2 .. the unit's start: its words come back whole. */
    w = o && strstr(o, "unit") ? (size_t)(strstr(o, "unit") - o) : 0;
    tl_column(o ? o : "", 2, w, col, sizeof col);
    th_check("layout: a wrapped name reads back whole from its own column",
             strstr(col, "first kernel, from cuInit") && strstr(col, "whole process, from the spawn"));
    th_check("layout: the values stay on their row's first line",
             o && strstr(o, "ms    313 [306, 326]") != NULL);
    free(o);
    o = tl_print(t, 50);
    th_check("layout: at 50 columns, one block per side, each with the keys",
             o && tl_widest(o) <= 50 && strstr(o, "LAZY") && strstr(o, "EAGER") &&
             strstr(o, "\n\n") && strstr(strstr(o, "\n\n"), "figure") &&
             strstr(o, "313 [306, 326]") && strstr(o, "2502 [2433, 2918]"));
    th_check("layout: a side's figure stays whole in its block", o && strstr(o, "3482 [3269, 4326]"));
    free(o);
    ly_note(t, "a note under the rows, long enough to be broken at its spaces at forty columns");
    o = tl_print(t, 40);
    th_check("layout: at 40 columns no line is wider than 40 (a long name cut in its column)",
             o && tl_widest(o) <= 40);
    free(o);
    ly_free(t);
    ly_free(NULL);
    ly_print(stdout, NULL, 80);
    th_check("layout: a NULL table prints nothing and frees nothing", 1);
}

static void tl_label_tests(void)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return;
    ly_label(f, 2, 19, 60, "GPU", "%s", "Fake GPU, device 0 (00000000:19:00.0): compute capability "
             "9.0, 132 SMs");
    ly_label(f, 2, 19, 60, "driver", "%s", "580.1 (CUDA 13.0); NVRTC 13.0");
    ly_para(f, 2, 4, 30, "%s", "one paragraph broken at its spaces into lines of thirty");
    fclose(f);
    th_check("layout: a label keeps its value on its own line", out &&
             strstr(out, "  GPU              Fake GPU,") && strstr(out, "  driver           580.1"));
    th_check("layout: a value's continuation starts under the value (column 19)",
             out && strstr(out, "\n                   compute capability 9.0, 132 SMs\n"));
    th_check("layout: a paragraph's lines fit and hang", out && tl_widest(out) <= 60 &&
             strstr(out, "\n    "));
    free(out);
}

void test_layout(void)
{
    tl_table_tests();
    tl_label_tests();
}
