/* snapshot_opts.h: section snapshot's rows of the option table (the
 * columns: run/opt.h; gathered by SEC_OPT_LIST, sections/list.h). Includes
 * nothing. */
#ifndef SNAPSHOT_OPTS_H
#define SNAPSHOT_OPTS_H

#define SN_OPTS(X, NO_PROFILE)                                                          \
    X(SNAPSHOT_MIB, "snapshot-mib", "LIST", OPT_TEXT(snapshot_mib),                     \
      OPT_OWNED(SNAPSHOT, "is read by"), 0, OPT_RARE,                                   \
      "section snapshot: the sizes of the child's buffers in\n"                         \
      "MiB, a comma list of 1 to 8 (default 256,2048); two\n"                           \
      "or more tell the fixed part from the marginal rate")                              \
    X(SNAPSHOT_LOCK_TIMEOUT, "snapshot-lock-timeout", "MS",                             \
      OPT_INT(snapshot_lock_ms, 0, 600000, "milliseconds"),                             \
      OPT_ANY, 0, OPT_RARE,                                                             \
      "section snapshot and -- CMD --snapshot: how long a lock\n"                       \
      "may wait for the work a process submitted, 0 for ever\n"                         \
      "(default 5000)")                                                                 \
    NO_PROFILE(SNAPSHOT, "times a child's checkpoint and restore, not kernels")

#endif
