"""The agent loop: ask the model, run the tools it asks for, repeat — until one of the exits.

    the flag       a reply with no tool call                 -> Stop.END_TURN, answer = its text
    the warp pipe  a `stop_on` tool that validated and ran   -> Stop.TERMINAL_TOOL, answer = its input
    the clock      `max_turns` requests made                 -> Stop.MAX_TURNS, no answer
    wall-clock     `deadline_s` passed                       -> Stop.DEADLINE, no answer
    the budget     the next request would pass `max_tokens_total` or `max_cost_usd`
                                                             -> Stop.BUDGET, no answer

Every limit is checked before each request. An endpoint failure raises a typed error that
carries the partial run, and so does Ctrl-C (its `KeyboardInterrupt` goes on, with `.run`);
a tool's failure goes back to the model as its result. `run_agent` reads as the plain loop of notebook 1-4; the edge cases live in the small helpers below it.

A reply that is cut off (`finish_reason: "length"`) or empty (no text, no tool call) is not an
answer: the loop asks again, which costs a turn. A reply whose *text* is a tool call (a server
that did not parse the model's call), or that only repeats words the model was sent, is still the
flag — the rule stays — but it is no answer: the turn gets a note, the run a warning, and
`run.answer` raises; `text_tool_calls="accept"` runs calls written as text instead, labelled in
the transcript and the run.

`tool_choice` ("auto", "none", "required", or a tool's name) is sent with every request: with
"required" or a name the model must call a tool on every turn, so the flag can never fire and the
run ends only through the warp pipe or on the clock (the run's warnings say so at its start).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._numbers import positive_int, seconds
from ._options import option
from .client import ChatModel, Completion
from .errors import DeadlineReached, EndpointError
from .events import Listener, ModelReply, RetryEvent, SessionEnd, ToolResultEvent, TurnStart, emit
from .i18n import _, say
from .outcome import Run, Stop, ToolCall, Turn
from .replies import note_after_cut_off, note_cut_off, note_echo, note_empty, warn
from .textcalls import note_text_calls
from .tools import Tool, as_tools, call_tool
from .usage import Budget, Price

WRAP_UP_PROMPT = (
    "You have run out of turns and can call no more tools. In a few words, say what you found "
    "and what you would still need to do."
)
CONTINUE_PROMPT = "Your reply was cut off (finish_reason: length). Continue, more briefly."
EMPTY_PROMPT = "Your reply was empty: no text and no tool call. Call a tool, or give your answer."
"""What the loop sends after an empty reply. A small model sometimes sends it back as its reply;
it is written to be recognised when it comes back whole or in part (`replies.echoes`): sentences
of its own, unlike any answer, each long enough that an echo of one is more than a few words."""
TextToolCalls = Literal["note", "accept"]
ToolChoice = str | dict[str, Any]
"""`"auto"`, `"none"`, `"required"`, the name of one of the tools, or the OpenAI form of a named
function (`{"type": "function", "function": {"name": ...}}`)."""


def run_agent(
    prompt: str,
    *,
    model: ChatModel,
    tools: Iterable[Tool | Callable[..., Any]] = (),
    max_turns: int = 10,
    stop_on: Sequence[str] | str = (),
    system: str | None = None,
    deadline_s: float | None = None,
    on_event: Listener | None = None,
    on_max_turns: Literal["stop", "wrap_up"] = "stop",
    max_tokens_total: int | None = None,
    max_cost_usd: float | None = None,
    price: str | Price | None = None,
    text_tool_calls: TextToolCalls = "note",
    tool_choice: ToolChoice | None = None,
    parallel_tool_calls: bool | None = None,
) -> Run:
    """Run the loop until it stops; return the `Run` with its one `stop` and its transcript.

    `max_tokens_total` / `max_cost_usd` cap what the whole run may spend (dollars at `price`,
    default `usage.DEFAULT_PRICE_MODEL`): see `usage.Budget` for what is checked, and when.
    `text_tool_calls="accept"` runs tool calls a model wrote as text (see `textcalls`).
    `tool_choice` and `parallel_tool_calls` go with every request, only when set: they are the
    run's, not the model's, because they name its tools and change which exits it can take."""
    limits = _Limits.of(max_turns, deadline_s, on_max_turns, max_tokens_total, max_cost_usd, price)
    offer = _Offer.of(tools, stop_on, text_tool_calls, tool_choice, parallel_tool_calls)
    loop = _started(prompt, system, model, offer, limits, on_event)
    run = loop.run

    try:
        for index in range(1, max_turns + 1):
            # Exit: wall-clock. Turns are not time; checked before every request.
            if _past(loop):
                return _end(loop, Stop.DEADLINE)
            # Exit: the budget. The next request costs at least the history it sends again.
            if _over_budget(loop):
                return _end(loop, Stop.BUDGET)
            emit(on_event, TurnStart(turn=index, max_turns=max_turns))
            turn = _ask(loop, index)
            if turn is None:  # the deadline passed while the model was answering
                return _end(loop, Stop.DEADLINE)

            if not turn.message.get("tool_calls"):
                if turn.truncated or turn.empty:
                    # Cut off or empty: not an answer. Ask again; it costs a turn.
                    run.messages.append({"role": "user", "content": _ask_again(turn)})
                    continue
                # Exit: the flag. The model replied without asking for a tool.
                return _end(loop, Stop.END_TURN, turn.text)

            terminal = _run_calls(loop, turn)
            if terminal is not None:
                # Exit: the warp pipe. A stop_on tool validated and ran; its input is the answer.
                return _end(loop, Stop.TERMINAL_TOOL, terminal.input)

        # Exit: the clock. Out of turns; the last message is usually a tool call, not an answer.
        if on_max_turns == "wrap_up" and not _past(loop):
            _wrap_up(loop)
        return _end(loop, Stop.MAX_TURNS)
    except BaseException as exc:  # Ctrl-C, a tool's SystemExit, a failing endpoint: the run
        _kept(loop, exc)  # so far goes with the exception, which goes on unchanged
        raise


# -- what a run carries, and the helpers the loop reads through ------------------------------


@dataclass(frozen=True)
class _Limits:
    """What a run may spend, each checked before a request: turns, seconds, tokens or dollars."""

    max_turns: int
    deadline_s: float | None
    budget: Budget | None
    """None when neither tokens nor dollars are capped."""

    @classmethod
    def of(
        cls,
        max_turns: int,
        deadline_s: float | None,
        on_max_turns: str,
        max_tokens_total: int | None,
        max_cost_usd: float | None,
        price: str | Price | None,
    ) -> _Limits:
        """The limits of `run_agent`'s arguments, checked before anything is sent."""
        positive_int(max_turns, option("max_turns"))
        if deadline_s is not None:
            deadline_s = seconds(deadline_s, option("deadline_s"))  # a ValueError unless it is one
        if on_max_turns not in ("stop", "wrap_up"):
            said = _("on_max_turns must be 'stop' or 'wrap_up', got {value!r}")
            raise ValueError(said.format(value=on_max_turns))
        return cls(max_turns, deadline_s, Budget.of(max_tokens_total, max_cost_usd, price))


@dataclass
class _Offer:
    """What every request of a run offers the model, and how the loop reads its replies."""

    by_name: dict[str, Tool]
    stop_on: tuple[str, ...] = ()
    """The tools whose validated call ends the run: the warp pipe."""
    text_tool_calls: str = "note"
    tool_choice: str | dict[str, Any] | None = None
    """As sent: "auto", "none", "required", or the named-function object."""
    parallel_tool_calls: bool | None = None

    @classmethod
    def of(
        cls,
        tools: Iterable[Tool | Callable[..., Any]],
        stop_on: Sequence[str] | str,
        text_tool_calls: str,
        tool_choice: ToolChoice | None,
        parallel_tool_calls: bool | None,
    ) -> _Offer:
        """The tools and reading settings of `run_agent`, checked before anything is sent."""
        by_name = as_tools(tools)
        pipe = _pipe(stop_on, by_name)
        if text_tool_calls not in ("note", "accept"):
            said = _("{name} must be 'note' or 'accept', got {value!r}")
            raise ValueError(said.format(name=option("text_tool_calls"), value=text_tool_calls))
        if parallel_tool_calls is not None and not isinstance(parallel_tool_calls, bool):
            said = _("{name} must be True, False or None, got {value!r}")
            name = option("parallel_tool_calls")
            raise ValueError(said.format(name=name, value=parallel_tool_calls))
        choice = _choice(tool_choice, by_name)
        return cls(by_name, pipe, text_tool_calls, choice, parallel_tool_calls)

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return [t.schema for t in self.by_name.values()]

    @property
    def sent(self) -> dict[str, Any]:
        """The request settings that were set, for `complete()`: nothing when none was."""
        given = {"tool_choice": self.tool_choice, "parallel_tool_calls": self.parallel_tool_calls}
        return {name: value for name, value in given.items() if value is not None}

    @property
    def forced(self) -> str | None:
        """The tool the model must call on every turn ("*": any), if `tool_choice` forces one."""
        if self.tool_choice == "required":
            return "*"
        if isinstance(self.tool_choice, dict):
            return str(self.tool_choice.get("function", {}).get("name"))
        return None


@dataclass
class _Loop:
    """A run under way: what each helper of `run_agent` reads — the model, the run so far, the
    offer, the limits, the listener — instead of each taking them one by one."""

    model: ChatModel
    run: Run
    offer: _Offer
    limits: _Limits
    on_event: Listener | None
    deadline: float | None
    """The wall-clock end of the run (a `time.monotonic()` value), if it has one."""


def _pipe(stop_on: Sequence[str] | str, by_name: dict[str, Tool]) -> tuple[str, ...]:
    """`stop_on` as a tuple of the tools' names; a name that is no tool is an error."""
    names = (stop_on,) if isinstance(stop_on, str) else tuple(stop_on)
    unknown = [name for name in names if name not in by_name]
    if unknown:
        tools, listed = ", ".join(by_name) or _("none"), ", ".join(unknown)
        said = say("stop_on_unknown", name=option("stop_on"), unknown=listed, tools=tools)
        raise ValueError(said)
    return names


def _choice(
    tool_choice: ToolChoice | None, by_name: dict[str, Tool]
) -> str | dict[str, Any] | None:
    """`tool_choice` as the request carries it: a mode, or a named function that is offered."""
    if tool_choice is None or tool_choice in ("auto", "none", "required"):
        return tool_choice
    name: Any = tool_choice
    if isinstance(tool_choice, dict):
        function = tool_choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
    if isinstance(name, str) and name in by_name:
        return {"type": "function", "function": {"name": name}}
    said = say("tool_choice_unknown")
    tools = ", ".join(by_name) or _("none")
    raise ValueError(said.format(name=option("tool_choice"), tools=tools, value=tool_choice))


def _started(
    prompt: str,
    system: str | None,
    model: ChatModel,
    offer: _Offer,
    limits: _Limits,
    on_event: Listener | None,
) -> _Loop:
    """The run before the first request — the opening messages and every limit it runs under,
    with a warning when `tool_choice` takes the flag away — and what its helpers read."""
    budget = limits.budget
    run = Run(
        stop=None,
        messages=_opening(prompt, system),
        turns=[],
        max_turns=limits.max_turns,
        model=getattr(model, "name", ""),
        stop_on=offer.stop_on,
        deadline_s=limits.deadline_s,
        tools=tuple(offer.by_name),
        max_tokens_total=budget.max_tokens_total if budget else None,
        max_cost_usd=budget.max_cost_usd if budget else None,
        price_model=budget.price.model if budget and budget.price else None,
    )
    if offer.forced is not None:
        run.warnings.append(_flag_taken_away(offer.forced, offer.stop_on))
    deadline = None if run.deadline_s is None else run.started + run.deadline_s
    return _Loop(model, run, offer, limits, on_event, deadline)


def _flag_taken_away(forced: str, stop_on: tuple[str, ...]) -> str:
    """The warning of a run whose `tool_choice` forces a call on every turn: how it can end."""
    pipe = ", ".join(name for name in stop_on if forced in ("*", name))
    ends = say("ends_through_pipe", tools=pipe) if pipe else say("ends_on_the_clock")
    choice, tool = ("required", _("a tool")) if forced == "*" else (forced, forced)
    return say("flag_taken_away", choice=choice, tool=tool, ends=ends)


def _opening(prompt: str, system: str | None) -> list[dict[str, Any]]:
    """The conversation before the first request: the system prompt, if any, and the task."""
    first = [{"role": "system", "content": system}] if system else []
    return [*first, {"role": "user", "content": prompt}]


def _over_budget(loop: _Loop) -> bool:
    """Whether the next request would take the run past its budget; if so, it says which.

    The budget counts what the server reports; a server that reports no usage cannot be held
    to one, and the run says so (once) instead of pretending."""
    run, budget = loop.run, loop.limits.budget
    if budget is None:
        return False
    if run.turns and run.turns[-1].total_tokens == 0:
        warn(run, "budget_blind", say("budget_blind"))
    run.budget_stop = budget.over(run)
    return run.budget_stop is not None


def _ask(loop: _Loop, index: int) -> Turn | None:
    """One request with the whole history: the new `Turn`, recorded, read (`_read`) and
    announced; None when the deadline cut it short. An endpoint failure ends the run broken and
    is raised."""
    run = loop.run
    try:
        completion = _request(loop, index, **loop.offer.sent)
    except DeadlineReached:
        return None
    except EndpointError as exc:
        run.break_off(str(exc))
        exc.run = run
        emit(loop.on_event, SessionEnd(reason=None, turns=len(run.turns), error=str(exc)))
        raise
    turn = Turn.of(index, completion)
    run.turns.append(turn)
    _read(loop, turn)
    emit(loop.on_event, ModelReply(turn=turn))
    return turn


def _read(loop: _Loop, turn: Turn) -> None:
    """Note what the reply is when it is not what it seems (`replies`): cut off, empty, words
    the model was sent repeated back, the continuation of a cut-off reply, or a tool call
    written as text (`textcalls`, which with `text_tool_calls="accept"` makes it a call)."""
    run = loop.run
    if turn.truncated:
        note_cut_off(turn, run)
    elif turn.empty:
        note_empty(turn, run)
    if turn.empty or turn.message.get("tool_calls"):
        return
    if not turn.truncated:
        if note_echo(turn, run):
            return
        if len(run.turns) > 1 and run.turns[-2].truncated:
            note_after_cut_off(turn)
    note_text_calls(turn, run, loop.offer.by_name, accept=loop.offer.text_tool_calls == "accept")


def _ask_again(turn: Turn) -> str:
    """What to send after a reply that is not an answer: cut off, or empty."""
    return CONTINUE_PROMPT if turn.truncated else EMPTY_PROMPT


def _run_calls(loop: _Loop, turn: Turn) -> ToolCall | None:
    """Run every call of one reply, each result going back to the model; the terminal call
    (the first `stop_on` call that validated and ran), or None.

    A call after the terminal one in the same reply is recorded as not run; a call id used
    twice is an error result; a tool's failure is an `Error:` line, and the loop goes on.
    """
    terminal: ToolCall | None = None
    seen_ids: set[str] = set()
    for raw in turn.message["tool_calls"]:
        call = ToolCall(raw["id"], raw["function"]["name"], raw["function"]["arguments"])
        if terminal is not None:
            call.ran = False
            call.output = f"Not run: the run ended when {terminal.name} was called before this."
        elif call.id in seen_ids:
            call.output = f"Error: tool call id {call.id!r} was used twice in one reply; not run."
        else:
            result = call_tool(
                loop.offer.by_name, call.name, call.arguments, deadline=loop.deadline
            )
            call.ok, call.output, call.input = result.ok, result.output, result.input
            call.latency_s = result.latency_s
        seen_ids.add(call.id)
        turn.tool_calls.append(call)
        loop.run.messages.append({"role": "tool", "tool_call_id": call.id, "content": call.output})
        emit(loop.on_event, ToolResultEvent(turn=turn.index, call=call))
        if call.ok and call.name in loop.offer.stop_on and terminal is None:
            terminal = call
    return terminal


def _wrap_up(loop: _Loop) -> None:
    """The opt-in request after the clock, with tools switched off: a best effort kept in
    `run.wrap_up_turn`, never an answer. Its failure is kept too, and does not undo the clock;
    a wrap-up the budget cannot pay for is not sent (`run.wrap_up_error` says so)."""
    run, budget = loop.run, loop.limits.budget
    index = run.max_turns + 1
    if budget and (over := budget.over(run)) is not None:
        run.wrap_up_error = _("not sent: {why}").format(why=over.text())
        return
    run.messages.append({"role": "user", "content": WRAP_UP_PROMPT})
    try:
        completion = _request(loop, index, tool_choice="none")
    except DeadlineReached:
        return
    except EndpointError as exc:
        run.wrap_up_error = str(exc)
        return
    run.wrap_up_turn = Turn.of(index, completion, wrap_up=True)


def _kept(loop: _Loop, exc: BaseException) -> None:
    """Attach the run so far to the exception that ends it (`exc.run`, the turns already paid
    for) and, unless the run had already ended, say so in its one session-end event."""
    run = loop.run
    if run.stop is None and run.error is None:
        detail = " ".join(str(exc).split())
        said = _("interrupted by {kind}").format(kind=type(exc).__name__)
        run.break_off(f"{said}: {detail}" if detail else said)
        emit(loop.on_event, SessionEnd(reason=None, turns=len(run.turns), error=run.error))
    with contextlib.suppress(AttributeError, TypeError):  # an exception that takes no attributes
        exc.run = run  # type: ignore[attr-defined]


def _request(loop: _Loop, index: int, **sent: Any) -> Completion:
    """Request turn `index` with the whole history and the tools (`sent`: the run's request
    settings), its retries announced as `RetryEvent`s of turn `index`; the reply joins the
    history."""

    def on_retry(attempt: int, reason: str, wait_s: float) -> None:
        emit(loop.on_event, RetryEvent(turn=index, attempt=attempt, reason=reason, wait_s=wait_s))

    completion = loop.model.complete(
        loop.run.messages, loop.offer.schemas, deadline=loop.deadline, on_retry=on_retry, **sent
    )
    loop.run.messages.append(completion.message)
    return completion


def _end(loop: _Loop, stop: Stop, answer: Any = None) -> Run:
    """Finish the run with its one stop, and say so in exactly one session-end event."""
    loop.run.finish(stop, answer)
    emit(loop.on_event, SessionEnd(reason=stop, turns=len(loop.run.turns)))
    return loop.run


def _past(loop: _Loop) -> bool:
    """Whether the run's wall-clock deadline has passed."""
    return loop.deadline is not None and time.monotonic() >= loop.deadline
