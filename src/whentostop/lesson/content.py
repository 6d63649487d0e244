"""The lesson's content, read from `data/lesson/<notebook>.toml`: the exercises' words, blanks,
solutions and cases (here), and the questions' words (`lesson/questions.py` reads them).

One file per notebook holds each exercise's id, the names its cell uses, the blank cell, the two
hints, how its answer is judged and the cases it is tried on; its solution is a Python file in
`data/lesson/solutions/` that ruff and mypy check like any code: a header (the imports and the
notebook's context that make it lint-clean) above `MARKER`, the cell's code below it. Words are
English msgids, shown translated: hints and case titles whole, code line by line (each comment,
each string literal that is prose), so one catalogue entry serves the blank and the solution.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .._data import data_file
from ..i18n import NC_

NOTEBOOKS = ("00", "1-1", "1-2", "1-3", "1-4")
"""The notebooks with exercises, in order; each has `data/lesson/<notebook>.toml`."""
SHARED = "shared"
"""`data/lesson/shared.toml`: the `[said]` table of the checks and helpers of several notebooks."""
MARKER = "# --- the answer cell ---"
"""The line in a solution file below which the cell's code starts."""


@dataclass(frozen=True)
class Case:
    """One input an answer is tried on: what it is (`title`, a msgid) and its settings as data."""

    title: str
    data: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


@dataclass(frozen=True)
class ExerciseText:
    """An exercise as its notebook's data file says it."""

    id: str
    var: str
    answer: str
    blank: str
    hints: tuple[str, ...]
    solution_file: str
    judge: str
    """The named judge the answer goes to (`lesson/judges.py`)."""
    takes: str = ""
    """For a function: what each case hands it ("run", "call", "messages", "loop", "caller")."""
    aspects: tuple[str, ...] = ()
    """For a `Run`: what is compared with the solution's run, in order."""
    cases: tuple[Case, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    """Anything else the file says (bounds, names), for the judge."""

    @property
    def solution(self) -> str:
        """The cell's code of the solution: the part of its file below the marker line."""
        return solution_parts(self.solution_file)[1]


@cache
def solution_parts(name: str) -> tuple[str, str]:
    """(header, cell) of a solution file."""
    source = data_file("lesson", "solutions", name).read_text(encoding="utf-8")
    header, marker, cell = source.partition(MARKER + "\n")
    if not marker:
        raise ValueError(f"data/lesson/solutions/{name} has no line {MARKER!r}")
    return header, cell.strip("\n")


@cache
def notebook_data(notebook: str) -> dict[str, Any]:
    import tomllib

    text = data_file("lesson", f"{notebook}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@cache
def exercise_texts(notebook: str) -> tuple[ExerciseText, ...]:
    """The exercises of one notebook, in order, as its data file says them."""
    return tuple(map(_exercise_text, notebook_data(notebook).get("exercise", [])))


def _exercise_text(raw: dict[str, Any]) -> ExerciseText:
    """One `[[exercise]]` table: its named keys as fields, what else it says as `settings`."""
    entry = dict(raw)
    cases = tuple(Case(str(c.pop("title")), c) for c in map(dict, entry.pop("case", [])))
    named = {key: entry.pop(key) for key in ("id", "var", "answer", "judge")}
    return ExerciseText(
        **named,
        blank=entry.pop("blank").strip("\n"),
        hints=tuple(entry.pop("hints")),
        solution_file=entry.pop("solution"),
        takes=entry.pop("takes", ""),
        aspects=tuple(entry.pop("aspects", ())),
        cases=cases,
        settings=entry,
    )


def said(notebook: str, name: str) -> str:
    """What the lesson's code says at length in a notebook (a check's verdict, a notice), by
    name: an English msgid from the `[said]` table of the notebook's data file (`SHARED`'s for
    what several notebooks say), with the placeholders the code fills in; show it with `_()`."""
    return str(notebook_data(notebook)["said"][name])


@cache
def extra_levels() -> dict[str, dict[str, Any]]:
    """Levels only the checks use (a star somewhere else), by name, from every data file."""
    return {
        name: {"name": name, **spec}
        for notebook in NOTEBOOKS
        for name, spec in notebook_data(notebook).get("level", {}).items()
    }


# -- the words in code: comments and prose literals, translated one by one -----------------------

_PROSE = re.compile(r"[A-Za-zÀ-ÿ]{2,}")
_LITERAL = re.compile(r"(?s)^(?P<prefix>[rRbBuUfF]{0,2})(?P<quote>'''|\"\"\"|'|\")")


def code_words(source: str) -> Iterator[tuple[str, int, int, int, int]]:
    """(text, start row, start col, end row, end col) of each comment and prose string literal
    body in `source` (rows 1-based): the pieces a translation replaces. Raw and byte strings are
    code (a regular expression), never prose."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return
    lines = source.split("\n")
    fstring: list[tuple[int, int]] = []  # Python 3.12+: an f-string arrives in pieces
    for tok in tokens:
        kind = tokenize.tok_name[tok.type]
        if tok.type == tokenize.COMMENT:
            text = tok.string[1:].strip()
            if _PROSE.search(text):
                col = tok.start[1] + tok.string.index(text)
                yield text, tok.start[0], col, tok.end[0], col + len(text)
        elif tok.type == tokenize.STRING:
            yield from _literal(tok.string, tok.start, tok.end)
        elif kind == "FSTRING_START":
            fstring.append(tok.start)
        elif kind == "FSTRING_END" and fstring:
            start = fstring.pop()
            if not fstring and start[0] == tok.end[0]:  # over several lines: as written
                whole = lines[start[0] - 1][start[1] : tok.end[1]]
                yield from _literal(whole, start, tok.end)


def _literal(
    token: str, start: tuple[int, int], end: tuple[int, int]
) -> Iterator[tuple[str, int, int, int, int]]:
    m = _LITERAL.match(token)
    # a literal over several lines stays as written; a raw or byte string is code
    if m is None or start[0] != end[0] or {"r", "b"} & set(m["prefix"].lower()):
        return
    body = token[m.end() : len(token) - len(m["quote"])]  # m.end(): after prefix and quote
    if _PROSE.search(body) and " " in body.strip():  # prose: words, and more than one
        col = start[1] + m.end()
        yield body, start[0], col, end[0], col + len(body)


def translate_code(source: str, translate: Callable[[str], str]) -> str:
    """`source` with each comment and prose literal translated, everything else unchanged."""
    lines = source.split("\n")
    for text, row, col, _end_row, end_col in sorted(
        code_words(source), key=lambda w: (w[1], w[2]), reverse=True
    ):
        new = translate(text)
        if new != text:
            line = lines[row - 1]
            lines[row - 1] = line[:col] + new + line[end_col:]
    return "\n".join(lines)


QUESTION_KINDS = {"prediction": "p", "quiz": "c"}
"""The arrays of multiple-choice questions in a data file (`lesson/questions.py` reads them), each
with its questions' variable in a notebook: p1, p2, ... for predictions, c1 ... c5 for the quiz."""


def option_text(option: str | dict[str, str]) -> str:
    """An option as its msgid: a sentence, or `{ context = "...", text = "..." }` where the same
    words mean different things in different questions ("None.": Python's None, or no runs),
    which the catalogue keeps apart (msgctxt) and `_()` translates through."""
    if isinstance(option, dict):
        return NC_(option["context"], option["text"])
    return option


def question_words(entry: dict[str, Any]) -> Iterator[str]:
    """A question's msgids: its prompt, its options in order, why the answer is right, and the
    feedback for each wrong option in letter order."""
    yield entry["prompt"]
    yield from (option_text(option) for option in entry["options"])
    yield entry["why"]
    feedback = entry.get("feedback", {})
    yield from (feedback[letter] for letter in sorted(feedback))


def msgids() -> Iterator[tuple[str, str]]:
    """(where, msgid) of every word in the data files that the catalogue translates: hints,
    case titles, the comments and prose literals of blanks and solutions, every question's
    words, what the code says at length (`said`, the shared table's first), and the facts
    tables' (each in its table's context)."""
    from .facts import words

    for notebook in (SHARED, *NOTEBOOKS):
        where = f"data/lesson/{notebook}.toml"
        yield from ((where, text) for text in notebook_data(notebook).get("said", {}).values())
        for kind in QUESTION_KINDS:
            for entry in notebook_data(notebook).get(kind, []):
                yield from ((where, text) for text in question_words(entry))
        for exercise in exercise_texts(notebook):
            yield from ((where, text) for text in _exercise_words(exercise))
            for text, *_ in code_words(exercise.solution):
                yield f"data/lesson/solutions/{exercise.solution_file}", text
        for name, table in notebook_data(notebook).get("facts", {}).items():
            yield from ((where, text) for text in words(notebook, name, table))


def _exercise_words(exercise: ExerciseText) -> Iterator[str]:
    """An exercise's msgids in its notebook's data: its hints, the comments and prose literals
    of its blank, its cases' titles and failures, and its verdicts."""
    yield from exercise.hints
    yield from (text for text, *_ in code_words(exercise.blank))
    for case in exercise.cases:
        yield case.title
        if "failure" in case.data:
            yield case.data["failure"]
    for key in ("correct", "escaped"):
        if key in exercise.settings:
            yield exercise.settings[key]
