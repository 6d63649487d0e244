"""Exercise 1-4.e, the capstone: `castle_caller(model, level)` against every persona, in the
castle and in the castle whose star was taken, and with a slow model.

The cases are data (`data/lesson/1-4.toml`): a persona, a level, and what the caller must return
(`want`). Its settings are read from its first run (max_turns for the task, a deadline a user can
wait for, the terminal tool); each result is compared with `want`, and each run checked to be a
run of the model and the level the caller was given.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ..i18n import _
from ..level import CASTLE, Level, load_level
from ..loop import run_agent
from ..models import mock
from ..outcome import Run, Stop
from . import prompt
from .cases import CountingModel, Runaway, level_named, searched_elsewhere
from .castle import replies
from .content import Case, ExerciseText
from .limits import attempt
from .verdict import (
    ENDED,
    PROGRESS,
    Incorrect,
    Said,
    Verdict,
    a_function,
    correct,
    ended_text,
    filled,
    raised,
    runs_text,
    times_text,
    wrong,
)

MOST_RUNS = 2
"""A caller retries once on the clock: a third run is stopped by the check."""


@dataclass(frozen=True)
class Castle:
    """What the capstone's check knows about the castle: its rooms, its star, the honest runs."""

    rooms: int
    star: int
    longest: int
    """The turns of the longest honest run: the sloppy caller's (a search per room, then one
    rejected call more than the searcher's before the pipe)."""


@cache
def castle() -> Castle:
    level = load_level(CASTLE)
    star = level.star
    assert star is not None
    sloppy = run_agent(
        prompt(), model=mock("sloppy"), tools=level.tools(), max_turns=60, stop_on=["mark_star"]
    )
    return Castle(len(level.areas), star[1], len(sloppy.turns))


def judge(exercise: ExerciseText, fn: Any) -> Verdict:
    a_function(exercise.answer, fn)
    low, high = exercise.settings["deadline_range"]
    chosen: Run | None = None
    for case in exercise.cases:
        PROGRESS.case, PROGRESS.runs, PROGRESS.requests, PROGRESS.stopped = _(case.title), 0, 0, 0
        persona = case.data["persona"]
        if persona == "slow":
            assert chosen is not None and chosen.deadline_s
            persona = f"slow:{chosen.deadline_s / 4:g}"
        level = level_named(case.data["level"])
        got = attempt(fn, CountingModel(persona, MOST_RUNS), level)
        status, shown, runs = _result(got)
        if chosen is None:
            chosen = runs[0]
            _settings(chosen, low, high)
        _played(runs, persona, level)
        _compare(case, status, shown, runs)
    assert chosen is not None
    said = _(exercise.settings["correct"])
    star = Said({"item": "star", "block": castle().star})
    return correct(said, max_turns=chosen.max_turns, deadline=chosen.deadline_s, star=star)


def _result(got: Any) -> tuple[Any, Any, list[Run]]:
    if not got.ok:
        exc = got.raised
        if isinstance(exc, Runaway):
            raise wrong("1-4", "caller_third_run")
        if isinstance(exc, SystemExit):
            raise wrong("1-4", "caller_exited")
        raise Incorrect(_("with {case}, castle_caller raised {kind}: {error}"), **raised(exc))
    value = filled(got.value)
    if not isinstance(value, tuple) or len(value) != 3:
        raise wrong("1-4", "caller_not_a_triple", got=Said(value))
    runs = value[2]
    made = PROGRESS.runs
    listed = isinstance(runs, list) and all(isinstance(r, Run) for r in runs)
    if not listed or not 0 < len(runs) <= max(made, MOST_RUNS):
        raise wrong("1-4", "caller_runs_not_a_list", made=made, got=Said(runs))
    return value[0], value[1], runs


def _settings(run: Run, low: float, high: float) -> None:
    ground = castle()
    if run.deadline_s is None:
        raise wrong("1-4", "caller_no_deadline", low=low, high=high)
    if not low <= run.deadline_s <= high:
        deadline = f"{run.deadline_s:g}"  # code: written as Python writes it, in any language
        raise wrong("1-4", "caller_deadline_out_of_range", deadline=deadline, low=low, high=high)
    # the max_turns accepted: the longest honest run and a margin of one, up to half again
    least, most = ground.longest + 1, ground.longest + ground.longest // 2
    turns = {"max_turns": run.max_turns, "longest": ground.longest}
    if run.max_turns < least:
        raise wrong("1-4", "too_few_turns", rooms=ground.rooms, **turns)
    if run.max_turns > most:
        raise wrong("1-4", "too_many_turns", most=most, **turns)


def _played(runs: list[Run], persona: str, level: Level) -> None:
    """Each run was played by the model and on the level the caller was given."""
    for run in runs:
        if run.model and run.model != persona:
            raise wrong("1-4", "caller_other_model", played=Said(run.model, text=True))
        if searched_elsewhere(run, level):
            raise wrong("1-4", "caller_other_level")


def _compare(case: Case, status: Any, shown: Any, runs: list[Run]) -> None:
    want = case.data["want"]
    if want["status"] == "clock":
        _clock(status, shown, runs)
    elif want["status"] != "answer":
        _deadline(status, shown, runs)
    elif isinstance(shown, Run):
        raise wrong("1-4", "caller_showed_the_run")
    elif want["answer"] == "the star":
        _star(status, shown, runs)
    else:
        _gave_up(status, shown, runs, want["runs"])


def _star(status: Any, shown: Any, runs: list[Run]) -> None:
    """In the castle: the star, through the warp pipe, on the one run."""
    star = {"item": "star", "block": castle().star}
    last = runs[-1]
    if status == "answer" and shown == star and len(runs) == 1:
        return
    if last.stop == Stop.END_TURN and not last.stop_on:
        raise wrong("1-4", "caller_answer_in_text", answer=Said(last._answer, text=True))
    if last.stop == Stop.TERMINAL_TOOL and last._answer != star:
        quoted = {"answer": Said(last._answer), "stop_on": Said(list(last.stop_on))}
        raise wrong("1-4", "caller_pipe_not_star", **quoted)
    if any(r.has_answer for r in runs) and status != "answer":
        piped = any(r.stop == Stop.TERMINAL_TOOL for r in runs)
        ended = _(ENDED[Stop.TERMINAL_TOOL if piped else Stop.END_TURN])
        answer = Said(next(r._answer for r in runs if r.has_answer))
        raise wrong(
            "1-4", "caller_answer_not_reported", ended=ended, answer=answer, status=Said(status)
        )
    quoted = {"star": Said(star), "status": Said(status), "shown": Said(shown)}
    raise wrong("1-4", "caller_star_not_returned", n=runs_text(len(runs)), **quoted)


def _gave_up(status: Any, shown: Any, runs: list[Run], want_runs: int) -> None:
    """In the empty castle: the searcher gives up, in words, on its first run."""
    in_words = status == "answer" and isinstance(shown, str) and runs[-1].stop == Stop.END_TURN
    if in_words and len(runs) == want_runs:
        return
    first = runs[0]
    system = _task(first)[0]
    ended = (
        _("went on until the clock")
        if first.stop == Stop.MAX_TURNS
        else _("did not give up in words on its first run")
    )
    if not system:
        raise wrong("1-4", "caller_no_system_prompt", ended=ended)
    raise wrong("1-4", "caller_prompt_no_give_up", ended=ended, system=Said(system, text=True))


def _clock(status: Any, shown: Any, runs: list[Run]) -> None:
    if status == "answer":
        raise wrong("1-4", "caller_clock_as_answer", shown=Said(shown))
    if len(runs) != 2 or any(r.stop != Stop.MAX_TURNS for r in runs):
        made = PROGRESS.runs
        if made == 2 and len(runs) == 1:
            raise wrong("1-4", "caller_dropped_a_run")
        counted = runs_text(len(runs))
        raise wrong("1-4", "caller_did_not_retry_once", runs=counted, status=Said(status))
    first, second = (_task(r) for r in runs)
    if first == second:
        raise wrong("1-4", "caller_same_task_again", task=Said(first[1], text=True))
    said = {str(m.get("content") or "") for r in runs for m in replies(r.messages)}
    if status != "clock" or not isinstance(shown, str) or not shown.strip() or shown in said:
        what = (
            _(": that is the model's last message (a request for another search), not a reason")
            if isinstance(shown, str) and shown in said
            else ""
        )
        quoted = {"status": Said(status), "shown": Said(shown)}
        raise wrong("1-4", "caller_clock_not_reported", what=what, **quoted)


def _deadline(status: Any, shown: Any, runs: list[Run]) -> None:
    if runs[0].stop != Stop.DEADLINE:
        ended = ended_text(runs[0])
        raise wrong("1-4", "caller_deadline_missed", deadline=runs[0].deadline_s or 0, ended=ended)
    if len(runs) != 1:
        raise wrong("1-4", "caller_retried_after_deadline")
    if status != "deadline" or not isinstance(shown, str) or not shown.strip():
        raise wrong("1-4", "caller_deadline_not_reported", status=Said(status), shown=Said(shown))


def _task(run: Run) -> tuple[str, str]:
    """What a run was asked: its system prompt and its first user message (the task)."""

    def first(role: str) -> str:
        return next((str(m.get("content")) for m in run.messages if m.get("role") == role), "")

    return first("system"), first("user")


def timed_out(seconds: float) -> Incorrect:
    """The verdict on a caller the time limit stopped."""
    if PROGRESS.stopped:
        return wrong("1-4", "caller_did_not_stop", times=times_text(PROGRESS.stopped))
    return wrong("1-4", "caller_timed_out", seconds=seconds, runs=runs_text(PROGRESS.runs))
