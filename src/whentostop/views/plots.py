"""The notebooks' figures: what a run cost, turn by turn, and where it searched on the level map.

One plotting API, whatever draws it. Each function builds the figure model (`figure.py`: the
series, axes, labels, notable points and words), then draws it with matplotlib where matplotlib
can be imported (a `DescribedFigure`, a `matplotlib.figure.Figure`), else as SVG through the
renderer the explorers use (an `SvgFigure`) — in the browser edition, where matplotlib would
have to come from a CDN. The same titles, series, labels, units and text alternatives either way;
the first SVG figure shown in a kernel says, in the learner's language, that figures are drawn
without matplotlib. Importing this module never imports matplotlib.

    from whentostop.views import plots
    plots.tokens_per_turn(run)              # stacked bars: history sent again, new, completion
    plots.cumulative_cost(run)              # cumulative tokens and USD
    plots.compare_runs({"no permission": a, "may give up": b})
    plots.level_map(level, run)             # the ? blocks, searched areas revealed, markers

They only read runs (`level.view(run)` for the map); their words follow `set_language`. Each
figure carries its text alternative (`fig.alt_text`, from `describe.py`): in Jupyter and Voila it
shows as an `<img alt=...>`, so a screen reader reads what the figure shows.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeAlias

from ..i18n import say
from ..level import Level
from ..outcome import Run
from ..usage import DEFAULT_PRICE_MODEL, Price
from . import charts, figure
from .figure import Chart, LevelMap

if TYPE_CHECKING:
    from .mplfigure import DescribedFigure

__all__ = [
    "BUILDERS",
    "DescribedFigure",
    "SvgFigure",
    "compare_runs",
    "cumulative_cost",
    "level_map",
    "tokens_per_turn",
]

WIDE = (9.0, 4.6)
"""Inches; at the default 100 dpi a figure fills a notebook column without scaling down."""

Size: TypeAlias = tuple[float, float]
"""A figure's width and height, in inches."""
Drawn: TypeAlias = "DescribedFigure | SvgFigure"
"""What a plotting function returns: drawn with matplotlib where it can be imported, else SVG."""

BUILDERS = ("tokens_per_turn", "cumulative_cost", "compare_runs", "level_map")
"""Every figure builder: each returns a figure with its text alternative (`alt_text`)."""


class SvgFigure:
    """A figure drawn as SVG: shown in Jupyter and Voila as an `<img alt=...>`, like a
    `DescribedFigure`; `svg` is the document, `model` the figure model it was drawn from."""

    def __init__(self, model: Chart | LevelMap, svg: str) -> None:
        self.model = model
        self.svg = svg
        self.alt_text = model.alt

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        shown = charts.img(self.svg, **charts.NOTEBOOK_FIGURE)
        plain = self.alt_text
        said = _say_once()
        if said:
            shown = f'<p class="wts-figure-note">{html.escape(said)}</p>{shown}'
            plain = f"{said}\n{plain}"
        return {"text/html": shown, "text/plain": plain}

    def __repr__(self) -> str:
        return f"<SvgFigure: {self.alt_text[:60]}>"


def tokens_per_turn(run: Run, *, figsize: Size = WIDE) -> Drawn:
    """Stacked bars per turn: the history sent again, what is new, and the model's reply.

    The grey part grows every turn: that is the whole conversation being paid for again.
    """
    return _drawn(figure.tokens_per_turn(run), figsize)


def cumulative_cost(
    run: Run, model: str | Price = DEFAULT_PRICE_MODEL, *, figsize: Size = WIDE
) -> Drawn:
    """Cumulative tokens (left axis) and USD at `model`'s list price (right axis), per turn.

    A dotted line shows what the run would have cost if every turn cost as much as the first:
    the gap is the price of re-sending the history, growing roughly with the square of the turns.
    """
    return _drawn(figure.cumulative_cost_chart(run, model), figsize)


def compare_runs(
    runs: Mapping[str, Run], model: str | Price = DEFAULT_PRICE_MODEL, *, figsize: Size = WIDE
) -> Drawn:
    """Several runs' cumulative tokens on one axes; the legend gives each one's exit and USD.
    Each run has its own colour, marker and line style, so they differ without colour too."""
    return _drawn(figure.compare_runs(runs, model), figsize)


def level_map(level: Level, run: Run | None = None, *, figsize: Size | None = None) -> Drawn:
    """The level as rows of numbered `?` blocks, one row per area, after `run` (None: before).

    Blocks in areas the model searched are revealed; the star's block is highlighted only once
    it was found or marked. Markers placed by `mark_star` are drawn on their block, a wrong one
    in red.
    """
    view = figure.level_map(level, run)
    mpl = matplotlib_renderer()
    return mpl.level_map(view, figsize) if mpl else SvgFigure(view, charts.level_map_svg(view))


def matplotlib_renderer() -> ModuleType | None:
    """The matplotlib renderer (`mplfigure`), or None where matplotlib cannot be imported."""
    try:
        from . import mplfigure
    except ImportError:
        return None
    return mplfigure


def __getattr__(name: str) -> Any:
    """`plots.DescribedFigure` and `plots.png_bytes` come from the matplotlib renderer, loaded
    when first asked for (PEP 562): importing `plots` loads no matplotlib."""
    if name in ("DescribedFigure", "png_bytes"):
        mpl = matplotlib_renderer()
        if mpl is None:
            raise AttributeError(f"{name} needs matplotlib, which cannot be imported here")
        return getattr(mpl, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _drawn(model: Chart, figsize: Size) -> Drawn:
    mpl = matplotlib_renderer()
    if mpl is not None:
        return mpl.chart(model, figsize)
    return SvgFigure(model, charts.chart_svg(model, figsize[0] * 100, figsize[1] * 100))


_said = False


def _say_once() -> str:
    """The words that figures are drawn without matplotlib, the first time in this kernel;
    "" after that."""
    global _said
    said, _said = _said, True
    return "" if said else say("without_matplotlib")
