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
from .content import said
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
    Stop.END_TURN: said("shared", "stated_flag"),
    Stop.TERMINAL_TOOL: said("shared", "stated_pipe"),
    Stop.MAX_TURNS: N_("The text says this run ends on the clock (max_turns), with no answer."),
    Stop.DEADLINE: N_("The text says the deadline (deadline_s) stops this run."),
    Stop.BUDGET: N_("The text says the budget stops this run."),
}

DID = {
    Stop.TERMINAL_TOOL: N_(
        "it ended through the warp pipe after {turns}, with the answer {answer!r}"
    ),
    Stop.DEADLINE: N_("the deadline stopped it after {turns} ({s:.1f} s)"),
    Stop.BUDGET: N_("the budget stopped it after {turns}"),
}
"""What a run that the pipe, the deadline or the budget ended did (`_did`)."""


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
    says = (
        _shared("stated_rejected").format(tool=rejected, exit=_(EXIT_NAMES[stop]))
        if rejected and _ended(run, stop)
        else _(STATED[stop])
    )
    note = _note(says, _did(run, rejected if _ended(run, stop) else None), *_advice(run, stop))
    _history.append(Expectation(stated, False, note))
    print(note)


def expect_raised(result: Any) -> None:
    """Print nothing if `result` is an exception a loop raised; else one note saying what the
    loop returned instead, and why."""
    if isinstance(result, BaseException):
        _history.append(Expectation("raised", True, ""))
        return
    why = _shared("why_no_raise")
    if _text_call(result):
        why += " " + _shared("why_no_raise_text_calls")
    note = _note(
        _("The text says the loop raises."),
        _("it returned instead: {outcome}").format(outcome=describe_outcome(result)),
        why,
        _shared("try_raise_on_the_mock"),
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
        answers = stop in (Stop.END_TURN, Stop.TERMINAL_TOOL)
        return run.stop == stop and (not answers or run.has_answer)
    return _stop_of(run) == stop.value and not (stop == Stop.END_TURN and _text_call(run))


def _stop_of(outcome: Any) -> Any:
    """How a run or a learner's outcome says it ended: "end_turn", ... (a `Stop`'s value)."""
    stop = getattr(outcome, "stop", None)
    return getattr(stop, "value", stop)


def _rejected_first(run: Any, tool: str) -> bool:
    return any(c.name == tool and c.failed for c in getattr(run, "tool_calls", []))


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
        if any(c.name == rejected for c in run.tool_calls):
            return _("its first {tool} call validated, so no call failed").format(tool=rejected)
        return _("it opened the warp pipe without a {tool} call that failed").format(tool=rejected)
    if run.stop is None:
        return _("it broke: {error}").format(error=excerpt(run.error or "", 120))
    if run.stop == Stop.END_TURN:
        return _did_flag(run, turns)
    if run.stop in DID:
        return _(DID[run.stop]).format(turns=turns, answer=run._answer, s=run.elapsed_s)
    return _did_clock(run, turns)


def _did_flag(run: Run, turns: str) -> str:
    """What a run that ended on the flag did: answered, or wrote a tool call or an echo."""
    last = excerpt(run.turns[-1].text, 90) if run.turns else ""
    refused = run.not_an_answer
    if refused is not None and refused.kind == "text_tool_call":
        did = _shared("did_flag_text_call")
    elif refused is not None:
        did = _shared("did_flag_echo")
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


Advice = tuple[str, str, dict[str, Any]]
"""Why a real model may do what a run did, and what to try (both templates), and their fields."""


def _advice(run: Any, stop: Stop) -> tuple[str, str]:
    """(why a real model may do what this run did, what to try), for the stop the text states."""
    why, tried, fields = _reply_advice(run) or _stop_advice(run, stop)
    return why.format(**fields), tried.format(**fields)


def _reply_advice(run: Any) -> Advice | None:
    """Advice on the replies themselves, whatever the stop: the learner's loop raised, a tool
    call written as text, words repeated back, empty or cut-off replies that ran to the clock."""
    mine = isinstance(run, Run)
    last = run.turns[-1] if mine and run.turns else None
    if isinstance(run, BaseException):  # a loop of the learner's own raised
        return _shared("why_loop_raised"), _shared("try_loop_raised"), {"kind": type(run).__name__}
    if _text_call(run):
        tried = _shared("try_text_calls_run_agent") if mine else _shared("try_text_calls_own_loop")
        return _shared("why_text_calls"), tried, {}
    if mine and run.not_an_answer is not None:
        return _shared("why_echo"), _shared("try_echo"), {}
    if last is not None and (last.empty or last.truncated) and run.stop == Stop.MAX_TURNS:
        return _shared("why_empty_or_cut_off"), _shared("try_empty_or_cut_off"), {}
    return None


def _stop_advice(run: Any, stop: Stop) -> Advice:
    """Advice on the exit: the run ended otherwise than the text states."""
    mine = isinstance(run, Run)
    ended = _stop_of(run)
    answered = ended in (Stop.END_TURN.value, Stop.TERMINAL_TOOL.value)
    if stop == Stop.DEADLINE and mine:
        per_turn = run.elapsed_s / max(len(run.turns), 1)
        timing = {"s": run.elapsed_s, "deadline": run.deadline_s or 0, "per_turn": per_turn}
        return _shared("why_deadline_not_reached"), _shared("try_deadline_not_reached"), timing
    if ended == Stop.DEADLINE.value and mine:
        deadline = {"deadline": run.deadline_s or 0}
        return _shared("why_deadline_came_first"), _shared("try_deadline_came_first"), deadline
    if stop == Stop.BUDGET:
        return _shared("why_budget_not_spent"), _shared("try_budget_not_spent"), {}
    if stop == Stop.MAX_TURNS and answered:
        return _shared("why_model_stopped_itself"), _shared("try_model_stopped_itself"), {}
    if stop in (Stop.END_TURN, Stop.TERMINAL_TOOL) and ended == Stop.MAX_TURNS.value:
        return _shared("why_kept_asking"), _shared("try_kept_asking"), {}
    if stop == Stop.TERMINAL_TOOL and ended == Stop.END_TURN.value:
        tool = {"tool": ", ".join(run.stop_on) if mine and run.stop_on else "mark_star"}
        return _shared("why_answered_in_words"), _shared("try_answered_in_words"), tool
    if ended == stop.value:  # the right exit, but not the run the text describes
        return _shared("why_sloppy_persona"), _shared("try_sloppy_persona"), {}
    return _shared("why_real_model"), _shared("try_real_model"), {}


def _shared(name: str) -> str:
    """What `data/lesson/shared.toml` says at length under `name`, in the language in effect."""
    return _(said("shared", name))


def _note(stated: str, did: str, why: str, tried: str) -> str:
    return "⚠ " + _("{stated} This run did not: {did}. {why} {tried}").format(
        stated=stated, did=did, why=why, tried=tried
    )
