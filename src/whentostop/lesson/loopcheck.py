"""Running a learner's own loop (notebook 1-4) against the mock's personas, to say which exit or
rule is wrong, and to show the run that showed it.

The learner's loop is called as `loop(post, prompt, tools, max_turns=..., stop_on=...)`, where
`post(body)` sends one chat-completion request and returns the reply's JSON: so the same loop
runs over the in-process mock and over a real socket (`MockServer`). It returns an outcome with
`stop`, `answer` and `messages` (or the three as a tuple). Each case below is one run the loop
must get right; `diagnose` turns what happened into one specific sentence.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .._text import excerpt
from ..i18n import N_, _, ngettext
from ..level import load_level
from ..tools import Tool
from . import prompt
from .castle import Post, http_post

UNKNOWN_TOOL = "open_door"
"""The tool the model asks for in the unknown-tool case: no level offers it."""
JAMMED = "the ? blocks are stuck: try again"
"""What a jammed tool raises the first time it is called (RuntimeError)."""


class Runaway(BaseException):
    """Raised by the recording `post` when a loop makes far more requests than its budget.

    A BaseException, so that a learner's `except Exception` cannot swallow it."""


@dataclass(frozen=True)
class Case:
    """One run a learner's loop must get right."""

    key: str
    title: str
    """What the run is, in words (a msgid)."""
    persona: str
    level: str
    tools: tuple[str, ...]
    stop_on: tuple[str, ...]
    max_turns: int
    stop: str
    """The exit it must take: "end_turn", "terminal_tool" or "max_turns"."""
    answer: Any
    requests: int
    """How many requests the run takes on the mock."""
    jam: str | None = None
    """A tool that raises the first time it is called."""
    unknown_first: bool = False
    """The first reply asks for a tool nobody offered."""

    def make_tools(self) -> list[Tool]:
        offered = load_level(self.level).tools(*self.tools)
        return [jammed(t) if t.name == self.jam else t for t in offered]


FLAG_TEXT = "I found the star! It is in the underground, block 7."
"""The flag's answer on level 1-2 in English; the check reads it off each run (`_flag_text`),
in whatever language the conversation is."""
STAR_12 = {"item": "star", "block": 12}

CASES = (
    Case(
        "flag",
        N_("the searcher on level 1-2, only search_blocks offered"),
        "searcher",
        "1-2",
        ("search_blocks",),
        (),
        10,
        "end_turn",
        FLAG_TEXT,
        3,
    ),
    Case(
        "clock",
        N_("the Loopboros on level 1-1, max_turns=3"),
        "loopboros",
        "1-1",
        ("search_blocks", "mark_star"),
        (),
        3,
        "max_turns",
        None,
        3,
    ),
    Case(
        "pipe",
        N_('the sloppy caller on level 1-3, stop_on=("mark_star",)'),
        "sloppy",
        "1-3",
        ("search_blocks", "mark_star"),
        ("mark_star",),
        10,
        "terminal_tool",
        STAR_12,
        6,
    ),
    Case(
        "raises",
        N_("the searcher on level 1-2, whose search_blocks raises the first time"),
        "searcher",
        "1-2",
        ("search_blocks",),
        (),
        10,
        "end_turn",
        FLAG_TEXT,
        4,
        jam="search_blocks",
    ),
    Case(
        "terminal raises",
        N_(
            'the searcher on level 1-3, stop_on=("mark_star",), whose '
            "mark_star raises the first time"
        ),
        "searcher",
        "1-3",
        ("search_blocks", "mark_star"),
        ("mark_star",),
        10,
        "terminal_tool",
        STAR_12,
        6,
        jam="mark_star",
    ),
    Case(
        "unknown",
        N_(
            "the searcher on level 1-2, whose first reply asks for a tool that does "
            "not exist ({name})"
        ),
        "searcher",
        "1-2",
        ("search_blocks",),
        (),
        10,
        "end_turn",
        FLAG_TEXT,
        4,
        unknown_first=True,
    ),
)
"""Every case, in the order the check runs them: the three exits, then the error-back path."""
OVER_A_SOCKET = ("flag", "pipe")
"""The cases run again over a real socket."""


def jammed(original: Tool) -> Tool:
    """The same tool, schema and all, whose body raises once, then works."""
    calls = {"n": 0}

    def body(**kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError(JAMMED)
        return original.fn(**kwargs)

    return Tool(
        name=original.name,
        description=original.description,
        input_model=original.input_model,
        fn=body,
        timeout_s=None,
    )


@dataclass
class Recorder:
    """A `post` that counts requests, checks each for unanswered tool calls, keeps the
    conversation it was last sent, and stops a loop that never stops."""

    post: Post
    limit: int
    unknown_first: bool = False
    requests: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)
    unanswered: tuple[int, str] | None = None
    """(request number, tool name) of the first request sent with a tool call left unanswered."""

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.requests += 1
        messages = body.get("messages")
        if isinstance(messages, list):
            self.messages = messages
            missing = _unanswered(messages)
            if missing and self.unanswered is None:
                self.unanswered = (self.requests, missing)
        if self.requests > self.limit:
            raise Runaway(self.requests)
        if self.unknown_first and self.requests == 1:
            return _reply_calling(UNKNOWN_TOOL, {"door": "castle"})
        return self.post(body)


def _unanswered(messages: list[dict[str, Any]]) -> str | None:
    """The name of a tool call that has no tool message with its id, if any."""
    answered = {
        m.get("tool_call_id") for m in messages if isinstance(m, dict) and m.get("role") == "tool"
    }
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                if call.get("id") not in answered:
                    return str(call.get("function", {}).get("name", "?"))
    return None


def _reply_calling(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A chat completion asking for one tool call, shaped as the mock's."""
    message = {
        "role": "assistant",
        "content": f"Let me try {name}.",
        "tool_calls": [
            {
                "id": f"call_0_{name}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }
    return {
        "id": "chatcmpl-check-1",
        "object": "chat.completion",
        "model": "searcher",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


@dataclass
class Played:
    """What one case did with the learner's loop."""

    case: Case
    where: str
    requests: int
    messages: list[dict[str, Any]]
    unanswered: tuple[int, str] | None
    error: BaseException | None = None
    outcome: tuple[Any, Any, Any] | None = None
    returned: Any = None


def read_outcome(value: Any) -> tuple[Any, Any, Any] | None:
    """(stop, answer, messages) from an outcome object or a 3-tuple; None if it is neither."""
    if all(hasattr(value, name) for name in ("stop", "answer", "messages")):
        return value.stop, value.answer, value.messages
    if isinstance(value, tuple) and len(value) == 3:
        return value[0], value[1], value[2]
    return None


def play(loop: Callable[..., Any], case: Case, post: Post, where: str) -> Played:
    """Run the learner's loop on one case; whatever it raises is kept, never raised."""
    recorder = Recorder(post, limit=case.max_turns + 4, unknown_first=case.unknown_first)
    played = Played(case, where, 0, [], None)
    try:
        played.returned = loop(
            recorder, prompt(), case.make_tools(), max_turns=case.max_turns, stop_on=case.stop_on
        )
        played.outcome = read_outcome(played.returned)
    except (Exception, Runaway) as exc:  # noqa: BLE001 — the learner's code may raise anything
        played.error = exc
    played.requests, played.unanswered = recorder.requests, recorder.unanswered
    messages = played.outcome[2] if played.outcome and isinstance(played.outcome[2], list) else None
    played.messages = messages if messages is not None else recorder.messages
    return played


@contextmanager
def socket_url() -> Iterator[tuple[str | None, str]]:
    """(the base URL of the mock served on a real loopback socket, "") for the block, or
    (None, why there is none): JupyterLite's browser kernel has no sockets and no threads."""
    try:
        from ..mock.endpoint import MockServer

        server = MockServer()
    except (OSError, RuntimeError, ImportError) as exc:
        yield None, f"{type(exc).__name__}: {exc}"
        return
    try:
        server.start()
    except RuntimeError as exc:  # no threads (Pyodide): the socket is closed, not left open
        server.httpd.server_close()
        yield None, f"{type(exc).__name__}: {exc}"
        return
    try:
        yield server.base_url, ""
    finally:
        server.stop()


def post_to_mock(persona: str) -> Post:
    """A post to a mock persona through the in-process transport, whatever the environment says."""
    from ..mock.endpoint import mock_transport
    from ..models import MOCK_BASE_URL

    return http_post(MOCK_BASE_URL, persona, transport=mock_transport())


# -- what went wrong, in one sentence ----------------------------------------------------------


def case_title(case: Case) -> str:
    """The case in words, in the language in effect."""
    return _(case.title).format(name=UNKNOWN_TOOL)


def diagnose(played: Played) -> str | None:
    """The one thing wrong with this run of the learner's loop, or None when it is right."""
    case, error = played.case, played.error
    if error is not None:
        return _raised(played, error)
    if played.outcome is None:
        return _(
            "your loop returned {got}: return an outcome with stop, answer and messages "
            "(Outcome(stop, answer, messages))."
        ).format(got=excerpt(repr(played.returned), 80))
    stop, answer, messages = played.outcome
    if played.unanswered is not None:
        number, name = played.unanswered
        return _(
            "request {n} was sent with a {name} call that has no tool message: every tool "
            'call needs one (role "tool", its tool_call_id), a failed one too. The mock lets '
            "it pass; a real endpoint refuses the request (HTTP 400)."
        ).format(n=number, name=name)
    if not isinstance(messages, list) or not messages:
        return _(
            "the outcome's messages should be the whole conversation (a list), not {got}."
        ).format(got=excerpt(repr(messages), 60))
    stop = getattr(stop, "value", stop)
    if case.stop == "max_turns":
        return _clock(played, stop, answer)
    if case.stop == "terminal_tool":
        return _pipe(played, stop, answer)
    return _flag(played, stop, answer)


def _raised(played: Played, error: BaseException) -> str:
    case, kind = played.case, type(error).__name__
    said = excerpt(str(error), 100)
    if isinstance(error, Runaway):
        return _(
            "your loop made more than {n} requests with max_turns={max_turns}: it did not "
            "stop. Make at most max_turns requests: for turn in range(max_turns)."
        ).format(n=played.case.max_turns + 4, max_turns=case.max_turns)
    if isinstance(error, TypeError) and played.requests == 0:
        return _(
            "calling your loop as loop(post, prompt, tools, max_turns={max_turns}, "
            "stop_on={stop_on!r}) raised TypeError: {said}. Keep the skeleton's "
            "parameters."
        ).format(max_turns=case.max_turns, stop_on=case.stop_on, said=said)
    if case.jam and JAMMED in str(error):
        return _(
            '{tool} raised RuntimeError ("{said}") and your loop let it out: the whole '
            "run is lost. Catch it and send it back as the tool's result (the error-back "
            "path, run_call); the model tries again."
        ).format(tool=case.jam, said=JAMMED)
    if case.unknown_first and played.requests <= 1:
        return _(
            "the model asked for {name}, a tool that does not exist, and your loop raised "
            "{kind}: {said}. Send an error back as that call's result (which tools there "
            "are), and go on."
        ).format(name=UNKNOWN_TOOL, kind=kind, said=said)
    if case.key == "pipe" and (
        "invalid input" in str(error) or kind in ("ValidationError", "ToolInputError")
    ):
        return _(
            "the sloppy caller's mark_star failed validation and your loop raised {kind}: "
            "{said}. A call that fails validation goes back to the model as an error "
            "result; the loop goes on."
        ).format(kind=kind, said=said)
    if isinstance(error, KeyError) and "tool_calls" in str(error):
        return _(
            "your loop raised KeyError: 'tool_calls' on a reply that asks for no tool: "
            'that reply is the flag. Return before reading message["tool_calls"].'
        )
    return _("on {case}, your loop raised {kind}: {said}").format(
        case=case_title(case), kind=kind, said=said
    )


def _flag(played: Played, stop: Any, answer: Any) -> str | None:
    case = played.case
    if stop == "max_turns":
        return _(
            "the model answered without asking for a tool, but your loop went on until "
            "max_turns. A reply with no tool call is the flag: return "
            'Outcome("end_turn", its text, messages).'
        )
    if stop != "end_turn":
        return _(
            "this run ended on the flag (a reply with no tool call): stop should be "
            '"end_turn", not {got!r}.'
        ).format(got=stop)
    want = _flag_text(played.messages)
    if answer != want:
        if isinstance(answer, dict) and answer.get("content") == want:
            return _(
                'on the flag the answer is the reply\'s text, message["content"], not the '
                "whole message."
            )
        return _(
            "on the flag the answer is the text of the reply that asked for no tool, "
            "{want!r}; your loop returned {got}."
        ).format(want=want, got=excerpt(repr(answer), 80))
    if played.requests != case.requests:
        return _("the run should take {want} requests; your loop made {got}.").format(
            want=case.requests, got=played.requests
        )
    return None


def _flag_text(messages: list[dict[str, Any]]) -> str | None:
    """The text of the last reply that asked for no tool: the flag's answer (the mock words it
    in the conversation's language, so it is read off the run, not written here)."""
    for message in reversed(messages):
        if message.get("role") == "assistant" and not message.get("tool_calls"):
            return str(message.get("content") or "")
    return None


def _clock(played: Played, stop: Any, answer: Any) -> str | None:
    case = played.case
    if played.requests != case.max_turns:
        return ngettext(
            "with max_turns={max_turns} your loop made {n} request: make exactly max_turns "
            "before the clock stops it.",
            "with max_turns={max_turns} your loop made {n} requests: make exactly max_turns "
            "before the clock stops it.",
            played.requests,
        ).format(max_turns=case.max_turns, n=played.requests)
    if stop != "max_turns":
        return _(
            "the turns ran out while the model was still asking for tools: that is the "
            'clock, stop "max_turns", not {got!r}.'
        ).format(got=stop)
    if answer is not None:
        last = _last_assistant(played.messages)
        what = (
            _(" — that is the last message, a request for another search, not an answer")
            if answer == last or (isinstance(last, dict) and answer == last.get("content"))
            else ""
        )
        return _(
            "on the clock there is no answer: answer must be None, but your loop returned "
            "{got}{what}."
        ).format(got=excerpt(repr(answer), 80), what=what)
    return None


def _pipe(played: Played, stop: Any, answer: Any) -> str | None:
    case = played.case
    rejected = _first_failed_terminal(played.messages, case.stop_on)
    if stop == "terminal_tool" and rejected is not None and played.requests < case.requests:
        turn, arguments, output = rejected
        return _(
            "your loop opened the warp pipe on turn {turn}, on a mark_star call that "
            "failed ({output}) with input {arguments}. Stop only when the terminal tool "
            "validated and ran (ok)."
        ).format(turn=turn, arguments=arguments, output=excerpt(output, 80))
    if stop == "end_turn":
        return _(
            "mark_star validated and ran, but your loop went on: the model spent one more "
            "turn saying {said!r}, and the run ended on the flag. When a stop_on tool ran "
            'without error, return Outcome("terminal_tool", its validated input, '
            "messages)."
        ).format(said=excerpt(str(answer), 60))
    if stop != "terminal_tool":
        return _(
            'this run should end through the warp pipe (stop "terminal_tool"); your loop '
            "said {got!r} after {n} requests."
        ).format(got=stop, n=played.requests)
    if answer != case.answer:
        said = _terminal_output(played.messages, case.stop_on)
        if isinstance(answer, str) and said is not None and answer == said:
            return _(
                "the answer is the terminal tool's validated input, {want}, not its output {got!r}."
            ).format(want=case.answer, got=answer)
        if isinstance(answer, str):
            return _(
                "the answer is the validated input as a dict, {want}, not the raw "
                "arguments {got!r}."
            ).format(want=case.answer, got=excerpt(answer, 60))
        return _(
            "through the warp pipe the answer is the validated input {want}; your loop "
            "returned {got}."
        ).format(want=case.answer, got=excerpt(repr(answer), 80))
    if played.requests != case.requests:
        return _("the run should take {want} requests; your loop made {got}.").format(
            want=case.requests, got=played.requests
        )
    return None


def _last_assistant(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    found = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
    return found[-1] if found else None


def _tool_outputs(messages: list[dict[str, Any]]) -> dict[str, str]:
    return {
        m.get("tool_call_id", ""): str(m.get("content", ""))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "tool"
    }


def _first_failed_terminal(
    messages: list[dict[str, Any]], stop_on: tuple[str, ...]
) -> tuple[int, str, str] | None:
    """(turn, arguments, output) of the first terminal call whose result was an error."""
    outputs, turn = _tool_outputs(messages), 0
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        turn += 1
        for call in message.get("tool_calls") or []:
            name = call.get("function", {}).get("name")
            output = outputs.get(call.get("id", ""))
            if name in stop_on and (
                output is None
                or output.lower().lstrip().startswith(("error", "erro"))
                or JAMMED in output
                or "invalid" in output.lower()
            ):
                return turn, str(call["function"].get("arguments")), output or _("(no result)")
    return None


def _terminal_output(messages: list[dict[str, Any]], stop_on: tuple[str, ...]) -> str | None:
    outputs = _tool_outputs(messages)
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                if call.get("function", {}).get("name") in stop_on:
                    return outputs.get(call.get("id", ""))
    return None


def transcript(messages: list[dict[str, Any]], limit: int = 14) -> str:
    """The run as the learner's loop kept it, one line per message (the last `limit` lines)."""
    lines, turn = [], 0
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "assistant":
            turn += 1
            calls = ", ".join(
                f"{c.get('function', {}).get('name')}({c.get('function', {}).get('arguments')})"
                for c in message.get("tool_calls") or []
            )
            said = excerpt(str(message.get("content") or ""), 60)
            lines.append(
                _("turn {n}  model: {said}").format(n=turn, said=said)
                + (f"  -> {calls}" if calls else "")
            )
        elif role == "tool":
            lines.append(
                _("        tool:  {output}").format(
                    output=excerpt(str(message.get("content", "")).replace("\n", " | "), 70)
                )
            )
        elif role == "user":
            lines.append(
                _("        user:  {text}").format(text=excerpt(str(message.get("content", "")), 70))
            )
    if len(lines) > limit:
        lines = ["        …", *lines[-limit:]]
    return "\n".join(lines)


def run_cases(loop: Callable[..., Any]) -> tuple[Played | None, str]:
    """Every case in process, then the socket cases: (the first run that went wrong, or None;
    where the socket runs went, or why they were skipped)."""
    for case in CASES:
        one = play(loop, case, post_to_mock(case.persona), _("in process"))
        if diagnose(one):
            return one, ""
    by_key = {c.key: c for c in CASES}
    with socket_url() as (base_url, why):
        if base_url is None:
            return None, _("the real-socket runs were skipped here ({why})").format(why=why)
        for key in OVER_A_SOCKET:
            case = by_key[key]
            one = play(
                loop,
                case,
                http_post(base_url, case.persona, timeout_s=10.0),
                _("over a real socket ({url})").format(url=base_url),
            )
            if diagnose(one):
                return one, ""
        return None, _("the same over a real socket ({url})").format(url=base_url)


__all__ = [
    "CASES",
    "Case",
    "Played",
    "Recorder",
    "case_title",
    "diagnose",
    "jammed",
    "play",
    "read_outcome",
    "run_cases",
    "transcript",
]
