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
that did not parse the model's call) is still the flag — the rule stays — but the turn gets a
note and the run a warning that say so; `text_tool_calls="accept"` runs such calls instead,
labelled in the transcript and the run.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from ._numbers import seconds
from ._text import excerpt
from .client import ChatModel, OnRetry
from .errors import DeadlineReached, EndpointError
from .events import Listener, ModelReply, RetryEvent, SessionEnd, ToolResultEvent, TurnStart, emit
from .i18n import _, ngettext
from .outcome import Note, Run, Stop, ToolCall, Turn
from .textcalls import find_text_calls
from .tools import Tool, as_tools, call_tool
from .usage import Budget, Price

WRAP_UP_PROMPT = (
    "You have run out of turns and can call no more tools. In a few words, say what you found "
    "and what you would still need to do."
)
CONTINUE_PROMPT = "Your reply was cut off (finish_reason: length). Continue, more briefly."
EMPTY_PROMPT = "Your reply was empty. Call a tool, or give your answer."
TextToolCalls = Literal["note", "accept"]


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
) -> Run:
    """Run the loop until it stops; return the `Run` with its one `stop` and its transcript.

    `max_tokens_total` / `max_cost_usd` cap what the whole run may spend (dollars at `price`,
    default `usage.DEFAULT_PRICE_MODEL`): see `usage.Budget` for what is checked, and when.
    `text_tool_calls="accept"` runs tool calls a model wrote as text (see `textcalls`)."""
    by_name, stop_on = _checked(
        tools, max_turns, stop_on, deadline_s, on_max_turns, text_tool_calls
    )
    budget = Budget.of(max_tokens_total, max_cost_usd, price)  # None when there is none
    run = _started(prompt, system, model, max_turns, stop_on, deadline_s, budget)
    run.tools = tuple(by_name)
    deadline = None if run.deadline_s is None else run.started + run.deadline_s
    schemas = [t.schema for t in by_name.values()]

    try:
        for index in range(1, max_turns + 1):
            # Exit: wall-clock. Turns are not time; checked before every request.
            if _past(deadline):
                return _end(run, on_event, Stop.DEADLINE)
            # Exit: the budget. The next request costs at least the history it sends again.
            if _over_budget(run, budget):
                return _end(run, on_event, Stop.BUDGET)
            emit(on_event, TurnStart(turn=index, max_turns=max_turns))
            turn = _ask(model, run, schemas, index, deadline, on_event, (by_name, text_tool_calls))
            if turn is None:  # the deadline passed while the model was answering
                return _end(run, on_event, Stop.DEADLINE)

            if not turn.message.get("tool_calls"):
                if turn.truncated or turn.empty:
                    # Cut off or empty: not an answer. Ask again; it costs a turn.
                    run.messages.append({"role": "user", "content": _ask_again(turn)})
                    continue
                # Exit: the flag. The model replied without asking for a tool.
                return _end(run, on_event, Stop.END_TURN, turn.text)

            terminal = _run_calls(turn, by_name, stop_on, run.messages, deadline, on_event)
            if terminal is not None:
                # Exit: the warp pipe. A stop_on tool validated and ran; its input is the answer.
                return _end(run, on_event, Stop.TERMINAL_TOOL, terminal.input)

        # Exit: the clock. Out of turns; the last message is usually a tool call, not an answer.
        if on_max_turns == "wrap_up" and not _past(deadline):
            _wrap_up(model, run, schemas, deadline, on_event, budget)
        return _end(run, on_event, Stop.MAX_TURNS)
    except BaseException as exc:  # Ctrl-C, a tool's SystemExit, a failing endpoint: the run
        _kept(run, exc, on_event)  # so far goes with the exception, which goes on unchanged
        raise


# -- the helpers the loop reads through ------------------------------------------------------


def _checked(
    tools: Iterable[Tool | Callable[..., Any]],
    max_turns: int,
    stop_on: Sequence[str] | str,
    deadline_s: float | None,
    on_max_turns: str,
    text_tool_calls: str,
) -> tuple[dict[str, Tool], tuple[str, ...]]:
    """The arguments, checked before anything is sent: the tools by name, `stop_on` as a tuple."""
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(
            _("max_turns must be a positive int (1 or more), got {value!r}").format(value=max_turns)
        )
    if deadline_s is not None:
        seconds(deadline_s, "deadline_s")  # a ValueError unless it is a time limit
    if on_max_turns not in ("stop", "wrap_up"):
        raise ValueError(
            _("on_max_turns must be 'stop' or 'wrap_up', got {value!r}").format(value=on_max_turns)
        )
    if text_tool_calls not in ("note", "accept"):
        raise ValueError(
            _("text_tool_calls must be 'note' or 'accept', got {value!r}").format(
                value=text_tool_calls
            )
        )
    by_name = as_tools(tools)
    names = (stop_on,) if isinstance(stop_on, str) else tuple(stop_on)
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise ValueError(
            _(
                "stop_on names {unknown}, which is not among the tools ({tools}): the warp pipe "
                "would never open"
            ).format(unknown=", ".join(unknown), tools=", ".join(by_name) or _("none"))
        )
    return by_name, names


def _started(
    prompt: str,
    system: str | None,
    model: ChatModel,
    max_turns: int,
    stop_on: tuple[str, ...],
    deadline_s: float | None,
    budget: Budget | None,
) -> Run:
    """The run before the first request: the opening messages and every limit it runs under."""
    return Run(
        stop=None,
        messages=_opening(prompt, system),
        turns=[],
        max_turns=max_turns,
        model=getattr(model, "name", ""),
        stop_on=stop_on,
        deadline_s=None if deadline_s is None else seconds(deadline_s, "deadline_s"),
        max_tokens_total=budget.max_tokens_total if budget else None,
        max_cost_usd=budget.max_cost_usd if budget else None,
        price_model=budget.price.model if budget and budget.price else None,
    )


def _opening(prompt: str, system: str | None) -> list[dict[str, Any]]:
    """The conversation before the first request: the system prompt, if any, and the task."""
    first = [{"role": "system", "content": system}] if system else []
    return [*first, {"role": "user", "content": prompt}]


def _over_budget(run: Run, budget: Budget | None) -> bool:
    """Whether the next request would take the run past its budget; if so, it says which.

    The budget counts what the server reports; a server that reports no usage cannot be held
    to one, and the run says so (once) instead of pretending."""
    if budget is None:
        return False
    if run.turns and run.turns[-1].total_tokens == 0:
        blind = _(
            "The endpoint reported no token usage, so the budget cannot count what this run "
            "spends: it will not stop the run. Use max_turns or deadline_s as well."
        )
        if blind not in run.warnings:
            run.warnings.append(blind)
    run.budget_stop = budget.over(run)
    return run.budget_stop is not None


def _ask(
    model: ChatModel,
    run: Run,
    schemas: list[dict[str, Any]],
    index: int,
    deadline: float | None,
    on_event: Listener | None,
    reading: tuple[dict[str, Tool], str] = ({}, "note"),
) -> Turn | None:
    """One request with the whole history: the new `Turn`, recorded, read (`_read`) and
    announced; None when the deadline cut it short. An endpoint failure ends the run broken and
    is raised."""
    try:
        completion = model.complete(
            run.messages, schemas, deadline=deadline, on_retry=_announcer(index, on_event)
        )
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
    _read(turn, run, *reading)
    emit(on_event, ModelReply(turn=turn))
    return turn


def _read(turn: Turn, run: Run, offered: dict[str, Tool], text_tool_calls: str) -> None:
    """Note what the reply is when it is not what it seems: empty, or a tool call written as
    text. With `text_tool_calls="accept"` such calls become the message's `tool_calls` (the
    history the model sees again holds them as calls), labelled on the turn and the run."""
    if turn.empty and not turn.truncated:  # an empty cut-off reply is reported as cut off
        turn.notes.append(
            Note(
                "empty_reply",
                _(
                    "The reply was empty: no text and no tool call. It is not an answer; the loop asked "
                    "again, which cost a turn."
                ),
            )
        )
        _warn(
            run,
            "empty_reply",
            _(
                "The model sent an empty reply (no text, no tool call) on turn {n}. It was not taken "
                "for an answer: the loop asked again, and each time it costs a turn. Small models do "
                "this; if it keeps happening, try another model."
            ).format(n=turn.index),
        )
        return
    if turn.message.get("tool_calls"):
        return
    found = find_text_calls(turn.text, offered)
    if not found:
        return
    names = ", ".join(dict.fromkeys(c.name for c in found))
    if text_tool_calls == "accept":
        turn.notes.append(
            Note(
                "text_tool_call",
                ngettext(
                    "A call to {tools} written as text was run as a tool call (text_tool_calls="
                    '"accept"): {text}',
                    "Calls to {tools} written as text were run as tool calls "
                    '(text_tool_calls="accept"): {text}',
                    len(found),
                ).format(tools=names, text=excerpt(turn.text, 160)),
            )
        )
        turn.message["tool_calls"] = [
            {
                "id": f"text_call_{turn.index}_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for i, c in enumerate(found, 1)
        ]
        turn.message["content"] = None
        _warn(
            run,
            "text_tool_call",
            _(
                "The model wrote its tool calls as text (first on turn {n}), and the server did not "
                'turn them into tool_calls; they were run anyway because text_tool_calls="accept". '
                "{cause}"
            ).format(n=turn.index, cause=_cause()),
        )
        return
    if turn.truncated:
        read_as = _("the reply was cut off (finish_reason: length), so the loop asked for the rest")
    else:
        read_as = _(
            "so the loop read it as the flag — the model asked for a tool, it did not answer"
        )
    turn.notes.append(
        Note(
            "text_tool_call",
            _(
                "The reply's text is a call to {tools} written as text: {text}. The server did not turn "
                "it into tool_calls; {read_as}."
            ).format(tools=names, text=excerpt(turn.text, 160), read_as=read_as),
        )
    )
    _warn(
        run,
        "text_tool_call",
        _(
            "On turn {n} the model wrote a tool call as text ({tools}), and the server returned it as "
            "text, not as tool_calls. To the loop a reply without tool_calls is the flag, so such a "
            'call ends the run as its "answer". {cause} To run such calls anyway, labelled, pass '
            'text_tool_calls="accept".'
        ).format(n=turn.index, tools=names, cause=_cause()),
    )


def _cause() -> str:
    return _(
        "The likely cause is the server's tool-call parser or chat template, or a model "
        "too small to follow it — not the loop: start llama.cpp's llama-server with --jinja "
        "(it then uses the model's own template and parses its calls); on Ollama, use a "
        "model whose template supports tools (`ollama show MODEL` lists tools among its "
        "capabilities). If that is already so, the model did not write its call the way its "
        "template asks (Qwen2.5-Coder-0.5B does this even with --jinja): try a larger model."
    )


def _warn(run: Run, kind: str, text: str) -> None:
    """One run-level warning per kind: the first time it happens says it all."""
    if not any(note.kind == kind for turn in run.turns[:-1] for note in turn.notes):
        run.warnings.append(text)


def _ask_again(turn: Turn) -> str:
    """What to send after a reply that is not an answer: cut off, or empty."""
    return CONTINUE_PROMPT if turn.truncated else EMPTY_PROMPT


def _run_calls(
    turn: Turn,
    by_name: dict[str, Tool],
    stop_on: tuple[str, ...],
    messages: list[dict[str, Any]],
    deadline: float | None,
    on_event: Listener | None,
) -> ToolCall | None:
    """Run every call of one reply, each result going back to the model; the terminal call
    (the first `stop_on` call that validated and ran), or None.

    A call after the terminal one in the same reply is recorded as not run; a call id used
    twice is an error result; a tool's failure is an `Error:` line, and the loop goes on.
    """
    terminal: ToolCall | None = None
    seen_ids: set[str] = set()
    for raw in turn.message["tool_calls"]:
        call = ToolCall(
            id=raw["id"], name=raw["function"]["name"], arguments=raw["function"]["arguments"]
        )
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


def _wrap_up(
    model: ChatModel,
    run: Run,
    schemas: list[dict[str, Any]],
    deadline: float | None,
    on_event: Listener | None,
    budget: Budget | None = None,
) -> None:
    """The opt-in request after the clock, with tools switched off: a best effort kept in
    `run.wrap_up_turn`, never an answer. Its failure is kept too, and does not undo the clock;
    a wrap-up the budget cannot pay for is not sent (`run.wrap_up_error` says so)."""
    index = run.max_turns + 1
    over = budget.over(run) if budget else None
    if over is not None:
        run.wrap_up_error = _("not sent: {why}").format(why=over.text())
        return
    run.messages.append({"role": "user", "content": WRAP_UP_PROMPT})
    try:
        completion = model.complete(
            run.messages,
            schemas,
            tool_choice="none",
            deadline=deadline,
            on_retry=_announcer(index, on_event),
        )
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
        run.break_off(
            _("interrupted by {kind}").format(kind=type(exc).__name__)
            + (f": {detail}" if detail else "")
        )
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
