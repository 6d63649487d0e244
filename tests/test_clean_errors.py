"""Clean errors everywhere (issue 27, class 7): a number or an address given on the command line,
a language without its catalogue, an API key or a setting pasted with something extra — each is
read sensibly or refused with one clear line, never a traceback or a misleading hint."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import httpx
import pytest

import whentostop.i18n as i18n
from whentostop import InvalidAPIKey, connect, load_level, run_agent, set_language
from whentostop.__main__ import main, port
from whentostop.client import OpenAIChat
from whentostop.i18n import MissingCatalogue


def one_error_line(err: str) -> str:
    """The CLI's stderr when a command fails: exactly one `error:` line, no traceback."""
    lines = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


# -- numbers and addresses on the command line ----------------------------------------------------

NOT_PORTS = [
    "70000",
    "65536",
    "-1",
    "abc",
    "1e3",
    "8080.5",
    "",
    " ",
    "0x50",
    "99999999999999999999",
]


@pytest.mark.parametrize("text", NOT_PORTS)
def test_serve_refuses_a_port_that_is_not_one_in_one_line_exit_2(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["serve", "--port", text])
    assert caught.value.code == 2
    line = one_error_line(capsys.readouterr().err)
    assert "is not a port: use a whole number from 0 to 65535" in line


@pytest.mark.parametrize("text, number", [("0", 0), ("8765", 8765), ("65535", 65535), ("+80", 80)])
def test_a_port_is_a_whole_number_from_0_to_65535(text: str, number: int) -> None:
    assert port(text) == number


def test_serve_port_70000_as_a_learner_types_it_says_so_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "whentostop", "serve", "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "70000" in one_error_line(done.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ["--max-turns", "0"],
        ["--max-turns", "x"],
        ["--deadline-s", "nan"],
        ["--deadline-s", "-1"],
        ["--deadline-s", "0"],
        ["--max-cost-usd", "nan"],
        ["--max-cost-usd", "-2"],
        ["--max-tokens-total", "0"],
        ["--max-tokens", "-5"],
        ["--temperature", "nan"],
        ["--temperature", "inf"],
        ["--seed", "1.5"],
        ["--base-url", "localhost:11434/v1", "--model", "m"],
        ["--base-url", "http://localhost:11434/v1?x=1", "--model", "m"],
        ["--base-url", "http://localhost:70000/v1", "--model", "m"],
        ["--base-url", "ftp://localhost/v1", "--model", "m"],
    ],
)
def test_run_refuses_a_number_or_address_that_cannot_be_one_in_one_line(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main(["run", *args])
    except SystemExit as exc:  # argparse's own refusal
        status = exc.code
    assert status == 2
    one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("value", ["inf", "1e400", "99999999999999999999999"])
def test_run_takes_a_deadline_past_any_clock_as_no_deadline(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--level", "1-2", "--deadline-s", value]) == 0
    assert "error" not in capsys.readouterr().err


# -- a language without its catalogue ---------------------------------------------------------------


@pytest.fixture
def no_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Portuguese catalogue missing, as in a checkout where `make i18n` never ran."""
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n._catalogue.cache_clear()
    yield tmp_path
    i18n._catalogue.cache_clear()
    set_language(None)


def test_a_missing_catalogue_shows_english_and_says_so_once(no_catalogue: Path) -> None:
    set_language("pt")
    with pytest.warns(MissingCatalogue, match="Português") as said:
        words = [i18n._("the clock"), i18n._("the flag"), i18n.ngettext("a", "b", 2)]
    assert words == ["the clock", "the flag", "b"]
    assert len(said) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once: no second warning
        run = run_agent(
            "Find the star.", model=connect("loopboros"), tools=load_level("1-1").tools()
        )
    assert "the clock" in run.summary()


def test_an_unreadable_catalogue_shows_english_too(no_catalogue: Path) -> None:
    folder = no_catalogue / "pt_BR" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "whentostop.mo").write_bytes(b"not a catalogue at all")
    set_language("pt")
    with pytest.warns(MissingCatalogue):
        assert i18n._("the clock") == "the clock"


def test_the_cli_with_a_missing_catalogue_runs_in_english_with_one_warning(
    no_catalogue: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--lang", "pt", "--level", "1-2"]) == 0
    captured = capsys.readouterr()
    assert "end_turn (the flag)" in captured.out
    warned = [line for line in captured.err.splitlines() if line.startswith("warning: ")]
    assert len(warned) == 1 and "catalogue" in warned[0]


def test_an_unknown_language_setting_shows_english_and_says_so_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WHENTOSTOP_LANG", "klingon")
    set_language(None)  # (which reads the setting once)
    i18n._configured.cache_clear()
    with pytest.warns(UserWarning, match="WHENTOSTOP_LANG") as said:
        assert [i18n.language(), i18n.language()] == ["en", "en"]
    assert len(said) == 1


# -- API keys and other settings ------------------------------------------------------------------

SECRET = "sk-secret-0123456789"
CANNOT_BE_SENT = {
    "a non-breaking space at the end": SECRET + "\u00a0",
    "a non-breaking space inside": SECRET[:5] + "\u00a0" + SECRET[5:],
    "a letter outside ASCII": SECRET + "é",
    "a zero-width space": SECRET + "\u200b",
    "a line break inside": SECRET[:5] + "\n" + SECRET[5:],
    "a NUL": SECRET + "\x00",
    "DEL": SECRET + "\x7f",
    "an escape": SECRET + "\x1b[2J",
}


@pytest.mark.parametrize("key", CANNOT_BE_SENT.values(), ids=CANNOT_BE_SENT.keys())
def test_a_key_a_header_cannot_carry_is_refused_at_connect_without_showing_it(key: str) -> None:
    with pytest.raises(InvalidAPIKey) as caught:
        connect("m", base_url="http://127.0.0.1:9/v1", api_key=key)
    message = str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert "cannot carry" in message and "(U+" in message
    assert SECRET not in message and SECRET[5:15] not in message


@pytest.mark.parametrize("key", CANNOT_BE_SENT.values(), ids=CANNOT_BE_SENT.keys())
def test_the_cli_refuses_such_a_key_in_one_line_exit_2(
    key: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if "\x00" in key:
        pytest.skip("no environment variable holds a NUL")
    monkeypatch.setenv("OPENAI_API_KEY", key)
    assert main(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "API key" in line and SECRET not in line


@pytest.mark.parametrize("key", [SECRET + "\n", SECRET + "\r\n", f"  {SECRET} ", f"\t{SECRET}"])
def test_a_key_with_spaces_or_a_line_break_around_it_is_trimmed_with_a_note(key: str) -> None:
    sent: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers["Authorization"])
        reply = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}
        return httpx.Response(200, json=reply)

    with pytest.warns(UserWarning, match="spaces or a line break around it") as said:
        model = OpenAIChat(
            "m", "http://keys.test/v1", api_key=key, transport=httpx.MockTransport(answer)
        )
    assert SECRET not in str(said[0].message)
    assert run_agent("go", model=model).answer == "ok"
    assert sent == [f"Bearer {SECRET}"]


@pytest.mark.parametrize(
    "url, problem",
    [
        ("http://localhost:11434/v1\u00a0", "a space or a control character"),
        ("http://local host:11434/v1", "a space or a control character"),
        ("localhost:11434/v1", "must start with http:// or https://"),
        ("ftp://localhost/v1", "must start with http:// or https://"),
        ("http://localhost:70000/v1", "port"),
        ("http://localhost:11434/v1?key=x", "query"),
        ("http://localhost:11434/v1#x", "fragment"),
        ("http:///v1", "no host"),
    ],
)
def test_a_base_url_setting_that_cannot_be_one_is_refused_naming_the_setting(
    url: str, problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    with pytest.raises(ValueError, match="Check OPENAI_BASE_URL") as caught:
        connect("m")
    assert problem in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("name", ["OPENAI_BASE_URL", "WHENTOSTOP_MODEL"])
def test_settings_with_a_line_break_around_them_are_trimmed_with_a_note(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("WHENTOSTOP_MODEL", "llama3.2")
    monkeypatch.setenv(
        name, f"{'http://127.0.0.1:9/v1' if name == 'OPENAI_BASE_URL' else 'llama3.2'}\r\n"
    )
    with pytest.warns(UserWarning, match=name):
        model = connect()
    assert (model.base_url, model.name) == ("http://127.0.0.1:9/v1", "llama3.2")
