"""The SVG renderer: the explorer's live views (the cost of a run, the level map, the race),
drawn in about a millisecond so a slider answers at once, and every figure of the figure model
(`figure.py`) as SVG — which is how the notebooks' figures are drawn where matplotlib cannot be
loaded (`plots`, in the browser edition).

`plots` draws the same figure models with matplotlib where it can; a matplotlib figure takes
0.2-0.6 s to render on a workshop laptop, too slow to follow a slider (bench/RESULTS.md, section
4). These functions draw with the same look (`look.py`) and return an SVG document as text. They
only read runs; `run=None` is "no run yet". Each SVG carries its text alternative (`describe.py`,
from the figure model) as `<title>` and `<desc>`, and its size: `img` shows it as an `<img>`
with those words as its alt text and that aspect ratio.
"""

from __future__ import annotations

import base64
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from html import escape
from typing import TYPE_CHECKING

from ..i18n import _, number
from ..level import Judgement, Level
from ..outcome import Run
from ..usage import DEFAULT_PRICE_MODEL, Price, price
from . import describe, figure, look
from .figure import Block, Chart, LevelMap, Panels, Point, Rule, Series
from .look import SEPARATOR_COLOUR

if TYPE_CHECKING:
    from ..lesson.race import RaceResult

SVG_NS = "http://www.w3.org/2000/svg"
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

_wrap = partial(textwrap.wrap, break_long_words=False, break_on_hyphens=False)
"""`text` in lines of at most `width` characters, broken between words only."""


def _tag(name: str, inner: str = "", /, **attrs: object) -> str:
    """An SVG element with `attrs` in their order: `cls` is written `class` and `_` as `-`
    (`font_size`: `font-size`), a float with one decimal, a string escaped, None left out.
    `inner` is markup already built (words go in through `_text`); none: an empty element."""
    named = "".join(
        f' {"class" if key == "cls" else key.replace("_", "-")}="'
        + (f"{value:.1f}" if isinstance(value, float) else escape(str(value)))
        + '"'
        for key, value in attrs.items()
        if value is not None
    )
    return f"<{name}{named}>{inner}</{name}>" if inner else f"<{name}{named}/>"


def _text(words: str, **attrs: object) -> str:
    """A `<text>` of `words` (escaped)."""
    return _tag("text", escape(words), **attrs)


NOTEBOOK_FIGURE = {"style": "max-width:100%;height:auto", "cls": "wts-figure"}
"""How a notebook's figure is shown (`plots`), drawn as SVG or by matplotlib: at its own size,
narrowed to the column where it is wider."""


def data_uri(svg: str) -> str:
    """An `<img src=...>` value: the page swaps one attribute, and nothing inside is parsed."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def img_html(src: str, alt: str, size: tuple[float, float], style: str, cls: str = "") -> str:
    """An `<img>` of `size` (its aspect ratio kept at any width: no gap below it, and the page
    does not jump when it is redrawn) whose alt text is `alt`."""
    width, height = (round(v) for v in size)
    named = f'class="{cls}" ' if cls else ""
    return (
        f'<img {named}src="{src}" alt="{escape(alt)}" width="{width}" height="{height}" '
        f'style="{style}">'
    )


def img(svg: str, style: str = "display:block;width:100%;height:auto", cls: str = "") -> str:
    """An SVG of this module as an `<img>`: its words (`<desc>`) the alt text, its size kept.
    Renders in Voila and JupyterLab alike, testable as text."""
    root = ET.fromstring(svg)
    alt = root.findtext(f"{{{SVG_NS}}}desc") or ""
    size = (float(root.get("width", 0)), float(root.get("height", 0)))
    return img_html(data_uri(svg), alt, size, style, cls)


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
    tokens = figure.tokens_per_turn(run)
    return panels_svg(Panels((tokens, cumulative), describe.panels_alt(tokens, cumulative)))


def race_svg(result: RaceResult, *, level: str, model: str, pace_s: float) -> str:
    """The race between the stops (`figure.race`): against turns beside against seconds."""
    return panels_svg(figure.race(result, level=level, model=model, pace_s=pace_s))


def chart_svg(model: Chart, width: float = PANEL_W, height: float = PANEL_H) -> str:
    """Any chart of the figure model as an SVG document of `width` x `height` pixels."""
    return _svg(width, height, _chart_panel(model, width, height), model.alt)


def panels_svg(model: Panels) -> str:
    """Charts of the figure model side by side, each a panel, under the figure's title."""
    width = PANEL_W * len(model.charts)
    parts = [_title_lines(model.title, width)[0] if model.title else ""]
    for i, chart in enumerate(model.charts):
        panel = _chart_panel(chart, PANEL_W, PANEL_H)
        parts.append(_tag("g", panel, transform=f"translate({PANEL_W * i},0)") if i else panel)
    return _svg(width, PANEL_H, "".join(parts), model.alt)


# -- a chart of the figure model, on a frame -----------------------------------------------------


@dataclass(frozen=True)
class _Frame:
    """Where data goes in a panel: the plot area and the scales of its axes. An x from `x_from`
    to `x_from + x_span` spans the plot's width (a chart's turns: a slot each)."""

    width: float
    height: float
    top: float
    x_from: float
    x_span: float
    y_top: float
    y2_top: float = 1.0
    right: float = RIGHT

    @property
    def base(self) -> float:
        return self.height - BOTTOM

    @property
    def x_end(self) -> float:
        return self.width - self.right

    @property
    def slot(self) -> float:
        return (self.x_end - LEFT) / self.x_span

    def x(self, value: float) -> float:
        return LEFT + self.slot * (value - self.x_from)

    def y(self, value: float, right: bool = False) -> float:
        top = self.y2_top if right else self.y_top
        return self.base - (self.base - self.top) * value / top


def _chart_panel(model: Chart, width: float, height: float) -> str:
    """The chart's title, legend, axes, series, rules and notable points, in a panel of
    `width` x `height`."""
    title, lines = _title_lines(model.title, width) if model.title else ("", 1)
    below = TITLE_LINE * (lines - 1)  # the legend and the plot move down under a longer title
    legend, rows = _legend(model, width - RIGHT, below)
    frame = _frame(model, width, height, TOP + below + 18 * (rows - 1))
    parts = [title, legend, *_frame_axes(model, frame)]
    if model.empty:
        middle = {"x": width / 2, "y": height / 2, "font_size": TITLE_PX, "text_anchor": "middle"}
        return "".join([*parts, _text(model.empty, fill=look.MUTED_COLOUR, **middle)])
    for series in model.series:
        if series.kind == "bars":
            parts += _bars(series, frame, model)
        else:
            parts.append(_line(series, frame, f"{series.key} {model.kind}"))
    parts += [_rule(rule, frame) for rule in model.rules]
    parts += [_point(point, frame) for point in model.points]
    return "".join(parts)


def _frame(model: Chart, width: float, height: float, top: float) -> _Frame:
    xs = [x for s in model.series for x in s.x] or [1]
    bars = [s for s in model.series if s.kind == "bars"]
    # every bar's top edge: the highest is a whole stack's (a bar's value is never negative)
    tops = [b + v for s in bars for b, v in zip(model.bottoms(s), s.y)]
    lines = [v for s in model.on("left") if s.kind == "line" for v in s.y]
    y_top = model.y.span[1] if model.y.span else look.nice_top(max([*tops, *lines, 0.0]))
    x_from, x_to = model.x.span or (min(xs) - 0.5, max(xs) + 0.5)
    return _Frame(
        width=width,
        height=height,
        top=top,
        x_from=x_from,
        x_span=x_to - x_from,
        y_top=y_top,
        y2_top=y_top * model.y2_per_y if model.y2_per_y else 1.0,
        right=RIGHT_WITH_AXIS if model.y2 is not None else RIGHT,
    )


def _frame_axes(model: Chart, f: _Frame) -> list[str]:
    """The axes, the grid and six ticks up the left; the x axis's ticks along the bottom (none
    on an empty chart), the wrap-up's under its own bar a line lower (it is no turn of the
    budget); and the right axis (dollars)."""
    out = [
        _tag("line", x1=LEFT, y1=f.base, x2=f.x_end, y2=f.base, stroke=look.AXIS_COLOUR),
        _tag("line", x1=LEFT, y1=f.top, x2=LEFT, y2=f.base, stroke=look.AXIS_COLOUR),
    ]
    # six ticks from 0 to the top; just 0 and 1 on an empty chart (top 1: no turns yet)
    words = {"font_size": TEXT_PX - 1, "text_anchor": "end"}
    for tick in [f.y_top * i / 5 for i in range(6)] if f.y_top != 1 else [0.0, 1.0]:
        y = f.y(tick)
        out.append(_tag("line", x1=LEFT, y1=y, x2=f.x_end, y2=y, stroke=look.GRID_COLOUR))
        out.append(_text(number(tick, model.y.digits), cls="tick y", x=LEFT - 6, y=y + 5, **words))
    for x, label in () if model.empty else model.x.ticks:
        if x == model.wrap_up:  # under its own bar, a line lower
            muted = {"font_size": TEXT_PX - 2, "text_anchor": "end", "fill": look.MUTED_COLOUR}
            out.append(_text(f"{label} ↑", cls="tick wrap-up", x=f.x(x), y=f.base + 34, **muted))
        else:
            below = {"y": f.base + 18, "font_size": TEXT_PX - 1, "text_anchor": "middle"}
            out.append(_text(label, cls="tick", x=f.x(x), **below))
    centred = {"font_size": TEXT_PX, "text_anchor": "middle"}
    turned = f"translate(16,{(f.top + f.base) / 2:.0f}) rotate(-90)"
    x_label = (LEFT + f.x_end) / 2
    out.append(_text(model.x.label, cls="axis-label x", x=x_label, y=f.height - 8, **centred))
    out.append(_text(model.y.label, cls="axis-label y", transform=turned, **centred))
    if model.y2 is not None:
        right = model.on("right")
        colour = right[0].colour if right else look.TEXT_COLOUR
        out.append(_tag("line", x1=f.x_end, y1=f.top, x2=f.x_end, y2=f.base, stroke=colour))
        for value in (f.y2_top * i / 5 for i in range(6)):
            at = {"x": f.x_end + 6, "y": f.y(value, right=True) + 5, "font_size": TEXT_PX - 1}
            out.append(_text(number(value, model.y2.digits), cls="tick y2", **at, fill=colour))
        turned = f"translate({f.width - 16},{(f.top + f.base) / 2:.0f}) rotate(90)"
        side = {"font_size": TEXT_PX, "fill": colour, "text_anchor": "middle"}
        out.append(_text(model.y2.label, cls="axis-label y2", transform=turned, **side))
    return out


def _bars(series: Series, f: _Frame, model: Chart) -> list[str]:
    """One series of bars, each on what the earlier series stacked at its x; the wrap-up's
    segments outlined dashed, the others with a white line between them."""
    bar = max(min(f.slot * 0.75, 40), 2)
    separator = {"stroke": SEPARATOR_COLOUR, "stroke_width": 1.5} if bar >= 6 else {}
    dashed = {"stroke": look.TEXT_COLOUR, "stroke_dasharray": "4 3"}
    out = []
    for x, value, below in zip(series.x, series.y, model.bottoms(series)):
        if series.key == "cached" and not value:
            continue  # no server-cached part on this turn: nothing to draw
        top, turn = f.y(below + value), {"data_turn": x, "data_value": f"{value:g}"}
        box = {"x": f.x(x) - bar / 2, "y": top, "width": bar, "height": f.y(below) - top}
        edge = dashed if x == model.wrap_up else separator
        out.append(_tag("rect", cls=f"bar {series.key}", **turn, **box, fill=series.colour, **edge))
    return out


def _line(series: Series, f: _Frame, cls: str = "") -> str:
    """A line through the series' points, with its dashes and its marker at every point."""
    right = series.axis == "right"
    points = [(f.x(x), f.y(v, right)) for x, v in zip(series.x, series.y)]
    values = " ".join(f"{v:g}" for v in series.y)
    at = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    stroke = {"stroke": series.colour, "stroke_width": series.width, **_dashes(series)}
    out = [_tag("polyline", cls=cls or None, points=at, fill="none", **stroke)]
    if series.marker:
        out += [_marker(series.marker, x, y, series.colour) for x, y in points]
    return _tag("g", "".join(out), cls="series", data_series=series.key, data_values=values)


def _dashes(series: Series, width: float | None = None) -> dict[str, str]:
    """The series' dashes as an SVG attribute, in units of `width` (its own line's by default)."""
    if not series.dashes:
        return {}
    unit = series.width if width is None else width
    return {"stroke_dasharray": " ".join(f"{d * unit:g}" for d in series.dashes)}


def _marker(code: str, x: float, y: float, colour: str, r: float = 4.5, **attrs: object) -> str:
    """Matplotlib's marker `code` as an SVG shape: circle, square, triangles, diamond, plus."""
    if code == "s":
        return _tag("rect", x=x - r, y=y - r, width=2 * r, height=2 * r, fill=colour, **attrs)
    shapes = {
        "^": [(0, -r), (r, r), (-r, r)],
        "v": [(0, r), (r, -r), (-r, -r)],
        "D": [(0, -r), (r, 0), (0, r), (-r, 0)],
        "P": [(-r / 3, -r), (r / 3, -r), (r / 3, -r / 3), (r, -r / 3), (r, r / 3), (r / 3, r / 3),
              (r / 3, r), (-r / 3, r), (-r / 3, r / 3), (-r, r / 3), (-r, -r / 3), (-r / 3, -r / 3)],
    }  # fmt: skip
    if code in shapes:
        points = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in shapes[code])
        return _tag("polygon", points=points, fill=colour, **attrs)
    return _tag("circle", cx=x, cy=y, r=r - 1, fill=colour, **attrs)


def _legend(model: Chart, x_end: float, below: float = 0) -> tuple[str, int]:
    """Each named series' swatch (a square for bars, a stretch of the line for lines) and words,
    then each named rule's (its words in bold, in its colour), in rows above the plot (`below`
    the usual place, under a title of several lines); how many rows it took."""
    out: list[str] = []
    x, row = float(LEFT + 8), 0
    named: list[Series | Rule] = [s for s in model.series if s.label]
    named += [r for r in model.rules if r.label and r.across]
    for s in named:
        size = 26 + 7.6 * len(s.label)
        if x > LEFT + 8 and x + size > x_end:
            x, row = float(LEFT + 8), row + 1
        y = TOP - 8 + below + 18 * row
        ends = {"x1": x - 4, "y1": y - 5, "x2": x + 16, "y2": y - 5}
        words: dict[str, object] = {"x": x + 19, "y": y, "font_size": TEXT_PX - 2}
        if isinstance(s, Rule):
            swatch = _tag("line", **ends, **_limit_stroke(s.key))
            words |= {"fill": look.LIMIT_COLOURS[s.key], "font_weight": "bold"}
        elif s.kind == "bars":
            swatch = _tag("rect", x=x, y=y - 12, width=14, height=14, fill=s.colour)
        else:
            swatch = _tag("line", **ends, stroke=s.colour, stroke_width=2.5, **_dashes(s, 2.5))
            if s.marker:
                swatch += _marker(s.marker, x + 6, y - 5, s.colour, r=4)
        out.append(_tag("g", swatch + _text(s.label, **words), cls="legend", data_series=s.key))
        x += size
    return "".join(out), row + 1


def _rule(rule: Rule, f: _Frame) -> str:
    """A limit's line, in its colour and dashes: across the plot, or upright with its words
    beside it, on the side with room."""
    x = f.x(rule.at)
    at = (LEFT, f.y(rule.at), f.x_end, f.y(rule.at)) if rule.across else (x, f.top, x, f.base)
    ends = dict(zip(("x1", "y1", "x2", "y2"), at))
    line = _tag("line", cls=f"limit {rule.key}", **ends, **_limit_stroke(rule.key))
    if rule.across or not rule.label:
        return line
    # the words beside the line: left of it in the plot's right half, else right of it
    at_x, anchor = (x - 4, "end") if x > (LEFT + f.x_end) / 2 else (x + 4, "start")
    return line + _halo(at_x, f.top + 14, rule.label, look.LIMIT_COLOURS[rule.key], anchor)


def _limit_stroke(key: str) -> dict[str, object]:
    """A limit's line in its colour and dashes (`look.LIMIT_COLOURS`, `LIMIT_DASHES`)."""
    dashes = look.LIMIT_DASHES[key] or None
    return {"stroke": look.LIMIT_COLOURS[key], "stroke_width": 2.5, "stroke_dasharray": dashes}


def _point(point: Point, f: _Frame) -> str:
    """A notable point in its shape and colour; the first to fire larger, outlined, and said."""
    x, y, first = f.x(point.x), f.y(point.y), point.first
    edge = {"stroke": look.TEXT_COLOUR, "stroke_width": 2} if first else {}
    cls = f"fall {point.key} first" if first else f"fall {point.key}"
    shape, colour = look.LIMIT_MARKERS[point.key], look.LIMIT_COLOURS[point.key]
    mark = _marker(shape, x, y, colour, 9 if first else 6, cls=cls, data_kept=point.kept, **edge)
    return mark + _halo(x + 13, y + 5, _("fires first"), look.TEXT_COLOUR) if first else mark


def _halo(x: float, y: float, words: str, colour: str, anchor: str = "start") -> str:
    """Bold words on a halo of the background, readable across the lines they cross."""
    bold = {"font_size": TEXT_PX - 1, "font_weight": "bold", "fill": colour, "text_anchor": anchor}
    halo = {"paint_order": "stroke", "stroke": look.BACKGROUND, "stroke_width": 4}
    return _text(words, x=x, y=y, **bold, **halo)


# -- the level map -------------------------------------------------------------------------------

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
    # narrow: each area's name on a line above its row (its baseline `name_y` down), else beside it
    label_w, name_h, name_y = (0, _MAP_NAME_H, 16) if narrow else (_MAP_LABEL_W, 0, 40)
    width = label_w + _MAP_CELL_W * view.width + 10
    legend = _map_legend_lines(view.legend, width)
    more = _MAP_LEGEND_LINE * (len(legend) - 1)  # the legend's further lines
    height = _MAP_TOP + (_MAP_CELL_H + name_h) * len(view.rows) + 34 + more
    # the level's name, then the news of the run on a line of its own: the whole title fits
    # the narrowest map ("World 1-1: the clock — 8 searches, no star (2 more misspelt: …)")
    news = _wrap(view.news, int((width - 16) / (TEXT_PX * 0.6)))[:2]
    plain = {"x": 8, "dy": 22, "font_weight": "normal", "font_size": TEXT_PX}
    lines = "".join(_tag("tspan", escape(line), **plain) for line in news)
    bold = {"x": 8, "y": 24, "font_size": TITLE_PX, "font_weight": "bold"}
    parts = [_tag("text", escape(view.name) + lines, cls="map-title", **bold)]
    for row, (area, blocks) in enumerate(view.rows):
        y = _MAP_TOP + row * (_MAP_CELL_H + name_h)
        parts.append(_text(area, cls="area", x=8, y=y + name_y, font_size=TEXT_PX + 2))
        parts += [
            _block(label_w + col * _MAP_CELL_W, y + name_h, block)
            for col, block in enumerate(blocks)
        ]
    muted = {"font_size": TEXT_PX - 1, "fill": look.MUTED_COLOUR}
    words = _tspans(legend, 8, _MAP_LEGEND_LINE)
    parts.append(_tag("text", words, cls="map-legend", x=8, y=height - 10 - more, **muted))
    return _svg(width, height, "".join(parts), view.alt)


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


def _block(x: float, y: float, block: Block) -> str:
    face, number, mark = block.face, block.number, block.marker
    size = 30 if block.item is None else (16 if len(face.label) <= 5 else 13)
    box = {"x": x + 5, "y": y, "width": 86, "height": 58, "rx": 8, "fill": face.fill}
    edge = {"stroke": face.edge, "stroke_width": 3 if block.item == "star" else 2}
    label = {"font_size": size, "font_weight": "bold", "fill": face.colour}
    centred = {"text_anchor": "middle", "dominant_baseline": "central"}
    out = [_tag("rect", **box, **edge), _text(face.label, x=x + 48, y=y + 29, **label, **centred)]
    caption, colour, weight = _(look.BLOCK).format(n=number), look.MUTED_COLOUR, None
    if mark is not None:  # the ring, and the caption in its colour, in bold
        colour, weight = look.MARKER_COLOURS[mark], "bold"
        caption = f"{number}: {_(look.MARKED) if mark else _(look.WRONG)}"
        ring = {"x": x + 1, "y": y - 4, "width": 94, "height": 66, "rx": 10, "fill": "none"}
        stroke = {"stroke": colour, "stroke_width": 4}
        out.append(_tag("rect", cls="marker", data_correct=str(mark).lower(), **ring, **stroke))
    below = {"x": x + 48, "y": y + 78, "font_size": TEXT_PX - 1, "fill": colour}
    out.append(_text(caption, cls="caption", **below, text_anchor="middle", font_weight=weight))
    return _tag("g", "".join(out), cls="block", data_block=number, data_item=block.item or "?")


# -- drawing helpers ---------------------------------------------------------------------------


def _svg(width: float, height: float, body: str, alt: str) -> str:
    """An SVG document whose first children are its title (the first sentence of `alt`) and
    its description (all of `alt`), referenced by `aria-labelledby`."""
    title = alt.split(". ", 1)[0]
    wide, high = f"{width:.0f}", f"{height:.0f}"
    size = {"viewBox": f"0 0 {wide} {high}", "width": wide, "height": high}
    named = {"font_family": FONT, "fill": look.TEXT_COLOUR, "role": "img"}
    head = _tag("title", escape(title), id="wts-title") + _tag("desc", escape(alt), id="wts-desc")
    inner = head + _tag("rect", width="100%", height="100%", fill=look.BACKGROUND) + body
    return _tag("svg", inner, xmlns=SVG_NS, **size, **named, aria_labelledby="wts-title wts-desc")


def _title_lines(text: str, width: float) -> tuple[str, int]:
    """The title on one line where it fits in `width`, else broken into lines of their own
    (`<tspan>`s of one `<text>`): after its colon where both halves fit ("Cumulative cost at
    gpt-4o:" / "5,766 tokens, $0.0194"), else between words; how many lines it took."""
    fits = int((width - 20) / (TITLE_PX * BOLD_EM))
    head, colon, rest = text.partition(": ")
    if len(text) <= fits:
        lines = [text]
    elif colon and len(head) < fits and len(rest) <= fits:
        lines = [head + ":", rest]
    else:
        lines = _wrap(text, fits)
    spans = escape(text) if len(lines) == 1 else _tspans(lines, 10, TITLE_LINE)
    return _tag("text", spans, x=10, y=24, font_size=TITLE_PX, font_weight="bold"), len(lines)


def _tspans(lines: Sequence[str], x: int, dy: int) -> str:
    """The lines of one `<text>`, each `dy` below the one before."""
    return "".join(
        _tag("tspan", escape(line), x=x, dy=0 if i == 0 else dy) for i, line in enumerate(lines)
    )
