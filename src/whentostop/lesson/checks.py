"""Exercise checkers for the notebooks, in the style of Kaggle's learntools.

    from whentostop.lesson.checks import ____, exercises, predictions, quiz
    q1, q2, q3 = exercises("1-1")
    run_a = ____            # the learner replaces the blank with an answer
    q1.check(run_a)         # "Not attempted yet", a helpful "Not yet", or "Correct"
    q1.hint(); q1.hint(2); q1.solution()

    p1, p2 = predictions("1-1")   # before a key run: commit to a letter, then run
    p1.check("b")                 # "Correct" and why, or "Not yet" and what that option misses
    c1, c2, c3, c4, c5 = quiz("1-1")   # five questions at the end of the level

Every check runs the learner's answer against the offline mock (never a real endpoint), so it
verifies behaviour, not spelling. A blank answer never raises: a notebook runs top to bottom.
Every word a learner reads comes from the catalogue (`whentostop.i18n`), in the language in effect.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from types import CodeType
from typing import Any, Literal

from ..client import OpenAIChat
from ..errors import NoAnswer
from ..i18n import N_, _, language, ngettext
from ..level import CASTLE, Level, load_level
from ..loop import run_agent
from ..mock.intent import WHY, Intent, read_intent
from ..models import mock
from ..outcome import EXIT_NAMES, Run, Stop
from ..usage import cumulative_tokens
from . import give_up, loopcheck, prompt
from .castle import empty_castle, exit_by_last_message
from .questions import BANK

TOKEN_CAP = 5_000
"""Exercise 1-1.c: the most the Loopboros may spend on level 1-1 before the clock stops it."""

Status = Literal["correct", "incorrect", "not attempted"]
WORDS: dict[str, str] = {
    "correct": N_("Correct"),
    "incorrect": N_("Not yet"),
    "not attempted": N_("Not attempted yet"),
}
"""The verdict's first words (a symbol may follow them: not every screen has an emoji font)."""
SYMBOLS = {"correct": "✓", "incorrect": "✗", "not attempted": "✎"}


class _Blank:
    """The placeholder `____` a learner replaces with an answer."""

    def __repr__(self) -> str:
        return "____"


____ = _Blank()


@dataclass(frozen=True)
class Verdict:
    """What a check concluded, and the sentence the learner reads (after the status word)."""

    status: Status
    message: str


def _correct(message: str) -> Verdict:
    return Verdict("correct", message)


def _wrong(message: str) -> Verdict:
    return Verdict("incorrect", message)


def _blank(answer: Any) -> bool:
    return answer is None or answer is ... or isinstance(answer, _Blank)


def _names(code: CodeType) -> set[str]:
    """Every global or attribute name a function's code (and its inner functions') uses."""
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found |= _names(const)
    return found


def still_blank(fn: Any) -> bool:
    """Whether a function the learner wrote still holds a `____` somewhere in its body."""
    code = getattr(fn, "__code__", None)
    return isinstance(code, CodeType) and "____" in _names(code)


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


def _say(label: str, verdict: Verdict) -> None:
    """Show a verdict: the item, the status word first, then the sentence."""
    word = _(WORDS[verdict.status])
    plain = _("{label} — {word}: {message}").format(label=label, word=word, message=verdict.message)
    markdown = _("**{label} — {word}** {symbol}: {message}").format(
        label=label, word=word, symbol=SYMBOLS[verdict.status], message=verdict.message
    )
    _show(markdown, plain)


@dataclass(frozen=True)
class Exercise:
    """One exercise: an id the text points to, and its check, hints and solution."""

    id: str
    """"1-1.a": level 1-1, first exercise. The notebook cell is tagged "exercise-1-1-a"."""
    var: str
    """The name the notebook gives it: q1, q2, ..."""
    answer: str
    """The name the learner's answer goes into (a variable or a function)."""
    blank: str
    """The answer cell as committed: the line(s) holding `____`."""
    hints: tuple[str, ...]
    """Two steps, as msgids: `hint()` gives the first, `hint(2)` the second."""
    solution_code: str
    """The answer, as code (an msgid: comments and words are shown translated)."""
    verify: Callable[[Any], Verdict]
    given: str = ""
    """Code the notebook runs in earlier cells that the solution relies on (tests run it first)."""

    @property
    def tag(self) -> str:
        return "exercise-" + self.id.replace(".", "-")

    @property
    def check_line(self) -> str:
        return f"{self.var}.check({self.answer})"

    @property
    def label(self) -> str:
        return _("Exercise {id}").format(id=self.id)

    def cell(self, solved: bool = False) -> str:
        """The answer cell's source: blank as committed, or with the solution filled in."""
        body = self.solution_code if solved else self.blank
        head = _("Exercise {id}").format(id=self.id)
        return f"# {head}\n{_(body)}\n\n{self.check_line}"

    def check(self, answer: Any = ____) -> None:
        """Run the answer on the mock and say what came of it. Never raises."""
        _say(self.label, self.result(answer))

    def result(self, answer: Any = ____) -> Verdict:
        """The verdict without printing it (what `check` shows)."""
        if _blank(answer) or (callable(answer) and still_blank(answer)):
            return Verdict(
                "not attempted",
                _(
                    "replace each `____` in `{name}` with your answer, then run the cell again."
                ).format(name=self.answer),
            )
        try:
            return self.verify(answer)
        except Exception as exc:  # noqa: BLE001 — the learner's code may raise anything; say so
            return _wrong(
                _("your answer raised {kind}: {error}").format(kind=type(exc).__name__, error=exc)
            )

    def hint(self, step: int = 1) -> None:
        """The first hint, or `hint(2)`: the second, which says more."""
        step = min(max(int(step), 1), len(self.hints))
        text = _(self.hints[step - 1])
        head = _("Hint {step} of {total} ({id})").format(
            step=step, total=len(self.hints), id=self.id
        )
        more = (
            " " + _("More: `{var}.hint({next})`.").format(var=self.var, next=step + 1)
            if step < len(self.hints)
            else ""
        )
        _show(f"**{head}**: {text}{more}", f"{head}: {text}{more}")

    def solution(self) -> None:
        head = _("Solution ({id})").format(id=self.id)
        code = _(self.solution_code)
        _show(f"**{head}**:\n\n```python\n{code}\n```", f"{head}:\n{code}")


@dataclass(frozen=True)
class Question:
    """A multiple-choice question: a prediction before a run, or one of a level's five
    end-of-level questions. `check(letter)` never raises."""

    id: str
    """"1-1.p1": level 1-1's first prediction; "1-1.c3": its third end-of-level question."""
    var: str
    """The name the notebook gives it: p1, p2, ... or c1 ... c5."""
    text: Any
    """Its words (`whentostop.lesson.questions.Text`): msgids, shown translated."""

    @property
    def tag(self) -> str:
        return "question-" + self.id.replace(".", "-")

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple("abcdefgh"[: len(self.text.options)])

    @property
    def answer(self) -> str:
        return str(self.text.answer)

    @property
    def label(self) -> str:
        if ".p" in self.id:
            return _("Prediction {id}").format(id=self.id)
        return _("Question {id}").format(id=self.id)

    def cell(self, solved: bool = False) -> str:
        """The question's cell: `p1.check(____)` as committed, or with the right letter."""
        return f"{self.var}.check({self.answer!r})" if solved else f"{self.var}.check(____)"

    def options_text(self) -> str:
        return "\n".join(
            f"({letter}) {_(option)}"
            for letter, option in zip(self.letters, self.text.options, strict=True)
        )

    def result(self, letter: Any = ____) -> Verdict:
        if _blank(letter):
            return Verdict(
                "not attempted",
                _(
                    'put the letter of your choice in place of `____`, e.g. `{var}.check("{first}")`, '
                    "then run the cell again."
                ).format(var=self.var, first=self.letters[0]),
            )
        chosen = str(letter).strip().lower().strip("()")
        if chosen not in self.letters:
            return _wrong(
                _("choose one of {letters}.").format(
                    letters=", ".join(f'"{x}"' for x in self.letters)
                )
            )
        option = _(self.text.options[self.letters.index(chosen)])
        if chosen == self.answer:
            return _correct(
                _("({letter}) {option} {why}").format(
                    letter=chosen, option=option, why=_(self.text.why)
                )
            )
        return _wrong(
            _("({letter}) {option} {feedback} Try another letter.").format(
                letter=chosen, option=option, feedback=_(self.text.feedback[chosen])
            )
        )

    def check(self, letter: Any = ____) -> None:
        """Show the question and the verdict on `letter`."""
        verdict = self.result(letter)
        word = _(WORDS[verdict.status])
        question = _(self.text.prompt)
        plain = f"{self.label}: {question}\n{self.options_text()}\n{word}: {verdict.message}"
        options = "\n".join(f"- {line}" for line in self.options_text().splitlines())
        markdown = (
            f"**{self.label}**: {question}\n\n{options}\n\n"
            f"**{word}** {SYMBOLS[verdict.status]}: {verdict.message}"
        )
        _show(markdown, plain)

    def __repr__(self) -> str:
        return f"{self.label}: {_(self.text.prompt)}\n{self.options_text()}"


def predictions(notebook: str) -> tuple[Question, ...]:
    """A notebook's predictions, in order: p1, p2, ... (made before the runs they are about)."""
    return _questions(notebook, "predictions", "p")


def quiz(notebook: str) -> tuple[Question, ...]:
    """A notebook's five end-of-level questions: c1 ... c5."""
    return _questions(notebook, "quiz", "c")


def _questions(notebook: str, kind: str, prefix: str) -> tuple[Question, ...]:
    if notebook not in BANK:
        raise KeyError(
            _("no questions for {notebook!r}; notebooks: {known}").format(
                notebook=notebook, known=", ".join(BANK)
            )
        )
    return tuple(
        Question(f"{notebook}.{prefix}{i}", f"{prefix}{i}", text)
        for i, text in enumerate(BANK[notebook][kind], start=1)
    )


def question_by_tag(tag: str) -> Question:
    """The question whose cell carries this tag ("question-1-1-p1")."""
    for notebook in BANK:
        for question in (*predictions(notebook), *quiz(notebook)):
            if question.tag == tag:
                return question
    raise KeyError(_("no question tagged {tag!r}").format(tag=tag))


# --- reference runs on the mock (the check never uses a configured real endpoint) ---------------


def mock_model(persona: str) -> OpenAIChat:
    """A mock persona, in-process, whatever OPENAI_BASE_URL says: checks must be deterministic."""
    return mock(persona)


def mock_run(
    level: str,
    persona: str = "searcher",
    *,
    only_search: bool = False,
    stop_on: bool = False,
    system: str | None = None,
    max_turns: int = 10,
    deadline_s: float | None = None,
) -> Run:
    """One run on the mock: the runs the checks compare the learner's answer against."""
    board = load_level(level)
    tools = board.tools("search_blocks") if only_search else board.tools()
    return run_agent(
        prompt(),
        model=mock_model(persona),
        tools=tools,
        max_turns=max_turns,
        stop_on=["mark_star"] if stop_on else [],
        system=system,
        deadline_s=deadline_s,
    )


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
    return _wrong(
        _("`{name}` should be the `Run` that `run_agent(...)` returns, not a {kind}.").format(
            name=name, kind=type(answer).__name__
        )
    )


def _turns(n: int) -> str:
    return ngettext("{n} turn", "{n} turns", n).format(n=n)


def _on_samples(
    fn: Any,
    name: str,
    cases: dict[str, Any],
    judge: Callable[[Run, Any, Any], str | None],
    escaped: str,
) -> Verdict | None:
    """Call the learner's function `name` on sample runs (one per exit): the verdict of the
    first case that goes wrong — `escaped` when NoAnswer got out, `judge(run, got, want)`'s
    complaint otherwise — or None when every case passes."""
    if not callable(fn):
        return _wrong(_("`{name}` should be a function that takes a Run.").format(name=name))
    runs = _samples()
    for case, want in cases.items():
        try:
            got = fn(runs[case])
        except NoAnswer:
            return _wrong(escaped)
        if isinstance(got, _Blank):
            return Verdict(
                "not attempted",
                _(
                    "replace each `____` in `{name}` with your answer, then run the cell again."
                ).format(name=name),
            )
        complaint = judge(runs[case], got, want)
        if complaint:
            return _wrong(complaint)
    return None


def _found_star(run: Run) -> bool:
    return any(re.search(r": star$", c.output, re.MULTILINE) for c in run.tool_calls)


def _searched_elsewhere(run: Run, level: str) -> bool:
    """Whether a search in this run came back with blocks that `level` does not have: the run
    was played on another level."""
    board = load_level(level)
    for call in run.tool_calls:
        if call.name == "search_blocks" and call.ok and call.input is not None:
            area = board.area_named(str(call.input.get("area", "")))
            if area is None or board.search_blocks(area) != call.output:
                return True
    return False


def _persona_of(run: Run) -> str | None:
    """The mock persona that played the run, or None for a real model."""
    from ..models import is_persona

    return run.model.partition(":")[0] if is_persona(run.model) else None


# --- 00: a first run ----------------------------------------------------------------------------


def _verify_first_run(run: Any) -> Verdict:
    if (bad := _is_run(run, "first_run")) is not None:
        return bad
    if not run.has_answer:
        return _wrong(
            _(
                "this run ended on {exit} after {turns}, with no answer. Level 1-2 hides "
                "a star: run the searcher there."
            ).format(exit=run.exit_name, turns=_turns(len(run.turns)))
        )
    if not _found_star(run):
        return _wrong(
            _(
                "this run ended with an answer, but no search turned up the star. Which "
                'level was it? Level 1-1 hides none; use `load_level("1-2")`.'
            )
        )
    return _correct(
        _("the searcher found the star in {turns} and ended on {exit}: {answer!r}").format(
            turns=_turns(len(run.turns)), exit=run.exit_name, answer=run.answer
        )
    )


# --- 1-1: the clock -----------------------------------------------------------------------------


def _verify_three_turns(run: Any) -> Verdict:
    if (bad := _is_run(run, "run_a")) is not None:
        return bad
    if _searched_elsewhere(run, "1-1"):
        return _wrong(
            _(
                "this run searched another level: what its searches found is not level "
                '1-1\'s blocks. Use `load_level("1-1")`, the level with no star.'
            )
        )
    persona = _persona_of(run)
    if persona is not None and persona != "loopboros":
        return _wrong(
            _(
                "this run was played by the {persona}. Use the Loopboros "
                '(`connect("loopboros")`): it never gives up, so only the clock can '
                "stop it."
            ).format(persona=persona)
        )
    if run.stop != Stop.MAX_TURNS:
        return _wrong(
            _(
                "this run ended on {exit}, not on the clock. Use the Loopboros "
                '(`connect("loopboros")`) on level 1-1: it never gives up, so only the '
                "clock can stop it."
            ).format(exit=run.exit_name)
        )
    if len(run.turns) != 3:
        return _wrong(
            _("the clock stopped it after {turns}; set `max_turns=3`.").format(
                turns=_turns(len(run.turns))
            )
        )
    return _correct(
        _(
            "stopped on the clock after 3 turns, still asking for {asking}. No answer: "
            "`run_a.answer` raises NoAnswer."
        ).format(asking=", ".join(run.still_asking_for))
    )


def _verify_answer_or_none(fn: Any) -> Verdict:
    runs = _samples()

    def judge(run: Run, got: Any, want: Any) -> str | None:
        if got == want:
            return None
        if run.stop == Stop.MAX_TURNS:
            return _(
                "on a run stopped by the clock your function returned {got!r}. The clock "
                "gives no answer (its last message is a tool call): return None."
            ).format(got=got)
        return _(
            "on a run that ended on {exit} your function returned {got!r}; expected the "
            "run's answer, {want!r}."
        ).format(exit=run.exit_name, got=got, want=want)

    cases = {"clock": None, "flag": runs["flag"].answer, "pipe": runs["pipe"].answer}
    return _on_samples(
        fn,
        "answer_or_none",
        cases,
        judge,
        escaped=_(
            "NoAnswer escaped from your function on a run stopped by the clock. Wrap `run.answer` in "
            "`try: ... except NoAnswer: return None`."
        ),
    ) or _correct(
        _(
            "None on the clock, the text on the flag, the validated input on the warp pipe. Only "
            "two exits carry an answer."
        )
    )


def _verify_budget(max_turns: Any) -> Verdict:
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        return _wrong(
            _("`budget_c` should be a whole number of turns (1 or more), not {value!r}.").format(
                value=max_turns
            )
        )
    for level, only_search, stop_on in (("1-2", True, False), ("1-3", False, True)):
        run = mock_run(level, max_turns=max_turns, only_search=only_search, stop_on=stop_on)
        if not run.has_answer:
            needed = len(mock_run(level, only_search=only_search, stop_on=stop_on).turns)
            return _wrong(
                _(
                    "with max_turns={max_turns} the clock stops the searcher on level "
                    "{level} before it answers: it needs {turns} there. Make room."
                ).format(max_turns=max_turns, level=level, turns=_turns(needed))
            )
    spent = cumulative_tokens(mock_run("1-1", "loopboros", max_turns=max_turns))[-1]
    if spent > TOKEN_CAP:
        return _wrong(
            _(
                "with max_turns={max_turns} the Loopboros spends {spent:,} tokens on level "
                "1-1 before the clock stops it, over the cap of {cap:,}. Tighten it."
            ).format(max_turns=max_turns, spent=spent, cap=TOKEN_CAP)
        )
    return _correct(
        _(
            "max_turns={max_turns}: the searcher answers on 1-2 and 1-3, and the "
            "Loopboros is stopped after {spent:,} tokens. A budget is the longest honest "
            "run plus a margin, and no more."
        ).format(max_turns=max_turns, spent=spent)
    )


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
    return _correct(
        _(
            "the searcher gave up on the flag after {turns}, taking “{quote}” as permission: “{answer}”. "
            "The Loopboros, with the same prompt, still ran until {exit} ({stubborn_turns}): permission "
            "only helps a model that takes it, so keep max_turns too."
        ).format(
            turns=_turns(len(run.turns)),
            quote=intent.quote,
            answer=run.answer,
            exit=stubborn.exit_name,
            stubborn_turns=_turns(len(stubborn.turns)),
        )
    )


def _task_of(run: Run) -> str:
    return next((str(m.get("content") or "") for m in run.messages if m.get("role") == "user"), "")


def _not_understood(run: Run, intent: Intent) -> str:
    """Why the searcher kept searching: what the mock read, what it missed, and two wordings it
    understands. The mock is rules, not a model: a sensible prompt may still be missed."""
    clock = _(
        "with your prompt the searcher kept searching level 1-1 until the clock ({turns})."
    ).format(turns=_turns(len(run.turns)))
    if intent.allowed:  # permission on a condition the clock does not leave room for
        read = _(
            "What the mock read: permission, “{quote}”, on a condition: “{condition}”. It would give "
            "up after {searches} empty searches, and the clock stopped it first: ask for fewer."
        ).format(
            quote=intent.quote,
            condition=intent.condition.text if intent.condition else "",
            searches=intent.searches,
        )
        return f"{clock} {read}"
    if intent.refused:
        read = _("What the mock read: {why}, “{quote}”.").format(
            why=_(WHY[intent.why]), quote=intent.quote
        )
        missed = _(
            "What it missed: a later instruction that allows giving up (the last one decides)."
        )
    else:
        noted = [r for r in intent.readings if r.stance == "none"]
        if noted:
            read = _("What the mock read: {readings}.").format(
                readings="; ".join(
                    _("“{quote}”, which it took as {why}").format(quote=r.quote, why=_(WHY[r.why]))
                    for r in noted
                )
            )
        else:
            read = _(
                "What the mock read: nothing about giving up, or about what to do if the star "
                "cannot be found."
            )
        missed = _("What it missed: permission, in words, to stop and say the star is not there.")
    first, second = (_(example) for example in GIVE_UP_EXAMPLES)
    examples = _(
        "The mock follows rules, it is not a language model: a real model may understand "
        "words it misses. Wordings it understands: “{first}” or “{second}”"
    ).format(first=first, second=second)
    return f"{clock} {read} {missed} {examples}"


def _verify_star_block(fn: Any) -> Verdict:
    def judge(run: Run, got: Any, want: Any) -> str | None:
        if got == want and type(got) is type(want):
            return None
        if isinstance(got, str) and got.isdigit():
            return _(
                "you returned the text {got!r}: return the block as a number, int({got!r})."
            ).format(got=got)
        text = run.answer if run.has_answer else _("(no answer: the clock)")
        return _(
            "for the answer {text!r} your function returned {got!r}; expected {want!r}."
        ).format(text=text, got=got, want=want)

    cases = {"flag": 7, "flag-1-3": 12, "gave up": None, "clock": None}
    return _on_samples(
        fn,
        "star_block",
        cases,
        judge,
        escaped=_(
            "NoAnswer escaped on a run stopped by the clock: catch it and return None (as in "
            "Exercise 1-1.b)."
        ),
    ) or _correct(
        _(
            "7 on level 1-2, 12 on level 1-3, None when the searcher gave up or the clock stopped it. "
            "It works, for these sentences: a model that words it differently breaks it. Level 1-3 "
            "hands you the block as data instead."
        )
    )


# --- 1-3: the warp pipe -------------------------------------------------------------------------


def _verify_pipe(run: Any) -> Verdict:
    if (bad := _is_run(run, "run_a")) is not None:
        return bad
    if run.stop == Stop.END_TURN and any(c.name == "mark_star" and c.ok for c in run.tool_calls):
        return _wrong(
            _(
                "the star was marked, but the run went on and ended on the flag "
                "({answer!r}), one turn later. Open the warp pipe: "
                '`stop_on=["mark_star"]`.'
            ).format(answer=run.answer)
        )
    if run.stop != Stop.TERMINAL_TOOL:
        return _wrong(
            _(
                "this run ended on {exit}. Offer both tools (`level.tools()`) and stop on "
                "mark_star."
            ).format(exit=run.exit_name)
        )
    if run.answer != {"item": "star", "block": 12}:
        return _wrong(
            _(
                "the pipe opened with {answer!r}, but level 1-3's star is in block 12. "
                "Did you load level 1-3?"
            ).format(answer=run.answer)
        )
    return _correct(
        _(
            "the warp pipe, after {turns}: the answer is the validated input "
            "{answer!r}, a dict your code can use without parsing."
        ).format(turns=_turns(len(run.turns)), answer=run.answer)
    )


def _verify_exit_of(fn: Any) -> Verdict:
    if callable(fn) and not still_blank(fn) and {"exit_name", "EXIT_NAMES"} & _names(fn.__code__):
        return _wrong(
            _(
                "your function reads the library's own names for the exits "
                "(run.exit_name or EXIT_NAMES). Name the exit yourself, from run.stop and "
                "the Stop values."
            )
        )

    def judge(run: Run, got: Any, want: Any) -> str | None:
        if got == want:
            return None
        assert run.stop is not None
        return _(
            "a run with stop={stop!r} ({turns}) is {want!r}; your function said {got!r}."
        ).format(stop=run.stop.value, turns=_turns(len(run.turns)), want=want, got=got)

    cases = {key: _(EXIT_NAMES[run.stop]) for key, run in _samples().items() if run.stop}
    return _on_samples(
        fn,
        "exit_of",
        cases,
        judge,
        escaped=_(
            "NoAnswer escaped from your function: name the exit from `run.stop`, not from "
            "`run.answer`."
        ),
    ) or _correct(
        _(
            "four runs, four exits named: the flag and the warp pipe carry an answer; the clock and "
            "the deadline do not."
        )
    )


def _verify_turns_saved(saved: Any) -> Verdict:
    if isinstance(saved, bool) or not isinstance(saved, int):
        return _wrong(
            _("`turns_saved` should be a whole number of turns, not {value!r}.").format(value=saved)
        )
    flag = mock_run("1-3", only_search=True)
    pipe = mock_run("1-3", stop_on=True)
    truth = len(flag.turns) - len(pipe.turns)
    if saved == truth:
        return _correct(
            _(
                "{saved}: the searcher needs {flag} on the flag and {pipe} through the "
                "pipe. What the pipe gives is not a shorter run but an answer checked "
                "against a schema."
            ).format(saved=saved, flag=_turns(len(flag.turns)), pipe=_turns(len(pipe.turns)))
        )
    done = mock_run("1-3")
    extra = len(done.turns) - len(pipe.turns)
    if saved == extra:
        return _wrong(
            _(
                "{saved} is what stop_on saves over offering mark_star *without* stop_on "
                '(the turn spent saying "Done"). Compare the pipe with a searcher that '
                'answers in text: `level.tools("search_blocks")`.'
            ).format(saved=saved)
        )
    return _wrong(
        _(
            "run both and count: the flag run (only search_blocks) and the pipe run "
            "(stop_on mark_star) on level 1-3. Your answer, {saved}, is not their "
            "difference."
        ).format(saved=saved)
    )


# --- 1-4: the castle ----------------------------------------------------------------------------


def _call(name: str, arguments: Any, call_id: str = "call_check") -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def _verify_run_call(fn: Any) -> Verdict:
    if not callable(fn):
        return _wrong(_("`run_call` should be a function of (call, tools)."))
    level = load_level("1-2")
    offered = level.tools()
    jammed = [loopcheck.jammed(offered[0])]
    bad_mark = {"item": "Star", "block": "the 12th block"}
    cases: list[tuple[str, dict[str, Any], list[Any], bool, str]] = [
        (
            _("a search of the underground"),
            _call("search_blocks", {"area": "underground"}),
            offered,
            True,
            level.search_blocks("underground"),
        ),
        (
            _("a call to {name}, a tool nobody offered").format(name=loopcheck.UNKNOWN_TOOL),
            _call(loopcheck.UNKNOWN_TOOL, {"door": "castle"}),
            offered,
            False,
            loopcheck.UNKNOWN_TOOL,
        ),
        (
            _('mark_star with item="Star" and block="the 12th block" (invalid input)'),
            _call("mark_star", bad_mark),
            offered,
            False,
            "invalid input for mark_star",
        ),
        (
            _("search_blocks with arguments that are not JSON"),
            _call("search_blocks", '{"area": '),
            offered,
            False,
            "not valid JSON",
        ),
        (
            _("a search_blocks whose body raises RuntimeError"),
            _call("search_blocks", {"area": "sky"}),
            jammed,
            False,
            loopcheck.JAMMED,
        ),
        (
            _("mark_star on block 99, which does not exist (the tool raises ToolError)"),
            _call("mark_star", {"item": "star", "block": 99}),
            offered,
            False,
            "no block 99",
        ),
    ]
    for what, call, tools, ok, says in cases:
        try:
            got = fn(call, tools)
        except Exception as exc:  # noqa: BLE001 — that is the point of the exercise
            return _wrong(
                _(
                    "on {what}, run_call raised {kind}: {error}. Catch it, and return "
                    "(False, None, an error line): the error goes back to the model as "
                    "the call's result."
                ).format(what=what, kind=type(exc).__name__, error=exc)
            )
        if isinstance(got, _Blank) or (
            isinstance(got, tuple) and any(isinstance(x, _Blank) for x in got)
        ):
            return Verdict(
                "not attempted",
                _("replace each `____` in `run_call` with your answer, then run the cell again."),
            )
        if not isinstance(got, tuple) or len(got) != 3:
            return _wrong(
                _(
                    "run_call should return three things, (ok, data, output); on {what} "
                    "it returned {got!r}."
                ).format(what=what, got=got)
            )
        got_ok, data, output = got
        if not isinstance(output, str) or not output.strip():
            return _wrong(
                _(
                    "on {what}, the output should be text for the model (a str), not {got!r}."
                ).format(what=what, got=output)
            )
        if got_ok is not ok:
            return _wrong(
                _("on {what}, ok should be {ok}, not {got!r}.").format(what=what, ok=ok, got=got_ok)
            )
        if ok and (data != {"area": "underground"} or output != says):
            return _wrong(
                _(
                    "on {what}, run_call should return (True, the validated input, the "
                    "tool's output as text); it returned {got!r}."
                ).format(what=what, got=got)
            )
        if not ok and says not in output:
            return _wrong(
                _(
                    "on {what}, the output {got!r} does not say what went wrong. The model "
                    "can only fix what it is told: put the error's message in it "
                    '(for example f"Error: {{exc}}").'
                ).format(what=what, got=output)
            )
    return _correct(
        _(
            "a good call runs; an unknown tool, a bad input, broken JSON and a tool "
            "that raises all come back as (False, None, the error as text), for the "
            "model to read. Nothing escapes."
        )
    )


def _verify_my_loop(fn: Any) -> Verdict:
    if not callable(fn):
        return _wrong(
            _("`my_loop` should be a function of (post, prompt, tools, max_turns, stop_on).")
        )
    helper = getattr(fn, "__globals__", {}).get("run_call")
    if helper is not None and still_blank(helper):
        return _wrong(
            _("my_loop calls run_call, which still has a `____`: finish Exercise 1-4.a first.")
        )
    failed, socket_note = loopcheck.run_cases(fn)
    if failed is not None:
        problem = loopcheck.diagnose(failed) or ""
        where = _("The run that showed it: {case}, {where}.").format(
            case=loopcheck.case_title(failed.case), where=failed.where
        )
        shown = loopcheck.transcript(failed.messages)
        return _wrong(
            f"{problem}\n\n{where}\n\n```\n{shown}\n```" if shown else f"{problem}\n\n{where}"
        )
    return _correct(
        _(
            "your loop took all three exits: the flag, the clock (exactly max_turns "
            "requests, no answer) and the warp pipe after a rejected call; a tool that "
            "raised, a failing mark_star and an unknown tool went back to the model as "
            "results, and the loop went on. {socket}."
        ).format(socket=socket_note)
    )


def _verify_recipe(fn: Any) -> Verdict:
    if not callable(fn):
        return _wrong(_("`exit_by_last_message` should be a function of (messages, stop_on)."))
    runs = _samples()
    for key in ("flag", "pipe", "clock"):
        run = runs[key]
        try:
            got = fn(run.messages, ("mark_star",))
        except Exception as exc:  # noqa: BLE001
            return _wrong(
                _("on the {exit} run, your recipe raised {kind}: {error}").format(
                    exit=run.exit_name, kind=type(exc).__name__, error=exc
                )
            )
        if isinstance(got, _Blank) or (
            isinstance(got, tuple) and any(isinstance(x, _Blank) for x in got)
        ):
            return Verdict(
                "not attempted",
                _(
                    "replace each `____` in `exit_by_last_message` with your answer, then run the "
                    "cell again."
                ),
            )
        want = (run.stop.value if run.stop else None, run.answer if run.has_answer else None)
        if not isinstance(got, tuple) or len(got) != 2:
            return _wrong(
                _(
                    "the recipe returns two things, (stop, answer); on the {exit} run it "
                    "returned {got!r}."
                ).format(exit=run.exit_name, got=got)
            )
        if (getattr(got[0], "value", got[0]), got[1]) != want:
            return _wrong(
                _(
                    "on the {exit} run the recipe should say {want!r}; yours said {got!r}. "
                    "No tool call: the flag and its text; a call to a stop_on tool: the "
                    "pipe and its arguments (json.loads); anything else: the clock, "
                    "None."
                ).format(exit=run.exit_name, want=want, got=got)
            )
    return _correct(
        _(
            "on the flag, the pipe and the clock, the recipe agrees with the outcome. "
            "Does it always? Exercise 1-4.d looks for a run where it lies."
        )
    )


def _verify_lying_run(run: Any) -> Verdict:
    if (bad := _is_run(run, "lying_run")) is not None:
        return bad
    guess_stop, guess_answer = exit_by_last_message(run.messages, run.stop_on or ("mark_star",))
    truth = (run.stop.value if run.stop else None, run.answer if run.has_answer else None)
    if (guess_stop, guess_answer) == truth:
        return _wrong(
            _(
                "on this run the recipe tells the truth: both say {stop} ({answer!r}). "
                "Look for a run whose last message looks like an answer but is not one."
            ).format(stop=truth[0], answer=truth[1])
        )
    if guess_answer is None or (truth[1] is not None and guess_answer == truth[1]):
        return _wrong(
            _(
                "the recipe says {guess} where the run ended on {stop}, but neither has an "
                "answer: a small lie. Find one where it hands you an answer that is not "
                "one."
            ).format(guess=guess_stop, stop=truth[0])
        )
    return _correct(
        _(
            "the recipe reads the last message and says {guess}, with {answer} as the "
            "answer; the run ended on {stop} ({exit}) after {turns}, and there is no "
            "such answer. Only the outcome knows how a run ended."
        ).format(
            guess=guess_stop,
            answer=json.dumps(guess_answer, ensure_ascii=False, default=str),
            stop=truth[0],
            exit=run.exit_name,
            turns=_turns(len(run.turns)),
        )
    )


@dataclass(frozen=True)
class _Castle:
    """What the capstone's check knows about the castle: the honest runs' lengths, the star."""

    level: Level
    empty: Level
    star: int
    honest: int
    """The turns of the searcher's honest run on the castle: a search per room, then the pipe."""
    longest: int
    """The turns of the longest honest run on the castle (the sloppy caller: one rejected call)."""

    @property
    def most(self) -> int:
        """The largest max_turns the check accepts: the honest run and half again."""
        return self.honest + self.honest // 2


@cache
def _castle() -> _Castle:
    level = load_level(CASTLE)
    star = level.star
    assert star is not None
    honest, sloppy = (
        run_agent(
            prompt(),
            model=mock_model(persona),
            tools=level.tools(),
            max_turns=60,
            stop_on=["mark_star"],
        )
        for persona in ("searcher", "sloppy")
    )
    return _Castle(level, empty_castle(), star[1], len(honest.turns), len(sloppy.turns))


DEADLINE_RANGE = (0.5, 10.0)
"""The capstone's deadline, in seconds: long enough for the mock's honest runs, short enough for
the check to wait for it with the slow persona."""


def _verify_castle_caller(fn: Any) -> Verdict:
    if not callable(fn):
        return _wrong(_("`castle_caller` should be a function of (model, level)."))
    castle = _castle()
    star = {"item": "star", "block": castle.star}

    def call(persona: str, level: Level) -> tuple[Any, Any, list[Run]] | Verdict:
        got = fn(mock_model(persona), level)
        if (
            not isinstance(got, tuple)
            or len(got) != 3
            or not isinstance(got[2], list)
            or not got[2]
            or not all(isinstance(r, Run) for r in got[2])
        ):
            return _wrong(
                _(
                    "castle_caller should return (what happened, what to show, the runs "
                    "it made); with the {persona} it returned {got}."
                ).format(persona=persona, got=repr(got)[:120])
            )
        return got

    first = call("searcher", castle.level)
    if isinstance(first, Verdict):
        return first
    status, shown, runs = first
    run = runs[0]
    if run.deadline_s is None:
        return _wrong(
            _(
                "choose a deadline: deadline_s, in seconds (between {low:g} and {high:g} "
                "on the mock, where a turn takes milliseconds)."
            ).format(low=DEADLINE_RANGE[0], high=DEADLINE_RANGE[1])
        )
    if not DEADLINE_RANGE[0] <= run.deadline_s <= DEADLINE_RANGE[1]:
        return _wrong(
            _(
                "deadline_s={deadline:g}: choose between {low:g} and {high:g} seconds (the "
                "check waits that long for the slow persona)."
            ).format(deadline=run.deadline_s, low=DEADLINE_RANGE[0], high=DEADLINE_RANGE[1])
        )
    if run.max_turns < castle.longest:
        return _wrong(
            _(
                "max_turns={max_turns} is too small for the castle: the honest runs take "
                "up to {longest} turns (sixteen searches, a reply, and one rejected call "
                "for the sloppy caller). Size the budget for the task."
            ).format(max_turns=run.max_turns, longest=castle.longest)
        )
    if run.max_turns > castle.most:
        return _wrong(
            _(
                "max_turns={max_turns} is more than the honest run ({honest} turns) "
                "plus a margin: at most {most}. The Loopboros pays for every one of those "
                "turns, twice with the retry."
            ).format(max_turns=run.max_turns, honest=castle.honest, most=castle.most)
        )
    if run.stop == Stop.END_TURN and "mark_star" not in run.stop_on:
        return _wrong(
            _(
                "the searcher answered in text ({answer!r}). Choose the terminal tool: "
                'stop_on=["mark_star"], and the answer is data.'
            ).format(answer=shown)
        )
    if (status, shown, len(runs)) != ("answer", star, 1):
        return _wrong(
            _(
                "with the searcher on the castle, castle_caller should return "
                '("answer", {star}, [its one run]); it returned ({status!r}, {shown!r}, '
                "{n} runs)."
            ).format(star=star, status=status, shown=shown, n=len(runs))
        )
    for persona in ("sloppy", "loopboros"):
        got = call(persona, castle.level)
        if isinstance(got, Verdict):
            return got
        if (got[0], got[1], len(got[2])) != ("answer", star, 1):
            return _wrong(
                _(
                    "with the {persona} on the castle, castle_caller should return "
                    '("answer", {star}, [its one run]); it returned ({status!r}, '
                    "{shown!r}, {n} runs)."
                ).format(persona=persona, star=star, status=got[0], shown=got[1], n=len(got[2]))
            )
    gave_up = call("searcher", castle.empty)
    if isinstance(gave_up, Verdict):
        return gave_up
    if (
        gave_up[0] != "answer"
        or not isinstance(gave_up[1], str)
        or gave_up[2][0].stop != Stop.END_TURN
    ):
        return _wrong(
            _(
                "in the castle whose star was taken, the searcher searched every room and "
                "went on until {exit}: your system prompt does not let it give up. Tell it "
                "what to do when the searches come back empty (level 1-2)."
            ).format(exit=gave_up[2][0].exit_name)
        )
    clock = call("loopboros", castle.empty)
    if isinstance(clock, Verdict):
        return clock
    status, shown, runs = clock
    if status == "answer":
        return _wrong(
            _(
                "the Loopboros ran into the clock in the empty castle, and castle_caller "
                "reported an answer ({shown!r}). The clock is a failure: report it as "
                '"clock".'
            ).format(shown=shown)
        )
    if len(runs) != 2 or any(r.stop != Stop.MAX_TURNS for r in runs):
        return _wrong(
            ngettext(
                "on the clock, castle_caller should retry once with a clearer prompt, then report "
                "the failure: two runs on the clock. It made {n} run.",
                "on the clock, castle_caller should retry once with a clearer prompt, then report "
                "the failure: two runs on the clock. It made {n} runs.",
                len(runs),
            ).format(n=len(runs))
        )
    first_task, second_task = (_task(r) for r in runs)
    if first_task == second_task:
        return _wrong(
            _(
                "the retry sent the same prompt again ({task!r}): make the second one "
                "clearer (say what to do, and how to end)."
            ).format(task=first_task[-1])
        )
    if status != "clock" or not isinstance(shown, str) or not shown.strip():
        return _wrong(
            _(
                'after two runs on the clock, castle_caller should return ("clock", a '
                "sentence saying why there is no answer, the runs); it returned "
                "({status!r}, {shown!r}, ...)."
            ).format(status=status, shown=shown)
        )
    slow = call(f"slow:{run.deadline_s / 4:g}", castle.level)
    if isinstance(slow, Verdict):
        return slow
    status, shown, runs = slow
    if runs[-1].stop != Stop.DEADLINE:
        return _wrong(
            _(
                "with a slow model (a reply every {delay:g} s) the run should hit your "
                "deadline of {deadline:g} s; it ended on {exit}."
            ).format(delay=run.deadline_s / 4, deadline=run.deadline_s, exit=runs[-1].exit_name)
        )
    if len(runs) != 1:
        return _wrong(
            _(
                "after the deadline castle_caller retried: the user has already waited "
                "deadline_s. Report the deadline, and do not retry."
            )
        )
    if status != "deadline" or not isinstance(shown, str) or not shown.strip():
        return _wrong(
            _(
                'on the deadline castle_caller should return ("deadline", a sentence '
                "saying why there is no answer, the runs); it returned ({status!r}, "
                "{shown!r}, ...)."
            ).format(status=status, shown=shown)
        )
    return _correct(
        _(
            "max_turns={max_turns}, a way out in the prompt, the warp pipe and a "
            "{deadline:g} s deadline: the searcher, the sloppy caller and the Loopboros "
            "deliver {star}; in the empty castle the searcher gives up in words, the "
            "Loopboros is reported as a failure after one retry, and a slow model is "
            "reported at the deadline."
        ).format(max_turns=run.max_turns, deadline=run.deadline_s, star=star)
    )


def _task(run: Run) -> tuple[str, str]:
    """What a run was asked: its system prompt and its first user message (the task)."""

    def first(role: str) -> str:
        return next((str(m.get("content")) for m in run.messages if m.get("role") == role), "")

    return first("system"), first("user")


# --- the catalogue ------------------------------------------------------------------------------

_OUTCOME = '''from dataclasses import dataclass

@dataclass
class Outcome:
    """How a run ended, and what the caller gets."""
    stop: str        # "end_turn", "terminal_tool" or "max_turns"
    answer: object   # the reply's text, the terminal tool's validated input, or None
    messages: list   # the whole conversation'''
_ASK = '''def ask(post, messages, tools):
    """One request with the whole history; the model's reply, added to the history."""
    reply = post({"messages": messages, "tools": [tool.schema for tool in tools]})
    message = reply["choices"][0]["message"]
    messages.append(message)
    return message'''
_RUN_CALL_SOLUTION = N_('''def run_call(call, tools):
    """One tool call -> (ok, data, output): a failure becomes an output, never an exception."""
    by_name = {tool.name: tool for tool in tools}
    name = call["function"]["name"]
    if name not in by_name:                          # the model asked for a tool we lack
        return False, None, f"Error: there is no tool {name!r}. Tools: {', '.join(by_name)}."
    try:
        data = dict(by_name[name].validate(call["function"]["arguments"]))   # check the input
        output = by_name[name].fn(**data)                                    # run the tool
    except Exception as exc:                         # bad input, or the tool raised
        return False, None, f"Error: {exc}"
    return True, data, str(output)''')
FROM_SCRATCH = {"outcome": _OUTCOME, "ask": _ASK}
"""Notebook 1-4's from-scratch cells that the exercises build on, as the notebook holds them
(tagged `scratch-1-4-<name>`; a test keeps the two identical)."""

EXERCISES: dict[str, tuple[Exercise, ...]] = {
    "00": (
        Exercise(
            id="00.a",
            var="q1",
            answer="first_run",
            blank="first_run = ____",
            hints=(
                N_('`load_level("1-2")` hides a star; `connect("searcher")` looks for it.'),
                N_(
                    '`run_agent(PROMPT, model=connect("searcher"), '
                    'tools=load_level("1-2").tools("search_blocks"))`.'
                ),
            ),
            solution_code=N_(
                'first_run = run_agent(PROMPT, model=connect("searcher"),\n'
                '                      tools=load_level("1-2").tools("search_blocks"))'
            ),
            verify=_verify_first_run,
        ),
    ),
    "1-1": (
        Exercise(
            id="1-1.a",
            var="q1",
            answer="run_a",
            blank="run_a = ____",
            hints=(
                N_("The Loopboros on level 1-1 never answers, so the clock is the only exit left."),
                N_(
                    '`run_agent(PROMPT, model=connect("loopboros"), '
                    'tools=load_level("1-1").tools(), max_turns=3)`.'
                ),
            ),
            solution_code=N_(
                'run_a = run_agent(PROMPT, model=connect("loopboros"),\n'
                '                  tools=load_level("1-1").tools(), max_turns=3)'
            ),
            verify=_verify_three_turns,
        ),
        Exercise(
            id="1-1.b",
            var="q2",
            answer="answer_or_none",
            blank="def answer_or_none(run):\n    return ____",
            hints=(
                N_("`run.answer` raises `NoAnswer` on the clock and the deadline."),
                N_("Catch it: `try: return run.answer` / `except NoAnswer: return None`."),
            ),
            solution_code=N_(
                "def answer_or_none(run):\n"
                "    try:\n"
                "        return run.answer\n"
                "    except NoAnswer:\n"
                "        return None"
            ),
            verify=_verify_answer_or_none,
        ),
        Exercise(
            id="1-1.c",
            var="q3",
            answer="budget_c",
            blank="budget_c = ____",
            hints=(
                N_(
                    "Count the turns of the longest honest run: the searcher on level 1-3, with "
                    "stop_on, takes 5 on the mock."
                ),
                N_(
                    "Then check what the Loopboros spends with that budget: "
                    "`tokens[n - 1]` from the 50-turn run above, or "
                    "`cumulative_tokens(run)[-1]`."
                ),
            ),
            solution_code=N_("budget_c = 6   # the searcher's longest run (5 turns) plus one"),
            verify=_verify_budget,
        ),
    ),
    "1-2": (
        Exercise(
            id="1-2.a",
            var="q1",
            answer="give_up_prompt",
            blank="give_up_prompt = ____",
            hints=(
                N_("Say what to do when the searches come back empty."),
                N_(
                    'The model needs permission to give up, in words, such as "say you '
                    "couldn't find it\"."
                ),
            ),
            solution_code=N_(
                'give_up_prompt = "If every search comes back empty, say that you '
                'could not find the star."'
            ),
            verify=_verify_give_up_prompt,
        ),
        Exercise(
            id="1-2.b",
            var="q2",
            answer="star_block",
            blank="def star_block(run):\n    return ____",
            hints=(
                N_("Get the text with `run.answer`, in a try/except NoAnswer as in 1-1.b."),
                N_(
                    'Then look for "block" and a number: '
                    '`re.search(r"block (\\d+)", text)`, and return `int(...)` of it.'
                ),
            ),
            solution_code=N_(
                "import re\n\n"
                "def star_block(run):\n"
                "    try:\n"
                "        text = run.answer\n"
                "    except NoAnswer:\n"
                "        return None\n"
                '    found = re.search(r"(?:block|bloco) (\\d+)", text)  # bloco: a Portuguese run\n'
                "    return int(found.group(1)) if found else None"
            ),
            verify=_verify_star_block,
        ),
    ),
    "1-3": (
        Exercise(
            id="1-3.a",
            var="q1",
            answer="run_a",
            blank="run_a = ____",
            hints=(
                N_("Offer both tools with `level.tools()`."),
                N_('Name the terminal tool: `stop_on=["mark_star"]`.'),
            ),
            solution_code=N_(
                'run_a = run_agent(PROMPT, model=connect("searcher"),\n'
                '                  tools=load_level("1-3").tools(), stop_on=["mark_star"])'
            ),
            verify=_verify_pipe,
        ),
        Exercise(
            id="1-3.b",
            var="q2",
            answer="exit_of",
            blank="def exit_of(run):\n    return ____",
            hints=(
                N_(
                    "Look at `run.stop`: one of `Stop.END_TURN`, `Stop.TERMINAL_TOOL`, "
                    "`Stop.MAX_TURNS`, `Stop.DEADLINE`."
                ),
                N_(
                    "A dict from each `Stop` value to its name does it: `Stop.END_TURN` is "
                    '"the flag", `Stop.TERMINAL_TOOL` "the warp pipe", `Stop.MAX_TURNS` '
                    '"the clock", `Stop.DEADLINE` "the deadline".'
                ),
            ),
            solution_code=N_(
                "def exit_of(run):\n"
                '    return {Stop.END_TURN: "the flag", Stop.TERMINAL_TOOL: "the warp pipe",\n'
                '            Stop.MAX_TURNS: "the clock", Stop.DEADLINE: "the deadline"}[run.stop]'
            ),
            verify=_verify_exit_of,
        ),
        Exercise(
            id="1-3.c",
            var="q3",
            answer="turns_saved",
            blank="turns_saved = ____",
            hints=(
                N_(
                    "Run the searcher on level 1-3 twice: once answering in text, once through "
                    "the pipe."
                ),
                N_(
                    'With only `search_blocks` (`level.tools("search_blocks")`) it answers in '
                    'text; with both tools and `stop_on=["mark_star"]` through the pipe. '
                    "Subtract the turns."
                ),
            ),
            solution_code=N_(
                'level = load_level("1-3")\n'
                'flag = run_agent(PROMPT, model=connect("searcher"), '
                'tools=level.tools("search_blocks"))\n'
                'pipe = run_agent(PROMPT, model=connect("searcher"), tools=level.tools(),\n'
                '                 stop_on=["mark_star"])\n'
                "turns_saved = len(flag.turns) - len(pipe.turns)"
            ),
            verify=_verify_turns_saved,
        ),
    ),
    "1-4": (
        Exercise(
            id="1-4.a",
            var="q1",
            answer="run_call",
            blank=N_(
                "def run_call(call, tools):\n"
                '    """One tool call -> (ok, data, output): a failure becomes an output, never an '
                'exception."""\n'
                "    by_name = {tool.name: tool for tool in tools}\n"
                '    name = call["function"]["name"]\n'
                "    if name not in by_name:                          # the model asked for a tool "
                "we lack\n"
                "        return False, None, ____\n"
                "    try:\n"
                '        data = dict(by_name[name].validate(call["function"]["arguments"]))   '
                "# check the input\n"
                "        output = by_name[name].fn(**data)                                    "
                "# run the tool\n"
                "    except ____ as exc:                              # bad input, or the tool "
                "raised\n"
                "        return False, None, ____\n"
                "    return True, data, str(output)"
            ),
            hints=(
                N_(
                    "Each `____` on a return line is the text the model reads instead of a "
                    "result: a short error line. The `____` after except is the kind of "
                    "exception to catch: any of them."
                ),
                N_(
                    '`f"Error: there is no tool {name!r}"`, `except Exception as exc:`, and '
                    '`f"Error: {exc}"`: the message of the exception is what lets the model '
                    "fix its call."
                ),
            ),
            solution_code=_RUN_CALL_SOLUTION,
            verify=_verify_run_call,
        ),
        Exercise(
            id="1-4.b",
            var="q2",
            answer="my_loop",
            blank=N_(
                "def my_loop(post, prompt, tools, max_turns=10, stop_on=()):\n"
                '    messages = [{"role": "user", "content": prompt}]\n'
                "    for turn in range(max_turns):\n"
                "        message = ask(post, messages, tools)\n"
                "        if ____:                                       # exit: the flag\n"
                "            return Outcome(____)\n"
                '        for call in message["tool_calls"]:\n'
                "            ok, data, output = run_call(call, tools)     # never raises\n"
                '            messages.append({"role": "tool", "tool_call_id": call["id"], '
                '"content": output})\n'
                "            if ____:                                   # exit: the warp pipe\n"
                "                return Outcome(____)\n"
                "    return Outcome(____)                               # exit: the clock"
            ),
            hints=(
                N_(
                    "The flag: a reply with no `tool_calls`. The warp pipe: a call to a tool "
                    "in `stop_on` that validated and ran (`ok`). The clock: the `for` loop ran "
                    "out. Each returns `Outcome(stop, answer, messages)`."
                ),
                N_(
                    '`if not message.get("tool_calls"):` returns `Outcome("end_turn", '
                    'message["content"], messages)`; `if ok and call["function"]["name"] '
                    'in stop_on:` returns `Outcome("terminal_tool", data, messages)`; after '
                    'the loop, `Outcome("max_turns", None, messages)`.'
                ),
            ),
            solution_code=N_(
                "def my_loop(post, prompt, tools, max_turns=10, stop_on=()):\n"
                '    messages = [{"role": "user", "content": prompt}]\n'
                "    for turn in range(max_turns):\n"
                "        message = ask(post, messages, tools)\n"
                '        if not message.get("tool_calls"):             # exit: the flag\n'
                '            return Outcome("end_turn", message["content"], messages)\n'
                '        for call in message["tool_calls"]:\n'
                "            ok, data, output = run_call(call, tools)     # never raises\n"
                '            messages.append({"role": "tool", "tool_call_id": call["id"], '
                '"content": output})\n'
                '            if ok and call["function"]["name"] in stop_on:   # exit: the warp '
                "pipe\n"
                '                return Outcome("terminal_tool", data, messages)\n'
                '    return Outcome("max_turns", None, messages)      # exit: the clock'
            ),
            verify=_verify_my_loop,
            given=_OUTCOME + "\n\n" + _ASK + "\n\n" + _RUN_CALL_SOLUTION,
        ),
        Exercise(
            id="1-4.c",
            var="q3",
            answer="exit_by_last_message",
            blank=N_(
                "import json\n\n"
                'def exit_by_last_message(messages, stop_on=("mark_star",)):\n'
                '    """The recipe: guess how a run ended from its last assistant message alone."""\n'
                '    last = [m for m in messages if m["role"] == "assistant"][-1]\n'
                '    calls = last.get("tool_calls") or []\n'
                "    if ____:                                        # no tool call: the flag\n"
                '        return "end_turn", last["content"]\n'
                '    if calls[0]["function"]["name"] in stop_on:     # a terminal call: the pipe\n'
                '        return "terminal_tool", ____\n'
                "    return ____                                     # anything else: the clock"
            ),
            hints=(
                N_(
                    "No tool call means `calls` is empty. The pipe's answer is the call's "
                    "arguments, a JSON string to parse. The clock has no answer."
                ),
                N_(
                    '`if not calls:`, `json.loads(calls[0]["function"]["arguments"])`, and '
                    '`return "max_turns", None`.'
                ),
            ),
            solution_code=N_(
                "import json\n\n"
                'def exit_by_last_message(messages, stop_on=("mark_star",)):\n'
                '    """The recipe: guess how a run ended from its last assistant message alone."""\n'
                '    last = [m for m in messages if m["role"] == "assistant"][-1]\n'
                '    calls = last.get("tool_calls") or []\n'
                "    if not calls:                                   # no tool call: the flag\n"
                '        return "end_turn", last["content"]\n'
                '    if calls[0]["function"]["name"] in stop_on:     # a terminal call: the pipe\n'
                '        return "terminal_tool", json.loads(calls[0]["function"]["arguments"])\n'
                '    return "max_turns", None                        # anything else: the clock'
            ),
            verify=_verify_recipe,
        ),
        Exercise(
            id="1-4.d",
            var="q4",
            answer="lying_run",
            blank="lying_run = ____",
            hints=(
                N_(
                    "The recipe trusts any call to a terminal tool. Which persona makes a "
                    "mark_star call that is rejected? And what if the clock rings right after "
                    "it?"
                ),
                N_(
                    'The sloppy caller on level 1-3, with stop_on=["mark_star"]: its fifth '
                    "turn is the rejected call. Stop the run right there: max_turns=5. (A "
                    'wrap-up after the clock lies too: try on_max_turns="wrap_up".)'
                ),
            ),
            solution_code=N_(
                'lying_run = run_agent(PROMPT, model=connect("sloppy"),\n'
                '                      tools=load_level("1-3").tools(), '
                'stop_on=["mark_star"], max_turns=5)'
            ),
            verify=_verify_lying_run,
        ),
        Exercise(
            id="1-4.e",
            var="q5",
            answer="castle_caller",
            blank=N_(
                "def castle_caller(model, level):\n"
                "    runs = []\n"
                "    for task in (PROMPT, ____):                          # the task, then a clearer one\n"
                "        run = run_agent(task, model=model, tools=level.tools(), system=____,\n"
                "                        max_turns=____, stop_on=____, deadline_s=____)\n"
                "        runs.append(run)\n"
                "        if run.has_answer:                               # the flag or the pipe\n"
                '            return "answer", run.answer, runs\n'
                "        if ____:                                         # the deadline: no retry\n"
                '            return "deadline", run.no_answer_reason, runs\n'
                '    return "clock", ____, runs                          # twice the clock: a failure'
            ),
            hints=(
                N_(
                    "Count the turns an honest run takes in the castle (sixteen rooms, one "
                    "reply, one rejected call for the sloppy caller), and add a margin. The "
                    "system prompt is your give-up sentence (level 1-2); the terminal tool is "
                    "mark_star; the mock answers in milliseconds, so a deadline of a few "
                    "seconds is plenty."
                ),
                N_(
                    'max_turns=20, system=GIVE_UP (or your own words), stop_on=["mark_star"], '
                    'deadline_s=2.0; the clearer task can be PROMPT plus " Search each room '
                    'once, then mark the star or say it is not here."; the deadline test is '
                    "`run.stop == Stop.DEADLINE`; the clock's report is "
                    "`runs[-1].no_answer_reason`."
                ),
            ),
            solution_code=N_(
                "def castle_caller(model, level):\n"
                "    runs = []\n"
                '    for task in (PROMPT, PROMPT + " Search each room once, then mark the star or '
                'say it is not here."):\n'
                "        run = run_agent(task, model=model, tools=level.tools(), system=GIVE_UP,\n"
                '                        max_turns=20, stop_on=["mark_star"], deadline_s=2.0)\n'
                "        runs.append(run)\n"
                "        if run.has_answer:                               # the flag or the pipe\n"
                '            return "answer", run.answer, runs\n'
                "        if run.stop == Stop.DEADLINE:                    # the deadline: no retry\n"
                '            return "deadline", run.no_answer_reason, runs\n'
                '    return "clock", runs[-1].no_answer_reason, runs     # twice the clock: a '
                "failure"
            ),
            verify=_verify_castle_caller,
        ),
    ),
}


def exercises(notebook: str) -> tuple[Exercise, ...]:
    """The exercises of one notebook ("00", "1-1", ... "1-4"), in order: q1, q2, ..."""
    if notebook not in EXERCISES:
        raise KeyError(
            _("no exercises for {notebook!r}; notebooks: {known}").format(
                notebook=notebook, known=", ".join(EXERCISES)
            )
        )
    return EXERCISES[notebook]


def by_tag(tag: str) -> Exercise:
    """The exercise whose answer cell carries this tag ("exercise-1-1-a")."""
    for group in EXERCISES.values():
        for exercise in group:
            if exercise.tag == tag:
                return exercise
    raise KeyError(_("no exercise tagged {tag!r}").format(tag=tag))


def cells_of(names: Sequence[str]) -> str:
    """Notebook 1-4's from-scratch cells, joined: what a test runs before an exercise's answer."""
    return "\n\n".join(FROM_SCRATCH[name] for name in names)


__all__ = [
    "EXERCISES",
    "FROM_SCRATCH",
    "Exercise",
    "Question",
    "Verdict",
    "____",
    "by_tag",
    "exercises",
    "mock_model",
    "mock_run",
    "predictions",
    "question_by_tag",
    "quiz",
    "still_blank",
]
