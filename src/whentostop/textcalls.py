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
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

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
    calls = []
    for value in _json_values(text[:MAX_SCAN_CHARS]):
        for item in _call_shaped(value):
            call = _as_call(item, offered)
            if call is not None:
                calls.append(call)
    return calls


def _json_values(text: str) -> Iterator[Any]:
    """Every JSON object or array embedded in `text`, outermost first, left to right: inside
    a Markdown fence, between `<tool_call>` tags, after a `[TOOL_CALLS]` marker, or bare."""
    decoder = json.JSONDecoder()
    position, tried = 0, 0
    while tried < MAX_STARTS:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            return
        start = min(starts)
        tried += 1
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
        # {"search_blocks": {"area": "sky"}}: the tool's name as the only key
        if len(item) == 1:
            ((key, value),) = item.items()
            if key in offered and isinstance(value, dict):
                return TextCall(key, json.dumps(value))
        return None
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


__all__ = ["MAX_SCAN_CHARS", "TextCall", "find_text_calls"]
