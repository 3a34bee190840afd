/* demangle.h: kernel names people can read: C++ symbols demangled with the
 * C++ ABI's own demangler (__cxa_demangle of libstdc++.so.6, opened with
 * dlopen at the first need), and names shortened to a table's width with
 * the function's qualified name kept readable. */
#ifndef DEMANGLE_H
#define DEMANGLE_H

#include <stddef.h>

/* The longest name handed to __cxa_demangle (its recursion and its stack
 * grow with the name): a longer one, or one whose back-references could
 * make the demangled text longer than 16 MiB (each "S0_" or "T_" counted as
 * multiplying it by 1.5), is read by dm's own bounded reader of the
 * qualified name (DM_PREFIX) or kept as it is. */
#define DM_MAX_IN 4096

/* The mark a name that was read only in part ends with (DM_PREFIX). */
#define DM_PARTLY " [partly read]"

/* What dm_demangle made of a name. */
typedef enum dm_status {
    DM_DEMANGLED,   /* __cxa_demangle's whole answer */
    DM_PREFIX,      /* a C++ symbol the demangler refused or was not handed
                       (cut short, say, or beyond DM_MAX_IN) whose qualified name dm's own
                       reader could read: "at::native::reduce_kernel<...>"
                       followed by DM_PARTLY */
    DM_AS_IS        /* the name as given: not a C++ symbol ("_Z..."), one
                       neither could read, or no demangler (dm_open says why) */
} dm_status;

/* Open the demangler once per process (dlopen "libstdc++.so.6",
 * __cxa_demangle); later calls return the first call's answer. Thread-safe.
 * Returns 0, or -1 with one line in why ("no C++ demangler: <dlerror>"):
 * names then stay as they are. */
int dm_open(char *why, size_t whylen);

/* Open the library file lib in place of libstdc++.so.6 (NULL: the
 * default), for the tests of a missing or unusable one; the answer then
 * stands for every later call. Not thread-safe: call it before any other
 * dm_ call can run on another thread. Returns as dm_open. */
int dm_open_lib(const char *lib, char *why, size_t whylen);

/* name (NULL reads as "") demangled into out (len bytes, len > 0; a
 * longer result is cut at len - 1 bytes). Only a name that starts with
 * "_Z" is a C++ symbol here (as c++filt reads names by default): "vecAdd"
 * and "f" stay as they are. Opens the demangler (dm_open) if needed; never
 * fails: the worst is DM_AS_IS. */
dm_status dm_demangle(const char *name, char *out, size_t len);

/* A readable name (a demangled one, or any text) shortened to at most
 * width bytes into out (len bytes; width is also cut to len - 1), as far
 * as needed and in this order: the name as it is; without its return type
 * and parameter list ("void f<int>(float*) const" -> "f<int>"); with
 * template arguments collapsed to "<...>" from the deepest level up;
 * without its leading scopes ("...::reduce_kernel<...>"); cut, ending in
 * "...". Every step is bounded by the name's length; brackets that do not
 * match are read as text. */
void dm_shorten(const char *name, size_t width, char *out, size_t len);

/* dm_demangle, then dm_shorten to width: the name a table prints. Returns
 * dm_demangle's status. */
dm_status dm_table_name(const char *name, size_t width, char *out, size_t len);

#endif
