"""Pure figure builders: what a run cost, turn by turn, and where it searched on the level map.

Each function reads a `Run` (or a `Level`) and returns a new `matplotlib.figure.Figure`. They use
the object-oriented API only — no pyplot, no global state, no `plt.show()` — so they work the
same in a notebook, in Voila, in a test and on a headless server (Agg). Fonts are sized for a
workshop projector (12 pt and up).

    from whentostop.views import plots
    plots.tokens_per_turn(run)              # stacked bars: history sent again, new, completion
    plots.cumulative_cost(run)              # cumulative tokens and USD
    plots.compare_runs({"no permission": a, "may give up": b})
    plots.level_map(level, run)             # the ? blocks, searched areas revealed, markers

They only read runs (`level.view(run)` for the map), and draw with the same look as the
explorer's SVG views (`look.py`); their words follow `set_language`. Each figure carries its text
alternative (`fig.alt_text`, from `describe.py`): in Jupyter and Voila it shows as an
`<img alt=...>`, so a screen reader reads what the figure shows.
"""

from __future__ import annotations

import base64
import html
import io
import math
import textwrap
from collections.abc import Mapping
from typing import Any

from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..i18n import _
from ..level import Level
from ..outcome import Run, Turn
from ..usage import DEFAULT_PRICE_MODEL, Price, cumulative_tokens, price, split_prompt
from ..usage import cumulative_cost as cumulative_usd
from . import describe, look
from .look import (
    CACHED_COLOUR,
    COMPLETION_COLOUR,
    NEW_COLOUR,
    RESENT_COLOUR,
    RUN_COLOURS,
    RUN_LINESTYLES,
    RUN_MARKERS,
    SEPARATOR_COLOUR,
    TOKENS_COLOUR,
    USD_COLOUR,
)

__all__ = [
    "BUILDERS",
    "DescribedFigure",
    "compare_runs",
    "cumulative_cost",
    "level_map",
    "png_bytes",
    "tokens_per_turn",
]

TEXT_PT = 13
"""Axis labels, ticks and legends: readable from the back of a room."""
TITLE_PT = 15
WIDE = (9.0, 4.6)
"""Inches; at the default 100 dpi a figure fills a notebook column without scaling down."""

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


def _figure(figsize: tuple[float, float], alt: str) -> DescribedFigure:
    fig = DescribedFigure(figsize=figsize, layout="constrained")
    fig.alt_text = alt
    return fig


def tokens_per_turn(run: Run, *, figsize: tuple[float, float] = WIDE) -> DescribedFigure:
    """Stacked bars per turn: the history sent again, what is new, and the model's reply.

    The grey part grows every turn: that is the whole conversation being paid for again.
    """
    fig = _figure(figsize, describe.tokens_alt(run))
    _draw_tokens_per_turn(fig.add_subplot(), run)
    return fig


def cumulative_cost(
    run: Run, model: str | Price = DEFAULT_PRICE_MODEL, *, figsize: tuple[float, float] = WIDE
) -> DescribedFigure:
    """Cumulative tokens (left axis) and USD at `model`'s list price (right axis), per turn.

    A dotted line shows what the run would have cost if every turn cost as much as the first:
    the gap is the price of re-sending the history, growing roughly with the square of the turns.
    """
    fig = _figure(figsize, describe.cumulative_alt(run, price(model)))
    _draw_cumulative(fig.add_subplot(), run, model)
    return fig


def compare_runs(
    runs: Mapping[str, Run],
    model: str | Price = DEFAULT_PRICE_MODEL,
    *,
    figsize: tuple[float, float] = WIDE,
) -> DescribedFigure:
    """Several runs' cumulative tokens on one axes; the legend gives each one's exit and USD.
    Each run has its own colour, marker and line style, so they differ without colour too."""
    p = price(model)
    fig = _figure(figsize, describe.compare_alt(runs, p))
    ax = fig.add_subplot()
    for i, (label, run) in enumerate(runs.items()):
        usd = cumulative_usd(run, p)
        ax.plot(
            _x(run),
            cumulative_tokens(run),
            marker=RUN_MARKERS[i % len(RUN_MARKERS)],
            markersize=8,
            linestyle=RUN_LINESTYLES[i % len(RUN_LINESTYLES)],
            linewidth=2.5,
            color=RUN_COLOURS[i % len(RUN_COLOURS)],
            gid=f"run:{label}",
            label=_plain(
                f"{label}: {run.exit_name}, {look.turns_text(len(run.turns))}, "
                f"${usd[-1] if usd else 0:.4f}"
            ),
        )
    ax.set_ylim(bottom=0)
    _style(ax, _(look.COMPARE_TITLE).format(model=p.model), _(look.TURN), _(look.CUMULATIVE_TOKENS))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    if runs:
        ax.legend(fontsize=TEXT_PT - 1, loc="upper left")
    return fig


def level_map(
    level: Level, run: Run | None = None, *, figsize: tuple[float, float] | None = None
) -> DescribedFigure:
    """The level as rows of numbered `?` blocks, one row per area, after `run` (None: before).

    Blocks in areas the model searched are revealed; the star's block is highlighted only once
    it was found or marked. Markers placed by `mark_star` are drawn on their block, a wrong one
    in red.
    """
    view = level.view(run)
    areas = view.blocks
    width = max(len(blocks) for blocks in areas.values())
    fig = _figure(
        figsize or (1.55 * width + 2.2, 1.45 * len(areas) + 1.1), describe.map_alt(level, run)
    )
    ax = fig.add_subplot()
    for row, (_area, blocks) in enumerate(areas.items()):
        y = ROW_GAP * (len(areas) - 1 - row)
        for col, (number, item) in enumerate(blocks.items()):
            _draw_block(ax, COL_GAP * col, y, number, item)
    for marker in view.markers:
        _draw_marker(ax, level, marker.block, marker.correct)
    ax.set_xlabel(_plain(_(look.MAP_LEGEND)), fontsize=TEXT_PT - 1, color=look.MUTED_COLOUR)
    ax.set_yticks(
        [ROW_GAP * i for i in range(len(areas))],
        [_plain(a) for a in reversed(list(areas))],
        fontsize=TEXT_PT + 3,
    )
    ax.set_xticks([])
    ax.set_xlim(-0.6, COL_GAP * (width - 1) + 0.6)
    ax.set_ylim(-0.95, ROW_GAP * (len(areas) - 1) + 0.5)
    ax.set_aspect("equal")
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(left=False)
    name, _sep, news = view.title.partition(" — ")  # the news on lines of its own: it fits
    news_lines = textwrap.wrap(news, width=max(40, int(fig.get_figwidth() * 8)))
    ax.set_title(_plain("\n".join([name, *news_lines])), fontsize=TITLE_PT + 1, loc="left")
    return fig


BUILDERS = ("tokens_per_turn", "cumulative_cost", "compare_runs", "level_map")
"""Every figure builder: each returns a `DescribedFigure` with its text alternative."""


def png_bytes(fig: Figure, *, dpi: int = 100) -> bytes:
    """The figure as PNG bytes, at a fixed size (no tight crop), so a widget does not jump."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    return buffer.getvalue()


def _show_figures_in_jupyter() -> None:
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


_show_figures_in_jupyter()


# -- drawing on one axes -------------------------------------------------------------------------


def _draw_tokens_per_turn(ax: Axes, run: Run) -> None:
    x = _x(run)
    splits = split_prompt(run)
    cached = [s.cached for s in splits]
    resent = [s.resent - s.cached for s in splits]
    new = [s.new for s in splits]
    completion = [t.completion_tokens for t in run.all_turns]
    edges: dict[str, Any] = {"edgecolor": SEPARATOR_COLOUR, "linewidth": 1.2}  # white lines between
    if any(cached):
        ax.bar(x, cached, color=CACHED_COLOUR, label=_(look.CACHED), gid="cached", **edges)
    ax.bar(
        x, resent, bottom=cached, color=RESENT_COLOUR, label=_(look.RESENT), gid="resent", **edges
    )
    history = [c + r for c, r in zip(cached, resent)]
    ax.bar(x, new, bottom=history, color=NEW_COLOUR, label=_(look.NEW), gid="new", **edges)
    ax.bar(
        x,
        completion,
        bottom=[h + n for h, n in zip(history, new)],
        color=COMPLETION_COLOUR,
        label=_(look.REPLY),
        gid="completion",
        **edges,
    )
    if run.wrap_up_turn is not None:
        for container in ax.containers:
            if isinstance(container, BarContainer):
                container.patches[-1].set_hatch("//")
    _style(ax, _(look.TOKENS_TITLE), _(look.TURN), _(look.TOKENS_IN_TURN))
    _turn_ticks(ax, run)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    if run.all_turns:
        ax.legend(fontsize=TEXT_PT - 1, loc="upper left")
    else:
        _no_turns(ax)


def _draw_cumulative(ax: Axes, run: Run, model: str | Price) -> None:
    p = price(model)
    x = _x(run)
    tokens = cumulative_tokens(run)
    usd = cumulative_usd(run, p)
    ax.plot(
        x,
        tokens,
        marker="o",
        linewidth=2.5,
        color=TOKENS_COLOUR,
        gid="cumulative_tokens",
        label=_(look.TOKENS_SO_FAR),
    )
    if run.all_turns:
        first = run.all_turns[0].total_tokens
        ax.plot(
            x,
            [first * (i + 1) for i in range(len(x))],
            linestyle=":",
            linewidth=2,
            color=RESENT_COLOUR,
            gid="linear_reference",
            label=_(look.LINEAR),
        )
    ax.set_ylim(bottom=0)
    _style(
        ax, _plain(look.cumulative_title(p, tokens, usd)), _(look.TURN), _(look.CUMULATIVE_TOKENS)
    )
    _turn_ticks(ax, run)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    usd_ax = ax.twinx()
    usd_ax.plot(
        x,
        usd,
        linestyle="--",
        linewidth=2,
        color=USD_COLOUR,
        gid="cumulative_usd",
        label=_(look.USD_SO_FAR),
    )
    usd_ax.set_ylabel(_(look.CUMULATIVE_USD), fontsize=TEXT_PT, color=USD_COLOUR)
    usd_ax.tick_params(labelsize=TEXT_PT - 1, colors=USD_COLOUR)
    usd_ax.set_ylim(0, _matching_usd_top(ax, tokens, usd))
    usd_ax.yaxis.set_major_formatter(FuncFormatter(_usd_label(max(usd, default=0.0))))
    if not run.all_turns:
        _no_turns(ax)
        return
    lines = ax.get_lines() + usd_ax.get_lines()
    ax.legend(
        lines, [str(line.get_label()) for line in lines], fontsize=TEXT_PT - 1, loc="upper left"
    )


def _draw_block(ax: Axes, col: float, y: float, number: int, item: str | None) -> None:
    """One `?` block; `item` is what it hides once revealed, None while it is still a `?`."""
    face = look.block_face(item)
    ax.add_patch(
        FancyBboxPatch(
            (col - HALF_W, y - HALF_H),
            2 * HALF_W,
            2 * HALF_H,
            boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=face.fill,
            edgecolor=face.edge,
            linewidth=3 if item == "star" else 2,
            gid=f"block:{number}",
        )
    )
    size = TITLE_PT + 10 if item is None else (TEXT_PT + 2 if len(face.label) <= 5 else 12)
    ax.text(
        col,
        y + 0.02,
        _plain(face.label),
        ha="center",
        va="center",
        fontsize=size,
        color=face.colour,
        fontweight="bold",
        gid=f"label:{number}",
    )
    ax.text(
        col,
        y - HALF_H - 0.06,
        _(look.BLOCK).format(n=number),
        ha="center",
        va="top",
        fontsize=TEXT_PT,
        color=look.MUTED_COLOUR,
        gid=f"number:{number}",
    )


def _draw_marker(ax: Axes, level: Level, block: int, correct: bool) -> None:
    """A marker ring and pin on the marked block: green when the star is there, red when not."""
    col, y = _block_position(level, block)
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


def _block_position(level: Level, block: int) -> tuple[float, float]:
    areas = level.areas
    for row, blocks in enumerate(areas.values()):
        if block in blocks:
            return COL_GAP * list(blocks).index(block), ROW_GAP * (len(areas) - 1 - row)
    raise ValueError(f"no block {block} on level {level.name}")


# -- shared styling ------------------------------------------------------------------------------


def _x(run: Run) -> list[int]:
    """x positions: turn numbers; the wrap-up request sits after the last budgeted turn."""
    return [t.index for t in run.all_turns]


def _turn_ticks(ax: Axes, run: Run) -> None:
    """The turns' numbers by the shared tick rule (`look.tick_shown`), and "wrap-up" under the
    wrap-up request (a turn's number right beside it is left out: the two would collide)."""
    turns: list[Turn] = run.all_turns
    if not turns:
        return
    n = len(run.turns)
    wrap = run.wrap_up_turn.index if run.wrap_up_turn else None
    shown = [
        t.index
        for i, t in enumerate(run.turns)
        if look.tick_shown(i, n) and (wrap is None or n <= 12 or wrap - t.index > 1)
    ]
    labels = [str(i) for i in shown]
    if wrap is not None:
        shown.append(wrap)
        labels.append(_(look.WRAP_UP).replace("-", "-\n", 1))
    ax.set_xticks(shown, labels)
    ax.set_xlim(turns[0].index - 0.6, turns[-1].index + 0.6)


def _style(ax: Axes, title: str, xlabel: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=TITLE_PT, loc="left")
    ax.set_xlabel(xlabel, fontsize=TEXT_PT)
    ax.set_ylabel(ylabel, fontsize=TEXT_PT)
    ax.tick_params(labelsize=TEXT_PT - 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(axis="y", alpha=0.3)
    ax.spines["top"].set_visible(False)


def _no_turns(ax: Axes) -> None:
    ax.text(
        0.5,
        0.5,
        _(look.NO_TURNS),
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize=TITLE_PT,
        color=look.MUTED_COLOUR,
    )


def _plain(text: str) -> str:
    """Text drawn as written: a `$` (a price, a level's title) is not matplotlib mathtext."""
    return text.replace("$", r"\$")


def _matching_usd_top(ax: Axes, tokens: list[int], usd: list[float]) -> float:
    """Scale the USD axis so the USD line sits on the tokens line's height at the last turn."""
    top = ax.get_ylim()[1]
    if not tokens or not tokens[-1] or not usd[-1]:
        return 1.0
    return top * usd[-1] / tokens[-1]


def _usd_label(largest: float):
    digits = 2 if largest >= 0.1 or largest <= 0 else min(6, 1 - math.floor(math.log10(largest)))
    return lambda v, _: f"${v:.{digits}f}"
