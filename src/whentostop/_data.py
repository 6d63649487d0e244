"""Where the shipped data lives: inside the wheel (`whentostop/data`), or `data/` in a checkout."""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path


def data_dir() -> Traversable:
    """The folder holding `levels/` and `prices.json`, found through importlib.resources."""
    packaged = files("whentostop") / "data"
    if packaged.is_dir():
        return packaged
    # An editable install or a source checkout: the files sit at the repository's top level.
    return Path(__file__).resolve().parents[2] / "data"


def data_file(*parts: str) -> Traversable:
    path = data_dir()
    for part in parts:
        path = path / part
    return path
