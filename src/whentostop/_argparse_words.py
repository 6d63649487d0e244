"""argparse's own words a user of `python -m whentostop` can meet, as msgids for our catalogue.

argparse looks each up with its module's `_()` and `ngettext()` (Python 3.11 to 3.13 say these);
`__main__.argparse_words()` points those at ours while the command line is read, so "usage:",
"invalid choice" and "the following arguments are required" are in the learner's language. Only
what a user can meet is here: argparse's errors for a programmer (a conflicting option string)
stay English. Nothing imports this module: it exists for the extractor (`tools/i18n.py`).
"""

from .i18n import N_, ngettext

WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("subcommands"),
    N_("%(heading)s:"),
    N_(" (default: %(default)s)"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
)


def _plural(n: int) -> str:
    return ngettext("expected %s argument", "expected %s arguments", n)
