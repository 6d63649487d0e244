"""Exercise checkers for the notebooks, in the style of Kaggle's learntools.

    from whentostop.checks import ____, exercises
    q1, q2, q3 = exercises("1-1")
    run_a = ____            # the learner replaces the blank with an answer
    q1.check(run_a)         # "not attempted yet", a helpful "not yet", or "Correct"
    q1.hint(); q1.solution()

Every check runs the learner's answer against the offline mock (never a real endpoint), so it
verifies behaviour, not spelling. A blank answer never raises: a notebook runs top to bottom.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from .client import OpenAIChat
from .errors import NoAnswer
from .i18n import N_, _, language, ngettext
from .lesson import GIVE_UP_TEXT as GIVE_UP
from .lesson import give_up, prompt
from .level import load_level
from .loop import run_agent
from .mock.intent import WHY, Intent, read_intent
from .models import mock
from .outcome import EXIT_NAMES, Run, Stop
from .usage import cumulative_tokens

TOKEN_CAP = 5_000
"""Exercise 1-1.c: the most the Loopboros may spend on level 1-1 before the clock stops it."""


class _Blank:
    """The placeholder `____` a learner replaces with an answer."""

    def __repr__(self) -> str:
        return "____"


____ = _Blank()


@dataclass(frozen=True)
class Verdict:
    """What a check concluded, and the sentence the learner reads."""

    status: Literal["correct", "incorrect", "not attempted"]
    message: str


def _correct(message: str) -> Verdict:
    return Verdict("correct", f"Correct: {message}")


def _wrong(message: str) -> Verdict:
    return Verdict("incorrect", message)


def _blank(answer: Any) -> bool:
    return answer is None or answer is ... or isinstance(answer, _Blank)


def _show(markdown: str, plain: str) -> None:
    """Rich text in a notebook, plain text anywhere else."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython ships with the notebooks' dependencies
        print(plain)
        return
    if get_ipython() is None:
        print(plain)
    else:
        display({"text/markdown": markdown, "text/plain": plain}, raw=True)


@dataclass(frozen=True)
class Exercise:
    """One exercise: an id the text points to, and its check, hint and solution."""

    id: str
    """"1-1.a": level 1-1, first exercise. The notebook cell is tagged "exercise-1-1-a"."""
    var: str
    """The name the notebook gives it: q1, q2, ..."""
    answer: str
    """The name the learner's answer goes into (a variable or a function)."""
    blank: str
    """The answer cell as committed: the line(s) holding `____`."""
    hint_text: str
    solution_code: str
    verify: Callable[[Any], Verdict]

    @property
    def tag(self) -> str:
        return "exercise-" + self.id.replace(".", "-")

    @property
    def check_line(self) -> str:
        return f"{self.var}.check({self.answer})"

    def cell(self, solved: bool = False) -> str:
        """The answer cell's source: blank as committed, or with the solution filled in."""
        body = self.solution_code if solved else self.blank
        return f"# Exercise {self.id}\n{body}\n\n{self.check_line}"

    def check(self, answer: Any = ____) -> None:
        """Run the answer on the mock and say what came of it. Never raises."""
        verdict = self.result(answer)
        mark = {"correct": "✅", "incorrect": "❌", "not attempted": "✏️"}[verdict.status]
        plain = f"{mark} Exercise {self.id}: {verdict.message}"
        _show(f"{mark} **Exercise {self.id}**: {verdict.message}", plain)

    def result(self, answer: Any = ____) -> Verdict:
        """The verdict without printing it (what `check` shows)."""
        if _blank(answer):
            return Verdict(
                "not attempted",
                f"not attempted yet. Replace `____` with your answer in `{self.answer}`, "
                "then run the cell again.",
            )
        try:
            return self.verify(answer)
        except Exception as exc:  # noqa: BLE001 — the learner's code may raise anything; say so
            return _wrong(f"your answer raised {type(exc).__name__}: {exc}")

    def hint(self) -> None:
        _show(f"💡 **Hint ({self.id})**: {self.hint_text}", f"Hint ({self.id}): {self.hint_text}")

    def solution(self) -> None:
        _show(f"**Solution ({self.id})**:\n\n```python\n{self.solution_code}\n```",
              f"Solution ({self.id}):\n{self.solution_code}")


# --- reference runs on the mock (the check never uses a configured real endpoint) ---------------


def mock_model(persona: str) -> OpenAIChat:
    """A mock persona, in-process, whatever OPENAI_BASE_URL says: checks must be deterministic."""
    return mock(persona)


def mock_run(level: str, persona: str = "searcher", *, only_search: bool = False,
             stop_on: bool = False, system: str | None = None, max_turns: int = 10,
             deadline_s: float | None = None) -> Run:
    """One run on the mock: the runs the checks compare the learner's answer against."""
    board = load_level(level)
    tools = board.tools("search_blocks") if only_search else board.tools()
    return run_agent(prompt(), model=mock_model(persona), tools=tools, max_turns=max_turns,
                     stop_on=["mark_star"] if stop_on else [], system=system, deadline_s=deadline_s)


def _samples() -> dict[str, Run]:
    """One run per exit (and a gave-up flag): the inputs the function checks use."""
    return _samples_in(language())


@cache
def _samples_in(lang: str) -> dict[str, Run]:
    """The samples in one language, made once: the mock answers in the conversation's language."""
    return {
        "flag": mock_run("1-2", only_search=True),
        "flag-1-3": mock_run("1-3", only_search=True),
        "gave up": mock_run("1-1", system=give_up()),
        "pipe": mock_run("1-3", stop_on=True),
        "clock": mock_run("1-1", "loopboros", max_turns=3),
        "deadline": mock_run("1-2", "slow:0.05", deadline_s=0.12),
    }


def _is_run(answer: Any, name: str) -> Verdict | None:
    if isinstance(answer, Run):
        return None
    return _wrong(f"`{name}` should be the `Run` that `run_agent(...)` returns, "
                  f"not a {type(answer).__name__}.")


def _turns(n: int) -> str:
    return ngettext("{n} turn", "{n} turns", n).format(n=n)


def _on_samples(fn: Any, name: str, cases: dict[str, Any],
                judge: Callable[[Run, Any, Any], str | None], escaped: str) -> Verdict | None:
    """Call the learner's function `name` on sample runs (one per exit): the verdict of the
    first case that goes wrong — `escaped` when NoAnswer got out, `judge(run, got, want)`'s
    complaint otherwise — or None when every case passes."""
    if not callable(fn):
        return _wrong(f"`{name}` should be a function that takes a Run.")
    runs = _samples()
    for case, want in cases.items():
        try:
            got = fn(runs[case])
        except NoAnswer:
            return _wrong(escaped)
        if isinstance(got, _Blank):
            return Verdict("not attempted", f"not attempted yet. Replace `____` in `{name}` "
                           "with your code, then run the cell again.")
        complaint = judge(runs[case], got, want)
        if complaint:
            return _wrong(complaint)
    return None


def _found_star(run: Run) -> bool:
    return any(re.search(r": star$", c.output, re.MULTILINE) for c in run.tool_calls)


# --- 00: a first run ----------------------------------------------------------------------------


def _verify_first_run(run: Any) -> Verdict:
    if (bad := _is_run(run, "first_run")) is not None:
        return bad
    if not run.has_answer:
        return _wrong(f"this run ended on {run.exit_name} after {_turns(len(run.turns))}, with no "
                      "answer. Level 1-2 hides a star: run the searcher there.")
    if not _found_star(run):
        return _wrong("this run ended with an answer, but no search turned up the star. Which level "
                      "was it? Level 1-1 hides none; use `load_level(\"1-2\")`.")
    return _correct(f"the searcher found the star in {_turns(len(run.turns))} and ended on "
                    f"{run.exit_name}: {run.answer!r}")


# --- 1-1: the clock -----------------------------------------------------------------------------


def _verify_three_turns(run: Any) -> Verdict:
    if (bad := _is_run(run, "run_a")) is not None:
        return bad
    if run.stop != Stop.MAX_TURNS:
        return _wrong(f"this run ended on {run.exit_name}, not on the clock. Use the Loopboros "
                      "(`connect(\"loopboros\")`) on level 1-1: it never gives up, so only the "
                      "clock can stop it.")
    if len(run.turns) != 3:
        return _wrong(f"the clock stopped it after {_turns(len(run.turns))}; set `max_turns=3`.")
    return _correct(f"stopped on the clock after 3 turns, still asking for "
                    f"{', '.join(run.still_asking_for)}. No answer: `run_a.answer` raises NoAnswer.")


def _verify_answer_or_none(fn: Any) -> Verdict:
    runs = _samples()

    def judge(run: Run, got: Any, want: Any) -> str | None:
        if got == want:
            return None
        if run.stop == Stop.MAX_TURNS:
            return (f"on a run stopped by the clock your function returned {got!r}. The clock "
                    "gives no answer (its last message is a tool call): return None.")
        return (f"on a run that ended on {run.exit_name} your function returned {got!r}; "
                f"expected the run's answer, {want!r}.")

    cases = {"clock": None, "flag": runs["flag"].answer, "pipe": runs["pipe"].answer}
    return _on_samples(fn, "answer_or_none", cases, judge, escaped=(
        "NoAnswer escaped from your function on a run stopped by the clock. Wrap `run.answer` in "
        "`try: ... except NoAnswer: return None`.")) or _correct(
        "None on the clock, the text on the flag, the validated input on the warp pipe. Only "
        "two exits carry an answer.")


def _verify_budget(max_turns: Any) -> Verdict:
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        return _wrong(f"`budget_c` should be a whole number of turns (1 or more), not {max_turns!r}.")
    for level, only_search, stop_on in (("1-2", True, False), ("1-3", False, True)):
        run = mock_run(level, max_turns=max_turns, only_search=only_search, stop_on=stop_on)
        if not run.has_answer:
            needed = len(mock_run(level, only_search=only_search, stop_on=stop_on).turns)
            return _wrong(f"with max_turns={max_turns} the clock stops the searcher on level {level} "
                          f"before it answers: it needs {_turns(needed)} there. Make room.")
    spent = cumulative_tokens(mock_run("1-1", "loopboros", max_turns=max_turns))[-1]
    if spent > TOKEN_CAP:
        return _wrong(f"with max_turns={max_turns} the Loopboros spends {spent:,} tokens on level "
                      f"1-1 before the clock stops it, over the cap of {TOKEN_CAP:,}. Tighten it.")
    return _correct(f"max_turns={max_turns}: the searcher answers on 1-2 and 1-3, and the Loopboros "
                    f"is stopped after {spent:,} tokens. A budget is the longest honest run plus a "
                    "margin, and no more.")


# --- 1-2: the flag ------------------------------------------------------------------------------


GIVE_UP_EXAMPLES = (
    N_("If you can't find the star, say so."),
    N_("You may give up after searching every area."),
)
"""Two wordings the mock understands, offered when it did not understand a learner's own."""


def _verify_give_up_prompt(prompt: Any) -> Verdict:
    if not isinstance(prompt, str) or not prompt.strip():
        return _wrong(_("`give_up_prompt` should be the text of a system prompt (a str)."))
    run = mock_run("1-1", system=prompt)
    intent = read_intent(prompt, _task_of(run))
    if run.stop != Stop.END_TURN:
        return _wrong(_not_understood(run, intent))
    stubborn = mock_run("1-1", "loopboros", system=prompt)
    return _correct(_(
        "the searcher gave up on the flag after {turns}, taking “{quote}” as permission: “{answer}”. "
        "The Loopboros, with the same prompt, still ran until {exit} ({stubborn_turns}): permission "
        "only helps a model that takes it, so keep max_turns too."
    ).format(turns=_turns(len(run.turns)), quote=intent.quote, answer=run.answer,
             exit=stubborn.exit_name, stubborn_turns=_turns(len(stubborn.turns))))


def _task_of(run: Run) -> str:
    return next((str(m.get("content") or "") for m in run.messages if m.get("role") == "user"), "")


def _not_understood(run: Run, intent: Intent) -> str:
    """Why the searcher kept searching: what the mock read, what it missed, and two wordings it
    understands. The mock is rules, not a model: a sensible prompt may still be missed."""
    clock = _("with your prompt the searcher kept searching level 1-1 until the clock ({turns}).").format(
        turns=_turns(len(run.turns)))
    if intent.allowed:  # permission on a condition the clock does not leave room for
        read = _("What the mock read: permission, “{quote}”, on a condition: “{condition}”. It would give "
                 "up after {searches} empty searches, and the clock stopped it first: ask for fewer.").format(
            quote=intent.quote, condition=intent.condition.text if intent.condition else "",
            searches=intent.searches)
        return f"{clock} {read}"
    if intent.refused:
        read = _("What the mock read: {why}, “{quote}”.").format(why=_(WHY[intent.why]), quote=intent.quote)
        missed = _("What it missed: a later instruction that allows giving up (the last one decides).")
    else:
        noted = [r for r in intent.readings if r.stance == "none"]
        if noted:
            read = _("What the mock read: {readings}.").format(readings="; ".join(
                _("“{quote}”, which it took as {why}").format(quote=r.quote, why=_(WHY[r.why])) for r in noted))
        else:
            read = _("What the mock read: nothing about giving up, or about what to do if the star "
                     "cannot be found.")
        missed = _("What it missed: permission, in words, to stop and say the star is not there.")
    first, second = (_(example) for example in GIVE_UP_EXAMPLES)
    examples = _("The mock follows rules, it is not a language model: a real model may understand "
                 "words it misses. Wordings it understands: “{first}” or “{second}”").format(
        first=first, second=second)
    return f"{clock} {read} {missed} {examples}"


def _verify_star_block(fn: Any) -> Verdict:
    def judge(run: Run, got: Any, want: Any) -> str | None:
        if got == want and type(got) is type(want):
            return None
        if isinstance(got, str) and got.isdigit():
            return f"you returned the text {got!r}: return the block as a number, int({got!r})."
        text = run.answer if run.has_answer else "(no answer: the clock)"
        return f"for the answer {text!r} your function returned {got!r}; expected {want!r}."

    cases = {"flag": 7, "flag-1-3": 12, "gave up": None, "clock": None}
    return _on_samples(fn, "star_block", cases, judge, escaped=(
        "NoAnswer escaped on a run stopped by the clock: catch it and return None (as in "
        "Exercise 1-1.b).")) or _correct(
        "7 on level 1-2, 12 on level 1-3, None when the searcher gave up or the clock stopped it. "
        "It works, for these sentences: a model that words it differently breaks it. Level 1-3 "
        "hands you the block as data instead.")


# --- 1-3: the warp pipe -------------------------------------------------------------------------


def _verify_pipe(run: Any) -> Verdict:
    if (bad := _is_run(run, "run_a")) is not None:
        return bad
    if run.stop == Stop.END_TURN and any(c.name == "mark_star" and c.ok for c in run.tool_calls):
        return _wrong(f"the star was marked, but the run went on and ended on the flag "
                      f"({run.answer!r}), one turn later. Open the warp pipe: "
                      "`stop_on=[\"mark_star\"]`.")
    if run.stop != Stop.TERMINAL_TOOL:
        return _wrong(f"this run ended on {run.exit_name}. Offer both tools (`level.tools()`) and "
                      "stop on mark_star.")
    if run.answer != {"item": "star", "block": 12}:
        return _wrong(f"the pipe opened with {run.answer!r}, but level 1-3's star is in block 12. "
                      "Did you load level 1-3?")
    return _correct(f"the warp pipe, after {_turns(len(run.turns))}: the answer is the validated "
                    f"input {run.answer!r}, a dict your code can use without parsing.")


def _verify_exit_of(fn: Any) -> Verdict:
    def judge(run: Run, got: Any, want: Any) -> str | None:
        if got == want:
            return None
        assert run.stop is not None
        return (f"a run with stop={run.stop.value!r} ({_turns(len(run.turns))}) is {want!r}; "
                f"your function said {got!r}.")

    cases = {key: EXIT_NAMES[run.stop] for key, run in _samples().items() if run.stop}
    return _on_samples(fn, "exit_of", cases, judge, escaped=(
        "NoAnswer escaped from your function: name the exit from `run.stop`, not from "
        "`run.answer`.")) or _correct(
        "four runs, four exits named: the flag and the warp pipe carry an answer; the clock and "
        "the deadline do not.")


def _verify_turns_saved(saved: Any) -> Verdict:
    if isinstance(saved, bool) or not isinstance(saved, int):
        return _wrong(f"`turns_saved` should be a whole number of turns, not {saved!r}.")
    flag = mock_run("1-3", only_search=True)
    pipe = mock_run("1-3", stop_on=True)
    truth = len(flag.turns) - len(pipe.turns)
    if saved == truth:
        return _correct(f"{saved}: the searcher needs {_turns(len(flag.turns))} on the flag and "
                        f"{_turns(len(pipe.turns))} through the pipe. What the pipe gives is not a "
                        "shorter run but an answer checked against a schema.")
    done = mock_run("1-3")
    extra = len(done.turns) - len(pipe.turns)
    if saved == extra:
        return _wrong(f"{saved} is what stop_on saves over offering mark_star *without* stop_on "
                      "(the turn spent saying \"Done\"). Compare the pipe with a searcher that "
                      "answers in text: `level.tools(\"search_blocks\")`.")
    return _wrong(f"run both and count: the flag run (only search_blocks) and the pipe run "
                  f"(stop_on mark_star) on level 1-3. Your answer, {saved}, is not their difference.")


# --- the catalogue ------------------------------------------------------------------------------

_RUN = 'run_agent("Find the star in this level.", model=connect("{persona}"),\n'

EXERCISES: dict[str, tuple[Exercise, ...]] = {
    "00": (
        Exercise(
            id="00.a", var="q1", answer="first_run",
            blank="first_run = ____",
            hint_text="`load_level(\"1-2\")` hides a star; `connect(\"searcher\")` looks for it; "
                      "`run_agent(prompt, model=..., tools=level.tools(\"search_blocks\"))`.",
            solution_code=(
                "first_run = " + _RUN.format(persona="searcher")
                + '                      tools=load_level("1-2").tools("search_blocks"))'
            ),
            verify=_verify_first_run,
        ),
    ),
    "1-1": (
        Exercise(
            id="1-1.a", var="q1", answer="run_a",
            blank="run_a = ____",
            hint_text="The Loopboros on level 1-1 never answers, so the clock is the only exit "
                      "left: pass `max_turns=3`.",
            solution_code=(
                "run_a = " + _RUN.format(persona="loopboros")
                + '                  tools=load_level("1-1").tools(), max_turns=3)'
            ),
            verify=_verify_three_turns,
        ),
        Exercise(
            id="1-1.b", var="q2", answer="answer_or_none",
            blank="def answer_or_none(run):\n    return ____",
            hint_text="`run.answer` raises `NoAnswer` on the clock and the deadline. Catch it: "
                      "`try: return run.answer` / `except NoAnswer: return None`.",
            solution_code=(
                "def answer_or_none(run):\n"
                "    try:\n"
                "        return run.answer\n"
                "    except NoAnswer:\n"
                "        return None"
            ),
            verify=_verify_answer_or_none,
        ),
        Exercise(
            id="1-1.c", var="q3", answer="budget_c",
            blank="budget_c = ____",
            hint_text="Count the turns of the longest honest run (the searcher on level 1-3 takes "
                      "5), then check what the Loopboros spends with that budget: "
                      "`cumulative_tokens(run)[-1]`. The table above helps.",
            solution_code="budget_c = 6   # the searcher's longest run (5 turns) plus one",
            verify=_verify_budget,
        ),
    ),
    "1-2": (
        Exercise(
            id="1-2.a", var="q1", answer="give_up_prompt",
            blank="give_up_prompt = ____",
            hint_text="Say what to do when the searches come back empty: the model needs "
                      "permission to give up, in words, such as \"say you couldn't find it\".",
            solution_code=f"give_up_prompt = {GIVE_UP!r}",
            verify=_verify_give_up_prompt,
        ),
        Exercise(
            id="1-2.b", var="q2", answer="star_block",
            blank="def star_block(run):\n    return ____",
            hint_text="Get the text with `run.answer` (in a try/except NoAnswer, as in 1-1.b), then "
                      "look for \"block\" and a number: `re.search(r\"block (\\d+)\", text)`.",
            solution_code=(
                "import re\n\n"
                "def star_block(run):\n"
                "    try:\n"
                "        text = run.answer\n"
                "    except NoAnswer:\n"
                "        return None\n"
                "    found = re.search(r\"(?:block|bloco) (\\d+)\", text)  # bloco: a Portuguese run\n"
                "    return int(found.group(1)) if found else None"
            ),
            verify=_verify_star_block,
        ),
    ),
    "1-3": (
        Exercise(
            id="1-3.a", var="q1", answer="run_a",
            blank="run_a = ____",
            hint_text="Offer both tools with `level.tools()` and name the terminal tool: "
                      "`stop_on=[\"mark_star\"]`.",
            solution_code=(
                "run_a = " + _RUN.format(persona="searcher")
                + '                  tools=load_level("1-3").tools(), stop_on=["mark_star"])'
            ),
            verify=_verify_pipe,
        ),
        Exercise(
            id="1-3.b", var="q2", answer="exit_of",
            blank="def exit_of(run):\n    return ____",
            hint_text="Look at `run.stop`: `Stop.END_TURN` is the flag, `Stop.TERMINAL_TOOL` the "
                      "warp pipe, `Stop.MAX_TURNS` the clock, `Stop.DEADLINE` the deadline.",
            solution_code=(
                "def exit_of(run):\n"
                "    return {Stop.END_TURN: \"the flag\", Stop.TERMINAL_TOOL: \"the warp pipe\",\n"
                "            Stop.MAX_TURNS: \"the clock\", Stop.DEADLINE: \"the deadline\"}[run.stop]"
            ),
            verify=_verify_exit_of,
        ),
        Exercise(
            id="1-3.c", var="q3", answer="turns_saved",
            blank="turns_saved = ____",
            hint_text="Run the searcher on level 1-3 twice: with only `search_blocks` (it answers "
                      "in text) and with both tools and `stop_on=[\"mark_star\"]`. Subtract.",
            solution_code=(
                "level = load_level(\"1-3\")\n"
                "flag = " + _RUN.format(persona="searcher")
                + "                 tools=level.tools(\"search_blocks\"))\n"
                "pipe = " + _RUN.format(persona="searcher")
                + "                 tools=level.tools(), stop_on=[\"mark_star\"])\n"
                "turns_saved = len(flag.turns) - len(pipe.turns)"
            ),
            verify=_verify_turns_saved,
        ),
    ),
}


def exercises(notebook: str) -> tuple[Exercise, ...]:
    """The exercises of one notebook ("00", "1-1", "1-2", "1-3"), in order: q1, q2, ..."""
    if notebook not in EXERCISES:
        raise KeyError(f"no exercises for {notebook!r}; notebooks: {', '.join(EXERCISES)}")
    return EXERCISES[notebook]


def by_tag(tag: str) -> Exercise:
    """The exercise whose answer cell carries this tag ("exercise-1-1-a")."""
    for group in EXERCISES.values():
        for exercise in group:
            if exercise.tag == tag:
                return exercise
    raise KeyError(f"no exercise tagged {tag!r}")


__all__ = ["EXERCISES", "Exercise", "Verdict", "____", "by_tag", "exercises", "mock_model", "mock_run"]
