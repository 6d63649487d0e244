"""Every labelled learner answer in tests/mutations/ judged as its teacher judged it.

Each answer runs in a namespace where its notebook's earlier cells have run (in the edition its
`run_in` names: both, when the answer does not depend on the language), and its check must give
the teacher's verdict, in under ten seconds of CPU time, with a message that names the real cause
(`says`, and `says_en` / `says_pt` for words of one language: a few words, not a sentence) and
never shows the solution. An answer whose own line raises (`raises`) is not checked: the learner
sees the traceback. Most answers were written by an examiner who never saw the checks; those
marked `"author": "checks"` were added where an edition had too few. See tests/mutants.py.
"""

from __future__ import annotations

import re
import time

import pytest
from mutants import corpus, languages, namespace
from tally import Tally

from whentostop.i18n import using
from whentostop.lesson.checks import by_tag

ENTRIES = corpus()


EXERCISES = sorted({entry["exercise"] for entry in ENTRIES})


def _solution_lines(exercise: str, lang: str) -> list[str]:
    """The solution's lines that would give it away (code, long enough to be distinctive)."""
    with using(lang):
        code = by_tag("exercise-" + exercise.replace(".", "-")).code(solved=True)
    lines = (re.sub(r"\s+#.*$", "", line).strip() for line in code.splitlines())
    return [line for line in lines if len(line) >= 30]


def _miss(entry: dict, lang: str) -> str | None:
    """How the check's verdict on one labelled answer differs from the teacher's, or None."""
    exercise = by_tag("exercise-" + entry["exercise"].replace(".", "-"))
    with using(lang):
        names = namespace(entry["exercise"], lang)
        if entry.get("raises"):
            try:
                exec(compile(entry["code"], "<answer cell>", "exec"), names)
            except Exception as raised:  # the answer's own line raises
                kind = type(raised).__name__
                return None if kind == entry["raises"] else f"raised {kind}, not {entry['raises']}"
            return f"did not raise {entry['raises']}"
        exec(compile(entry["code"], "<answer cell>", "exec"), names)
        started = time.process_time()
        verdict = exercise.result(names[exercise.answer])
        spent = time.process_time() - started
    message = verdict.message
    if verdict.status != entry["teacher_verdict"]:
        return f"{verdict.status}, the teacher says {entry['teacher_verdict']} ({entry['cause']}): {message}"
    if spent >= 10.0:
        return f"{spent:.1f} s of CPU for one verdict"
    for words in (*entry.get("says", ()), *entry.get(f"says_{lang}", ())):
        if words.lower() not in message.lower():
            return f"{words!r} not in: {message}"
    for line in _solution_lines(entry["exercise"], lang):
        if line in message:
            return f"the message gives the solution away: {line}"
    return None


@pytest.mark.parametrize("exercise", EXERCISES)
def test_the_check_gives_the_teachers_verdict_and_names_the_cause(exercise, record_property):
    """Every labelled answer to one exercise, in each edition it runs in: one test per exercise,
    its tally printed, every miss listed (an answer marked `pending` is listed, not failed)."""
    tally = Tally(f"{exercise}: labelled answers judged as the teacher judged them")
    for entry in (e for e in ENTRIES if e["exercise"] == exercise):
        for lang in languages(entry):
            try:
                miss = _miss(entry, lang)
            except Exception as error:  # the check itself broke: a miss, with the others still run
                miss = f"the check raised {error!r}"
            tally.add(
                miss is None, f"{lang}-{entry['id']}: {miss}", pending=bool(entry.get("pending"))
            )
    tally.check(record_property)


def test_every_exercise_has_enough_answers_in_both_editions():
    """At least eight wrong answers and two unusual right ones per exercise, in each edition."""
    for exercise in sorted({e["exercise"] for e in ENTRIES}):
        for lang in ("en", "pt"):
            mine = [
                e
                for e in ENTRIES
                if e["exercise"] == exercise and lang in languages(e) and not e.get("raises")
            ]
            wrong = [e for e in mine if e["teacher_verdict"] == "incorrect"]
            right = [e for e in mine if e["teacher_verdict"] == "correct"]
            assert len(wrong) >= 8 and len(right) >= 2, (exercise, lang, len(wrong), len(right))


def test_every_wrong_answer_says_what_names_its_cause():
    for entry in ENTRIES:
        if entry["teacher_verdict"] == "incorrect" and not entry.get("raises"):
            assert entry.get("says") or entry.get("says_en") or entry.get("says_pt"), entry["id"]
