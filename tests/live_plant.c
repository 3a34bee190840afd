/* live_plant.c: writes a live record (src/probe/live.h) as the probe
 * would, with planted values, for the stand-in program's CPU tests:
 *   live_plant DIR PID T0_NS 'CMD;CMD;...'
 * each CMD words separated by spaces, times in ms after T0_NS ("-" an
 * empty name):
 *   thread TID                      the thread the next calls are of
 *   enter CALL WHAT AT              it enters CALL on WHAT
 *   exit RESULT AT                  its call returned RESULT
 *   launch STREAM KERNEL AT         KERNEL launched on STREAM (hex or decimal)
 *   done STREAM|all AT              a synchronize saw that work end
 *   use KERNEL CALL STREAM AT       a first use beside STREAM's work (0: none)
 *   wait KERNEL CALL STREAM MS AT   its wait ended after MS
 *   load CALL NAME MS AT            a load returned
 *   fail CALL NAME RESULT AT        a call failed
 *   free BYTES AT                   free device memory at a load
 *   ready AT                        an NVTX mark matched --ready (the stamp)
 *   first AT                        the first kernel launched (the stamp)
 * Exits 0, or 2 with a line naming the command it could not take. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/live.h"

#define LP_WORDS 8

static long long lp_t0;

static int64_t lp_at(const char *ms)
{
    return lp_t0 + (long long)(strtod(ms, NULL) * 1e6);
}

static const char *lp_name(const char *w)
{
    return strcmp(w, "-") == 0 ? "" : w;
}

/* One command of n words; 0, or -1 where it is not one. */
static int lp_do(lv_file *f, lv_thread **t, char **w, int n)
{
    uint64_t st = n > 1 ? strtoull(w[1], NULL, 0) : 0;
    if (!strcmp(w[0], "thread") && n == 2) *t = lv_thread_slot(f, atoi(w[1]));
    else if (!strcmp(w[0], "enter") && n == 4) lv_enter(*t, w[1], lp_name(w[2]), lp_at(w[3]));
    else if (!strcmp(w[0], "exit") && n == 3) lv_exit(*t, atoi(w[1]), NULL, lp_at(w[2]));
    else if (!strcmp(w[0], "launch") && n == 4) lv_launch(f, st, w[2], lp_at(w[3]));
    else if (!strcmp(w[0], "done") && n == 3) lv_stream_done(f, !strcmp(w[1], "all"), st, lp_at(w[2]));
    else if (!strcmp(w[0], "use") && n == 5) {
        char other[LV_NAME];
        uint64_t s = strtoull(w[3], NULL, 0);
        lv_stream_kernel(f, s, other, sizeof other);
        lv_event_add(f, LV_EV_FIRST_USE, *t ? (*t)->tid : 0, w[1], w[2], s ? other : "", 0, s, 0,
                     lp_at(w[4]));
    } else if (!strcmp(w[0], "wait") && n == 6) {
        char other[LV_NAME];
        uint64_t s = strtoull(w[3], NULL, 0);
        lv_stream_kernel(f, s, other, sizeof other);
        lv_event_add(f, LV_EV_WAIT, *t ? (*t)->tid : 0, w[1], w[2], other, 0, s, strtod(w[4], NULL),
                     lp_at(w[5]));
    } else if (!strcmp(w[0], "load") && n == 5)
        lv_event_add(f, LV_EV_LOAD, *t ? (*t)->tid : 0, lp_name(w[2]), w[1], "", 0, 0,
                     strtod(w[3], NULL), lp_at(w[4]));
    else if (!strcmp(w[0], "fail") && n == 5)
        lv_event_add(f, LV_EV_FAILURE, *t ? (*t)->tid : 0, lp_name(w[2]), w[1], "", atoi(w[3]), 0, 0,
                     lp_at(w[4]));
    else if (!strcmp(w[0], "free") && n == 3) lv_free_mem(f, strtoull(w[1], NULL, 0), lp_at(w[2]));
    else if (!strcmp(w[0], "ready") && n == 2) lv_stamp_ready(f, lp_at(w[1]));
    else if (!strcmp(w[0], "first") && n == 2) lv_stamp_first_kernel(f, lp_at(w[1]));
    else return -1;
    return 0;
}

int main(int argc, char **argv)
{
    lv_file *f;
    lv_thread *t = NULL;
    char *cmd, *save = NULL;

    if (argc != 5) {
        fprintf(stderr, "usage: live_plant DIR PID T0_NS 'CMD;CMD;...'\n");
        return 2;
    }
    lp_t0 = atoll(argv[3]);
    if (!(f = lv_open(argv[1], atoi(argv[2])))) {
        perror("live_plant: lv_open");
        return 2;
    }
    for (cmd = strtok_r(argv[4], ";", &save); cmd; cmd = strtok_r(NULL, ";", &save)) {
        char *w[LP_WORDS], *s2 = NULL, *word;
        int n = 0;
        for (word = strtok_r(cmd, " ", &s2); word && n < LP_WORDS; word = strtok_r(NULL, " ", &s2))
            w[n++] = word;
        if (n && lp_do(f, &t, w, n) != 0) {
            fprintf(stderr, "live_plant: cannot take \"%s\"\n", w[0]);
            return 2;
        }
    }
    lv_close(f);
    return 0;
}
