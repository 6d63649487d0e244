"""The exercise checkers: every exercise says "Not attempted yet" for a blank, helps on a wrong
answer, and accepts its own solution, in both languages — judged by running the answer on the
mock, beside the solution, on every declared case. Verdicts put their words first ("Correct",
"Not yet", "Not attempted yet"), name the case that exposed a mistake, quote what the learner's
code or a model said bounded and escaped, and arrive whatever the learner's code does."""

from __future__ import annotations

import dataclasses
import re
import time

import pytest
from answers import answer, context_of, defined
from tally import Tally
from test_intent import GIVES_UP

from whentostop import NoAnswer, Stop, connect, load_level, run_agent
from whentostop.i18n import _, using
from whentostop.i18n import _ as translated
from whentostop.lesson import checks
from whentostop.lesson.checks import (
    EXERCISES,
    GIVE_UP_EXAMPLES,
    ____,
    by_tag,
    exercises,
    mock_run,
    predictions,
    question_by_tag,
    quiz,
)
from whentostop.lesson.content import MARKER, exercise_texts, solution_parts

ALL = [ex for group in EXERCISES.values() for ex in group]
IDS = [ex.id for ex in ALL]


@pytest.mark.parametrize("exercise", ALL, ids=IDS)
def test_blank_answer_is_not_attempted_and_never_raises(exercise, capsys):
    blank = defined(exercise.blank, exercise.answer, context_of(exercise.id))
    assert exercise.result(blank).status == "not attempted"
    exercise.check(blank)
    exercise.check()
    out = capsys.readouterr().out
    assert out.count(f"Exercise {exercise.id} — Not attempted yet: ") == 2


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("exercise", ALL, ids=IDS)
def test_own_solution_is_correct_in_both_languages(exercise, lang, capsys):
    with using(lang):
        verdict = exercise.result(answer(exercise.id))
        assert verdict.status == "correct", verdict.message
        exercise.check(answer(exercise.id))
        word = translated("Correct")
    assert f" — {word}: " in capsys.readouterr().out


@pytest.mark.parametrize("exercise", ALL, ids=IDS)
def test_hints_come_in_two_steps_and_the_solution_prints_without_running_anything(exercise, capsys):
    exercise.hint()
    first = capsys.readouterr().out
    exercise.hint(2)
    second = capsys.readouterr().out
    assert f"Hint 1 of 2 ({exercise.id})" in first and f"{exercise.var}.hint(2)" in first
    assert (
        f"Hint 2 of 2 ({exercise.id})" in second
        and first.split(": ", 1)[1] != second.split(": ", 1)[1]
    )
    exercise.solution()
    assert exercise.solution_code in capsys.readouterr().out


@pytest.mark.parametrize("exercise", ALL, ids=IDS)
def test_answer_cell_is_tagged_and_solvable(exercise):
    assert by_tag(exercise.tag) is exercise
    assert re.fullmatch(r"exercise-(00|1-[1234])-[a-z]", exercise.tag)
    assert exercise.cell().endswith(exercise.check_line)
    assert "____" in exercise.cell() and "____" not in exercise.cell(solved=True)


@pytest.mark.parametrize("exercise", ALL, ids=IDS)
def test_the_solution_shown_is_its_file_below_the_marker_line(exercise):
    header, cell = solution_parts(exercise.text.solution_file)
    assert exercise.solution_code == cell and MARKER not in cell
    assert "import" in header or '"""' in header  # the lint context, never shown


def test_each_level_has_at_least_two_exercises_and_00_a_warm_up():
    assert len(exercises("00")) >= 1
    for level in ("1-1", "1-2", "1-3", "1-4"):
        group = exercises(level)
        assert len(group) >= 2
        assert [ex.var for ex in group] == [f"q{i}" for i in range(1, len(group) + 1)]


def test_the_exercises_are_the_data_files_exercises():
    for notebook, group in EXERCISES.items():
        assert [ex.text for ex in group] == list(exercise_texts(notebook))


def test_every_exercise_is_tried_on_more_than_the_case_shown():
    """A function is called on several runs (other levels, personas, exits); a loop and a caller
    on several personas and levels."""
    for exercise in ALL:
        if exercise.text.takes:
            assert len(exercise.text.cases) >= 5, exercise.id


# --- what a verdict says, and how ---------------------------------------------------------------


def test_a_learners_code_that_raises_is_reported_with_the_case_that_raised():
    def broken(run):
        return run.no_such_attribute

    verdict = by_tag("exercise-1-3-b").result(broken)
    assert verdict.status == "incorrect"
    assert "AttributeError" in verdict.message
    assert translated(by_tag("exercise-1-3-b").text.cases[0].title) in verdict.message


@pytest.mark.parametrize("tag", ["exercise-1-2-a", "exercise-1-3-c", "exercise-00-a"])
def test_none_is_an_answer_to_judge_not_a_blank(tag):
    verdict = by_tag(tag).result(None)
    assert verdict.status == "incorrect" and "None" in verdict.message


def test_a_hard_coded_answer_fails_on_a_case_it_was_not_written_for():
    """The value the check showed for one case, returned for every run: another level exposes it."""

    def echoed(run):
        return 7 if run.has_answer else None

    verdict = by_tag("exercise-1-2-b").result(echoed)
    assert verdict.status == "incorrect" and "level 1-3" in verdict.message


HOSTILE = "<img src=x onerror=alert(1)> ](javascript:alert(1)) $x$ | **bold**"


def test_a_verdict_quoting_model_or_learner_text_escapes_it_in_markdown():
    verdict = by_tag("exercise-1-1-b").result(lambda run: HOSTILE)
    assert verdict.status == "incorrect"
    assert "<img" in verdict.message  # the plain text says what was returned
    assert "<img" not in verdict.markdown and "&lt;img" in verdict.markdown
    assert "](javascript" not in verdict.markdown and "$x$" not in verdict.markdown


def test_a_huge_return_is_described_in_bounded_time():
    started = time.process_time()
    verdict = by_tag("exercise-1-1-b").result(lambda run: list(range(3_000_000)))
    assert verdict.status == "incorrect" and "..." in verdict.message
    assert len(verdict.message) < 600
    assert time.process_time() - started < 3.0  # describing it costs no more than six items


@pytest.mark.parametrize(
    "body, says",
    [
        ("import sys\n    sys.exit(3)", "sys.exit()"),
        ("raise KeyboardInterrupt", "KeyboardInterrupt"),
        ("raise GeneratorExit", "GeneratorExit"),
    ],
)
def test_a_base_exception_from_the_learners_code_is_a_verdict_not_an_escape(body, says):
    fn = defined(f"def answer_or_none(run):\n    {body}\n", "answer_or_none")
    verdict = by_tag("exercise-1-1-b").result(fn)
    assert verdict.status == "incorrect" and says in verdict.message


@pytest.fixture
def short_limit(monkeypatch):
    """A check's time limit of one second, so that a test of the limit itself is quick."""
    monkeypatch.setattr(checks, "LIMIT_S", 1.0)
    return 1.0


@pytest.mark.parametrize(
    "body",
    [
        "while True:\n        pass",
        "while True:\n        try:\n            run.answer\n        except:\n            pass",
        "import time\n    time.sleep(60)",
        "while True:\n        print('spam ' * 100)",
    ],
    ids=["never-returns", "bare-except", "sleeps", "prints-forever"],
)
def test_learner_code_that_never_returns_gets_its_verdict_within_the_limit(body, short_limit):
    fn = defined(f"def exit_of(run):\n    {body}\n", "exit_of")
    started = time.monotonic()
    verdict = by_tag("exercise-1-3-b").result(fn)
    assert time.monotonic() - started < short_limit + 1.0
    assert verdict.status == "incorrect" and "did not return within 1 s" in verdict.message
    assert len(verdict.printed) <= checks.limits.MAX_PRINTED + 100


def test_every_verdict_is_within_ten_seconds():
    assert checks.LIMIT_S < 10


def test_what_the_learners_code_printed_is_shown_before_the_verdict_bounded(capsys):
    def chatty(run):
        print("looking at", run.stop)
        try:
            return run.answer
        except NoAnswer:
            return None

    by_tag("exercise-1-1-b").check(chatty)
    out = capsys.readouterr().out
    assert out.index("looking at") < out.index("Exercise 1-1.b — Correct")


# --- 00 -----------------------------------------------------------------------------------------


def test_first_run_on_the_empty_level_is_told_it_searched_another_level():
    verdict = by_tag("exercise-00-a").result(mock_run("1-1", "loopboros", max_turns=3))
    assert verdict.status == "incorrect"
    assert "level 1-1" in verdict.message and 'load_level("1-2")' in verdict.message


def test_first_run_that_is_not_a_run_is_named():
    verdict = by_tag("exercise-00-a").result("I found the star")
    assert verdict.status == "incorrect" and "Run" in verdict.message


def test_first_run_offering_both_tools_is_told_the_task_offers_only_search_blocks():
    run = run_agent(
        _("Find the star in this level."),
        model=connect("searcher"),
        tools=load_level("1-2").tools(),
    )
    verdict = by_tag("exercise-00-a").result(run)
    assert verdict.status == "incorrect" and "offered mark_star too" in verdict.message


# --- 1-1 ----------------------------------------------------------------------------------------


def test_clock_after_five_turns_is_told_to_set_three():
    verdict = by_tag("exercise-1-1-a").result(mock_run("1-1", "loopboros", max_turns=5))
    assert verdict.status == "incorrect"
    assert "5 turns" in verdict.message and "max_turns=3" in verdict.message


def test_clock_exercise_with_a_run_that_answered_is_told_it_is_not_the_clock():
    verdict = by_tag("exercise-1-1-a").result(mock_run("1-2", only_search=True, max_turns=3))
    assert verdict.status == "incorrect"
    assert "ended on the flag" in verdict.message and "not the clock" in verdict.message


def test_clock_exercise_with_the_searcher_on_level_1_2_stopped_at_3_turns_is_not_accepted():
    """Both tools offered, so the searcher marks the star on turn 3, and the clock stops it
    there: three turns on the clock, but not the Loopboros on level 1-1 the task asks for."""
    run = mock_run("1-2", max_turns=3)
    assert run.stop == Stop.MAX_TURNS and len(run.turns) == 3
    verdict = by_tag("exercise-1-1-a").result(run)
    assert verdict.status == "incorrect" and "another level" in verdict.message


def test_clock_exercise_with_the_searcher_on_level_1_1_asks_for_the_loopboros():
    verdict = by_tag("exercise-1-1-a").result(mock_run("1-1", max_turns=3))
    assert verdict.status == "incorrect"
    assert "the searcher" in verdict.message and 'connect("loopboros")' in verdict.message


def test_a_run_edited_after_it_ran_is_not_a_run_of_the_task():
    import copy

    long = mock_run("1-1", "loopboros", max_turns=10)
    cut = copy.copy(long)
    cut.turns = long.turns[:3]
    verdict = by_tag("exercise-1-1-a").result(cut)
    assert verdict.status == "incorrect" and "as run_agent made it" in verdict.message


def test_answer_or_none_that_lets_noanswer_escape_on_the_deadline_is_told_so():
    def only_the_clock(run):
        return None if run.stop == Stop.MAX_TURNS else run.answer

    verdict = by_tag("exercise-1-1-b").result(only_the_clock)
    assert verdict.status == "incorrect"
    assert "NoAnswer" in verdict.message and "deadline" in verdict.message


def test_answer_or_none_that_returns_the_last_message_is_told_it_is_not_an_answer():
    def last_text(run):
        return run.last_message.get("content")

    verdict = by_tag("exercise-1-1-b").result(last_text)
    assert verdict.status == "incorrect"
    assert "the clock" in verdict.message and "last message" in verdict.message


@pytest.mark.parametrize(
    "budget, says",
    [
        (4, "needs 5 turns"),  # too tight: the searcher cannot finish level 1-3
        (25, "over the cap"),  # too loose: the Loopboros burns tokens
        (5000, "counts turns, not tokens"),  # a number of tokens: refused without running it
        (0, "whole number"),
        ("6", "whole number"),
        (6.0, "whole number"),
        (True, "whole number"),
    ],
)
def test_budget_outside_the_range_says_which_way_to_move(budget, says):
    verdict = by_tag("exercise-1-1-c").result(budget)
    assert verdict.status == "incorrect"
    assert says in verdict.message


@pytest.mark.parametrize("budget", [5, 6, 7])
def test_every_budget_in_the_range_is_accepted(budget):
    assert by_tag("exercise-1-1-c").result(budget).status == "correct"


def test_a_numpy_integer_is_a_whole_number_of_turns():
    np = pytest.importorskip("numpy")
    assert by_tag("exercise-1-1-c").result(np.int64(6)).status == "correct"
    assert by_tag("exercise-1-3-c").result(np.int64(0)).status == "correct"


# --- 1-2 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prompt",
    [
        "You are a helpful assistant.",
        "Never give up: the star is there.",
    ],
)
def test_prompt_without_permission_is_told_the_searcher_hit_the_clock(prompt):
    verdict = by_tag("exercise-1-2-a").result(prompt)
    assert verdict.status == "incorrect"
    assert "until the clock" in verdict.message


def test_give_up_prompt_in_other_words_is_accepted_and_the_loopboros_still_hits_the_clock():
    verdict = by_tag("exercise-1-2-a").result("If you cannot find it, give up and say so.")
    assert verdict.status == "correct"
    assert "Loopboros" in verdict.message and "the clock" in verdict.message


def test_a_prompt_that_gives_up_before_the_star_is_found_is_told_so():
    verdict = by_tag("exercise-1-2-a").result("Give up after one empty search and say so.")
    assert verdict.status == "incorrect"
    assert "level 1-2" in verdict.message and "without finding the star" in verdict.message


def test_a_prompt_the_mock_understands_is_quoted_in_the_verdict():
    verdict = by_tag("exercise-1-2-a").result(
        "Reply 'not found' when the searches keep coming back empty."
    )
    assert verdict.status == "correct"
    assert "“Reply 'not found' when the searches keep coming back empty”" in verdict.message


def test_a_prompt_without_permission_is_told_what_the_mock_read_and_two_wordings_it_understands():
    message = by_tag("exercise-1-2-a").result("You are a helpful assistant.").message
    assert "What the mock read: nothing about giving up" in message
    assert "What it missed: permission" in message
    assert "not a language model" in message
    for example in GIVE_UP_EXAMPLES:
        assert f"“{example}”" in message


def test_a_refusal_is_named_with_its_words():
    message = (
        by_tag("exercise-1-2-a")
        .result("The star is definitely here. Don't say you couldn't find it.")
        .message
    )
    assert "“Don't say you couldn't find it”" in message
    assert "the last one decides" in message


def test_the_verdict_and_its_wordings_are_in_the_language_in_effect():
    with using("pt"):
        refused = by_tag("exercise-1-2-a").result("Nunca desista.").message
        accepted = by_tag("exercise-1-2-a").result("Avise se não estiver lá.")
        examples = [_(e) for e in GIVE_UP_EXAMPLES]
    assert "“Nunca desista”" in refused
    assert all(f"“{e}”" in refused for e in examples) and examples != list(GIVE_UP_EXAMPLES)
    assert accepted.status == "correct" and "“Avise se não estiver lá”" in accepted.message


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_wordings_offered_are_understood_by_the_mock(lang):
    with using(lang):
        for example in GIVE_UP_EXAMPLES:
            assert by_tag("exercise-1-2-a").result(_(example)).status == "correct"


def test_every_permission_in_the_corpus_passes_exercise_1_2_a(record_property):
    """The intent corpus's permissions (tests/test_intent.py), each tried as 1-2.a's answer:
    one test, its tally printed, every miss listed."""
    exercise = by_tag("exercise-1-2-a")
    tally = Tally("permissions in the intent corpus that pass exercise 1-2.a")
    for phrasing in GIVES_UP:
        verdict = exercise.result(phrasing)
        tally.add(verdict.status == "correct", f"{phrasing!r}: {verdict.message}")
    tally.check(record_property)


def test_star_block_returning_text_is_told_to_return_an_int():
    def as_text(run):
        try:
            found = re.search(r"block (\d+)", run.answer)
        except NoAnswer:
            return None
        return found.group(1) if found else None

    verdict = by_tag("exercise-1-2-b").result(as_text)
    assert verdict.status == "incorrect" and "int" in verdict.message


def test_star_block_that_reads_the_last_message_is_caught_on_a_clock_run_that_names_the_block():
    def last_message(run):
        found = re.search(r"block (\d+)", (run.last_message or {}).get("content") or "")
        return int(found.group(1)) if found else None

    verdict = by_tag("exercise-1-2-b").result(last_message)
    assert verdict.status == "incorrect" and "max_turns=5" in verdict.message


def test_star_block_with_the_english_pattern_is_right_in_english_and_wrong_in_portuguese():
    def english_only(run):
        if not run.has_answer:
            return None
        found = re.search(r"block (\d+)", run.answer)
        return int(found.group(1)) if found else None

    assert by_tag("exercise-1-2-b").result(english_only).status == "correct"
    with using("pt"):
        assert by_tag("exercise-1-2-b").result(english_only).status == "incorrect"


# --- 1-3 ----------------------------------------------------------------------------------------


def test_marking_without_stop_on_is_told_to_open_the_pipe():
    verdict = by_tag("exercise-1-3-a").result(mock_run("1-3"))
    assert verdict.status == "incorrect"
    assert "stop_on" in verdict.message and "one turn later" in verdict.message


def test_offer_both_tools_is_said_only_when_a_tool_was_missing():
    """The old check said "Offer both tools" to a run that offered both and stopped early."""
    short = mock_run("1-3", stop_on=True, max_turns=4)
    verdict = by_tag("exercise-1-3-a").result(short)
    assert verdict.status == "incorrect"
    assert "offer" not in verdict.message.lower() and "max_turns=4" in verdict.message


def test_a_pipe_on_the_wrong_tool_is_told_which_tool_is_terminal_not_which_level_to_load():
    run = run_agent(
        _("Find the star in this level."),
        model=connect("searcher"),
        tools=load_level("1-3").tools(),
        stop_on=["search_blocks"],
    )
    verdict = by_tag("exercise-1-3-a").result(run)
    assert verdict.status == "incorrect"
    assert "mark_star" in verdict.message and "load_level" not in verdict.message


def test_a_pipe_on_another_tool_that_never_opened_names_the_terminal_tool():
    """stop_on names another tool, and the run ended on the flag (its stop_on edited here): the
    verdict says which tool is terminal, with no answer to quote."""
    run = dataclasses.replace(mock_run("1-3"), stop_on=("search_blocks",))
    verdict = by_tag("exercise-1-3-a").result(run)
    assert verdict.status == "incorrect"
    assert "stop_on=['search_blocks']" in verdict.message and "mark_star" in verdict.message


def test_pipe_on_the_wrong_level_is_told_so():
    verdict = by_tag("exercise-1-3-a").result(mock_run("1-2", stop_on=True))
    assert verdict.status == "incorrect" and "level 1-2" in verdict.message


def test_sloppy_caller_through_the_pipe_is_accepted():
    level = load_level("1-3")
    run = run_agent(
        "Find the star in this level.",
        model=connect("sloppy"),
        tools=level.tools(),
        stop_on=["mark_star"],
    )
    assert by_tag("exercise-1-3-a").result(run).status == "correct"


def test_exit_of_that_confuses_clock_and_deadline_names_the_run():
    def two_names(run):
        return (
            "the flag"
            if run.has_answer and run.stop == Stop.END_TURN
            else ("the warp pipe" if run.has_answer else "the clock")
        )

    verdict = by_tag("exercise-1-3-b").result(two_names)
    assert verdict.status == "incorrect"
    assert "deadline" in verdict.message and "'the deadline'" in verdict.message


@pytest.mark.parametrize(
    "proxy",
    [
        "'the warp pipe' if run.stop_on else 'the flag'",  # a terminal tool was offered
        "'the deadline' if run.deadline_s else 'the flag'",  # a deadline was set
        "'the clock' if len(run.turns) == run.max_turns else 'the flag'",  # the last turn
    ],
)
def test_exit_of_that_reads_a_proxy_for_the_stop_fails_on_a_run_where_the_proxy_lies(proxy):
    code = (
        "def exit_of(run):\n"
        "    names = {Stop.END_TURN: 'the flag', Stop.TERMINAL_TOOL: 'the warp pipe',\n"
        "             Stop.MAX_TURNS: 'the clock', Stop.DEADLINE: 'the deadline'}\n"
        f"    return {proxy} if run.stop == Stop.END_TURN else names[run.stop]\n"
    )
    verdict = by_tag("exercise-1-3-b").result(defined(code, "exit_of"))
    assert verdict.status == "incorrect" and "expected 'the flag'" in verdict.message


def test_exit_of_that_returns_the_librarys_exit_name_is_told_the_task_forbids_it():
    def peeking(run):
        return run.exit_name

    verdict = by_tag("exercise-1-3-b").result(peeking)
    assert verdict.status == "incorrect"
    assert "exit_name" in verdict.message and "Stop" in verdict.message


def test_exit_of_is_judged_against_the_exit_names_of_the_language_in_effect():
    from whentostop.outcome import EXIT_NAMES

    with using("pt"):
        names = {stop: _(name) for stop, name in EXIT_NAMES.items()}

        def in_portuguese(run):
            return names[run.stop]

        verdict = by_tag("exercise-1-3-b").result(in_portuguese)
    assert verdict.status == "correct", verdict.message


def test_turns_saved_of_one_is_told_it_is_the_done_turn():
    verdict = by_tag("exercise-1-3-c").result(1)
    assert verdict.status == "incorrect" and "Done" in verdict.message


def test_turns_saved_far_off_asks_to_run_both():
    verdict = by_tag("exercise-1-3-c").result(3)
    assert verdict.status == "incorrect" and "run both" in verdict.message


def test_checks_use_the_mock_even_when_an_endpoint_is_configured(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("WHENTOSTOP_MODEL", "llama3.2")
    assert by_tag("exercise-1-3-c").result(0).status == "correct"


def test_unknown_notebook_and_tag_are_clear_errors():
    with pytest.raises(KeyError, match="notebooks: 00, 1-1"):
        exercises("2-1")
    with pytest.raises(KeyError, match="exercise-9-9-z"):
        by_tag("exercise-9-9-z")


def test_blank_placeholder_reads_as_the_blank():
    assert repr(____) == "____"


# --- predictions and end-of-level questions -----------------------------------------------------

QUESTIONS = [q for level in EXERCISES for q in (*predictions(level), *quiz(level))]


def _verdicts_miss(question) -> str | None:
    """What is wrong with a question's verdicts, or None: every wrong letter is told its own
    feedback, the right one (in any case) why."""
    wrong = [letter for letter in question.letters if letter != question.answer]
    if question.answer not in question.letters or len(question.letters) < 3:
        return f"answer {question.answer!r} among {question.letters}"
    if set(question.text.feedback) != set(wrong):
        return f"feedback for {sorted(question.text.feedback)}, wrong options {wrong}"
    feedback = [translated(question.text.feedback[letter]) for letter in wrong]
    if not all(feedback) or len(set(feedback)) != len(feedback):
        return "two wrong options share their feedback, or one has none"
    for letter in wrong:
        verdict = question.result(letter)
        if verdict.status != "incorrect" or feedback[wrong.index(letter)] not in verdict.message:
            return f"({letter}) is told: {verdict.status}: {verdict.message}"
    right = question.result(question.answer.upper())
    if right.status != "correct" or translated(question.text.why) not in right.message:
        return f"the right answer is told: {right.status}: {right.message}"
    return None


def test_every_wrong_option_has_its_own_feedback_and_the_right_one_says_why(record_property):
    tally = Tally("questions whose every letter gets its own verdict")
    for question in QUESTIONS:
        miss = _verdicts_miss(question)
        tally.add(miss is None, f"{question.id}: {miss}")
    tally.check(record_property)


def test_a_question_left_blank_shows_its_options_and_never_raises(capsys, record_property):
    tally = Tally("questions shown with their options when left blank")
    for question in QUESTIONS:
        status = question.result().status
        question.check()
        out = capsys.readouterr().out
        shown = f"{question.label}: " in out and "Not attempted yet: " in out
        options = all(f"({letter}) " in out for letter in question.letters)
        ok = status == "not attempted" and shown and options
        tally.add(ok and question_by_tag(question.tag) == question, f"{question.id}: {out!r}")
    tally.check(record_property)


def test_a_letter_that_is_not_an_option_is_told_the_choices():
    verdict = predictions("1-1")[0].result("z")
    assert verdict.status == "incorrect" and '"a", "b", "c", "d"' in verdict.message


def test_each_lesson_has_predictions_and_exactly_five_end_questions():
    for level in ("00", "1-1", "1-2", "1-3", "1-4"):
        assert len(predictions(level)) >= 2 and len(quiz(level)) == 5


def test_a_question_that_lists_the_values_of_run_stop_lists_every_one():
    """A learner who reads "exactly one of ..." learns the list: it is the library's `Stop`,
    whole (00.c5 once left `budget` out). A sentence naming three or more values is a list."""
    values = [stop.value for stop in Stop]
    lists = []
    for question in QUESTIONS:
        words = (question.text.prompt, *question.text.options, question.text.why)
        for text in (*words, *question.text.feedback.values()):
            named = [v for v in values if re.search(rf"\b{v}\b", text)]
            if len(named) >= 3:
                lists.append((question.id, text))
                assert named == values, f"{question.id} lists {named}, not {values}: {text!r}"
    assert lists, "no question lists the values of run.stop any more: 00.c5 did"


def test_the_answers_are_not_all_the_same_letter():
    for level in ("00", "1-1", "1-2", "1-3", "1-4"):
        letters = {q.answer for q in (*predictions(level), *quiz(level))}
        assert len(letters) >= 2, level


def test_a_long_runs_transcript_numbers_its_turns_as_they_were_run():
    """The loop check shows the last lines of a learner's run: the turns it leaves out still
    count, so the last turn shown is the run's last turn, not the slice's."""
    from whentostop.lesson import loopcheck

    call = {"id": "c", "type": "function", "function": {"name": "search", "arguments": "{}"}}
    turns = [
        [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "content": f"{n}"},
        ]
        for n in range(1, 31)
    ]
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    messages += [m for turn in turns for m in turn]
    shown = loopcheck.transcript(messages).splitlines()
    said = [line for line in shown if "model:" in line]
    assert said[-1].startswith("turn 30 "), said[-1]
    assert said[0].startswith(f"turn {30 - len(said) + 1} "), said[0]
