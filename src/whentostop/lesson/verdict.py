"""What a check concludes, and how its sentence quotes what the learner's code or a model said.

A judge raises `Incorrect` for the first case an answer gets wrong (learntools' shape); its
message is a translated template whose `Said` fields hold the learner's or the model's values.
Those are quoted bounded (`limits.shown`: a 3-million-item list costs no more than six items) and,
in the Markdown a notebook shows, escaped (`_text.markdown_text`): a model's `<img onerror=…>`
stays text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .._text import excerpt, markdown_text
from .limits import shown

Status = Literal["correct", "incorrect", "not attempted"]


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
    values = {
        name: (value.markdown() if markdown else value.plain())
        if isinstance(value, Said)
        else value
        for name, value in fields.items()
    }
    return template.format(**values)


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
    `template` is already translated; `Said` fields are quoted and escaped when shown."""

    def __init__(self, template: str, **fields: Any) -> None:
        super().__init__(render(template, fields, markdown=False))
        self.template, self.fields = template, fields

    @property
    def message(self) -> str:
        return render(self.template, self.fields, markdown=False)

    @property
    def markdown(self) -> str:
        return render(self.template, self.fields, markdown=True)

    def verdict(self) -> Verdict:
        return Verdict("incorrect", self.message, self.markdown)


class NotAttempted(Exception):
    """The answer still holds a `____`."""


def correct(template: str, **fields: Any) -> Verdict:
    return Verdict(
        "correct", render(template, fields, markdown=False), render(template, fields, markdown=True)
    )


__all__ = ["Incorrect", "NotAttempted", "Said", "Status", "Verdict", "correct", "render"]
