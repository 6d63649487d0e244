"""What a check concludes, and how its sentence quotes what the learner's code or a model said.

A judge raises `Incorrect` for the first case an answer gets wrong (learntools' shape); its
message is a translated template whose `Said` fields hold the learner's or the model's values.
Those are quoted bounded (`limits.shown`: a 3-million-item list costs no more than six items) and,
in the Markdown a notebook shows, escaped (`_text.markdown_text`): a model's `<img onerror=…>`
stays text.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import methodcaller
from types import CodeType
from typing import Any, Literal

from .._text import excerpt, markdown_text
from ..i18n import N_, _, ngettext
from ..outcome import Run, Stop
from .content import said
from .limits import shown

Status = Literal["correct", "incorrect", "not attempted"]

ENDED = {
    Stop.END_TURN: N_("ended on the flag"),
    Stop.TERMINAL_TOOL: N_("ended through the warp pipe"),
    Stop.MAX_TURNS: N_("was stopped by the clock"),
    Stop.DEADLINE: N_("was stopped by the deadline"),
    Stop.BUDGET: N_("was stopped by the budget"),
}
"""How a run ended, as the predicate of a sentence ("this run {ended}"), in each language."""


def ended_text(run: Run) -> str:
    """How `run` ended, as the predicate of a verdict's sentence."""
    return _(ENDED[run.stop]) if run.stop else _("was broken")


def turns_text(n: int) -> str:
    """ "3 turns", in the language in effect."""
    return ngettext("{n} turn", "{n} turns", n).format(n=n)


def requests_text(n: int) -> str:
    """ "3 requests", in the language in effect."""
    return ngettext("{n} request", "{n} requests", n).format(n=n)


def runs_text(n: int) -> str:
    """ "2 runs", in the language in effect."""
    return ngettext("{n} run", "{n} runs", n).format(n=n)


def times_text(n: int) -> str:
    """ "3 times", in the language in effect."""
    return ngettext("{n} time", "{n} times", n).format(n=n)


@dataclass(frozen=True)
class Said:
    """A value that came from the learner's code or a model, quoted in a verdict."""

    value: Any
    text: bool = False
    """Quote `str(value)` (as words) rather than its repr."""
    limit: int = 100

    def plain(self) -> str:
        if self.text:
            return excerpt(str(self.value)[: self.limit * 4], self.limit)
        return shown(self.value, self.limit)

    def markdown(self) -> str:
        return markdown_text(self.plain())


def render(template: str, fields: dict[str, Any], markdown: bool) -> str:
    """The template with its fields: `Said` ones quoted (escaped for Markdown), the others (the
    check's own words and numbers) as they are."""
    quote = methodcaller("markdown" if markdown else "plain")
    values = {name: quote(v) if isinstance(v, Said) else v for name, v in fields.items()}
    return template.format(**values)


@dataclass
class Progress:
    """Where a check is: the case being tried (for a verdict that comes when time runs out) and
    what the learner's code has asked for on it."""

    case: str = ""
    requests: int = 0
    runs: int = 0
    stopped: int = 0
    """How many times the check's plumbing raised to stop the learner's code (which went on)."""


PROGRESS = Progress()
"""The check running now (a check runs one at a time, in the kernel's thread)."""


@dataclass(frozen=True)
class Verdict:
    """What a check concluded, and the sentence the learner reads (after the status word), as
    plain text and as Markdown."""

    status: Status
    message: str
    markdown: str = ""
    printed: str = ""
    """What the learner's code printed while it was checked (bounded), shown before the verdict."""

    def __post_init__(self) -> None:
        if not self.markdown:
            object.__setattr__(self, "markdown", self.message)


class Incorrect(Exception):
    """The answer went wrong on a case: the message says which case exposed it, and what to do.
    `template` is already translated; `Said` fields are quoted and escaped when shown; `case`,
    unless given, is the case being tried (`PROGRESS.case`)."""

    def __init__(self, template: str, **fields: Any) -> None:
        fields.setdefault("case", PROGRESS.case)
        self.template, self.fields = template, fields
        self.message = render(template, fields, markdown=False)
        super().__init__(self.message)

    @property
    def markdown(self) -> str:
        return render(self.template, self.fields, markdown=True)

    def verdict(self) -> Verdict:
        return Verdict("incorrect", self.message, self.markdown)


def wrong(notebook: str, name: str, /, **fields: Any) -> Incorrect:
    """`Incorrect` in the words the notebook's data file says at length under `name` (`said`)."""
    return Incorrect(_(said(notebook, name)), **fields)


class NotAttempted(Exception):
    """The answer still holds a `____`."""


class _Blank:
    """The placeholder `____` a learner replaces with an answer."""

    def __repr__(self) -> str:
        return "____"


____ = _Blank()


def is_blank(answer: Any) -> bool:
    """Whether an answer is still the placeholder (`____`, or `...`)."""
    return answer is ... or isinstance(answer, _Blank)


def filled(value: Any) -> Any:
    """`value`, unless it is, or holds in a tuple, the placeholder: then `NotAttempted`."""
    if is_blank(value) or (isinstance(value, tuple) and any(is_blank(x) for x in value)):
        raise NotAttempted
    return value


def names_in(code: CodeType) -> set[str]:
    """Every global or attribute name a function's code (and its inner functions') uses."""
    inner = (names_in(const) for const in code.co_consts if isinstance(const, CodeType))
    return set(code.co_names).union(*inner)


def still_blank(fn: Any) -> bool:
    """Whether a function the learner wrote still holds a `____` somewhere in its body."""
    code = getattr(fn, "__code__", None)
    return isinstance(code, CodeType) and "____" in names_in(code)


def a_function(name: str, value: Any) -> None:
    """`Incorrect` unless the answer `name` holds is a function."""
    if not callable(value):
        raise Incorrect(
            _("`{name}` should be a function; it holds {value}."), name=name, value=Said(value)
        )


def kind_of(value: object) -> Said:
    """The name of a value's class, quoted as words (`KeyError`, `list`)."""
    return Said(type(value).__name__, text=True)


def raised(exc: object) -> dict[str, Said]:
    """The fields of a verdict on code that raised `exc`: its class (`kind`), its message (`error`)."""
    return {"kind": kind_of(exc), "error": Said(exc, text=True)}


def correct(template: str, **fields: Any) -> Verdict:
    return Verdict(
        "correct", render(template, fields, markdown=False), render(template, fields, markdown=True)
    )
