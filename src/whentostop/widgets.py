"""The explorer: one level, its `max_turns` slider and switches, and what the run did.

    from whentostop.widgets import explorer
    explorer("1-1")          # move the slider: the badge, transcript, map and cost plot follow

A thin layer over `run_agent` and `whentostop.livecharts` (SVG, because a matplotlib figure is
too slow to follow a slider; `whentostop.plots` draws the same views for the notebooks). What
can be checked without a browser lives in plain functions that return strings (`badge_html`,
`transcript_html`, `turns_text`);
the `Explorer` only wires controls to them. On the mock every change re-runs the level at once;
on a real endpoint nothing runs until the Run button is pressed, and a progress line follows
the turns.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as w

from . import livecharts
from ._text import excerpt
from .client import ChatModel
from .errors import EndpointError
from .events import Event, TurnStart
from .lesson import give_up
from .lesson import prompt as lesson_prompt
from .level import LEVELS, Level, load_level
from .loop import run_agent
from .models import connect, is_mock, serves_personas
from .outcome import Run, Stop, ToolCall, Turn

__all__ = [
    "Explorer", "badge_html", "dashboard", "explorer", "transcript_html",
    "turns_text",
]

PERSONA_CHOICES = ("searcher", "loopboros", "sloppy")
"""The mock personas offered (`slow` is left out: the explorer has no deadline to show)."""
TERMINAL = "mark_star"
MAX_TURNS_LIMIT = 25


@dataclass(frozen=True)
class LevelSetup:
    """What an explorer starts with on a level, and which switches that level is about."""

    persona: str
    tools: tuple[str, ...]
    switches: tuple[str, ...]
    stop_on: bool = False


SETUPS = {
    "1-1": LevelSetup("loopboros", ("search_blocks",), ("give_up", "wrap_up")),
    "1-2": LevelSetup("searcher", ("search_blocks",), ("give_up",)),
    "1-3": LevelSetup("searcher", ("search_blocks", TERMINAL), ("stop_on",), stop_on=True),
}
OTHER_LEVEL = LevelSetup("searcher", ("search_blocks", TERMINAL), ("stop_on", "give_up", "wrap_up"))

BADGE_STYLE = {
    # exit: (background, symbol)
    # (symbols from DejaVu Sans: a projector laptop or headless Chromium may have no emoji font)
    Stop.END_TURN: ("#2e7d32", "⚑"),
    Stop.TERMINAL_TOOL: ("#6a1b9a", "⤵"),
    Stop.MAX_TURNS: ("#c62828", "◷"),
    Stop.DEADLINE: ("#ef6c00", "◷"),
}
BROKEN_STYLE = ("#455a64", "✖")


# -- plain functions: what the explorer shows, as strings --------------------------------------


def turns_text(run: Run | None) -> str:
    """ "1 turn" / "N turns": the budgeted turns the run took (the wrap-up is not one)."""
    n = len(run.turns) if run else 0
    return f"{n} turn" if n == 1 else f"{n} turns"


def badge_html(run: Run | None, error: str | None = None) -> str:
    """How the run ended, coloured by exit; the clock and the deadline say "No answer"."""
    if run is None:
        return _pill("#757575", "▶", "not run yet — press Run")
    turns = turns_text(run)
    if run.stop is None:
        colour, symbol = BROKEN_STYLE
        why = f" ({excerpt(error or run.error or '', 80)})" if (error or run.error) else ""
        return _pill(colour, symbol, f"endpoint error — No answer after {turns}{why}")
    colour, symbol = BADGE_STYLE[run.stop]
    if run.stop == Stop.END_TURN:
        text = f"{run.exit_name} — answered in {turns}: “{excerpt(str(run.answer), 70)}”"
    elif run.stop == Stop.TERMINAL_TOOL:
        text = f"{run.exit_name} — answer as data in {turns}: {json.dumps(run.answer)}"
    else:
        asking = ", ".join(dict.fromkeys(run.still_asking_for))
        still = f", still asking for {asking}" if asking else ""
        text = f"{run.exit_name} — No answer after {turns}{still}"
    return _pill(colour, symbol, text)


def transcript_html(run: Run | None) -> str:
    """The run turn by turn: the model's text, each tool call with its input and output
    (errors marked), and the wrap-up labelled as what it is — not an answer."""
    if run is None:
        return '<div class="wts-empty">No run yet.</div>'
    blocks = [_turn_html(turn, run) for turn in run.turns]
    if run.wrap_up_turn is not None:
        blocks.append(_turn_html(run.wrap_up_turn, run))
    if run.error:
        blocks.append(
            f'<div class="wts-error" style="color:#b71c1c;font-weight:bold;margin:6px 0">'
            f"✖ The endpoint failed: {html.escape(run.error)}</div>"
        )
    return "".join(blocks) or '<div class="wts-empty">No turns.</div>'


def progress_text(event: Event) -> str | None:
    """The progress line for one event of a live run: "turn N of M…" when a turn starts."""
    if isinstance(event, TurnStart):
        return f"turn {event.turn} of {event.max_turns}… waiting for the model"
    return None


def svg_img(svg: str, alt: str) -> str:
    """An <img> holding an SVG inline: renders in Voila and JupyterLab alike, testable as text."""
    return (f'<img src="{livecharts.data_uri(svg)}" alt="{html.escape(alt)}" '
            'style="width:100%;height:100%;object-fit:contain;object-position:left top">')


def _pill(colour: str, symbol: str, text: str) -> str:
    return (f'<span style="display:inline-block;background:{colour};color:white;padding:4px 12px;'
            f'border-radius:14px;font-weight:bold;font-size:15px;line-height:1.4">'
            f"{symbol} {html.escape(text)}</span>")


def _turn_html(turn: Turn, run: Run) -> str:
    if turn.wrap_up:
        head = f"wrap-up — not an answer (request {turn.index}, after the clock)"
        border = "#ef6c00;border-left-style:dashed"
    else:
        head, border = f"turn {turn.index}", "#90a4ae"
    usage = f"{turn.prompt_tokens:,} prompt + {turn.completion_tokens:,} completion tokens"
    parts = [
        f'<div class="wts-turn" style="border-left:4px solid {border};padding:2px 8px;margin:6px 0">',
        f'<div style="font-weight:bold">{html.escape(head)} '
        f'<span style="font-weight:normal;color:#616161">· {usage}</span></div>',
    ]
    parts += [f'<div style="color:#ef6c00">↻ retried: {html.escape(r)}</div>' for r in turn.retries]
    if turn.text:
        parts.append(f'<div style="margin:2px 0"><i>model:</i> {html.escape(turn.text)}</div>')
    parts += [_call_html(call, run) for call in turn.tool_calls]
    if turn.truncated:
        parts.append('<div style="color:#ef6c00">✂ reply cut off (finish_reason: length)</div>')
    parts.append("</div>")
    return "".join(parts)


def _call_html(call: ToolCall, run: Run) -> str:
    if not call.ran:
        status, colour = "not run", "#757575"
    elif call.failed:
        status, colour = "✗ error", "#c62828"
    elif call.name in run.stop_on:
        status, colour = "✓ warp pipe: its input is the answer", "#6a1b9a"
    else:
        status, colour = "✓", "#2e7d32"
    return (
        f'<div style="margin:2px 0"><i>calls</i> <code>{html.escape(call.name)}({html.escape(call.arguments)})'
        f'</code> <span style="color:{colour};font-weight:bold">{status}</span></div>'
        f'<pre style="margin:0 0 0 22px;padding:2px 6px;white-space:pre-wrap;font-size:12px;'
        f'background:{"#ffebee" if call.failed else "#f5f5f5"};color:{colour if call.failed else "#212121"}">'
        f"{html.escape(call.output)}</pre>"
    )


# -- the widget --------------------------------------------------------------------------------


class Explorer:
    """One level's explorer. `ex.widget` is the root VBox; `ex.run` the last Run."""

    def __init__(
        self,
        level: str,
        *,
        persona: str | None = None,
        max_turns: int = 10,
        stop_on: bool | None = None,
        allow_give_up: bool = False,
        wrap_up: bool = False,
        model: ChatModel | None = None,
        prompt: str | None = None,
        compact: bool = False,
        show_map: bool | None = None,
    ) -> None:
        self.level_name = level
        self.setup = SETUPS.get(level, OTHER_LEVEL)
        self.prompt = prompt
        """The task; None means the lesson's, in the language in effect at each run."""
        self.compact = compact
        if model is None and os.environ.get("OPENAI_BASE_URL") and (
                os.environ.get("WHENTOSTOP_MODEL") or not serves_personas()):
            model = connect()  # the configured model; the mock served over HTTP plays personas
        self.live = model is not None and not is_mock(model)
        self._models: dict[str, ChatModel] = {}
        if model is not None and not self.live:
            self._models[model.name] = model
        self._model = model
        self.run: Run | None = None
        self.error: str | None = None
        self.level: Level = load_level(level)
        self.plot_svg = ""
        self.map_svg = ""

        start_persona = persona or (model.name if model is not None and not self.live else None) \
            or self.setup.persona
        self.max_turns = w.IntSlider(
            value=max_turns, min=1, max=MAX_TURNS_LIMIT, continuous_update=False,
            description="max_turns", style={"description_width": "initial"},
            layout=w.Layout(width="320px"),
        )
        self.persona = w.Dropdown(
            options=list(dict.fromkeys([*PERSONA_CHOICES, start_persona])), value=start_persona,
            description="model", style={"description_width": "initial"},
            layout=w.Layout(width="200px", display="none" if self.live else None),
            disabled=self.live,
        )
        self.stop_on = self._switch("stop_on=['mark_star'] — the warp pipe",
                                    self.setup.stop_on if stop_on is None else stop_on)
        self.give_up = self._switch("allow giving up (system prompt)", allow_give_up)
        self.wrap_up = self._switch("wrap-up request after the clock", wrap_up)
        self.run_button = w.Button(description="Run", button_style="primary", icon="play",
                                   layout=w.Layout(display=None if self.live else "none"))
        self.badge = w.HTML(layout=w.Layout(min_height="34px"))
        self.turns = w.HTML(layout=w.Layout(min_height="34px"))
        self.progress = w.HTML(layout=w.Layout(min_height="24px", display=None if self.live else "none"))
        self.transcript = w.HTML(layout=w.Layout(
            height="220px" if compact else "400px", overflow="auto",
            border="1px solid #cfd8dc", padding="0 6px"))
        self.plot = w.HTML(layout=w.Layout(height="300px" if compact else "330px", overflow="hidden"))
        self.map = w.HTML(layout=w.Layout(height="400px", overflow="hidden"))
        for widget, name in [(self.max_turns, "wts-max-turns"), (self.persona, "wts-persona"),
                             (self.badge, "wts-badge"), (self.turns, "wts-turns"),
                             (self.progress, "wts-progress"), (self.transcript, "wts-transcript"),
                             (self.plot, "wts-plot"), (self.map, "wts-map"),
                             (self.run_button, "wts-run"), (self.stop_on, "wts-stop-on"),
                             (self.give_up, "wts-give-up"), (self.wrap_up, "wts-wrap-up")]:
            widget.add_class(name)
        self.show_map = self._map_shown(show_map)
        self.widget = self._layout(self._shown_switches(stop_on, allow_give_up, wrap_up),
                                   self.show_map)

        for control in (self.max_turns, self.persona, self.stop_on, self.give_up, self.wrap_up):
            control.observe(self._changed, names="value")
        self.run_button.on_click(lambda _: self.rerun())
        if self.live:
            self._show()
            self.progress.value = f"Connected to {html.escape(str(getattr(model, 'base_url', '')))}" \
                " — nothing runs until you press Run."
        else:
            self.rerun()

    def rerun(self) -> Run | None:
        """Run the level now with the current controls; show and return the Run."""
        tools = self.setup.tools + ((TERMINAL,) if self.stop_on.value and TERMINAL not in self.setup.tools else ())
        if self.live:
            self.run_button.disabled = True
            self.progress.value = f"turn 1 of {self.max_turns.value}… starting"
        try:
            run = run_agent(
                self.prompt or lesson_prompt(), model=self._current_model(), tools=self.level.tools(*tools),
                max_turns=self.max_turns.value,
                stop_on=[TERMINAL] if self.stop_on.value else [],
                system=give_up() if self.give_up.value else None,
                on_max_turns="wrap_up" if self.wrap_up.value else "stop",
                on_event=self._on_event if self.live else None,
            )
            self.error = None
        except EndpointError as exc:
            run = exc.run or Run.empty(self.max_turns.value).break_off(str(exc))
            self.error = str(exc)
        finally:
            self.run_button.disabled = False
        self.run = run
        self._show()
        return run

    # -- internals ---------------------------------------------------------------------------

    def _current_model(self) -> ChatModel:
        if self.live:
            assert self._model is not None
            return self._model
        name = self.persona.value
        if name not in self._models:
            self._models[name] = connect(name)
        return self._models[name]

    def _changed(self, change: dict[str, Any]) -> None:
        if self.live:
            self.progress.value = "Controls changed — press Run to run the level with them."
        else:
            self.rerun()

    def _on_event(self, event: Event) -> None:
        text = progress_text(event)
        if text:
            self.progress.value = html.escape(text)

    def _show(self) -> None:
        """Render first, then set every output in one go, so the page updates all at once."""
        run = self.run
        self.plot_svg = livecharts.cost_svg(run, tokens_per_turn=not self.compact)
        self.map_svg = livecharts.map_svg(self.level, run) if self.show_map else ""
        if self.live:
            self.progress.value = (
                f'<span class="wts-error" style="color:#b71c1c;font-weight:bold">✖ '
                f"{html.escape(self.error)}</span>" if self.error else
                f"done: {turns_text(run)} in {run.elapsed_s:.1f} s" if run else self.progress.value
            )
        self.badge.value = badge_html(run, self.error)
        self.turns.value = turns_text(run)
        self.transcript.value = transcript_html(run)
        self.map.value = svg_img(self.map_svg, f"level map {self.level_name}") if self.show_map else ""
        self.plot.value = svg_img(self.plot_svg, f"cost plot: {turns_text(run)}")

    def _switch(self, description: str, value: bool) -> w.Checkbox:
        return w.Checkbox(value=value, description=description, indent=False,
                          layout=w.Layout(width="auto"))

    def _shown_switches(self, stop_on: bool | None, give_up: bool, wrap_up: bool) -> list[w.Checkbox]:
        """The switches this level is about, plus any the caller turned on explicitly."""
        wanted = set(self.setup.switches)
        wanted |= {name for name, on in [("stop_on", stop_on), ("give_up", give_up),
                                         ("wrap_up", wrap_up)] if on}
        return [getattr(self, name) for name in ("stop_on", "give_up", "wrap_up") if name in wanted]

    def _map_shown(self, show_map: bool | None) -> bool:
        if show_map is not None:
            return show_map
        return not self.compact or TERMINAL in self.setup.tools

    def _layout(self, switches: Sequence[w.Widget], show_map: bool) -> w.VBox:
        title = self.level.title
        header = w.HTML(f'<div style="font-size:18px;font-weight:bold">{html.escape(title)}</div>')
        controls = w.HBox([self.max_turns, self.persona, self.run_button],
                          layout=w.Layout(flex_flow="row wrap", align_items="center"))
        status = w.HBox([self.badge, self.turns], layout=w.Layout(
            align_items="center", justify_content="space-between", flex_flow="row wrap"))
        self.turns.layout.margin = "0 8px"
        parts: list[w.Widget] = [header, controls, w.HBox(list(switches),
                                 layout=w.Layout(flex_flow="row wrap")), status, self.progress]
        if show_map and not self.compact:  # a notebook is wide: the map beside the transcript
            self.map.layout.width = self.transcript.layout.width = "50%"
            self.map.layout.height = self.transcript.layout.height
            parts.append(w.HBox([self.map, self.transcript], layout=w.Layout(width="100%")))
        else:
            parts += [self.map, self.transcript] if show_map else [self.transcript]
        parts.append(self.plot)
        root = w.VBox(parts, layout=w.Layout(width="100%", padding="4px"))
        root.add_class("wts-explorer")
        return root

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        where = "live" if self.live else "mock"
        return f"<Explorer {self.level_name} ({where}): {self.run.summary() if self.run else 'not run'}>"


def explorer(level: str, **options: Any) -> Explorer:
    """An explorer for one level (`"1-1"`, `"1-2"`, `"1-3"`); see `Explorer` for the options."""
    return Explorer(level, **options)


def dashboard(levels: Sequence[str] = LEVELS, *, compact: bool = True, **options: Any) -> w.GridBox:
    """The levels' explorers side by side, for a projector (`voila notebooks/explorer.ipynb`)."""
    explorers = [Explorer(name, compact=compact, **options) for name in levels]
    grid = w.GridBox(
        [ex.widget for ex in explorers],
        layout=w.Layout(grid_template_columns=f"repeat({len(explorers)}, minmax(0, 1fr))",
                        grid_gap="16px", width="100%"),
    )
    grid.add_class("wts-dashboard")
    grid.explorers = explorers  # the Explorer objects, for a notebook or a test to drive
    return grid
