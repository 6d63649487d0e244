"""A figure as data: what a view draws (series, axes, labels, notable points) and what it says
(its title and text alternative), computed once from a run.

Every figure of the lesson is built here and drawn elsewhere: `charts` draws it as SVG (the
explorers, and the notebooks' figures where matplotlib cannot be loaded), `plots` with matplotlib,
and `describe` writes its text alternative from it. So the two drawings of one figure have the
same titles, series, labels, units and words by construction; only the pixels differ.

    chart = figure.tokens_per_turn(run)     # a `Chart`: stacked bars per turn
    chart.series[0].y                       # the numbers drawn
    chart.alt                               # the words a screen reader gets

The builders only read runs (`level.view(run)` for the map); their words follow `set_language`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import cycle
from typing import Any, Literal

from ..i18n import _, money
from ..lesson.race import RaceResult
from ..lesson.verdict import turns_text
from ..level import Judgement, Level, Marker
from ..outcome import Run, Stop
from ..usage import (
    DEFAULT_PRICE_MODEL,
    Price,
    cumulative_cost,
    cumulative_tokens,
    price,
    split_prompt,
)
from . import describe, look

__all__ = [
    "Axis",
    "Block",
    "Chart",
    "Growth",
    "LevelMap",
    "Marker",
    "Panels",
    "Point",
    "Rule",
    "Series",
    "compare_runs",
    "cumulative_cost_chart",
    "growth",
    "level_map",
    "race",
    "tokens_per_turn",
]

Unit = Literal["turn", "seconds", "tokens", "usd"]


@dataclass(frozen=True)
class Series:
    """One thing drawn: its numbers, its legend words and how it looks.

    Bars of one chart stack in the order of their series; a line's `dashes` are on/off lengths
    in line widths (empty: solid), its `marker` a matplotlib marker code ("o", "s", "^", ...)."""

    key: str
    """What it is, for a program: "resent", "cumulative_tokens", "run:<label>", ..."""
    label: str
    kind: Literal["bars", "line"]
    x: tuple[float, ...]
    y: tuple[float, ...]
    colour: str
    axis: Literal["left", "right"] = "left"
    width: float = 2.5
    dashes: tuple[float, ...] = ()
    marker: str = ""


@dataclass(frozen=True)
class Axis:
    """An axis: its words and unit, and (for the turns) which ticks are labelled and how."""

    label: str
    unit: Unit
    ticks: tuple[tuple[float, str], ...] = ()
    """(x, label) pairs: the turns by the shared tick rule (`look.tick_shown`)."""
    span: tuple[float, float] | None = None
    """The axis from, to; None: fitted to the data."""
    digits: int = 0
    """Decimals of its tick labels (dollars: enough to tell them apart, `look.usd_digits`)."""


@dataclass(frozen=True)
class Rule:
    """A limit (`key`: "max_turns", "deadline", "budget") drawn as a line in its own colour and
    dashes (`look.LIMIT_COLOURS`, `LIMIT_DASHES`): upright at x `at`, or across the plot at y `at`
    (`across`). An upright rule's words stand beside it; a line across has no room for them:
    they go in the legend ("": none)."""

    key: str
    at: float
    label: str = ""
    across: bool = False


@dataclass(frozen=True)
class Point:
    """A notable point: where a limit (`key`) falls on the track, after `kept` turns, in the
    limit's shape and colour (`look.LIMIT_MARKERS`, `LIMIT_COLOURS`); the `first` to fire is
    drawn larger."""

    key: str
    x: float
    y: float
    kept: int
    first: bool = False


@dataclass(frozen=True)
class Growth:
    """The shape of a run's cost, as numbers: how the prompt grew and what the total came to."""

    first_turn: int
    first_prompt: int
    last_turn: int
    last_prompt: int
    turns: int
    total: int
    first_total: int
    """The first turn's tokens (prompt and reply): the total if every turn cost like it is
    `turns * first_total`."""

    @property
    def ratio(self) -> float:
        """The total against a run whose every turn cost like the first."""
        return self.total / (self.first_total * self.turns) if self.first_total else 1.0


@dataclass(frozen=True)
class Chart:
    """A chart of a run (or several) against turns: bars, lines, one or two y axes."""

    kind: Literal["tokens_per_turn", "cumulative_cost", "compare_runs", "turns", "seconds"]
    """Which chart; the race's two panels are "turns" and "seconds"."""
    title: str
    x: Axis
    y: Axis
    series: tuple[Series, ...]
    y2: Axis | None = None
    about: tuple[str, ...] = ()
    """What was run, in words (the model, the budget, how each run ended): the alt text's
    subject; a chart draws it nowhere else."""
    growth: Growth | None = None
    cached: int = 0
    """Prompt tokens drawn as cached by the server (their own part of each bar)."""
    wrap_up: int | None = None
    """The notable point: the x of the wrap-up request after the clock (drawn last, marked)."""
    empty: str = ""
    """What the chart says instead of data when the run has no turns ("" when it has)."""
    rules: tuple[Rule, ...] = ()
    points: tuple[Point, ...] = ()

    @property
    def alt(self) -> str:
        """The chart's text alternative, written from the chart (`describe.chart_alt`)."""
        return describe.chart_alt(self)

    def on(self, axis: Literal["left", "right"]) -> tuple[Series, ...]:
        return tuple(s for s in self.series if s.axis == axis)

    def bottoms(self, bars: Series) -> tuple[float, ...]:
        """Where each bar of `bars` starts: on the bars of the series before it, at its x."""
        before = self.series[: self.series.index(bars)]
        stacks = [dict(zip(s.x, s.y)) for s in before if s.kind == "bars"]
        return tuple(sum((stack.get(x, 0.0) for stack in stacks), 0.0) for x in bars.x)

    @property
    def y2_per_y(self) -> float | None:
        """The right axis's scale against the left's, so that its first line ends where the
        left axis's first line ends (the dollars on the tokens at the last turn)."""
        left, right = self.on("left"), self.on("right")
        if not (left and right and left[0].y and left[0].y[-1] and right[0].y[-1]):
            return None
        return right[0].y[-1] / left[0].y[-1]


@dataclass(frozen=True)
class Panels:
    """Charts side by side in one figure, under one `title` ("": each chart has its own), with
    the words of the whole figure."""

    charts: tuple[Chart, ...]
    alt: str
    title: str = ""


@dataclass(frozen=True)
class Block:
    """One `?` block as the map shows it: closed (`item` None), or what it hid."""

    number: int
    item: str | None
    face: look.Face
    marker: bool | None = None
    """None: no marker on it; True/False: a marker, on the star or not."""


@dataclass(frozen=True)
class LevelMap:
    """The level as rows of numbered blocks after a run: what was searched, found and marked."""

    title: str
    """The level's name, then " — " and the news of the run."""
    rows: tuple[tuple[str, tuple[Block, ...]], ...]
    legend: str
    searched: tuple[str, ...]
    misspelt: int
    star: tuple[str, int] | None
    """The star's (area, block) on this level; None on a level without one."""
    star_found: bool
    markers: tuple[Marker, ...]
    verdict: str = ""
    """The level's judgement of an answer given in text ("" for any other run)."""

    @property
    def name(self) -> str:
        return self.title.partition(" — ")[0]

    @property
    def news(self) -> str:
        return self.title.partition(" — ")[2]

    @property
    def width(self) -> int:
        """Blocks in the longest row."""
        return max((len(blocks) for _area, blocks in self.rows), default=0)

    @property
    def alt(self) -> str:
        return describe.map_figure_alt(self)


# -- the builders --------------------------------------------------------------------------------


def tokens_per_turn(run: Run) -> Chart:
    """Stacked bars per turn: the history sent again (cached apart, when the server said so),
    what is new, and the model's reply. The grey part grows every turn."""
    turns = run.all_turns
    x = tuple(t.index for t in turns)
    splits = split_prompt(run)
    cached = tuple(float(s.cached) for s in splits)
    series = (
        Series("resent", _("history sent again"), "bars", x, tuple(float(s.resent - s.cached) for s in splits), look.RESENT_COLOUR),
        Series("new", _("new this turn"), "bars", x, tuple(float(s.new) for s in splits), look.NEW_COLOUR),
        Series("completion", _("model's reply"), "bars", x, tuple(float(t.completion_tokens) for t in turns), look.COMPLETION_COLOUR),
    )  # fmt: skip
    part = Series(
        "cached", _("history, cached by the server"), "bars", x, cached, look.CACHED_COLOUR
    )
    return _of_run(
        run,
        kind="tokens_per_turn",
        title=_("Tokens per turn: the history is sent again"),
        y=Axis(_("tokens in this turn"), "tokens"),
        series=(part, *series) if any(cached) else series,  # cached: only where a server said so
        cached=int(sum(cached)),
    )


def cumulative_cost_chart(
    run: Run, model: str | Price = DEFAULT_PRICE_MODEL, judgement: Judgement | None = None
) -> Chart:
    """Cumulative tokens (left axis) and USD at `model`'s list price (right axis), per turn, and
    a dotted line for a run whose every turn cost as much as the first: the gap is the price of
    re-sending the history. `judgement` (the level's verdict on the answer) goes into the words."""
    p = price(model)
    turns = run.all_turns
    x = tuple(t.index for t in turns)
    tokens = cumulative_tokens(run)
    usd = cumulative_cost(run, p)
    linear = tuple(float(turns[0].total_tokens * (i + 1)) for i in range(len(x)))
    series = (
        Series("cumulative_tokens", _("tokens so far"), "line", x, tuple(float(v) for v in tokens), look.TOKENS_COLOUR, marker="o"),
        Series("linear_reference", _("if every turn cost like turn 1"), "line", x, linear, look.RESENT_COLOUR, width=2, dashes=look.DOTTED),
        Series("cumulative_usd", _("USD so far"), "line", x, tuple(usd), look.USD_COLOUR, axis="right", width=2, dashes=look.DASHED),
    )  # fmt: skip
    return _of_run(
        run,
        judgement,
        kind="cumulative_cost",
        title=_("Cumulative cost at {model}: {tokens:,} tokens, ${usd:.4f}").format(
            model=p.model, tokens=tokens[-1], usd=usd[-1]
        )
        if tokens  # the price it uses, and once there are turns the totals
        else _("Cumulative cost at {model}").format(model=p.model),
        y=Axis(_(look.CUMULATIVE_TOKENS), "tokens"),
        y2=Axis(_(look.CUMULATIVE_USD), "usd", digits=look.usd_digits(max(usd, default=0.0))),
        series=series,
    )


def compare_runs(runs: Mapping[str, Run], model: str | Price = DEFAULT_PRICE_MODEL) -> Chart:
    """Several runs' cumulative tokens on one axes; each run's legend gives its exit, turns and
    USD, and each has its own colour, marker and dashes, so they differ without colour too."""
    p = price(model)
    series, about = [], []
    looks = zip(cycle(look.RUN_COLOURS), cycle(look.RUN_DASHES), cycle(look.RUN_MARKERS))
    for (label, run), (colour, dashes, marker) in zip(runs.items(), looks):
        tokens, usd = cumulative_tokens(run), cumulative_cost(run, p)
        total = usd[-1] if usd else 0.0
        words = f"{label}: {run.exit_name}, {turns_text(len(run.turns))}, {money(total, 4)}"
        x, y = tuple(t.index for t in run.all_turns), tuple(float(v) for v in tokens)
        series.append(
            Series(f"run:{label}", words, "line", x, y, colour, dashes=dashes, marker=marker)
        )
        about.append(describe.compared(label, run, tokens[-1] if tokens else 0, total))
    last = int(max((x for s in series for x in s.x), default=0))
    ticks = tuple((n, str(n)) for n in range(1, last + 1) if look.tick_shown(n - 1, last))
    return Chart(
        kind="compare_runs",
        title=_("Runs compared: cumulative tokens (USD at {model})").format(model=p.model),
        x=Axis(_(look.TURN), "turn", ticks),
        y=Axis(_(look.CUMULATIVE_TOKENS), "tokens"),
        series=tuple(series),
        about=tuple(about),
        empty="" if any(s.x for s in series) else _(look.NO_TURNS),
    )


def race(result: RaceResult, *, level: str, model: str, pace_s: float) -> Panels:
    """The race between the stops: what the run spent against turns (left) and against seconds
    (right), the track it would have gone on (dashed), each limit as a rule — the clock and the
    deadline upright, the budget across both, its words in the legend — and where each limit
    falls on the track, the one that fires first drawn larger."""
    limits, unit = result.limits, result.limits.unit
    track, ran = (tuple(t.spent(unit, limits.price_model)) for t in (result.track, result.run))
    top = look.nice_top(max([*track, *ran, limits.budget or 0.0, 0.0]) * 1.05)
    turns = max(len(track), limits.max_turns, 1)
    ends = (result.track.ends, result.run.ends)
    seconds = look.nice_top(max([*ends[0], *ends[1], limits.deadline_s or 0.0, 0.1]) * 1.05)
    label = _(look.CUMULATIVE_USD) if unit == "usd" else _(look.CUMULATIVE_TOKENS)
    y = Axis(label, unit, span=(0.0, top), digits=3 if unit == "usd" else 0)
    turn_ticks = tuple((n, str(n)) for n in range(1, turns + 1) if look.tick_shown(n - 1, turns))
    by_turn = Axis(_(look.TURN), "turn", turn_ticks, span=(0.5, turns + 0.5))
    time_ticks = tuple((i * seconds / 5, f"{i * seconds / 5:g}") for i in range(6))
    by_time = Axis(_("seconds since the run began"), "seconds", time_ticks, span=(0.0, seconds))

    def panel(x: Axis, at: tuple[Sequence[float], ...], upright: tuple[Rule, ...]) -> Chart:
        left = x.unit == "turn"  # its legend: the lines; the right one's: the budget's words
        budget, price_model = limits.budget, limits.price_model
        words = "" if left or budget is None else describe.budget_text(budget, unit, price_model)
        across = () if budget is None else (Rule("budget", budget, words, across=True),)
        named = (_("where the run would have gone on"), _("the run")) if left else ("", "")
        lines = (
            Series("track", named[0], "line", tuple(at[0]), track, look.TRACK_COLOUR, width=2, dashes=(3, 2.5)),
            Series("run", named[1], "line", tuple(at[1]), ran, look.TOKENS_COLOUR, width=3, marker="o"),
        )  # fmt: skip
        first = result.predicted
        points = tuple(
            Point(f.stop.value, (f.kept if left else f.at_s) or 0.0, f.spent, f.kept, f is first)
            for f in result.falls
            if f.kept is not None and (f.kept or not left)
        )
        kind: Literal["turns", "seconds"] = "turns" if left else "seconds"
        return Chart(
            kind=kind, title="", x=x, y=y, series=lines, rules=(*across, *upright), points=points
        )

    steps = (range(1, len(track) + 1), range(1, len(ran) + 1))
    deadline = limits.deadline_s
    clock = (Rule("max_turns", limits.max_turns + 0.5, f"max_turns={limits.max_turns}"),)
    timer = () if deadline is None else (Rule("deadline", deadline, f"deadline_s={deadline:g}"),)
    return Panels(
        (panel(by_turn, steps, clock), panel(by_time, ends, timer)),
        describe.race_alt(result, level, model, pace_s),
        describe.race_title(unit),
    )


def level_map(level: Level, run: Run | None = None) -> LevelMap:
    """The level after `run` (None: before any): blocks of searched areas revealed, the star's
    block once found or marked, and each marker with its verdict."""
    view = level.view(run)
    marks = {m.block: m.correct for m in view.markers}

    def row(blocks: dict[int, str | None]) -> tuple[Block, ...]:
        return tuple(
            Block(n, item, look.block_face(item), marks.get(n)) for n, item in blocks.items()
        )

    rows = tuple((area, row(blocks)) for area, blocks in view.blocks.items())
    return LevelMap(
        title=view.title,
        rows=rows,
        legend=_("? not searched yet · grey: searched, what it hid · ring: a marker"),
        searched=tuple(dict.fromkeys(view.searched)),
        misspelt=view.misspelt,
        star=level.star,
        star_found=view.star_found,
        markers=view.markers,
        verdict=level.judge(run).text if run is not None and run.stop == Stop.END_TURN else "",
    )


def growth(run: Run) -> Growth | None:
    """The numbers of `describe.growth_text`: None for a run with no turns."""
    turns = run.all_turns
    if not turns:
        return None
    first, last = turns[0], turns[-1]
    return Growth(
        first_turn=first.index,
        first_prompt=first.prompt_tokens,
        last_turn=last.index,
        last_prompt=last.prompt_tokens,
        turns=len(turns),
        total=cumulative_tokens(run)[-1],
        first_total=first.total_tokens,
    )


def _of_run(run: Run, judgement: Judgement | None = None, **chart: Any) -> Chart:
    """A chart of one run against its turns (`chart`: its kind, title, y axes and series): what
    was run and how it ended (`judgement`: the level's verdict), the growth, the wrap-up.

    The turns' axis: their numbers by the shared tick rule (`look.tick_shown`), and "wrap-up"
    under the wrap-up request (a turn's number right beside it is left out when the ticks are
    dense)."""
    n = len(run.turns)
    wrap = run.wrap_up_turn.index if run.wrap_up_turn else None
    ticks = [
        (t.index, str(t.index))
        for i, t in enumerate(run.turns)
        if look.tick_shown(i, n) and (wrap is None or n <= 12 or wrap - t.index > 1)
    ]
    if wrap is not None:
        ticks.append((wrap, _("wrap-up")))
    return Chart(
        x=Axis(_(look.TURN), "turn", tuple(ticks)),
        about=(describe.subject(run, judgement),),
        growth=growth(run),
        wrap_up=wrap,
        empty="" if run.all_turns else _(look.NO_TURNS),
        **chart,
    )
