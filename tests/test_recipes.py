"""The documents' recipes, followed to the letter: the commands are read out of the README, the
developer and instructor guides and the notebooks' text (their code blocks and `inline code`)
and run as written. `python` is this environment's Python, as in a shell with .venv activated.

What a test must add to a command is said where it is added: a free port, a token and no browser
for a JupyterLab a test drives, and a copy of the notebooks for it to save into.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from conftest import NOTEBOOKS, ROOT, committed_notebooks, committed_text, free_port, running
from labpage import error_outputs, run_all_cells, wait_for_notebook

from whentostop.mock.personas import PERSONAS

DOCUMENTS = [ROOT / "README.md", ROOT / "DEVELOPERS.md", ROOT / "docs" / "workshop.md"]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def markdown_of(path: Path) -> str:
    """A document's text; for a notebook, its markdown cells (as committed)."""
    if path.suffix == ".ipynb":
        cells = json.loads(committed_text(path))["cells"]
        return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def sources() -> list[Path]:
    return DOCUMENTS + sorted(NOTEBOOKS.glob("*.ipynb"))


def code_lines(text: str) -> list[str]:
    """Every command a reader can copy: the lines of shell blocks (comments dropped) and the
    inline code spans of the prose."""
    lines = [
        line.split("  #")[0].split(" # ")[0].strip()
        for lang, body in FENCE.findall(text)
        if lang in ("", "bash", "sh", "shell")
        for line in body.splitlines()
    ]
    prose = FENCE.sub("", text)
    return [line for line in lines + INLINE.findall(prose) if line and not line.startswith("#")]


def documented(prefix: str) -> list[tuple[str, str]]:
    """(documents, command) for every documented command that starts with `prefix`."""
    found: dict[str, list[str]] = {}
    for path in sources():
        for line in code_lines(markdown_of(path)):
            if line.startswith(prefix) and path.name not in found.setdefault(line, []):
                found[line].append(path.name)
    return [(", ".join(documents), command) for command, documents in sorted(found.items())]


def as_written(command: str) -> list[str]:
    """The command's words, `python` being this environment's."""
    words = shlex.split(command)
    return [sys.executable if words[0] == "python" else words[0], *words[1:]]


def offline_env() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "WHENTOSTOP_MODEL")
    }


# --- python -------------------------------------------------------------------------------------


def test_the_first_run_in_five_lines_prints_what_its_comment_says() -> None:
    block = next(
        body
        for lang, body in FENCE.findall(markdown_of(ROOT / "README.md"))
        if lang == "python" and "run_agent(" in body
    )
    said = re.search(r"^print\(.*\)\s+#\s*(.+)$", block, re.MULTILINE)
    assert said, block
    done = subprocess.run(
        [sys.executable, "-c", block],
        env=offline_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == said.group(1).strip()


SERVERS = (" serve", " lab", " dashboard")
"""Commands that start a server and run until stopped: each has its own test (serve below, lab
and dashboard in tests/test_lesson_folder.py)."""
COMMANDS = [c for c in documented("python -m whentostop ") if not any(s in c[1] for s in SERVERS)]


@pytest.mark.parametrize("document, command", COMMANDS, ids=[c for _, c in COMMANDS])
def test_every_documented_command_line_runs_as_written(
    document: str, command: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        as_written(command),
        env=offline_env(),
        # `lesson` writes its folder where it is run: not into the checkout
        cwd=tmp_path if " lesson" in command else ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # 0: an answer (or a link printed); 1: no answer, the clock — as the README says
    assert done.returncode in (0, 1), f"{document}: {command}\n{done.stderr}"
    assert done.stdout.strip() and "Traceback" not in done.stderr and "error:" not in done.stderr
    if "--json" in command:
        assert json.loads(done.stdout)["stop"]


def port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def fixed_port(port: int) -> None:
    """A recipe names its port; on a shared machine something else may hold it."""
    if not port_free(port):
        message = f"port {port}, which the recipe names, is in use"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def test_serve_as_documented_answers_with_every_persona(tmp_path: Path) -> None:
    document, command = next(
        c for c in documented("python -m whentostop serve") if "--port" in c[1]
    )
    port = int(command.split("--port", 1)[1].split()[0])
    fixed_port(port)
    with running(
        as_written(command),
        url=f"http://127.0.0.1:{port}/v1/models",
        env=offline_env(),
        log=tmp_path / "serve.log",
    ):
        models = httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=10).json()
    assert {m["id"] for m in models["data"]} >= set(PERSONAS), document


# --- make ---------------------------------------------------------------------------------------


MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
TARGETS = set(re.findall(r"^([a-z][\w-]*):", MAKEFILE, re.MULTILINE))
VARIABLES = set(re.findall(r"^([A-Z_]+)\s*[?:]?=", MAKEFILE, re.MULTILINE))
MAKE_COMMANDS = documented("make ") + [  # and `OPENAI_API_KEY=... make lab ...`
    (d, "make " + c.split(" make ", 1)[1])
    for d, c in documented("OPENAI_API_KEY=")
    if " make " in c and not any(c.endswith(m) for _, m in documented("make "))
]


@pytest.mark.parametrize("document, command", MAKE_COMMANDS, ids=[c for _, c in MAKE_COMMANDS])
def test_every_documented_make_command_names_a_target_and_variables_the_makefile_has(
    document: str, command: str
) -> None:
    words = shlex.split(command)
    assert words[1] in TARGETS, f"{document}: `{command}`: the Makefile has no target {words[1]}"
    settings = [w.split("=", 1)[0] for w in words[2:] if re.match(r"[A-Z_]+=", w)]
    unknown = [name for name in settings if name not in VARIABLES]
    assert not unknown, f"{document}: `{command}`: the Makefile reads no {unknown}"


# --- the real socket: `make serve` in one terminal, `make lab BASE_URL=...` in another ------------


def real_socket_recipe() -> tuple[str, str]:
    """The two commands of 00's "try it over a real socket", as the notebook writes them."""
    text = markdown_of(NOTEBOOKS / "00_start_here.ipynb")
    found = re.search(r"`(make serve[^`]*)`.{0,80}?`(make lab BASE_URL=[^`]+)`", text, re.DOTALL)
    assert found, "00_start_here no longer says how to try the mock over a real socket"
    return found.group(1), found.group(2)


def _descendants(pid: int) -> list[int]:
    out = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True
    ).stdout
    children = [int(p) for p in out.split()]
    return children + [d for c in children for d in _descendants(c)]


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(600)
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_real_socket_recipe_runs_level_1_3_with_the_sloppy_callers_rejected_call(
    page, jupyter_env: dict[str, str], tmp_path: Path
) -> None:
    serve, lab = real_socket_recipe()
    base_url = lab.split("BASE_URL=", 1)[1].split()[0]
    port = int(base_url.rsplit(":", 1)[1].split("/")[0])
    fixed_port(port)
    # What the test adds to `make lab`: where it listens, its token, no browser window, and a
    # copy of the notebooks to save into (the settings file only keeps every cell in the page).
    lab_port, token = free_port(), "recipe-test"
    notebooks = committed_notebooks(tmp_path / "notebooks")
    settings = tmp_path / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    added = [
        f"NOTEBOOKS={notebooks}",
        f"LAB_ARGS=--no-browser --ip=127.0.0.1 --port={lab_port} --IdentityProvider.token={token} "
        f"--LabApp.user_settings_dir={tmp_path / 'settings'}",
    ]
    env = jupyter_env
    with (
        running(
            shlex.split(serve),
            url=f"{base_url}/models",
            env=env,
            cwd=ROOT,
            log=tmp_path / "serve.log",
            start_timeout_s=120,
        ),
        running(
            [*shlex.split(lab), *added],
            url=f"http://127.0.0.1:{lab_port}/api/status?token={token}",
            env=env,
            cwd=ROOT,
            log=tmp_path / "lab.log",
            start_timeout_s=240,
        ) as make_lab,
    ):
        page.goto(
            f"http://127.0.0.1:{lab_port}/lab/tree/1-3_the_warp_pipe.ipynb?reset&token={token}",
            wait_until="domcontentloaded",
        )
        wait_for_notebook(page)
        run_all_cells(page)
        assert error_outputs(page) == []
        outputs = "\n".join(page.locator(".jp-OutputArea-output").all_inner_texts())
        # the sloppy caller's first mark_star fails validation, the fixed one opens the pipe
        assert "ok=False" in outputs and "ok=True" in outputs, outputs[-3000:]
        assert "terminal_tool" in outputs
        assert page.get_by_text("official Jupyter news").count() == 0  # no toast over the page
        lab_pid = next(
            pid
            for pid in _descendants(make_lab.pid)
            if b"jupyter-lab" in Path(f"/proc/{pid}/cmdline").read_bytes()
        )
        kernels = [
            pid
            for pid in _descendants(lab_pid)
            if b"ipykernel" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        assert kernels and all(_environ(pid).get("OPENAI_BASE_URL") == base_url for pid in kernels)


def test_the_explorer_on_the_mock_served_over_http_plays_the_personas(monkeypatch) -> None:
    """`make lab BASE_URL=<make serve's URL>` sets no model: the explorer asks the endpoint for
    the personas it serves, as the notebooks' own cells do, and re-runs as on the mock."""
    from whentostop.mock import MockServer
    from whentostop.outcome import Stop
    from whentostop.views.widgets import explorer

    with MockServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        ex = explorer("1-3")
        ex.persona.value = "sloppy"
        played_by = ex._current_model().base_url
    assert not ex.live and ex.run.stop == Stop.TERMINAL_TOOL and len(ex.run.turns) == 6
    assert played_by == server.base_url  # over the socket, not in-process
