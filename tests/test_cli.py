"""`python -m whentostop run`: the transcript turn by turn, how it ended, and an honest exit status."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from whentostop.__main__ import main


def test_run_prints_each_turn_and_the_clock(capsys):
    status = main(["run", "--level", "1-1", "--model", "loopboros", "--max-turns", "5"])
    out = capsys.readouterr().out
    assert status == 1  # no answer
    assert out.count("── turn ") == 5 and "turn 5/5" in out
    assert "max_turns (the clock)" in out and "asking for search_blocks" in out


def test_run_json_reports_stop_answer_and_turns(capsys):
    status = main(["run", "--level", "1-3", "--model", "sloppy", "--stop-on", "mark_star", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    assert data["stop"] == "terminal_tool" and data["answer"] == {"item": "star", "block": 12}
    assert len(data["turns"]) == 6
    assert all(t["prompt_tokens"] > 0 and t["completion_tokens"] > 0 for t in data["turns"])
    assert data["turns"][4]["tool_calls"][0]["ok"] is False


def test_system_prompt_from_the_command_line_lets_the_searcher_give_up(capsys):
    status = main(["run", "--level", "1-1", "--model", "searcher", "--json",
                   "--system", "If a few searches come back empty, say you couldn't find it."])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["stop"] == "end_turn" and "couldn't find" in data["answer"]


def test_wrap_up_is_labelled_as_not_an_answer(capsys):
    status = main(["run", "--level", "1-1", "--model", "loopboros", "--max-turns", "2", "--wrap-up"])
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
    assert "max_turns must be a positive int" in capsys.readouterr().err


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
    done = subprocess.run([sys.executable, "-m", "whentostop", "run", "--level", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ") and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("url", ["http://[::1/v1", "http://user:sk-secret-LEAK@host\x00/v1"])
def test_a_malformed_base_url_is_one_error_line_and_exit_2(capsys, url):
    assert main(["run", "--base-url", url, "--model", "m"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: ") and "is not a valid URL" in line and "LEAK" not in line
