"""The agent loop: ask the model, run the tools it asks for, repeat — until one of the exits.

    the flag       a reply with no tool call                 -> Stop.END_TURN, answer = its text
    the warp pipe  a `stop_on` tool that validated and ran   -> Stop.TERMINAL_TOOL, answer = its input
    the clock      `max_turns` requests made                 -> Stop.MAX_TURNS, no answer
    wall-clock     `deadline_s` passed                       -> Stop.DEADLINE, no answer

Every limit is checked before each request. An endpoint failure raises a typed error that
carries the partial run, and so does Ctrl-C (its `KeyboardInterrupt` goes on, with `.run`);
a tool's failure goes back to the model as its result. `run_agent` reads as the plain loop of
notebook 1-4; the edge cases live in the small helpers below it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from .client import ChatModel, OnRetry
from .errors import DeadlineReached, EndpointError
from .events import Listener, ModelReply, RetryEvent, SessionEnd, ToolResultEvent, TurnStart, emit
from .i18n import _
from .outcome import Run, Stop, ToolCall, Turn
from .tools import Tool, as_tools, call_tool

WRAP_UP_PROMPT = (
    "You have run out of turns and can call no more tools. In a few words, say what you found "
    "and what you would still need to do."
)
CONTINUE_PROMPT = "Your reply was cut off (finish_reason: length). Continue, more briefly."


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
) -> Run:
    """Run the loop until it stops; return the `Run` with its one `stop` and its transcript."""
    by_name, stop_on = _checked(tools, max_turns, stop_on, deadline_s, on_max_turns)
    run = Run(stop=None, messages=_opening(prompt, system), turns=[], max_turns=max_turns,
              model=getattr(model, "name", ""), stop_on=stop_on, deadline_s=deadline_s)
    deadline = None if deadline_s is None else run.started + deadline_s
    schemas = [t.schema for t in by_name.values()]

    try:
        for index in range(1, max_turns + 1):
            # Exit: wall-clock. Turns are not time; checked before every request.
            if _past(deadline):
                return _end(run, on_event, Stop.DEADLINE)
            emit(on_event, TurnStart(turn=index, max_turns=max_turns))
            turn = _ask(model, run, schemas, index, deadline, on_event)
            if turn is None:  # the deadline passed while the model was answering
                return _end(run, on_event, Stop.DEADLINE)

            if not turn.message.get("tool_calls"):
                if turn.truncated:
                    # Cut off mid-reply: not an answer. Ask for the rest; it costs a turn.
                    run.messages.append({"role": "user", "content": CONTINUE_PROMPT})
                    continue
                # Exit: the flag. The model replied without asking for a tool.
                return _end(run, on_event, Stop.END_TURN, turn.text)

            terminal = _run_calls(turn, by_name, stop_on, run.messages, deadline, on_event)
            if terminal is not None:
                # Exit: the warp pipe. A stop_on tool validated and ran; its input is the answer.
                return _end(run, on_event, Stop.TERMINAL_TOOL, terminal.input)

        # Exit: the clock. Out of turns; the last message is usually a tool call, not an answer.
        if on_max_turns == "wrap_up" and not _past(deadline):
            _wrap_up(model, run, schemas, deadline, on_event)
        return _end(run, on_event, Stop.MAX_TURNS)
    except BaseException as exc:  # Ctrl-C, a tool's SystemExit, a failing endpoint: the run
        _kept(run, exc, on_event)  # so far goes with the exception, which goes on unchanged
        raise


# -- the helpers the loop reads through ------------------------------------------------------


def _checked(
    tools: Iterable[Tool | Callable[..., Any]], max_turns: int, stop_on: Sequence[str] | str,
    deadline_s: float | None, on_max_turns: str,
) -> tuple[dict[str, Tool], tuple[str, ...]]:
    """The arguments, checked before anything is sent: the tools by name, `stop_on` as a tuple."""
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(_("max_turns must be a positive int (1 or more), got {value!r}")
                         .format(value=max_turns))
    if deadline_s is not None and not deadline_s > 0:
        raise ValueError(_("deadline_s must be a positive number of seconds, got {value!r}")
                         .format(value=deadline_s))
    if on_max_turns not in ("stop", "wrap_up"):
        raise ValueError(_("on_max_turns must be 'stop' or 'wrap_up', got {value!r}")
                         .format(value=on_max_turns))
    by_name = as_tools(tools)
    names = (stop_on,) if isinstance(stop_on, str) else tuple(stop_on)
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise ValueError(_(
            "stop_on names {unknown}, which is not among the tools ({tools}): the warp pipe "
            "would never open").format(unknown=", ".join(unknown),
                                       tools=", ".join(by_name) or _("none")))
    return by_name, names


def _opening(prompt: str, system: str | None) -> list[dict[str, Any]]:
    """The conversation before the first request: the system prompt, if any, and the task."""
    first = [{"role": "system", "content": system}] if system else []
    return [*first, {"role": "user", "content": prompt}]


def _ask(model: ChatModel, run: Run, schemas: list[dict[str, Any]], index: int,
         deadline: float | None, on_event: Listener | None) -> Turn | None:
    """One request with the whole history: the new `Turn`, recorded and announced; None when
    the deadline cut it short. An endpoint failure ends the run broken and is raised."""
    try:
        completion = model.complete(run.messages, schemas, deadline=deadline,
                                    on_retry=_announcer(index, on_event))
    except DeadlineReached:
        return None
    except EndpointError as exc:
        run.break_off(str(exc))
        exc.run = run
        emit(on_event, SessionEnd(reason=None, turns=len(run.turns), error=str(exc)))
        raise
    run.messages.append(completion.message)
    turn = Turn.of(index, completion)
    run.turns.append(turn)
    emit(on_event, ModelReply(turn=turn))
    return turn


def _run_calls(turn: Turn, by_name: dict[str, Tool], stop_on: tuple[str, ...],
               messages: list[dict[str, Any]], deadline: float | None,
               on_event: Listener | None) -> ToolCall | None:
    """Run every call of one reply, each result going back to the model; the terminal call
    (the first `stop_on` call that validated and ran), or None.

    A call after the terminal one in the same reply is recorded as not run; a call id used
    twice is an error result; a tool's failure is an `Error:` line, and the loop goes on.
    """
    terminal: ToolCall | None = None
    seen_ids: set[str] = set()
    for raw in turn.message["tool_calls"]:
        call = ToolCall(id=raw["id"], name=raw["function"]["name"],
                        arguments=raw["function"]["arguments"])
        if terminal is not None:
            call.ran = False
            call.output = f"Not run: the run ended when {terminal.name} was called before this."
        elif call.id in seen_ids:
            call.output = f"Error: tool call id {call.id!r} was used twice in one reply; not run."
        else:
            result = call_tool(by_name, call.name, call.arguments, deadline=deadline)
            call.ok, call.output, call.input = result.ok, result.output, result.input
            call.latency_s = result.latency_s
        seen_ids.add(call.id)
        turn.tool_calls.append(call)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": call.output})
        emit(on_event, ToolResultEvent(turn=turn.index, call=call))
        if call.ok and call.name in stop_on and terminal is None:
            terminal = call
    return terminal


def _wrap_up(model: ChatModel, run: Run, schemas: list[dict[str, Any]], deadline: float | None,
             on_event: Listener | None) -> None:
    """The opt-in request after the clock, with tools switched off: a best effort kept in
    `run.wrap_up_turn`, never an answer. Its failure is kept too, and does not undo the clock."""
    index = run.max_turns + 1
    run.messages.append({"role": "user", "content": WRAP_UP_PROMPT})
    try:
        completion = model.complete(run.messages, schemas, tool_choice="none", deadline=deadline,
                                    on_retry=_announcer(index, on_event))
    except DeadlineReached:
        return
    except EndpointError as exc:
        run.wrap_up_error = str(exc)
        return
    run.messages.append(completion.message)
    run.wrap_up_turn = Turn.of(index, completion, wrap_up=True)


def _kept(run: Run, exc: BaseException, on_event: Listener | None) -> None:
    """Attach the run so far to the exception that ends it (`exc.run`, the turns already paid
    for) and, unless the run had already ended, say so in its one session-end event."""
    if run.stop is None and run.error is None:
        detail = " ".join(str(exc).split())
        run.break_off(_("interrupted by {kind}").format(kind=type(exc).__name__)
                      + (f": {detail}" if detail else ""))
        emit(on_event, SessionEnd(reason=None, turns=len(run.turns), error=run.error))
    with contextlib.suppress(AttributeError, TypeError):  # an exception that takes no attributes
        exc.run = run  # type: ignore[attr-defined]


def _announcer(index: int, on_event: Listener | None) -> OnRetry:
    """The client's retry callback, as `RetryEvent`s of turn `index`."""
    def on_retry(attempt: int, reason: str, wait_s: float) -> None:
        emit(on_event, RetryEvent(turn=index, attempt=attempt, reason=reason, wait_s=wait_s))
    return on_retry


def _end(run: Run, on_event: Listener | None, stop: Stop, answer: Any = None) -> Run:
    """Finish the run with its one stop, and say so in exactly one session-end event."""
    run.finish(stop, answer)
    emit(on_event, SessionEnd(reason=stop, turns=len(run.turns)))
    return run


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline
