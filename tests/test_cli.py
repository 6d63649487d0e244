"""`python -m whentostop run`: the transcript turn by turn, how it ended, and an honest exit status."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest
from faulty_server import ANSWER, FaultyServer, hang
from replay_server import ReplayServer

from whentostop.__main__ import (
    EXIT_ANSWER,
    EXIT_CODES,
    EXIT_ERROR,
    EXIT_NO_ANSWER,
    EXIT_TEXT_TOOL_CALL,
    EXIT_UNSURE,
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
    assert "error: could not reach http://127.0.0.1:9/v1" in err and "Traceback" not in err


def test_serve_on_a_port_in_use_is_one_error_line_and_the_error_status(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        status = main(["serve", "--port", str(taken.getsockname()[1])])
    err = capsys.readouterr().err
    assert status == EXIT_ERROR
    assert err.startswith("error: cannot listen on 127.0.0.1:") and "Traceback" not in err


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


def help_table(capsys) -> dict[int, str]:
    """The exit statuses as `run --help` prints them: code -> its row, on one line."""
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    rows: dict[int, str] = {}
    for line in out.split("exit status:", 1)[1].splitlines():
        head = line[:5].strip()
        if head.isdigit():
            rows[int(head)] = line[5:].strip()
        elif rows and line.strip():
            rows[max(rows)] += " " + line.strip()
    return rows


# (the command line's arguments, the status, words of its row in the table that describe the run)
EXIT_SCENARIOS = {
    "a right marker": (
        ["--level", "1-3", "--model", "searcher", "--stop-on", "mark_star"],
        EXIT_ANSWER,
        "judged right",
    ),
    "an answer the level cannot judge": (
        ["--level", "1-2", "--model", "replay:story"],
        EXIT_ANSWER,
        "cannot judge",
    ),
    "the clock": (["--level", "1-1", "--model", "loopboros", "--max-turns", "3"], 1, "the clock"),
    "an echo of the loop's request": (
        ["--level", "1-2", "--model", "replay:echo"],
        EXIT_NO_ANSWER,
        "the loop's own request",
    ),
    "a bad argument": (["--level", "1-1", "--max-turns", "0"], EXIT_ERROR, "an argument is wrong"),
    "a wrong block named in words": (
        ["--level", "1-2", "--model", "replay:guess-text"],
        EXIT_WRONG,
        "the star is elsewhere",
    ),
    "a tool call written as text": (
        ["--level", "1-2", "--model", "replay:fenced"],
        EXIT_TEXT_TOOL_CALL,
        "tool call the model wrote as text",
    ),
    "a story after a cut-off reply": (
        ["--level", "1-2", "--model", "replay:ramble"],
        EXIT_UNSURE,
        "follows a reply cut off",
    ),
}


@pytest.mark.parametrize("scenario", EXIT_SCENARIOS)
def test_every_exit_status_in_the_help_table_is_what_such_a_run_gets(scenario, replay, capsys):
    args, status, words = EXIT_SCENARIOS[scenario]
    rows = help_table(capsys)
    assert set(rows) == set(EXIT_CODES)
    if any(a.startswith("replay:") for a in args):
        args = [*args, "--base-url", replay]
    assert main(["run", *args]) == status, capsys.readouterr().out
    assert words in rows[status], (scenario, rows[status])


def test_every_row_of_the_help_table_has_a_run_that_gets_it():
    assert {status for _args, status, _words in EXIT_SCENARIOS.values()} == set(EXIT_CODES)


def test_a_cut_off_reply_has_its_own_line_in_the_transcript(replay, capsys):
    main(["run", "--level", "1-2", "--base-url", replay, "--model", "replay:ramble"])
    out = capsys.readouterr().out
    assert "⚠ The reply was cut off at the length limit (finish_reason: length" in out
    assert "⚠ This reply follows one that was cut off" in out


def test_the_warning_counts_every_empty_reply(replay, capsys):
    status = main(
        [
            "run",
            "--level",
            "1-2",
            "--base-url",
            replay,
            "--model",
            "replay:empty-all",
            "--max-turns",
            "4",
        ]
    )
    out = capsys.readouterr().out
    assert status == EXIT_NO_ANSWER
    assert "The model sent 4 empty replies (no text, no tool call), on turns 1-4" in out


def test_timeout_s_is_a_flag_and_an_environment_variable(monkeypatch, capsys):
    seen = []
    import whentostop.__main__ as cli

    real = cli.connect

    def spy(*args, **kwargs):
        model = real(*args, **kwargs)
        seen.append(model.timeout_s)
        return model

    monkeypatch.setattr(cli, "connect", spy)
    main(["run", "--level", "1-2", "--model", "searcher", "--timeout-s", "7.5"])
    monkeypatch.setenv("WHENTOSTOP_TIMEOUT_S", "123")
    main(["run", "--level", "1-2", "--model", "searcher"])
    assert seen == [7.5, 123.0]


def test_a_bad_timeout_in_the_environment_is_one_clear_error(monkeypatch, capsys):
    monkeypatch.setenv("WHENTOSTOP_TIMEOUT_S", "soon")
    assert main(["run", "--level", "1-2", "--model", "searcher"]) == EXIT_ERROR
    assert "WHENTOSTOP_TIMEOUT_S must be a positive number of seconds, got 'soon'" in (
        capsys.readouterr().err
    )


def test_a_timeout_names_the_flag_and_the_variable_that_raise_it(capsys):
    with FaultyServer([hang(5)]) as server:
        status = main(["run", "--base-url", server.base_url, "--model", "m", "--timeout-s", "0.5"])
    err = capsys.readouterr().err
    assert status == EXIT_ERROR
    assert "A slow model needs a longer --timeout-s (or the environment variable " in err
    assert "WHENTOSTOP_TIMEOUT_S); a stuck one needs a --deadline-s." in err


def test_with_only_openai_base_url_set_the_error_names_the_model_flag(monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("WHENTOSTOP_MODEL", raising=False)
    assert main(["run", "--level", "1-2"]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "Pass --model=... or set WHENTOSTOP_MODEL" in err and "model=..." not in err.replace(
        "--model=...", ""
    )


def test_tool_choice_and_parallel_tool_calls_are_sent_from_the_command_line(replay, capsys):
    with ReplayServer() as server:
        main(
            [
                "run",
                "--level",
                "1-3",
                "--base-url",
                server.base_url,
                "--model",
                "replay:guess-pipe",
                "--tool-choice",
                "mark_star",
                "--no-parallel-tool-calls",
                "--stop-on",
                "mark_star",
            ]
        )
        sent = server.requests[0]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "mark_star"}}
    assert sent["parallel_tool_calls"] is False


def test_a_tool_choice_naming_no_tool_names_the_flag(capsys):
    assert main(["run", "--level", "1-2", "--model", "searcher", "--tool-choice", "fly"]) == 2
    assert "--tool-choice must be 'auto', 'none', 'required'" in capsys.readouterr().err


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


# --- the command line in the learner's language -------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["--lang", "pt", "run", "--level", "1-1", "--model", "loopboros", "--max-turns", "2"],
        ["run", "--lang", "pt", "--level", "1-1", "--model", "loopboros", "--max-turns", "2"],
        ["--lang=en", "run", "--lang=pt", "--model", "loopboros", "--max-turns", "2"],
        # argparse takes an option's unambiguous abbreviation: --la, --lan are --lang
        ["run", "--la", "pt", "--model", "loopboros", "--max-turns", "2"],
        ["--lan=pt", "run", "--model", "loopboros", "--max-turns", "2"],
    ],
)
def test_lang_is_taken_before_or_after_the_command(argv, capsys):
    assert main(argv) == EXIT_NO_ANSWER
    assert "max_turns (o relógio)" in capsys.readouterr().out


def test_the_help_lists_every_shipped_level_and_speaks_the_language(capsys):
    from whentostop.level import SHIPPED

    with pytest.raises(SystemExit):
        main(["--lang", "pt", "run", "--help"])
    shown = capsys.readouterr().out
    assert ", ".join(SHIPPED) in shown and "1-4" in shown
    assert shown.startswith("uso: ") and "ou um arquivo de fase" in shown
    assert "status de saída:" in shown and "mostra esta ajuda e sai" in shown


@pytest.mark.parametrize(
    "argv, said",
    [
        (["run", "--levl", "3"], "erro: argumentos não reconhecidos: --levl 3"),
        (["run", "--lang", "xx"], "erro: argumento --lang: opção inválida: 'xx'"),
        (["run", "--max-turns", "dez"], "erro: argumento --max-turns: valor int inválido: 'dez'"),
        ([], "erro: estes argumentos são obrigatórios: command"),
    ],
)
def test_argparses_own_errors_are_in_portuguese(argv, said, capsys, monkeypatch):
    monkeypatch.setenv("WHENTOSTOP_LANG", "pt")
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == EXIT_ERROR
    assert capsys.readouterr().err.startswith(said)


def test_a_socket_left_open_elsewhere_is_not_the_commands_warning(capsys, monkeypatch):
    """The interpreter's housekeeping (an unclosed socket collected while the command runs) is
    not printed as the command's warning: the error line stays the first line."""
    import gc
    import socket

    from whentostop import __main__ as cli

    parser = cli._parser

    def leaking_parser():
        socket.socket()  # dropped unclosed
        gc.collect()  # collected now, inside the command: a ResourceWarning
        return parser()

    monkeypatch.setattr(cli, "_parser", leaking_parser)
    with pytest.raises(SystemExit):
        main(["run", "--levl", "3"])
    assert capsys.readouterr().err.startswith("error: ")


def test_argparse_is_left_as_it_was_after_a_command(capsys):
    import argparse

    main(["--lang", "pt", "link", "--notebook", "00"])
    capsys.readouterr()
    assert argparse._("usage: ") == "usage: "  # type: ignore[attr-defined]


def test_link_takes_a_notebooks_name_in_the_language(capsys):
    assert main(["link", "--lang", "pt", "--notebook", "painel"]) == 0
    assert "notebooks/pt/painel.ipynb" in capsys.readouterr().out


@pytest.mark.parametrize(
    "lang, said",
    [
        ("en", "error: x.json: file not found (a level is 1-1, 1-2, 1-3, 1-4 or the path"),
        ("pt", "erro: x.json: arquivo não encontrado (uma fase é 1-1, 1-2, 1-3, 1-4 ou o caminho"),
    ],
)
def test_a_missing_level_file_is_said_to_be_missing(lang, said, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--lang", lang, "--level", "x.json"]) == EXIT_ERROR
    assert capsys.readouterr().err.startswith(said)


@pytest.mark.parametrize(
    "lang, said",
    [
        ("en", "error: unknown notebook 'nada': use one of 00, 1-1"),
        ("pt", "erro: notebook desconhecido 'nada': use um de 00, 1-1"),
    ],
)
def test_an_error_reads_in_lower_case_after_error(lang, said, capsys):
    assert main(["link", "--lang", lang, "--notebook", "nada"]) == EXIT_ERROR
    assert capsys.readouterr().err.startswith(said)


@pytest.mark.parametrize(
    "message, shown",
    [
        ("The endpoint failed", "the endpoint failed"),
        ("Tempo esgotado ao conectar", "tempo esgotado ao conectar"),
        ("O modelo 'x' não existe", "o modelo 'x' não existe"),
        ("HTTP 404 from http://x", "HTTP 404 from http://x"),
        ("OPENAI_BASE_URL is not set", "OPENAI_BASE_URL is not set"),
        ("LevelFileError: x", "LevelFileError: x"),
    ],
)
def test_only_a_capitalised_word_is_lowered(message, shown):
    from whentostop.__main__ import after_error

    assert after_error(message) == shown


def test_the_mocks_unknown_model_is_said_in_portuguese(capsys):
    assert main(["run", "--lang", "pt", "--model", "nope"]) == EXIT_ERROR
    assert "O modelo 'nope' não existe. Personas: searcher" in capsys.readouterr().err
