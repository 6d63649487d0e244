"""The mock level: areas of numbered `?` blocks, what each hides, and the map's markers.

A level file (JSON, see `data/levels/`) looks like::

    {"name": "1-2", "title": "...", "story": "...",
     "areas": {"overworld": {"1": "coin", "2": "nothing"}, "underground": {"3": "star"}}}

Block numbers are unique across the level (so `mark_star` needs only the number) and written as
plain whole numbers; what a block hides is one of `Item`. At most one block hides the star. Area
names are found whatever their case (`search_blocks("Castle")`), so no two may differ only in
case or surrounding spaces. A file that would lose something (a key written twice) or hide it
(an area no search can find) is refused with a `LevelFileError` that names the file.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, ValidationError, model_validator

from ._data import data_file
from ._json import NotJSON, max_digits, read_json
from .i18n import _, say, say_n, told
from .outcome import Stop
from .tools import Tool, ToolError, tool

if TYPE_CHECKING:
    from .outcome import Run

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
        if not self.areas or not all(self.areas.values()):
            said = _("a level needs at least one area, and every area at least one block")
            raise ValueError(said)
        where: dict[int, str] = {}
        for area, blocks in self.areas.items():
            for number in blocks:  # once in each area: its keys are numbers, not spellings
                if (first := where.setdefault(number, area)) != area:
                    said = say("block_in_two_areas", number=number, first=first, second=area)
                    raise ValueError(said)
        stars = [n for n, area in where.items() if self.areas[area][n] == "star"]
        if len(stars) > 1:
            found = _("a level hides at most one star; found it in blocks {stars}")
            raise ValueError(found.format(stars=stars))
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


@cache
def _answer_words() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """How a text answer names a block, and how it says the star was not found: the regular
    expressions of `data/levels/answers.toml`, compiled once."""
    import tomllib

    words = tomllib.loads(data_file("levels", "answers.toml").read_text(encoding="utf-8"))
    named, not_found = words["block_named"], "|".join(words["not_found"])
    return re.compile(named, re.IGNORECASE), re.compile(not_found, re.IGNORECASE)


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
        areas = self.spec.areas
        return next(((a, n) for a in areas for n, item in areas[a].items() if item == "star"), None)

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
                if not call.ok:
                    misspelt += 1  # the input validated, but the level has no such area
                elif (area := self.area_named(str(call.input.get("area", "")))) is not None:
                    searched.append(area)
            elif call.name == "mark_star" and call.ok and call.input:
                block = call.input["block"]
                if (area := self.area_of(block)) is not None:
                    item = call.input["item"]
                    markers.append(Marker(item, block, area, self.spec.areas[area][block] == item))
        star = self.star
        found = star is not None and (star[0] in searched or any(m.correct for m in markers))
        blocks: dict[str, dict[int, str | None]] = {
            area: {
                number: item if area in searched or (found and (area, number) == star) else None
                for number, item in items.items()
            }
            for area, items in self.spec.areas.items()
        }
        title = self._map_title(searched, misspelt, markers, found)
        return MapView(blocks, tuple(searched), misspelt, tuple(markers), found, title)

    def _map_title(
        self, searched: list[str], misspelt: int, markers: list[Marker], found: bool
    ) -> str:
        if any(m.correct for m in markers):
            news = _("the star is marked")
        elif markers:
            news = _("a marker is on the wrong block")
        elif found:
            news = _("the star was found")
        elif searched or misspelt:
            news = say_n("searches_no_star", len(searched), n=len(searched))
            if misspelt:
                news = say_n("misspelt_searches", misspelt, searches=news, n=misspelt)
        else:
            news = _("nothing searched yet")
        return _("{title} — {news}").format(title=self.title, news=news)

    def judge(self, run: Run) -> Judgement:
        """Whether `run`'s answer is right on this level: a marker on the star's block (the
        warp pipe), or a text that names it (the flag) — or, on a level with no star, a text
        that says none was found. A run with no answer, or whose answer is a tool call written
        as text, is not judged (`correct` is None)."""
        if run.answer_is_text_tool_call:
            why = say("judged_text_call")
        elif run.not_an_answer is not None:
            why = say("judged_echo")
        elif not run.has_answer:
            why = _("No answer to judge: the run ended on {exit}.").format(exit=run.exit_name)
        elif run.stop == Stop.TERMINAL_TOOL:
            return self._judge_marker(run)
        else:
            return self._judge_text(str(run.answer))
        return Judgement(None, why)

    def _judge_marker(self, run: Run) -> Judgement:
        terminal = next(
            (c for c in reversed(run.tool_calls) if c.ok and c.name in run.stop_on), None
        )
        answer = run.answer if isinstance(run.answer, dict) else {}
        block = answer.get("block")
        if terminal is None or terminal.name != "mark_star" or not isinstance(block, int):
            named = terminal.name if terminal else "?"
            return Judgement(None, say("cannot_judge_tool", tool=named))
        searched = self.area_of(block) in self.view(run).searched
        guess = "" if searched else " " + say("guessed_block", block=block)
        star = self.star
        if star is not None and block == star[1]:
            return Judgement(True, say("right_marker", block=block, area=star[0]) + guess)
        said = _("the marker is on block {block}").format(block=block)
        return Judgement(False, self._wrong_block(said) + guess)

    def _judge_text(self, text: str) -> Judgement:
        block_named, not_found = _answer_words()
        named = sorted({int(n) for n in block_named.findall(text)})
        star = self.star
        if len(named) > 1 and star is not None and star[1] in named:
            return Judgement(None, say("several_blocks", blocks=", ".join(map(str, named))))
        if star is not None and named == [star[1]]:
            return Judgement(True, say("right_block_named", block=star[1], area=star[0]))
        if named:
            said = say_n("names_blocks", len(named), blocks=", ".join(map(str, named)))
            return Judgement(False, self._wrong_block(said))
        if not_found.search(text):
            if star is None:
                right = _("Right: this level hides no star, and the answer says none was found.")
                return Judgement(True, right)
            return Judgement(False, say("wrong_not_found", block=star[1], area=star[0]))
        return Judgement(None, say("names_no_block"))

    def _wrong_block(self, said: str) -> str:
        star = self.star
        if star is None:
            return say("wrong_no_star", said=said)
        return say("wrong_block", said=said, block=star[1], area=star[0])

    def search_blocks(self, area: str) -> str:
        """Search the ? blocks in one area of the level. Returns what each one hides."""
        if (found := self.area_named(area)) is None:
            raise ToolError(f"there is no area called {area!r}. {self.areas_line()}")
        return "\n".join(f"Block {n}: {item}" for n, item in self.spec.areas[found].items())

    def mark_star(self, item: Literal["star"], block: PositiveInt) -> str:
        """Put a marker on the level map where the star is. Call it once, at the end."""
        if (area := self.area_of(block)) is None:
            numbers = sorted(n for blocks in self.spec.areas.values() for n in blocks)
            raise ToolError(told("no_such_block", block=block, first=numbers[0], last=numbers[-1]))
        return f"Marked block {block} ({area}) on the level map."

    def tools(self, *names: str) -> list[Tool]:
        """The seed's two tools, bound to this level: `search_blocks` and `mark_star`.

        Name some to get only those: `level.tools("search_blocks")` offers no `mark_star`.
        """
        # each tool is named for its method and described by its docstring (search_blocks's
        # with the level's areas); a dict lookup cannot hang: no thread per call (bench, 1)
        described = f"{Level.search_blocks.__doc__} {self.areas_line()}"
        search = tool(self.search_blocks, description=described, timeout_s=None)
        mark = tool(self.mark_star, input_model=MarkStarInput, timeout_s=None)
        offered = [search, mark]
        if unknown := set(names) - {t.name for t in offered}:
            raise ValueError(say("no_such_level_tool", names=", ".join(sorted(unknown))))
        return [t for t in offered if not names or t.name in names]


LEVELS = ("1-1", "1-2", "1-3")
"""The three exits' levels: each has an explorer, and the projector's dashboard shows them."""
CASTLE = "1-4"
"""The castle, the last level of the world: notebook 1-4's capstone, a search of 15+ turns."""
SHIPPED = (*LEVELS, CASTLE)
"""Every level shipped in `data/levels/`."""


class LevelFileError(ValueError):
    """A level file that cannot be used as it is. The message names the file (and the area and
    block) and says what to change."""


def load_level(name_or_path: str | Path) -> Level:
    """Load a shipped level (`"1-1"` ... `"1-4"`) or any level file of the same format.

    A file is read again on every call, so an edit shows at once; what it holds is parsed once.
    A missing file is `FileNotFoundError`; one that cannot be used is `LevelFileError`.
    """
    name = str(name_or_path)
    if name in SHIPPED:
        return Level(spec=_shipped(name))
    path = Path(name)
    if name.strip() and path.is_dir():  # "" is the current folder to Path: no level either
        raise LevelFileError(_("{file} is a folder, not a level file").format(file=name))
    if not path.is_file():
        as_file = path.suffix or "/" in name or os.sep in name  # then say the file is not there
        missing = "level_file_missing" if as_file else "no_such_level"
        raise FileNotFoundError(say(missing, file=name, name=name, levels=", ".join(SHIPPED)))
    return Level(spec=_parsed(path.read_bytes(), name))


@cache
def _shipped(name: str) -> LevelSpec:
    return _parsed(data_file("levels", f"{name}.json").read_bytes(), name)


@lru_cache(maxsize=32)
def _parsed(content: bytes, source: str) -> LevelSpec:
    """The level in `content` (the bytes of the file `source`), checked; cached by content."""
    try:
        text = content.decode("utf-8-sig")  # a byte-order mark, as some editors write, is fine
    except UnicodeDecodeError as exc:
        byte = f"0x{content[exc.start]:02x}"
        said = say("level_not_utf8", file=source, byte=byte, position=exc.start)
        raise LevelFileError(said) from None
    if not text.strip():
        said = _("{file} is empty: a level file is a JSON object").format(file=source)
        raise LevelFileError(said)
    try:
        data = read_json(text, object_pairs_hook=_JSONObject.of)
    except NotJSON as exc:
        raise LevelFileError(_json_problem(source, exc)) from None
    _check_as_written(data, source)
    try:
        return LevelSpec.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            (".".join(str(p) for p in e["loc"]) + ": " if e["loc"] else "")
            + str(e["msg"]).removeprefix("Value error, ")
            for e in exc.errors(include_url=False)
        )
        said = _("{file} is not a valid level: {problems}")
        problems = " ".join(problems.split())
        raise LevelFileError(said.format(file=source, problems=problems)) from None


def _json_problem(source: str, problem: NotJSON) -> str:
    """Why the level file `source` is not JSON Python can read (`data/said.toml`'s
    `level_{kind}`), and where: its reason, line and column."""
    return say(f"level_{problem.kind}", file=source, digits=max_digits(), **vars(problem))


class _JSONObject(dict[str, Any]):
    """A parsed JSON object that remembers the keys written more than once (JSON keeps only
    the last of them, silently)."""

    repeated: tuple[str, ...] = ()

    @classmethod
    def of(cls, pairs: list[tuple[str, Any]]) -> _JSONObject:
        made = cls(pairs)
        if len(made) < len(pairs):  # counted once each: a scan per key would be quadratic
            written = Counter(key for key, _ in pairs)
            made.repeated = tuple(key for key in made if written[key] > 1)
        return made


_PLAIN_NUMBER = re.compile(r"[1-9][0-9]*")


def _check_as_written(data: Any, source: str) -> None:
    """What only the file's text shows, before it is validated: keys written twice, two
    spellings of one block number, and area names no search can tell apart or find."""
    _once_each(source, data, _("the key {key!r}"), "key")
    areas = data.get("areas") if isinstance(data, dict) else None
    if not isinstance(areas, dict):
        return
    _once_each(source, areas, _("the area {area!r}"), "area")
    _check_area_names(list(areas), source)
    for area, blocks in areas.items():
        _once_each(source, blocks, _("area {area!r}: block {block!r}"), "block", area=area)
        if isinstance(blocks, dict):
            _check_block_numbers(area, list(blocks), source)


def _once_each(source: str, value: Any, what: str, field: str, **named: str) -> None:
    """A `LevelFileError` if a key of `value` (a parsed JSON object, `_JSONObject`) was written
    more than once: `what` names it, the first such key filling its `field`."""
    if repeated := getattr(value, "repeated", ()):
        twice = what.format(**named, **{field: repeated[0]})
        raise LevelFileError(say("written_twice", file=source, what=twice))


def _check_area_names(names: list[str], source: str) -> None:
    seen: dict[str, str] = {}  # what `Level.area_named` makes of a search -> the name it met first
    for name in names:  # the keys of one JSON object: no name comes twice
        if (first := seen.setdefault(name.strip().lower(), name)) != name:
            raise LevelFileError(say("areas_alike", file=source, first=first, second=name))
    for name in names:
        if not name.strip():
            raise LevelFileError(_("{file}: an area has no name").format(file=source))
        if name != name.strip():
            raise LevelFileError(say("area_spaced", file=source, area=name))


def _check_block_numbers(area: str, numbers: list[str], source: str) -> None:
    spellings: dict[int, str] = {}
    for written in numbers:  # the keys of one JSON object: no spelling comes twice
        try:
            number = int(written)
        except ValueError:
            continue  # not a number at all: validation says so
        if (first := spellings.setdefault(number, written)) != written:
            twice = {"number": number, "first": first, "second": written}
            raise LevelFileError(say("block_twice", file=source, area=area, **twice))
    for written in numbers:
        if not _PLAIN_NUMBER.fullmatch(written):  # "01", "+1", " 1", "1.0" and "1_0" would pass
            raise LevelFileError(say("block_not_plain", file=source, area=area, block=written))
