"""Notebook 1-4, the castle: the plumbing around the loop the learner writes from scratch.

    post = http_post(*where("searcher"))   # post(body) -> the reply as a dict, plain HTTP
    reply = post({"messages": [{"role": "user", "content": PROMPT}], "tools": [...]})

The loop itself lives in the notebook, written in plain Python over `post`; this module holds
what is not the point of the lesson: where to post (the mock in-process, or the endpoint your
environment names), the castle with its star taken, the "read the last message" recipe of the
original lesson's library, and a table that puts a run's last message beside its outcome.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .._text import excerpt, markdown_text
from ..i18n import N_, _
from ..level import CASTLE, Level, LevelSpec, load_level
from ..textcalls import find_text_calls

if TYPE_CHECKING:
    import httpx

LESSON_TOOLS = ("search_blocks", "mark_star")
"""The level's tools: a loop of the learner's own returns text that may be a call to one."""
Post = Callable[[dict[str, Any]], dict[str, Any]]
"""`post(body)`: send one chat-completion request body (messages, tools) and get the reply."""
TEXT_CALL = N_("a tool call written as text, not an answer: “{text}”")
"""What a loop returned when it is a reply whose text is a tool call (`find_text_calls`)."""


def http_post(
    base_url: str,
    model: str,
    api_key: str | None = None,
    transport: httpx.BaseTransport | None = None,
    *,
    timeout_s: float = 60.0,
) -> Post:
    """A `post(body)` for one model at one endpoint: plain httpx, no SDK.

    The body holds `messages` and `tools`; `post` adds the model's name, sends it to
    `{base_url}/chat/completions`, raises on an HTTP error, and returns the reply's JSON.
    """
    import httpx

    from ..client import checked_api_key

    api_key = checked_api_key(api_key)  # one a header cannot carry: InvalidAPIKey, now
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    http = httpx.Client(base_url=base_url, headers=headers, transport=transport, timeout=timeout_s)

    def post(body: dict[str, Any]) -> dict[str, Any]:
        reply = http.post("/chat/completions", json={"model": model, **body})
        data: dict[str, Any] = reply.raise_for_status().json()
        return data

    return post


class Where(NamedTuple):
    """Where `post` sends its requests: `http_post(*where("searcher"))`. The key never shows."""

    base_url: str
    model: str
    api_key: str | None = None
    transport: Any = None
    """An httpx transport for the in-process mock; None for a real endpoint (sockets)."""

    def __repr__(self) -> str:
        key = ", api_key=***" if self.api_key else ""
        inside = ", in process" if self.transport is not None else ""
        return f"Where({self.base_url!r}, model={self.model!r}{key}{inside})"


def where(model: str | None = None) -> Where:
    """Where the model `connect(model)` would pick is: a mock persona in-process, or the
    endpoint `OPENAI_BASE_URL` names (with `OPENAI_API_KEY`), so a notebook switches by
    configuration alone, as everywhere else in the lesson."""
    from ..mock.endpoint import mock_transport
    from ..models import MOCK_BASE_URL, connect, is_mock

    chosen = connect(model)
    chosen.close()  # only its choice is wanted: the plain loop makes its own client
    if is_mock(chosen):
        return Where(MOCK_BASE_URL, chosen.name, None, mock_transport())
    return Where(chosen.base_url, chosen.name, os.environ.get("OPENAI_API_KEY") or None, None)


def on_the_mock(persona: str) -> Where:
    """Where a mock persona is, in process, whatever the environment configures: for a cell that
    must never reach a real endpoint (the uncapped loop of notebook 1-1)."""
    from ..mock.endpoint import mock_transport
    from ..models import MOCK_BASE_URL, is_persona

    if not is_persona(persona):
        raise ValueError(_("{persona!r} is not a mock persona").format(persona=persona))
    return Where(MOCK_BASE_URL, persona, None, mock_transport())


def post_to(model: str | None = None) -> Post:
    """`http_post(*where(model))`: a `post(body)` for the model `connect(model)` would pick."""
    return http_post(*where(model))


def empty_castle() -> Level:
    """The castle (level 1-4) with its star taken: the same rooms, the star's block empty."""
    spec = load_level(CASTLE).spec
    areas = {
        area: {number: "nothing" if item == "star" else item for number, item in blocks.items()}
        for area, blocks in spec.areas.items()
    }
    return Level(spec=LevelSpec.model_validate({**spec.model_dump(), "areas": areas}))


# -- the recipe of the original lesson's library, and what it hides ----------------------------


def replies(messages: Iterable[Any]) -> list[dict[str, Any]]:
    """The messages the model sent, in order (anything that is not a message left out)."""
    return [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]


def last_assistant(messages: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The last message the model sent: what a "last message" loop hands back as the result."""
    sent = replies(messages)
    return sent[-1] if sent else None


def exit_by_last_message(
    messages: Sequence[dict[str, Any]], stop_on: Sequence[str] = ("mark_star",)
) -> tuple[str, Any]:
    """The recipe for a loop that returns only its last message: read that message to guess how
    the run ended. No tool call: the flag, the text is the answer; a call to a terminal tool:
    the warp pipe, its arguments are the answer; anything else: the clock, no answer.

    It agrees with the outcome on honest runs, and lies on others (notebook 1-4 finds where).
    """
    last = last_assistant(messages) or {}
    calls = last.get("tool_calls") or []
    if not calls:
        return "end_turn", last.get("content")
    terminal = [c for c in calls if c.get("function", {}).get("name") in stop_on]
    if terminal:
        arguments = terminal[0]["function"].get("arguments") or "{}"
        return "terminal_tool", maybe_json(arguments, arguments)
    return "max_turns", None


def maybe_json(text: Any, default: Any = None) -> Any:
    """A tool call's arguments parsed, or `default` when they are not JSON text."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return default


def describe_message(message: dict[str, Any] | None) -> str:
    """One line for a message a loop returned: its tool calls, or its text."""
    if message is None:
        return _("nothing")
    calls = message.get("tool_calls") or []
    if calls:
        asked = ", ".join(
            f"{c['function']['name']}({c['function'].get('arguments') or ''})" for c in calls
        )
        return _("a tool call: {calls}").format(calls=excerpt(asked, 90))
    text = str(message.get("content") or "")
    if find_text_calls(text, LESSON_TOOLS):
        return _(TEXT_CALL).format(text=excerpt(text, 90))
    return _("the text “{text}”").format(text=excerpt(text, 90))


@dataclass(frozen=True)
class Table:
    """A small table a notebook shows as Markdown (and as plain text anywhere else)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def _repr_markdown_(self) -> str:
        def cell(text: str) -> str:  # model text: literal words, on the cell's one line
            return markdown_text(" ".join(str(text).splitlines()))

        lines = ["| " + " | ".join(map(cell, row)) + " |" for row in (self.header, *self.rows)]
        return "\n".join([lines[0], "|" + "---|" * len(self.header), *lines[1:]])

    def __repr__(self) -> str:
        return "\n".join(" · ".join(row) for row in (self.header, *self.rows))


def describe_outcome(outcome: Any) -> str:
    """One line for what a loop returned (an outcome, or a `Run`): "stop: answer", or the
    exception it raised."""
    if isinstance(outcome, BaseException):
        error = excerpt(str(outcome), 80)
        return _("raised {kind}: {error}").format(kind=type(outcome).__name__, error=error)
    stop = getattr(outcome.stop, "value", outcome.stop)
    value = outcome.answer if getattr(outcome, "has_answer", True) else None  # a Run may raise
    if stop == "end_turn" and find_text_calls(str(value or ""), LESSON_TOOLS):
        answer = _(TEXT_CALL).format(text=excerpt(str(value), 70))
    elif getattr(outcome, "not_an_answer", None) is not None:  # a Run: its reason says why
        answer = outcome.no_answer_reason
    else:
        answer = _("no answer") if value is None else excerpt(repr(value), 70)
    return _("{stop}: {answer}").format(stop=stop, answer=answer)


def side_by_side(rows: Iterable[tuple[str, Any, Sequence[dict[str, Any]], Any]]) -> Table:
    """One row per run: what a "last message" loop returned, the end events it emitted, and
    the outcome of the same run. `rows` holds (label, last message, events, outcome), where an
    outcome has `stop` and `answer`; an exception a loop raised may stand for either."""
    table = []
    for label, message, events, outcome in rows:
        ended = "; ".join(json.dumps(e, ensure_ascii=False) for e in events) or _("none")
        returned = describe_outcome if isinstance(message, BaseException) else describe_message
        table.append((label, returned(message), ended, describe_outcome(outcome)))
    return Table(
        (_("run"), _("the last-message loop returns"), _("its end event"), _("the outcome")),
        tuple(table),
    )
