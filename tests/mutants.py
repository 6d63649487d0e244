"""Learner answers, labelled by a teacher, run through the checks as a learner's notebook would
run them: helpers for `test_mutations.py` (and for trying one answer by hand).

    python tests/mutants.py 1-4.b            # every answer of one exercise: verdict, seconds
    python tests/mutants.py 1-4.b 1-4.b-07   # one answer, its whole message

The corpus is `tests/mutations/<exercise>.json`: answers written by an examiner who never saw
the checks (`kind`, `lang`, `code`, `teacher_verdict`, `cause`, and `current`: what the checks said
before they were rebuilt), and answers marked `"author": "checks"`, added where the examiner's
were short. `says` (and `says_pt` for the Portuguese edition) are the words a message must hold
to name the real cause: a few words, not a pinned sentence.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from functools import cache
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parent / "mutations"
NOTEBOOKS = {
    "en": {
        "00": "00_start_here",
        "1-1": "1-1_the_clock",
        "1-2": "1-2_the_flag",
        "1-3": "1-3_the_warp_pipe",
        "1-4": "1-4_the_castle",
    },
    "pt": {
        "00": "pt/00_comece_aqui",
        "1-1": "pt/1-1_o_relogio",
        "1-2": "pt/1-2_a_bandeira",
        "1-3": "pt/1-3_o_cano_de_atalho",
        "1-4": "pt/1-4_o_castelo",
    },
}
DISPLAY_ONLY = ("explorer(", "race(", "plots.", "side_by_side(")
"""Cells that only draw (widgets, figures, tables): no answer needs what they show."""


def corpus() -> list[dict[str, Any]]:
    """Every labelled answer, of every exercise."""
    found: list[dict[str, Any]] = []
    for path in sorted(CORPUS.glob("*.json")):
        found += json.loads(path.read_text(encoding="utf-8"))
    return found


def languages(entry: dict[str, Any]) -> list[str]:
    """The editions an answer is run in: its own, or both when it does not depend on one."""
    lang = entry.get("run_in") or entry["lang"]
    if isinstance(lang, list):
        return lang
    return ["en", "pt"] if lang == "any" else [lang]


def _notebook(notebook: str, lang: str) -> nbformat.NotebookNode:
    from conftest import committed_text

    path = ROOT / "notebooks" / f"{NOTEBOOKS[lang][notebook]}.ipynb"
    return nbformat.reads(committed_text(path), as_version=4)


@cache
def _earlier(exercise: str, lang: str) -> tuple[str, ...]:
    """The code a learner ran before the exercise's cell: the notebook's code cells from the top,
    each earlier exercise solved (as a learner who reached this one has), the drawing cells left
    out."""
    from whentostop.i18n import using
    from whentostop.lesson.checks import by_tag

    notebook, _, _letter = exercise.rpartition(".")
    tag = "exercise-" + exercise.replace(".", "-")
    sources: list[str] = []
    for cell in _notebook(notebook, lang).cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if tag in tags:
            return tuple(sources)
        if cell.cell_type != "code":
            continue
        source = cell.source
        earlier = next((t for t in tags if t.startswith("exercise-")), None)
        if earlier:
            with using(lang):
                source = by_tag(earlier).cell(solved=True)
        if any(line.lstrip().startswith(DISPLAY_ONLY) for line in source.splitlines()):
            continue
        sources.append(_without_magics(source))
    raise KeyError(tag)


def _without_magics(source: str) -> str:
    """The cell as plain Python: the install cell's `%pip` line (under its `if`) becomes `pass`,
    as `tools/lesson_i18n.without_magics` does; the package is installed here already."""
    return "\n".join(
        ln[: len(ln) - len(ln.lstrip())] + "pass" if ln.lstrip().startswith(("%", "!")) else ln
        for ln in source.split("\n")
    )


def namespace(exercise: str, lang: str) -> dict[str, Any]:
    """A fresh namespace in which the notebook's earlier cells have run (made once per edition,
    then copied), the language of the edition in effect."""
    return dict(_namespace(exercise, lang))


@cache
def _namespace(exercise: str, lang: str) -> dict[str, Any]:
    from whentostop.i18n import using

    os.environ.setdefault("MPLBACKEND", "agg")
    names: dict[str, Any] = {"__name__": "__main__"}
    # the first cell chooses the edition's language: `using` puts the one before back after
    with using(lang), contextlib.redirect_stdout(io.StringIO()):
        for source in _earlier(exercise, lang):
            exec(compile(source, "<notebook cell>", "exec"), names)
    return names


def verdict(entry: dict[str, Any], lang: str) -> tuple[Any, float]:
    """What the exercise's check says of this answer in this edition, and how long it took."""
    from whentostop.i18n import using
    from whentostop.lesson.checks import by_tag

    exercise = by_tag("exercise-" + entry["exercise"].replace(".", "-"))
    with using(lang):
        names = namespace(entry["exercise"], lang)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(entry["code"], "<answer cell>", "exec"), names)
        except Exception as exc:  # the answer's own line raised: the learner sees the traceback
            return exc, 0.0
        started = time.monotonic()
        found = exercise.result(names[exercise.answer])
        return found, time.monotonic() - started


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    wanted = argv[1] if len(argv) > 1 else None
    one = argv[2] if len(argv) > 2 else None
    for entry in corpus():
        if (wanted and entry["exercise"] != wanted) or (one and entry["id"] != one):
            continue
        for lang in languages(entry):
            found, seconds = verdict(entry, lang)
            if isinstance(found, Exception):
                print(f"-- {entry['id']} [{lang}] the answer's own code raised {found!r}")
                continue
            agree = "ok " if found.status == entry["teacher_verdict"] else "XX "
            text = found.message if one else found.message[:150].replace("\n", " ")
            print(f"{agree}{entry['id']} [{lang}] {found.status} {seconds:.1f}s: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
