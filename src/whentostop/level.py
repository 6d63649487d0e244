"""The mock level: areas of numbered `?` blocks, what each hides, and the map's markers.

A level file (JSON, see `data/levels/`) looks like::

    {"name": "1-2", "title": "...", "story": "...",
     "areas": {"overworld": {"1": "coin", "2": "nothing"}, "underground": {"3": "star"}}}

Block numbers are unique across the level (so `mark_star` needs only the number); what a block
hides is one of ITEMS. At most one block hides the star.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from ._data import data_file
from .tools import Tool, ToolError, tool

ITEMS = ("coin", "mushroom", "flower", "1-up", "nothing", "star")
Item = Literal["coin", "mushroom", "flower", "1-up", "nothing", "star"]


class LevelSpec(BaseModel):
    """The documented level file format, validated on load."""

    model_config = ConfigDict(defer_build=True)  # built on first load, not at import

    name: str = Field(description="Short name, such as 1-1")
    title: str = Field("", description="One line for headings")
    story: str = Field("", description="A sentence or two that sets the scene")
    areas: dict[str, dict[PositiveInt, Item]] = Field(
        description="Area name -> {block number: what it hides}, in search order"
    )

    @model_validator(mode="after")
    def _check(self) -> LevelSpec:
        if not self.areas or any(not blocks for blocks in self.areas.values()):
            raise ValueError("a level needs at least one area, and every area at least one block")
        numbers = [n for blocks in self.areas.values() for n in blocks]
        if len(numbers) != len(set(numbers)):
            raise ValueError("block numbers must be unique across the whole level")
        stars = [n for blocks in self.areas.values() for n, item in blocks.items() if item == "star"]
        if len(stars) > 1:
            raise ValueError(f"a level hides at most one star; found it in blocks {stars}")
        return self


@dataclass(frozen=True)
class Marker:
    """A marker `mark_star` put on the map, and whether the star is really there."""

    item: str
    block: int
    area: str
    correct: bool


class MarkStarInput(BaseModel):
    model_config = ConfigDict(defer_build=True)

    item: Literal["star"] = Field(description='What you found: always "star"')
    block: PositiveInt = Field(description="The number of the block that hides the star")


@dataclass
class Level:
    """A level to play: its blocks, the star (if any), and the markers placed on its map."""

    spec: LevelSpec
    markers: list[Marker] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def areas(self) -> dict[str, dict[int, str]]:
        return {area: dict(blocks) for area, blocks in self.spec.areas.items()}

    @property
    def star(self) -> tuple[str, int] | None:
        """(area, block) of the star, or None on a level that hides none (1-1)."""
        for area, blocks in self.spec.areas.items():
            for number, item in blocks.items():
                if item == "star":
                    return area, number
        return None

    @property
    def star_found(self) -> bool:
        """Whether the map may show the star: its area was searched, or it was marked."""
        star = self.star
        return star is not None and (
            star[0].lower() in {a.lower() for a in self.searches}
            or any(m.correct for m in self.markers)
        )

    def shown(self) -> dict[str, dict[int, str | None]]:
        """What the map shows of each block: what it hides once its area was searched (or the
        star, once found), None while it is still a `?`."""
        searched = {a.lower() for a in self.searches}
        star, found = self.star, self.star_found
        return {
            area: {
                number: item if area.lower() in searched or (found and (area, number) == star)
                else None
                for number, item in blocks.items()
            }
            for area, blocks in self.spec.areas.items()
        }

    def map_title(self) -> str:
        """The map's heading: the level, and the news of the run so far."""
        if any(m.correct for m in self.markers):
            news = "the star is marked"
        elif self.markers:
            news = "a marker is on the wrong block"
        elif self.star_found:
            news = "the star was found"
        elif self.searches:
            n = len(self.searches)
            news = f"{n} search{'es' if n != 1 else ''}, no star"
        else:
            news = "nothing searched yet"
        return f"{self.title or self.name} — {news}"

    def area_of(self, block: int) -> str | None:
        return next((a for a, blocks in self.spec.areas.items() if block in blocks), None)

    def areas_line(self) -> str:
        return f"Areas: {', '.join(self.spec.areas)}."

    def search_blocks(self, area: str) -> str:
        """Search the ? blocks in one area of the level. Returns what each one hides."""
        key = area.strip().lower()
        found = next((a for a in self.spec.areas if a.lower() == key), None)
        if found is None:
            raise ToolError(f"there is no area called {area!r}. {self.areas_line()}")
        self.searches.append(found)
        return "\n".join(f"Block {n}: {item}" for n, item in self.spec.areas[found].items())

    def mark_star(self, item: Literal["star"], block: PositiveInt) -> str:
        """Put a marker on the level map where the star is. Call it once, at the end."""
        area = self.area_of(block)
        if area is None:
            numbers = sorted(n for blocks in self.spec.areas.values() for n in blocks)
            raise ToolError(
                f"there is no block {block} on this level; blocks are numbered "
                f"{numbers[0]} to {numbers[-1]}"
            )
        self.markers.append(Marker(item, block, area, self.spec.areas[area][block] == item))
        return f"Marked block {block} ({area}) on the level map."

    def tools(self, *names: str) -> list[Tool]:
        """The seed's two tools, bound to this level: `search_blocks` and `mark_star`.

        Name some to get only those: `level.tools("search_blocks")` offers no `mark_star`.
        """
        search = tool(
            self.search_blocks,
            name="search_blocks",
            description=(
                "Search the ? blocks in one area of the level. Returns what each one hides. "
                + self.areas_line()
            ),
            timeout_s=None,  # a dict lookup cannot hang: no thread per call (bench/RESULTS.md, 1)
        )
        mark = tool(
            self.mark_star,
            name="mark_star",
            description="Put a marker on the level map where the star is. Call it once, at the end.",
            input_model=MarkStarInput,
            timeout_s=None,
        )
        offered = [search, mark]
        unknown = set(names) - {t.name for t in offered}
        if unknown:
            raise ValueError(f"no tool {', '.join(sorted(unknown))}; a level has search_blocks and mark_star")
        return [t for t in offered if not names or t.name in names]

    def reset(self) -> None:
        """Clear the map's markers and the search log, for a fresh run on the same level."""
        self.markers.clear()
        self.searches.clear()


LEVELS = ("1-1", "1-2", "1-3")


def load_level(name_or_path: str | Path) -> Level:
    """Load a shipped level (`"1-1"`, `"1-2"`, `"1-3"`) or any level file of the same format."""
    return Level(spec=_spec(str(name_or_path)))


@cache
def _spec(name_or_path: str) -> LevelSpec:
    if name_or_path in LEVELS:
        text = data_file("levels", f"{name_or_path}.json").read_text(encoding="utf-8")
    else:
        path = Path(name_or_path)
        if not path.is_file():
            raise FileNotFoundError(
                f"no level {name_or_path!r}: use one of {', '.join(LEVELS)} or a path to a level file"
            )
        text = path.read_text(encoding="utf-8")
    return LevelSpec.model_validate(json.loads(text))
