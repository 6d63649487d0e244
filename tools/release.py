"""What a release needs to agree on: the tag, the package's version, the changelog and the
version the notebooks install on Colab and Kaggle.

    python tools/release.py v0.2.0    # release.yml, before building: exit 1 and say what differs
    python tools/release.py pin       # after changing __version__: the notebooks install it

The version is written once, as `__version__` in src/whentostop/__init__.py (pyproject.toml reads
it from there). Each notebook's first code cell installs that version where the package is
missing (`INSTALL`); `pin` rewrites that line in every notebook, both editions. Standard library
only: release.yml runs this before anything is installed.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INIT = ROOT / "src" / "whentostop" / "__init__.py"
CHANGELOG = ROOT / "CHANGELOG.md"
NOTEBOOKS = ROOT / "notebooks"

INSTALL = """\
# Colab, Kaggle: install the lesson's package if it is missing (elsewhere nothing happens)
import importlib.util
if importlib.util.find_spec("whentostop") is None:
    %pip install -q "when-to-stop=={version}"
from whentostop.lesson.colab import widgets_on_colab
widgets_on_colab()   # on Colab only: it turns on the widget manager the explorers need
"""
"""The first lines of each notebook's first code cell (the English comments; the Portuguese
edition's are translated), before `set_language`."""
PIN = re.compile(r'(%pip install -q "when-to-stop==)([^"]*)(")')
TAG = re.compile(r"^v(\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?(?:\.post\d+)?)$")


def version() -> str:
    """`__version__` as written in the package (read, not imported: nothing is installed)."""
    found = re.search(r'^__version__ = "([^"]+)"$', INIT.read_text(encoding="utf-8"), re.M)
    if not found:
        raise SystemExit(f"{INIT.relative_to(ROOT)}: no __version__ line")
    return found.group(1)


def notebooks() -> list[Path]:
    """Every notebook of the lesson, both editions."""
    return sorted(p for p in NOTEBOOKS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def pins(path: Path) -> list[str]:
    """The versions a notebook's install lines name (one line, in its first code cell)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [pin for cell in cells for pin in pins_in("".join(cell["source"]))]


def pins_in(text: str) -> list[str]:
    """The versions the install lines in `text` name."""
    return [m.group(2) for m in PIN.finditer(text)]


def problems(tag: str) -> list[str]:
    """What stops a release of `tag`: each a sentence that says what to change."""
    found = []
    wanted = version()
    parsed = TAG.match(tag)
    if not parsed:
        found.append(f"the tag {tag!r} is not v followed by a version such as v{wanted}")
    elif parsed.group(1) != wanted:
        found.append(
            f"the tag {tag} is not the package's version {wanted} "
            f"(__version__ in {INIT.relative_to(ROOT)}): tag v{wanted}, or change __version__"
        )
    changelog = CHANGELOG.read_text(encoding="utf-8") if CHANGELOG.exists() else ""
    if not re.search(rf"^## \[{re.escape(wanted)}\]", changelog, re.M):
        found.append(f"CHANGELOG.md has no '## [{wanted}]' section")
    found.extend(
        f"{path.relative_to(ROOT)} installs {pins(path) or 'nothing'}, not {wanted}: "
        "run `python tools/release.py pin`"
        for path in notebooks()
        if pins(path) != [wanted]
    )
    return found


def pin() -> list[Path]:
    """Rewrite every notebook's install line to the package's version; the notebooks changed.
    Written as Jupyter and tools/lesson_i18n.py write them (one-space indent, UTF-8)."""
    changed = []
    wanted = version()
    for path in notebooks():
        nb = json.loads(path.read_text(encoding="utf-8"))
        before = json.dumps(nb)
        for cell in nb["cells"]:
            cell["source"] = [
                PIN.sub(lambda m: m.group(1) + wanted + m.group(3), line) for line in cell["source"]
            ]
        if json.dumps(nb) != before:
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            changed.append(path)
    return changed


def _pinned(text: str, wanted: str) -> str:
    return PIN.sub(lambda m: m.group(1) + wanted + m.group(3), text)


def main(argv: list[str]) -> int:
    if argv[1:] == ["pin"]:
        for path in pin():
            print(f"{path.relative_to(ROOT)}: installs {version()}")
        return 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    found = problems(argv[1])
    for problem in found:
        print(f"release: {problem}", file=sys.stderr)
    if not found:
        print(f"release: {argv[1]} is the package's version, in the changelog and the notebooks")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
