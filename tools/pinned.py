"""How many assertions pin a sentence: the measure behind "wording is pinned only where it is the
point" (DEVELOPERS.md, "What a test says").

    python tools/pinned.py            # per file, then the total
    python tools/pinned.py -v         # every pin, file:line and the sentence
    python tools/pinned.py tests/test_castle.py

A pin is a string literal of 30 or more characters with a space in it (prose, not a name) that
an `assert` compares with `in`, `==` or the like, or hands to `says()` (tests/words.py) as one
of its words; an f-string counts its literal parts, a tuple, list or set literal each member.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LONGEST = 30


def _texts(node: ast.AST) -> Iterator[tuple[int, str]]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.lineno, node.value
    elif isinstance(node, ast.JoinedStr):
        yield node.lineno, "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        for element in node.elts:
            yield from _texts(element)


def _operands(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "says":
        return list(node.args[1:])
    return []


def pins(source: str) -> Iterator[tuple[int, str]]:
    """(line, sentence) of each pin in a test module's source."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            for part in ast.walk(node.test):
                for operand in _operands(part):
                    for line, text in _texts(operand):
                        if len(text) >= LONGEST and " " in text.strip():
                            yield line, text


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    paths = [Path(a) for a in argv if not a.startswith("-")]
    paths = paths or sorted((ROOT / "tests").glob("test_*.py"))
    total = 0
    for path in paths:
        found = list(pins(path.read_text(encoding="utf-8")))
        total += len(found)
        if verbose:
            for line, text in found:
                print(f"{path.name}:{line}: {text[:100]!r}")
        elif found:
            print(f"{len(found):4} {path.name}")
    print(f"{total} pinned sentences in {len(paths)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
