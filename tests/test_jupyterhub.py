"""A class on a real JupyterHub: two learners log in through the link `python -m whentostop
link` prints, nbgitpuller pulls the lesson into each one's home folder, and each runs level 1-1
in JupyterLab and sees the clock.

The hub (tests/hub/jupyterhub_config.py) listens on 127.0.0.1 only, keeps all its state in a
temporary folder and is stopped at the end, with its proxy and every learner's server. The
lesson is a git repository made from a copy of the working tree and given as a file:// URL
(nbgitpuller runs `git clone`, which takes one); the link is the same as for a public URL.
"""

from __future__ import annotations

import json
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

import httpx
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
ROOM_LEARNER = "katherine"
"""A learner whose server the instructor's room setting reaches (or not)."""
INSTRUCTOR_TOKEN = secrets.token_hex(32)


@pytest.fixture(scope="module")
def proxy_command() -> str:
    """configurable-http-proxy (npm): required in CI, a clear skip on a machine without it."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return found
    message = (
        "configurable-http-proxy is not on PATH: "
        "npm install --global configurable-http-proxy@5.2.0 (.ci/run does)"
    )
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def lesson_repo(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A git repository on branch main holding the working tree as it is (committed or not), so
    the hub pulls what this checkout would publish; nothing is written into the checkout."""
    repo = copy_of_repository(tmp_path_factory.mktemp("git") / "whentostop")
    git = ["git", "-c", "user.name=whentostop tests", "-c", "user.email=tests@localhost"]
    for args in (
        ["init", "--quiet", "-b", "main"],
        ["add", "--all"],
        ["commit", "--quiet", "-m", "the lesson, as checked out"],
    ):
        subprocess.run([*git, *args], cwd=repo, check=True, timeout=60, capture_output=True)
    return repo.as_uri()


@pytest.fixture(scope="module")
def hub(
    proxy_command: str, jupyter_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, Path]]:
    """A running hub: (its URL, the class password, its state folder)."""
    state = tmp_path_factory.mktemp("hub")
    password = secrets.token_urlsafe(12)
    for learner in (*LEARNERS, ROOM_LEARNER):
        write_lab_settings(state / "home" / learner / ".jupyter" / "lab" / "user-settings")
    (state / "room.json").write_text("{}")  # the room starts on the mock
    port = free_port()
    env = dict(
        jupyter_env,
        WTS_HUB_DIR=str(state),
        WTS_HUB_PORT=str(port),
        WTS_HUB_API_PORT=str(free_port()),
        WTS_PROXY_API_PORT=str(free_port()),
        WTS_PROXY_TOKEN=secrets.token_hex(32),
        WTS_PROXY=proxy_command,
        WTS_HUB_PASSWORD=password,
        WTS_HUB_USERS=",".join((*LEARNERS, ROOM_LEARNER)),
        WTS_ROOM_FILE=str(state / "room.json"),
        WTS_INSTRUCTOR_TOKEN=INSTRUCTOR_TOKEN,
        WTS_SINGLEUSER=str(Path(sys.executable).parent / "jupyterhub-singleuser"),
    )
    url = f"http://127.0.0.1:{port}"
    cmd = [str(Path(sys.executable).parent / "jupyterhub"), "-f", str(HUB_CONFIG)]
    try:
        # 200, not any answer: until the hub has added its route, the proxy answers /hub/api with
        # a 404, and a learner sent to the hub then would wait in vain for the login page.
        with running(
            cmd,
            url=f"{url}/hub/api",
            env=env,
            cwd=state,
            log=state / "jupyterhub.log",
            start_timeout_s=90,
            stop_timeout_s=30,
            ready_status=200,
        ):
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
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "whentostop",
            "link",
            "--hub",
            hub_url,
            "--repo",
            repo,
            "--notebook",
            NOTEBOOK,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    found = re.findall(r"^https?://\S+/git-pull\?\S+$", out, flags=re.MULTILINE)
    assert len(found) == 1, out
    return found[0]


@pytest.mark.timeout(900)
def test_two_learners_follow_the_hub_link_and_each_runs_level_1_1(
    chromium, hub: tuple[str, str, Path], lesson_repo: str
) -> None:
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
                timeout=240_000,
            )
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


# --- switching the room to a shared model --------------------------------------------------------


def wait_for(check, what: str, timeout_s: float = 180.0):
    """Poll `check()` until it returns something true; that value."""
    deadline = time.monotonic() + timeout_s
    while not (found := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.5)
    return found


def servers(api: httpx.Client, learner: str) -> dict[str, dict]:
    """The learner's servers as the hub's API lists them."""
    user = api.get(f"/hub/api/users/{learner}")
    assert user.status_code == 200, f"{user.status_code}: {user.text[:500]}"
    return user.json().get("servers", {})


def server_ready(api: httpx.Client, learner: str) -> bool:
    return bool(servers(api, learner).get("", {}).get("ready"))


def start_server(api: httpx.Client, learner: str) -> None:
    """What *Start My Server* does in the hub's control panel."""
    started = api.post(f"/hub/api/users/{learner}/server")
    assert started.status_code in (201, 202), f"{started.status_code}: {started.text[:500]}"
    wait_for(lambda: server_ready(api, learner), f"{learner}'s server")


def stop_server(api: httpx.Client, learner: str) -> None:
    """What *Stop My Server* does in the hub's control panel."""
    assert api.delete(f"/hub/api/users/{learner}/server").status_code in (202, 204)
    wait_for(lambda: not servers(api, learner), f"{learner}'s server to stop")


def kernel_environment(kernel_id: str, not_pid: int | None = None) -> tuple[int, dict[str, str]]:
    """(pid, environment) of the process running the kernel (a new one after a restart)."""

    def find() -> tuple[int, dict[str, str]] | None:
        for entry in Path("/proc").iterdir():
            try:
                if (
                    entry.name.isdigit()
                    and int(entry.name) != not_pid
                    and f"kernel-{kernel_id}".encode() in (entry / "cmdline").read_bytes()
                ):
                    raw = (entry / "environ").read_bytes().split(b"\0")
                    return int(entry.name), dict(i.decode().split("=", 1) for i in raw if b"=" in i)
            except OSError:
                pass
        return None

    return wait_for(find, f"kernel {kernel_id}'s process", 60)


@pytest.mark.timeout(600)
def test_a_room_setting_reaches_a_learner_after_their_server_restarts_not_their_kernel(
    hub: tuple[str, str, Path],
) -> None:
    hub_url, _, state = hub
    shared = {"OPENAI_BASE_URL": "http://10.0.0.5:11434/v1", "WHENTOSTOP_MODEL": "llama3.2"}
    with httpx.Client(
        base_url=hub_url, timeout=60, headers={"Authorization": f"token {INSTRUCTOR_TOKEN}"}
    ) as api:
        kernels = f"/user/{ROOM_LEARNER}/api/kernels"
        # until the hub has added its route, the proxy answers /hub/api with a 404
        wait_for(lambda: api.get("/hub/api").status_code == 200, "the hub's API", 90)
        try:
            start_server(api, ROOM_LEARNER)
            kernel = api.post(kernels, json={"name": "python3"}).json()["id"]
            pid, env = kernel_environment(kernel)
            assert env.get("OPENAI_BASE_URL") == ""  # on the mock

            # The instructor switches the room; the learner restarts the kernel: nothing changes.
            (state / "room.json").write_text(json.dumps(shared))
            assert api.post(f"{kernels}/{kernel}/restart").status_code == 200
            _, env = kernel_environment(kernel, not_pid=pid)
            assert env.get("OPENAI_BASE_URL") == ""

            # The learner stops and starts their server: its new kernels have the room's model.
            stop_server(api, ROOM_LEARNER)
            start_server(api, ROOM_LEARNER)
            kernel = api.post(kernels, json={"name": "python3"}).json()["id"]
            _, env = kernel_environment(kernel)
            assert {name: env.get(name) for name in shared} == shared
        finally:
            (state / "room.json").write_text("{}")
            if server_ready(api, ROOM_LEARNER):
                stop_server(api, ROOM_LEARNER)
