"""The typed result of a run: how it stopped (`Stop`), what the caller gets (`Run.answer`),
and the whole transcript turn by turn (`Turn`, `ToolCall`)."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from ._numbers import token_count
from ._text import excerpt
from .errors import NoAnswer
from .i18n import DECIMAL_COMMA, N_, _, language, ngettext, say, say_n

if TYPE_CHECKING:
    from .client import Completion


class Stop(StrEnum):
    """The one way a run ended. Only END_TURN and TERMINAL_TOOL carry an answer."""

    END_TURN = "end_turn"
    """The flag: the model replied with no tool call. The answer is its text."""
    TERMINAL_TOOL = "terminal_tool"
    """The warp pipe: a tool in `stop_on` validated and ran. The answer is its input."""
    MAX_TURNS = "max_turns"
    """The clock: the turn limit ran out. No answer; a safety net, treated as a failure."""
    DEADLINE = "deadline"
    """Wall-clock: the run's deadline passed. No answer."""
    BUDGET = "budget"
    """The budget: the next request would take the run past its tokens or dollars. No answer."""


NOT_AN_ANSWER = ("text_tool_call", "echoed_prompt")
"""The notes that make a flag's text no answer: a request for a tool written as text, and words
the model was sent, repeated back. The run still ends on the flag (the loop's rule), without an
answer: `has_answer` is False, `answer` raises `NoAnswer` saying which, `summary()` agrees."""

EXIT_NAMES = {
    Stop.END_TURN: N_("the flag"),
    Stop.TERMINAL_TOOL: N_("the warp pipe"),
    Stop.MAX_TURNS: N_("the clock"),
    Stop.DEADLINE: N_("the deadline"),
    Stop.BUDGET: N_("the budget"),
}
"""Each exit's name in the lesson (English msgids: `exit_name` shows them translated)."""


@dataclass(frozen=True)
class Note:
    """Something the library noticed about one reply, in words a learner can act on.

    Kinds: `"text_tool_call"` (the reply's text is a call to an offered tool, which the server
    did not turn into `tool_calls`), `"empty_reply"` (no text and no tool call), `"cut_off"`
    (the reply hit the length limit, `finish_reason: "length"`), `"after_cut_off"` (a reply
    that follows a cut-off one: it may be only the end of what the model meant to say),
    `"echoed_prompt"` (the reply only repeats words the model was sent: the task, the system
    prompt or the loop's own request).
    """

    kind: str
    text: str
    """What was noticed, in the language in effect when the reply came."""


@dataclass(frozen=True)
class BudgetStop:
    """Which budget stopped a run, and where the next request would have taken it at least."""

    unit: Literal["tokens", "usd"]
    would_reach: float
    """The run's total after the next request, at least: spent so far plus the history that
    request would send again (the last prompt plus the last reply)."""
    limit: float
    price_model: str = ""
    """Whose prices the dollars were counted at (`unit == "usd"`)."""

    def text(self) -> str:
        """ "the next request would take the run to N tokens, over the budget of M" """
        if self.unit == "tokens":
            return say("budget_tokens", n=int(self.would_reach), limit=int(self.limit))
        usd, limit = dollars(self.would_reach), dollars(self.limit)
        return say("budget_usd", usd=usd, limit=limit, model=self.price_model)


def dollars(usd: float) -> str:
    """At least four decimals, more when a small amount needs them: 0.0050, 0.00001, 12.5000
    (0,0050 in a language that writes a decimal comma)."""
    whole, _dot, cents = f"{usd:.8f}".rstrip("0").partition(".")
    point = "," if language() in DECIMAL_COMMA else "."
    return f"{whole}{point}{cents.ljust(4, '0')}"


@dataclass
class ToolCall:
    """One tool call the model asked for, and what came of it."""

    id: str
    name: str
    arguments: str
    """The arguments exactly as the model sent them (a JSON string, maybe broken)."""
    input: dict[str, Any] | None = None
    """The validated input, or None when the arguments did not validate."""
    output: str = ""
    """The text sent back to the model: the tool's output or one error line."""
    ok: bool = False
    """True when the input validated and the body ran without raising."""
    ran: bool = True
    """False when the call was never run (it came after the terminal tool in one reply)."""
    latency_s: float = 0.0

    @property
    def failed(self) -> bool:
        return self.ran and not self.ok


@dataclass
class Turn:
    """One request to the model and everything it caused."""

    index: int
    """1-based: turn 1 is the first request."""
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    """Seconds from sending the request to having the parsed reply (retries included)."""
    message: dict[str, Any]
    """The assistant message as the endpoint returned it."""
    finish_reason: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    retries: list[str] = field(default_factory=list)
    """One line per retried request (429 or 5xx) before this turn's reply; not turns."""
    wrap_up: bool = False
    """True for the opt-in wrap-up request after the clock: not part of the turn limit."""
    cached_tokens: int = 0
    """The part of the prompt the server said it had cached (`usage.prompt_tokens_details.
    cached_tokens`); 0 when it does not say. Hosted APIs bill it at a lower rate."""
    notes: list[Note] = field(default_factory=list)
    """What the library noticed about this reply: a tool call written as text, an empty reply."""

    def __post_init__(self) -> None:
        # counts as `token_count` reads them: whoever built the turn, its cost can be computed
        self.prompt_tokens = token_count(self.prompt_tokens)
        self.completion_tokens = token_count(self.completion_tokens)
        self.cached_tokens = min(token_count(self.cached_tokens), self.prompt_tokens)

    @classmethod
    def of(cls, index: int, completion: Completion, *, wrap_up: bool = False) -> Turn:
        """The turn a parsed reply makes: its message, usage, latency and retries (each field
        of a `Completion` is a field of the turn, the message the same object, not a copy)."""
        shared = {f.name: getattr(completion, f.name) for f in fields(completion)}
        return cls(index=index, wrap_up=wrap_up, **shared)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def truncated(self) -> bool:
        """The endpoint cut the reply short (`finish_reason: "length"`)."""
        return self.finish_reason == "length"

    @property
    def empty(self) -> bool:
        """The model ended its turn with nothing: no text (or only spaces) and no tool call."""
        return not self.message.get("tool_calls") and not self.text.strip()

    @property
    def text(self) -> str:
        return message_text(self.message)

    def noted(self, kind: str) -> bool:
        """Whether a note of this kind was made on the turn."""
        return any(note.kind == kind for note in self.notes)


@dataclass
class Run:
    """What `run_agent` returns: exactly one `stop`, the full transcript, per-turn usage."""

    stop: Stop | None
    """How the run ended; None only on a partial run carried by an `EndpointError`."""
    messages: list[dict[str, Any]]
    turns: list[Turn]
    max_turns: int
    model: str = ""
    stop_on: tuple[str, ...] = ()
    deadline_s: float | None = None
    elapsed_s: float = 0.0
    tools: tuple[str, ...] = ()
    """The names of the tools the run offered the model."""
    wrap_up_turn: Turn | None = None
    """The opt-in wrap-up request (`on_max_turns="wrap_up"`): a best effort, never `answer`."""
    error: str | None = None
    """On a partial run: what broke it."""
    wrap_up_error: str | None = None
    """Why the opt-in wrap-up request failed, if it did (the run still stopped on the clock)."""
    max_tokens_total: int | None = None
    """The run's token budget (prompt + completion, every request), if it had one."""
    max_cost_usd: float | None = None
    """The run's dollar budget, if it had one, counted at `price_model`'s prices."""
    price_model: str | None = None
    """Whose prices a dollar budget was counted at."""
    budget_stop: BudgetStop | None = None
    """On `Stop.BUDGET`: which budget, and where the next request would have taken the run."""
    warnings: list[str] = field(default_factory=list)
    """What the library noticed about the run as a whole, with the likely cause (a server
    that does not parse tool calls, empty replies), in the language in effect during the run."""
    warning_kinds: dict[str, int] = field(default_factory=dict, repr=False)
    """Which of `warnings` says what about one kind of note (kind -> its index): a warning
    that counts (empty replies, cut-off replies) is rewritten as the count grows."""
    started: float = field(default_factory=time.monotonic, repr=False)
    """`time.monotonic()` when the run began: `elapsed_s` and the deadline count from it."""
    _answer: Any = field(default=None, repr=False)

    @classmethod
    def empty(cls, max_turns: int = 0) -> Run:
        """A run with no turns yet: what a view draws before anything ran."""
        return cls(stop=None, messages=[], turns=[], max_turns=max_turns)

    def finish(self, stop: Stop, answer: Any = None) -> Run:
        """End the run with its one `stop` (and the answer, on the flag or the pipe)."""
        self.stop, self._answer = stop, answer
        self.elapsed_s = time.monotonic() - self.started
        return self

    def break_off(self, error: str) -> Run:
        """Mark the run as broken by an endpoint failure: no `stop`, the transcript kept."""
        self.error = error
        self.elapsed_s = time.monotonic() - self.started
        return self

    @property
    def last_message(self) -> dict[str, Any] | None:
        """The last budgeted turn's assistant message: on the clock it is usually a tool call."""
        return self.turns[-1].message if self.turns else None

    @property
    def has_answer(self) -> bool:
        """Whether the run ended with an answer: through the warp pipe, or on the flag with a
        reply that is one. A flag raised by a tool call written as text, or by the model
        repeating words it was sent, is no answer (`not_an_answer` says which)."""
        return self.stop in (Stop.END_TURN, Stop.TERMINAL_TOOL) and self.not_an_answer is None

    @property
    def not_an_answer(self) -> Note | None:
        """On the flag: the note that makes the last reply no answer (`NOT_AN_ANSWER`), if any.
        With `text_tool_calls="accept"` a call written as text was run, so it is never this."""
        if self.stop != Stop.END_TURN or not self.turns:
            return None
        return next((n for n in self.turns[-1].notes if n.kind in NOT_AN_ANSWER), None)

    @property
    def answer(self) -> Any:
        """The reply's text (the flag) or the terminal tool's validated input (the pipe).

        Any other ending raises `NoAnswer`, saying what the model was still asking for — and so
        does a flag whose reply is not an answer (a tool call written as text, an echo).
        """
        if self.has_answer:
            return self._answer
        raise NoAnswer(self.no_answer_reason, run=self)

    @property
    def wrap_up(self) -> str | None:
        """The wrap-up text, if one was asked for. A best effort after the clock, not an answer."""
        return self.wrap_up_turn.text if self.wrap_up_turn else None

    @property
    def exit_name(self) -> str:
        """The exit's name in the lesson, in the language in effect ("the clock")."""
        return _(EXIT_NAMES[self.stop]) if self.stop else _("broken")

    @property
    def still_asking_for(self) -> list[str]:
        """The tools named in the last assistant message (empty if it asked for none)."""
        message = self.last_message or {}
        return [c.get("function", {}).get("name", "?") for c in message.get("tool_calls") or []]

    @property
    def prompt_tokens(self) -> int:
        return sum(t.prompt_tokens for t in self.all_turns)

    @property
    def completion_tokens(self) -> int:
        return sum(t.completion_tokens for t in self.all_turns)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def all_turns(self) -> list[Turn]:
        """The turns the limit counts, plus the wrap-up request, if any: everything that was paid for."""
        return self.turns + ([self.wrap_up_turn] if self.wrap_up_turn else [])

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [call for turn in self.turns for call in turn.tool_calls]

    @property
    def cached_tokens(self) -> int:
        return sum(t.cached_tokens for t in self.all_turns)

    @property
    def notes(self) -> list[Note]:
        """Every turn's notes, in order."""
        return [note for turn in self.all_turns for note in turn.notes]

    @property
    def answer_is_text_tool_call(self) -> bool:
        """The flag was raised by a reply whose text is a tool call the server did not parse:
        the "answer" is a request for a tool, not an answer."""
        return self.ended_on_reply_noted("text_tool_call")

    def ended_on_reply_noted(self, kind: str) -> bool:
        """Whether the run ended on the flag with a reply the library noted as `kind`."""
        return self.stop == Stop.END_TURN and bool(self.turns) and self.turns[-1].noted(kind)

    @property
    def no_answer_reason(self) -> str:
        """Why there is no answer, naming the limit and what the model was still asking for."""
        asking = ", ".join(dict.fromkeys(self.still_asking_for)) or say("asking_nothing")
        last = self.turns[-1] if self.turns else None
        if last is not None and last.truncated and not self.still_asking_for:
            asking = _("nothing more: its last reply was cut off (finish_reason: length)")
        elif last is not None and last.empty:
            asking = _("nothing more: its last reply was empty")
        n = len(self.turns)
        if (refused := self.not_an_answer) is not None:  # on the flag: there is a last turn
            what = say(f"refused_{refused.kind}", text=excerpt(self.turns[-1].text, 120))
            return say_n("no_answer_on_flag", n, n=n, what=what)
        if self.stop == Stop.MAX_TURNS:
            where = _("the run stopped at max_turns={max_turns}").format(max_turns=self.max_turns)
        elif self.stop == Stop.DEADLINE:
            where = say_n("hit_deadline", n, deadline=self.deadline_s or 0, n=n)
        elif self.stop == Stop.BUDGET:
            why = self.budget_stop.text() if self.budget_stop else _("the budget ran out")
            where = say_n("budget_stopped", n, n=n, why=why)
        elif self.has_answer:
            return ""
        else:
            return say_n("no_answer_broken", n, n=n, error=self.error)
        return say("no_answer_asking", where=where, asking=asking)

    def answer_line(self) -> str:
        """What the caller gets, in one line: "answer: '…'" — with a warning when the answer
        follows a reply that was cut off — or `no_answer_reason`. What a notebook prints as the
        answer: a tool call written as text is never shown as one without saying so."""
        if not self.has_answer:
            return self.no_answer_reason
        line = _("answer: {answer!r}").format(answer=self._answer)
        if self.ended_on_reply_noted("after_cut_off"):
            line += " — ⚠ " + say("answer_after_cut_off")
        return line

    def summary(self) -> str:
        """One line: how it ended, in how many turns, with how many tokens — and, when the
        library noticed something (a tool call written as text, empty replies), that too."""
        head = say(
            "summary_head",
            stop=self.stop or "broken",
            exit=self.exit_name,
            turns=len(self.turns),
            max_turns=self.max_turns,
            tokens=self.total_tokens,
        )
        said = _("{head}; answer: {answer!r}") if self.has_answer else _("{head}; no answer")
        line = said.format(head=head, answer=self._answer)
        return line + "".join(f" — ⚠ {w}" for w in self._noticed())

    def _noticed(self) -> list[str]:
        """The short form of the notes, for `summary()`."""
        said, counted = [], Counter(note.kind for note in self.notes)
        if self.answer_is_text_tool_call:
            said.append(say("last_reply_text_call"))
        elif n := counted["text_tool_call"]:
            said.append(say_n("text_calls_seen", n, n=n))
        if (refused := self.not_an_answer) is not None and refused.kind == "echoed_prompt":
            said.append(_("the last reply repeats words the model was sent, not an answer"))
        if self.has_answer and self.ended_on_reply_noted("after_cut_off"):
            said.append(say("answer_after_cut_off"))
        if empty := counted["empty_reply"]:
            said.append(ngettext("{n} empty reply", "{n} empty replies", empty).format(n=empty))
        if cut := counted["cut_off"]:
            said.append(say_n("replies_cut_off", cut, n=cut))
        return said

    def __repr__(self) -> str:
        return f"<Run {self.summary()}>"


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """One entry of an assistant message's `tool_calls`, as the OpenAI protocol writes it."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def message_text(message: dict[str, Any]) -> str:
    """A chat message's text, whether its content is a string or a list of parts (its text
    parts, joined)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""
