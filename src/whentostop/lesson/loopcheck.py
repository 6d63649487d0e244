"""Running a learner's own loop (notebook 1-4) against the mock's personas, to say which exit or
rule is wrong, and to show the run that showed it.

The learner's loop is called as `loop(post, prompt, tools, max_turns=..., stop_on=...)`, where
`post(body)` sends one chat-completion request and returns the reply's JSON: so the same loop
runs over the in-process mock and over a real socket (`MockServer`). It returns an outcome with
`stop`, `answer` and `messages` (or the three as a tuple). The cases are data (exercise 1-4.b in
`data/lesson/1-4.toml`): each is one run the loop must get right, with what the reference loop
(`run_agent`) does there; `diagnose` turns what happened into one specific sentence.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from pydantic import BaseModel, ConfigDict

from .._text import excerpt
from ..i18n import N_, _
from ..mock.personas import assistant
from ..mock.protocol import Breach, breach
from ..tools import Tool
from . import limits, prompt
from .cases import JAMMED, Runaway, case_tools, runaway
from .castle import Post, http_post, last_assistant, maybe_json, on_the_mock, replies
from .content import ExerciseText
from .content import said as said_at_length
from .verdict import (
    PROGRESS,
    Incorrect,
    Said,
    Verdict,
    a_function,
    correct,
    kind_of,
    requests_text,
    still_blank,
    times_text,
    wrong,
)

UNKNOWN_TOOL = "open_door"
"""The tool the model asks for in the unknown-tool case: no level offers it."""
SLACK = 4
"""Requests past a case's max_turns before the check stops a loop that does not stop."""


class LoopCase(BaseModel):
    """One run a learner's loop must get right, as a case of the data file says it."""

    model_config = ConfigDict(frozen=True)

    title: str
    persona: str = "searcher"
    level: str
    tools: tuple[str, ...] = ()
    stop_on: tuple[str, ...] = ()
    max_turns: int = 10
    stop: str
    """The exit it must take: "end_turn", "terminal_tool" or "max_turns"."""
    answer: Any = None
    requests: int
    """How many requests the reference loop makes on it."""
    jam: str | None = None
    """A tool that raises the first time it is called."""
    first_reply: tuple[dict[str, Any], ...] = ()
    """The tool calls that replace the model's first reply."""
    socket: bool = False
    """Whether the case runs again over a real socket."""


def _recording(original: Tool, ran: list[tuple[str, dict[str, Any]]]) -> Tool:
    """The tool, which records in `ran` each input its body ran with, without error."""

    def body(**kwargs: Any) -> Any:
        limits.stop_if_expired()
        result = original.fn(**kwargs)
        ran.append((original.name, dict(kwargs)))
        return result

    return dataclasses.replace(original, fn=body, timeout_s=None)


@dataclass
class Played:
    """One case played by the learner's loop. It is the `post` the loop is given: it counts
    requests, checks each against the conversation rules of a real endpoint and against the one
    before it (the history kept), keeps the conversation it was last sent, and stops a loop that
    never stops. Then it holds what the loop did."""

    case: LoopCase
    where: str
    post: Post
    requests: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)
    """The messages of the last request, as they were sent."""
    live: list[dict[str, Any]] = field(default_factory=list)
    """The loop's own list of messages, as it goes on (what it added since, too)."""
    reply: dict[str, Any] | None = None
    broke: tuple[int, Breach] | None = None
    """(request number, the rule) of the first request a real endpoint would refuse."""
    forgot: int | None = None
    """The first request that did not carry the conversation so far."""
    ran: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """The tool calls whose body ran without error: (name, input)."""
    error: BaseException | None = None
    returned: Any = None
    outcome: tuple[Any, Any, Any] | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    """The conversation as the loop returned it (or, failing that, as it last sent it)."""

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        limits.stop_if_expired()
        self.requests += 1
        PROGRESS.requests = self.requests
        if self.requests > self.case.max_turns + SLACK:
            runaway(self.requests)
        messages = body.get("messages") if isinstance(body, dict) else None
        if isinstance(messages, list):
            if self.broke is None and (found := breach(messages)) is not None:
                self.broke = (self.requests, found)
            if self.forgot is None and self.reply is not None and not _carries(messages, self):
                self.forgot = self.requests
            self.sent, self.live = list(messages), messages
        if self.case.first_reply and self.requests == 1:
            answered = _reply_calling(self.case.first_reply)
        else:
            answered = self.post(body)
        try:
            self.reply = answered["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            self.reply = None
        return answered


def _carries(messages: list[Any], played: Played) -> bool:
    """Whether a request's messages start with the previous request's and its reply."""
    before = played.sent
    return (
        len(messages) > len(before)
        and messages[: len(before)] == before
        and messages[len(before)] == played.reply
    )


def _reply_calling(calls: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    """A chat completion asking for these tool calls, shaped as the mock's."""
    asked = (
        (f"call_0_{i}_{c['name']}", c["name"], c.get("arguments", {}))
        for i, c in enumerate(calls, 1)
    )
    message = assistant(_("Let me try {name}.").format(name=calls[0]["name"]), *asked)
    return {
        "id": "chatcmpl-check-1",
        "object": "chat.completion",
        "model": "searcher",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def read_outcome(value: Any) -> tuple[Any, Any, Any] | None:
    """(stop, answer, messages) from an outcome object or a 3-tuple; None if it is neither."""
    if all(hasattr(value, name) for name in ("stop", "answer", "messages")):
        return value.stop, value.answer, value.messages
    if isinstance(value, tuple) and len(value) == 3:
        return value[0], value[1], value[2]
    return None


def play(loop: Callable[..., Any], case: LoopCase, post: Post, where: str) -> Played:
    """Run the learner's loop on one case (the case a verdict names); whatever it raises is kept,
    never raised (except the check's own time limit and Ctrl-C)."""
    PROGRESS.case = _(case.title)
    played = Played(case, where, post)
    change = {case.jam: "jammed"} if case.jam else None
    tools = [_recording(t, played.ran) for t in case_tools(case.level, case.tools, change)]

    def called() -> Any:
        played.returned = loop(
            played, prompt(), tools, max_turns=case.max_turns, stop_on=case.stop_on
        )
        return read_outcome(played.returned)

    ran = limits.attempt(called)
    played.outcome, played.error = ran.value, ran.raised
    messages = played.outcome[2] if played.outcome else None
    played.messages = list(messages) if _whole_conversation(messages, played.sent) else played.live
    return played


@contextmanager
def socket_url() -> Iterator[tuple[str | None, str]]:
    """(the base URL of the mock served on a real loopback socket, "") for the block, or
    (None, why there is none): JupyterLite's browser kernel has no sockets and no threads."""
    server = None
    try:
        from ..mock.endpoint import MockServer

        server = MockServer()
        server.start()
    except (OSError, RuntimeError, ImportError) as exc:
        if server is not None:  # no threads (Pyodide): the socket is closed, not left open
            server.httpd.server_close()
        yield None, f"{type(exc).__name__}: {exc}"
        return
    try:
        yield server.base_url, ""
    finally:
        server.stop()


# -- what went wrong, in one sentence ----------------------------------------------------------


def diagnose(played: Played) -> Incorrect | None:
    """The one thing wrong with this run of the learner's loop, or None when it is right."""
    case, error = played.case, played.error
    if played.broke is not None:
        return _broke(*played.broke)
    if error is not None:
        return _raised(played, error)
    if played.forgot is not None:
        return wrong("1-4", "loop_forgot_the_history", n=played.forgot)
    if played.outcome is None:
        return wrong("1-4", "loop_returned_no_outcome", got=Said(played.returned))
    stop, answer, messages = played.outcome
    if not _whole_conversation(messages, played.sent):
        return wrong(
            "1-4", "loop_not_the_whole_conversation", n=len(played.sent), got=Said(messages)
        )
    stop = getattr(stop, "value", stop)
    if case.stop == "max_turns":
        return _clock(played, stop, answer)
    found = (_pipe if case.stop == "terminal_tool" else _flag)(played, stop, answer)
    if found is None and played.requests != case.requests:
        return wrong("1-4", "loop_other_requests", want=case.requests, got=played.requests)
    return found


def _whole_conversation(messages: Any, sent: list[Any]) -> TypeGuard[list[Any]]:
    """Whether an outcome's messages are the conversation: the last request's messages, then at
    most its reply and that reply's tool results."""
    return (
        isinstance(messages, list)
        and len(sent) <= len(messages) <= len(sent) + 1 + 16
        and messages[: len(sent)] == sent
    )


def _broke(number: int, rule: Breach) -> Incorrect:
    """Request `number` breaks a conversation rule of a real endpoint."""
    said = {
        "unanswered": said_at_length("1-4", "unanswered_call"),
        "orphan": said_at_length("1-4", "orphan_tool_message"),
    }.get(
        rule.rule,
        N_("request {n} breaks the protocol, and the mock refuses it (HTTP 400): {message}"),
    )
    return Incorrect(
        _(said),
        n=number,
        names=", ".join(dict.fromkeys(rule.names)),
        message=Said(rule.message, text=True, limit=200),
    )


def _raised(played: Played, error: BaseException) -> Incorrect:
    case, name, n = played.case, type(error).__name__, played.requests
    kind, said = kind_of(error), Said(error, text=True)
    if isinstance(error, Runaway):
        most = case.max_turns + SLACK
        return wrong("1-4", "loop_too_many_requests", n=most, max_turns=case.max_turns)
    if isinstance(error, TypeError) and n == 0 and "argument" in str(error):
        asked = {"max_turns": case.max_turns, "stop_on": Said(case.stop_on)}
        return wrong("1-4", "loop_wrong_parameters", said=said, **asked)
    if case.jam and JAMMED in str(error):
        return wrong("1-4", "loop_let_a_tool_error_out", tool=case.jam, said=JAMMED)
    if case.first_reply and case.first_reply[0]["name"] == UNKNOWN_TOOL and n <= 1:
        return wrong(
            "1-4", "loop_raised_on_an_unknown_tool", name=UNKNOWN_TOOL, kind=kind, said=said
        )
    if case.persona == "sloppy" and (
        "invalid input" in str(error) or name in ("ValidationError", "ToolInputError")
    ):
        return wrong("1-4", "loop_raised_on_invalid_input", kind=kind, said=said)
    if isinstance(error, KeyError) and "tool_calls" in str(error):
        return wrong("1-4", "loop_read_missing_tool_calls")
    if isinstance(error, SystemExit):
        return wrong("1-4", "loop_exited", requests=requests_text(n))
    if not isinstance(error, Exception):
        return wrong("1-4", "loop_raised_a_base_exception", kind=kind, requests=requests_text(n))
    if getattr(getattr(error, "response", None), "status_code", None) == 400:
        return wrong("1-4", "loop_request_refused", n=n, said=said)
    return Incorrect(_("with {case}, your loop raised {kind}: {said}"), kind=kind, said=said)


def _words(text: Any, limit: int) -> Said:
    """What the model or a tool said, quoted as words (at most `limit` characters; none: "")."""
    return Said(text or "", text=True, limit=limit)


def _flag(played: Played, stop: Any, answer: Any) -> Incorrect | None:
    case = played.case
    last = last_assistant(played.messages)
    if stop == "end_turn" and last is not None and last.get("tool_calls"):
        return wrong("1-4", "flag_with_tool_calls", said=_words(last.get("content"), 60))
    if stop == "max_turns":
        return wrong("1-4", "flag_missed", said=_words(_flag_text(played.messages), 60))
    if stop == "terminal_tool" and not case.stop_on:
        return wrong("1-4", "pipe_without_stop_on", stop_on=Said(case.stop_on))
    if stop != "end_turn":
        return wrong("1-4", "flag_wrong_stop", got=Said(stop))
    want = _flag_text(played.messages)
    if answer != want:
        if isinstance(answer, dict) and answer.get("content") == want:
            return wrong("1-4", "flag_answer_whole_message")
        return wrong("1-4", "flag_wrong_answer", want=Said(want), got=Said(answer))
    return None


def _flag_text(messages: list[dict[str, Any]]) -> str | None:
    """The text of the last reply that asked for no tool: the flag's answer (the mock words it
    in the conversation's language, so it is read off the run, not written here)."""
    spoken = [m for m in replies(messages) if not m.get("tool_calls")]
    return str(spoken[-1].get("content") or "") if spoken else None


def _clock(played: Played, stop: Any, answer: Any) -> Incorrect | None:
    case = played.case
    if played.requests != case.max_turns:
        made = requests_text(played.requests)
        return wrong("1-4", "clock_not_max_turns_requests", max_turns=case.max_turns, requests=made)
    if stop != "max_turns":
        return wrong("1-4", "clock_wrong_stop", got=Said(stop))
    if answer is not None:
        last = last_assistant(played.messages)
        what = (
            _(" — that is the last message, a request for another search, not an answer")
            if answer == last or (isinstance(last, dict) and answer == last.get("content"))
            else ""
        )
        return wrong("1-4", "clock_with_an_answer", got=Said(answer), what=what)
    return None


def _pipe(played: Played, stop: Any, answer: Any) -> Incorrect | None:
    case, tool = played.case, ", ".join(played.case.stop_on)
    terminal = _terminal_call(played.messages, case.stop_on)
    if stop == "terminal_tool" and terminal is not None and not _ran_ok(played, terminal):
        turn, arguments, output = terminal
        quoted = {"output": _words(output, 80), "arguments": _words(arguments, 80)}
        return wrong("1-4", "pipe_on_a_failed_call", turn=turn, tool=tool, **quoted)
    if stop == "end_turn":
        said = Said(answer, limit=60)
        if any(name in case.stop_on for name, _data in played.ran):
            return wrong("1-4", "went_on_after_pipe", tool=tool, said=said)
        rejected = _words(terminal[2] if terminal else "", 80)
        return wrong("1-4", "rejected_taken_for_success", said=said, tool=tool, output=rejected)
    if stop != "terminal_tool":
        made = requests_text(played.requests)
        return wrong("1-4", "pipe_wrong_stop", got=Said(stop), requests=made)
    if answer != case.answer:
        return _wrong_pipe_answer(case, terminal, answer)
    return None


def _wrong_pipe_answer(
    case: LoopCase, terminal: tuple[int, str, str] | None, answer: Any
) -> Incorrect:
    """Through the warp pipe, an answer that is not the terminal tool's validated input: its
    output, its raw arguments, or the arguments as the model sent them."""
    said, sent = (terminal[2], maybe_json(terminal[1])) if terminal else (None, None)
    if isinstance(answer, str) and said is not None and answer == said:
        why = _("the answer is the terminal tool's validated input, {want}, not its output {got}.")
    elif isinstance(answer, str):
        why = _("the answer is the validated input as a dict, {want}, not the raw arguments {got}.")
    elif sent is not None and answer == sent:
        why = _(said_at_length("1-4", "pipe_answer_as_sent"))
    else:
        why = _(said_at_length("1-4", "pipe_wrong_answer"))
    return Incorrect(why, want=Said(case.answer), got=Said(answer))


def _ran_ok(played: Played, terminal: tuple[int, str, str]) -> bool:
    """Whether the terminal call the loop stopped on ran without error (the tool recorded it)."""
    sent = maybe_json(terminal[1])
    return isinstance(sent, dict) and any(
        name in played.case.stop_on and all(str(data.get(k)) == str(v) for k, v in sent.items())
        for name, data in played.ran
    )


def _terminal_call(
    messages: list[dict[str, Any]], stop_on: tuple[str, ...]
) -> tuple[int, str, str] | None:
    """(turn, arguments, output) of the last call to a stop_on tool in the conversation."""
    outputs = {
        str(m.get("tool_call_id", "")): str(m.get("content", ""))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "tool"
    }
    found = None
    for turn, message in enumerate(replies(messages), 1):
        for call in message.get("tool_calls") or []:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            if function.get("name") in stop_on:
                output = outputs.get(str(call.get("id", "")), _("(no result)"))
                found = (turn, str(function.get("arguments")), output)
    return found


def transcript(messages: list[dict[str, Any]], limit: int = 14) -> str:
    """The run as the learner's loop kept it, one line per message (the last `limit` lines)."""
    kept = messages[-4 * limit :]
    dropped = messages[: len(messages) - len(kept)]  # their turns still count: numbered as run
    lines, turn = [], sum(isinstance(m, dict) and m.get("role") == "assistant" for m in dropped)
    for message in kept:
        role = message.get("role") if isinstance(message, dict) else None
        content = str(message.get("content", "")) if role in ("tool", "user") else ""
        if role == "assistant":
            turn += 1
            calls = ", ".join(
                f"{c.get('function', {}).get('name')}({c.get('function', {}).get('arguments')})"
                for c in message.get("tool_calls") or []
                if isinstance(c, dict)
            )
            said = excerpt(str(message.get("content") or ""), 60)
            line = _("turn {n}  model: {said}").format(n=turn, said=said)
            lines.append(line + (f"  -> {excerpt(calls, 120)}" if calls else ""))
        elif role == "tool":
            output = excerpt(content.replace("\n", " | "), 70)
            lines.append(_("        tool:  {output}").format(output=output))
        elif role == "user":
            lines.append(_("        user:  {text}").format(text=excerpt(content, 70)))
    if len(lines) > limit:
        lines = ["        …", *lines[-limit:]]
    return "\n".join(lines)


def judge(exercise: ExerciseText, loop: Callable[..., Any]) -> Verdict:
    """Every case in process, then the socket cases: the first that goes wrong, shown with the
    run that showed it; else "Correct", saying where the socket runs went."""
    a_function(exercise.answer, loop)
    cases = [LoopCase(title=c.title, **c.data) for c in exercise.cases]
    if still_blank(getattr(loop, "__globals__", {}).get("run_call")):
        raise wrong("1-4", "run_call_still_blank")
    for case in cases:
        _check(play(loop, case, http_post(*on_the_mock(case.persona)), _("in process")))
    with socket_url() as (base_url, why):
        if base_url is None:
            where = _("the real-socket runs were skipped here ({why})").format(why=why)
        else:
            for case in (c for c in cases if c.socket):
                place = _("over a real socket ({url})").format(url=base_url)
                _check(play(loop, case, http_post(base_url, case.persona, timeout_s=10.0), place))
            where = _("the same over a real socket ({url})").format(url=base_url)
    return correct(_(exercise.settings["correct"]), socket=where)


def _check(played: Played) -> None:
    if (problem := diagnose(played)) is None:
        return
    where = _("The run that showed it: {case}, {where}.").format(
        case=_(played.case.title), where=played.where
    )
    shown = transcript(played.messages)
    fence = "\n\n```\n{shown}\n```" if shown else ""
    raise Incorrect(
        "{problem}\n\n{where}" + fence,
        problem=_Rendered(problem.message, as_markdown=problem.markdown),
        where=where,
        shown=_Rendered(shown, as_markdown=shown.replace("```", "`\u200b``")),
    )


@dataclass(frozen=True)
class _Rendered(Said):
    """Words already rendered, plain (`value`) and as Markdown: an `Incorrect` nested in another's
    message, or a run shown in a code block (as it is in both: a fence shows HTML as text; its
    backticks broken so that it cannot close the fence)."""

    as_markdown: str = ""

    def plain(self) -> str:
        return str(self.value)

    def markdown(self) -> str:
        return self.as_markdown


def timed_out(seconds: float) -> Incorrect:
    """The verdict on a loop the time limit stopped."""
    if PROGRESS.stopped:
        made = requests_text(PROGRESS.requests - PROGRESS.stopped)
        return wrong("1-4", "did_not_stop", requests=made, times=times_text(PROGRESS.stopped))
    if PROGRESS.requests == 0:
        return wrong("1-4", "loop_never_asked", seconds=seconds)
    made = requests_text(PROGRESS.requests)
    return wrong("1-4", "loop_timed_out", seconds=seconds, requests=made)
