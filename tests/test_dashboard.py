"""The projector's dashboard as an instructor starts it, seen in headless Chromium: `make
dashboard` from a clone, and `python -m whentostop dashboard` from an install (which copies the
lesson first); both serve the three levels' explorers with Voila on 127.0.0.1 only. And
`python -m whentostop lab` opens JupyterLab on the copied lesson at 00 start here."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, free_port, running, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]

SHOW_TIMEOUT_MS = 180_000
"""Voila starts a kernel for the page and runs the notebook before the widgets appear."""


def listens_on(port: int) -> set[str]:
    """The local addresses a TCP socket listens on at `port` (from /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def three_explorers(page, url: str) -> list[str]:
    """Open the dashboard; the three explorers' badges once they are drawn."""
    page.goto(url, wait_until="domcontentloaded")
    explorers = page.locator(".wts-explorer")
    explorers.nth(2).locator(".wts-badge").wait_for(state="visible", timeout=SHOW_TIMEOUT_MS)
    assert explorers.count() == 3
    assert "from whentostop" not in page.content()  # Voila shows no code
    return [explorers.nth(i).locator(".wts-badge").inner_text() for i in range(3)]


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_dashboard_serves_the_explorer_on_loopback_only(
    page, jupyter_env: dict[str, str], tmp_path: Path
) -> None:
    port = free_port()
    with running(
        ["make", "dashboard", f"DASHBOARD_PORT={port}", "DASHBOARD_ARGS=--no-browser"],
        url=f"http://127.0.0.1:{port}/voila/static/voila.js",
        env=jupyter_env,
        cwd=ROOT,
        log=tmp_path / "dashboard.log",
        start_timeout_s=240,
    ):
        assert listens_on(port) == {"0100007F"}  # 127.0.0.1, nothing else
        badges = three_explorers(page, f"http://127.0.0.1:{port}/")
        screenshot(page, "make-dashboard")
    assert "the clock" in badges[0] and "the flag" in badges[1] and "the warp pipe" in badges[2]


@pytest.mark.browser
def test_python_m_whentostop_dashboard_copies_the_lesson_then_serves_it(
    page, jupyter_env: dict[str, str], tmp_path: Path
) -> None:
    port = free_port()
    folder = tmp_path / "lesson"
    with running(
        [sys.executable, "-m", "whentostop", "dashboard", str(folder), "--lang", "pt"]
        + ["--port", str(port), "--no-browser"],
        url=f"http://127.0.0.1:{port}/voila/static/voila.js",
        env=jupyter_env,
        cwd=tmp_path,
        log=tmp_path / "dashboard.log",
        start_timeout_s=240,
    ):
        assert (folder / "painel.ipynb").exists() and (folder / "00_comece_aqui.ipynb").exists()
        assert listens_on(port) == {"0100007F"}
        badges = three_explorers(page, f"http://127.0.0.1:{port}/")
    assert "o relógio" in badges[0]  # the Portuguese edition's dashboard


def test_python_m_whentostop_lab_opens_start_here_in_the_copied_lesson(
    jupyter_env: dict[str, str], tmp_path: Path
) -> None:
    port = free_port()
    folder = tmp_path / "lesson"
    log = tmp_path / "lab.log"
    with running(
        [sys.executable, "-m", "whentostop", "lab", str(folder)]
        + ["--port", str(port), "--no-browser"],
        url=f"http://127.0.0.1:{port}/api/status",
        env=jupyter_env,
        cwd=tmp_path,
        log=log,
        start_timeout_s=240,
    ):
        token = re.search(r"\?token=([0-9a-f]+)", log.read_text()).group(1)  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}"
        first = httpx.get(f"{base}/?token={token}", follow_redirects=False, timeout=30)
        contents = httpx.get(f"{base}/api/contents?token={token}", timeout=30).json()
    assert first.status_code == 302
    assert first.headers["location"].startswith("/lab/tree/00_start_here.ipynb")
    names = {item["name"] for item in contents["content"]}
    assert {"00_start_here.ipynb", "1-1_the_clock.ipynb", "explorer.ipynb"} <= names
