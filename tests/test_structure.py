"""The shape a reader relies on: the rooms (the loop library at the top, `mock/`, `lesson/`,
`views/`) and the one direction of their imports, the loop a learner opens on one screen, a
client that knows nothing of the mock, and nothing reaching into httpx's or httpcore's private
parts."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from whentostop import loop

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "whentostop"


def imports_of(path: Path) -> set[str]:
    """The package modules `path` imports (relative imports resolved), e.g. {"errors", "mock"}."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = path.relative_to(PACKAGE).with_suffix("").parts[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(here[: len(here) - node.level + 1])
            target = [*base, *(node.module.split(".") if node.module else [])]
            if node.module is None:
                found.update(".".join([*target, alias.name]) for alias in node.names)
            else:
                found.add(".".join(target))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("whentostop."):
            found.add(node.module.removeprefix("whentostop."))
    return found


def graph() -> dict[str, set[str]]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = imports_of(path)
    return modules


def reachable(start: str, edges: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            top = nxt if nxt in edges else nxt.rsplit(".", 1)[0]
            if top not in seen:
                seen.add(top)
                todo.append(top)
    return seen


@pytest.mark.parametrize("module", ["client", "transport", "loop", "outcome", "tools", "errors"])
def test_the_core_never_imports_the_mock(module: str) -> None:
    reached = reachable(module, graph())
    assert not {m for m in reached if m == "mock" or m.startswith("mock.") or m == "models"}, (
        reached
    )


def room(module: str) -> str:
    """The room a module lives in: "lesson", "views", "mock", or "library" (the top)."""
    first = module.split(".")[0]
    return first if first in ("lesson", "views", "mock") else "library"


ALLOWED = {
    "library": {"library", "mock"},
    "mock": {"library", "mock"},
    "lesson": {"library", "mock", "lesson"},
    "views": {"library", "mock", "lesson", "views"},
}
"""Which rooms each room may import: data flows one way, from the loop to what shows it."""


def test_the_library_never_imports_the_lesson_or_the_views() -> None:
    """The loop library and the mock stand alone; the lesson builds on them, the views on both.
    The command line (`__main__`) is an application of all three, so it may use any room."""
    wrong = {
        (name, dep)
        for name, deps in graph().items()
        if name != "__main__"
        for dep in deps
        if room(dep) not in ALLOWED[room(name)]
    }
    assert not wrong, sorted(wrong)


def test_every_module_sits_in_a_room_that_the_layout_names() -> None:
    rooms = {path.parent.name for path in PACKAGE.rglob("*.py")} - {"whentostop", "locale"}
    assert rooms == {"lesson", "views", "mock"}, rooms


def test_only_models_and_the_notebook_helpers_reach_into_the_mock() -> None:
    """`models` chooses the mock; the exercises' judges and the explorer also say what the mock
    read of a learner's prompt (`mock.intent`), the loop checker holds a learner's loop to the
    mock's protocol rules (`mock.protocol`); the command line serves it. Nothing else knows it."""
    knowers = {
        name
        for name, deps in graph().items()
        if not name.startswith("mock") and any(d == "mock" or d.startswith("mock.") for d in deps)
    }
    assert knowers <= {
        "models",
        "lesson.judges",
        "views.widgets",
        "__main__",
        "lesson.castle",
        "lesson.loopcheck",
    }, knowers


def test_the_paths_used_before_the_rooms_still_import_the_same_modules() -> None:
    import importlib

    import whentostop

    for old, new in whentostop.MOVED.items():
        assert importlib.import_module(f"whentostop.{old}") is importlib.import_module(
            f"whentostop.{new}"
        )
        assert getattr(whentostop, old) is importlib.import_module(f"whentostop.{new}")


def test_no_private_name_of_httpx_or_httpcore_is_used() -> None:
    private = re.compile(r"\b(?:httpx|httpcore)(?:\.\w+)*\._\w+|\._pool\b|\._network_backend\b")
    for path in PACKAGE.rglob("*.py"):
        hits = private.findall(path.read_text(encoding="utf-8"))
        assert not hits, f"{path.name}: {hits}"


def test_the_loop_a_learner_opens_fits_on_one_screen() -> None:
    source = inspect.getsource(loop.run_agent)
    body = source[source.index('"""', source.index(") -> Run:")) :]
    body = body[body.index('"""', 3) + 3 :]
    lines = [line for line in body.splitlines() if line.strip()]
    assert len(lines) <= 40, f"run_agent's body is {len(lines)} lines"
    for exit_comment in (
        "# Exit: the flag",
        "# Exit: the warp pipe",
        "# Exit: the clock",
        "# Exit: wall-clock",
        "# Exit: the budget",
    ):
        assert exit_comment in source
