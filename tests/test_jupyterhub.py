"""A class on a real JupyterHub: two learners log in through the link `python -m whentostop
link` prints, nbgitpuller pulls the lesson into each one's home folder, and each runs level 1-1
in JupyterLab and sees the clock.

The hub (tests/hub/jupyterhub_config.py) listens on 127.0.0.1 only, keeps all its state in a
temporary folder and is stopped at the end, with its proxy and every learner's server. The
lesson is a git repository made from a copy of the working tree and given as a file:// URL
(nbgitpuller runs `git clone`, which takes one); the link is the same as for a public URL.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import free_port, loopback_context, running, screenshot
from labpage import (
    copy_of_repository,
    error_outputs,
    run_all_cells,
    wait_for_notebook,
    write_lab_settings,
)
from playwright.sync_api import expect

pytestmark = [pytest.mark.slow, pytest.mark.browser]

HUB_CONFIG = Path(__file__).parent / "hub" / "jupyterhub_config.py"
LEARNERS = ("ada", "grace")
NOTEBOOK = "1-1"


@pytest.fixture(scope="module")
def proxy_command() -> str:
    """configurable-http-proxy (npm): required in CI, a clear skip on a machine without it."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return found
    message = ("configurable-http-proxy is not on PATH: "
               "npm install --global configurable-http-proxy@5.2.0 (.ci/run does)")
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def lesson_repo(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A git repository on branch main holding the working tree as it is (committed or not), so
    the hub pulls what this checkout would publish; nothing is written into the checkout."""
    repo = copy_of_repository(tmp_path_factory.mktemp("git") / "whentostop")
    git = ["git", "-c", "user.name=whentostop tests", "-c", "user.email=tests@localhost"]
    for args in (["init", "--quiet", "-b", "main"], ["add", "--all"],
                 ["commit", "--quiet", "-m", "the lesson, as checked out"]):
        subprocess.run([*git, *args], cwd=repo, check=True, timeout=60, capture_output=True)
    return repo.as_uri()


@pytest.fixture(scope="module")
def hub(proxy_command: str, jupyter_env: dict[str, str],
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    """A running hub: (its URL, the class password, its state folder)."""
    state = tmp_path_factory.mktemp("hub")
    password = secrets.token_urlsafe(12)
    for learner in LEARNERS:
        write_lab_settings(state / "home" / learner / ".jupyter" / "lab" / "user-settings")
    port = free_port()
    env = dict(jupyter_env,
               WTS_HUB_DIR=str(state), WTS_HUB_PORT=str(port), WTS_HUB_API_PORT=str(free_port()),
               WTS_PROXY_API_PORT=str(free_port()), WTS_PROXY_TOKEN=secrets.token_hex(32),
               WTS_PROXY=proxy_command, WTS_HUB_PASSWORD=password,
               WTS_HUB_USERS=",".join(LEARNERS),
               WTS_SINGLEUSER=str(Path(sys.executable).parent / "jupyterhub-singleuser"))
    url = f"http://127.0.0.1:{port}"
    cmd = [str(Path(sys.executable).parent / "jupyterhub"), "-f", str(HUB_CONFIG)]
    try:
        # 200, not any answer: until the hub has added its route, the proxy answers /hub/api with
        # a 404, and a learner sent to the hub then would wait in vain for the login page.
        with running(cmd, url=f"{url}/hub/api", env=env, cwd=state, log=state / "jupyterhub.log",
                     start_timeout_s=90, stop_timeout_s=30, ready_status=200):
            yield url, password, state
    finally:
        stop_leftovers(state)


def stop_leftovers(state: Path) -> None:
    """Stop any process still working in the hub's folder (the proxy, a learner's server) that
    the hub did not stop itself: they run in sessions of their own."""
    def leftovers() -> list[int]:
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid():
                try:
                    if Path(os.readlink(entry / "cwd")).is_relative_to(state):
                        pids.append(int(entry.name))
                except OSError:
                    pass
        return pids

    for sig, wait_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        pids = leftovers()
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait_s
        while pids and leftovers() and time.monotonic() < deadline:
            time.sleep(0.2)


def printed_hub_link(hub_url: str, repo: str) -> str:
    """The nbgitpuller link as an instructor gets it: from the command line."""
    out = subprocess.run([sys.executable, "-m", "whentostop", "link", "--hub", hub_url,
                          "--repo", repo, "--notebook", NOTEBOOK],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    found = re.findall(r"^https?://\S+/git-pull\?\S+$", out, flags=re.MULTILINE)
    assert len(found) == 1, out
    return found[0]


@pytest.mark.timeout(900)
def test_two_learners_follow_the_hub_link_and_each_runs_level_1_1(
        chromium, hub: tuple[str, str, Path], lesson_repo: str) -> None:
    hub_url, password, state = hub
    link = printed_hub_link(hub_url, lesson_repo)
    assert link.startswith(f"{hub_url}/hub/user-redirect/git-pull?")
    contexts = []
    try:
        for learner in LEARNERS:
            context = loopback_context(chromium)
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(60_000)

            page.goto(link, wait_until="domcontentloaded")
            page.fill("#username_input", learner)
            page.fill("#password_input", password)
            page.click("#login_submit")
            # The hub starts the learner's server, nbgitpuller clones, JupyterLab opens 1-1.
            page.wait_for_url(
                re.compile(rf"/user/{learner}/lab/tree/whentostop/notebooks/1-1_the_clock\.ipynb"),
                timeout=240_000)
            wait_for_notebook(page)
            run_all_cells(page)
            assert error_outputs(page) == []
            badge = page.locator(".wts-explorer .wts-badge").first
            expect(badge).to_contain_text("the clock", timeout=30_000)
            badge.scroll_into_view_if_needed()
            screenshot(page, f"jupyterhub-{learner}-1-1")

        for learner in LEARNERS:
            pulled = state / "home" / learner / "whentostop"
            assert (pulled / "notebooks" / "1-1_the_clock.ipynb").is_file(), f"{learner}'s copy"
            assert (pulled / ".git").is_dir()
    finally:
        for context in contexts:
            context.close()
