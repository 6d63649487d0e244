"""Running an exercise's answer cell the way a notebook would: after the code of the notebook's
earlier cells it relies on, read from the notebook itself (never a second copy of its cells).

    defined(code, "my_loop", context=scratch("1-4") + solution_of("1-4.a"))
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from conftest import NOTEBOOKS, committed_text

from whentostop.lesson.checks import by_tag

PRELUDE = (
    "from whentostop import *\nfrom whentostop.lesson import GIVE_UP, PROMPT\n"
    "from whentostop.lesson.checks import ____\n"
)
"""What every notebook's first cell imports, which the answers rely on."""


@cache
def scratch(notebook: str = "1-4_the_castle") -> str:
    """The notebook's from-scratch cells (tagged `scratch-1-4-*`) that the exercises build on,
    joined, as the notebook holds them."""
    cells = json.loads(committed_text(NOTEBOOKS / f"{notebook}.ipynb"))["cells"]
    return "\n\n".join(
        "".join(cell["source"])
        for cell in cells
        if any(t.startswith("scratch-") for t in cell.get("metadata", {}).get("tags", []))
    )


def solution_of(exercise: str) -> str:
    """An exercise's solution cell's code (in the language in effect)."""
    return by_tag("exercise-" + exercise.replace(".", "-")).code(solved=True)


def context_of(exercise: str) -> str:
    """The code a learner has run before this exercise's cell that its answer uses."""
    if exercise == "1-4.b":
        return scratch() + "\n\n" + solution_of("1-4.a")
    return ""


def defined(source: str, name: str, context: str = "") -> Any:
    """Run an answer cell's code (without its check line) after `context`; what it defined."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(PRELUDE + context + "\n" + source, namespace)
    return namespace[name]


def answer(exercise: str, code: str | None = None) -> Any:
    """An answer to an exercise: `code` (the solution's by default), run in its context."""
    found = by_tag("exercise-" + exercise.replace(".", "-"))
    return defined(
        found.code(solved=True) if code is None else code, found.answer, context_of(exercise)
    )


def near_miss(exercise: str, old: str, new: str, context: str | None = None) -> Any:
    """The exercise's own solution with one thing changed: a learner's near miss."""
    found = by_tag("exercise-" + exercise.replace(".", "-"))
    solved = found.code(solved=True)
    assert old in solved, old
    return defined(
        solved.replace(old, new), found.answer, context_of(exercise) if context is None else context
    )
