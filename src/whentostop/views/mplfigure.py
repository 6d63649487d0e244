"""The matplotlib renderer of the figure model (`figure.py`): each figure as a new
`matplotlib.figure.Figure` that carries its text alternative.

Only `plots` imports this module, and only where matplotlib can be imported: importing `plots`
never loads matplotlib. It uses the object-oriented API only — no pyplot, no global state, no
`plt.show()` — so it works the same in a notebook, in Voila, in a test and on a headless server
(Agg). Fonts are sized for a workshop projector (12 pt and up).
"""

from __future__ import annotations

import base64
import html
import io
import math
import textwrap
from collections.abc import Callable
from typing import Any

from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..i18n import _
from . import look
from .figure import Block, Chart, LevelMap, Series

TEXT_PT = 13
"""Axis labels, ticks and legends: readable from the back of a room."""
TITLE_PT = 15

ROW_GAP = 1.3
"""Vertical distance between two areas' rows, in block heights: room for the block numbers."""
COL_GAP = 1.2
HALF_W, HALF_H = 0.46, 0.38
"""A block's half width and height: wide enough for "mushroom" at 12 pt."""


class DescribedFigure(Figure):
    """A matplotlib Figure that carries its text alternative, `alt_text`.

    In Jupyter and Voila it is shown as an `<img alt=...>` (HTML) beside the usual PNG, drawn
    once for both: JupyterLab's own PNG view has no alt text.
    """

    alt_text: str = ""

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        png = base64.b64encode(png_bytes(self)).decode()
        width, height = (round(v) for v in self.get_size_inches() * 100)
        shown = (
            f'<img class="wts-figure" src="data:image/png;base64,{png}" '
            f'alt="{html.escape(self.alt_text)}" width="{width}" height="{height}" '
            'style="max-width:100%;height:auto">'
        )
        return {"text/html": shown, "image/png": png, "text/plain": self.alt_text}


def png_bytes(fig: Figure, *, dpi: int = 100) -> bytes:
    """The figure as PNG bytes, at a fixed size (no tight crop), so a widget does not jump."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    return buffer.getvalue()


def show_figures_in_jupyter() -> None:
    """Display a returned Figure as a PNG in Jupyter and Voila: without pyplot, no inline
    backend is loaded, and a bare Figure would show only as `<Figure size 900x460>`."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None and hasattr(shell, "display_formatter"):
        formatters = shell.display_formatter.formatters
        formatters["image/png"].for_type(Figure, png_bytes)
        # A DescribedFigure draws its PNG once, in its own bundle: no second drawing by the
        # PNG formatter (the inline backend registers one for every Figure).
        formatters["image/png"].for_type(DescribedFigure, lambda fig: None)


show_figures_in_jupyter()


def map_size(view: LevelMap) -> tuple[float, float]:
    """The map's size in inches: a column per block, a row per area."""
    return 1.55 * view.width + 2.2, 1.45 * len(view.rows) + 1.1


# -- a chart -------------------------------------------------------------------------------------


def chart(model: Chart, figsize: tuple[float, float]) -> DescribedFigure:
    """`model` drawn on one axes (and a twin for its right axis): bars stacked in the order of
    their series, lines with their dashes and markers, the turn ticks, the legend."""
    fig = _figure(figsize, model.alt)
    ax = fig.add_subplot()
    bottoms: dict[int, float] = {}
    for series in model.on("left"):
        _draw(ax, series, bottoms, model.wrap_up)
    if any(s.kind == "line" for s in model.on("left")):
        ax.set_ylim(bottom=0)
    _style(ax, _plain(model.title), model.x.label, model.y.label)
    if model.x.ticks:
        ax.set_xticks(
            [x for x, _label in model.x.ticks],
            [_tick_text(model, x, label) for x, label in model.x.ticks],
        )
        xs = [x for s in model.series for x in s.x]
        ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    lines = list(ax.get_lines())
    if model.y2 is not None:
        right = ax.twinx()
        for series in model.on("right"):
            _draw(right, series, {}, model.wrap_up)
        colour = model.on("right")[0].colour if model.on("right") else look.TEXT_COLOUR
        right.set_ylabel(model.y2.label, fontsize=TEXT_PT, color=colour)
        right.tick_params(labelsize=TEXT_PT - 1, colors=colour)
        right.set_ylim(0, _matching_top(ax, model))
        right.yaxis.set_major_formatter(FuncFormatter(_usd_label(_largest(model.on("right")))))
        lines += right.get_lines()
    if model.empty:
        _say(ax, model.empty)
    elif lines and not any(s.kind == "bars" for s in model.series):
        ax.legend(
            lines,
            [str(line.get_label()) for line in lines],
            fontsize=TEXT_PT - 1,
            loc="upper left",
        )
    elif model.series:
        ax.legend(fontsize=TEXT_PT - 1, loc="upper left")
    return fig


def _draw(ax: Axes, series: Series, bottoms: dict[int, float], wrap_up: int | None) -> None:
    if series.kind == "bars":
        below = [bottoms.get(x, 0.0) for x in series.x]
        container = ax.bar(
            series.x,
            series.y,
            bottom=below,
            color=series.colour,
            label=_plain(series.label),
            gid=series.key,
            edgecolor=look.SEPARATOR_COLOUR,  # white lines between the stacked parts
            linewidth=1.2,
        )
        for x, y in zip(series.x, series.y):
            bottoms[x] = bottoms.get(x, 0.0) + y
        if wrap_up is not None and isinstance(container, BarContainer):
            for x, patch in zip(series.x, container.patches):
                if x == wrap_up:
                    patch.set_hatch("//")
        return
    ax.plot(
        series.x,
        series.y,
        marker=series.marker or None,
        markersize=8 if series.key.startswith("run:") else 6,
        linestyle=(0, series.dashes) if series.dashes else "-",
        linewidth=series.width,
        color=series.colour,
        gid=series.key,
        label=_plain(series.label),
    )


def _tick_text(model: Chart, x: int, label: str) -> str:
    """The wrap-up's tick on two lines ("wrap-" / "up"): it sits under a bar of its own."""
    return label.replace("-", "-\n", 1) if x == model.wrap_up else label


def _style(ax: Axes, title: str, xlabel: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=TITLE_PT, loc="left")
    ax.set_xlabel(xlabel, fontsize=TEXT_PT)
    ax.set_ylabel(ylabel, fontsize=TEXT_PT)
    ax.tick_params(labelsize=TEXT_PT - 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(axis="y", alpha=0.3)
    ax.spines["top"].set_visible(False)


def _say(ax: Axes, words: str) -> None:
    ax.text(
        0.5,
        0.5,
        words,
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize=TITLE_PT,
        color=look.MUTED_COLOUR,
    )


def _largest(series: tuple[Series, ...]) -> float:
    return max((v for s in series for v in s.y), default=0.0)


def _matching_top(ax: Axes, model: Chart) -> float:
    """Scale the right axis so its first line ends at the height the left axis's first line
    ends at (the USD line sits on the tokens line at the last turn)."""
    left, right = model.on("left"), model.on("right")
    if not left or not right or not left[0].y or not left[0].y[-1] or not right[0].y[-1]:
        return 1.0
    return float(ax.get_ylim()[1] * right[0].y[-1] / left[0].y[-1])


def _usd_label(largest: float) -> Callable[[float, object], str]:
    digits = 2 if largest >= 0.1 or largest <= 0 else min(6, 1 - math.floor(math.log10(largest)))
    return lambda v, _: f"${v:.{digits}f}"


# -- the level map -------------------------------------------------------------------------------


def level_map(view: LevelMap, figsize: tuple[float, float] | None = None) -> DescribedFigure:
    """The level as rows of numbered `?` blocks, one row per area; markers on their blocks, a
    wrong one in red."""
    fig = _figure(figsize or map_size(view), view.alt)
    ax = fig.add_subplot()
    rows = len(view.rows)
    for row, (_area, blocks) in enumerate(view.rows):
        y = ROW_GAP * (rows - 1 - row)
        for col, block in enumerate(blocks):
            _draw_block(ax, COL_GAP * col, y, block)
            if block.marker is not None:
                _draw_marker(ax, COL_GAP * col, y, block.number, block.marker)
    ax.set_xlabel(_plain(view.legend), fontsize=TEXT_PT - 1, color=look.MUTED_COLOUR)
    ax.set_yticks(
        [ROW_GAP * i for i in range(rows)],
        [_plain(area) for area, _blocks in reversed(view.rows)],
        fontsize=TEXT_PT + 3,
    )
    ax.set_xticks([])
    ax.set_xlim(-0.6, COL_GAP * (view.width - 1) + 0.6)
    ax.set_ylim(-0.95, ROW_GAP * (rows - 1) + 0.5)
    ax.set_aspect("equal")
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(left=False)
    news_lines = textwrap.wrap(view.news, width=max(40, int(fig.get_figwidth() * 8)))
    ax.set_title(_plain("\n".join([view.name, *news_lines])), fontsize=TITLE_PT + 1, loc="left")
    return fig


def _draw_block(ax: Axes, col: float, y: float, block: Block) -> None:
    """One `?` block, closed or showing what it hid."""
    face = block.face
    ax.add_patch(
        FancyBboxPatch(
            (col - HALF_W, y - HALF_H),
            2 * HALF_W,
            2 * HALF_H,
            boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=face.fill,
            edgecolor=face.edge,
            linewidth=3 if block.item == "star" else 2,
            gid=f"block:{block.number}",
        )
    )
    size = TITLE_PT + 10 if block.item is None else (TEXT_PT + 2 if len(face.label) <= 5 else 12)
    ax.text(
        col,
        y + 0.02,
        _plain(face.label),
        ha="center",
        va="center",
        fontsize=size,
        color=face.colour,
        fontweight="bold",
        gid=f"label:{block.number}",
    )
    ax.text(
        col,
        y - HALF_H - 0.06,
        _(look.BLOCK).format(n=block.number),
        ha="center",
        va="top",
        fontsize=TEXT_PT,
        color=look.MUTED_COLOUR,
        gid=f"number:{block.number}",
    )


def _draw_marker(ax: Axes, col: float, y: float, block: int, correct: bool) -> None:
    """A marker ring and pin on the marked block: green when the star is there, red when not."""
    colour = look.MARKER_COLOURS[correct]
    ax.add_patch(
        FancyBboxPatch(
            (col - HALF_W - 0.05, y - HALF_H - 0.05),
            2 * HALF_W + 0.1,
            2 * HALF_H + 0.1,
            boxstyle="round,pad=0.02,rounding_size=0.1",
            facecolor="none",
            edgecolor=colour,
            linewidth=4,
        )
    )
    ax.plot(
        [col + HALF_W - 0.1],
        [y + HALF_H - 0.08],
        marker="v",
        markersize=18,
        color=colour,
        markeredgecolor="white",
        markeredgewidth=1.5,
        gid=f"marker:{block}",
        linestyle="none",
    )
    for text in ax.texts:
        if text.get_gid() == f"number:{block}":
            text.set_text(
                _(look.BLOCK).format(n=block)
                + "\n"
                + (_(look.MARKED) if correct else _(look.WRONG))
            )
            text.set_color(colour)
            text.set_fontweight("bold")


# -- shared --------------------------------------------------------------------------------------


def _figure(figsize: tuple[float, float], alt: str) -> DescribedFigure:
    fig = DescribedFigure(figsize=figsize, layout="constrained")
    fig.alt_text = alt
    return fig


def _plain(text: str) -> str:
    """Text drawn as written: a `$` (a price, a level's title) is not matplotlib mathtext."""
    return text.replace("$", r"\$")
