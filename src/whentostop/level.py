"""The mock level: areas of numbered `?` blocks, what each hides, and the map's markers.

A level file (JSON, see `data/levels/`) looks like::

    {"name": "1-2", "title": "...", "story": "...",
     "areas": {"overworld": {"1": "coin", "2": "nothing"}, "underground": {"3": "star"}}}

Block numbers are unique across the level (so `mark_star` needs only the number); what a block
hides is one of ITEMS. At most one block hides the star.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from ._data import data_file
from .i18n import _, ngettext
from .outcome import Stop
from .tools import Tool, ToolError, tool

if TYPE_CHECKING:
    from .outcome import Run

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


@dataclass(frozen=True)
class MapView:
    """What the level map shows after a run: read from the run's tool calls, never from a
    level that its tools changed (they change nothing)."""

    blocks: dict[str, dict[int, str | None]]
    """Each area's blocks: what a block hides once its area was searched (or the star, once
    found), None while it is still a `?`."""
    searched: tuple[str, ...]
    """The areas searched, in the level's spelling, once per successful search."""
    misspelt: int
    """Searches that failed: an area the level does not have (another spelling, a guess)."""
    markers: tuple[Marker, ...]
    star_found: bool
    """Whether the map may show the star: its area was searched, or it was marked."""
    title: str
    """The map's heading: the level, and the news of the run so far."""


@dataclass(frozen=True)
class Judgement:
    """Whether a run's answer is right, where the level can tell (it knows where the star is).

    A schema checks an answer's shape, not its truth: a marker on a guessed block validates.
    """

    correct: bool | None
    """True right, False wrong, None when the level cannot tell (no answer, a tool call
    written as text, an answer that names no block, or several)."""
    text: str
    """Why, in the language in effect."""


_BLOCK_NAMED = re.compile(r"\b(?:block|bloco|bloque)s?\s*(?:#|n[º°o]\.?\s*|number\s+|número\s+)?"
                          r"(\d+)", re.IGNORECASE)
_NOT_FOUND = re.compile(
    r"\b(?:couldn'?t|could not|can'?t|cannot|did not|didn'?t|unable to|failed to)\s+"
    r"(?:find|locate|see)\b|\bno star\b|\bnot (?:seem to be )?(?:in|on) this level\b|"
    r"\bfound nothing\b|\bnothing found\b|"
    r"\bnão\s+(?:encontrei|achei|consegui\s+(?:encontrar|achar)|está|há|existe)\b|"
    r"\bnenhuma estrela\b", re.IGNORECASE)


class MarkStarInput(BaseModel):
    model_config = ConfigDict(defer_build=True)

    item: Literal["star"] = Field(description='What you found: always "star"')
    block: PositiveInt = Field(description="The number of the block that hides the star")


@dataclass(frozen=True)
class Level:
    """A level to play: its blocks and the star (if any). Its tools only read it; what a run
    did on it is `level.view(run)`."""

    spec: LevelSpec

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def title(self) -> str:
        """The level's title, in the language in effect."""
        return _(self.spec.title) if self.spec.title else self.spec.name

    @property
    def story(self) -> str:
        """The level's story, in the language in effect."""
        return _(self.spec.story) if self.spec.story else ""

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

    def area_named(self, name: str) -> str | None:
        """The level's area that `name` means (case and surrounding spaces aside), or None."""
        key = name.strip().lower()
        return next((a for a in self.spec.areas if a.lower() == key), None)

    def area_of(self, block: int) -> str | None:
        return next((a for a, blocks in self.spec.areas.items() if block in blocks), None)

    def areas_line(self) -> str:
        return f"Areas: {', '.join(self.spec.areas)}."

    def view(self, run: Run | None = None) -> MapView:
        """What the map shows after `run` (None: before any run): searched areas revealed, the
        star once found, and the markers `mark_star` placed, each right or wrong."""
        searched: list[str] = []
        misspelt = 0
        markers: list[Marker] = []
        for call in run.tool_calls if run is not None else []:
            if call.name == "search_blocks" and call.input is not None:
                area = self.area_named(str(call.input.get("area", ""))) if call.ok else None
                if area is not None:
                    searched.append(area)
                elif not call.ok:
                    misspelt += 1  # the input validated, but the level has no such area
            elif call.name == "mark_star" and call.ok and call.input:
                block = call.input["block"]
                area = self.area_of(block)
                if area is not None:
                    markers.append(Marker(call.input["item"], block, area,
                                          self.spec.areas[area][block] == call.input["item"]))
        star = self.star
        found = star is not None and (star[0] in searched or any(m.correct for m in markers))
        blocks: dict[str, dict[int, str | None]] = {
            area: {number: item if area in searched or (found and (area, number) == star) else None
                   for number, item in items.items()}
            for area, items in self.spec.areas.items()
        }
        title = self._map_title(searched, misspelt, markers, found)
        return MapView(blocks, tuple(searched), misspelt, tuple(markers), found, title)

    def _map_title(self, searched: list[str], misspelt: int, markers: list[Marker],
                   found: bool) -> str:
        if any(m.correct for m in markers):
            news = _("the star is marked")
        elif markers:
            news = _("a marker is on the wrong block")
        elif found:
            news = _("the star was found")
        elif searched or misspelt:
            news = ngettext("{n} search, no star", "{n} searches, no star",
                            len(searched)).format(n=len(searched))
            if misspelt:
                news = ngettext("{searches} ({n} more misspelt: no such area)",
                                "{searches} ({n} more misspelt: no such area)",
                                misspelt).format(searches=news, n=misspelt)
        else:
            news = _("nothing searched yet")
        return _("{title} — {news}").format(title=self.title, news=news)

    def judge(self, run: Run) -> Judgement:
        """Whether `run`'s answer is right on this level: a marker on the star's block (the
        warp pipe), or a text that names it (the flag) — or, on a level with no star, a text
        that says none was found. A run with no answer, or whose answer is a tool call written
        as text, is not judged (`correct` is None)."""
        if not run.has_answer:
            return Judgement(None, _("No answer to judge: the run ended on {exit}.")
                             .format(exit=run.exit_name))
        if run.answer_is_text_tool_call:
            return Judgement(None, _(
                "Not an answer: the model asked for a tool in text that the server did not parse "
                "as a call, so there is nothing to judge."))
        if run.stop == Stop.TERMINAL_TOOL:
            return self._judge_marker(run)
        return self._judge_text(str(run.answer))

    def _judge_marker(self, run: Run) -> Judgement:
        terminal = next((c for c in reversed(run.tool_calls)
                         if c.ok and c.name in run.stop_on), None)
        answer = run.answer if isinstance(run.answer, dict) else {}
        block = answer.get("block")
        if terminal is None or terminal.name != "mark_star" or not isinstance(block, int):
            return Judgement(None, _("The level cannot judge an answer delivered by {tool}.")
                             .format(tool=terminal.name if terminal else "?"))
        area = self.area_of(block)
        searched = set(self.view(run).searched)
        guess = (" " + _("Block {block}'s area was never searched: the model guessed.")
                 .format(block=block)) if area not in searched else ""
        star = self.star
        if star is not None and block == star[1]:
            return Judgement(True, _("Right: the marker is on block {block} ({area}), where the "
                                     "star is.").format(block=block, area=star[0]) + guess)
        return Judgement(False, self._wrong_block(_("the marker is on block {block}")
                                                  .format(block=block)) + guess)

    def _judge_text(self, text: str) -> Judgement:
        named = sorted({int(n) for n in _BLOCK_NAMED.findall(text)})
        star = self.star
        if len(named) > 1 and star is not None and star[1] in named:
            return Judgement(None, _("The answer names several blocks ({blocks}): the level "
                                     "cannot tell which one it means.").format(
                                         blocks=", ".join(map(str, named))))
        if star is not None and named == [star[1]]:
            return Judgement(True, _("Right: the answer names block {block} ({area}), where the "
                                     "star is.").format(block=star[1], area=star[0]))
        if named:
            said = ngettext("the answer names block {blocks}", "the answer names blocks {blocks}",
                            len(named)).format(blocks=", ".join(map(str, named)))
            return Judgement(False, self._wrong_block(said))
        if _NOT_FOUND.search(text):
            if star is None:
                return Judgement(True, _("Right: this level hides no star, and the answer says "
                                         "none was found."))
            return Judgement(False, _("Wrong: the answer says the star was not found, but it "
                                      "is in block {block} ({area}).").format(
                                          block=star[1], area=star[0]))
        return Judgement(None, _("The answer names no block and does not say the star is "
                                 "missing: the level cannot tell whether it is right."))

    def _wrong_block(self, said: str) -> str:
        star = self.star
        if star is None:
            return _("Wrong: {said}, but this level hides no star. A schema checks an answer's "
                     "shape, not its truth.").format(said=said)
        return _("Wrong: {said}, but the star is in block {block} ({area}). A schema checks an "
                 "answer's shape, not its truth.").format(said=said, block=star[1], area=star[0])

    def search_blocks(self, area: str) -> str:
        """Search the ? blocks in one area of the level. Returns what each one hides."""
        found = self.area_named(area)
        if found is None:
            raise ToolError(f"there is no area called {area!r}. {self.areas_line()}")
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
            raise ValueError(_("no tool {names}; a level has search_blocks and mark_star")
                             .format(names=", ".join(sorted(unknown))))
        return [t for t in offered if not names or t.name in names]


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
            raise FileNotFoundError(_(
                "no level {name!r}: use one of {levels} or a path to a level file"
            ).format(name=name_or_path, levels=", ".join(LEVELS)))
        text = path.read_text(encoding="utf-8")
    return LevelSpec.model_validate(json.loads(text))
