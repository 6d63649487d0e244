"""The lesson's own words, in one place: the task and the give-up sentence that the notebooks,
the explorer, the command line and the exercise checks all use.

    from whentostop.lesson import PROMPT, GIVE_UP
    run_agent(PROMPT, model=connect("searcher"), tools=level.tools(), system=GIVE_UP)

Both are read in the language in effect when they are looked up (`set_language`), so a notebook
that chose Portuguese in its first cell gets the Portuguese task, and the mock answers in kind.
"""

from __future__ import annotations

from ..i18n import N_, _

PROMPT_TEXT = N_("Find the star in this level.")
"""The task of every level, as a learner would write it."""
GIVE_UP_TEXT = N_("If a few searches come back empty, say you couldn't find it.")
"""A system prompt that lets the model stop and report failure: the permission of level 1-2."""

_WORDS = {"PROMPT": PROMPT_TEXT, "GIVE_UP": GIVE_UP_TEXT}


def __getattr__(name: str) -> str:
    """`PROMPT` and `GIVE_UP`, translated when they are looked up (PEP 562)."""
    if name in _WORDS:
        return _(_WORDS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def prompt() -> str:
    """The task, in the language in effect."""
    return _(PROMPT_TEXT)


def give_up() -> str:
    """The give-up sentence, in the language in effect."""
    return _(GIVE_UP_TEXT)


__all__ = ["GIVE_UP", "GIVE_UP_TEXT", "PROMPT", "PROMPT_TEXT", "give_up", "prompt"]
