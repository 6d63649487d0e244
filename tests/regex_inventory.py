"""Every regular expression in `src/whentostop`, with where it is: what `tests/test_linear_regex.py`
holds to the linear-time rule (`linear_regex.py`).

Run as a script in a fresh interpreter, it wraps `re`'s functions before the package is imported,
imports every module and runs the builders below, and prints (as JSON) each pattern `re` was
given from a file of the package: the compiled-at-import ones, and those built from parts at run
time. `call_sites()` reads the source for every call of `re`'s functions, so that a call nobody
ran (and no builder covers) cannot slip past the inventory.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import sys
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "whentostop"
FUNCTIONS = (
    "compile",
    "search",
    "match",
    "fullmatch",
    "sub",
    "subn",
    "split",
    "findall",
    "finditer",
)
FLAGS_AT = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2}
FLAGS_AT |= {"split": 3, "sub": 4, "subn": 4}
"""Where each function takes its `flags` positionally."""


@dataclass(frozen=True)
class CallSite:
    """One call of a `re` function in the package's source."""

    file: str
    """Relative to src/whentostop, e.g. "level.py"."""
    owner: str
    """The module-level name it is assigned to, or the function it is in ("<module>" else)."""
    first_line: int
    last_line: int
    literal: tuple[str, int] | None
    """(pattern, flags) when the source spells the pattern out; None when it is built."""


def call_sites() -> list[CallSite]:
    """Every call of `re.compile`, `re.search`, ... (however `re` was imported) in the package."""
    sites = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases, direct = _re_names(tree)
        for owner, node in _calls(tree):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in aliases
                else direct.get(func.id)
                if isinstance(func, ast.Name)
                else None
            )
            if name not in FUNCTIONS or not node.args:
                continue
            sites.append(
                CallSite(
                    str(path.relative_to(SRC)),
                    owner,
                    node.lineno,
                    node.end_lineno or node.lineno,
                    _literal(node, name, aliases),
                )
            )
    return sites


def _re_names(tree: ast.AST) -> tuple[set[str], dict[str, str]]:
    """The names `re` is imported as, and `re` functions imported by name (`from re import sub`)."""
    aliases, direct = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name == "re"}
        elif isinstance(node, ast.ImportFrom) and node.module == "re":
            direct |= {a.asname or a.name: a.name for a in node.names}
    return aliases, direct


def _calls(tree: ast.Module) -> list[tuple[str, ast.Call]]:
    """Each call with its owner: the module-level assignment's target, or the enclosing def."""
    found = []

    def visit(node: ast.AST, owner: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = owner
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = child.name if owner == "<module>" else f"{owner}.{child.name}"
            elif owner == "<module>" and isinstance(child, (ast.Assign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                inner = ",".join(ast.unparse(t) for t in targets)
            if isinstance(child, ast.Call):
                found.append((inner, child))
            visit(child, inner)

    visit(tree, "<module>")
    return found


def _literal(node: ast.Call, name: str, aliases: set[str]) -> tuple[str, int] | None:
    """The pattern and flags of a call that spells them out (string constants, `re.X` flags)."""
    pattern = node.args[0]
    if not (isinstance(pattern, ast.Constant) and isinstance(pattern.value, str)):
        return None
    flags_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
    if flags_node is None and len(node.args) > FLAGS_AT[name]:
        flags_node = node.args[FLAGS_AT[name]]
    flags = 0
    if flags_node is not None:
        try:
            flags = int(eval(ast.unparse(flags_node), dict.fromkeys(aliases | {"re"}, re)))
        except Exception:
            return None
    return pattern.value, flags


# -- run as a script: capture every pattern `re` is given from the package ---------------------

BUILDERS = {
    (
        "_secrets.py",
        "redactor",
    ): "secrets in any spelling: the literal and the spelled-out patterns",
    ("_secrets.py", "redactor.spelled"): "the spelled-out pattern, compiled when first needed",
    ("level.py", "_answer_words"): "a level's answer words, read from data/levels/answers.toml",
}
"""Calls whose pattern is built at run time, by (file, owner): `_build()` makes them run."""


def _build() -> None:
    """Run the code that builds patterns from parts, on inputs that reach every part."""
    from whentostop import _secrets, level

    level._answer_words()

    for secret in ("sk-Test_1234567890/abc+def", 'pa/ss"wo\\rd', "k"):
        hide = _secrets.redactor((secret,))
        for text in ("plain", "a\\u0073k %2F &#115; &amp;", "x"):
            hide(text)


def _capture() -> list[dict[str, object]]:
    """Import every module with `re` wrapped; each pattern given to it from the package, kept."""
    seen: list[dict[str, object]] = []

    def wrap(name: str):
        original = getattr(re, name)

        def wrapped(pattern, *args, **kwargs):
            frame = sys._getframe(1)
            file = Path(frame.f_code.co_filename).resolve()
            if SRC in file.parents:
                text = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
                at = FLAGS_AT[name] - 1
                flags = kwargs.get("flags", args[at] if len(args) > at else 0)
                if isinstance(pattern, re.Pattern):
                    flags = pattern.flags
                if isinstance(text, str):
                    seen.append(
                        {
                            "file": str(file.relative_to(SRC)),
                            "line": frame.f_lineno,
                            "pattern": text,
                            "flags": int(flags),
                        }
                    )
            return original(pattern, *args, **kwargs)

        return wrapped

    for name in FUNCTIONS:
        setattr(re, name, wrap(name))
    import whentostop

    for module in pkgutil.walk_packages(whentostop.__path__, "whentostop."):
        importlib.import_module(module.name)
    _build()
    return seen


if __name__ == "__main__":
    json.dump(_capture(), sys.stdout)
