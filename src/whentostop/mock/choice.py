"""`tool_choice` and `parallel_tool_calls`, honoured by every persona as a real model's server
honours them: the persona decides its reply as usual, and `with_tool_choice` then makes that reply
obey the request.

    "auto" (or none sent)  the persona's own reply
    "none"                 no tool call: the persona's words only (the personas already read it)
    "required"             a tool call, always: a persona that wanted to answer, report or say
                           "done" calls a tool instead — it marks the star it found again, or
                           searches on — so the flag can never fire
    a named function       a call to that tool, always

`parallel_tool_calls` is honoured by construction: no persona ever puts more than one call in a
reply. A forced call is what a model forced to call would make: the star it knows, or a guess
(block 1); the next area to search, or the first one again; `{}` for a tool of the learner's own.
"""

from __future__ import annotations

from typing import Any

from .personas import View, assistant, read

GUESSED_BLOCK = 1
"""The block a persona forced to call `mark_star` before it found the star puts its marker on:
a guess that validates and is (almost always) wrong, as a small real model's is."""


def choice_problem(request: dict[str, Any]) -> str | None:
    """What is wrong with the request's `tool_choice` or `parallel_tool_calls`, as a real
    server would refuse it (HTTP 400), or None."""
    choice = request.get("tool_choice")
    names = _offered(request)
    if choice is not None and choice not in ("auto", "none", "required"):
        name = _named(choice)
        if name is None:
            return "'tool_choice' must be 'auto', 'none', 'required' or a named function"
        if name not in names:
            return f"'tool_choice' names {name!r}, which is not among the tools"
    parallel = request.get("parallel_tool_calls")
    if parallel is not None and not isinstance(parallel, bool):
        return "'parallel_tool_calls' must be a boolean"
    return None


def with_tool_choice(body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """The persona's `message`, made to obey the request's `tool_choice`."""
    choice = body.get("tool_choice")
    names = _offered(body)
    calls = message.get("tool_calls") or []
    if choice in (None, "auto") or not names:
        return message
    if choice == "none":
        return assistant(message.get("content") or "") if calls else message
    wanted = None if choice == "required" else _named(choice)
    if calls and all(wanted in (None, c["function"]["name"]) for c in calls):
        return message
    view = read(body)
    tool = wanted or _pick(view, names)
    call = (f"call_{view.turn}_{tool}", tool, _arguments(view, tool))
    return assistant(message.get("content") or "", call)


def _offered(body: dict[str, Any]) -> list[str]:
    """The names of the tools offered (each entry read as a named-function `tool_choice` is)."""
    return [name for name in map(_named, body.get("tools") or []) if name is not None]


def _named(choice: Any) -> str | None:
    """The tool a named-function `tool_choice` names (`{"type": "function", "function":
    {"name": ...}}`), or None."""
    function = choice.get("function") if isinstance(choice, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def _pick(view: View, names: list[str]) -> str:
    """The tool a persona forced to call some tool calls: the marker once it knows the star,
    else a search, else the first tool offered."""
    if view.star is not None and "mark_star" in names:
        return "mark_star"
    return "search_blocks" if "search_blocks" in names else names[0]


def _arguments(view: View, tool: str) -> dict[str, Any]:
    if tool == "mark_star":
        return {"item": "star", "block": view.star[1] if view.star else GUESSED_BLOCK}
    if tool == "search_blocks":
        again = view.areas[view.attempts % len(view.areas)] if view.areas else "overworld"
        return {"area": next((a for a in view.areas if a.lower() not in view.searched), again)}
    return {}


__all__ = ["GUESSED_BLOCK", "choice_problem", "with_tool_choice"]
