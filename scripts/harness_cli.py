"""harness_cli: the command line of the scripts in scripts/, as jq's: argparse,
--help the script's own text on stdout (exit 0), a usage error one line on
stderr, "NAME: what is wrong (usage: USAGE)", and exit 2.

    Parser(prog, usage, doc)    argparse in those words; parse(argv)
    fail(prog, usage, msg)      the usage error's line on stderr; returns 2
    invoked(prog)               the name a script was run by: "scripts/compare"
                                in the tree, "harness-compare" installed

The texts say "scripts/NAME"; Parser says the name the script was run by.
"""

import argparse
import re
import sys

# argparse's "argument --threshold: --threshold=P needs ..." said once.
OWN_WORDS = (r"^argument --[a-z-]+: (?=--)", "")


def invoked(prog, argv0=None):
    """The name the script prog was run by, as its user typed it: the
    installed link's own name ("harness-compare"), else "scripts/<prog>"."""
    import os
    name = os.path.basename(argv0 if argv0 is not None else sys.argv[0])
    return name if name.startswith("harness-") else "scripts/" + prog


def named(text, prog, argv0=None):
    """text with "scripts/<prog>" said as the script was run (invoked)."""
    return text.replace("scripts/" + prog, invoked(prog, argv0)) if text else text


class Usage(Exception):
    """A usage error: its one line."""


def fail(prog, usage, msg):
    """Print the usage error msg of prog on stderr, named as it was run;
    returns 2, its exit status."""
    name = invoked(prog)
    print("%s: %s (usage: %s)" % (name if name.startswith("harness-") else prog, msg,
                                  named(usage, prog)), file=sys.stderr)
    return 2


class Parser(argparse.ArgumentParser):
    """argparse with the script's words: doc is its --help, usage its usage
    line, rewords (pattern, replacement) pairs applied in order to
    argparse's own error messages. An option is abbreviated only with
    allow_abbrev (compare's, as it always was)."""

    def __init__(self, prog, usage, doc, rewords=(OWN_WORDS,), allow_abbrev=False):
        usage, doc = named(usage, prog), named(doc, prog)
        super().__init__(prog=prog, usage=usage, allow_abbrev=allow_abbrev)
        self.doc, self.rewords = doc, rewords

    def error(self, message):
        for pattern, repl in self.rewords:
            message = re.sub(pattern, repl, message)
        raise Usage(message)

    def print_help(self, file=None):
        print(self.doc.strip(), file=file)

    def fail(self, msg):
        """Print the usage error msg on stderr; returns 2, its exit status."""
        return fail(self.prog, self.usage, msg)

    def parse(self, argv, intermixed=False):
        """The namespace of argv; raises Usage on an error, SystemExit(0)
        after --help (argparse's own)."""
        return self.parse_intermixed_args(argv) if intermixed else self.parse_args(argv)
