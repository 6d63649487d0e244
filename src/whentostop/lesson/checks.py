"""Exercise checkers for the notebooks, in the style of Kaggle's learntools.

    from whentostop.lesson.checks import ____, exercises, predictions, quiz
    q1, q2, q3 = exercises("1-1")
    run_a = ____            # the learner replaces the blank with an answer
    q1.check(run_a)         # "Not attempted yet", a helpful "Not yet", or "Correct"
    q1.hint(); q1.hint(2); q1.solution()

    p1, p2 = predictions("1-1")   # before a key run: commit to a letter, then run
    p1.check("b")                 # "Correct" and why, or "Not yet" and what that option misses
    c1, c2, c3, c4, c5 = quiz("1-1")   # five questions at the end of the level

An exercise is data (`data/lesson/<notebook>.toml`: its blank cell, hints, solution file and the
cases it is tried on); a named judge (`lesson/judges.py`) runs the learner's answer beside the
solution on each case, on the offline mock (never a real endpoint), and raises `Incorrect` for
the first case it gets wrong. The learner's code runs under limits (`lesson/limits.py`): whatever
it does, a verdict comes within `LIMIT_S` seconds and the kernel stays usable. A blank answer
never raises: a notebook runs top to bottom. Every word a learner reads comes from the catalogue
(`whentostop.i18n`), in the language in effect.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..i18n import N_, _
from . import capstone, limits, loopcheck
from .cases import mock_run as mock_run  # the checks' public names: tests call them here
from .content import NOTEBOOKS, QUESTION_KINDS, ExerciseText, exercise_texts, said, translate_code
from .judges import GIVE_UP_EXAMPLES as GIVE_UP_EXAMPLES
from .judges import JUDGES
from .questions import BANK
from .verdict import (
    PROGRESS,
    Incorrect,
    NotAttempted,
    Progress,
    Verdict,
    ____,
    is_blank,
    raised,
    still_blank,
    wrong,
)

LIMIT_S = 9.0
"""The wall time a check gives the learner's code (and its own runs beside it): every verdict
arrives within ten seconds."""

WORDS: dict[str, str] = {
    "correct": N_("Correct"),
    "incorrect": N_("Not yet"),
    "not attempted": N_("Not attempted yet"),
}
"""The verdict's first words (a symbol may follow them: not every screen has an emoji font)."""
SYMBOLS = {"correct": "✓", "incorrect": "✗", "not attempted": "✎"}


def _show(markdown: str, plain: str) -> None:
    """Rich text in a notebook, plain text anywhere else."""
    from IPython import get_ipython  # ipywidgets's dependency, so the package's too
    from IPython.display import display

    if get_ipython() is None:
        print(plain)
    else:
        display({"text/markdown": markdown, "text/plain": plain}, raw=True)


def _say(label: str, verdict: Verdict) -> None:
    """Show a verdict: the item, the status word first, then the sentence."""
    word = _(WORDS[verdict.status])
    plain = _("{label} — {word}: {message}").format(label=label, word=word, message=verdict.message)
    markdown = _("**{label} — {word}** {symbol}: {message}").format(
        label=label, word=word, symbol=SYMBOLS[verdict.status], message=verdict.markdown
    )
    _show(markdown, plain)


@dataclass(frozen=True)
class Exercise:
    """One exercise: an id the text points to, and its check, hints and solution, as its data
    file says them."""

    text: ExerciseText

    def __getattr__(self, name: str) -> Any:
        """Its data file's `id` ("1-1.a": level 1-1, first exercise; its cell is tagged
        "exercise-1-1-a"), `var` (q1, q2, ...), `answer` (the name the learner's answer goes
        into), `blank` (the answer cell's code as committed, in English) and `hints` (msgids)."""
        if name in ("id", "var", "answer", "blank", "hints"):
            return getattr(self.text, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def solution_code(self) -> str:
        """The solution cell's code, in English (its file, below the marker line)."""
        return self.text.solution

    @property
    def tag(self) -> str:
        return "exercise-" + self.id.replace(".", "-")

    @property
    def check_line(self) -> str:
        return f"{self.var}.check({self.answer})"

    @property
    def label(self) -> str:
        return _("Exercise {id}").format(id=self.id)

    def code(self, solved: bool = False) -> str:
        """The blank (or the solution) in the language in effect: comments and prose translated."""
        return translate_code(self.solution_code if solved else self.blank, _)

    def cell(self, solved: bool = False) -> str:
        """The answer cell's source: blank as committed, or with the solution filled in."""
        return f"# {self.label}\n{self.code(solved)}\n\n{self.check_line}"

    def check(self, answer: Any = ____) -> None:
        """Run the answer on the mock and say what came of it. Never raises (Ctrl-C aside)."""
        verdict = self.result(answer)
        if verdict.printed:
            print(verdict.printed)
        _say(self.label, verdict)

    def result(self, answer: Any = ____) -> Verdict:
        """The verdict without printing it (what `check` shows)."""
        if is_blank(answer) or (callable(answer) and still_blank(answer)):
            return self._not_attempted()
        PROGRESS.__dict__.update(Progress().__dict__)
        judge = JUDGES[self.text.judge]
        ran = limits.run_limited(lambda: judge(self.text, answer), seconds=LIMIT_S)
        if ran.timed_out:
            verdict = self._timed_out().verdict()
        elif isinstance(ran.raised, NotAttempted):
            verdict = self._not_attempted()
        elif isinstance(ran.raised, Incorrect):
            verdict = ran.raised.verdict()
        elif ran.raised is not None:
            verdict = _raised_elsewhere(ran.raised).verdict()
        else:
            verdict = ran.value
        return _with_printed(verdict, ran)

    def _not_attempted(self) -> Verdict:
        blanks = _(said("shared", "replace_the_blanks")).format(name=self.answer)
        return Verdict("not attempted", blanks)

    def _timed_out(self) -> Incorrect:
        says = {"loop": loopcheck.timed_out, "caller": capstone.timed_out}.get(self.text.takes)
        if says is not None:  # a loop or a caller: its judge knows what it was doing
            return says(LIMIT_S)
        if PROGRESS.case:
            return wrong("shared", "did_not_return_in_time", seconds=LIMIT_S)
        return wrong("shared", "check_did_not_finish", seconds=LIMIT_S)

    def hint(self, step: int = 1) -> None:
        """The first hint, or `hint(2)`: the second, which says more."""
        total = len(self.hints)
        step = min(max(int(step), 1), total)
        text = _(self.hints[step - 1])
        head = _("Hint {step} of {total} ({id})").format(step=step, total=total, id=self.id)
        further = _("More: `{var}.hint({next})`.").format(var=self.var, next=step + 1)
        more = f" {further}" if step < total else ""
        _show(f"**{head}**: {text}{more}", f"{head}: {text}{more}")

    def solution(self) -> None:
        head = _("Solution ({id})").format(id=self.id)
        code = self.code(solved=True)
        _show(f"**{head}**:\n\n```python\n{code}\n```", f"{head}:\n{code}")


def _raised_elsewhere(exc: BaseException) -> Incorrect:
    """Something the answer did raised outside the cases' own calls (its `__eq__`, its repr)."""
    if PROGRESS.case:
        return Incorrect(_("with {case}, your answer raised {kind}: {error}"), **raised(exc))
    return Incorrect(_("your answer raised {kind}: {error}"), **raised(exc))


def _with_printed(verdict: Verdict, ran: limits.Ran) -> Verdict:
    """The verdict, with what the learner's code printed during the check (bounded)."""
    if not ran.printed:
        return verdict
    more = _("… ({n:,} more characters printed, not shown)").format(n=ran.unprinted)
    printed = ran.printed + ("\n" + more if ran.unprinted else "")
    return Verdict(verdict.status, verdict.message, verdict.markdown, printed)


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
        if is_blank(letter) or letter is None:
            blank = _(said("shared", "question_not_attempted"))
            return Verdict("not attempted", blank.format(var=self.var, first=self.letters[0]))
        chosen = str(letter).strip().lower().strip("()")
        if chosen not in self.letters:
            letters = ", ".join(f'"{x}"' for x in self.letters)
            return Verdict("incorrect", _("choose one of {letters}.").format(letters=letters))
        option = {"letter": chosen, "option": _(self.text.options[self.letters.index(chosen)])}
        if chosen == self.answer:
            right = _("({letter}) {option} {why}")
            return Verdict("correct", right.format(why=_(self.text.why), **option))
        missed = _("({letter}) {option} {feedback} Try another letter.")
        return Verdict("incorrect", missed.format(feedback=_(self.text.feedback[chosen]), **option))

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
    return _questions(notebook, "prediction")


def quiz(notebook: str) -> tuple[Question, ...]:
    """A notebook's five end-of-level questions: c1 ... c5."""
    return _questions(notebook, "quiz")


def _questions(notebook: str, kind: str) -> tuple[Question, ...]:
    texts = _known(BANK, notebook, N_("no questions for {notebook!r}; notebooks: {known}"))
    prefix = QUESTION_KINDS[kind]
    return tuple(
        Question(f"{notebook}.{prefix}{i}", f"{prefix}{i}", text)
        for i, text in enumerate(texts[kind], start=1)
    )


def question_by_tag(tag: str) -> Question:
    """The question whose cell carries this tag ("question-1-1-p1")."""
    questions = (q for notebook in BANK for q in (*predictions(notebook), *quiz(notebook)))
    return _tagged(questions, tag, N_("no question tagged {tag!r}"))


EXERCISES: dict[str, tuple[Exercise, ...]] = {
    notebook: tuple(Exercise(text) for text in exercise_texts(notebook)) for notebook in NOTEBOOKS
}
"""Every notebook's exercises, in order: q1, q2, ..."""


def exercises(notebook: str) -> tuple[Exercise, ...]:
    """The exercises of one notebook ("00", "1-1", ... "1-4"), in order: q1, q2, ..."""
    return _known(EXERCISES, notebook, N_("no exercises for {notebook!r}; notebooks: {known}"))


def by_tag(tag: str) -> Exercise:
    """The exercise whose answer cell carries this tag ("exercise-1-1-a")."""
    everyone = (exercise for group in EXERCISES.values() for exercise in group)
    return _tagged(everyone, tag, N_("no exercise tagged {tag!r}"))


def _known(table: dict[str, Any], notebook: str, unknown: str) -> Any:
    """`table[notebook]`, or a KeyError that names the notebooks there are (`unknown`, a msgid)."""
    if notebook not in table:
        raise KeyError(_(unknown).format(notebook=notebook, known=", ".join(table)))
    return table[notebook]


def _tagged(items: Iterable[Any], tag: str, unknown: str) -> Any:
    """The item whose cell carries `tag`, or a KeyError that says none does (`unknown`, a msgid)."""
    found = next((item for item in items if item.tag == tag), None)
    if found is None:
        raise KeyError(_(unknown).format(tag=tag))
    return found
