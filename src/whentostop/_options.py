"""How a setting is named to the person who set it: `max_turns` in Python, `--max-turns` on the
command line. An error message names the setting the way its reader can change it:

    _("{name} must be a positive int").format(name=option("max_turns"))
    # in a notebook:        max_turns must be a positive int
    # python -m whentostop: --max-turns must be a positive int

The command line sets the spelling for the length of one command (`on_the_command_line()`); a
context variable, so a notebook or a thread running beside it keeps its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_SPELLING: ContextVar[str] = ContextVar("whentostop_option_spelling", default="python")


def option(name: str) -> str:
    """`name` as the reader sets it: the keyword argument, or the command line's flag."""
    return "--" + name.replace("_", "-") if _SPELLING.get() == "cli" else name


@contextmanager
def on_the_command_line() -> Iterator[None]:
    """Within it, `option()` names the command line's flags (`--model`, not `model`)."""
    token = _SPELLING.set("cli")
    try:
        yield
    finally:
        _SPELLING.reset(token)
