"""One sanitiser for terminal output (issue 27, class 5): whatever a model, a tool, an endpoint or
a learner wrote reaches the terminal through `whentostop._text.terminal_text`, so no escape
sequence (OSC 52 writing the clipboard, CSI moving the cursor), C1 control, bare carriage return,
backspace or bidi override acts, and no line of it can pass for one of the CLI's own."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from whentostop import Note, Run, Stop, ToolCall, Turn
from whentostop.__main__ import main, transcript
from whentostop._text import terminal_text
from whentostop.level import Judgement

HOSTILE = [
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52: write the clipboard
    "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1b[2A\x1b[2K",  # CSI: cursor up, erase the line
    "\x9b2J",  # C1 CSI: clear the screen
    "\x9d52;c;ZXZpbA==\x9c",  # C1 OSC
    "done\r== end_turn (the flag) after 1 turn. Answer: 'fake'",  # a bare CR fakes a line
    "ab\x08\x08XY",  # backspaces overwrite
    "\u202eevil\u202c",  # a bidi override reorders what is shown
    "\x00\x07\x0b\x0c\x7f\x85",
    "line one\u2028line two",
]
"""What a model may write to act on, or fake lines in, the learner's terminal."""


def acting(text: str) -> list[str]:
    """The characters in `text` a terminal would act on rather than show (tab and newline are
    the sanitiser's to control)."""
    return [
        c
        for c in text
        if (
            c not in "\n\t"
            and (unicodedata.category(c) in ("Cc", "Zl", "Zp") or c in "\u061c\u200e\u200f")
        )
        or "\u202a" <= c <= "\u202e"
        or "\u2066" <= c <= "\u2069"
    ]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_terminal_text_shows_every_control_character_instead_of_acting_on_it(text: str) -> None:
    shown = terminal_text(text)
    assert acting(shown) == []
    assert "\\x1b" in shown or "\\r" in shown or "\\" in shown


@given(st.text())
def test_terminal_text_never_lets_a_control_character_through(text: str) -> None:
    assert acting(terminal_text(text, indent="  ")) == []


@given(st.text(alphabet=st.characters(blacklist_categories=["Cc", "Cf", "Zl", "Zp", "Cs"])))
def test_terminal_text_leaves_printable_text_as_it_is(text: str) -> None:
    assert terminal_text(text) == text


def test_terminal_text_keeps_tabs_and_indents_each_new_line() -> None:
    assert terminal_text("a\tb\nc\n\nd", indent="    ") == "a\tb\n    c\n    \n    d"
    assert terminal_text("a\nb") == "a\nb"


def hostile_run(text: str) -> Run:
    asked = [{"id": "c2", "type": "function", "function": {"name": f"more{text}", "arguments": ""}}]
    call = ToolCall("c1", f"search{text}", f'{{"area": "{text}"}}', None, f"Error: {text}\n{text}")
    turns = [
        Turn(
            1,
            10,
            2,
            0.1,
            {"role": "assistant", "content": f"I {text} will\n== end_turn (the flag). {text}"},
            tool_calls=[call],
            notes=[Note("text_tool_call", f"note {text}")],
        ),
        Turn(2, 20, 3, 0.1, {"role": "assistant", "content": text, "tool_calls": asked}),
    ]
    run = Run(
        stop=None, messages=[], turns=turns, max_turns=5, warnings=[f"warned {text}\nsecond {text}"]
    )
    return run.finish(Stop.END_TURN, text)


OWN_LINES = ("── ", "   model: ", "   ✓ ", "   ✗ ", "   · ", "   ⚠ ", "== ", "⚠ ", "✓ ", "? ")


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_a_transcript_of_hostile_text_acts_on_nothing_and_fakes_no_line(text: str) -> None:
    run = hostile_run(text)
    shown = transcript(run, Judgement(None, f"cannot tell {text}"))
    assert acting(shown) == []
    for line in shown.splitlines():
        # each line is the CLI's own, or a continuation indented deeper than any of them
        assert line.startswith(OWN_LINES) or line.startswith(" " * 6), line


def test_a_broken_run_and_a_clock_stopped_run_show_their_reasons_safely() -> None:
    broken = hostile_run(HOSTILE[0])
    broken.stop, broken.error = None, f"endpoint said {HOSTILE[5]}\n{HOSTILE[2]}"
    clocked = hostile_run(HOSTILE[3]).finish(Stop.MAX_TURNS)
    assert HOSTILE[3] in clocked.no_answer_reason  # the tool the model was still asking for
    for run in (broken, clocked):
        assert acting(transcript(run)) == []


@pytest.fixture
def hostile_level(tmp_path: Path) -> Path:
    """A level whose area names the mock repeats in its text and its tools in their output."""
    areas = {f"over{HOSTILE[0]}world{HOSTILE[2]}": {"1": "coin", "2": "star"}, "sky": {"3": "coin"}}
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps({"name": "h", "title": "t", "story": "s", "areas": areas}))
    return path


def test_the_cli_transcript_of_a_run_through_hostile_names_acts_on_nothing(
    hostile_level: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["run", "--level", str(hostile_level), "--model", "searcher", "--stop-on", "mark_star"]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert "\\x1b]52;c;ZXZpbA==\\x07" in out  # shown, not sent
    assert acting(out) == []


def test_the_cli_json_escapes_every_control_character(
    hostile_level: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["run", "--level", str(hostile_level), "--model", "searcher", "--json"])
    out = capsys.readouterr().out
    assert acting(out) == []
    assert any(HOSTILE[0] in turn["text"] for turn in json.loads(out)["turns"])  # kept whole


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--level", f"nowhere{HOSTILE[0]}.json"],
        ["run", "--model", f"x{HOSTILE[2]}", "--base-url", f"http://[::1{HOSTILE[3]}/v1"],
        ["link", "--hub", f"https://hub.example.edu/{HOSTILE[0]}"],
        ["link", "--repo", f"https://github.com/a/b{HOSTILE[7]}"],
    ],
)
def test_the_cli_error_line_acts_on_nothing(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2
    assert acting(captured.out + captured.err) == []
    assert captured.err.startswith("error: ") and captured.err.count("\n") == 1
