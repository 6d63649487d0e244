"""No teaching text left in the lesson's Python: its words live in `data/lesson/` (questions,
exercises, what the checks say at length), where a teacher edits them without touching code. A
string literal over 200 characters in `src/whentostop/lesson` is such text, docstrings aside."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import whentostop.lesson
from whentostop.lesson import content

LESSON = Path(whentostop.lesson.__file__).parent
MODULES = sorted(LESSON.rglob("*.py"))
LONGEST = 200


def long_literals(source: str) -> list[tuple[int, int]]:
    """(line, length) of each string literal over `LONGEST` characters that is no docstring (a
    string standing alone as a statement); an f-string counts its literal parts."""
    tree = ast.parse(source)
    docs = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    parts = {
        id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs | parts
        ):
            text = node.value
        else:
            continue
        if len(text) > LONGEST:
            found.append((node.lineno, len(text)))
    return found


def test_the_scan_finds_a_long_literal_and_leaves_docstrings_alone():
    words = "word " * 50
    source = f'"""{words}"""\nX = "{words}"\nY = f"{{X}} {words}"\n'
    assert long_literals(source) == [(2, 250), (3, 251)]


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_no_lesson_module_holds_a_literal_over_200_characters(path):
    assert long_literals(path.read_text(encoding="utf-8")) == [], (
        f"{path.name}: move the text into data/lesson/ (a [said] entry, read with content.said)"
    )


SAYERS = {"wrong": None, "_shared": "shared", "refused": "shared"}
"""The lesson's own helpers around `said`, by name: `wrong("1-4", name, ...)` (an `Incorrect` in
those words), expect's `_shared(name)` (the shared table's) and classroom's `refused(name)` (a
hub address refused, in the shared table's words), with the notebook they imply."""


def said_calls() -> list[tuple[str, str, str]]:
    """(module, notebook, name) of every `said("1-4", "name")` call in the lesson's code, under
    whatever name the module imports it as, and of every call of a helper around it (`SAYERS`)."""
    calls = []
    for path in MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "content"
            for alias in node.names
            if alias.name == "said"
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if not all(isinstance(arg, ast.Constant) for arg in node.args[:2]):
                continue  # the helpers' own calls of `said`, with the names they were given
            if node.func.id in names or SAYERS.get(node.func.id, "") is None:
                notebook, name = (ast.literal_eval(arg) for arg in node.args[:2])
                calls.append((path.name, notebook, name))
            elif node.func.id in SAYERS:
                calls.append((path.name, SAYERS[node.func.id], ast.literal_eval(node.args[0])))
    return calls


def test_every_text_the_code_names_is_in_its_notebooks_data_and_every_one_is_used():
    calls = said_calls()
    assert len(calls) >= 7  # loopcheck's, capstone's, uncapped's
    for module, notebook, name in calls:
        assert content.said(notebook, name), f"{module}: said({notebook!r}, {name!r}) is empty"
    written = {
        (notebook, name)
        for notebook in (content.SHARED, *content.NOTEBOOKS)
        for name in content.notebook_data(notebook).get("said", {})
    }
    assert written == {(notebook, name) for _module, notebook, name in calls}
