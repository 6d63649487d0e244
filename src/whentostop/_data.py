"""Where the shipped data lives: inside the wheel (`whentostop/data`), or `data/` in a checkout."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


def data_file(*parts: str) -> Traversable:
    """A file (or folder) of the shipped data by its path in the data folder (`levels/`,
    `prices.json`, ...), found through importlib.resources."""
    from importlib.resources import files  # here, not at import: ~15 ms of `import whentostop`
    from pathlib import Path

    packaged = files("whentostop") / "data"
    if packaged.is_dir():
        return packaged.joinpath(*parts)
    # An editable install or a source checkout: the files sit at the repository's top level.
    return (Path(__file__).resolve().parents[2] / "data").joinpath(*parts)
