"""`python -m whentostop run`: the transcript turn by turn, how it ended, and an honest exit status."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from faulty_server import ANSWER, FaultyServer
from replay_server import ReplayServer

from whentostop.__main__ import (
    EXIT_ANSWER,
    EXIT_CODES,
    EXIT_ERROR,
    EXIT_NO_ANSWER,
    EXIT_TEXT_TOOL_CALL,
    EXIT_WRONG,
    main,
)
from whentostop.client import DEFAULT_MAX_TOKENS


def test_run_prints_each_turn_and_the_clock(capsys):
    status = main(["run", "--level", "1-1", "--model", "loopboros", "--max-turns", "5"])
    out = capsys.readouterr().out
    assert status == 1  # no answer
    assert out.count("── turn ") == 5 and "turn 5/5" in out
    assert "max_turns (the clock)" in out and "asking for search_blocks" in out


def test_run_json_reports_stop_answer_and_turns(capsys):
    status = main(
        ["run", "--level", "1-3", "--model", "sloppy", "--stop-on", "mark_star", "--json"]
    )
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    assert data["stop"] == "terminal_tool" and data["answer"] == {"item": "star", "block": 12}
    assert len(data["turns"]) == 6
    assert all(t["prompt_tokens"] > 0 and t["completion_tokens"] > 0 for t in data["turns"])
    assert data["turns"][4]["tool_calls"][0]["ok"] is False


def test_system_prompt_from_the_command_line_lets_the_searcher_give_up(capsys):
    status = main(
        [
            "run",
            "--level",
            "1-1",
            "--model",
            "searcher",
            "--json",
            "--system",
            "If a few searches come back empty, say you couldn't find it.",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["stop"] == "end_turn" and "couldn't find" in data["answer"]


def test_wrap_up_is_labelled_as_not_an_answer(capsys):
    status = main(
        ["run", "--level", "1-1", "--model", "loopboros", "--max-turns", "2", "--wrap-up"]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert "wrap-up (after the clock, not an answer)" in out


def test_an_unreachable_endpoint_exits_2_with_a_plain_message(capsys):
    status = main(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "llama3.2"])
    err = capsys.readouterr().err
    assert status == 2
    assert "Could not reach http://127.0.0.1:9/v1" in err and "Traceback" not in err


def test_bad_max_turns_is_a_clear_error(capsys):
    assert main(["run", "--max-turns", "0"]) == 2
    assert "--max-turns must be a positive int" in capsys.readouterr().err  # the flag's name


def test_unknown_persona_names_the_personas(capsys):
    assert main(["run", "--model", "gpt-7"]) == 2
    assert "searcher, loopboros, sloppy, slow" in capsys.readouterr().err


BROKEN_LEVELS = {
    "missing": None,
    "truncated": b'{"name": "cut", "areas": {"pipe": {"1": "st',
    "not UTF-8": b'{"name": "x", "areas": {"pipe": {"1": "caf\xe9"}}}',
    "invalid": b'{"name": "x", "areas": {"pipe": {"1": "banana", "2": "banana"}}}',
    "a key twice": b'{"name": "x", "areas": {"pipe": {"1": "coin", "1": "star"}}}',
    "empty": b"",
    "a folder": "folder",
    "no name": "",
}


def broken_level(tmp_path, kind: str):
    path = tmp_path / "my-level.json"
    content = BROKEN_LEVELS[kind]
    if content == "":
        return ""
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    return path


@pytest.mark.parametrize("kind", BROKEN_LEVELS)
def test_a_level_file_that_cannot_be_used_is_one_error_line_and_exit_2(tmp_path, capsys, kind):
    path = broken_level(tmp_path, kind)
    assert main(["run", "--level", str(path)]) == 2
    out, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert line.startswith("error: ") and str(path) in line and out == ""


@pytest.mark.parametrize("kind", BROKEN_LEVELS)
def test_a_level_file_that_cannot_be_used_is_a_json_error_with_json(tmp_path, capsys, kind):
    path = broken_level(tmp_path, kind)
    assert main(["run", "--level", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["stop"] is None and data["answer"] is None and data["turns"] == []
    assert str(path) in data["error"] and err.strip() == "error: " + data["error"]


def test_a_broken_level_file_prints_no_traceback_from_the_real_command(tmp_path):
    path = broken_level(tmp_path, "truncated")
    done = subprocess.run(
        [sys.executable, "-m", "whentostop", "run", "--level", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ") and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("url", ["http://[::1/v1", "http://user:sk-secret-LEAK@host\x00/v1"])
def test_a_malformed_base_url_is_one_error_line_and_exit_2(capsys, url):
    assert main(["run", "--base-url", url, "--model", "m"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: ") and "is not a valid URL" in line and "LEAK" not in line


# ---- the budget ---------------------------------------------------------------------------


def test_a_token_budget_on_the_command_line_stops_on_the_budget(capsys):
    status = main(
        [
            "run",
            "--level",
            "1-1",
            "--model",
            "loopboros",
            "--max-turns",
            "25",
            "--max-tokens-total",
            "3000",
        ]
    )
    out = capsys.readouterr().out
    assert status == EXIT_NO_ANSWER
    assert "budget (the budget)" in out and "over the budget of 3,000" in out


def test_a_dollar_budget_on_the_command_line_counts_at_the_price_given(capsys):
    status = main(
        [
            "run",
            "--level",
            "1-1",
            "--model",
            "loopboros",
            "--max-turns",
            "25",
            "--max-cost-usd",
            "0.002",
            "--price",
            "gpt-4o",
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert status == EXIT_NO_ANSWER and data["stop"] == "budget"
    assert "(at gpt-4o prices)" in data["no_answer"]


def test_an_unknown_price_is_a_clear_error(capsys):
    assert main(["run", "--max-cost-usd", "1", "--price", "gpt-99"]) == EXIT_ERROR
    assert "no price for 'gpt-99'; known models: gpt-4o-mini" in capsys.readouterr().err


# ---- exit status: an answer, a wrong one, a tool call written as text -----------------------


def test_help_lists_every_exit_status(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for code, what in EXIT_CODES.items():
        assert f"{code} {' '.join(what.split())}" in out


def test_a_right_answer_is_judged_and_exits_0(capsys):
    status = main(["run", "--level", "1-3", "--model", "searcher", "--stop-on", "mark_star"])
    out = capsys.readouterr().out
    assert status == EXIT_ANSWER
    assert "✓ judged on the level: Right: the marker is on block 12 (castle)" in out


@pytest.fixture(scope="module")
def replay():
    with ReplayServer() as server:
        yield server.base_url


@pytest.mark.parametrize(
    "behaviour, options, expected",
    [
        ("fenced", [], EXIT_TEXT_TOOL_CALL),
        ("tagged", [], EXIT_TEXT_TOOL_CALL),
        ("bare", ["--tools", "search_blocks"], EXIT_TEXT_TOOL_CALL),
        ("guess-pipe", ["--stop-on", "mark_star"], EXIT_WRONG),
        ("guess-text", [], EXIT_WRONG),
        ("empty", [], EXIT_WRONG),
        ("repeat", ["--max-turns", "3"], EXIT_NO_ANSWER),
        ("fenced", ["--stop-on", "mark_star", "--text-tool-calls", "accept"], EXIT_WRONG),
    ],
)
def test_the_exit_status_tells_a_small_models_failures_from_an_answer(
    replay, behaviour, options, expected, capsys
):
    status = main(
        ["run", "--level", "1-2", "--base-url", replay, "--model", f"replay:{behaviour}", *options]
    )
    assert status == expected, capsys.readouterr().out


def test_a_wrong_answer_says_why_under_the_transcript(replay, capsys):
    main(["run", "--level", "1-2", "--base-url", replay, "--model", "replay:guess-text"])
    out = capsys.readouterr().out
    assert (
        "✗ judged on the level: Wrong: the answer names block 3, but the star is in block 7" in out
    )


# ---- generation settings --------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, sent",
    [
        ([], {"max_tokens": DEFAULT_MAX_TOKENS}),
        (
            ["--max-tokens", "64", "--temperature", "0.2", "--seed", "7"],
            {"max_tokens": 64, "temperature": 0.2, "seed": 7},
        ),
        (["--max-tokens", "0"], {}),
    ],
)
def test_generation_settings_from_the_command_line_are_sent_only_when_set(args, sent, capsys):
    with FaultyServer([ANSWER]) as server:
        main(["run", "--base-url", server.base_url, "--model", "m", *args])
    body = server.requests[0].body
    assert {k: body[k] for k in ("max_tokens", "temperature", "seed") if k in body} == sent


def test_a_bad_generation_setting_is_a_clear_error(capsys):
    assert main(["run", "--temperature", "9"]) == EXIT_ERROR
    assert "temperature must be a number from 0 to 2" in capsys.readouterr().err
