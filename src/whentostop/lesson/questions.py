"""The lesson's multiple-choice questions: the predictions made before a key run, and the five
questions at the end of each level, read from `data/lesson/<notebook>.toml` (`[[prediction]]` and
`[[quiz]]`); `whentostop.lesson.checks` asks and checks them.

Each question has its options in order (a, b, c, ...), the letter of the right one, a sentence
that says why it is right (`why`), and for every wrong option its own feedback naming the
misconception (as Carpentries' multiple-choice challenges do). Every word is an English msgid
(`make i18n` extracts them: `content.msgids`), shown in the language in effect. Where an answer
describes what a run does, it is what the mock does. `python -m whentostop lesson check` says
whether the files hold together (`lesson/validate.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .content import NOTEBOOKS, QUESTION_KINDS, notebook_data, option_text


@dataclass(frozen=True)
class Text:
    """One question's words (msgids): the question, its options, the answer and the feedback."""

    prompt: str
    options: tuple[str, ...]
    answer: str
    why: str
    feedback: dict[str, str]

    @classmethod
    def of(cls, entry: dict[str, Any]) -> Text:
        return cls(
            prompt=entry["prompt"],
            options=tuple(option_text(o) for o in entry["options"]),
            answer=entry["answer"],
            why=entry["why"],
            feedback=dict(entry.get("feedback", {})),
        )


def question_texts(notebook: str, kind: str) -> tuple[Text, ...]:
    """One notebook's predictions (`kind="prediction"`) or end-of-level questions ("quiz")."""
    return tuple(Text.of(entry) for entry in notebook_data(notebook).get(kind, []))


BANK: dict[str, dict[str, tuple[Text, ...]]] = {
    notebook: {kind: question_texts(notebook, kind) for kind in QUESTION_KINDS}
    for notebook in NOTEBOOKS
}
"""Per notebook: its predictions (before key runs) and its five end-of-level questions."""
