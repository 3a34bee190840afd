/* version.h: the commit the binary was built from, for --version and the
 * results' provenance. make writes its definition (version.c in the build
 * directory) from git at every build, rewriting it only when it changed:
 * the short commit, "-dirty" after it when tracked files differ from it,
 * or "unknown" where the source is not a git checkout. */
#ifndef VERSION_H
#define VERSION_H

extern const char harness_commit[];

#endif
