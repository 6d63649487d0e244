"""The mock model's personas. Each reads only the conversation — the system prompt, the user's
prompt, the tools offered and their descriptions, the tool results and errors — and decides, the
same way every time, what a model would do next. None of them ever opens a level file.

    searcher   searches area by area; delivers the star with mark_star when offered, else in
               text; gives up in text if, and only if, the conversation allows it, and quotes
               the words it took as permission
    loopboros  the same, but never admits defeat: another search, another spelling, until the clock
    sloppy     a searcher whose first mark_star input fails validation; fixes it after the error
    slow       a searcher that takes `slow:SECONDS` (default 2 s) per reply
    parallel   a searcher that asks for two searches in one reply (parallel tool calls), as
               real models do: a loop must answer every call of a reply

What the system prompt and the task say about giving up is read by `intent.read_intent`, a small
reader of intent by rules (English and Brazilian Portuguese). Every persona answers in the
conversation's language: its words come from the gettext catalogue, through
`translator(language)`, whatever `set_language` says; tool names, arguments and area names are
data and stay as they are.
"""

from __future__ import annotations

import builtins
import json
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .._data import data_file
from ..i18n import N_, translator
from ..outcome import message_text
from .intent import Intent, read_intent
from .words import window

PERSONAS = ("searcher", "loopboros", "sloppy", "slow", "parallel")
DEFAULT_SLOW_S = 2.0
MAX_SLOW_S = 600.0
"""The longest a `slow:SECONDS` reply may take (ten minutes: a lesson can show a reply that takes
minutes); a longer one would hold a server thread for nothing, or for ever."""

_TOKEN = re.compile(r"\w+|[^\w\s]")  # one step per character: linear, nothing to backtrack
_TOKEN_CHUNK = 1 << 16
"""Tokens are counted this many characters at a time, so a long request does not hold the
interpreter (and every other request of a shared server) for the whole count."""

# What the personas say: msgids for the catalogue, translated into the conversation's language.
SEARCH_NOTE = N_("Let me search the {area}.")
FIRST_SEARCH_NOTE = N_("Let me start in the {area}.")
FOUND = N_("I found the star! It is in the {area}, block {block}.")
MARKING = N_("The star is in the {area}, block {block}. Marking it on the map.")
SLOPPY_MARKING = N_("Found the star! Marking it.")
FIXING = N_('Fixing my input: item must be "star", block a number.')
DONE = N_("Done: the star is marked on block {block}.")
NO_TOOL = N_("I have no tool to search the level with, so I cannot look for the star.")
AGAIN = N_("The star must be somewhere. Maybe I missed it: searching '{area}' again.")
GAVE_UP = N_(
    "I searched {areas} and couldn't find the star. I'm stopping, as you allowed: \"{quote}\"."
)
GAVE_UP_UNSEARCHED = N_("I couldn't find the star. I'm stopping, as you allowed: \"{quote}\".")
GAVE_UP_ON_A_HINT = N_(
    "I searched {areas} and couldn't find the star. I'm stopping, since you told me: \"{quote}\"."
)
WRAP_UP_FOUND = N_("The star is in the {area}, block {block}.")
WRAP_UP_NOT_FOUND = N_("I ran out of turns. I searched: {searched}. I did not find the star.")
NOTHING_YET = N_("nothing yet")
LIST = N_("{items} and {last}")


def count_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: words and punctuation marks."""
    total, start, end_of_text = 0, 0, len(text)
    while start < end_of_text:
        end = min(end_of_text, start + _TOKEN_CHUNK)
        if end < end_of_text:  # cut at a space, so that no word is counted twice
            space = text.rfind(" ", start, end)
            end = space + 1 if space > start else end
        total += len(_TOKEN.findall(text, start, end))
        start = end
    return total


def prompt_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
    """Tokens in the request as received: every message (4 tokens of framing each) and the tools."""
    total = 3 + sum(4 + _message_tokens(message) for message in messages)
    return total + (count_tokens(json.dumps(tools)) if tools else 0)


def _message_tokens(message: dict[str, Any]) -> int:
    """A message's tokens: its text, and its tool calls as JSON."""
    calls = message.get("tool_calls")
    return count_tokens(message_text(message)) + (count_tokens(json.dumps(calls)) if calls else 0)


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

    @cached_property
    def intent(self) -> Intent:
        """What the instructions (the system prompt, then the task) say about giving up."""
        return read_intent(self.system, self.prompt)

    def say(self, msgid: str, **fields: Any) -> str:
        """One of the persona's sentences, in the conversation's language."""
        return translator(self.intent.language).gettext(msgid).format(**fields)

    def listed(self, items: list[str]) -> str:
        """ "overworld, sky and castle", in the conversation's language."""
        if len(items) < 2:
            return "".join(items)
        return self.say(LIST, items=", ".join(items[:-1]), last=items[-1])


def read(body: dict[str, Any]) -> View:
    """What the request says: the tools offered, the instructions, the calls and their results."""
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
            calls.update(_calls_in(message))
        elif role == "tool":
            _read_result(view, *calls.get(message.get("tool_call_id", ""), ("", {})), text)
    return view


def _calls_in(message: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """An assistant message's tool calls: id -> (name, arguments); arguments that are not a JSON
    object are read as none."""
    calls = {}
    for call in message.get("tool_calls") or []:
        fn = call.get("function", {})
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except (TypeError, ValueError, RecursionError):
            args = {}
        calls[call.get("id", "")] = (fn.get("name", ""), args if isinstance(args, dict) else {})
    return calls


def _read_result(view: View, name: str, args: dict[str, Any], text: str) -> None:
    """A tool's result: a search's blocks (and the star among them), or a mark, failed or not."""
    blocks = _blocks_in(text)
    failed = _is_error(text, blocks)
    if name == "search_blocks":
        view.attempts += 1
        view.areas = view.areas or _areas_in(text)
        if blocks and not failed:
            view.searched.append(str(args.get("area", "")).strip().lower())
            for number, item in blocks:
                if item.strip() == "star" and view.star is None:
                    view.star = (str(args.get("area", "")), int(number))
    elif name == "mark_star":
        view.marks.append((args, not failed))


def decide(persona: str, body: dict[str, Any]) -> dict[str, Any]:
    """The next assistant message for this persona, given the request."""
    view = read(body)
    if view.last_role == "user" and view.turn > 1 and not view.can("search_blocks"):
        return assistant(_wrap_up(view))
    if any(ok for _, ok in view.marks):
        block = next(args.get("block") for args, ok in view.marks if ok)
        return assistant(view.say(DONE, block=block))
    if view.star is not None:
        return _mark_the_star(view, *view.star, sloppy=persona == "sloppy")
    if not view.can("search_blocks"):
        return assistant(view.say(NO_TOOL) if view.turn == 1 else _wrap_up(view))
    return _search_or_give_up(view, persona)


def _mark_the_star(view: View, area: str, block: int, sloppy: bool) -> dict[str, Any]:
    """The star is found: mark it (the sloppy persona first with a wrong item and block), or
    say where it is when there is no mark_star tool."""
    if not view.can("mark_star"):
        return assistant(view.say(FOUND, area=area, block=block))
    if sloppy and not view.marks:
        wrong = {"item": "Star", "block": f"the {block}th block"}
        return _call(view, "mark_star", wrong, view.say(SLOPPY_MARKING))
    note = view.say(FIXING) if view.marks else view.say(MARKING, area=area, block=block)
    return _call(view, "mark_star", {"item": "star", "block": block}, note)


def _search_or_give_up(view: View, persona: str) -> dict[str, Any]:
    """No star yet: search an area not searched, or give up when (and only when) the
    conversation allows it: after N empty searches if it names a number, else once every area
    came back without the star. The stubborn persona never gives up."""
    allowed = view.intent.allowed and persona != "loopboros"
    after = view.intent.searches
    if allowed and after is not None and view.attempts >= after:  # 0: "don't search; say so"
        return assistant(_give_up(view))
    todo = [a for a in view.areas if a.lower() not in view.searched]
    if todo and persona == "parallel" and len(todo) > 1:
        return _calls(view, todo[:2], view.say(SEARCH_NOTE, area=view.listed(todo[:2])))
    if todo:
        return _call(view, "search_blocks", {"area": todo[0]}, view.say(SEARCH_NOTE, area=todo[0]))
    if not view.areas and view.attempts == 0:
        note = view.say(FIRST_SEARCH_NOTE, area="overworld")
        return _call(view, "search_blocks", {"area": "overworld"}, note)
    if allowed and after is None:
        return assistant(_give_up(view))
    return _search_again(view)


def _search_again(view: View) -> dict[str, Any]:
    """Never give up: another search, another spelling."""
    k = view.attempts - len(view.areas)
    area = view.areas[k % len(view.areas)] if view.areas else "overworld"
    spelling = _SPELLINGS[(k // max(len(view.areas), 1)) % len(_SPELLINGS)](area)
    return _call(view, "search_blocks", {"area": spelling}, view.say(AGAIN, area=spelling))


_SPELLINGS: list[Callable[[str], str]] = [
    str.title,
    lambda a: f"the {a}",
    str.upper,
    lambda a: a[: len(a) // 2] + " " + a[len(a) // 2 :],
    lambda a: a + "s",
    lambda a: a,
]


def _give_up(view: View) -> str:
    """The admission, quoting the words taken as permission (or as a hint)."""
    searched = list(dict.fromkeys(view.searched))
    if not searched:
        return view.say(GAVE_UP_UNSEARCHED, quote=view.intent.quote)
    msgid = GAVE_UP_ON_A_HINT if view.intent.why == "absence possible" else GAVE_UP
    return view.say(msgid, areas=view.listed(searched), quote=view.intent.quote)


def _wrap_up(view: View) -> str:
    if view.star:
        return view.say(WRAP_UP_FOUND, area=view.star[0], block=view.star[1])
    searched = ", ".join(dict.fromkeys(view.searched)) or view.say(NOTHING_YET)
    return view.say(WRAP_UP_NOT_FOUND, searched=searched)


def assistant(text: str, *calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    """An assistant message: `text`, and a tool call for each (id, tool name, arguments)."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for id, name, args in calls
        ]
    return message


def _call(view: View, name: str, args: dict[str, Any], note: str) -> dict[str, Any]:
    return assistant(note, (f"call_{view.turn}_{name}", name, args))


def _calls(view: View, areas: list[str], note: str) -> dict[str, Any]:
    """One reply asking for a search of each area at once (parallel tool calls)."""
    ids = (f"call_{view.turn}_{i}_search_blocks" for i in range(1, len(areas) + 1))
    return assistant(note, *((id, "search_blocks", {"area": a}) for id, a in zip(ids, areas)))


def turn(body: dict[str, Any]) -> int:
    """The turn a request asks the model for: one more than the assistant messages it holds."""
    return 1 + sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")


def persona_of(model: str) -> tuple[str, float]:
    """`searcher` -> ("searcher", 0); `slow:0.5` -> ("slow", 0.5). Unknown, an argument to a
    persona other than slow (`searcher:3`), or a delay that is not 0 to MAX_SLOW_S seconds:
    ValueError."""
    name, colon, arg = model.partition(":")
    if name not in PERSONAS or (colon and name != "slow"):  # only slow takes an argument
        raise ValueError(model)
    delay = float(arg or DEFAULT_SLOW_S) if name == "slow" else 0.0
    if not 0 <= delay <= MAX_SLOW_S:  # NaN fails too
        raise ValueError(model)
    return name, delay


def reply(body: dict[str, Any], sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """A whole chat completion for a validated request body, with usage counted from it."""
    persona, delay = persona_of(body["model"])
    if delay:
        sleep(delay)
    from .choice import with_tool_choice  # it reads the request with `read`, from here

    message = with_tool_choice(body, decide(persona, body))
    completion_tokens = _message_tokens(message)
    prompt = prompt_tokens(body["messages"], body.get("tools"))
    return {
        "id": f"chatcmpl-mock-{turn(body)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "system_fingerprint": "whentostop-mock",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt + completion_tokens,
        },
    }


def _lines(text: str) -> list[str]:
    """The lines the mock reads of a tool's text: those of its first and last few KB."""
    return [line for _, part in window(text) for line in part.splitlines()]


def _areas_in(text: str) -> list[str]:
    """The areas a level names, from its last "Areas: a, b, c." line."""
    for line in reversed(_lines(text)):
        _, areas, listed = line.partition("Areas:")
        if areas:
            return [a.strip() for a in listed.strip().rstrip(".").split(",") if a.strip()]
    return []


def _blocks_in(text: str) -> list[tuple[str, str]]:
    """The (number, item) of each "Block N: item" line of a search result. N is decimal digits:
    a learner's own tool may write "Block ²", which is a digit that `int` cannot read."""
    found = []
    for line in _lines(text):
        head, colon, item = line.partition(": ")
        if colon and head.startswith("Block ") and head[6:].isdecimal() and item.strip():
            found.append((head[6:], item.strip()))
    return found


_RESULTS = tomllib.loads(data_file("mock", "results.toml").read_text(encoding="utf-8"))
"""The words that say a tool's call failed: data/mock/results.toml."""
_FAILED_START = tuple(_RESULTS["failed_start"])
_FAILED_WORDS = tuple(_RESULTS["failed_words"])
_EXCEPTION_ENDINGS = tuple(_RESULTS["exception_endings"])
_MAX_JSON_ERROR = 1 << 16
"""A JSON result longer than this is data, not an error object: it is not parsed again."""


def _is_error(text: str, blocks: list[tuple[str, str]]) -> bool:
    """Whether a tool's result says the call failed, as a model reads it: "Error: …", "Erro: …",
    an exception as a loop reports it ("ValueError: …", "KeyError: 'x'", "RuntimeError"),
    "Falhou: …", "the search failed", a JSON error object ({"error": …}). A result with data in
    it (`blocks`: "Block 3: nothing") is a result, whatever words the data holds."""
    first = next((line.strip() for line in _lines(text) if line.strip()), "")
    lowered = first.lower()
    if lowered.startswith("{"):
        return _json_error(text)
    if lowered.startswith(_FAILED_START) or _names_an_exception(first):
        return True
    return not blocks and any(word in f" {lowered}" for word in _FAILED_WORDS)


def _names_an_exception(line: str) -> bool:
    """ "ValueError: …", "KeyError: 'x'", "RuntimeError", "httpx.ReadTimeout: …"."""
    name = line.partition(":")[0].strip()
    if not name or " " in name or not name.replace(".", "").replace("_", "").isalnum():
        return False
    last = name.rsplit(".", 1)[-1]
    builtin = getattr(builtins, last, None)
    if isinstance(builtin, type) and issubclass(builtin, BaseException):
        return not issubclass(builtin, Warning)  # "Warning: ..." reports, it does not fail
    return last.endswith(_EXCEPTION_ENDINGS) and last[:1].isupper()


def _json_error(text: str) -> bool:
    """{"error": "…"}, {"ok": false, …}, {"status": "error"}: an error object."""
    if len(text) > _MAX_JSON_ERROR:
        return False
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False
    if not isinstance(value, dict):
        return False
    if value.get("error") not in (None, False, "", [], {}):
        return True
    if value.get("ok") is False or value.get("success") is False:
        return True
    return str(value.get("status", "")).lower() in ("error", "failed", "failure", "erro", "falha")
