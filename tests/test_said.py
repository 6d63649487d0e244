"""`data/said.toml` holds the loop library's longer words by name (`i18n.say`, `say_n`, `told`): a
name the code says that the file lacks would be a KeyError on an error path, where a learner needs
the message most; an entry nothing says is dead text a translator still works on."""

from __future__ import annotations

import ast
import re
import string
import tomllib
from pathlib import Path

from test_structure import PACKAGE

SAID = tomllib.loads((Path(__file__).parents[1] / "data" / "said.toml").read_text("utf-8"))
TABLES = {"say": "said", "say_n": "said", "told": "to_the_model"}


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (str(p.relative_to(PACKAGE)), ast.parse(p.read_text("utf-8")))
        for p in PACKAGE.rglob("*.py")
    ]


def _calls() -> list[tuple[str, int, str, ast.Call]]:
    """Every call of say/say_n/told whose first argument is a name written out."""
    found = []
    for where, tree in _modules():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id in TABLES and node.args and isinstance(node.args[0], ast.Constant):
                found.append((where, node.lineno, node.func.id, node))
    return found


def _placeholders(text: str) -> set[str]:
    return {
        field.split(".")[0].split("[")[0]
        for _, field, _, _ in string.Formatter().parse(text)
        if field
    }


def test_every_name_said_is_in_the_file_with_the_shape_its_function_reads() -> None:
    calls = _calls()
    assert len(calls) > 50  # the scan finds the library's calls
    wrong = []
    for where, line, function, call in calls:
        name = call.args[0].value  # type: ignore[attr-defined]
        entry = SAID[TABLES[function]].get(name)
        plural = isinstance(entry, list) and len(entry) == 2
        if entry is None or plural != (function == "say_n"):
            wrong.append(f"{where}:{line}: {function}({name!r}) -> {entry!r}")
    assert wrong == []


def test_every_field_a_message_names_is_given_where_it_is_said() -> None:
    missing = []
    for where, line, function, call in _calls():
        given = {k.arg for k in call.keywords}
        if not given or None in given:  # no fields (the caller fills them) or **fields
            continue
        entry = SAID[TABLES[function]][call.args[0].value]  # type: ignore[attr-defined]
        for text in entry if isinstance(entry, list) else [entry]:
            if _placeholders(text) - given:
                missing.append(f"{where}:{line}: {sorted(_placeholders(text) - given)}")
    assert missing == []


def test_every_entry_of_the_file_is_said_somewhere() -> None:
    literals: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for _, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
            elif isinstance(node, ast.JoinedStr):  # f"{kind}_count": any word where a field is
                parts = [
                    re.escape(v.value) if isinstance(v, ast.Constant) else r"\w+"
                    for v in node.values
                ]
                patterns.append(re.compile("".join(parts)))
    unsaid = [
        name
        for table in TABLES.values()
        for name in SAID[table]
        if name not in literals and not any(p.fullmatch(name) for p in patterns)
    ]
    assert unsaid == []
