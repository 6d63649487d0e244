"""`python -m whentostop lesson / lab / dashboard`: the lesson copied out of the package into a
folder a learner works in, a learner's edited copy never overwritten, and the server started when
its extra is installed, or else the one command that installs it.

The servers themselves, started for real and seen in a browser: tests/test_dashboard.py."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from conftest import NOTEBOOKS

from whentostop import __main__ as cli
from whentostop import __version__
from whentostop.__main__ import main
from whentostop.lesson.classroom import EDITIONS
from whentostop.lesson.folder import DEFAULT_FOLDER, RECORD, copy_lesson


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh working folder, as a learner's shell would be in."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def shipped(name: str, lang: str = "en") -> bytes:
    return (NOTEBOOKS / ("" if lang == "en" else lang) / name).read_bytes()


def test_lesson_copies_the_english_edition_into_the_default_folder(here, capsys) -> None:
    assert main(["lesson"]) == 0
    folder = here / DEFAULT_FOLDER
    for name in EDITIONS["en"].values():
        assert (folder / name).read_bytes() == shipped(name), name
    out = capsys.readouterr().out
    assert f"The lesson is in {folder}:" in out
    assert "Start with 00_start_here.ipynb." in out
    assert out.count("copied") == len(EDITIONS["en"])


def test_lesson_lang_pt_copies_the_portuguese_edition_and_says_so_in_portuguese(
    here, capsys
) -> None:
    assert main(["lesson", "aula", "--lang", "pt"]) == 0
    for name in EDITIONS["pt"].values():
        assert (here / "aula" / name).read_bytes() == shipped(name, "pt"), name
    assert not (here / "aula" / "00_start_here.ipynb").exists()  # one edition, flat
    out = capsys.readouterr().out
    assert "A lição está em" in out and "Comece por 00_comece_aqui.ipynb." in out


def test_a_learners_edited_copy_is_kept_and_named(here, capsys) -> None:
    folder = here / "lesson"
    copy_lesson(folder)
    edited = folder / "1-1_the_clock.ipynb"
    edited.write_text('{"my": "answers"}')
    assert main(["lesson", str(folder)]) == 0
    assert edited.read_text() == '{"my": "answers"}'
    out = capsys.readouterr().out
    assert re.search(r"^  1-1_the_clock\.ipynb +kept: your edited copy$", out, re.M), out
    assert re.search(r"^  00_start_here\.ipynb +already there, unchanged$", out, re.M), out
    assert "rename or delete it and run this command again" in out


def test_a_copy_an_earlier_lesson_left_untouched_is_brought_up_to_date(here) -> None:
    folder = here / "lesson"
    folder.mkdir()
    old = b'{"cells": [], "the lesson": "as version 0.0.9 shipped it"}\n'
    (folder / "1-2_the_flag.ipynb").write_bytes(old)
    (folder / RECORD).write_text(
        json.dumps({"1-2_the_flag.ipynb": hashlib.sha256(old).hexdigest()})
    )
    done = copy_lesson(folder)
    assert done.refreshed == ["1-2_the_flag.ipynb"] and not done.kept
    assert (folder / "1-2_the_flag.ipynb").read_bytes() == shipped("1-2_the_flag.ipynb")


def test_a_copy_that_differs_with_no_record_of_it_is_kept(here) -> None:
    folder = here / "lesson"
    folder.mkdir()
    (folder / "1-3_the_warp_pipe.ipynb").write_text("{}")
    (folder / RECORD).write_text("not json")  # a broken record is no record: the safe side
    done = copy_lesson(folder)
    assert done.kept == ["1-3_the_warp_pipe.ipynb"]
    assert (folder / "1-3_the_warp_pipe.ipynb").read_text() == "{}"


def test_a_kept_copy_stays_kept_on_the_next_run(here) -> None:
    folder = here / "lesson"
    copy_lesson(folder)
    (folder / "explorer.ipynb").write_text("{}")
    copy_lesson(folder)
    assert copy_lesson(folder).kept == ["explorer.ipynb"]
    assert (folder / "explorer.ipynb").read_text() == "{}"


def test_lesson_into_a_file_is_an_error_that_changes_nothing(here, capsys) -> None:
    (here / "notes.txt").write_text("mine")
    assert main(["lesson", "notes.txt"]) == 2
    assert (here / "notes.txt").read_text() == "mine"
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "is a file, not a folder" in err


@pytest.mark.parametrize(
    "command, module, extra", [("lab", "jupyterlab", "lab"), ("dashboard", "voila", "dashboard")]
)
def test_without_its_extra_the_server_command_copies_then_says_the_one_install_command(
    command, module, extra, here, capsys, monkeypatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == module else real(name, *a)
    )
    monkeypatch.setattr(cli, "_start", lambda *a: pytest.fail("no server without its extra"))
    assert main([command, "x"]) == 1
    assert (here / "x" / "00_start_here.ipynb").exists()
    err = capsys.readouterr().err
    assert f'-m pip install "when-to-stop[{extra}]=={__version__}"' in err
    assert err.strip().endswith("then run this command again.")


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """JupyterLab and Voila count as installed (the test matrix's environments have neither):
    what is checked is the command that would start them."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name in ("jupyterlab", "voila") else real(name, *a),
    )


def test_lab_starts_jupyterlab_on_the_folder_at_start_here(here, monkeypatch, installed) -> None:
    started = []
    monkeypatch.setattr(cli, "_start", lambda command, folder: started.append(command) or 0)
    assert main(["lab", "x", "--port", "8899", "--no-browser"]) == 0
    (command,) = started
    assert command[1:3] == ["-m", "jupyterlab"]
    assert f"--ServerApp.root_dir={here / 'x'}" in command
    assert "--LabApp.default_url=/lab/tree/00_start_here.ipynb" in command
    assert "--port=8899" in command and "--no-browser" in command


def test_dashboard_serves_the_editions_dashboard_on_loopback_only(
    here, monkeypatch, installed
) -> None:
    started = []
    monkeypatch.setattr(cli, "_start", lambda command, folder: started.append(command) or 0)
    assert main(["dashboard", "y", "--lang", "pt"]) == 0
    (command,) = started
    assert command[1:3] == ["-m", "voila"]
    assert "--Voila.ip=127.0.0.1" in command
    assert command[-1] == str(here / "y" / "painel.ipynb")


@pytest.mark.parametrize("port", ["0", "70000", "http"])
def test_a_port_that_is_not_one_is_refused_before_anything_is_copied(port, here, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["lab", "x", "--port", port])
    assert exit_.value.code == 2
    assert "is not a port" in capsys.readouterr().err
    assert not (here / "x").exists()
