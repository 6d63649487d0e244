"""Whether the lesson's data holds together: `python -m whentostop lesson check`.

    python -m whentostop lesson check                     # the lesson's own data and notebooks
    python -m whentostop lesson check --data DIR --notebooks DIR

Reads every `data/lesson/<notebook>.toml` as a teacher may have edited it and says, file and key,
what a notebook would trip on: a question without options, a right answer that is not one of
them, a wrong option without its feedback, an exercise without its blank, hints, solution file
or cases, a judge or aspect the checks do not know, a question or exercise whose tagged cell is
missing from its notebook (or a tagged cell with nothing behind it), and a facts table's row
whose fields, dates, sources, links or translations do not hold (`lesson/facts.py`), or that no
cell shows. Exit status 0 when all
is well, 1 with one line per problem. `make lint` runs it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..i18n import _
from . import facts
from .content import MARKER, NOTEBOOKS, QUESTION_KINDS
from .facts import is_words

QUESTION_KEYS = {"prompt", "options", "answer", "why", "feedback"}
LETTERS = "abcdefgh"
Check = Callable[[dict[str, Any]], Iterator[tuple[str, str]]]
"""What finds the problems of one entry of an array of tables: (key, what) for each."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong: the file, the key in it (`quiz[3].feedback`), and what is wrong."""

    file: str
    key: str
    what: str

    def __str__(self) -> str:
        return f"{self.file}: {self.key}: {self.what}" if self.key else f"{self.file}: {self.what}"


def problems(data: Path | None = None, notebooks: Path | None = None) -> list[Problem]:
    """Every problem in the lesson's data files (`data`: the folder holding `<notebook>.toml`
    and `solutions/`) and their notebooks' tagged cells (`notebooks`: the English edition)."""
    if data is None:
        from .._data import data_file

        data = Path(str(data_file("lesson")))
    if notebooks is None:
        from .folder import shipped_notebooks

        notebooks = Path(str(shipped_notebooks()))
    return [p for notebook in NOTEBOOKS for p in _notebook_problems(notebook, data, notebooks)]


def _notebook_problems(notebook: str, data: Path, notebooks: Path) -> list[Problem]:
    where = f"{data.name}/{notebook}.toml"
    try:
        spec = tomllib.loads((data / f"{notebook}.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return [Problem(where, "", _("cannot be read: {error}").format(error=exc))]
    exercises = _entries(spec, "exercise", lambda entry: _exercise(entry, data))
    found = [Problem(where, key, what) for key, what in exercises]
    for kind in QUESTION_KINDS:
        found += [Problem(where, key, what) for key, what in _entries(spec, kind, _question)]
    said = spec.get("said", {})
    if not isinstance(said, dict) or not all(is_words(v) for v in said.values()):
        found.append(Problem(where, "said", _("must be a table of sentences, by name")))
    in_facts = facts.problems(notebook, spec.get("facts", {}))
    found += [Problem(where, key, what) for key, what in in_facts]
    found += _tag_problems(notebook, spec, where, notebooks)
    return found


def _entries(spec: dict[str, Any], kind: str, check: Check) -> Iterator[tuple[str, str]]:
    """(key, what) for each problem of an array of tables (`[[exercise]]`, `[[quiz]]`): one
    table instead (`_not_a_list`), an entry that is not a table, and what `check` finds in each
    entry (its key after the entry's: `quiz[3]` and `.feedback`)."""
    entries = spec.get(kind, [])
    if not isinstance(entries, list):
        yield kind, _not_a_list(kind)
        return
    for i, entry in enumerate(entries):
        if isinstance(entry, dict):
            yield from ((f"{kind}[{i}]{key}", what) for key, what in check(entry))
        else:
            yield f"{kind}[{i}]", _("must be a table")


def _question(entry: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(key, what) for each problem of one question."""
    yield from ((f".{key}", _("missing")) for key in sorted(QUESTION_KEYS - set(entry)))
    for key in sorted(set(entry) - QUESTION_KEYS):
        known = ", ".join(sorted(QUESTION_KEYS))  # in one order, run after run
        yield f".{key}", _("unknown key (known: {known})").format(known=known)
    for key in ("prompt", "why"):
        if key in entry and not is_words(entry[key]):
            yield f".{key}", _("must be a sentence, not {value!r}").format(value=entry[key])
    yield from _options(entry)


def _options(entry: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(key, what) for each problem of a question's options, answer and feedback."""
    options = entry.get("options")
    if options is None:
        return
    if not isinstance(options, list) or not all(is_words(o) or _in_context(o) for o in options):
        yield ".options", _("must be a list of sentences")
        return
    if not 2 <= len(options) <= len(LETTERS):
        what = _("must offer 2 to {most} options, not {n}")
        yield ".options", what.format(most=len(LETTERS), n=len(options))
        return
    said = [o if isinstance(o, str) else (o["context"], o["text"]) for o in options]
    if len(set(said)) != len(said):
        yield ".options", _("two options say the same thing")
    letters = LETTERS[: len(options)]
    answer = entry.get("answer")
    if answer is not None and (not isinstance(answer, str) or answer not in letters):
        what = _("must be one letter of {letters}, not {value!r}")
        yield ".answer", what.format(letters=", ".join(letters), value=answer)
        return
    yield from _feedback(entry.get("feedback", {}), letters, answer)


def _feedback(feedback: Any, letters: str, answer: Any) -> Iterator[tuple[str, str]]:
    """(key, what) for each wrong option without its feedback, and feedback for no option."""
    if not isinstance(feedback, dict):
        yield ".feedback", _("must be a table: one sentence per wrong option")
        return
    for letter in letters:
        if letter != answer and not is_words(feedback.get(letter)):
            yield f".feedback.{letter}", _("missing: each wrong option says what it misses")
    for letter in sorted(set(feedback) - set(letters) - {answer}):
        yield f".feedback.{letter}", _("there is no option {letter}").format(letter=letter)
    if answer in feedback:
        yield f".feedback.{answer}", _("is the right answer: its words are in `why`")


def _not_a_list(kind: str) -> str:
    """What is wrong with `[quiz]` written for `[[quiz]]`: one table, which the lesson cannot
    read as its list of entries."""
    what = _("must be an array of tables: each one under [[{kind}]], not [{kind}]")
    return what.format(kind=kind)


def _exercise(entry: dict[str, Any], data: Path) -> Iterator[tuple[str, str]]:
    """(key, what) for each problem of one exercise."""
    for name in ("id", "var", "answer", "blank", "solution", "judge"):
        if not is_words(entry.get(name)):
            yield f".{name}", _("missing")
    if is_words(entry.get("blank")) and "____" not in entry["blank"]:
        yield ".blank", _("has no ____ for the learner to fill in")
    hints = entry.get("hints")
    if not isinstance(hints, list) or not hints or not all(is_words(h) for h in hints):
        yield ".hints", _("must be a list of one or more sentences")
    if is_words(entry.get("solution")):
        yield from _solution(data / "solutions" / entry["solution"])
    yield from _judged(entry)


def _judged(entry: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(key, what) for a judge the checks do not know, and for what it needs: a run's aspects,
    a function's cases."""
    from .judges import ASPECTS, JUDGES

    judge = entry.get("judge")
    if is_words(judge) and judge not in JUDGES:
        what = _("no judge named {name!r} (known: {known})")
        yield ".judge", what.format(name=judge, known=", ".join(JUDGES))
    if judge == "run":
        aspects = entry.get("aspects")
        if not isinstance(aspects, list) or not aspects:
            yield ".aspects", _("a run is compared on one aspect or more: none listed")
        else:
            for name in aspects:
                if name not in ASPECTS:
                    what = _("no aspect named {name!r} (known: {known})")
                    yield ".aspects", what.format(name=name, known=", ".join(ASPECTS))
    elif is_words(judge):
        yield from _cases(entry.get("case"))


def _solution(path: Path) -> Iterator[tuple[str, str]]:
    key = ".solution"
    try:
        source = path.read_text(encoding="utf-8")
    except OSError:
        yield key, _("no file {path}").format(path=f"solutions/{path.name}")
        return
    except UnicodeDecodeError as exc:
        yield key, _("cannot be read: {error}").format(error=exc)
        return
    if MARKER + "\n" not in source:
        what = _("{path} has no line {marker!r}")
        yield key, what.format(path=f"solutions/{path.name}", marker=MARKER)


def _cases(cases: Any) -> Iterator[tuple[str, str]]:
    if not isinstance(cases, list) or not cases:
        yield ".case", _("no cases: the answer would be tried on nothing")
        return
    for j, case in enumerate(cases):
        if not isinstance(case, dict) or not is_words(case.get("title")):
            yield f".case[{j}].title", _("missing: a case's title names it in a verdict")


def _tag_problems(
    notebook: str, spec: dict[str, Any], where: str, notebooks: Path
) -> Iterator[Problem]:
    """Each exercise and question has its tagged cell in the notebook, and each tagged cell
    its exercise or question in the data."""
    from .classroom import EDITIONS

    name = EDITIONS["en"][notebook]
    try:
        cells = json.loads((notebooks / name).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError) as exc:
        yield Problem(name, "", _("cannot be read: {error}").format(error=exc))
        return
    tagged = {
        tag
        for cell in cells
        for tag in cell.get("metadata", {}).get("tags", [])
        if tag.startswith((f"exercise-{notebook}-", f"question-{notebook}-"))
    }
    wanted = dict(_data_tags(notebook, spec))
    yield from _facts_shown(notebook, spec, where, name, cells)
    for tag, key in wanted.items():
        if tag not in tagged:
            what = _("no cell tagged {tag!r} in {notebook}")
            yield Problem(where, key, what.format(tag=tag, notebook=name))
    broken = tuple(  # an array written as one table has its problem: its cells are not extra
        _tag_prefix(notebook, kind)
        for kind in ("exercise", *QUESTION_KINDS)
        if not isinstance(spec.get(kind, []), list)
    )
    for tag in sorted(tag for tag in tagged - set(wanted) if not tag.startswith(broken)):
        what = _("a cell carries this tag, and {file} has nothing for it")
        yield Problem(name, tag, what.format(file=where))


def _facts_shown(
    notebook: str, spec: dict[str, Any], where: str, name: str, cells: list[dict[str, Any]]
) -> Iterator[Problem]:
    """Each facts table is shown by a code cell of its notebook (`facts_table("1-1", "clocks")`),
    and each cell that shows one shows a table the data holds."""
    tables = spec.get("facts", {})
    held = {(notebook, table) for table in (tables if isinstance(tables, dict) else {})}
    shown = {
        (m[1], m[2])
        for cell in cells
        if cell.get("cell_type") == "code"
        for m in facts.SHOWN.finditer("".join(cell.get("source", "")))
    }
    for nb, table in sorted(held ^ shown):
        call = f"facts_table({nb!r}, {table!r})"
        if (nb, table) in held:
            what = _("no cell of {notebook} shows it: {call}").format(notebook=name, call=call)
            yield Problem(where, f"facts.{table}", what)
        else:
            what = _("a cell shows this table, and {file} has no [facts.{table}]")
            yield Problem(name, call, what.format(file=where, table=table))


def _data_tags(notebook: str, spec: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(tag, key) of each exercise and question the data holds, as the notebook tags its cell."""
    exercises = spec.get("exercise", [])
    for i, entry in enumerate(exercises if isinstance(exercises, list) else []):
        if isinstance(entry, dict) and is_words(entry.get("id")):
            yield "exercise-" + str(entry["id"]).replace(".", "-"), f"exercise[{i}].id"
    for kind in QUESTION_KINDS:
        entries = spec.get(kind, [])
        for i in range(len(entries) if isinstance(entries, list) else 0):
            yield f"{_tag_prefix(notebook, kind)}{i + 1}", f"{kind}[{i}]"


def _tag_prefix(notebook: str, kind: str) -> str:
    """How a notebook tags the cells of one array of its data: `exercise-1-1-` (then the
    exercise's letter), `question-1-1-p` or `question-1-1-c` (then the question's number)."""
    if kind == "exercise":
        return f"exercise-{notebook}-"
    return f"question-{notebook}-{QUESTION_KINDS[kind]}"


def _in_context(value: Any) -> bool:
    """An option written `{ context = "...", text = "..." }`: both sentences, nothing else."""
    pair = isinstance(value, dict) and set(value) == {"context", "text"}
    return pair and all(map(is_words, value.values()))


def main(argv: Sequence[str] = ()) -> int:
    """The command: print each problem on its own line (exit 1), or that all is well (0)."""
    parser = argparse.ArgumentParser(
        prog="python -m whentostop lesson check",
        description=_("Check the lesson's data files: questions, exercises, tags."),
    )
    parser.add_argument("--data", type=Path, default=None, help="default: data/lesson")
    parser.add_argument("--notebooks", type=Path, default=None, help="default: the lesson's")
    args = parser.parse_args(list(argv))
    found = problems(args.data, args.notebooks)
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        return 1
    print(_("the lesson's data holds together"))
    return 0
