"""`make lab` — the first command in the README — opens JupyterLab on notebooks/, at 00 start
here, on the offline mock even when the shell has an endpoint configured, and without
JupyterLab's "get notified about official Jupyter news?" toast over the notebooks (the setting
lives in the venv, not in the learner's home folder)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import httpx
import pytest
from conftest import ROOT, free_port, running

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed"),
]


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def _descendants(pid: int) -> list[int]:
    out = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True
    ).stdout
    children = [int(p) for p in out.split()]
    return children + [d for c in children for d in _descendants(c)]


def jupyter_lab_process(make: subprocess.Popen) -> int:
    """The server itself among make's descendants, not make's shell."""
    return next(
        pid
        for pid in _descendants(make.pid)
        if b"jupyter-lab" in Path(f"/proc/{pid}/cmdline").read_bytes()
    )


class Lab(NamedTuple):
    base: str
    token: str
    pid: int


@pytest.fixture(scope="module")
def make_lab(jupyter_env, tmp_path_factory) -> Iterator[Lab]:
    """`make lab` running, started from a shell that has an endpoint configured."""
    port, token = free_port(), "make-lab-test"
    env = {
        **jupyter_env,
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "WHENTOSTOP_MODEL": "llama3.2",
    }
    args = f"LAB_ARGS=--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token}"
    base = f"http://127.0.0.1:{port}"
    with running(
        ["make", "lab", args],
        url=f"{base}/api/status?token={token}",
        env=env,
        cwd=ROOT,
        log=tmp_path_factory.mktemp("make-lab") / "lab.log",
        start_timeout_s=240,
    ) as proc:
        yield Lab(base, token, jupyter_lab_process(proc))


def test_make_lab_opens_start_here_on_the_mock(make_lab: Lab) -> None:
    base, token, lab = make_lab
    first = httpx.get(f"{base}/?token={token}", follow_redirects=False)
    assert first.status_code == 302
    assert first.headers["location"].startswith("/lab/tree/00_start_here.ipynb")
    listing = httpx.get(f"{base}/api/contents?token={token}").json()
    names = {item["name"] for item in listing["content"]}
    assert {
        "00_start_here.ipynb",
        "1-1_the_clock.ipynb",
        "1-2_the_flag.ipynb",
        "1-3_the_warp_pipe.ipynb",
    } <= names
    lab_env = _environ(lab)
    assert lab_env.get("OPENAI_BASE_URL", "") == "" and lab_env.get("WHENTOSTOP_MODEL", "") == ""


def test_make_lab_asks_no_news_question_and_checks_for_no_update(
    make_lab: Lab, jupyter_env
) -> None:
    base, token, lab = make_lab
    # The toast asks while the setting is "none" (not answered yet); the venv answers it.
    schema = httpx.get(
        f"{base}/lab/api/settings/@jupyterlab/apputils-extension:notification",
        params={"token": token},
    ).json()["schema"]["properties"]
    assert schema["fetchNews"]["default"] == "false"
    assert schema["checkForUpdates"]["default"] is False
    # ... nor does the server fetch the news feed or look for a newer JupyterLab.
    news = httpx.get(f"{base}/lab/api/news", params={"token": token}).json()
    assert news.get("news") == []
    updates = httpx.get(f"{base}/lab/api/update", params={"token": token}).json()
    assert not updates.get("notification")
    # ... and nothing was written into the (here: temporary) home's Jupyter folders.
    written = [
        p
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR")
        for p in Path(jupyter_env[name]).rglob("*.json")
        if "notification" in p.name
    ]
    assert written == []
    overrides = ROOT / ".venv" / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
    assert json.loads((overrides / "whentostop.json").read_text()) == json.loads(
        (ROOT / "jupyter" / "lab-overrides.json").read_text()
    )
    assert b"--LabApp.news_url=None" in Path(f"/proc/{lab}/cmdline").read_bytes()
