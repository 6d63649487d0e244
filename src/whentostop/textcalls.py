"""Tool calls written as text: recognising what a small local model sends when the server does not
turn its calls into `tool_calls`.

A model asks for a tool by writing a call in the format its chat template taught it; the server's
tool-call parser turns that text into the reply's `tool_calls`. When the template or the parser
does not fit the model (llama.cpp's `llama-server` without `--jinja`, an Ollama model whose
template has no tools), the call comes back as plain text — and a reply without `tool_calls` is
the flag, so the loop would take `{"name": "search_blocks", ...}` for the model's answer. The
loop keeps that rule; this module only recognises such text, so the run can say what happened:

    ```json
    {"name": "search_blocks", "arguments": {"area": "sky"}}
    ```
    <tool_call>{"name": "mark_star", "arguments": {"item": "star", "block": 4}}</tool_call>
    {"function": {"name": "search_blocks", "parameters": {"area": "sky"}}}
    [TOOL_CALLS] [{"name": "search_blocks", "arguments": {"area": "sky"}}]

Only a call to a tool that was offered counts: JSON that merely looks like a call is not one.
`note_text_calls` says what was found on the turn and the run, with the advice on the server
(`server_advice`); with `text_tool_calls="accept"` it turns the calls into `tool_calls`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from ._text import excerpt
from .i18n import _, say, say_n
from .outcome import Note, Run, Turn, tool_call
from .replies import warn

MAX_SCAN_CHARS = 20_000
"""Only the start of a long reply is read (a tool call written as text is short)."""
MAX_STARTS = 64
"""At most this many places where a JSON value may start are tried: a reply full of braces
cannot make the scan slow."""

_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
_NAME_KEYS = ("name", "tool", "tool_name")


@dataclass(frozen=True)
class TextCall:
    """One tool call found in a reply's text."""

    name: str
    arguments: str
    """The arguments as JSON text, the way `tool_calls` carries them."""


def find_text_calls(text: str, offered: Collection[str]) -> list[TextCall]:
    """The calls to offered tools written in `text`, in order; [] when there are none."""
    if not offered or not text or "{" not in text:
        return []
    values = _json_values(text[:MAX_SCAN_CHARS])
    calls = (_as_call(item, offered) for value in values for item in _call_shaped(value))
    return [call for call in calls if call is not None]


def _json_values(text: str) -> Iterator[Any]:
    """Every JSON object or array embedded in `text`, outermost first, left to right: inside
    a Markdown fence, between `<tool_call>` tags, after a `[TOOL_CALLS]` marker, or bare."""
    decoder = json.JSONDecoder()
    position = 0
    for _tried in range(MAX_STARTS):
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            return
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            position = start + 1
            continue
        if isinstance(value, (dict, list)):
            yield value
        position = end


def _call_shaped(value: Any) -> Iterator[dict[str, Any]]:
    """The objects in `value` that may be calls: itself, a list's items, `tool_calls` items."""
    items = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, dict):
            inner = item.get("tool_calls")
            if isinstance(inner, list):
                yield from (i for i in inner if isinstance(i, dict))
            else:
                yield item


def _as_call(item: dict[str, Any], offered: Collection[str]) -> TextCall | None:
    """`item` read as a call to an offered tool, in any of the shapes models write; else None."""
    function = item.get("function")
    if isinstance(function, dict):  # {"type": "function", "function": {"name": ..., ...}}
        item = function
    elif isinstance(function, str):  # {"function": "search_blocks", "arguments": {...}}
        item = {**item, "name": function}
    name = next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
    if name is None:
        return _named_by_its_key(item, offered)
    if name not in offered:
        return None
    arguments = next((item[k] for k in _ARGUMENT_KEYS if k in item), None)
    if arguments is None:
        if set(item) - {"name", "type", "id"}:
            return None  # something else that happens to have a "name"
        arguments = {}
    if isinstance(arguments, str):
        return TextCall(name, arguments)
    if isinstance(arguments, dict):
        return TextCall(name, json.dumps(arguments))
    return None


def _named_by_its_key(item: dict[str, Any], offered: Collection[str]) -> TextCall | None:
    """`{"search_blocks": {"area": "sky"}}`: the tool's name as the only key; else None."""
    if len(item) != 1:
        return None
    ((key, value),) = item.items()
    if key in offered and isinstance(value, dict):
        return TextCall(key, json.dumps(value))
    return None


def note_text_calls(turn: Turn, run: Run, offered: Collection[str], *, accept: bool) -> None:
    """Calls to `offered` tools written in the reply's text, if any: a note on the turn and one
    warning on the run, with what the server likely did wrong. With `accept` they become the
    message's `tool_calls` (the history the model sees again holds them as calls), labelled."""
    if not (found := find_text_calls(turn.text, offered)):
        return
    names = ", ".join(dict.fromkeys(c.name for c in found))
    text = excerpt(turn.text, 160)
    if accept:
        said = say_n("text_call_accepted", len(found), tools=names, text=text)
        turn.notes.append(Note("text_tool_call", said))
        turn.message["tool_calls"] = [
            tool_call(f"text_call_{turn.index}_{i}", c.name, c.arguments)
            for i, c in enumerate(found, 1)
        ]
        turn.message["content"] = None
        what = say("text_calls_run", n=turn.index, cause=server_advice())
        warn(run, "text_tool_call", what)
        return
    if turn.truncated:
        read_as = _("the reply was cut off (finish_reason: length), so the loop asked for the rest")
    else:
        read_as = say("read_as_flag")
    said = say("text_call_noted", tools=names, text=text, read_as=read_as)
    turn.notes.append(Note("text_tool_call", said))
    what = say("text_call_warned", n=turn.index, tools=names)
    rule = say("text_call_rule")
    accept_them = _('To run such calls anyway, labelled, pass text_tool_calls="accept".')
    warn(run, "text_tool_call", " ".join((what, rule, server_advice(), accept_them)))


def server_advice() -> str:
    """Why a server returns a model's tool call as text, and what to change: llama.cpp, Ollama."""
    return " ".join(
        say(f"server_{part}") for part in ("cause", "llama_cpp", "ollama", "larger_model")
    )


__all__ = ["MAX_SCAN_CHARS", "TextCall", "find_text_calls", "note_text_calls", "server_advice"]
