"""The matplotlib renderer of the figure model (`figure.py`): each figure as a new
`matplotlib.figure.Figure` that carries its text alternative.

Only `plots` imports this module, and only where matplotlib can be imported: importing `plots`
never loads matplotlib. It uses the object-oriented API only — no pyplot, no global state, no
`plt.show()` — so it works the same in a notebook, in Voila, in a test and on a headless server
(Agg). Fonts are sized for a workshop projector (12 pt and up).
"""

from __future__ import annotations

import base64
import io
import textwrap
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..i18n import _, number
from . import look
from .charts import NOTEBOOK_FIGURE, img_html
from .figure import Axis, Block, Chart, LevelMap, Series

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
        size = tuple(self.get_size_inches() * 100)
        shown = img_html(f"data:image/png;base64,{png}", self.alt_text, size, **NOTEBOOK_FIGURE)
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


# -- a chart -------------------------------------------------------------------------------------


def chart(model: Chart, figsize: tuple[float, float]) -> DescribedFigure:
    """`model` drawn on one axes (and a twin for its right axis): bars stacked in the order of
    their series, lines with their dashes and markers, the turn ticks, the legend."""
    fig = _figure(figsize, model.alt)
    ax = fig.add_subplot()
    for series in model.on("left"):
        _draw(ax, series, model)
    if any(s.kind == "line" for s in model.on("left")):
        ax.set_ylim(bottom=0)
    _style(ax, model)
    if model.y2 is not None:
        _right_axis(ax, model, model.y2)
    shown = [pair for a in fig.axes for pair in zip(*a.get_legend_handles_labels())]
    if model.empty:
        centred: dict[str, Any] = {"ha": "center", "va": "center", "fontsize": TITLE_PT}
        ax.text(0.5, 0.5, model.empty, transform=ax.transAxes, color=look.MUTED_COLOUR, **centred)
    elif shown:
        ax.legend(*zip(*shown), fontsize=TEXT_PT - 1, loc="upper left")
    return fig


def _style(ax: Axes, model: Chart) -> None:
    """The title, the axes' words and ticks (the wrap-up's on two lines, "wrap-" / "up": it
    sits under a bar of its own), the grid."""
    ax.set_title(_plain(model.title), fontsize=TITLE_PT, loc="left")
    ax.set_xlabel(model.x.label, fontsize=TEXT_PT)
    ax.set_ylabel(model.y.label, fontsize=TEXT_PT)
    ax.tick_params(labelsize=TEXT_PT - 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: number(v, model.y.digits)))
    ax.grid(axis="y", alpha=0.3)
    ax.spines["top"].set_visible(False)
    if model.x.ticks:
        labels = [t.replace("-", "-\n", 1) if x == model.wrap_up else t for x, t in model.x.ticks]
        ax.set_xticks([x for x, _label in model.x.ticks], labels)
        if xs := [x for s in model.series for x in s.x]:  # ticks with nothing drawn yet
            ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)


def _right_axis(ax: Axes, model: Chart, axis: Axis) -> None:
    """The right axis (dollars), in its line's colour, scaled as the model says."""
    right, drawn = ax.twinx(), model.on("right")
    for series in drawn:
        _draw(right, series, model)
    colour = drawn[0].colour if drawn else look.TEXT_COLOUR
    right.set_ylabel(axis.label, fontsize=TEXT_PT, color=colour)
    right.tick_params(labelsize=TEXT_PT - 1, colors=colour)
    right.set_ylim(0, ax.get_ylim()[1] * model.y2_per_y if model.y2_per_y else 1.0)
    right.yaxis.set_major_formatter(FuncFormatter(lambda v, _: number(v, axis.digits)))


def _draw(ax: Axes, series: Series, model: Chart) -> None:
    """A series of `model` on `ax`: bars on the bars before them (`Chart.bottoms`), the wrap-up's
    hatched, or a line with its dashes and markers."""
    named: dict[str, Any] = {
        "color": series.colour,
        "label": _plain(series.label),
        "gid": series.key,
    }
    if series.kind == "bars":
        # white lines between the stacked parts
        edge: dict[str, Any] = {"edgecolor": look.SEPARATOR_COLOUR, "linewidth": 1.2}
        container = ax.bar(series.x, series.y, bottom=model.bottoms(series), **named, **edge)
        for x, patch in zip(series.x, container.patches):
            if x == model.wrap_up:
                patch.set_hatch("//")
        return
    ax.plot(
        series.x,
        series.y,
        marker=series.marker or None,
        markersize=8 if series.key.startswith("run:") else 6,
        linestyle=(0, series.dashes) if series.dashes else "-",
        linewidth=series.width,
        **named,
    )


# -- the level map -------------------------------------------------------------------------------


def level_map(view: LevelMap, figsize: tuple[float, float] | None = None) -> DescribedFigure:
    """The level as rows of numbered `?` blocks, one row per area; markers on their blocks, a
    wrong one in red. Its size by default: a column per block, a row per area."""
    fig = _figure(figsize or (1.55 * view.width + 2.2, 1.45 * len(view.rows) + 1.1), view.alt)
    ax = fig.add_subplot()
    rows = len(view.rows)
    for row, (_area, blocks) in enumerate(view.rows):
        for col, block in enumerate(blocks):
            _draw_block(ax, COL_GAP * col, ROW_GAP * (rows - 1 - row), block)
    ax.set_xlabel(_plain(view.legend), fontsize=TEXT_PT - 1, color=look.MUTED_COLOUR)
    areas = [_plain(area) for area, _blocks in reversed(view.rows)]
    ax.set_yticks([ROW_GAP * i for i in range(rows)], areas, fontsize=TEXT_PT + 3)
    ax.set_xticks([])
    ax.set_xlim(-0.6, COL_GAP * (view.width - 1) + 0.6)
    ax.set_ylim(-0.95, ROW_GAP * (rows - 1) + 0.5)
    ax.set_aspect("equal")
    ax.spines[:].set_visible(False)
    ax.tick_params(left=False)
    news_lines = textwrap.wrap(view.news, width=max(40, int(fig.get_figwidth() * 8)))
    ax.set_title(_plain("\n".join([view.name, *news_lines])), fontsize=TITLE_PT + 1, loc="left")
    return fig


def _draw_block(ax: Axes, col: float, y: float, block: Block) -> None:
    """One `?` block, closed or showing what it hid; a marker's ring and pin on it, green when
    the star is there, red when not, and its caption saying so."""
    face, n = block.face, block.number
    edge: dict[str, Any] = {"edgecolor": face.edge, "linewidth": 3 if block.item == "star" else 2}
    _box(ax, col, y, 0, 0.08, facecolor=face.fill, gid=f"block:{n}", **edge)
    size = TITLE_PT + 10 if block.item is None else (TEXT_PT + 2 if len(face.label) <= 5 else 12)
    words: dict[str, Any] = {"ha": "center", "va": "center", "fontsize": size, "color": face.colour}
    ax.text(col, y + 0.02, _plain(face.label), fontweight="bold", gid=f"label:{n}", **words)
    caption, colour, weight = _(look.BLOCK).format(n=n), look.MUTED_COLOUR, "normal"
    if block.marker is not None:
        colour, weight = look.MARKER_COLOURS[block.marker], "bold"
        caption += "\n" + (_(look.MARKED) if block.marker else _(look.WRONG))
        _box(ax, col, y, 0.05, 0.1, facecolor="none", edgecolor=colour, linewidth=4)
        pin: dict[str, Any] = {"markersize": 18, "markeredgecolor": "white", "markeredgewidth": 1.5}
        at = ([col + HALF_W - 0.1], [y + HALF_H - 0.08])
        ax.plot(*at, "v", color=colour, gid=f"marker:{n}", **pin)
    below: dict[str, Any] = {"ha": "center", "va": "top", "fontsize": TEXT_PT, "fontweight": weight}
    ax.text(col, y - HALF_H - 0.06, caption, color=colour, gid=f"number:{n}", **below)


def _box(ax: Axes, col: float, y: float, grow: float, rounding: float, **style: Any) -> None:
    """A rounded box over the block at (`col`, `y`), `grow` larger on every side."""
    corner = (col - HALF_W - grow, y - HALF_H - grow)
    width, height = 2 * (HALF_W + grow), 2 * (HALF_H + grow)
    shape = f"round,pad=0.02,rounding_size={rounding}"
    ax.add_patch(FancyBboxPatch(corner, width, height, boxstyle=shape, **style))


# -- shared --------------------------------------------------------------------------------------


def _figure(figsize: tuple[float, float], alt: str) -> DescribedFigure:
    fig = DescribedFigure(figsize=figsize, layout="constrained")
    fig.alt_text = alt
    return fig


def _plain(text: str) -> str:
    """Text drawn as written: a `$` (a price, a level's title) is not matplotlib mathtext."""
    return text.replace("$", r"\$")
