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
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._numbers import seconds
from ._options import option
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
EMPTY_PROMPT = "Your reply was empty: no text and no tool call. Call a tool, or give your answer."
"""What the loop sends after an empty reply. A small model sometimes sends it back as its reply;
it is written to be recognised when it comes back whole or in part (`_echoes`): sentences of
its own, unlike any answer, each long enough that an echo of one is more than a few words."""
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
    by_name, stop_on = _checked(tools, max_turns, stop_on, deadline_s, on_max_turns)
    offer = _Offer.of(by_name, text_tool_calls, tool_choice, parallel_tool_calls)
    budget = Budget.of(max_tokens_total, max_cost_usd, price)  # None when there is none
    run = _started(prompt, system, model, max_turns, stop_on, deadline_s, budget, offer)
    run.tools = tuple(by_name)
    deadline = None if run.deadline_s is None else run.started + run.deadline_s

    try:
        for index in range(1, max_turns + 1):
            # Exit: wall-clock. Turns are not time; checked before every request.
            if _past(deadline):
                return _end(run, on_event, Stop.DEADLINE)
            # Exit: the budget. The next request costs at least the history it sends again.
            if _over_budget(run, budget):
                return _end(run, on_event, Stop.BUDGET)
            emit(on_event, TurnStart(turn=index, max_turns=max_turns))
            turn = _ask(model, run, offer, index, deadline, on_event)
            if turn is None:  # the deadline passed while the model was answering
                return _end(run, on_event, Stop.DEADLINE)

            if not turn.message.get("tool_calls"):
                if turn.truncated or turn.empty:
                    # Cut off or empty: not an answer. Ask again; it costs a turn.
                    run.messages.append({"role": "user", "content": _ask_again(turn)})
                    continue
                # Exit: the flag. The model replied without asking for a tool.
                return _end(run, on_event, Stop.END_TURN, turn.text)

            terminal = _run_calls(turn, offer.by_name, stop_on, run.messages, deadline, on_event)
            if terminal is not None:
                # Exit: the warp pipe. A stop_on tool validated and ran; its input is the answer.
                return _end(run, on_event, Stop.TERMINAL_TOOL, terminal.input)

        # Exit: the clock. Out of turns; the last message is usually a tool call, not an answer.
        if on_max_turns == "wrap_up" and not _past(deadline):
            _wrap_up(model, run, offer.schemas, deadline, on_event, budget)
        return _end(run, on_event, Stop.MAX_TURNS)
    except BaseException as exc:  # Ctrl-C, a tool's SystemExit, a failing endpoint: the run
        _kept(run, exc, on_event)  # so far goes with the exception, which goes on unchanged
        raise


# -- the helpers the loop reads through ------------------------------------------------------


@dataclass
class _Offer:
    """What every request of a run offers the model, and how the loop reads its replies."""

    by_name: dict[str, Tool]
    text_tool_calls: str = "note"
    tool_choice: str | dict[str, Any] | None = None
    """As sent: "auto", "none", "required", or the named-function object."""
    parallel_tool_calls: bool | None = None

    @classmethod
    def of(
        cls,
        by_name: dict[str, Tool],
        text_tool_calls: str,
        tool_choice: ToolChoice | None,
        parallel_tool_calls: bool | None,
    ) -> _Offer:
        """The reading and request settings of `run_agent`, checked before anything is sent."""
        if text_tool_calls not in ("note", "accept"):
            raise ValueError(
                _("{name} must be 'note' or 'accept', got {value!r}").format(
                    name=option("text_tool_calls"), value=text_tool_calls
                )
            )
        if parallel_tool_calls is not None and not isinstance(parallel_tool_calls, bool):
            raise ValueError(
                _("{name} must be True, False or None, got {value!r}").format(
                    name=option("parallel_tool_calls"), value=parallel_tool_calls
                )
            )
        choice = _choice(tool_choice, by_name)
        return cls(by_name, text_tool_calls, choice, parallel_tool_calls)

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return [t.schema for t in self.by_name.values()]

    @property
    def sent(self) -> dict[str, Any]:
        """The request settings that were set, for `complete()`: nothing when none was."""
        sent: dict[str, Any] = {}
        if self.tool_choice is not None:
            sent["tool_choice"] = self.tool_choice
        if self.parallel_tool_calls is not None:
            sent["parallel_tool_calls"] = self.parallel_tool_calls
        return sent

    @property
    def forced(self) -> str | None:
        """The tool the model must call on every turn ("*": any), if `tool_choice` forces one."""
        if self.tool_choice == "required":
            return "*"
        if isinstance(self.tool_choice, dict):
            return str(self.tool_choice.get("function", {}).get("name"))
        return None


def _checked(
    tools: Iterable[Tool | Callable[..., Any]],
    max_turns: int,
    stop_on: Sequence[str] | str,
    deadline_s: float | None,
    on_max_turns: str,
) -> tuple[dict[str, Tool], tuple[str, ...]]:
    """The arguments, checked before anything is sent: the tools by name, `stop_on` as a tuple."""
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(
            _("{name} must be a positive int (1 or more), got {value!r}").format(
                name=option("max_turns"), value=max_turns
            )
        )
    if deadline_s is not None:
        seconds(deadline_s, option("deadline_s"))  # a ValueError unless it is a time limit
    if on_max_turns not in ("stop", "wrap_up"):
        raise ValueError(
            _("on_max_turns must be 'stop' or 'wrap_up', got {value!r}").format(value=on_max_turns)
        )
    by_name = as_tools(tools)
    names = (stop_on,) if isinstance(stop_on, str) else tuple(stop_on)
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise ValueError(
            _(
                "{name} names {unknown}, which is not among the tools ({tools}): the warp pipe "
                "would never open"
            ).format(
                name=option("stop_on"),
                unknown=", ".join(unknown),
                tools=", ".join(by_name) or _("none"),
            )
        )
    return by_name, names


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
    raise ValueError(
        _(
            "{name} must be 'auto', 'none', 'required' or the name of one of the tools ({tools}), "
            "got {value!r}"
        ).format(
            name=option("tool_choice"), tools=", ".join(by_name) or _("none"), value=tool_choice
        )
    )


def _started(
    prompt: str,
    system: str | None,
    model: ChatModel,
    max_turns: int,
    stop_on: tuple[str, ...],
    deadline_s: float | None,
    budget: Budget | None,
    offer: _Offer | None = None,
) -> Run:
    """The run before the first request: the opening messages and every limit it runs under,
    and a warning when `tool_choice` takes the flag away."""
    run = Run(
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
    forced = offer.forced if offer else None
    if forced is not None:
        pipe = [name for name in stop_on if forced in ("*", name)]
        run.warnings.append(
            _(
                "tool_choice={choice!r} asks the model to call {tool} on every turn, so where the "
                "server enforces it the flag can never fire: {ends}"
            ).format(
                choice=forced if forced != "*" else "required",
                tool=_("a tool") if forced == "*" else forced,
                ends=_(
                    "this run can end only through the warp pipe ({tools}) or on the clock."
                ).format(tools=", ".join(pipe))
                if pipe
                else _(
                    "with no stop_on tool it can call, this run can end only on the clock (or "
                    "the deadline, or the budget), with no answer."
                ),
            )
        )
    return run


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
    offer: _Offer,
    index: int,
    deadline: float | None,
    on_event: Listener | None,
) -> Turn | None:
    """One request with the whole history: the new `Turn`, recorded, read (`_read`) and
    announced; None when the deadline cut it short. An endpoint failure ends the run broken and
    is raised."""
    try:
        completion = model.complete(
            run.messages,
            offer.schemas,
            deadline=deadline,
            on_retry=_announcer(index, on_event),
            **offer.sent,
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
    _read(turn, run, offer.by_name, offer.text_tool_calls)
    emit(on_event, ModelReply(turn=turn))
    return turn


def _read(turn: Turn, run: Run, offered: dict[str, Tool], text_tool_calls: str) -> None:
    """Note what the reply is when it is not what it seems: cut off, empty, words the model was
    sent repeated back, the continuation of a cut-off reply, or a tool call written as text.
    With `text_tool_calls="accept"` such calls become the message's `tool_calls` (the history
    the model sees again holds them as calls), labelled on the turn and the run."""
    if turn.truncated:
        _note_cut_off(turn, run)
    if turn.empty and not turn.truncated:  # an empty cut-off reply is reported as cut off
        _note_empty(turn, run)
        return
    if turn.message.get("tool_calls"):
        return
    echoed = _echoes(turn.text, run.messages[:-1])
    if echoed is not None and not turn.truncated:
        turn.notes.append(
            Note(
                "echoed_prompt",
                _(
                    "The reply only repeats {whose} back: “{text}”. It is not an answer; the "
                    "run ends on the flag without one."
                ).format(whose=echoed, text=excerpt(turn.text, 120)),
            )
        )
        _warn(
            run,
            "echoed_prompt",
            _(
                "On turn {n} the model replied with {whose}, repeated back, and no tool call. To "
                "the loop a reply without tool_calls is the flag, but this one is no answer. "
                "Small models do this when they lose the thread; try a larger model."
            ).format(n=turn.index, whose=echoed),
        )
        return
    if len(run.turns) > 1 and run.turns[-2].truncated and not turn.truncated:
        turn.notes.append(
            Note(
                "after_cut_off",
                _(
                    "This reply follows one that was cut off at the length limit: it may be only "
                    "the end of what the model meant to say (the turn before holds the start)."
                ),
            )
        )
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
            "call ends the run with no answer. {cause} To run such calls anyway, labelled, pass "
            'text_tool_calls="accept".'
        ).format(n=turn.index, tools=names, cause=_cause()),
    )


def _note_cut_off(turn: Turn, run: Run) -> None:
    """A reply cut off at the length limit: a note on the turn, and the run's warning counts."""
    turn.notes.append(
        Note(
            "cut_off",
            _(
                "The reply was cut off at the length limit (finish_reason: length, {n} tokens). "
                "It is not an answer; the loop asked for the rest, which cost a turn."
            ).format(n=turn.completion_tokens),
        )
    )
    cut = [t.index for t in run.turns if t.noted("cut_off")]
    _warn(
        run,
        "cut_off",
        ngettext(
            "{n} reply was cut off at the length limit (turn {turns}). Each one costs a turn, and "
            "what follows it may be only the end of what the model meant to say. A model that "
            "rambles or thinks aloud needs a larger {max_tokens}; one that repeats itself needs "
            "another model.",
            "{n} replies were cut off at the length limit (turns {turns}). Each one costs a "
            "turn, and what follows it may be only the end of what the model meant to say. A "
            "model that rambles or thinks aloud needs a larger {max_tokens}; one that repeats "
            "itself needs another model.",
            len(cut),
        ).format(n=len(cut), turns=_listed(cut), max_tokens=option("max_tokens")),
        replace=True,
    )


def _note_empty(turn: Turn, run: Run) -> None:
    """An empty reply: a note on the turn, and the run's warning counts them all."""
    turn.notes.append(
        Note(
            "empty_reply",
            _(
                "The reply was empty: no text and no tool call. It is not an answer; the loop asked "
                "again, which cost a turn."
            ),
        )
    )
    empty = [t.index for t in run.turns if t.noted("empty_reply")]
    _warn(
        run,
        "empty_reply",
        ngettext(
            "The model sent {n} empty reply (no text, no tool call), on turn {turns}. It was not "
            "taken for an answer: the loop asked again, which cost a turn. Small models do this; "
            "if it keeps happening, try another model.",
            "The model sent {n} empty replies (no text, no tool call), on turns {turns}. None was "
            "taken for an answer: the loop asked again each time, and each time it cost a turn. "
            "Small models do this; if it keeps happening, try another model.",
            len(empty),
        ).format(n=len(empty), turns=_listed(empty)),
        replace=True,
    )


def _listed(turns: list[int]) -> str:
    """ "2, 3, 5" — or "2-9, 11" when runs of turns follow each other."""
    spans: list[list[int]] = []
    for n in turns:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


_WORD = re.compile(r"\w+")
ECHO_MAX_WORDS = 200
"""A reply longer than this many words is never read as an echo (and the reading stays short)."""


def _echoes(text: str, sent: list[dict[str, Any]]) -> str | None:
    """Whose words `text` only repeats back — the task's, the system prompt's, or the loop's own
    request — or None. An echo is a reply of 3 words or more whose longest run of words in
    common with one message the model was sent covers at least 80% of it."""
    words = [w.lower() for w in _WORD.findall(text[: ECHO_MAX_WORDS * 20])]
    if not 3 <= len(words) <= ECHO_MAX_WORDS:
        return None
    task = next((m for m in sent if m.get("role") == "user"), None)
    for message in reversed(sent):
        role = message.get("role")
        content = message.get("content")
        if role not in ("user", "system") or not isinstance(content, str):
            continue
        theirs = [w.lower() for w in _WORD.findall(content[: ECHO_MAX_WORDS * 20])]
        if _common_run(words, theirs[:ECHO_MAX_WORDS]) * 5 >= len(words) * 4:
            if role == "system":
                return _("the system prompt")
            return _("the task") if message is task else _("the loop's own request")
    return None


def _common_run(a: list[str], b: list[str]) -> int:
    """The length of the longest run of words `a` and `b` share (both at most a few hundred)."""
    best, previous = 0, [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def _cause() -> str:
    return _(
        "The likely cause is the server's tool-call parser or chat template, or a model "
        "too small to follow it — not the loop: start llama.cpp's llama-server with --jinja "
        "(it then uses the model's own template and parses its calls); on Ollama, use a "
        "model whose template supports tools (`ollama show MODEL` lists tools among its "
        "capabilities). If that is already so, the model did not write its call the way its "
        "template asks (Qwen2.5-Coder-0.5B does this even with --jinja): try a larger model."
    )


def _warn(run: Run, kind: str, text: str, *, replace: bool = False) -> None:
    """One run-level warning per kind: the first time it happens says it all — or, with
    `replace`, the latest, which counts every time so far."""
    if kind not in run.warning_kinds:
        run.warning_kinds[kind] = len(run.warnings)
        run.warnings.append(text)
    elif replace:
        run.warnings[run.warning_kinds[kind]] = text


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
