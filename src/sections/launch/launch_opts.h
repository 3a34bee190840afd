/* launch_opts.h: what section launch brings to the option table (gathered
 * by SEC_OPT_LIST, sections/list.h): no option of its own; --profile
 * leaves it out of the run. Includes nothing. */
#ifndef LAUNCH_OPTS_H
#define LAUNCH_OPTS_H

#define LA_OPTS(X, NO_PROFILE) NO_PROFILE(LAUNCH, "times launches, not kernels")

#endif
