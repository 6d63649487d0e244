"""The named judges an exercise's data file points to (`judge = "..."`).

Each takes the exercise (its data: cases, aspects, settings) and the learner's answer, and returns
a `Verdict` ("Correct" and what the answer showed) or raises `Incorrect` for the first case the
answer got wrong, naming that case, and a cause only once it is checked. A function's answer is
called on every case, beside the solution (`data/lesson/solutions/`) on the same input; a `Run`
is compared with the solution's run, aspect by aspect.
"""

from __future__ import annotations

import contextlib
import copy
import json
import operator
import re
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from ..errors import NoAnswer
from ..i18n import N_, _, language, ngettext, using
from ..level import SHIPPED, load_level
from ..loop import run_agent
from ..mock.intent import WHY, Intent, read_intent
from ..models import is_persona, mock
from ..outcome import Run, Stop, tool_call
from ..tools import Tool
from ..usage import cumulative_tokens
from . import capstone, give_up, loopcheck, prompt
from .cases import case_run, case_tools, searched_elsewhere
from .castle import exit_by_last_message, maybe_json, replies
from .content import SHARED, Case, ExerciseText, notebook_data, said, translate_code
from .limits import Ran, attempt
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
    kind_of,
    names_in,
    raised,
    turns_text,
    wrong,
)

PERSONA_NAMES = {
    "searcher": N_("the searcher"),
    "loopboros": N_("the Loopboros"),
    "sloppy": N_("the sloppy caller"),
    "slow": N_("a slow model"),
    "parallel": N_("a model that searches two areas at a time"),
}
GIVE_UP_EXAMPLES = (
    N_("If you can't find the star, say so."),
    N_("You may give up after searching every area."),
)
"""Two wordings the mock understands, offered when it did not understand a learner's own."""


def _persona(run: Run) -> str | None:
    return run.model.partition(":")[0] if is_persona(run.model) else None


def _cases(exercise: ExerciseText) -> Iterator[Case]:
    """The exercise's cases, each named in `PROGRESS` while it is tried (`Incorrect`'s `case`)."""
    for case in exercise.cases:
        PROGRESS.case = _(case.title)
        yield case


# -- the solution, run beside the answer ---------------------------------------------------------


@cache
def reference(exercise: ExerciseText, lang: str) -> Any:
    """The solution's answer (a value, or a function), made once per language (`lang`)."""
    with using(lang):
        # what a notebook's first cells give a solution: the lesson's words in the language in
        # effect, and `connect` bound to the in-process mock whatever the configuration says
        namespace = {
            "NoAnswer": NoAnswer,
            "Stop": Stop,
            "run_agent": run_agent,
            "load_level": load_level,
            "connect": mock,
            "PROMPT": prompt(),
            "GIVE_UP": give_up(),
        }
        exec(translate_code(exercise.solution, _), namespace)
    return namespace[exercise.answer]


@cache
def _reference_result(exercise: ExerciseText, lang: str, index: int) -> Ran:
    return attempt(reference(exercise, lang), *_inputs(exercise, exercise.cases[index]))


def _inputs(exercise: ExerciseText, case: Case) -> tuple[Any, ...]:
    """What a function answer is called with on one case (a fresh copy each time)."""
    if exercise.takes == "run":
        return (case_run(case.data["run"]),)
    if exercise.takes == "messages":
        if "messages" in case.data:
            messages = json.loads(case.data["messages"])
        else:
            messages = case_run(case.data["run"]).messages
        return (messages, tuple(case.get("stop_on", ())))
    raise ValueError(f"{exercise.id}: no inputs for takes={exercise.takes!r}")


def _tried(exercise: ExerciseText, fn: Any) -> Iterator[tuple[Any, Ran, Ran]]:
    """Each case (named in `PROGRESS`), its inputs, what the solution gave on them and what `fn` gave."""
    a_function(exercise.answer, fn)
    for index, case in enumerate(_cases(exercise)):
        inputs = _inputs(exercise, case)
        want = _reference_result(exercise, language(), index)
        if want.ok:  # else the solution itself raised: this case says nothing about the answer
            yield inputs, want, attempt(fn, *copy.deepcopy(inputs))


def _raised(called: Ran, escaped: str = "") -> Incorrect:
    """The verdict on learner code that raised: the case it raised on, and what it raised."""
    exc = called.raised
    assert exc is not None
    if isinstance(exc, NoAnswer) and escaped:
        return Incorrect(_("with {case}, {escaped}"), escaped=_(escaped))
    if isinstance(exc, SystemExit):
        return wrong("shared", "called_sys_exit")
    if not isinstance(exc, Exception):
        return wrong("shared", "raised_base_exception", kind=kind_of(exc))
    return Incorrect(_("with {case}, your code raised {kind}: {error}"), **raised(exc))


# -- functions: called on every case beside the solution -----------------------------------------


def same(exercise: ExerciseText, fn: Any) -> Verdict:
    """A function of a run (or of messages): on every case, the same value and type as the
    solution's."""
    code = getattr(fn, "__code__", None)  # not a function: _tried says so
    forbidden = set(exercise.settings.get("forbidden", ())) & (names_in(code) if code else set())
    if forbidden:
        raise wrong("shared", "reads_the_exit_names", names=", ".join(sorted(forbidden)))
    for inputs, want, got in _tried(exercise, fn):
        if not got.ok:
            raise _raised(got, exercise.settings.get("escaped", ""))
        if not _equal(filled(got.value), want.value):
            raise _different(inputs[0], got.value, want.value)
    return correct(_(exercise.settings["correct"]))


def _equal(got: Any, want: Any) -> bool:
    """Equal, and of the same kind (7 is not "7", nor 7.0, nor True)."""
    try:
        return _kind(got) is _kind(want) and bool(got == want)
    except Exception:  # noqa: BLE001 — a learner's __eq__ may raise anything
        return False


def _kind(value: Any) -> type:
    """What `_equal` holds the same: `str` for any text, `int` for any whole number but a bool,
    else the value's own type."""
    if isinstance(value, str):
        return str
    return int if isinstance(value, int) and not isinstance(value, bool) else type(value)


def _different(first: Any, got: Any, want: Any) -> Incorrect:
    """Why the answer's value differs from the solution's on this case: a cause that is checked
    (the run's last message, the text of a number, the Stop value), else the two values."""
    run = first if isinstance(first, Run) else None
    why = _cause(run, got, want) or _("with {case}, your function returned {got}; expected {want}.")
    ended = {"ended": ended_text(run)} if run is not None else {}
    return Incorrect(why, got=Said(got), want=Said(want), **ended)


def _cause(run: Run | None, got: Any, want: Any) -> str | None:
    """The sentence that names the mistake, when it is one the checks know."""
    if run is not None and want is None and isinstance(got, str):
        cause = _cause_of_a_text(run, got)
    else:
        cause = _cause_of_a_number(got, want) if _kind(want) is int else None
    if cause is not None:
        return cause
    if run is not None and isinstance(got, str) and run.stop is not None and got == run.stop.value:
        return _(said("shared", "returned_the_stop_value"))
    if isinstance(want, dict) and isinstance(got, str):
        return _(said("shared", "returned_the_pipe_answer_as_text"))
    return None


def _cause_of_a_text(run: Run, got: str) -> str | None:
    """A function that should return None (no answer) returned a text the run holds instead."""
    if got and got in ((run.last_message or {}).get("content"), run.wrap_up):
        return _(said("shared", "returned_the_last_message"))
    if got == run.no_answer_reason:
        return _(said("shared", "returned_the_no_answer_reason"))
    return None


def _cause_of_a_number(got: Any, want: int) -> str | None:
    """A function that should return a block's number returned it as text, a float or a match."""
    if isinstance(got, str) and got.strip().isdigit():
        return _(said("shared", "returned_the_number_as_text"))
    if isinstance(got, float) and got == want:
        return _("with {case}, you returned {got}, a float: return the block as an int.")
    if isinstance(got, re.Match):
        return _(said("shared", "returned_the_match_object"))
    return None


def pair(exercise: ExerciseText, fn: Any) -> Verdict:
    """A function of (messages, stop_on) that returns (stop, answer): on every case, the pair the
    solution returns."""
    for _given, want, got in _tried(exercise, fn):
        exc = got.raised
        if isinstance(exc, NameError) and re.search(r"\b(true|false|null)\b", str(exc)):
            raise wrong("1-4", "recipe_json_not_python", error=Said(exc, text=True))
        if not got.ok:
            raise _raised(got)
        value = filled(got.value)
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            raise wrong("1-4", "recipe_not_a_pair", got=Said(value))
        stop, answer = getattr(value[0], "value", value[0]), value[1]
        want_stop, want_answer = want.value
        if stop != want_stop and stop not in ("end_turn", "terminal_tool", "max_turns"):
            raise wrong("1-4", "recipe_unknown_stop", got=Said(stop), want=Said(want_stop))
        if stop == want_stop and isinstance(answer, str) and isinstance(want_answer, dict):
            raise wrong("1-4", "recipe_answer_not_parsed", got=Said(answer))
        if stop != want_stop or not _equal(answer, want_answer):
            quoted = {"want": Said((want_stop, want_answer)), "got": Said((stop, answer))}
            raise wrong("1-4", "recipe_said_otherwise", **quoted)
    return correct(_(exercise.settings["correct"]))


# -- 1-4.a: one tool call, run or turned into an error line --------------------------------------

_FAILURE_WORDS = re.compile("|".join(notebook_data(SHARED)["failure_words"]), re.IGNORECASE)
"""What an error line says (`data/lesson/shared.toml`'s `failure_words`): an output that tells
a reader the call failed (in English or Portuguese) has one, or an exception's name, in its first
200 characters."""


def tool_result(exercise: ExerciseText, fn: Any) -> Verdict:
    """`run_call(call, tools)` on every case beside the solution's: the same `ok` and validated
    input; on a success the tool's output as text; on a failure `(False, None, line)` with a line
    that reads as an error and carries the exception's message."""
    a_function(exercise.answer, fn)
    solution = reference(exercise, language())
    for case in _cases(exercise):
        call = _call_of(case)
        want = attempt(solution, copy.deepcopy(call), _tools_of(case))
        got = attempt(fn, copy.deepcopy(call), _tools_of(case))
        if not want.ok:  # the solution lets it through (sys.exit): so must run_call
            if got.ok:
                raise wrong("1-4", "run_call_caught_base_exception", kind=kind_of(want.raised))
            continue
        if not got.ok:
            raise wrong("1-4", "run_call_raised", **raised(got.raised))
        _one_result(case, call, filled(got.value), want.value)
    return correct(_(exercise.settings["correct"]))


def _call_of(case: Case) -> dict[str, Any]:
    spec = case.data["call"]
    text = spec.get("arguments_text", json.dumps(spec.get("arguments", {})))
    return tool_call("call_check", spec["name"], text)


def _tools_of(case: Case) -> list[Tool]:
    how, name = case.get("tool"), case.data["call"]["name"]
    return case_tools(case.get("level", "1-2"), (), {name: how} if how else None)


def _one_result(case: Case, call: dict[str, Any], got: Any, want: tuple[bool, Any, str]) -> None:
    if not isinstance(got, tuple) or len(got) != 3:
        raise wrong("1-4", "run_call_not_a_triple", got=Said(got))
    ok, data, output = got
    want_ok, want_data, want_output = want
    if ok is want_ok and want_ok:
        _ran(call, data, output, want_data, want_output)
    elif ok is want_ok:
        _failed(case, data, output)
    elif want_ok:
        raise wrong("1-4", "run_call_said_it_failed", ok=Said(ok), output=Said(output))
    else:
        failure = _(case.get("failure", "the call failed"))
        raise wrong("1-4", "run_call_ok_not_false", failure=failure, ok=Said(ok))


def _ran(call: dict[str, Any], data: Any, output: Any, want_data: Any, want_output: str) -> None:
    """A call that validated and ran: its output is text, its data the validated input."""
    if not isinstance(output, str):
        raise wrong("1-4", "run_call_output_not_text", kind=kind_of(output), got=Said(output))
    if not _equal(data, want_data):
        sent = call["function"]["arguments"]
        as_sent = data in (sent, maybe_json(sent))
        cause = _("the arguments as the model sent them") if as_sent else _("something else")
        quoted = {"want": Said(want_data), "got": Said(data)}
        raise wrong("1-4", "run_call_data_not_validated", cause=cause, **quoted)
    if output != want_output:
        raise wrong("1-4", "run_call_other_output", want=Said(want_output), got=Said(output))


def _failed(case: Case, data: Any, output: Any) -> None:
    """A call that failed: no data, and an output that tells the model what went wrong."""
    if data is not None:
        raise wrong("1-4", "run_call_data_on_failure", got=Said(data))
    if not isinstance(output, str) or not output.strip():
        raise wrong("1-4", "run_call_no_error_line", got=Said(output))
    if not _FAILURE_WORDS.search(output[:200]):
        raise wrong("1-4", "run_call_error_not_said", got=Said(output))
    message = _failure_message(case)
    if message and message[:40] not in output:
        raise wrong("1-4", "run_call_error_without_message", got=Said(output))


def _failure_message(case: Case) -> str:
    """The message of the exception this call raises (what the error line must carry), or ""."""
    call = _call_of(case)["function"]
    tool = {t.name: t for t in _tools_of(case)}.get(call["name"])
    if tool is None:
        return ""
    try:
        tool.fn(**dict(tool.validate(call["arguments"])))
    except Exception as exc:  # noqa: BLE001 — its message is what we want
        return str(exc)
    return ""


# -- Runs: compared with the solution's run, aspect by aspect ------------------------------------


def run(exercise: ExerciseText, answer: Any) -> Verdict:
    """A `Run` the learner made, compared with the solution's run on each aspect the data file
    lists, in order; "Correct" says what the run did, in the words of the exercise's `correct`."""
    _a_run(exercise.answer, answer)
    want: Run = reference(exercise, language())
    for aspect in exercise.aspects:
        ASPECTS[aspect](exercise, answer, want)
    guess, guessed = exit_by_last_message(answer.messages, answer.stop_on)
    return correct(
        _(exercise.settings["correct"]),
        turns=turns_text(len(answer.turns)),
        ended=ended_text(answer),
        answer=Said(answer._answer),
        asking=Said(", ".join(answer.still_asking_for), text=True),
        guess=Said(guess),
        guessed=Said(guessed),
    )


def _a_run(name: str, answer: Any) -> None:
    if isinstance(answer, Run):
        return
    if isinstance(answer, tuple) and len(answer) == 1 and isinstance(answer[0], Run):
        raise wrong("shared", "run_in_a_tuple", name=name)
    raise wrong("shared", "not_a_run", name=name, kind=kind_of(answer), value=Said(answer))


def made_by_run_agent(exercise: ExerciseText, got: Run, want: Run) -> None:
    """A run as run_agent left it: turns that are the conversation's replies, and a stop that
    agrees with them. (A run edited or built by hand is not a run of the task.)"""
    if _turns_are_the_replies(got) and _stop_agrees(got):
        return
    stop = Said(got.stop.value if got.stop else None)
    turns = turns_text(len(got.turns))
    raise wrong("shared", "run_not_as_made", stop=stop, turns=turns, max_turns=Said(got.max_turns))


def _turns_are_the_replies(got: Run) -> bool:
    """The run's turns are its conversation's replies (the wrap-up's aside), made by a model."""
    sent = replies(got.messages)
    if got.wrap_up_turn is not None and sent:
        sent = sent[:-1]
    return (
        bool(got.turns and got.model)
        and len(sent) == len(got.turns)
        and all(m == t.message for m, t in zip(sent, got.turns))
    )


def _stop_agrees(got: Run) -> bool:
    """How the run says it ended agrees with its turns and its answer."""
    if got.stop == Stop.MAX_TURNS:
        return len(got.turns) == got.max_turns and got._answer is None
    if got.stop in (Stop.DEADLINE, Stop.BUDGET):
        return got._answer is None
    if got.stop == Stop.END_TURN:
        last = got.turns[-1]
        return not last.message.get("tool_calls") and got._answer == last.text
    if got.stop == Stop.TERMINAL_TOOL:
        return any(
            c.ok and c.name in got.stop_on and c.input == got._answer for c in got.tool_calls
        )
    return True


def level(exercise: ExerciseText, got: Run, want: Run) -> None:
    name = exercise.settings["level"]
    if searched_elsewhere(got, load_level(name)):
        seen = next((s for s in SHIPPED if not searched_elsewhere(got, load_level(s))), None)
        which = _(" (level {name})").format(name=seen) if seen else ""
        raise wrong("shared", "run_on_another_level", which=which, level=name)


def persona(exercise: ExerciseText, got: Run, want: Run) -> None:
    wanted, played = _persona(want), _persona(got)
    if played is None or wanted is None or played == wanted:
        return
    raise Incorrect(
        _('this run\'s model is {played}; the task asks for {wanted}: `connect("{persona}")`.'),
        played=_(PERSONA_NAMES.get(played, played)),
        wanted=_(PERSONA_NAMES.get(wanted, wanted)),
        persona=wanted,
    )


def tools(exercise: ExerciseText, got: Run, want: Run) -> None:
    offered = set(got.tools) or {c.name for c in got.tool_calls}
    wanted = set(want.tools)
    missing, extra = sorted(wanted - offered), sorted(offered - wanted)
    if missing:
        raise wrong("shared", "run_did_not_offer", missing=", ".join(missing))
    if extra:
        named = {"extra": ", ".join(extra), "wanted": ", ".join(sorted(wanted))}
        raise wrong("shared", "run_offered_extra_tools", first=sorted(wanted)[0], **named)


def stop_on(exercise: ExerciseText, got: Run, want: Run) -> None:
    if tuple(got.stop_on) == tuple(want.stop_on):
        return
    wanted = ", ".join(want.stop_on)
    if not got.stop_on:
        marked = any(c.name == "mark_star" and c.ok for c in got.tool_calls)
        if got.stop == Stop.END_TURN and marked:
            quoted = Said(got._answer, text=True)
            raise wrong("shared", "pipe_not_opened_after_the_star", answer=quoted, tool=wanted)
        raise wrong("shared", "run_without_stop_on", tool=wanted)
    named = {"got": Said(list(got.stop_on)), "names": ", ".join(got.stop_on), "tool": wanted}
    if got.stop == Stop.TERMINAL_TOOL:  # through the wrong pipe: the verdict quotes its answer
        raise wrong("shared", "stop_on_another_tool_answered", answer=Said(got._answer), **named)
    raise wrong("shared", "stop_on_another_tool", **named)


def exit(exercise: ExerciseText, got: Run, want: Run) -> None:
    if got.stop == want.stop:
        return
    ran = {  # the fields of every sentence below (each uses those it names)
        "ended": ended_text(got),
        "turns": turns_text(len(got.turns)),
        "wanted": _(ENDED[want.stop]) if want.stop else "",
        "needed": turns_text(len(want.turns)),
        "max_turns": got.max_turns,
    }
    if want.has_answer and got.stop == Stop.MAX_TURNS and len(want.turns) > got.max_turns:
        wrap_up = _(" (the wrap-up text after it is not an answer)") if got.wrap_up_turn else ""
        raise wrong("shared", "clock_too_few_turns", wrap_up=wrap_up, **ran)
    if got.stop == Stop.DEADLINE:
        raise wrong("shared", "deadline_too_short", deadline=Said(got.deadline_s), **ran)
    if got.stop == Stop.BUDGET:
        why = got.budget_stop.text() if got.budget_stop else ""
        raise wrong("shared", "stopped_by_a_budget", why=why, **ran)
    if want.stop == Stop.MAX_TURNS:
        raise wrong("shared", "not_the_clock", **ran)
    raise wrong("shared", "ended_otherwise", **ran)


def turns(exercise: ExerciseText, got: Run, want: Run) -> None:
    if len(got.turns) == len(want.turns):
        return
    wrap_up = _(" (a wrap-up request after the clock is not a turn)") if got.wrap_up_turn else ""
    turns = turns_text(len(got.turns))
    raise wrong("shared", "clock_stopped_it", turns=turns, want=len(want.turns), wrap_up=wrap_up)


def star_found(exercise: ExerciseText, got: Run, want: Run) -> None:
    if not load_level(exercise.settings["level"]).judge(got).correct:
        raise wrong("shared", "answer_not_the_star", answer=Said(got._answer))


def answer(exercise: ExerciseText, got: Run, want: Run) -> None:
    if not _equal(got._answer, want._answer):
        block = want._answer.get("block") if isinstance(want._answer, dict) else "?"
        raise wrong("shared", "pipe_not_the_star", got=Said(got._answer), block=block)


def lie(exercise: ExerciseText, got: Run, want: Run) -> None:
    guess_stop, guess_answer = exit_by_last_message(got.messages, got.stop_on)
    truth = (got.stop.value if got.stop else None, got._answer if got.has_answer else None)
    if (guess_stop, guess_answer) == truth:
        raise wrong("shared", "recipe_tells_the_truth", stop=Said(truth[0]), answer=Said(truth[1]))
    if guess_answer is None or (truth[1] is not None and guess_answer == truth[1]):
        raise wrong("shared", "recipe_small_lie", guess=Said(guess_stop), ended=ended_text(got))


_COMPARED = (made_by_run_agent, level, persona, tools, stop_on, exit, turns, star_found, answer)
ASPECTS: dict[str, Callable[[ExerciseText, Run, Run], None]] = {
    f.__name__: f for f in (*_COMPARED, lie)
}
"""What a data file's `aspects` may name, by the function's name, in the order they are known."""


# -- numbers and words --------------------------------------------------------------------------


def _whole(name: str, value: Any, low: int | None = None) -> int:
    """A whole number (an int, numpy's too), never a bool, nor a float; else `Incorrect`."""
    number = None
    if not isinstance(filled(value), (bool, float)):
        with contextlib.suppress(TypeError):
            number = operator.index(value)
    if number is not None and (low is None or number >= low):
        return number
    template = _("`{name}` should be a whole number of turns{low}, an int: not {value}.")
    at_least = _(" ({low} or more)").format(low=low) if low is not None else ""
    raise Incorrect(template, name=name, low=at_least, value=Said(value))


def budget(exercise: ExerciseText, answer: Any) -> Verdict:
    """One max_turns for every case: each case's run, made with it, must do what the case says
    (answer, or spend at most the token cap)."""
    max_turns = _whole(exercise.answer, answer, low=1)
    cap, most = exercise.settings["token_cap"], exercise.settings["most"]
    spent = 0
    for case in _cases(exercise):
        run = case_run({**case.data["run"], "max_turns": min(max_turns, most)})
        if case.get("must") == "answer":
            if not run.has_answer:
                needed = turns_text(len(case_run(case.data["run"]).turns))
                raise wrong("1-1", "budget_too_tight", max_turns=max_turns, needed=needed)
            continue
        spent = cumulative_tokens(run)[-1]
        found = {"max_turns": max_turns, "cap": cap, "spent": spent, "most": most}
        if max_turns > most:
            raise wrong("1-1", "budget_far_too_loose", **found)
        if spent > cap:
            raise wrong("1-1", "budget_too_loose", **found)
    return correct(_(exercise.settings["correct"]), max_turns=max_turns, spent=spent)


def turns_saved(exercise: ExerciseText, answer: Any) -> Verdict:
    """The flag's turns minus the pipe's, measured: a wrong number is named by what it is (the
    turn "Done" costs, one run's turns, tokens, messages) when it is one of those."""
    saved = _whole(exercise.answer, answer)
    runs = {case.get("role"): case_run(case.data["run"]) for case in exercise.cases}
    flag, pipe, no_pipe = runs["flag"], runs["pipe"], runs["no pipe"]
    if saved == len(flag.turns) - len(pipe.turns):
        return correct(
            _(exercise.settings["correct"]),
            saved=saved,
            flag=turns_text(len(flag.turns)),
            pipe=turns_text(len(pipe.turns)),
        )
    causes = [
        (len(no_pipe.turns) - len(pipe.turns), _(said("1-3", "saved_is_the_done_turn"))),
        (len(pipe.turns) - len(no_pipe.turns), _(said("1-3", "saved_is_minus_the_done_turn"))),
        (len(flag.messages) - len(pipe.messages), _(said("1-3", "saved_is_messages"))),
        (flag.total_tokens - pipe.total_tokens, _("a difference in tokens, not turns.")),
        (len(pipe.turns), _(said("1-3", "saved_is_one_run"))),
    ]
    named = [cause for value, cause in causes if value == saved]
    if len(named) == 1:  # a number two mistakes give names neither
        raise Incorrect(_("{saved} is {cause}"), saved=saved, cause=named[0])
    raise wrong("1-3", "saved_not_measured", saved=saved)


def give_up_prompt(exercise: ExerciseText, answer: Any) -> Verdict:
    """A system prompt that lets the searcher give up on an empty level, after searching, and
    still find the star where there is one."""
    if not isinstance(filled(answer), str) or not answer.strip():
        raise wrong("1-2", "give_up_prompt_not_text", value=Said(answer))
    gave_up: Run | None = None
    intent = read_intent(answer, prompt())  # what the mock reads in it, quoted in either verdict
    for case in _cases(exercise):
        run = case_run({**case.data["run"], "system": answer})
        searched = sum(1 for c in run.tool_calls if c.name == "search_blocks" and c.ok)
        if case.get("must") == "give up after searching":
            if run.stop != Stop.END_TURN:  # what the mock read quotes the learner's words
                raise Incorrect("{text}", text=Said(_not_understood(run, intent), True, 2000))
            if searched == 0:
                raise wrong("1-2", "gave_up_without_searching")
            gave_up = run
        elif not load_level(case.data["run"]["level"]).judge(run).correct:
            searches = ngettext("{n} search", "{n} searches", searched).format(n=searched)
            quoted = Said(run._answer if run.has_answer else run.no_answer_reason, text=True)
            raise wrong(
                "1-2", "gave_up_too_soon", ended=ended_text(run), searched=searches, answer=quoted
            )
    assert gave_up is not None
    stubborn = case_run({"level": "1-1", "persona": "loopboros", "system": answer})
    return correct(
        _(exercise.settings["correct"]),
        turns=turns_text(len(gave_up.turns)),
        quote=Said(intent.quote, text=True, limit=160),
        answer=Said(gave_up._answer, text=True, limit=200),
        exit=ended_text(stubborn),
        stubborn_turns=turns_text(len(stubborn.turns)),
    )


def _not_understood(run: Run, intent: Intent) -> str:
    """Why the searcher kept searching: what the mock read, what it missed, and two wordings it
    understands. The mock is rules, not a model: a sensible prompt may still be missed."""
    clock = _(said("1-2", "kept_searching")).format(turns=turns_text(len(run.turns)))
    if intent.allowed:  # permission on a condition the clock does not leave room for
        read = _(said("1-2", "mock_read_a_condition")).format(
            quote=intent.quote,
            condition=intent.condition.text if intent.condition else "",
            searches=intent.searches,
        )
        return f"{clock} {read}"
    if intent.refused:
        read = _("What the mock read: {why}, “{quote}”.").format(
            why=_(WHY[intent.why]), quote=intent.quote
        )
        if intent.why == "outweighed":
            missed = _(said("1-2", "mock_outweighed"))
        else:
            missed = _(said("1-2", "mock_missed_a_later_permission"))
    else:
        readings = "; ".join(
            _("“{quote}”, which it took as {why}").format(quote=r.quote, why=_(WHY[r.why]))
            for r in intent.readings
            if r.stance == "none"
        )
        if readings:
            read = _("What the mock read: {readings}.").format(readings=readings)
        else:
            read = _(said("1-2", "mock_read_nothing"))
        missed = _("What it missed: permission, in words, to stop and say the star is not there.")
    first, second = (_(example) for example in GIVE_UP_EXAMPLES)
    examples = _(said("1-2", "mock_follows_rules")).format(first=first, second=second)
    return f"{clock} {read} {missed} {examples}"


JUDGES: dict[str, Callable[[ExerciseText, Any], Verdict]] = {
    **{judge.__name__: judge for judge in (same, pair, tool_result, run, budget, turns_saved)},
    "give_up_prompt": give_up_prompt,
    "loop": loopcheck.judge,
    "caller": capstone.judge,
}
