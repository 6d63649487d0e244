"""`python -m whentostop lesson check`: the lesson's data files validated, each problem named by
file and key, on the shipped data and on copies broken the ways a teacher's edit can break them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from whentostop.__main__ import main
from whentostop._data import data_file
from whentostop.lesson.folder import shipped_notebooks
from whentostop.lesson.validate import problems

DATA = Path(str(data_file("lesson")))
NOTEBOOKS = Path(str(shipped_notebooks()))


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of data/lesson/ to break."""
    return Path(shutil.copytree(DATA, tmp_path / "lesson"))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}: the test's data moved"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def lines(data: Path) -> list[str]:
    return [str(p) for p in problems(data, NOTEBOOKS)]


def test_the_shipped_data_holds_together(capsys):
    assert main(["lesson", "check"]) == 0
    assert "holds together" in capsys.readouterr().out


def test_a_right_answer_that_is_not_an_option_is_named_by_file_and_key(copy):
    edit(
        copy / "00.toml", 'answer = "c"\nwhy = "The loop runs', 'answer = "z"\nwhy = "The loop runs'
    )
    assert lines(copy) == [
        "lesson/00.toml: quiz[0].answer: must be one letter of a, b, c, d, not 'z'"
    ]


def test_a_wrong_option_without_feedback_and_a_missing_why_are_each_reported(copy):
    edit(copy / "1-1.toml", "\nfeedback.a = ", "\nfeedback.zz_unused = ")
    edit(copy / "1-2.toml", "\nwhy = ", "\nwhy_not = ")
    found = lines(copy)
    assert any(
        line.startswith("lesson/1-1.toml: prediction[0].feedback.a: missing") for line in found
    )
    assert any("lesson/1-1.toml: prediction[0].feedback.zz_unused" in line for line in found)
    assert "lesson/1-2.toml: prediction[0].why: missing" in found
    assert any(line.startswith("lesson/1-2.toml: prediction[0].why_not: unknown") for line in found)
    # the keys a teacher may use are listed in one order, whatever the run's hash seed
    known = "unknown key (known: answer, feedback, options, prompt, why)"
    assert f"lesson/1-2.toml: prediction[0].why_not: {known}" in found


def test_a_question_with_one_option_is_reported(copy):
    text = (copy / "00.toml").read_text(encoding="utf-8")
    start = text.index("[[quiz]]")
    head, quiz = text[:start], text[start:]
    quiz = quiz.replace(
        'options = [\n    "A timer that fires every second.",\n'
        '    "The user sends another message.",\n'
        '    "The model\'s reply asks for a tool.",\n'
        '    "The reply is longer than the model\'s limit.",\n]',
        'options = ["The model\'s reply asks for a tool."]',
        1,
    )
    (copy / "00.toml").write_text(head + quiz, encoding="utf-8")
    assert "lesson/00.toml: quiz[0].options: must offer 2 to 8 options, not 1" in lines(copy)


def test_an_exercise_without_hints_blank_solution_or_cases_is_reported(copy):
    edit(copy / "1-1.toml", 'blank = "run_a = ____"', 'blank = "run_a = None"')
    edit(copy / "1-1.toml", 'solution = "ex_1_1_b.py"', 'solution = "ex_1_1_gone.py"')
    (copy / "solutions" / "ex_1_1_a.py").write_text("run_a = None\n", encoding="utf-8")
    text = (copy / "1-3.toml").read_text(encoding="utf-8")
    (copy / "1-3.toml").write_text(text.replace("[[exercise.case]]", "[[exercise.unused]]"))
    found = lines(copy)
    assert "lesson/1-1.toml: exercise[0].blank: has no ____ for the learner to fill in" in found
    assert any(
        line.startswith("lesson/1-1.toml: exercise[0].solution: solutions/ex_1_1_a.py has no line")
        for line in found
    )
    assert "lesson/1-1.toml: exercise[1].solution: no file solutions/ex_1_1_gone.py" in found
    assert any(line.startswith("lesson/1-3.toml: exercise[1].case: no cases") for line in found)


def test_an_exercise_written_as_one_table_is_told_to_be_an_array_of_tables(copy):
    edit(copy / "00.toml", "[[exercise]]", "[exercise]")  # the file's only one
    found = lines(copy)
    assert any(
        line.startswith("lesson/00.toml: exercise: ") and "[[exercise]]" in line for line in found
    )
    assert not any(line.startswith("lesson/00.toml: exercise[0]") for line in found)
    # one problem, not also "a cell carries this tag, and ... has nothing for it" for its cell
    assert not any(line.startswith("00_start_here.ipynb: exercise-") for line in found), found


def test_a_quiz_written_as_one_table_is_one_problem_not_one_per_cell(copy):
    path = copy / "00.toml"
    text = path.read_text(encoding="utf-8")
    first = text.index("[[quiz]]")  # the quizzes end the file: keep the first, as one table
    kept = text[first:].split("[[quiz]]")[1]
    path.write_text(text[:first] + "[quiz]" + kept, encoding="utf-8")
    found = lines(copy)
    assert any(line.startswith("lesson/00.toml: quiz: ") and "[[quiz]]" in line for line in found)
    assert not any(line.startswith("00_start_here.ipynb: question-00-c") for line in found), found
    assert not any("prediction" in line for line in found), found  # the predictions are fine


def test_a_solution_file_that_is_not_utf8_is_reported_not_a_crash(copy):
    (copy / "solutions" / "ex_1_1_a.py").write_bytes(b"run_a = '\xff\xfe'\n")
    assert any(
        line.startswith("lesson/1-1.toml: exercise[0].solution: cannot be read: ")
        for line in lines(copy)
    )


def test_an_unknown_judge_or_aspect_is_named_with_the_known_ones(copy):
    edit(copy / "1-1.toml", 'judge = "same"', 'judge = "samee"')
    edit(copy / "1-1.toml", '"persona", "turns"]', '"persona", "turnz"]')
    found = "\n".join(lines(copy))
    assert "lesson/1-1.toml: exercise[1].judge: no judge named 'samee' (known: same," in found
    assert "lesson/1-1.toml: exercise[0].aspects: no aspect named 'turnz'" in found


def test_a_question_the_notebook_has_no_cell_for_is_reported_both_ways(copy):
    """A sixth quiz question has no `question-1-2-c6` cell; an exercise renamed leaves its
    notebook's tagged cell with nothing behind it."""
    with (copy / "1-2.toml").open("a", encoding="utf-8") as f:
        f.write(
            '\n[[quiz]]\nprompt = "Is this a sixth question?"\noptions = ["Yes.", "No."]\n'
            'answer = "a"\nwhy = "It is."\nfeedback.b = "It is, though."\n'
        )
    edit(copy / "1-4.toml", 'id = "1-4.e"', 'id = "1-4.f"')
    found = lines(copy)
    assert (
        "lesson/1-2.toml: quiz[5]: no cell tagged 'question-1-2-c6' in 1-2_the_flag.ipynb" in found
    )
    assert any(line.startswith("lesson/1-4.toml: exercise[4].id: no cell tagged") for line in found)
    assert any(line.startswith("1-4_the_castle.ipynb: exercise-1-4-e: ") for line in found)


def test_a_file_that_is_not_toml_is_reported_and_the_others_still_checked(copy):
    (copy / "1-3.toml").write_text('[[quiz]\nprompt = "unclosed', encoding="utf-8")
    edit(
        copy / "00.toml", 'answer = "c"\nwhy = "The loop runs', 'answer = "q"\nwhy = "The loop runs'
    )
    found = lines(copy)
    assert any(line.startswith("lesson/1-3.toml: cannot be read: ") for line in found)
    assert any(line.startswith("lesson/00.toml: quiz[0].answer: ") for line in found)


def test_the_command_prints_each_problem_and_exits_1(copy, capsys):
    edit(
        copy / "00.toml", 'answer = "c"\nwhy = "The loop runs', 'answer = "z"\nwhy = "The loop runs'
    )
    assert main(["lesson", "check", "--data", str(copy)]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "lesson/00.toml: quiz[0].answer: must be one letter of a, b, c, d, not 'z'"
    ]


def test_a_said_entry_that_is_not_a_sentence_is_reported(copy):
    edit(copy / "1-1.toml", "cut_off = ", "cut_off = 3\nunused = ")
    assert "lesson/1-1.toml: said: must be a table of sentences, by name" in lines(copy)
