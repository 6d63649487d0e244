"""Shared fixtures: an isolated Jupyter environment, loopback servers started and stopped by the
tests, and headless Chromium (Debian's, driven by Playwright; never a downloaded browser)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pytest
from traitlets.config import Config

from whentostop import Level, Run, connect, load_level, run_agent
from whentostop.events import Event
from whentostop.lesson import GIVE_UP_TEXT, PROMPT_TEXT

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARTIFACTS = ROOT / "test-artifacts"


@functools.cache
def committed_text(path: Path) -> str:
    """A file of the lesson as git would commit it: its content in the index in a checkout (what
    `git commit` takes; the same as HEAD until you `git add`), the working file otherwise.
    Jupyter saves outputs, and a learner's answers, into the working copy as it is used: the
    tests check the lesson as it is published, whatever `make lab` has done to the copy."""
    shown = subprocess.run(
        ["git", "cat-file", "blob", f":./{path.relative_to(ROOT)}"],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )
    if shown.returncode == 0:
        return shown.stdout.decode("utf-8")
    return path.read_text(encoding="utf-8")


def committed_notebooks(dest: Path) -> Path:
    """notebooks/ as committed (see `committed_text`), written into `dest`; `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in sorted(NOTEBOOKS.rglob("*.ipynb")):  # the Portuguese edition's in pt/ too
        if ".ipynb_checkpoints" in path.parts:
            continue
        target = dest / path.relative_to(NOTEBOOKS)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(committed_text(path), encoding="utf-8")
    return dest


PROMPT = PROMPT_TEXT
"""The lesson's task, in English (the tests' language)."""
MAY_GIVE_UP = GIVE_UP_TEXT
"""The lesson's give-up sentence: the permission the searcher needs to stop on the flag."""


class Played(NamedTuple):
    run: Run
    level: Level
    events: list[Event]


def _play(level: str, persona: str, *, tools: list | None = None, **options) -> Played:
    """One run of the lesson's task on the mock: the level's two tools unless told otherwise,
    every event recorded."""
    board = load_level(level)
    events: list[Event] = []
    run = run_agent(
        PROMPT,
        model=connect(persona),
        tools=board.tools() if tools is None else tools,
        on_event=events.append,
        **options,
    )
    return Played(run, board, events)


@pytest.fixture(scope="session")
def play():
    """`play(level, persona, **run_agent options)` -> (run, level, events) on the mock."""
    return _play


@pytest.fixture(autouse=True)
def _offline_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run on the mock: a developer's own endpoint settings must not leak in."""
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "WHENTOSTOP_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def jupyter_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Environment for Jupyter processes that writes nothing into the home folder."""
    base = tmp_path_factory.mktemp("jupyter-home")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "WHENTOSTOP_MODEL")
    }
    for name, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("IPYTHONDIR", "ipython"),
        ("MPLCONFIGDIR", "mpl"),
    ]:
        (base / sub).mkdir()
        env[name] = str(base / sub)
    # Kernels talk over Unix sockets in the runtime folder, not TCP: a kernel picks its five TCP
    # ports by binding and releasing them, and with three workers and the matrix starting kernels
    # at once, another process can take one in between ("ZMQError: Address already in use", the
    # kernel dies before it answers). A socket's path must stay under 108 bytes, hence a short
    # folder. Servers (Voila, JupyterLab) read the setting from jupyter_config.json; nbclient's
    # kernels from `kernel_config`.
    runtime = Path(tempfile.mkdtemp(prefix="wts-rt-", dir="/tmp"))
    env["JUPYTER_RUNTIME_DIR"] = str(runtime)
    config = {"KernelManager": {"transport": "ipc"}}
    (base / "config" / "jupyter_config.json").write_text(json.dumps(config))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONUNBUFFERED"] = "1"
    yield env
    shutil.rmtree(runtime, ignore_errors=True)


def kernel_config(env: dict[str, str]) -> Config:
    """nbclient's kernel manager on Unix sockets, its files in `env`'s runtime folder (see
    `jupyter_env`): a kernel of its own, whatever else starts kernels at the same moment."""
    connection = Path(env["JUPYTER_RUNTIME_DIR"]) / f"k-{uuid.uuid4().hex[:12]}.json"
    return Config({"KernelManager": {"transport": "ipc", "connection_file": str(connection)}})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running(
    cmd: list[str],
    *,
    url: str,
    env: dict[str, str],
    cwd: Path | str = ROOT,
    log: Path,
    start_timeout_s: float = 60.0,
    stop_timeout_s: float = 10.0,
    ready_status: int | None = None,
) -> Iterator[subprocess.Popen]:
    """Start a server on 127.0.0.1, wait (bounded) until `url` answers, stop it afterwards.

    Any answer below 500 counts, or only `ready_status` when given: a proxy that is up before
    what it fronts answers 404 in the meantime (JupyterHub's, until the hub adds its route).
    """
    out = open(log, "wb")
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        deadline = time.monotonic() + start_timeout_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"{cmd[0]} exited with {proc.returncode}: {log.read_text()[-2000:]}"
                )
            try:
                status = httpx.get(url, timeout=2.0).status_code
                if (status == ready_status) if ready_status is not None else (status < 500):
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{cmd[0]} did not answer at {url} in {start_timeout_s:g} s: "
                    f"{log.read_text()[-2000:]}"
                )
            time.sleep(0.25)
        yield proc
    finally:
        stop_process_group(proc, stop_timeout_s)
        out.close()


def stop_process_group(proc: subprocess.Popen, timeout_s: float = 10.0) -> None:
    """SIGTERM the whole group, wait, then SIGKILL: a Jupyter server once hung after SIGTERM."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout_s)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=5)


@pytest.fixture(scope="session")
def chromium():
    """Headless Debian Chromium through Playwright; skipped (failed on CI) if it is missing."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: .ci/run should apt-get install it")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


def loopback_context(browser):
    """A new browser context (its own cookies) that can only reach 127.0.0.1/localhost."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})

    def only_loopback(route):
        host = route.request.url.split("/")[2].split(":")[0] if "://" in route.request.url else ""
        if host in ("127.0.0.1", "localhost") or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_loopback)
    return context


@pytest.fixture
def page(chromium):
    """A fresh page that can only reach 127.0.0.1/localhost (CDN requests are dropped)."""
    context = loopback_context(chromium)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    context.close()


def voila_command(port: int, target: Path, *, cull_idle_timeout_s: int = 30) -> list[str]:
    """Voila serving `target` (a notebook, or a folder of them) on 127.0.0.1:`port`, without the
    notebook extension it warns about; kernels with no page left are culled after
    `cull_idle_timeout_s`. Probe `/voila/static/voila.js` to know it is up."""
    return [
        sys.executable,
        "-m",
        "voila",
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--MappingKernelManager.cull_interval=10",
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout_s}",
        "--VoilaConfiguration.extension_denylist=@jupyter-notebook/lab-extension",
        str(target),
    ]


@pytest.fixture
def voila(jupyter_env: dict[str, str], tmp_path: Path) -> Callable[[Path], object]:
    """`voila(notebook)` starts Voila on a free loopback port and returns its page URL."""
    started = []

    def start(notebook: Path) -> str:
        port = free_port()
        cmd = voila_command(port, notebook)
        # Probe a static file: GET / renders the notebook (a new kernel each time, and slower
        # than the probe's 2 s timeout when the machine is busy).
        cm = running(
            cmd,
            url=f"http://127.0.0.1:{port}/voila/static/voila.js",
            env=jupyter_env,
            cwd=notebook.parent,
            log=tmp_path / f"voila-{port}.log",
        )
        cm.__enter__()
        started.append(cm)
        return f"http://127.0.0.1:{port}/"

    yield start
    for cm in reversed(started):
        cm.__exit__(None, None, None)


def quick_bench(sections: list[int], out: Path) -> str:
    """`bench/run.py --quick` for these sections, its results written to `out`: what it printed.
    It must succeed and leave the committed bench/RESULTS.md alone."""
    committed = ROOT / "bench" / "RESULTS.md"
    before = committed.read_bytes() if committed.exists() else None
    proc = subprocess.run(
        [sys.executable, "bench/run.py", "--quick", "--only", ",".join(map(str, sections))]
        + ["--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        # About a minute alone; CI runs it beside two more workers and the matrix on two cores,
        # where it once took more than 280 s. The bound is for a hang, not a speed.
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    after = committed.read_bytes() if committed.exists() else None
    assert after == before, "--out must leave bench/RESULTS.md alone"
    return proc.stdout


def screenshot(page, name: str) -> Path:
    """Keep a screenshot as a test artefact (test-artifacts/, not committed)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# -- running side by side (pytest-xdist: `make test` runs `-n 3 --dist loadgroup`) ---------------

SHARED = {
    # modules whose tests share one expensive server or build: one worker runs them in turn,
    # the longest first (so that no long group starts last while the other workers idle)
    "test_lite_browser": "lite",  # the lite site is built into build/lite, which the
    "test_bench": "lite",  # benchmarks' smoke run measures too
    "test_jupyterlab_browser": "lab",
    "test_accessibility": "voila-lab",
    "test_browser_voila": "voila-lab",
    "test_jupyterhub": "hub",
    "test_binder_install": "binder",
    "test_install": "install",
    "test_recipes": "recipes",
    "test_make_lab": "make-lab",
    "test_wheel": "wheel",  # one wheel and one fresh venv for the module's tests
}
NOTEBOOK_TESTS = ("test_notebooks", "test_i18n")
NOTEBOOK_NAMES = sorted(
    (
        str(p.relative_to(ROOT / "notebooks").with_suffix(""))
        for p in ROOT.glob("notebooks/**/*.ipynb")
    ),
    key=len,
    reverse=True,
)


def work_unit(nodeid: str) -> str:
    """The work unit a test is scheduled in: its module's group if the module is in `SHARED`;
    for a notebook test, the notebook it runs (each notebook is executed once per worker that
    needs it, and kept); else the test alone, spread freely."""
    module = Path(nodeid.split("::")[0]).stem
    if module in SHARED:
        return f"group:{SHARED[module]}"
    params = nodeid.partition("[")[2]
    if module in NOTEBOOK_TESTS and params:
        for name in NOTEBOOK_NAMES:  # longest first: "pt/1-1_o_relogio" before "1-1..."
            if name in params:
                return f"notebook:{name}"
    return nodeid


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Side by side, the shared groups are collected first, longest first, then the notebooks:
    xdist hands out work in collection order. (Run alone, the order is pytest's.)"""
    if not hasattr(config, "workerinput"):
        return
    order = list(dict.fromkeys(SHARED.values()))

    def rank(item: pytest.Item) -> tuple[int, int]:
        group = work_unit(item.nodeid)
        if group.startswith("group:"):
            return (0, order.index(group.removeprefix("group:")))
        return (1, 0) if group.startswith("notebook:") else (2, 0)

    items.sort(key=rank)  # stable: each module's own order is kept


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`--dist loadgroup` by `work_unit`. xdist's own loadgroup reads `xdist_group` marks by
    rewriting test ids, which pytest 9.2 no longer lets it do (pytest-xdist#1386: it silently
    spreads every test): the groups are read from the ids here instead, with xdist's public
    scheduler for work units of any scope."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByTestGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return ByTestGroup(config, log)  # type: ignore[arg-type]


# -- the corpora's tallies (tests/tally.py), printed at the end of the session ------------------

_TALLIES: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _TALLIES.extend(str(v) for k, v in report.user_properties if k == "tally")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _TALLIES:
        terminalreporter.section("corpus tallies")
        for line in sorted(_TALLIES):
            terminalreporter.write_line(line)
