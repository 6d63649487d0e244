"""The lesson out of the package and into a folder a learner works in: what
`python -m whentostop lesson`, `lab` and `dashboard` do before they start anything.

    copy_lesson(Path("when-to-stop-lesson"), lang="pt")

The wheel carries both editions' notebooks (`whentostop/notebooks`, the Portuguese ones in `pt/`);
an edition's notebooks are copied flat into the folder (they link to each other by file name). A
copy the learner has edited is never overwritten: the folder keeps a small record of what was
copied (`RECORD`), so a copy that is still exactly what an earlier version of the lesson put there
is refreshed, and any other copy that differs from the lesson's is kept and reported.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _, normalize
from .classroom import EDITIONS

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

DEFAULT_FOLDER = "when-to-stop-lesson"
"""Where `python -m whentostop lesson` puts the notebooks when no folder is given."""
RECORD = ".when-to-stop-lesson.json"
"""In the folder: each notebook's SHA-256 as it was last copied (nothing else)."""


@dataclass
class Copied:
    """What `copy_lesson` did, file by file (names of the edition's notebooks)."""

    folder: Path
    lang: str
    new: list[str] = field(default_factory=list)
    """Not there before: copied."""
    refreshed: list[str] = field(default_factory=list)
    """Copied by an earlier version of the lesson and not edited since: replaced."""
    same: list[str] = field(default_factory=list)
    """Already the lesson's, byte for byte."""
    kept: list[str] = field(default_factory=list)
    """Differs from the lesson's and was not copied as it is: the learner's work, left alone."""

    @property
    def first(self) -> str:
        """The notebook to open first (00)."""
        return EDITIONS[self.lang]["00"]

    @property
    def explorer(self) -> str:
        """The projector's dashboard notebook."""
        return EDITIONS[self.lang]["explorer"]


def shipped_notebooks() -> Traversable:
    """The folder of notebooks inside the installed package, or `notebooks/` in a checkout (an
    editable install), found through importlib.resources as the level data is."""
    from importlib.resources import files

    packaged = files("whentostop") / "notebooks"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "notebooks"


def edition_sources(lang: str = "en") -> dict[str, bytes]:
    """An edition's notebooks as shipped: file name -> content."""
    code = normalize(lang)
    root = shipped_notebooks()
    if code != "en":
        root = root / code
    return {name: (root / name).read_bytes() for name in EDITIONS[code].values()}


def copy_lesson(folder: Path, lang: str = "en") -> Copied:
    """Put an edition's notebooks into `folder` (created if missing) without overwriting a copy
    the learner edited. Raises `NotADirectoryError` if `folder` is a file, `OSError` when it
    cannot be written; a notebook already copied stays as it was."""
    code = normalize(lang)
    if folder.exists() and not folder.is_dir():
        what = _("{folder} is a file, not a folder: choose another place for the lesson")
        raise NotADirectoryError(what.format(folder=folder))
    folder.mkdir(parents=True, exist_ok=True)
    record = _read_record(folder / RECORD)
    done = Copied(folder=folder, lang=code)
    for name, content in edition_sources(code).items():
        target = folder / name
        wanted = _digest(content)
        have = _digest(target.read_bytes()) if target.exists() else None
        if have == wanted:
            done.same.append(name)
        elif have is None or record.get(name) == have:  # new, or as an earlier lesson left it
            _write(target, content)
            (done.new if have is None else done.refreshed).append(name)
        else:
            done.kept.append(name)
            continue  # its record stays: it still says what was copied, not what is there
        record[name] = wanted
    _write(folder / RECORD, (json.dumps(record, indent=1, sort_keys=True) + "\n").encode())
    return done


def _digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def _read_record(path: Path) -> dict[str, str]:
    """The record of what was copied; an unreadable or foreign one counts as none (every copy
    that differs is then kept: the safe side)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    items = found.items() if isinstance(found, dict) else ()
    return {k: v for k, v in items if isinstance(k, str) and isinstance(v, str)}


def _write(path: Path, content: bytes) -> None:
    """Write through a temporary file beside `path`, then replace: an interrupted copy never
    leaves half a notebook."""
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(content)
    partial.replace(path)
