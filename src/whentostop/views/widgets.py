"""The explorer: one level, its `max_turns` slider and switches, and what the run did.

    from whentostop.views.widgets import explorer
    explorer("1-1")          # move the slider: the badge, transcript, map and cost plot follow

A thin layer over `run_agent` and `whentostop.views.charts` (SVG, because a matplotlib figure is
too slow to follow a slider; `whentostop.views.plots` draws the same views for the notebooks). What
can be checked without a browser lives in plain functions that return strings (`badge_html`,
`transcript_html`, `turns_line`, and `describe.py` for the words a screen reader gets); the
`Explorer` only wires controls to them. On the mock every change re-runs the level at once; on a
real endpoint nothing runs until the Run button is pressed, and a progress line follows the
turns.

For every learner: the level's title is a heading; the slider is a native range input named by
its label (`controls.TurnsSlider`); a live region announces how each run ended
(`controls.LiveRegion`); the transcript is a named, focusable region whose notable turns are open
(`notable_turns`); every figure has a text alternative computed from the run.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as w

from ..client import ChatModel
from ..errors import EndpointError
from ..events import Event, TurnStart
from ..i18n import N_, _, language
from ..lesson import give_up, verdict
from ..lesson import prompt as lesson_prompt
from ..lesson.race import TRACK_TURNS, Limits, RaceResult, Unit, track_of
from ..lesson.race import race as run_race
from ..level import LEVELS, Judgement, load_level
from ..loop import run_agent
from ..models import connect, is_mock, mock, serves_personas
from ..outcome import Run, Stop, ToolCall, Turn
from ..usage import DEFAULT_PRICE_MODEL
from . import charts, describe, look
from .controls import Choice, LiveRegion, NumberSlider, Pane, TurnsSlider

__all__ = [
    "Explorer",
    "Race",
    "badge_html",
    "dashboard",
    "explorer",
    "notable_turns",
    "race",
    "reading_html",
    "transcript_html",
    "turns_line",
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

BADGE_SYMBOLS = {
    # (symbols from DejaVu Sans: a projector laptop or headless Chromium may have no emoji font;
    # the words say it all, the symbol is a second cue)
    Stop.END_TURN: "⚑",
    Stop.TERMINAL_TOOL: "⤵",
    Stop.MAX_TURNS: "◷",
    Stop.DEADLINE: "◷",
    Stop.BUDGET: "$",
}
"""Each exit's symbol on the badge; an exit without one (a later `Stop`) shows "■"."""
VERDICT_MARKS = {None: "?", True: "✓", False: "✗"}
"""The level's verdict on an answer in the transcript: its mark (None: cannot tell)."""
TRANSCRIPT_HEIGHT = {True: 220, False: 400}
"""The transcript box's fixed height in pixels, compact (a dashboard column) or not."""


# -- plain functions: what the explorer shows, as strings --------------------------------------


def turns_text(run: Run | None) -> str:
    """ "1 turn" / "N turns": the turns the run took against its limit (the wrap-up is not one)."""
    return verdict.turns_text(len(run.turns) if run else 0)


def turns_line(run: Run | None, run_number: int) -> str:
    """ "3 of 25 turns · run 4": the turns against the turn limit, and which run this is, so a re-run
    whose result did not change still shows that it ran."""
    return _counted(
        describe.of_turns(len(run.turns), run.max_turns) if run else _("no run yet"), run_number
    )


def _counted(what: str, run_number: int) -> str:
    """What the run took, then which run this is: "3 of 25 turns · run 4"."""
    number = _("run {number}").format(number=run_number)
    return (
        f'<span class="wts-turn-count">{html.escape(what)}</span> · '
        f'<span class="wts-run-count">{html.escape(number)}</span>'
    )


def badge_html(
    run: Run | None, error: str | None = None, judgement: Judgement | None = None
) -> str:
    """How the run ended, in words (`describe.ending`), on a pill coloured by exit; the clock and
    the deadline say "no answer". A flag raised by a tool call written as text, and an answer the
    level knows is wrong (`judgement`), get a pill of their own: not a clean answer."""
    if run is None:
        return _pill(look.BADGE_COLOURS["not_run"], "▶", describe.ending(None))
    if run.stop is None:
        return _pill(look.BADGE_COLOURS["broken"], "✖", describe.ending(run, error))
    said = describe.ending(run, error, judgement)
    if run.not_an_answer is not None:  # a tool call written as text, or an echo
        return _pill(look.BADGE_COLOURS["text_tool_call"], "⚠", said)
    if judgement is not None and judgement.correct is False:
        return _pill(look.BADGE_COLOURS["wrong"], "✗", said)
    colour = look.BADGE_COLOURS.get(run.stop.value, look.BADGE_COLOURS["broken"])
    return _pill(colour, BADGE_SYMBOLS.get(run.stop, "■"), said)


def notable_turns(run: Run) -> set[int]:
    """The turns the transcript opens: the first with a failed tool call (the rejected input, a
    misspelt area), any retried or cut-off reply, the first and last with a note (a tool call
    written as text, an empty reply), the last turn and the wrap-up; a short run opens them all. The others stay one line each, so the notable ones are in view."""
    turns = run.all_turns
    if len(turns) <= 3:
        return {t.index for t in turns}
    shown = {turns[-1].index, run.turns[-1].index} if run.turns else {turns[-1].index}
    failed = [t.index for t in run.turns if any(c.failed for c in t.tool_calls)]
    shown |= set(failed[:1])
    shown |= {t.index for t in turns if t.retries or t.truncated}
    noted = [t.index for t in turns if t.notes]  # a tool call written as text, an empty reply
    shown |= set(noted[:1] + noted[-1:])
    return shown


def transcript_html(
    run: Run | None,
    *,
    label: str = "",
    height: int | None = None,
    judgement: Judgement | None = None,
) -> str:
    """The run turn by turn, in a focusable, named scroll box: the model's text, each tool call
    with its input and output (errors marked), what the library noticed about a reply (a tool
    call written as text, an empty reply), and the wrap-up labelled as what it is — not an
    answer. Routine turns are folded to one line; the notable ones are open (`notable_turns`).
    Below the turns: the run's warnings, and the level's verdict on its answer (`judgement`)."""
    name = html.escape(label or _("Transcript of the run"))
    fixed = f' style="height:{height}px"' if height else ""  # the rest of its look: explorer.css
    box = (
        f'<div class="wts-transcript-box" role="region" aria-label="{name}" tabindex="0" '
        f'data-lm-suppress-shortcuts="true"{fixed}>'
    )
    if run is None:
        return box + _note(_("No run yet."), "wts-empty") + "</div>"
    opened = notable_turns(run)
    blocks = [_turn_html(turn, run, turn.index in opened) for turn in run.all_turns]
    if run.error:
        failed = _("The endpoint failed: {error}").format(error=run.error)
        blocks.append(_note("✖ " + failed, "wts-error"))
    warning = html.escape(_("Warning:"))
    blocks += [
        f'<div class="wts-warning"><b>⚠ {warning}</b> {html.escape(w)}</div>' for w in run.warnings
    ]
    if judgement is not None and (run.has_answer or run.not_an_answer):
        blocks.append(_verdict_html(judgement))
    return box + ("".join(blocks) or _note(_("No turns."), "wts-empty")) + "</div>"


def _verdict_html(judgement: Judgement) -> str:
    """The level's verdict on the answer: right, wrong, or that it cannot tell (its colour by
    `data-correct`, in explorer.css)."""
    correct = str(judgement.correct).lower()
    return (
        f'<div class="wts-verdict" data-correct="{correct}">'
        f"{VERDICT_MARKS[judgement.correct]} {html.escape(judgement.text)}</div>"
    )


def reading_html(system: str, task: str) -> str:
    """What the mock makes of a system prompt about giving up: the words it takes as permission
    or as a refusal, or that it finds none. The mock's view only: a real model reads for itself."""
    from ..mock.intent import WHY, read_intent

    intent = read_intent(system, task)
    if intent.quote:
        reads = _("the mock reads {why}: “{quote}”")
        text = reads.format(why=_(WHY[intent.why]), quote=intent.quote)
        if intent.allowed and intent.condition and intent.condition.text not in intent.quote:
            text += " — " + _("when: “{condition}”").format(condition=intent.condition.text)
    else:
        text = _("the mock reads no permission to give up in this prompt")
    colour = look.OK_COLOUR if intent.allowed else look.MUTED_COLOUR
    if intent.refused:  # the deciding words forbid giving up
        colour = look.ERROR_COLOUR
    return f'<span class="wts-reading" style="color:{colour}">{html.escape(text)}</span>'


def _pill(colour: str, symbol: str, text: str) -> str:
    """The badge: white words on the exit's colour (the rest of its look: explorer.css)."""
    return (
        f'<span class="wts-pill" style="background:{colour}">'
        f'<span aria-hidden="true">{symbol}</span> {html.escape(text)}</span>'
    )


def _turn_html(turn: Turn, run: Run, opened: bool) -> str:
    wrap_up = _("wrap-up — not an answer (request {n}, after the clock)")
    head = (wrap_up if turn.wrap_up else _("turn {n}")).format(n=turn.index)
    calls = ", ".join(f"{c.name} {_call_mark(c, run)[0]}" for c in turn.tool_calls) or (
        _("a tool call written as text")
        if turn.noted("text_tool_call")
        else _("an empty reply")
        if turn.noted("empty_reply")
        else _("reply")
    )
    usage = _("{prompt:,} prompt + {completion:,} completion tokens").format(
        prompt=turn.prompt_tokens, completion=turn.completion_tokens
    )
    kind = "wts-turn wts-wrap-up" if turn.wrap_up else "wts-turn"  # the wrap-up's edge dashed
    parts = [
        f'<details class="{kind}" data-turn="{turn.index}"{" open" if opened else ""}>',
        f"<summary><b>{html.escape(head)}</b> · {html.escape(calls)}</summary>",
        f'<div class="wts-usage">{html.escape(usage)}</div>',
    ]
    parts += [_note("↻ " + _("retried: {why}").format(why=r)) for r in turn.retries]
    if turn.text:
        said = html.escape(_("model:"))
        parts.append(f'<div class="wts-said"><i>{said}</i> {html.escape(turn.text)}</div>')
    parts += [_call_html(call, run) for call in turn.tool_calls]
    if turn.truncated:
        parts.append(_note("✂ " + _("reply cut off (finish_reason: length)")))
    parts += [_note("⚠ " + note.text, f"wts-note wts-note-{note.kind}") for note in turn.notes]
    parts.append("</details>")
    return "".join(parts)


def _note(text: str, kind: str = "wts-note") -> str:
    """A line of the transcript in a `<div>` of class `kind`: a note on a reply, the endpoint's
    error, that there are no turns."""
    return f'<div class="{kind}">{html.escape(text)}</div>'


def _call_mark(call: ToolCall, run: Run) -> tuple[str, str, str]:
    """(mark, words, colour) of a call's result."""
    if not call.ran:
        return "–", _("not run"), look.MUTED_COLOUR
    if call.failed:
        return "✗", _("✗ error"), look.ERROR_COLOUR
    if call.name in run.stop_on:
        return "✓", _("✓ warp pipe: its input is the answer"), look.PIPE_COLOUR
    return "✓", "✓", look.OK_COLOUR


def _call_html(call: ToolCall, run: Run) -> str:
    _mark, status, colour = _call_mark(call, run)
    kind = "wts-call wts-call-failed" if call.failed else "wts-call"
    calls = _("calls")
    output = "wts-output wts-output-failed" if call.failed else "wts-output"
    return (
        f'<div class="{kind}"><i>{html.escape(calls)}</i> '
        f"<code>{html.escape(call.name)}({html.escape(call.arguments)})</code> "
        f'<b style="color:{colour}">{html.escape(status)}</b></div>'
        f'<pre class="{output}">{html.escape(call.output)}</pre>'
    )


# -- the widget --------------------------------------------------------------------------------


def _configured(model: ChatModel | None) -> ChatModel | None:
    """`model`, else the endpoint the environment configures (the mock served over HTTP plays
    personas, so it is chosen only when a model is named or it does not serve them)."""
    if (
        model is None
        and os.environ.get("OPENAI_BASE_URL")
        and (os.environ.get("WHENTOSTOP_MODEL") or not serves_personas())
    ):
        return connect()
    return model


SWITCH_LABELS = {
    "stop_on": N_("stop_on=['mark_star'] — the warp pipe"),
    "give_up": N_("allow giving up (system prompt)"),
    "wrap_up": N_("wrap-up request after the clock"),
}


class _View:
    """What the explorer and the race share: a level, the runs counted, a heading, the row saying
    how the run ended (the badge, the turns line, the live region), and being shown as their root
    widget."""

    widget: w.VBox

    def __init__(self, level: str, price_model: str) -> None:
        self.level_name = level
        self.level = load_level(level)
        self.price_model = price_model
        """The list price dollars are counted at: the cost chart's title and the race's budget
        name it."""
        self.runs = 0
        self.badge = _pane("wts-badge", min_height="34px")
        self.turns = _pane("wts-turns", min_height="22px", margin="2px 8px")
        self.status = LiveRegion().add_class("wts-status")

    def _ending_row(self) -> w.HBox:
        return _row([self.badge, self.turns, self.status])

    def _root(self, title: str, heading_level: int, parts: list[w.Widget], cls: str) -> w.VBox:
        """The view's root: its title as a heading of `heading_level` (1 to 6), then `parts`."""
        n = min(max(heading_level, 1), 6)
        heading = Pane(value=f'<h{n} class="wts-level-title">{html.escape(title)}</h{n}>')
        parts = [heading.add_class("wts-header"), *parts]
        return w.VBox(parts, layout=w.Layout(width="100%", padding="4px")).add_class(cls)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def _pane(cls: str, **layout: str | None) -> Pane:
    """An output with its CSS class (the browser tests find it by it) and its layout."""
    return Pane(layout=w.Layout(**layout)).add_class(cls)


def _max_turns(value: int, most: int, **layout: str) -> TurnsSlider:
    """The `max_turns` slider, from 1 to `most`, with its CSS class and `layout`."""
    slider = TurnsSlider(value=value, max=most, description="max_turns", layout=w.Layout(**layout))
    return slider.add_class("wts-max-turns")


def _row(children: list[w.Widget], **layout: str) -> w.HBox:
    """Widgets side by side, wrapped onto more lines where the page is narrow."""
    return w.HBox(children, layout=w.Layout(flex_flow="row wrap", align_items="center", **layout))


class Explorer(_View):
    """One level's explorer. `ex.widget` is the root VBox; `ex.run` the last Run; `ex.runs` how
    many runs it has made. `compact=True` lays it out as a dashboard column; `projector=True`
    sets its text in the projector's size (`look.PROJECTOR_TEXT_PX`)."""

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
        price_model: str = DEFAULT_PRICE_MODEL,
        heading_level: int = 3,
        projector: bool = False,
    ) -> None:
        self.setup = SETUPS.get(level, OTHER_LEVEL)
        self.prompt = prompt
        """The task; None means the lesson's, in the language in effect at each run."""
        self.compact = compact
        model = _configured(model)
        self.live = model is not None and not is_mock(model)
        self._models: dict[str, ChatModel] = (
            {model.name: model} if model is not None and not self.live else {}
        )
        self._model = model
        self.run: Run | None = None
        self.error: str | None = None
        super().__init__(level, price_model)

        start_persona = persona or next(iter(self._models), self.setup.persona)
        self.max_turns = _max_turns(
            max_turns, MAX_TURNS_LIMIT, width="100%" if compact else "360px"
        )
        self.persona = Choice(
            options=list(dict.fromkeys([*PERSONA_CHOICES, start_persona])),
            value=start_persona,
            description=_("model"),
            layout=w.Layout(width="auto", display="none" if self.live else None),
            disabled=self.live,
        ).add_class("wts-persona")
        self.stop_on = self._switch("stop_on", self.setup.stop_on if stop_on is None else stop_on)
        self.give_up = self._switch("give_up", allow_give_up)
        self.system_prompt = w.Text(
            value=give_up(),
            continuous_update=False,
            description=_("system prompt"),
            style={"description_width": "initial"},
            layout=w.Layout(width="100%"),
        ).add_class("wts-system-prompt")
        """The give-up words sent when the switch is on: the lesson's, or the learner's own. Off
        (disabled: greyed, and announced as unavailable) while the switch is off, since nothing
        of it is sent then."""
        self.wrap_up = self._switch("wrap_up", wrap_up)
        self._panes()
        self.show_map = (
            show_map if show_map is not None else not compact or TERMINAL in self.setup.tools
        )
        self.widget = self._layout(
            {"stop_on": stop_on, "give_up": allow_give_up, "wrap_up": wrap_up}, heading_level
        )
        if projector:
            self.widget.add_class("wts-projector")
        self._wire(model)

    def _panes(self) -> None:
        """The explorer's outputs and its Run button, each with its CSS class (the browser
        tests find them by it)."""
        self.reading = _pane("wts-reading", min_height="20px")
        live_only = None if self.live else "none"  # the Run button and the progress line
        self.run_button = w.Button(
            description=_("Run"),
            button_style="primary",
            icon="play",
            layout=w.Layout(display=live_only),
        ).add_class("wts-run")
        self.plot_svg = self.map_svg = ""
        self.progress = _pane("wts-progress", min_height="24px", display=live_only)
        self.transcript = _pane("wts-transcript", width="100%")
        self.plot = _pane("wts-plot", width="100%")
        self.map = _pane("wts-map", width="100%")

    def _wire(self, model: ChatModel | None) -> None:
        """Every control reruns the level; a live model waits for Run, the mock runs at once."""
        # the system prompt is disabled while nothing of it is sent
        w.dlink((self.give_up, "value"), (self.system_prompt, "disabled"), lambda on: not on)
        controls = (self.max_turns, self.persona, self.stop_on, self.give_up, self.wrap_up)
        for control in (*controls, self.system_prompt):
            control.observe(self._changed, names="value")
        self.run_button.on_click(lambda _: self.rerun())
        if self.live:
            self._show()
            url = getattr(model, "base_url", "")
            self._say(_("Connected to {url} — nothing runs until you press Run.").format(url=url))
        else:
            self.rerun()

    def rerun(self) -> Run:
        """Run the level now with the current controls; show and return the Run."""
        tools = self.setup.tools + (
            (TERMINAL,) if self.stop_on.value and TERMINAL not in self.setup.tools else ()
        )
        if self.live:
            self.run_button.disabled = True
            self._say(_("turn 1 of {max_turns}… starting").format(max_turns=self.max_turns.value))
        try:
            run = run_agent(
                self.prompt or lesson_prompt(),
                model=self._current_model(),
                tools=self.level.tools(*tools),
                max_turns=self.max_turns.value,
                stop_on=[TERMINAL] if self.stop_on.value else [],
                system=self._system(),
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
        self.runs += 1
        self._show()
        return run

    @property
    def judgement(self) -> Judgement | None:
        """The level's verdict on the last run's answer (None before a run, or a broken one)."""
        return None if self.run is None or self.run.stop is None else self.level.judge(self.run)

    @property
    def announcement(self) -> str:
        """What the live region says now: the level, the run's number and how it ended."""
        if self.run is None:
            return describe.ending(None)
        return describe.announcement(
            self.level_name, self.runs, self.run, self.error, self.judgement
        )

    # -- internals ---------------------------------------------------------------------------

    def _system(self) -> str | None:
        """The system prompt of the next run: the give-up words when the switch is on."""
        return (self.system_prompt.value.strip() or None) if self.give_up.value else None

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
            self._say(_("Controls changed — press Run to run the level with them."))
        else:
            self.rerun()

    def _on_event(self, event: Event) -> None:
        """The progress line of a live run: "turn N of M…" when a turn starts."""
        if isinstance(event, TurnStart):
            waiting = _("turn {turn} of {max_turns}… waiting for the model")
            self._say(waiting.format(turn=event.turn, max_turns=event.max_turns))

    def _say(self, text: str) -> None:
        """A live run's progress line (plain text)."""
        self.progress.value = html.escape(text)

    def _show(self) -> None:
        """Draw first, then set every output in one go, so the page updates all at once. Only
        this explorer's outputs change; an output whose text is the same sends nothing."""
        run, judgement = self.run, self.judgement
        self.plot_svg = charts.cost_svg(
            run, self.price_model, tokens_per_turn=not self.compact, judgement=judgement
        )
        self.map_svg = charts.map_svg(self.level, run, narrow=self.compact) if self.show_map else ""
        if self.live and self.error:
            self.progress.value = f'<span class="wts-error">✖ {html.escape(self.error)}</span>'
        elif self.live and run:
            done = _("done: {turns} in {seconds:.1f} s")
            self._say(done.format(turns=turns_text(run), seconds=run.elapsed_s))
        self.badge.value = badge_html(run, self.error, judgement)
        system = None if self.live else self._system()  # what the mock reads: not on a live run
        task = self.prompt or lesson_prompt()
        self.reading.value = "" if system is None else reading_html(system, task)
        self.turns.value = turns_line(run, self.runs)
        label = _("Transcript of level {level}, run {number}").format(
            level=self.level_name, number=self.runs
        )
        self.transcript.value = transcript_html(
            run, label=label, height=TRANSCRIPT_HEIGHT[self.compact], judgement=judgement
        )
        if self.show_map:
            self.map.value = charts.img(self.map_svg)
        self.plot.value = charts.img(self.plot_svg)
        self.status.text = self.announcement

    def _switch(self, name: str, value: bool) -> w.Checkbox:
        return w.Checkbox(
            value=value,
            description=_(SWITCH_LABELS[name]),
            indent=False,
            layout=w.Layout(width="auto"),
        ).add_class("wts-" + name.replace("_", "-"))

    def _layout(self, asked: dict[str, bool | None], heading_level: int) -> w.VBox:
        """Title (a heading), controls (the switches this level is about, and any the caller
        turned on: `asked`), the badge and turns line, then the views; with the map,
        the badge and the transcript beside it, held in view while a tall map (the castle's)
        scrolls by. Compact (a dashboard column): the slider, the badge and the cost chart right
        under it, so a 1280×720 projector shows every level's badge and chart at once in its
        large text; the model, the switches, the map and the transcript below them (the badge
        stays in view, `.wts-ending`)."""
        switches = [getattr(self, n) for n, on in asked.items() if on or n in self.setup.switches]
        beside, below = ([], [self.persona]) if self.compact else ([self.persona], [])  # the model
        controls = _row([self.max_turns, *beside, self.run_button], width="100%")
        options = _row([*below, *switches], width="100%")
        status = self._ending_row().add_class("wts-ending")  # held in view (explorer.css)
        if self.compact:  # the slider, then what it changes; the model and switches below
            parts: list[w.Widget] = [controls, status, self.progress, self.plot, options]
            parts += [self.map, self.transcript] if self.show_map else [self.transcript]
        else:
            parts = [controls, options]
            if self.give_up in switches:  # the learner's own words, and what the mock reads
                parts += [self.system_prompt, self.reading]
            if self.show_map:  # a notebook is wide: the map, and beside it the badge and the
                self.map.layout.width = "50%"  # transcript, in view while a tall map scrolls by
                beside = w.VBox(
                    [status, self.progress, self.transcript], layout=w.Layout(width="50%")
                ).add_class("wts-beside-map")
                views = w.HBox(
                    [self.map, beside], layout=w.Layout(width="100%", align_items="flex-start")
                ).add_class("wts-views")
                parts += [views, self.plot]
            else:
                parts += [status, self.progress, self.transcript, self.plot]
        return self._root(self.level.title, heading_level, parts, "wts-explorer")

    def __repr__(self) -> str:
        where = "live" if self.live else "mock"
        return f"<Explorer {self.level_name} ({where}): {self.run.summary() if self.run else 'not run'}>"


# -- the race between the stops ----------------------------------------------------------------


RACE_PACE_S = 0.05
"""Seconds the race's model takes per reply (the mock's `slow` persona): slow enough that seconds
count, fast enough that the race follows a control (its 25-turn track takes about 1.3 s)."""
RACE_DEADLINE = {"min": 0.1, "max": 1.5, "step": 0.1}
"""The race's `deadline_s` slider: from, to, step (seconds)."""
RACE_BUDGET = {"tokens": (1_000.0, 30_000.0, 500.0, 0), "usd": (0.002, 0.1, 0.002, 3)}
"""The race's budget slider per unit: from, to, step, decimals shown."""
BUDGET_UNITS: dict[str, Unit] = {"tokens": "tokens", "USD": "usd"}
"""The budget's units as the list offers them, and as the race counts them."""


class Race(_View):
    """The race between the stops: `max_turns`, `deadline_s` and a budget on one run, and which
    fires first. `race.widget` is the root VBox; `race.result` the last `race.RaceResult`.

    It always runs on the mock — the `slow` persona at `pace_s` seconds a reply, whatever endpoint
    is configured — because the race is about limits against a pace you know; the level's other
    explorers run on your model."""

    def __init__(
        self,
        level: str = "1-1",
        *,
        max_turns: int = 15,
        deadline_s: float = 1.0,
        budget: float = 6_000,
        unit: str = "tokens",
        price_model: str = DEFAULT_PRICE_MODEL,
        pace_s: float = RACE_PACE_S,
        heading_level: int = 3,
    ) -> None:
        super().__init__(level, price_model)
        self.pace_s = pace_s
        self.model = mock(f"slow:{pace_s:g}")
        self.tools = self.level.tools(*SETUPS.get(level, OTHER_LEVEL).tools)
        self.result: RaceResult | None = None
        self.chart_svg = ""
        locale = "pt-BR" if language() == "pt" else "en"
        slider = {"width": "360px", "margin": "2px 24px 2px 0"}  # room after each readout
        self.max_turns = _max_turns(max_turns, TRACK_TURNS, **slider)
        self.deadline = NumberSlider(
            value=deadline_s,
            **RACE_DEADLINE,
            suffix=" s",
            locale=locale,
            description="deadline_s",
            layout=w.Layout(**slider),
        ).add_class("wts-deadline")
        self.unit = Choice(
            options=list(BUDGET_UNITS),
            description=_("budget in"),
            value=next(k for k, v in BUDGET_UNITS.items() if v == unit.lower()),
        ).add_class("wts-budget-unit")
        self.budget = NumberSlider(locale=locale, layout=w.Layout(**slider)).add_class("wts-budget")
        self._set_budget_range(budget)
        self.chart = _pane("wts-plot", width="100%")
        self.falls = _pane("wts-falls", width="100%", min_height="84px")
        title = _("The race between the stops: {title}").format(title=self.level.title)
        turns_and_time = _row([self.max_turns, self.deadline], width="100%")
        spend = _row([self.unit, self.budget], width="100%")
        parts = [turns_and_time, spend, self._ending_row(), self.chart, self.falls]
        self.widget = self._root(title, heading_level, parts, "wts-race")
        self.track = track_of(lesson_prompt(), model=self.model, tools=self.tools)
        for control in (self.max_turns, self.deadline):  # the budget: `_set_budget_range`
            control.observe(self._changed, names="value")
        self.unit.observe(self._unit_changed, names="value")
        self.rerun()

    @property
    def limits(self) -> Limits:
        """The limits the controls say."""
        unit = BUDGET_UNITS[self.unit.value]
        return Limits(
            self.max_turns.value, self.deadline.value, self.budget.value, unit, self.price_model
        )

    def rerun(self) -> RaceResult:
        """Race again with the controls as they are; show and return the result."""
        self.result = run_race(
            lesson_prompt(),
            model=self.model,
            tools=self.tools,
            limits=self.limits,
            track=self.track,
        )
        self.track = self.result.track
        self.runs += 1
        self._show()
        return self.result

    @property
    def announcement(self) -> str:
        """What the live region says: the race's number, which limit fired, the run's spend."""
        if self.result is None:
            return ""
        return _("Race on level {level}, run {number}: {outcome}.").format(
            level=self.level_name, number=self.runs, outcome=describe.race_outcome(self.result)
        )

    def _unit_changed(self, change: dict[str, Any]) -> None:
        """Tokens <-> dollars: the budget keeps its place on the track (the same spend, in the
        other unit, at the race's price), then the race runs once."""
        tokens = self.track.spent("tokens", self.price_model)
        usd = self.track.spent("usd", self.price_model)
        rate = usd[-1] / tokens[-1] if tokens and tokens[-1] else 0.0
        if BUDGET_UNITS[change["new"]] == "usd":
            value = self.budget.value * rate
        else:
            value = self.budget.value / rate if rate else RACE_BUDGET["tokens"][0]
        self._set_budget_range(value)
        self.rerun()

    def _set_budget_range(self, value: float) -> None:
        """The budget slider for the unit chosen: its range, step, name and value, set at once
        and without a race for each: the slider is watched (`_changed`) again once they are."""
        unit = BUDGET_UNITS[self.unit.value]
        low, high, step, decimals = RACE_BUDGET[unit]
        self.budget.unobserve(self._changed, names="value")
        try:
            with self.budget.hold_trait_notifications():
                self.budget.min, self.budget.max, self.budget.step = low, high, step
                self.budget.decimals = decimals
                self.budget.description = "max_cost_usd" if unit == "usd" else "max_tokens_total"
                self.budget.value = value
        finally:
            self.budget.observe(self._changed, names="value")

    def _changed(self, change: dict[str, Any]) -> None:
        self.rerun()

    def _show(self) -> None:
        result = self.result
        assert result is not None
        run = result.run.run
        self.chart_svg = charts.race_svg(
            result, level=self.level_name, model=run.model, pace_s=self.pace_s
        )
        self.badge.value = badge_html(run)
        took = _("{turns} · {seconds:.2f} s · {spent}").format(
            turns=describe.of_turns(len(run.turns), run.max_turns),
            seconds=run.elapsed_s,
            spent=describe.race_spent(result),
        )
        self.turns.value = _counted(took, self.runs)
        self.chart.value = charts.img(self.chart_svg)
        heading = html.escape(_("Where each limit falls on the track:"))
        first = result.predicted
        items = "".join(
            f'<li class="wts-fall{" wts-first" if fall is first else ""}">'
            f"{'<b>' if fall is first else ''}{html.escape(text)}{'</b>' if fall is first else ''}</li>"
            for fall, text in zip(result.falls, describe.race_falls(result))
        )
        self.falls.value = f"<div>{heading}</div><ul>{items}</ul>"
        self.status.text = self.announcement

    def __repr__(self) -> str:
        fired = self.result.fired if self.result else None
        return f"<Race {self.level_name}: {fired or 'not run'}>"


race = Race
"""`race("1-1", ...)`: the race between the stops on a level; see `Race` for the options."""
explorer = Explorer
"""`explorer("1-1", ...)`: an explorer for one level; see `Explorer` for the options."""


def dashboard(
    levels: Sequence[str] = LEVELS, *, compact: bool = True, projector: bool = True, **options: Any
) -> w.GridBox:
    """The levels' explorers side by side, for a projector (`make dashboard`): compact columns
    that show every badge and cost chart at once on a 1280×720 screen, in text readable from the
    back of the room (`projector=False`: the notebook's own text size). Each explorer re-runs and
    redraws only itself."""
    options.setdefault("heading_level", 2)
    explorers = [Explorer(name, compact=compact, **options) for name in levels]
    grid = w.GridBox(
        [ex.widget for ex in explorers],
        layout=w.Layout(
            grid_template_columns=f"repeat({len(explorers)}, minmax(0, 1fr))",
            grid_gap="16px",
            width="100%",
            align_items="flex-start",
        ),
    ).add_class("wts-dashboard")
    if projector:
        grid.add_class("wts-projector")
    grid.explorers = explorers  # the Explorer objects, for a notebook or a test to drive
    return grid
