/* section.c: the table of sections. */
#include "run/section.h"

/* ---------------------------------------------------------- the table --- */

/* visible first: its children must start before this process loads libcuda
 * (every other section does). */
const sec_def sec_table[] = {
#define SEC_DEF(id, name, scope, plan, run, print, answer, child, schema, roof) \
    { name, SEC_SCOPE_##scope, plan, run, print, answer, child, schema, &roof },
    SEC_LIST(SEC_DEF)
#undef SEC_DEF
};

/* The sections --section names come first (cli_opts.run is indexed by
 * cli_section). */
#define SEC_FIRST(id, name, scope, ...) \
    _Static_assert(SEC_IS_SECTION_##scope == ((int)CLI_SEC_##id < (int)CLI_NSECTIONS), \
                   "the sections come before the node run and the program in SEC_LIST");
SEC_LIST(SEC_FIRST)
#undef SEC_FIRST

/* The entry that owns each child kind. */
static const cli_section sec_child_owner[] = {
#define SEC_OWNER(id, word, owner) CLI_SEC_##owner,
    SEC_CHILD_LIST(SEC_OWNER)
#undef SEC_OWNER
};
_Static_assert(sizeof sec_child_owner / sizeof sec_child_owner[0] == CLI_NCHILDREN,
               "an owner for each child kind");

sec_status sec_no_plan(sec_ctx *c)
{
    (void)c;
    return SEC_OK;
}

void sec_no_print(FILE *f, const results *r)
{
    (void)f;
    (void)r;
}

void sec_no_answer(results *r)
{
    (void)r;
}

void sec_no_schema(sch_out *o)
{
    (void)o;
}

const sec_roof sec_no_roof = { NULL, NULL };

int sec_no_child(const cli_opts *o, long long t_main_ns)
{
    (void)o;
    (void)t_main_ns;
    return SEC_FAILED;
}

const char *const *sec_names(void)
{
    static const char *names[CLI_NENTRIES];
    size_t i;

    for (i = 0; i < CLI_NENTRIES; i++) names[i] = sec_table[i].name;
    return names;
}

const sec_def *sec_of_child(cli_child k)
{
    if ((unsigned)k >= CLI_NCHILDREN || sec_child_owner[k] == CLI_SEC_NONE) return NULL;
    return &sec_table[sec_child_owner[k]];
}

int sec_asked(const cli_opts *o, cli_section i)
{
    switch (sec_table[i].scope) {
    case SEC_SCOPE_PROGRAM: return o->cmd != NULL;
    case SEC_SCOPE_NODE: return !o->cmd && cli_node(o);
    case SEC_SCOPE_DEVICE: case SEC_SCOPE_NODE_LEVEL: break;
    }
    return !o->cmd && o->run[i];
}

int sec_runs_here(const cli_opts *o, cli_section i)
{
    int node = cli_node(o) && o->child == CLI_CHILD_NONE;      /* a node run's parent */

    if (!sec_asked(o, i)) return 0;
    switch (sec_table[i].scope) {
    case SEC_SCOPE_DEVICE: return !node;
    case SEC_SCOPE_NODE_LEVEL: return node || o->child != CLI_CHILD_DEVICE;
    case SEC_SCOPE_NODE: return node;
    case SEC_SCOPE_PROGRAM: return 1;
    }
    return 0;
}

const char *sec_timed_name(cli_section i)
{
    return sec_table[i].scope == SEC_SCOPE_NODE ? "devices" : sec_table[i].name;
}

int sec_print_schema(FILE *f)
{
    const char *names[CLI_NENTRIES];
    void (*decl[CLI_NENTRIES])(sch_out *o);
    size_t i;

    for (i = 0; i < CLI_NENTRIES; i++) {
        names[i] = sec_table[i].name;
        decl[i] = sec_table[i].schema;
    }
    return sch_print(f, names, decl, CLI_NENTRIES);
}
