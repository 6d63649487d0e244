"""The agent loop: ask the model, run the tools it asks for, repeat — until one of the exits.

    the flag       a reply with no tool call                 -> Stop.END_TURN, answer = its text
    the warp pipe  a `stop_on` tool that validated and ran   -> Stop.TERMINAL_TOOL, answer = its input
    the clock      `max_turns` requests made                 -> Stop.MAX_TURNS, no answer
    wall-clock     `deadline_s` passed                       -> Stop.DEADLINE, no answer

Every limit is checked before each request. An endpoint failure raises a typed error that
carries the partial run; a tool's failure goes back to the model as its result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from .client import ChatModel, Completion
from .errors import EndpointError, EndpointTimeout
from .events import (
    Listener,
    ModelReply,
    RetryEvent,
    SessionEnd,
    ToolResultEvent,
    TurnStart,
    emit,
)
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
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a positive int (1 or more), got {max_turns!r}")
    if deadline_s is not None and not deadline_s > 0:
        raise ValueError(f"deadline_s must be a positive number of seconds, got {deadline_s!r}")
    if on_max_turns not in ("stop", "wrap_up"):
        raise ValueError(f"on_max_turns must be 'stop' or 'wrap_up', got {on_max_turns!r}")
    by_name = as_tools(tools)
    stop_on = (stop_on,) if isinstance(stop_on, str) else tuple(stop_on)
    unknown = [name for name in stop_on if name not in by_name]
    if unknown:
        raise ValueError(
            f"stop_on names {', '.join(unknown)}, which is not among the tools "
            f"({', '.join(by_name) or 'none'}): the warp pipe would never open"
        )
    schemas = [t.schema for t in by_name.values()]

    messages: list[dict[str, Any]] = []
    if system:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": prompt})
    run = Run(
        stop=None, messages=messages, turns=[], max_turns=max_turns,
        model=getattr(model, "name", ""), stop_on=stop_on, deadline_s=deadline_s,
    )
    started = time.monotonic()
    deadline = started + deadline_s if deadline_s is not None else None

    def finish(stop: Stop, answer: Any = None) -> Run:
        run.stop, run._answer = stop, answer
        run.elapsed_s = time.monotonic() - started
        emit(on_event, SessionEnd(reason=stop, turns=len(run.turns)))
        return run

    def ask(turn: int, tool_choice: str | None = None, best_effort: bool = False):
        def on_retry(attempt: int, reason: str, wait_s: float) -> None:
            emit(on_event, RetryEvent(turn=turn, attempt=attempt, reason=reason, wait_s=wait_s))

        try:
            return model.complete(
                messages, schemas, tool_choice=tool_choice, deadline=deadline, on_retry=on_retry
            )
        except EndpointError as exc:
            cut_by_deadline = getattr(exc, "cut_by_deadline", False) or _past(deadline)
            if isinstance(exc, EndpointTimeout) and cut_by_deadline:
                return None  # the deadline cut the request short: an exit, not an error
            if best_effort:
                run.wrap_up_error = str(exc)  # a failed wrap-up does not undo the clock
                return None
            run.error = str(exc)
            run.elapsed_s = time.monotonic() - started
            exc.run = run
            emit(on_event, SessionEnd(reason=None, turns=len(run.turns), error=str(exc)))
            raise

    for index in range(1, max_turns + 1):
        # Exit: wall-clock. Turns are not time; checked before every request.
        if _past(deadline):
            return finish(Stop.DEADLINE)
        emit(on_event, TurnStart(turn=index, max_turns=max_turns))
        completion = ask(index)
        if completion is None:
            return finish(Stop.DEADLINE)
        message = completion.message
        messages.append(message)
        turn = _turn(index, completion)
        run.turns.append(turn)
        emit(on_event, ModelReply(
            turn=index, message=message, prompt_tokens=turn.prompt_tokens,
            completion_tokens=turn.completion_tokens, latency_s=turn.latency_s,
            finish_reason=turn.finish_reason,
        ))

        requested = message.get("tool_calls") or []
        if not requested:
            if turn.truncated:
                # Cut off mid-reply: not an answer. Ask for the rest; it costs a turn.
                messages.append({"role": "user", "content": CONTINUE_PROMPT})
                continue
            # Exit: the flag. The model replied without asking for a tool.
            return finish(Stop.END_TURN, turn.text)

        terminal: ToolCall | None = None
        seen_ids: set[str] = set()
        for raw in requested:
            call = ToolCall(
                id=raw["id"], name=raw["function"]["name"], arguments=raw["function"]["arguments"]
            )
            if terminal is not None:
                call.ran, call.output = False, (
                    f"Not run: the run ended when {terminal.name} was called before this."
                )
            elif call.id in seen_ids:
                call.output = f"Error: tool call id {call.id!r} was used twice in one reply; not run."
            else:
                result = call_tool(by_name, call.name, call.arguments, deadline=deadline)
                call.ok, call.output, call.input = result.ok, result.output, result.input
                call.latency_s = result.latency_s
            seen_ids.add(call.id)
            turn.tool_calls.append(call)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": call.output})
            emit(on_event, ToolResultEvent(turn=index, call=call))
            if call.ok and call.name in stop_on and terminal is None:
                terminal = call
        if terminal is not None:
            # Exit: the warp pipe. A stop_on tool validated and ran; its input is the answer.
            return finish(Stop.TERMINAL_TOOL, terminal.input)

    # Exit: the clock. Out of turns; the last message is usually a tool call, not an answer.
    if on_max_turns == "wrap_up" and not _past(deadline):
        messages.append({"role": "user", "content": WRAP_UP_PROMPT})
        completion = ask(max_turns + 1, tool_choice="none", best_effort=True)
        if completion is not None:
            messages.append(completion.message)
            run.wrap_up_turn = _turn(max_turns + 1, completion, wrap_up=True)
    return finish(Stop.MAX_TURNS)


def _turn(index: int, completion: Completion, wrap_up: bool = False) -> Turn:
    return Turn(
        index=index,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        latency_s=completion.latency_s,
        message=completion.message,
        finish_reason=completion.finish_reason,
        retries=completion.retries,
        wrap_up=wrap_up,
    )


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline
