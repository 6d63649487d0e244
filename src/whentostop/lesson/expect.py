"""What the prose says a run does, stated in code beside the run — so that the prose stays true
on any model.

    run = run_agent(PROMPT, model=connect("loopboros"), tools=level.tools(), max_turns=10)
    expect(run, Stop.MAX_TURNS)         # the text says: the Loopboros runs to the clock

On the mock the run does what the text says, and `expect` prints nothing. On another model that
does otherwise, it prints one note, in the learner's language: what the text says, what this run
did instead, why a real model may do that, and what to try.

    expect(run, Stop.END_TURN)          # the flag, and its text is the answer
    expect(run, Stop.TERMINAL_TOOL)     # the warp pipe: the answer is the validated input, a dict
    expect(run, Stop.TERMINAL_TOOL, rejected="mark_star")   # ...after a call that failed
    expect_raised(result)               # the loop raised (`result` is what it raised, or returned)

`expect` also reads the outcome of a loop a learner wrote (anything with `stop` and `answer`).
Every expectation checked is kept in `history()`, which the notebook tests read.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from .._text import excerpt
from ..i18n import N_, _
from ..outcome import EXIT_NAMES, Run, Stop
from ..textcalls import find_text_calls
from .castle import LESSON_TOOLS, describe_outcome
from .verdict import turns_text

HISTORY_SIZE = 500


@dataclass(frozen=True)
class Expectation:
    """One expectation checked: what the text states, whether the run bore it out, and the note
    printed when it did not ("" when it did)."""

    stated: str
    """The stop the text states (`"max_turns"`, ...), `"rejected:<tool>"` or `"raised"`."""
    held: bool
    note: str


_history: deque[Expectation] = deque(maxlen=HISTORY_SIZE)

STATED = {
    Stop.END_TURN: N_(
        "The text says this run ends on the flag, with the reply's text as its answer."
    ),
    Stop.TERMINAL_TOOL: N_(
        "The text says this run ends through the warp pipe, with the terminal tool's validated "
        "input — a dict — as its answer."
    ),
    Stop.MAX_TURNS: N_("The text says this run ends on the clock (max_turns), with no answer."),
    Stop.DEADLINE: N_("The text says the deadline (deadline_s) stops this run."),
    Stop.BUDGET: N_("The text says the budget stops this run."),
}


def expect(run: Any, stop: Stop, *, rejected: str | None = None) -> None:
    """Print nothing if `run` ended the way the text says (`stop`, with an answer on the flag;
    with `rejected`, after a call to that tool failed validation); else one note saying what it
    did instead, why a real model may do that, and what to try."""
    stop = Stop(stop)
    held = _ended(run, stop) and (rejected is None or _rejected_first(run, rejected))
    stated = f"rejected:{rejected}" if rejected else stop.value
    if held:
        _history.append(Expectation(stated, True, ""))
        return
    said = (
        _(
            "The text says a {tool} call fails validation first, goes back to the model as an "
            "error, and the loop goes on to {exit}."
        ).format(tool=rejected, exit=_(EXIT_NAMES[stop]))
        if rejected and _ended(run, stop)
        else _(STATED[stop])
    )
    note = _note(said, _did(run, rejected if _ended(run, stop) else None), *_advice(run, stop))
    _history.append(Expectation(stated, False, note))
    print(note)


def expect_raised(result: Any) -> None:
    """Print nothing if `result` is an exception a loop raised; else one note saying what the
    loop returned instead, and why."""
    if isinstance(result, BaseException):
        _history.append(Expectation("raised", True, ""))
        return
    text_call = _text_call(result)
    why = _(
        "The plain loop raises only when a tool call fails validation or names a tool that does "
        "not exist, and this model made no such call."
    )
    if text_call:
        why += " " + _(
            "It wrote its calls as text, so the plain loop took its first reply for the flag."
        )
    note = _note(
        _("The text says the loop raises."),
        _("it returned instead: {outcome}").format(outcome=describe_outcome(result)),
        why,
        _(
            "Try: run the notebook on the mock (unset OPENAI_BASE_URL) to see the raise; "
            "exercise 1-4.a sends such errors back to the model either way."
        ),
    )
    _history.append(Expectation("raised", False, note))
    print(note)


def history() -> list[Expectation]:
    """Every expectation checked in this process (the last `HISTORY_SIZE`), oldest first."""
    return list(_history)


# -- what the run did ---------------------------------------------------------------------------


def _ended(run: Any, stop: Stop) -> bool:
    """Whether `run` ended on `stop` — on the flag and the pipe, with an answer."""
    if isinstance(run, Run):
        if run.stop != stop:
            return False
        return run.has_answer if stop in (Stop.END_TURN, Stop.TERMINAL_TOOL) else True
    ended = _stop_of(run)
    if ended != stop.value:
        return False
    return not (stop == Stop.END_TURN and _text_call(run))


def _stop_of(outcome: Any) -> Any:
    """How a run or a learner's outcome says it ended: "end_turn", ... (a `Stop`'s value)."""
    stop = getattr(outcome, "stop", None)
    return getattr(stop, "value", stop)


def _rejected_first(run: Any, tool: str) -> bool:
    calls = getattr(run, "tool_calls", [])
    return any(c.name == tool and c.failed for c in calls)


def _text_call(outcome: Any) -> bool:
    """Whether a run or a learner's outcome ended on a tool call written as text."""
    if isinstance(outcome, Run):
        return outcome.answer_is_text_tool_call or any(
            n.kind == "text_tool_call" for n in outcome.notes
        )
    stop = _stop_of(outcome)
    answer = getattr(outcome, "answer", None)
    return stop == "end_turn" and bool(find_text_calls(str(answer or ""), LESSON_TOOLS))


def _did(run: Any, rejected: str | None = None) -> str:
    """What the run did, in a few words: how it ended, after how many turns, with what."""
    if not isinstance(run, Run):
        return _("it ended with {outcome}").format(outcome=describe_outcome(run))
    turns = turns_text(len(run.turns))
    if rejected is not None:
        tried = [c for c in run.tool_calls if c.name == rejected]
        if tried:
            return _("its first {tool} call validated, so no call failed").format(tool=rejected)
        return _("it opened the warp pipe without a {tool} call that failed").format(tool=rejected)
    if run.stop is None:
        return _("it broke: {error}").format(error=excerpt(run.error or "", 120))
    if run.stop == Stop.END_TURN:
        return _did_flag(run, turns)
    if run.stop == Stop.TERMINAL_TOOL:
        return _("it ended through the warp pipe after {turns}, with the answer {answer!r}").format(
            turns=turns, answer=run.answer
        )
    if run.stop == Stop.DEADLINE:
        return _("the deadline stopped it after {turns} ({s:.1f} s)").format(
            turns=turns, s=run.elapsed_s
        )
    if run.stop == Stop.BUDGET:
        return _("the budget stopped it after {turns}").format(turns=turns)
    return _did_clock(run, turns)


def _did_flag(run: Run, turns: str) -> str:
    """What a run that ended on the flag did: answered, or wrote a tool call or an echo."""
    last = excerpt(run.turns[-1].text, 90) if run.turns else ""
    refused = run.not_an_answer
    if refused is not None and refused.kind == "text_tool_call":
        did = _(
            "it ended on the flag after {turns}, and its last reply is a tool call written "
            "as text — a request for a tool, not an answer: “{text}”"
        )
    elif refused is not None:
        did = _(
            "it ended on the flag after {turns}, and its last reply only repeats words it "
            "was sent — not an answer: “{text}”"
        )
    else:
        did = _("it ended on the flag after {turns}, with an answer in text: “{text}”")
    return did.format(turns=turns, text=last)


def _did_clock(run: Run, turns: str) -> str:
    """What a run that ran to the clock did, and what its last reply was."""
    did = _("it ran to the clock after {turns}").format(turns=turns)
    asking = ", ".join(dict.fromkeys(run.still_asking_for))
    if asking:
        return did + ", " + _("still asking for {tools}").format(tools=asking)
    if run.turns and run.turns[-1].empty:
        return did + ", " + _("its last reply empty")
    if run.turns and run.turns[-1].truncated:
        return did + ", " + _("its last reply cut off at the length limit")
    return did


# -- why, and what to try -----------------------------------------------------------------------


def _advice(run: Any, stop: Stop) -> tuple[str, str]:
    """(why a real model may do what this run did, what to try), for the stop the text states."""
    return _reply_advice(run) or _stop_advice(run, stop)


def _reply_advice(run: Any) -> tuple[str, str] | None:
    """Advice on the replies themselves, whatever the stop: the learner's loop raised, a tool
    call written as text, words repeated back, empty or cut-off replies that ran to the clock."""
    mine = isinstance(run, Run)
    last = run.turns[-1] if mine and run.turns else None
    if isinstance(run, BaseException):  # a loop of the learner's own raised
        return _(
            "The plain loop raised {kind}: it has no way back from an error, so the exception "
            "ended the run."
        ).format(kind=type(run).__name__), _(
            "Try: run the cell again (a slow or busy model can time out), or on the mock; "
            "run_agent turns such failures into typed errors that keep the run."
        )
    if _text_call(run):
        return _(
            "A small model often writes its tool calls as text, and a server that does not parse "
            "them returns them as text: to the loop, a reply without tool_calls is the flag."
        ), (
            _(
                'Try: text_tool_calls="accept" in run_agent, which runs such calls, labelled; '
                "llama.cpp's llama-server started with --jinja; or a model trained for tool "
                "calling (run.warnings names the likely cause)."
            )
            if mine
            else _(
                "Try: llama.cpp's llama-server started with --jinja, or a model trained for tool "
                "calling."
            )
        )
    if mine and run.not_an_answer is not None:
        return _(
            "Small models sometimes repeat the last message they were sent when they lose the "
            "thread."
        ), _("Try: a larger model.")
    if last is not None and (last.empty or last.truncated) and run.stop == Stop.MAX_TURNS:
        return _(
            "Small models sometimes send empty replies, or ramble until the length limit "
            "(max_tokens) cuts them off; each one costs a turn."
        ), _("Try: a larger max_tokens in connect(), or another model.")
    return None


def _stop_advice(run: Any, stop: Stop) -> tuple[str, str]:
    """Advice on the exit: the run ended otherwise than the text states."""
    mine = isinstance(run, Run)
    ended = _stop_of(run)
    answered = ended in (Stop.END_TURN.value, Stop.TERMINAL_TOOL.value)
    if stop == Stop.DEADLINE and mine:
        per_turn = run.elapsed_s / max(len(run.turns), 1)
        return _(
            "On a real endpoint your model plays the slow persona at its own pace: this run "
            "ended in {s:.1f} s, inside its deadline of {deadline:g} s."
        ).format(s=run.elapsed_s, deadline=run.deadline_s or 0), _(
            "Try: a deadline_s shorter than one of its replies (this run's took about {s:.1f} s "
            "each)."
        ).format(s=per_turn)
    if ended == Stop.DEADLINE.value and mine:
        return _(
            "A real model takes seconds per reply where the mock takes milliseconds: the deadline "
            "of {deadline:g} s came first."
        ).format(deadline=run.deadline_s or 0), _(
            "Try: a larger deadline_s, or a faster model (a larger timeout_s does not help here: "
            "the deadline bounds the whole run)."
        )
    if stop == Stop.BUDGET:
        return _("The run ended before it spent its budget."), _(
            "Try: a smaller max_cost_usd or max_tokens_total."
        )
    if stop == Stop.MAX_TURNS and answered:
        return _(
            "A real model may stop by itself — answer, guess or give up — where the mock's "
            "Loopboros never does: that is the model's choice, and the clock stays the safety "
            "net."
        ), _(
            "Try: level.judge(run) says whether the answer is right; unset OPENAI_BASE_URL to "
            "see the run the text describes, on the mock."
        )
    if stop in (Stop.END_TURN, Stop.TERMINAL_TOOL) and ended == Stop.MAX_TURNS.value:
        return _(
            "The model kept asking for tools until the clock: small models often repeat the "
            "same call."
        ), _(
            "Try: more turns (max_turns), a system prompt that lets it give up, or a model "
            "trained for tool calling."
        )
    if stop == Stop.TERMINAL_TOOL and ended == Stop.END_TURN.value:
        tool = ", ".join(run.stop_on) if mine and run.stop_on else "mark_star"
        return _(
            "The model answered in words instead of calling {tool}: the warp pipe opens only "
            "when the model calls the terminal tool."
        ).format(tool=tool), _(
            'Try: a model trained for tool calling, or tool_choice="required" (1-3, Going further).'
        )
    if ended == stop.value:  # the right exit, but not the run the text describes
        return _(
            "The mock's sloppy persona makes this mistake on purpose; a real model may call "
            "the tool right the first time."
        ), _(
            "Try: unset OPENAI_BASE_URL to see the mistake and the loop's answer to it, on the mock."
        )
    return _(
        "A real model reads the conversation its own way; the mock follows fixed rules, so "
        "every exit happens on cue."
    ), _("Try: unset OPENAI_BASE_URL to see the run the text describes, on the mock.")


def _note(stated: str, did: str, why: str, tried: str) -> str:
    return "⚠ " + _("{stated} This run did not: {did}. {why} {tried}").format(
        stated=stated, did=did, why=why, tried=tried
    )


__all__ = ["Expectation", "expect", "expect_raised", "history"]
