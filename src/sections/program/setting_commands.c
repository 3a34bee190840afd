/* setting_commands.c: the kind --compare -- A --vs B [--vs C ...]: a side
 * per command ("a", "A"; "b", "B"; ...), each named in the environment, the
 * whole process a headline figure too (the commands differ in all they
 * do): a row of setting.h. */
#include <stdio.h>
#include <string.h>

#include "sections/program/setting.h"

static int pgk_commands_asked(const cli_opts *o)
{
    return o->compare == CLI_CMP_COMMANDS;
}

static size_t pgk_commands_settings(const cli_opts *o)
{
    return o->nsettings;
}

static void pgk_commands_side(const cli_opts *o, const pgk_plan *plan, size_t i, pgk_side *d)
{
    (void)plan;
    snprintf(d->key, sizeof d->key, "%c", (char)('a' + i));
    snprintf(d->label, sizeof d->label, "%c", (char)('A' + i));
    d->cmd = o->cmds[i];
    d->path = o->cmd_paths[i];
}

/* Each command's words, the separator between them (--vs, or --vs-word's
 * word), as one line. */
static void pgk_commands_line(const cli_opts *o, char *buf, size_t len)
{
    size_t i, j, at = 0;
    buf[0] = '\0';
    for (i = 0; i < o->nsettings && at < len; i++) {
        at += (size_t)snprintf(buf + at, len - at, "%s", i ? (o->vs_word ? " " : " --vs ") : "");
        if (i && o->vs_word && at < len) at += (size_t)snprintf(buf + at, len - at, "%s ", o->vs_word);
        for (j = 0; o->cmds[i][j] && at < len; j++)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", j ? " " : "", o->cmds[i][j]);
    }
}

const pgk_kind pgk_commands = {
    .name = "commands",
    .asked = pgk_commands_asked,
    .settings = pgk_commands_settings,
    .side = pgk_commands_side,
    .command_line = pgk_commands_line,
    .names_commands = 1,
    .headline_wall = 1,
};
