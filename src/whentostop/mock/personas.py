"""The mock model's personas. Each reads only the conversation — the system prompt, the user's
prompt, the tools offered and their descriptions, the tool results and errors — and decides, the
same way every time, what a model would do next. None of them ever opens a level file.

    searcher   searches area by area; delivers the star with mark_star when offered, else in
               text; gives up in text if, and only if, the system prompt allows it
    loopboros  the same, but never admits defeat: another search, another spelling, until the clock
    sloppy     a searcher whose first mark_star input fails validation; fixes it after the error
    slow       a searcher that takes `slow:SECONDS` (default 2 s) per reply
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..outcome import message_text

PERSONAS = ("searcher", "loopboros", "sloppy", "slow")
DEFAULT_SLOW_S = 2.0

_TOKEN = re.compile(r"\w+|[^\w\s]")
_AREAS = re.compile(r"Areas:\s*([^\n]+?)\.?\s*$", re.MULTILINE)
_BLOCK = re.compile(r"^Block (\d+): (.+)$", re.MULTILINE)
_NEGATED = re.compile(r"\b(never|don'?t|do not|must not|mustn'?t)\b[^.]{0,30}\b(give up|stop|quit)")
_MAY_GIVE_UP = re.compile(
    r"\b(give up|couldn'?t find|could not find|can'?t find|cannot find|not find it|"
    r"unable to find|stop searching|admit)\b",
    re.IGNORECASE,
)


def count_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: words and punctuation marks."""
    return len(_TOKEN.findall(text))


def prompt_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
    """Tokens in the request as received: every message (4 tokens of framing each) and the tools."""
    total = 3
    for message in messages:
        total += 4 + count_tokens(message_text(message))
        if message.get("tool_calls"):
            total += count_tokens(json.dumps(message["tool_calls"]))
    if tools:
        total += count_tokens(json.dumps(tools))
    return total


@dataclass
class View:
    """What a model can know: read from the request, nothing else."""

    system: str = ""
    prompt: str = ""
    tool_names: list[str] = field(default_factory=list)
    areas: list[str] = field(default_factory=list)
    searched: list[str] = field(default_factory=list)
    """Areas whose search came back with blocks (as the model spelled them)."""
    attempts: int = 0
    """search_blocks calls so far, ok or not."""
    star: tuple[str, int] | None = None
    marks: list[tuple[dict[str, Any], bool]] = field(default_factory=list)
    turn: int = 1
    tool_choice: Any = None
    last_role: str = "user"

    def can(self, name: str) -> bool:
        """Whether the request offers the tool `name` and allows calling tools at all."""
        return name in self.tool_names and self.tool_choice != "none"

    @property
    def may_give_up(self) -> bool:
        return bool(_MAY_GIVE_UP.search(self.system)) and not _NEGATED.search(self.system.lower())


def read(body: dict[str, Any]) -> View:
    view = View(tool_choice=body.get("tool_choice"))
    for entry in body.get("tools") or []:
        fn = entry.get("function", {}) if isinstance(entry, dict) else {}
        name = fn.get("name")
        if isinstance(name, str):
            view.tool_names.append(name)
            if name == "search_blocks":
                view.areas = _areas_in(str(fn.get("description", ""))) or view.areas
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in body.get("messages", []):
        role = message.get("role")
        view.last_role = role or view.last_role
        text = message_text(message)
        if role in ("system", "developer"):
            view.system += text + "\n"
        elif role == "user" and not view.prompt:
            view.prompt = text
        elif role == "assistant":
            view.turn += 1
            for call in message.get("tool_calls") or []:
                fn = call.get("function", {})
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except (TypeError, ValueError):
                    args = {}
                calls[call.get("id", "")] = (fn.get("name", ""), args if isinstance(args, dict) else {})
        elif role == "tool":
            name, args = calls.get(message.get("tool_call_id", ""), ("", {}))
            failed = text.lstrip().lower().startswith("error")
            if name == "search_blocks":
                view.attempts += 1
                view.areas = view.areas or _areas_in(text)
                blocks = _BLOCK.findall(text)
                if blocks and not failed:
                    view.searched.append(str(args.get("area", "")).strip().lower())
                    for number, item in blocks:
                        if item.strip() == "star" and view.star is None:
                            view.star = (str(args.get("area", "")), int(number))
            elif name == "mark_star":
                view.marks.append((args, not failed))
    return view


def decide(persona: str, body: dict[str, Any]) -> dict[str, Any]:
    """The next assistant message for this persona, given the request."""
    view = read(body)
    sloppy = persona == "sloppy"
    stubborn = persona == "loopboros"

    if view.last_role == "user" and view.turn > 1 and not view.can("search_blocks"):
        return _say(_wrap_up(view))
    if any(ok for _, ok in view.marks):
        block = next(args.get("block") for args, ok in view.marks if ok)
        return _say(f"Done: the star is marked on block {block}.")
    if view.star is not None:
        area, block = view.star
        if view.can("mark_star"):
            if sloppy and not view.marks:
                return _call(view, "mark_star", {"item": "Star", "block": f"the {block}th block"},
                             "Found the star! Marking it.")
            note = "Fixing my input: item must be \"star\", block a number." if view.marks else \
                f"The star is in the {area}, block {block}. Marking it on the map."
            return _call(view, "mark_star", {"item": "star", "block": block}, note)
        return _say(f"I found the star! It is in the {area}, block {block}.")
    if not view.can("search_blocks"):
        if view.turn == 1:
            return _say("I have no tool to search the level with, so I cannot look for the star.")
        return _say(_wrap_up(view))
    todo = [a for a in view.areas if a.lower() not in view.searched]
    if todo:
        area = todo[0]
        return _call(view, "search_blocks", {"area": area}, f"Let me search the {area}.")
    if not view.areas and view.attempts == 0:
        return _call(view, "search_blocks", {"area": "overworld"}, "Let me start in the overworld.")
    if view.may_give_up and not stubborn:
        where = ", ".join(view.areas) or "every area"
        return _say(f"I searched {where} and couldn't find the star. It does not seem to be in this level.")
    # Never give up: another search, another spelling.
    k = view.attempts - len(view.areas)
    area = view.areas[k % len(view.areas)] if view.areas else "overworld"
    spelling = _SPELLINGS[(k // max(len(view.areas), 1)) % len(_SPELLINGS)](area)
    return _call(view, "search_blocks", {"area": spelling},
                 f"The star must be somewhere. Maybe I missed it: searching {spelling!r} again.")


_SPELLINGS: list[Callable[[str], str]] = [
    str.title,
    lambda a: f"the {a}",
    str.upper,
    lambda a: a[: len(a) // 2] + " " + a[len(a) // 2 :],
    lambda a: a + "s",
    lambda a: a,
]


def _wrap_up(view: View) -> str:
    if view.star:
        return f"The star is in the {view.star[0]}, block {view.star[1]}."
    searched = ", ".join(dict.fromkeys(view.searched)) or "nothing yet"
    return f"I ran out of turns. I searched: {searched}. I did not find the star."


def _say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def _call(view: View, name: str, args: dict[str, Any], note: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": note,
        "tool_calls": [{
            "id": f"call_{view.turn}_{name}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }],
    }


def persona_of(model: str) -> tuple[str, float]:
    """`searcher` -> ("searcher", 0); `slow:0.5` -> ("slow", 0.5). Unknown: ValueError."""
    name, _, arg = model.partition(":")
    if name not in PERSONAS:
        raise ValueError(model)
    delay = 0.0
    if name == "slow":
        delay = float(arg) if arg else DEFAULT_SLOW_S
        if not delay >= 0:
            raise ValueError(model)
    return name, delay


def reply(body: dict[str, Any], sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """A whole chat completion for a validated request body, with usage counted from it."""
    persona, delay = persona_of(body["model"])
    if delay:
        sleep(delay)
    message = decide(persona, body)
    completion_tokens = count_tokens(message.get("content") or "")
    if message.get("tool_calls"):
        completion_tokens += count_tokens(json.dumps(message["tool_calls"]))
    prompt = prompt_tokens(body["messages"], body.get("tools"))
    view_turn = 1 + sum(1 for m in body["messages"] if m.get("role") == "assistant")
    return {
        "id": f"chatcmpl-mock-{view_turn}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "system_fingerprint": "whentostop-mock",
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
        }],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt + completion_tokens,
        },
    }


def _areas_in(text: str) -> list[str]:
    found = _AREAS.findall(text)
    return [a.strip() for a in found[-1].split(",") if a.strip()] if found else []
