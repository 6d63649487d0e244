"""The SVG renderer: the explorer's live views (the cost of a run, the level map, the race),
drawn in about a millisecond so a slider answers at once, and every figure of the figure model
(`figure.py`) as SVG — which is how the notebooks' figures are drawn where matplotlib cannot be
loaded (`plots`, in the browser edition).

`plots` draws the same figure models with matplotlib where it can; a matplotlib figure takes
0.2-0.6 s to render on a workshop laptop, too slow to follow a slider (bench/RESULTS.md, section
4). These functions draw with the same look (`look.py`) and return an SVG document as text. They
only read runs; `run=None` is "no run yet". Each SVG carries its text alternative (`describe.py`,
from the figure model) as `<title>` and `<desc>`, and the explorer puts the same words in the
`<img alt>`.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

from ..i18n import _
from ..level import Judgement, Level
from ..outcome import Run, Stop
from ..usage import DEFAULT_PRICE_MODEL, Price, price
from . import describe, figure, look
from .figure import Chart, LevelMap, Series
from .look import SEPARATOR_COLOUR, TOKENS_COLOUR

if TYPE_CHECKING:
    from ..lesson.race import Fall, RaceResult

FONT = "DejaVu Sans, Arial, sans-serif"
TEXT_PX = 15
TITLE_PX = 17

PANEL_W, PANEL_H = 560, 330
COMPACT_W, COMPACT_H = 420, 320
"""The cost chart alone in a dashboard column (about 400 pixels wide on a 1280×720 projector):
narrower than a panel, so its words are drawn at about their own size there, not shrunk."""
LEFT, RIGHT, TOP, BOTTOM = 78, 24, 56, 52
"""Margins of a panel, in SVG pixels: room for tick labels, titles and the legend."""
TITLE_LINE = 22
"""The height of each further line of a title too long for its panel."""
BOLD_EM = 0.64
"""How wide a bold character of the charts' font is, on average, in ems: a generous guess (DejaVu
Sans Bold's digits and lower case), for breaking a title before it runs out of its panel."""
REGULAR_EM = 0.53
"""The same for the regular weight (the map's legend)."""
RIGHT_WITH_AXIS = 88
"""The right margin of a chart with a right axis (dollars): room for its ticks and label."""


def data_uri(svg: str) -> str:
    """An `<img src=...>` value: the page swaps one attribute, and nothing inside is parsed."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def cost_svg(
    run: Run | None,
    model: str | Price = DEFAULT_PRICE_MODEL,
    *,
    tokens_per_turn: bool = True,
    judgement: Judgement | None = None,
) -> str:
    """Tokens per turn (history sent again, new, the reply) beside the cumulative cost; the
    cumulative cost alone with `tokens_per_turn=False` (a narrow dashboard column). The words
    say how the run ended as the badge does (`judgement`: the level's verdict on the answer)."""
    run = run or Run.empty()
    cumulative = figure.cumulative_cost_chart(run, price(model), judgement)
    if not tokens_per_turn:
        return chart_svg(cumulative, COMPACT_W, COMPACT_H)
    right = _chart_panel(cumulative, PANEL_W, PANEL_H)
    tokens = figure.tokens_per_turn(run)
    left = _chart_panel(tokens, PANEL_W, PANEL_H)
    return _svg(
        2 * PANEL_W,
        PANEL_H,
        left + f'<g transform="translate({PANEL_W},0)">{right}</g>',
        describe.panels_alt(tokens, cumulative),
    )


def cost_size(tokens_per_turn: bool = True) -> tuple[int, int]:
    """The cost view's width and height in SVG pixels (its `<img>` keeps this aspect ratio)."""
    return (2 * PANEL_W, PANEL_H) if tokens_per_turn else (COMPACT_W, COMPACT_H)


def chart_svg(model: Chart, width: float = PANEL_W, height: float = PANEL_H) -> str:
    """Any chart of the figure model as an SVG document of `width` x `height` pixels."""
    return _svg(width, height, _chart_panel(model, width, height), model.alt)


# -- a chart of the figure model -----------------------------------------------------------------


@dataclass(frozen=True)
class _Frame:
    """Where a chart's data goes in its panel: the plot area and the scales of its axes."""

    width: float
    height: float
    top: float
    right: float
    lo: int
    """The smallest x drawn; each x from `lo` to the largest has a slot of its own."""
    slots: int
    y_top: float
    y2_top: float

    @property
    def base(self) -> float:
        return self.height - BOTTOM

    @property
    def slot(self) -> float:
        return (self.width - LEFT - self.right) / self.slots

    def x(self, value: float) -> float:
        return LEFT + self.slot * (value - self.lo + 0.5)

    def y(self, value: float, right: bool = False) -> float:
        top = self.y2_top if right else self.y_top
        return self.base - (self.base - self.top) * value / top


def _chart_panel(model: Chart, width: float, height: float) -> str:
    """The chart's title, legend, axes and series, in a panel of `width` x `height`."""
    title, lines = _title_lines(model.title, width)
    below = TITLE_LINE * (lines - 1)  # the legend and the plot move down under a longer title
    legend, rows = _series_legend(model.series, width - RIGHT, below)
    frame = _frame(model, width, height, TOP + below + 18 * (rows - 1))
    parts = [title, legend, *_frame_axes(model, frame)]
    if model.empty:
        parts.append(
            f'<text x="{width / 2:.0f}" y="{height / 2:.0f}" font-size="{TITLE_PX}" '
            f'fill="{look.MUTED_COLOUR}" text-anchor="middle">{escape(model.empty)}</text>'
        )
        return "".join(parts)
    stacked: dict[int, float] = {}
    for series in model.series:
        if series.kind == "bars":
            parts += _bars(series, frame, stacked, model.wrap_up)
        else:
            parts.append(_line(series, frame))
    return "".join(parts)


def _frame(model: Chart, width: float, height: float, top: float) -> _Frame:
    xs = [x for s in model.series for x in s.x] or [1]
    stacks: dict[int, float] = {}
    for s in model.series:
        if s.kind == "bars":
            for x, v in zip(s.x, s.y):
                stacks[x] = stacks.get(x, 0.0) + v
    lines = [v for s in model.on("left") if s.kind == "line" for v in s.y]
    y_top = _nice_top(max([*stacks.values(), *lines, 0.0]))
    left, right = model.on("left"), model.on("right")
    y2_top = 1.0
    if right and left and left[0].y and left[0].y[-1] and right[0].y and right[0].y[-1]:
        # the right axis's first line ends where the left axis's first line ends
        y2_top = y_top * right[0].y[-1] / left[0].y[-1]
    return _Frame(
        width=width,
        height=height,
        top=top,
        right=RIGHT_WITH_AXIS if model.y2 is not None else RIGHT,
        lo=min(xs),
        slots=max(xs) - min(xs) + 1,
        y_top=y_top,
        y2_top=y2_top,
    )


def _frame_axes(model: Chart, f: _Frame) -> list[str]:
    """The axes, the grid and the ticks: six on each y axis, the turns by the tick rule."""
    x_end = f.width - f.right
    out = [
        f'<line x1="{LEFT}" y1="{f.base}" x2="{x_end}" y2="{f.base}" stroke="{look.AXIS_COLOUR}"/>',
        f'<line x1="{LEFT}" y1="{f.top}" x2="{LEFT}" y2="{f.base}" stroke="{look.AXIS_COLOUR}"/>',
    ]
    for tick in _ticks(f.y_top):
        y = f.y(tick)
        out.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{x_end}" y2="{y:.1f}" stroke="{look.GRID_COLOUR}"/>'
            f'<text class="tick y" x="{LEFT - 6}" y="{y + 5:.1f}" font-size="{TEXT_PX - 1}" '
            f'text-anchor="end">{tick:,.0f}</text>'
        )
    ticks = model.x.ticks or tuple(
        (f.lo + i, str(f.lo + i)) for i in range(f.slots) if look.tick_shown(i, f.slots)
    )
    for x, label in ticks if not model.empty else ():
        if x == model.wrap_up:  # under its own bar, a line lower: it is no turn of the budget
            out.append(
                f'<text class="tick wrap-up" x="{f.x(x):.1f}" y="{f.base + 34}" '
                f'font-size="{TEXT_PX - 2}" text-anchor="end" fill="{look.MUTED_COLOUR}">'
                f"{escape(label)} ↑</text>"
            )
        else:
            out.append(
                f'<text class="tick" x="{f.x(x):.1f}" y="{f.base + 18}" '
                f'font-size="{TEXT_PX - 1}" text-anchor="middle">{escape(label)}</text>'
            )
    out.append(
        f'<text class="axis-label x" x="{(LEFT + x_end) / 2:.0f}" y="{f.height - 8}" '
        f'font-size="{TEXT_PX}" text-anchor="middle">{escape(model.x.label)}</text>'
        f'<text class="axis-label y" transform="translate(16,{(f.top + f.base) / 2:.0f}) '
        f'rotate(-90)" font-size="{TEXT_PX}" text-anchor="middle">{escape(model.y.label)}</text>'
    )
    if model.y2 is not None:
        colour = model.on("right")[0].colour if model.on("right") else look.TEXT_COLOUR
        usd = _usd_tick(max((v for s in model.on("right") for v in s.y), default=0.0))
        out.append(
            f'<line x1="{x_end}" y1="{f.top}" x2="{x_end}" y2="{f.base}" stroke="{colour}"/>'
        )
        for i in range(6):
            value = f.y2_top * i / 5
            out.append(
                f'<text class="tick y2" x="{x_end + 6}" y="{f.y(value, right=True) + 5:.1f}" '
                f'font-size="{TEXT_PX - 1}" fill="{colour}">{escape(usd(value))}</text>'
            )
        out.append(
            f'<text class="axis-label y2" transform="translate({f.width - 16},'
            f'{(f.top + f.base) / 2:.0f}) rotate(90)" font-size="{TEXT_PX}" fill="{colour}" '
            f'text-anchor="middle">{escape(model.y2.label)}</text>'
        )
    return out


def _bars(series: Series, f: _Frame, stacked: dict[int, float], wrap_up: int | None) -> list[str]:
    """One series of bars, each on what the earlier series stacked at its x; the wrap-up's
    segments outlined dashed, the others with a white line between them."""
    bar = max(min(f.slot * 0.75, 40), 2)
    out = []
    for x, value in zip(series.x, series.y):
        below = stacked.get(x, 0.0)
        stacked[x] = below + value
        if series.key == "cached" and not value:
            continue  # no server-cached part on this turn: nothing to draw
        edge = (
            f' stroke="{look.TEXT_COLOUR}" stroke-dasharray="4 3"'
            if x == wrap_up
            else f' stroke="{SEPARATOR_COLOUR}" stroke-width="1.5"'
            if bar >= 6
            else ""
        )
        top = f.y(below + value)
        out.append(
            f'<rect class="bar {escape(series.key)}" data-turn="{x}" data-value="{value:g}" '
            f'x="{f.x(x) - bar / 2:.1f}" y="{top:.1f}" width="{bar:.1f}" '
            f'height="{f.y(below) - top:.1f}" fill="{series.colour}"{edge}/>'
        )
    return out


def _line(series: Series, f: _Frame) -> str:
    """A line through the series' points, with its dashes and its marker at every point."""
    right = series.axis == "right"
    points = [(f.x(x), f.y(v, right)) for x, v in zip(series.x, series.y)]
    dash = (
        f' stroke-dasharray="{" ".join(f"{d * series.width:g}" for d in series.dashes)}"'
        if series.dashes
        else ""
    )
    values = " ".join(f"{v:g}" for v in series.y)
    out = [
        f'<g class="series" data-series="{escape(series.key)}" data-values="{values}">'
        f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in points)}" fill="none" '
        f'stroke="{series.colour}" stroke-width="{series.width}"{dash}/>'
    ]
    if series.marker:
        out += [_marker(series.marker, x, y, series.colour) for x, y in points]
    return "".join(out) + "</g>"


def _marker(code: str, x: float, y: float, colour: str, r: float = 4.5) -> str:
    """Matplotlib's marker `code` as an SVG shape: circle, square, triangles, diamond, plus."""
    if code == "s":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" fill="{colour}"/>'
    shapes = {
        "^": [(0, -r), (r, r), (-r, r)],
        "v": [(0, r), (r, -r), (-r, -r)],
        "D": [(0, -r), (r, 0), (0, r), (-r, 0)],
        "P": [(-r / 3, -r), (r / 3, -r), (r / 3, -r / 3), (r, -r / 3), (r, r / 3), (r / 3, r / 3),
              (r / 3, r), (-r / 3, r), (-r / 3, r / 3), (-r, r / 3), (-r, -r / 3), (-r / 3, -r / 3)],
    }  # fmt: skip
    if code in shapes:
        points = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in shapes[code])
        return f'<polygon points="{points}" fill="{colour}"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r - 1}" fill="{colour}"/>'


def _series_legend(series: tuple[Series, ...], x_end: float, below: float = 0) -> tuple[str, int]:
    """Each series' swatch (a square for bars, a stretch of the line for lines) and words, in
    rows above the plot (`below` the usual place, under a title of several lines); how many
    rows it took."""
    out: list[str] = []
    x, row = float(LEFT + 8), 0
    for s in series:
        size = 26 + 7.6 * len(s.label)
        if x > LEFT + 8 and x + size > x_end:
            x, row = float(LEFT + 8), row + 1
        y = TOP - 8 + below + 18 * row
        if s.kind == "bars":
            swatch = f'<rect x="{x}" y="{y - 12}" width="14" height="14" fill="{s.colour}"/>'
        else:
            dash = (
                f' stroke-dasharray="{" ".join(f"{d * 2.5:g}" for d in s.dashes)}"'
                if s.dashes
                else ""
            )
            swatch = (
                f'<line x1="{x - 4}" y1="{y - 5}" x2="{x + 16}" y2="{y - 5}" stroke="{s.colour}" '
                f'stroke-width="2.5"{dash}/>'
            )
            if s.marker:
                swatch += _marker(s.marker, x + 6, y - 5, s.colour, r=4)
        out.append(
            f'<g class="legend" data-series="{escape(s.key)}">{swatch}<text x="{x + 19:.1f}" '
            f'y="{y}" font-size="{TEXT_PX - 2}">{escape(s.label)}</text></g>'
        )
        x += size
    return "".join(out), row + 1


def _usd_tick(largest: float) -> Callable[[float], str]:
    """Dollars with enough decimals to tell the ticks apart."""
    digits = 2 if largest >= 0.1 or largest <= 0 else min(6, 1 - math.floor(math.log10(largest)))
    return lambda v: f"${v:.{digits}f}"


def race_svg(result: RaceResult, *, level: str, model: str, pace_s: float) -> str:
    """The race between the stops on one chart: what the run spent against turns (left) and
    against seconds (right), the track it would have gone on (dashed), each limit as a line —
    the clock and the deadline upright, the budget across both — and where each falls on the
    track, the one that fires first drawn larger."""
    limits, unit = result.limits, result.limits.unit
    track = result.track.spent(unit, limits.price_model)
    ran = result.run.spent(unit, limits.price_model)
    top = _nice_top(max([*track, *ran, limits.budget or 0.0, 0.0]) * 1.05)
    label = _(look.CUMULATIVE_USD) if unit == "usd" else _(look.CUMULATIVE_TOKENS)
    tick = "{:,.3f}".format if unit == "usd" else "{:,.0f}".format
    turns = max(len(track), limits.max_turns, 1)
    seconds = _nice_top(
        max([*result.track.ends, *result.run.ends, limits.deadline_s or 0.0, 0.1]) * 1.05
    )
    first = result.predicted
    by_turn = _race_panel(
        result,
        top,
        label,
        tick,
        x_of=lambda n: LEFT + (PANEL_W - LEFT - RIGHT) * (n - 0.5) / turns,  # a turn mid-slot
        points=(list(range(1, len(track) + 1)), list(range(1, len(ran) + 1))),
        first=first,
        kind="turns",
    )
    by_time = _race_panel(
        result,
        top,
        label,
        tick,
        x_of=lambda t: LEFT + (PANEL_W - LEFT - RIGHT) * t / seconds,
        points=(list(result.track.ends), list(result.run.ends)),
        first=first,
        kind="seconds",
    )
    turn_ticks = "".join(
        f'<text x="{LEFT + (PANEL_W - LEFT - RIGHT) * (n - 0.5) / turns:.1f}" y="{PANEL_H - BOTTOM + 18}" '
        f'font-size="{TEXT_PX - 1}" text-anchor="middle">{n}</text>'
        for n in range(1, turns + 1)
        if look.tick_shown(n - 1, turns)
    )
    step = seconds / 5
    time_ticks = "".join(
        f'<text x="{LEFT + (PANEL_W - LEFT - RIGHT) * (i * step) / seconds:.1f}" '
        f'y="{PANEL_H - BOTTOM + 18}" font-size="{TEXT_PX - 1}" text-anchor="middle">'
        f"{i * step:g}</text>"
        for i in range(6)
    )
    spent_word = _("dollars") if unit == "usd" else _("tokens")
    legend = _legend([(TOKENS_COLOUR, _(look.THE_RUN)), (look.TRACK_COLOUR, _(look.TRACK))])
    left = (
        _title(_(look.RACE_TITLE).format(spent=spent_word))
        + legend
        + "".join(_axes(top, turns, _(look.TURN), label, tick))
        + turn_ticks
        + by_turn
    )
    budget = (
        [("budget", describe.budget_text(limits.budget, unit, limits.price_model))]
        if limits.budget is not None
        else []
    )
    right = (
        "".join(_axes(top, 0, _(look.SECONDS), label, tick))
        + time_ticks
        + by_time
        + _lines_legend(budget)
    )
    alt = describe.race_alt(result, level, model, pace_s)
    return _svg(
        2 * PANEL_W, PANEL_H, left + f'<g transform="translate({PANEL_W},0)">{right}</g>', alt
    )


_FALL_SHAPES = {Stop.MAX_TURNS: "square", Stop.DEADLINE: "triangle", Stop.BUDGET: "diamond"}


def _race_panel(
    result: RaceResult,
    top: float,
    label: str,
    tick: Callable[[float], str],
    *,
    x_of: Callable[[float], float],
    points: tuple[list[float], list[float]],
    first: Fall | None,
    kind: str,
) -> str:
    """One panel of the race: the track, the run, the limits' lines, and the falls."""
    limits, unit = result.limits, result.limits.unit
    track_y = result.track.spent(unit, limits.price_model)
    run_y = result.run.spent(unit, limits.price_model)
    track_x, run_x = points
    out = []
    if track_y:
        out.append(
            _line_through(
                [x_of(x) for x in track_x],
                track_y,
                top,
                look.TRACK_COLOUR,
                f'stroke-dasharray="6 5" class="track {kind}"',
                width=2,
            )
        )
    if run_y:
        out.append(
            _line_through(
                [x_of(x) for x in run_x], run_y, top, TOKENS_COLOUR, f'class="run {kind}"', width=3
            )
        )
        out += [
            f'<circle cx="{x_of(x):.1f}" cy="{_y(v, top):.1f}" r="3.5" fill="{TOKENS_COLOUR}"/>'
            for x, v in zip(run_x, run_y)
        ]
    if limits.budget is not None:  # its words are in the legend: a line across has no room
        y = _y(limits.budget, top)
        out.append(
            _limit_line("budget", LEFT, y, PANEL_W - RIGHT, y, "", anchor="end", at=(0.0, 0.0))
        )
    upright = (
        ("max_turns", x_of(limits.max_turns + 0.5), f"max_turns={limits.max_turns}")
        if kind == "turns"
        else ("deadline", x_of(limits.deadline_s), f"deadline_s={limits.deadline_s:g}")
        if limits.deadline_s is not None
        else None
    )
    if upright is not None:
        name, x, words = upright
        right_half = x > (LEFT + PANEL_W - RIGHT) / 2  # the words on the side with room
        out.append(
            _limit_line(
                name,
                x,
                TOP,
                x,
                PANEL_H - BOTTOM,
                words,
                anchor="end" if right_half else "start",
                at=(x - 4 if right_half else x + 4, TOP + 14),
            )
        )
    for fall in result.falls:
        if fall.kept is None or (fall.kept == 0 and kind == "turns"):
            continue
        x = x_of(fall.kept if kind == "turns" else (fall.at_s or 0.0))
        out.append(_fall_mark(fall, x, _y(fall.spent, top), fall is first))
    return "".join(out)


def _lines_legend(items: list[tuple[str, str]]) -> str:
    """A legend of limit lines: a short stretch of each line in its colour and dash, its words."""
    out: list[str] = []
    x: float = LEFT + 8
    for name, words in items:
        colour, dashes = look.LIMIT_COLOURS[name], look.LIMIT_DASHES[name]
        dash = f' stroke-dasharray="{dashes}"' if dashes else ""
        out.append(
            f'<line x1="{x}" y1="{TOP - 13}" x2="{x + 22}" y2="{TOP - 13}" stroke="{colour}" '
            f'stroke-width="2.5"{dash}/><text x="{x + 28}" y="{TOP - 8}" '
            f'font-size="{TEXT_PX - 2}" fill="{colour}" font-weight="bold">{escape(words)}</text>'
        )
        x += 40 + 7.6 * len(words)
    return "".join(out)


def _limit_line(
    name: str,
    x1: float,
    y1: float,
    x2: float,
    y2: float,
    words: str,
    *,
    anchor: str,
    at: tuple[float, float],
) -> str:
    colour, dashes = look.LIMIT_COLOURS[name], look.LIMIT_DASHES[name]
    dash = f' stroke-dasharray="{dashes}"' if dashes else ""
    text = (
        f'<text x="{at[0]:.1f}" y="{at[1]:.1f}" font-size="{TEXT_PX - 1}" font-weight="bold" '
        f'fill="{colour}" text-anchor="{anchor}" paint-order="stroke" stroke="{look.BACKGROUND}" '
        f'stroke-width="4">{escape(words)}</text>'
        if words
        else ""
    )
    return (
        f'<line class="limit {name}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{colour}" stroke-width="2.5"{dash}/>{text}'
    )


def _fall_mark(fall: Fall, x: float, y: float, first: bool) -> str:
    """Where a limit falls: its own shape and colour; the first to fire is larger, outlined."""
    name = {Stop.MAX_TURNS: "max_turns", Stop.DEADLINE: "deadline", Stop.BUDGET: "budget"}[
        fall.stop
    ]
    colour, r = look.LIMIT_COLOURS[name], (9 if first else 6)
    edge = f' stroke="{look.TEXT_COLOUR}" stroke-width="2"' if first else ""
    shape = _FALL_SHAPES[fall.stop]
    attrs = f'class="fall {name}{" first" if first else ""}" data-kept="{fall.kept}" fill="{colour}"{edge}'
    if shape == "square":
        mark = f'<rect {attrs} x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}"/>'
    elif shape == "triangle":
        mark = (
            f'<polygon {attrs} points="{x:.1f},{y - r:.1f} {x + r:.1f},{y + r:.1f} '
            f'{x - r:.1f},{y + r:.1f}"/>'
        )
    else:
        mark = (
            f'<polygon {attrs} points="{x:.1f},{y - r:.1f} {x + r:.1f},{y:.1f} {x:.1f},{y + r:.1f} '
            f'{x - r:.1f},{y:.1f}"/>'
        )
    if first:
        words = escape(_("fires first"))
        mark += (
            f'<text x="{x + r + 4:.1f}" y="{y + 5:.1f}" font-size="{TEXT_PX - 1}" '
            f'font-weight="bold" paint-order="stroke" stroke="{look.BACKGROUND}" '
            f'stroke-width="4">{words}</text>'
        )
    return mark


def _line_through(
    xs: Sequence[float], values: Sequence[float], top: float, colour: str, extra: str, width: float
) -> str:
    points = " ".join(f"{x:.1f},{_y(v, top):.1f}" for x, v in zip(xs, values))
    return (
        f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="{width}" '
        f"{extra}/>"
    )


_MAP_CELL_W, _MAP_CELL_H, _MAP_LABEL_W, _MAP_TOP = 104, 96, 130, 94
"""A block's cell, the area labels' column, and the room above the rows for the title: the
level's name, then the news of the run on up to two lines."""
_MAP_NAME_H = 22
"""A narrow map's line above each row of blocks, for the area's name."""
_MAP_LEGEND_LINE = 18
"""Each further line of the map's legend, where the map is too narrow for it on one."""


def map_svg(level: Level, run: Run | None = None, *, narrow: bool = False) -> str:
    """The level as rows of numbered `?` blocks after `run`: searched areas revealed, markers
    drawn. `narrow` (a dashboard column): each area's name above its row instead of in a column
    beside it, so the blocks' words are drawn at about their own size in a narrow box."""
    return level_map_svg(figure.level_map(level, run), narrow=narrow)


def level_map_svg(view: LevelMap, *, narrow: bool = False) -> str:
    """The level map of the figure model as an SVG document (`narrow`: see `map_svg`)."""
    cell_w, cell_h, top = _MAP_CELL_W, _MAP_CELL_H, _MAP_TOP
    label_w, name_h = (0, _MAP_NAME_H) if narrow else (_MAP_LABEL_W, 0)
    width, height = _map_dims(view.width, len(view.rows), narrow)
    # the level's name, then the news of the run on a line of its own: the whole title fits
    # the narrowest map ("World 1-1: the clock — 8 searches, no star (2 more misspelt: …)")
    lines = "".join(
        f'<tspan x="8" dy="22" font-weight="normal" font-size="{TEXT_PX}">{escape(line)}</tspan>'
        for line in _wrap(view.news, int((width - 16) / (TEXT_PX * 0.6)))[:2]
    )
    parts = [
        f'<text class="map-title" x="8" y="24" font-size="{TITLE_PX}" font-weight="bold">'
        f"{escape(view.name)}{lines}</text>"
    ]
    for row, (area, blocks) in enumerate(view.rows):
        y = top + row * (cell_h + name_h)
        name_y = y + 16 if narrow else y + 40
        parts.append(
            f'<text class="area" x="8" y="{name_y}" font-size="{TEXT_PX + 2}">{escape(area)}</text>'
        )
        for col, block in enumerate(blocks):
            parts.append(
                _block(label_w + col * cell_w, y + name_h, block.number, block.item, block.marker)
            )
    legend = _map_legend_lines(view.legend, width)
    parts.append(
        f'<text class="map-legend" x="8" y="{height - 10 - _MAP_LEGEND_LINE * (len(legend) - 1)}" '
        f'font-size="{TEXT_PX - 1}" fill="{look.MUTED_COLOUR}">'
        + "".join(
            f'<tspan x="8" dy="{0 if i == 0 else _MAP_LEGEND_LINE}">{escape(line)}</tspan>'
            for i, line in enumerate(legend)
        )
        + "</text>"
    )
    return _svg(width, height, "".join(parts), view.alt)


def map_size(level: Level, *, narrow: bool = False) -> tuple[int, int]:
    """The map's width and height in SVG pixels (its `<img>` keeps this aspect ratio)."""
    areas = level.areas
    return _map_dims(max(len(b) for b in areas.values()), len(areas), narrow)


def level_map_size(view: LevelMap, *, narrow: bool = False) -> tuple[int, int]:
    """The size of `level_map_svg(view)` in SVG pixels."""
    return _map_dims(view.width, len(view.rows), narrow)


def _map_dims(columns: int, rows: int, narrow: bool = False) -> tuple[int, int]:
    label_w, name_h = (0, _MAP_NAME_H) if narrow else (_MAP_LABEL_W, 0)
    width = label_w + _MAP_CELL_W * columns + 10
    legend = len(_map_legend_lines(_(look.MAP_LEGEND), width))
    height = _MAP_TOP + (_MAP_CELL_H + name_h) * rows + 34 + _MAP_LEGEND_LINE * (legend - 1)
    return width, height


def _map_legend_lines(legend: str, width: float) -> list[str]:
    """The map's legend on as many lines as its width needs, broken between its parts (" · ")
    where it can be."""
    fits = int((width - 16) / ((TEXT_PX - 1) * REGULAR_EM))
    if len(legend) <= fits:
        return [legend]
    lines: list[str] = []
    for part in legend.split(" · "):
        if lines and len(lines[-1]) + 3 + len(part) <= fits:
            lines[-1] += " · " + part
        else:
            lines += _wrap(part, fits)
    return lines


def _wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` characters, broken between words."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _block(x: float, y: float, number: int, item: str | None, mark: bool | None) -> str:
    face = look.block_face(item)
    size = 30 if item is None else (16 if len(face.label) <= 5 else 13)
    out = [
        f'<g class="block" data-block="{number}" data-item="{escape(item or "?")}">'
        f'<rect x="{x + 5}" y="{y}" width="86" height="58" rx="8" fill="{face.fill}" '
        f'stroke="{face.edge}" stroke-width="{3 if item == "star" else 2}"/>'
        f'<text x="{x + 48}" y="{y + 29}" font-size="{size}" font-weight="bold" '
        f'fill="{face.colour}" text-anchor="middle" dominant-baseline="central">'
        f"{escape(face.label)}</text>"
    ]
    caption, caption_colour = _(look.BLOCK).format(n=number), look.MUTED_COLOUR
    if mark is not None:
        ring = look.MARKER_COLOURS[mark]
        caption = f"{number}: {_(look.MARKED) if mark else _(look.WRONG)}"
        caption_colour = ring
        out.append(
            f'<rect class="marker" data-correct="{str(mark).lower()}" x="{x + 1}" y="{y - 4}" '
            f'width="94" height="66" rx="10" fill="none" stroke="{ring}" stroke-width="4"/>'
        )
    weight = ' font-weight="bold"' if mark is not None else ""
    out.append(
        f'<text class="caption" x="{x + 48}" y="{y + 78}" font-size="{TEXT_PX - 1}" '
        f'fill="{caption_colour}" text-anchor="middle"{weight}>{escape(caption)}</text></g>'
    )
    return "".join(out)


# -- drawing helpers ---------------------------------------------------------------------------


def _svg(width: float, height: float, body: str, alt: str) -> str:
    """An SVG document whose first children are its title (the first sentence of `alt`) and
    its description (all of `alt`), referenced by `aria-labelledby`."""
    title = alt.split(". ", 1)[0]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" height="{height:.0f}" font-family="{FONT}" fill="{look.TEXT_COLOUR}" '
        'role="img" aria-labelledby="wts-title wts-desc">'
        f'<title id="wts-title">{escape(title)}</title><desc id="wts-desc">{escape(alt)}</desc>'
        f'<rect width="100%" height="100%" fill="{look.BACKGROUND}"/>{body}</svg>'
    )


def _axes(
    top: float,
    n: int,
    xlabel: str,
    ylabel: str,
    tick_text: Callable[[float], str] = "{:,.0f}".format,
) -> list[str]:
    base = PANEL_H - BOTTOM
    out = [
        f'<line x1="{LEFT}" y1="{base}" x2="{PANEL_W - RIGHT}" y2="{base}" stroke="{look.AXIS_COLOUR}"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" stroke="{look.AXIS_COLOUR}"/>',
    ]
    for tick in _ticks(top):
        y = _y(tick, top)
        out.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{PANEL_W - RIGHT}" y2="{y:.1f}" '
            f'stroke="{look.GRID_COLOUR}"/>'
        )
        out.append(
            f'<text x="{LEFT - 6}" y="{y + 5:.1f}" font-size="{TEXT_PX - 1}" '
            f'text-anchor="end">{escape(tick_text(tick))}</text>'
        )
    out.append(
        f'<text x="{(LEFT + PANEL_W - RIGHT) / 2:.0f}" y="{PANEL_H - 8}" '
        f'font-size="{TEXT_PX}" text-anchor="middle">{escape(xlabel)}</text>'
    )
    out.append(
        f'<text transform="translate(16,{(TOP + base) / 2:.0f}) rotate(-90)" '
        f'font-size="{TEXT_PX}" text-anchor="middle">{escape(ylabel)}</text>'
    )
    return out


def _title(text: str) -> str:
    return f'<text x="10" y="24" font-size="{TITLE_PX}" font-weight="bold">{escape(text)}</text>'


def _title_lines(text: str, width: float) -> tuple[str, int]:
    """The title on one line where it fits in `width`, else broken into lines of their own
    (`<tspan>`s of one `<text>`): after its colon where both halves fit ("Cumulative cost at
    gpt-4o:" / "5,766 tokens, $0.0194"), else between words; how many lines it took."""
    fits = int((width - 20) / (TITLE_PX * BOLD_EM))
    head, colon, rest = text.partition(": ")
    lines = (
        [text]
        if len(text) <= fits
        else [head + ":", rest]
        if colon and len(head) < fits and len(rest) <= fits
        else _wrap(text, fits)
    )
    if len(lines) == 1:
        return _title(text), 1
    spans = "".join(
        f'<tspan x="10" dy="{0 if i == 0 else TITLE_LINE}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    title = f'<text x="10" y="24" font-size="{TITLE_PX}" font-weight="bold">{spans}</text>'
    return title, len(lines)


def _legend(items: list[tuple[str, str]]) -> str:
    out: list[str] = []
    x: float = LEFT + 8
    for colour, label in items:
        out.append(
            f'<rect x="{x}" y="{TOP - 20}" width="14" height="14" fill="{colour}"/>'
            f'<text x="{x + 19}" y="{TOP - 8}" font-size="{TEXT_PX - 2}">{escape(label)}</text>'
        )
        x += 26 + 7.6 * len(label)
    return "".join(out)


def _scale(value: float, top: float) -> float:
    return (PANEL_H - TOP - BOTTOM) * value / top


def _y(value: float, top: float) -> float:
    return PANEL_H - BOTTOM - _scale(value, top)


def _nice_top(largest: float) -> float:
    """The axis top: 1, 2, 2.5 or 5 times a power of ten, at or above the largest value."""
    if largest <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(largest))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= largest)


def _ticks(top: float) -> list[float]:
    """Six ticks from 0 to `top`; just 0 and 1 on an empty chart (top 1: no turns yet). A top
    below 1 is dollars: six ticks too."""
    return [top * i / 5 for i in range(6)] if top != 1 else [0.0, 1.0]
