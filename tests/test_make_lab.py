"""`make lab` — the first command in the README — opens JupyterLab on notebooks/, at 00 start
here, on the offline mock even when the shell has an endpoint configured."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, free_port, running


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def _descendants(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    children = [int(p) for p in out.split()]
    return children + [d for c in children for d in _descendants(c)]


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_lab_opens_start_here_on_the_mock(jupyter_env, tmp_path):
    port, token = free_port(), "make-lab-test"
    env = {**jupyter_env, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "WHENTOSTOP_MODEL": "llama3.2"}
    args = f"LAB_ARGS=--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token}"
    base = f"http://127.0.0.1:{port}"
    with running(["make", "lab", args], url=f"{base}/api/status?token={token}", env=env,
                 cwd=ROOT, log=tmp_path / "lab.log", start_timeout_s=240) as proc:
        first = httpx.get(f"{base}/?token={token}", follow_redirects=False)
        assert first.status_code == 302
        assert first.headers["location"].startswith("/lab/tree/00_start_here.ipynb")
        listing = httpx.get(f"{base}/api/contents?token={token}").json()
        names = {item["name"] for item in listing["content"]}
        assert {"00_start_here.ipynb", "1-1_the_clock.ipynb", "1-2_the_flag.ipynb",
                "1-3_the_warp_pipe.ipynb"} <= names
        lab = next(pid for pid in _descendants(proc.pid)  # the server itself, not make's shell
                   if b"jupyter-lab" in Path(f"/proc/{pid}/cmdline").read_bytes())
        lab_env = _environ(lab)
        assert lab_env.get("OPENAI_BASE_URL", "") == "" and lab_env.get("WHENTOSTOP_MODEL", "") == ""
