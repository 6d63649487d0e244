"""A class on one JupyterHub, measured: N learners log in, spawn, start a kernel and run 1-1.

    make bench-class                      # 20 learners, both runs, section written to RESULTS.md
    make bench-class N=3                  # a small class (develop with 2-3)
    python bench/class_sim.py --learners 2 --runs mock --no-write

A throw-away JupyterHub (tests/hub/jupyterhub_config.py: loopback only, all its state in a
temporary folder) serves N learners who all start at the same moment, as a room does when the
instructor says "now run 1-1". Each learner, in a thread of this process, does what the browser
would: logs in through the hub's REST API (a token for its username and the class password),
asks the hub to spawn its server and follows the spawn's progress stream, opens a notebook
session on its server (jupyter_server's REST API), and runs the cells of
notebooks/1-1_the_clock.ipynb one by one over the kernel's websocket, with
jupyter-kernel-client's KernelWebSocketClient (the Jupyter messaging protocol over jupyter_server's
websocket). The notebook is read when the run starts; only its tags and its ending on the clock
are relied on.

Two runs, a fresh hub each:
- `mock`: every kernel uses the offline mock in-process (the default of the lesson);
- `serve`: one `python -m whentostop serve` is the endpoint for the whole room, set by the hub
  for every learner's server (OPENAI_BASE_URL, WHENTOSTOP_MODEL), as docs/workshop.md does it.
  Each kernel times its requests to it (a wrapper around OpenAIChat.complete, installed before
  the notebook runs).

It reports, per learner, when the server, the kernel, the first output and the last cell were
ready; memory per learner (single-user server + kernel, psutil over the hub's process tree); CPU
over the run; and every failure with its cause. Everything it started is stopped at the end —
hub, proxy, learners' servers and kernels, the endpoint — also on Ctrl-C or a failure.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx
import nbformat
import psutil

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from classreport import (  # noqa: E402
    INSTRUMENT,
    OUTPUT_TYPES,
    PROBE,
    Cell,
    Learner,
    error_kinds,
    latency_rows,
    mib,
    parse_probe,
    problems,
    replace_section,
    seconds,
    spread,
    table,
    timing_rows,
    warnings,
)

HUB_CONFIG = ROOT / "tests" / "hub" / "jupyterhub_config.py"
NOTEBOOK = ROOT / "notebooks" / "1-1_the_clock.ipynb"
RESULTS = HERE / "RESULTS.md"

ROOM_MODEL = "searcher"
"""WHENTOSTOP_MODEL for the shared endpoint: a persona the mock serves (the lesson's default)."""


@dataclass(frozen=True)
class Settings:
    learners: int
    notebook: Path
    spawn_timeout_s: float = 600.0
    """The learner's own patience for the whole spawn (the hub has its own start/http timeouts)."""
    cell_timeout_s: float = 300.0
    kernel_timeout_s: float = 180.0
    """From the websocket's opening to the kernel's first kernel_info reply."""
    kernel_transport: str = "ipc"
    """How kernels talk to their server: "ipc" (Unix sockets) or "tcp" (Jupyter's default)."""
    server_ports: str = "20000-32000"
    """Where learners' servers get their ports: a range, or "random" (JupyterHub's default)."""
    start_timeout: int = 90
    http_timeout: int = 90
    spawn_limit: int | None = None
    keep: bool = False


@dataclass
class ClassRun:
    """Everything one run of the class measured."""

    kind: str
    learners: list[Learner]
    expected_cells: int
    wall_s: float = 0.0
    samples: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)
    hub_log: list[str] = field(default_factory=list)
    serve: dict[str, Any] = field(default_factory=dict)
    state: Path | None = None
    memory_at_start: int = 0
    """Memory in use on the machine before the hub started (bytes)."""

    @property
    def failed(self) -> dict[str, list[str]]:
        return {le.name: p for le in self.learners if (p := problems(le, self.expected_cells))}


# --- processes: start them bounded, stop every one of them ------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proxy_command() -> str:
    """configurable-http-proxy: on PATH (CI installs it with npm), or where `make bench-class` put it."""
    found = shutil.which("configurable-http-proxy")
    local = ROOT / ".venv" / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
    if found:
        return found
    if local.exists():
        return str(local)
    raise SystemExit(
        "configurable-http-proxy is not installed: `make bench-class` installs it with "
        "npm into .venv/node (npm and Node.js: apt-get install nodejs npm)"
    )


def wait_until_up(proc: subprocess.Popen, url: str, log: Path, timeout_s: float) -> None:
    """Wait (bounded) for a 200 at `url`. Not any answer: the hub's proxy answers 404 for
    /hub/api until the hub has added its own route."""
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}: {tail(log)}")
        try:
            if httpx.get(url, timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"nothing answered at {url} in {timeout_s:g} s: {tail(log)}")
        time.sleep(0.25)


def tail(log: Path, chars: int = 2000) -> str:
    try:
        return log.read_text(errors="replace")[-chars:]
    except OSError:
        return "(no log)"


def stop_group(proc: subprocess.Popen, timeout_s: float) -> None:
    """SIGTERM the process (it cleans up after itself), wait, then SIGKILL its whole group."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def stop_leftovers(state: Path) -> list[int]:
    """Stop every process still working in the run's folder — a learner's server or kernel the
    hub did not stop (they run in sessions of their own), the proxy, the endpoint. Returns them."""

    def leftovers() -> list[int]:
        pids = []
        for proc in psutil.process_iter(["pid"]):
            if proc.pid == os.getpid():
                continue
            try:
                if Path(proc.cwd()).is_relative_to(state):
                    pids.append(proc.pid)
            except (psutil.Error, OSError):
                pass
        return pids

    found = leftovers()
    for sig, wait_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        pids = leftovers()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait_s
        while pids and leftovers() and time.monotonic() < deadline:
            time.sleep(0.2)
    return found


@contextlib.contextmanager
def endpoint(state: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """`python -m whentostop serve` on a free loopback port, for the whole room."""
    port = free_port()
    log = state / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "whentostop", "serve", "--port", str(port)],
            cwd=state,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_up(proc, f"http://127.0.0.1:{port}/v1/models", log, 60)
        yield f"http://127.0.0.1:{port}/v1", proc
    finally:
        stop_group(proc, 10)


@contextlib.contextmanager
def hub(
    state: Path,
    users: Sequence[str],
    password: str,
    settings: Settings,
    room: tuple[str, str] | None,
) -> Iterator[tuple[str, subprocess.Popen]]:
    """A running hub for these learners: (its URL, its process). Stopped with all it started."""
    jupyter = state / "jupyter"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "WHENTOSTOP_MODEL")
    }
    for name, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
        ("MPLCONFIGDIR", "mpl"),
    ]:
        (jupyter / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(jupyter / sub)
    bin_dir = Path(sys.executable).parent
    port = free_port()
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONUNBUFFERED="1",
        WTS_HUB_DIR=str(state),
        WTS_HUB_PORT=str(port),
        WTS_HUB_API_PORT=str(free_port()),
        WTS_PROXY_API_PORT=str(free_port()),
        WTS_PROXY_TOKEN=secrets.token_hex(32),
        WTS_PROXY=proxy_command(),
        WTS_HUB_PASSWORD=password,
        WTS_HUB_USERS=",".join(users),
        WTS_SINGLEUSER=str(bin_dir / "jupyterhub-singleuser"),
        WTS_SPAWN_START_TIMEOUT=str(settings.start_timeout),
        WTS_SPAWN_HTTP_TIMEOUT=str(settings.http_timeout),
    )
    if settings.spawn_limit:
        env["WTS_SPAWN_LIMIT"] = str(settings.spawn_limit)
    env["WTS_KERNEL_TRANSPORT"] = settings.kernel_transport
    if settings.server_ports != "random":
        env["WTS_SERVER_PORTS"] = settings.server_ports
    if room:
        env["WTS_ROOM_BASE_URL"], env["WTS_ROOM_MODEL"] = room
    log = state / "jupyterhub.log"
    url = f"http://127.0.0.1:{port}"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(bin_dir / "jupyterhub"), "-f", str(HUB_CONFIG)],
            cwd=state,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_up(proc, f"{url}/hub/api", log, 120)
        yield url, proc
    finally:
        stop_group(proc, 60)  # the hub stops every learner's server and its proxy itself


# --- the machine: memory and CPU of the hub's process tree, sampled ---------------------------


class Sampler:
    """Samples, once a second, CPU use and the RSS of every process of the hub's tree."""

    def __init__(self, hub_pid: int, extra: dict[str, int], interval_s: float = 1.0) -> None:
        self.hub = psutil.Process(hub_pid)
        self.extra = {role: psutil.Process(pid) for role, pid in extra.items()}
        self.interval_s = interval_s
        self.samples: list[dict[str, Any]] = []
        self.roles: dict[int, tuple[str, str]] = {}  # pid -> (learner or "", role)
        self.procs: dict[int, psutil.Process] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="sampler")

    def start(self) -> Sampler:
        psutil.cpu_percent(None)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def tree(self) -> dict[int, tuple[str, str]]:
        """Every live process of the class: pid -> (learner, role). Roles: hub, proxy, server,
        kernel, other, and the extra ones (the endpoint)."""
        found: dict[int, tuple[str, str]] = {self.hub.pid: ("", "hub")}
        self.procs.setdefault(self.hub.pid, self.hub)
        for role, proc in self.extra.items():
            found[proc.pid] = ("", role)
            self.procs.setdefault(proc.pid, proc)
        try:
            children = self.hub.children(recursive=True)
        except psutil.Error:
            return found
        for child in children:
            if child.pid not in self.roles:
                self.roles[child.pid] = self._classify(child)
                self.procs[child.pid] = child
            found[child.pid] = self.roles[child.pid]
        return found

    def _classify(self, proc: psutil.Process) -> tuple[str, str]:
        try:
            cmd = " ".join(proc.cmdline())
            user = proc.environ().get("JUPYTERHUB_USER", "")
        except psutil.Error:
            return "", "other"
        if "configurable-http-proxy" in cmd:
            return "", "proxy"
        if "jupyterhub-singleuser" in cmd:
            return user, "server"
        if "ipykernel" in cmd:
            return user, "kernel"
        return user, "other"

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            rss: dict[str, int] = {}
            for pid, (learner, role) in self.tree().items():
                try:
                    value = self.procs[pid].memory_info().rss
                except psutil.Error:
                    continue
                key = f"{learner}/{role}" if learner else role
                rss[key] = rss.get(key, 0) + value
            self.samples.append(
                {
                    "t": time.monotonic(),
                    "cpu": psutil.cpu_percent(None),
                    "load1": os.getloadavg()[0],
                    "rss": rss,
                    "used": psutil.virtual_memory().used,
                }
            )

    def final(self) -> dict[str, Any]:
        """Once, when the whole class has run 1-1: PSS (shared pages split fairly) and CPU time
        of every process, summed per learner and role."""
        pss: dict[str, int] = {}
        cpu: dict[str, float] = {}
        for pid, (learner, role) in self.tree().items():
            proc = self.procs[pid]
            key = f"{learner}/{role}" if learner else role
            try:
                pss[key] = pss.get(key, 0) + proc.memory_full_info().pss
                times = proc.cpu_times()
                cpu[key] = cpu.get(key, 0.0) + times.user + times.system
            except psutil.Error:
                continue
        mine = psutil.Process().cpu_times()
        cpu["simulator"] = mine.user + mine.system
        return {"pss": pss, "cpu_s": cpu}


# --- one learner ------------------------------------------------------------------------------


class Stopped(Exception):
    """A learner cannot go on: the message says where and why."""


@dataclass
class Signals:
    """What the learners and the run share: one start for all, and when to let go."""

    start: threading.Barrier
    t0: list[float]
    """[the monotonic time the class was told to start], set just before `start` opens."""
    release: threading.Event = field(default_factory=threading.Event)
    """Set once the machine has been measured with every kernel still open, as in a room."""


def run_learner(
    name: str,
    hub_url: str,
    password: str,
    notebook: nbformat.NotebookNode,
    notebook_path: str,
    settings: Settings,
    instrument: bool,
    signals: Signals,
    record: Learner,
    finished: threading.Event,
) -> None:
    """Everything one learner does, recorded into `record` (times since the class's start).
    Its kernel stays connected after 1-1 until the run has measured the machine."""
    from jupyter_kernel_client.client import output_hook
    from jupyter_kernel_client.manager import KernelHttpManager

    http = httpx.Client(base_url=hub_url, timeout=httpx.Timeout(120.0, connect=30.0))
    since = lambda: time.monotonic() - signals.t0[0]  # noqa: E731
    stage = "login"
    kc = None
    try:
        signals.start.wait()
        reply = http.post(
            f"/hub/api/users/{name}/tokens",
            json={"auth": {"username": name, "password": password}, "note": "class simulation"},
        )
        if reply.status_code != 201:
            raise Stopped(f"login: HTTP {reply.status_code} {reply.text[:200]}")
        token = reply.json()["token"]
        http.headers["Authorization"] = f"token {token}"
        record.logged_in = since()

        stage = "spawn"
        spawn_server(http, name, settings.spawn_timeout_s)
        record.server_ready = since()

        stage = "kernel"
        reply = http.post(
            f"/user/{name}/api/sessions",
            json={
                "path": notebook_path,
                "name": Path(notebook_path).name,
                "type": "notebook",
                "kernel": {"name": "python3"},
            },
        )
        if reply.status_code != 201:
            raise Stopped(
                f"kernel: starting a session gave HTTP {reply.status_code} {reply.text[:200]}"
            )
        kernel_id = reply.json()["kernel"]["id"]
        # The token goes in a header: a single-user server takes ?token= on a websocket only from
        # a browser (Sec-Fetch-Mode: websocket), and the header works for every request.
        manager = KernelHttpManager(
            server_url=f"{hub_url}/user/{name}",
            token=token,
            kernel_id=kernel_id,
            headers={"Authorization": f"token {token}"},
        )
        kc = manager.client
        kc.start_channels()
        kc.wait_for_ready(timeout=int(settings.kernel_timeout_s))
        record.kernel_ready = since()

        if instrument:
            reply = kc.execute_interactive(
                INSTRUMENT,
                output_hook=lambda msg: None,
                timeout=settings.cell_timeout_s,
                allow_stdin=False,
            )
            if reply["content"]["status"] != "ok":
                raise Stopped(f"kernel: the request timer did not install: {reply['content']}")

        for index, source in code_cells(notebook):
            stage = f"cell {index}"
            cell = Cell(index=index, tags=list(notebook.cells[index].metadata.get("tags", [])))
            record.cells.append(cell)

            def hook(msg: dict[str, Any], cell: Cell = cell) -> None:
                if msg["header"]["msg_type"] in OUTPUT_TYPES and cell.first_output is None:
                    cell.first_output = since()
                    if record.first_output is None:
                        record.first_output = cell.first_output
                output_hook(cell.outputs, msg)

            cell.sent = since()
            reply = kc.execute_interactive(
                source, output_hook=hook, allow_stdin=False, timeout=settings.cell_timeout_s
            )
            cell.finished = since()
            cell.status = reply["content"]["status"]
            if cell.status != "ok":
                break  # as Run All does: the cells after an error do not run
        else:
            record.last_cell = since()
            stage = "probe"
            outputs: list[dict[str, Any]] = []
            kc.execute_interactive(
                PROBE,
                output_hook=lambda msg: output_hook(outputs, msg),
                allow_stdin=False,
                timeout=settings.cell_timeout_s,
            )
            record.probe = parse_probe(outputs)
    except Stopped as exc:
        record.failure = str(exc)
    except TimeoutError as exc:
        record.failure = f"{stage}: timed out ({exc}){kernel_state(http, name)}"
    except Exception as exc:  # a learner's failure is reported with its cause, never hidden
        record.failure = f"{stage}: {type(exc).__name__}: {exc}{kernel_state(http, name)}"[:500]
    finally:
        finished.set()
        signals.release.wait(settings.cell_timeout_s)
        if kc is not None:
            with contextlib.suppress(Exception):
                kc.stop_channels()
        http.close()


def spawn_server(http: httpx.Client, name: str, timeout_s: float) -> None:
    """Ask the hub for the learner's server and follow the spawn's progress until it is ready."""
    deadline = time.monotonic() + timeout_s
    while True:
        reply = http.post(f"/hub/api/users/{name}/server")
        if reply.status_code in (201, 202):
            break
        if reply.status_code == 429 and time.monotonic() < deadline:  # concurrent_spawn_limit
            time.sleep(float(reply.headers.get("retry-after", "5")))
            continue
        raise Stopped(f"spawn: HTTP {reply.status_code} {reply.text[:200]}")
    events = []
    with http.stream(
        "GET",
        f"/hub/api/users/{name}/server/progress",
        timeout=httpx.Timeout(timeout_s, connect=30.0),
    ) as stream:
        for line in stream.iter_lines():
            if time.monotonic() > deadline:
                raise Stopped(f"spawn: not ready after {timeout_s:g} s (events: {events[-3:]})")
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            events.append(event.get("message", ""))
            if event.get("failed"):
                raise Stopped(f"spawn: failed — {event.get('message')}")
            if event.get("ready"):
                return
    raise Stopped(f"spawn: the progress stream ended before the server was ready ({events[-3:]})")


def kernel_state(http: httpx.Client, name: str) -> str:
    """The server's view of the learner's kernels, appended to a failure's cause."""
    try:
        kernels = http.get(f"/user/{name}/api/kernels", timeout=10).json()
        return " [kernel: " + ", ".join(k.get("execution_state", "?") for k in kernels) + "]"
    except Exception:
        return ""


def code_cells(notebook: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """The cells Run All executes, with their place in the notebook."""
    return [
        (i, c.source)
        for i, c in enumerate(notebook.cells)
        if c.cell_type == "code" and c.source.strip()
    ]


# --- one run of the class ---------------------------------------------------------------------


def run_class(kind: str, settings: Settings) -> ClassRun:
    """A fresh hub, N learners started together, measured; everything stopped afterwards."""
    notebook = nbformat.read(settings.notebook, as_version=4)
    users = [f"learner{i:02d}" for i in range(1, settings.learners + 1)]
    password = secrets.token_urlsafe(12)
    state = Path(tempfile.mkdtemp(prefix=f"wts-class-{kind}-"))
    notebook_path = f"whentostop/notebooks/{settings.notebook.name}"
    for user in users:  # the lesson in each home, as nbgitpuller leaves it
        target = state / "home" / user / notebook_path
        target.parent.mkdir(parents=True)
        shutil.copy2(settings.notebook, target)
    result = ClassRun(
        kind,
        [Learner(u) for u in users],
        len(code_cells(notebook)),
        state=state,
        memory_at_start=psutil.virtual_memory().used,
    )
    ok = False
    try:
        with contextlib.ExitStack() as stack:
            room = None
            extra: dict[str, int] = {}
            serve_proc = None
            if kind == "serve":
                base_url, serve_proc = stack.enter_context(endpoint(state))
                room = (base_url, ROOM_MODEL)
                extra["endpoint"] = serve_proc.pid
            url, hub_proc = stack.enter_context(hub(state, users, password, settings, room))
            sampler = Sampler(hub_proc.pid, extra).start()
            stack.callback(sampler.stop)
            signals = Signals(threading.Barrier(len(users) + 1), [0.0])
            finished = [threading.Event() for _ in users]
            threads = [
                threading.Thread(
                    target=run_learner,
                    daemon=True,
                    name=learner.name,
                    args=(
                        learner.name,
                        url,
                        password,
                        notebook,
                        notebook_path,
                        settings,
                        kind == "serve",
                        signals,
                        learner,
                        done,
                    ),
                )
                for learner, done in zip(result.learners, finished)
            ]
            for thread in threads:
                thread.start()
            print(f"[{kind}] hub up at {url}; {len(users)} learners start now", flush=True)
            signals.t0[0] = t0 = time.monotonic()
            signals.start.wait()
            deadline = (
                t0
                + settings.spawn_timeout_s
                + settings.kernel_timeout_s
                + 2 * settings.cell_timeout_s
            )
            for done in finished:
                done.wait(max(0.0, deadline - time.monotonic()))
            for done, learner in zip(finished, result.learners):
                if not done.is_set() and learner.failure is None:
                    learner.failure = "still running when the class's time ran out"
            result.wall_s = time.monotonic() - t0
            result.final = sampler.final()  # every kernel still open, as in the room
            sampler.stop()
            signals.release.set()
            for thread in threads:
                thread.join(30)
            result.samples = [dict(s, t=s["t"] - t0) for s in sampler.samples]
            if serve_proc is not None:
                result.serve = process_summary(serve_proc.pid)
        ok = not result.failed
    finally:
        result.hub_log = hub_problems(state / "jupyterhub.log")
        left = stop_leftovers(state)
        if left:
            result.hub_log.append(
                f"{len(left)} process(es) outlived the hub and were stopped: {left}"
            )
        if ok and not settings.keep:
            shutil.rmtree(state, ignore_errors=True)
        else:
            print(f"[{kind}] logs kept in {state}", flush=True)
    return result


def process_summary(pid: int) -> dict[str, Any]:
    try:
        proc = psutil.Process(pid)
        times = proc.cpu_times()
        return {
            "cpu_s": times.user + times.system,
            "rss": proc.memory_info().rss,
            "threads": proc.num_threads(),
        }
    except psutil.Error:
        return {}


BENIGN = (
    "without SSL",
    "extra_template_paths",
    "websocket_ping_timeout",
    "Received signal SIGTERM",
    "Parent appears to have exited",
)
"""Log lines every run has, that say nothing about the class: not reported."""


def hub_problems(log: Path) -> list[str]:
    """The hub's (and the learners' servers') errors and warnings, counted by kind: a spawn that
    timed out, a server slow to answer, a proxy that failed. Lines every run has are left out."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return []
    kinds: dict[str, int] = {}
    for line in lines:
        if not line.startswith(("[E ", "[W ", "[C ")) or any(b in line for b in BENIGN):
            continue
        # "[W 2026-11-30 06:09:36.126 JupyterHub base:1354] User learner02 is slow..." -> its kind
        kind = re.sub(r"^\[(\w) [\d-]+ [\d:.]+ ", r"[\1 ", line)
        kind = re.sub(r"learner\d+", "learnerNN", kind)
        kind = re.sub(r"\b[0-9a-f]{8}-[0-9a-f-]{27}\b|\d+(\.\d+)?ms", "…", kind)[:240]
        kinds[kind] = kinds.get(kind, 0) + 1
    return [f"{count}× {kind}" for kind, count in sorted(kinds.items(), key=lambda kv: -kv[1])]


# --- the report -------------------------------------------------------------------------------


def per_learner_peaks(run: ClassRun) -> dict[str, dict[str, int]]:
    """Peak RSS of each learner's server, kernel, and the two together, over the run."""
    peaks: dict[str, dict[str, int]] = {
        le.name: {"server": 0, "kernel": 0, "both": 0} for le in run.learners
    }
    for sample in run.samples:
        for name, peak in peaks.items():
            server = sample["rss"].get(f"{name}/server", 0)
            kernel = sample["rss"].get(f"{name}/kernel", 0)
            peak["server"] = max(peak["server"], server)
            peak["kernel"] = max(peak["kernel"], kernel)
            peak["both"] = max(peak["both"], server + kernel)
    return peaks


def machine_lines(command: str) -> list[str]:
    versions = ", ".join(
        f"{n} {_version(n)}"
        for n in (
            "jupyterhub",
            "jupyter_server",
            "jupyterlab",
            "ipykernel",
            "jupyter-kernel-client",
            "when-to-stop",
        )
    )
    try:
        chp = subprocess.run(
            [proxy_command(), "--version"], capture_output=True, text=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError, SystemExit):
        chp = "?"
    return [
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- command: `{command}`",
        f"- machine: {_cpu_model()}, {os.cpu_count()} logical cores, "
        f"{psutil.virtual_memory().total / 2**30:.0f} GiB of memory, no swap in use "
        f"({psutil.swap_memory().total / 2**30:.0f} GiB swap); shared with other work",
        f"- Python {platform.python_version()} on {platform.platform()}",
        f"- packages: {versions}, configurable-http-proxy {chp}",
    ]


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


TITLES = {
    "mock": "every kernel on the offline mock, in-process (the lesson's default)",
    "serve": "the whole room on one shared `python -m whentostop serve`",
}


def render(run: ClassRun) -> str:
    """One run's section: timings, failures, memory, CPU (and the endpoint's latency)."""
    n = len(run.learners)
    out = [f"### {n} learners, {TITLES[run.kind]}", ""]
    out.append(
        table(
            ['from "start now" to', "median", "p90", "max", "learners"], timing_rows(run.learners)
        )
    )
    out.append("")
    failed = run.failed
    reached = n - len(failed)
    out.append(
        f"- **{reached} of {n} learners reached the clock in notebook 1-1** (every code "
        f"cell ran without an error, every exercise showed its check, and a run in the "
        f"notebook stopped on `max_turns`). Whole run: {run.wall_s:.0f} s."
    )
    for name, found in failed.items():
        out.append(f"- FAILED {name}: " + "; ".join(found))
    stderr = {le.name: w for le in run.learners if (w := warnings(le))}
    if stderr:
        first = next(iter(stderr.values()))[0]
        out.append(f"- stderr shown to {len(stderr)} learner(s), e.g. {first!r}")
    for line in run.hub_log[:6]:
        out.append(f"- hub log: `{line}`")
    stops = {" ".join(le.probe.get("stops", [])) for le in run.learners if le.probe}
    if stops:
        out.append(
            "- how the runs left in each learner's notebook stopped: "
            + (
                f"`{stops.pop()}` (the same for every learner)"
                if len(stops) == 1
                else f"{len(stops)} different sets: " + "; ".join(f"`{s}`" for s in stops)
            )
        )
    out.append("")

    peaks = per_learner_peaks(run)
    pss = run.final.get("pss", {})
    cpu = run.final.get("cpu_s", {})
    rows = []
    for label, values in (
        ("server + kernel, peak RSS", [p["both"] for p in peaks.values()]),
        ("single-user server alone, peak RSS", [p["server"] for p in peaks.values()]),
        ("kernel alone, peak RSS", [p["kernel"] for p in peaks.values()]),
        (
            "server + kernel, PSS after 1-1 (shared pages split)",
            [
                pss.get(f"{le.name}/server", 0) + pss.get(f"{le.name}/kernel", 0)
                for le in run.learners
            ],
        ),
    ):
        got = spread(v for v in values if v)
        rows.append([label, *(mib(v) for v in got or (None, None, None))])
    for label, role in (("CPU time: server", "server"), ("CPU time: kernel", "kernel")):
        got = spread(cpu.get(f"{le.name}/{role}") for le in run.learners)
        rows.append([label, *(seconds(v) for v in got or (None, None, None))])
    out.append(table(["per learner", "median", "p90", "max"], rows))
    out.append("")

    busy = [s["cpu"] for s in run.samples]
    used = max((s["used"] for s in run.samples), default=0)
    hub_rss = max((s["rss"].get("hub", 0) for s in run.samples), default=0)
    proxy_rss = max((s["rss"].get("proxy", 0) for s in run.samples), default=0)
    if busy:
        out.append(
            f"- CPU over the run: {statistics.fmean(busy):.0f} % busy on average "
            f"({os.cpu_count()} cores), {sum(b >= 95 for b in busy) / len(busy):.0%} of "
            f"its seconds at 95 % or more; load average up to "
            f"{max(s['load1'] for s in run.samples):.1f}."
        )
    total_cpu = sum(v for k, v in cpu.items() if "/" in k)
    out.append(
        f"- CPU time for the class: {total_cpu:.0f} s in learners' servers and kernels "
        f"({total_cpu / n:.1f} s per learner), hub {cpu.get('hub', 0):.1f} s, proxy "
        f"{cpu.get('proxy', 0):.1f} s"
        + (f", endpoint {run.serve.get('cpu_s', 0):.1f} s" if run.serve else "")
        + f"; the simulated learners themselves {cpu.get('simulator', 0):.1f} s."
    )
    out.append(
        f"- Memory in use on the machine rose by {mib(used - run.memory_at_start)} at "
        f"its peak ({mib((used - run.memory_at_start) / n)} per learner); the hub "
        f"{mib(hub_rss)}, the proxy {mib(proxy_rss)} (peak RSS)."
    )
    if run.kind == "serve":
        out.append("")
        out.extend(render_endpoint(run))
    return "\n".join(out)


def render_endpoint(run: ClassRun) -> list[str]:
    calls = [c for le in run.learners for c in (le.probe or {}).get("calls", [])]
    out = [
        f"The shared endpoint (`python -m whentostop serve`, WHENTOSTOP_MODEL={ROOM_MODEL}), as "
        "its clients — the learners' kernels — timed each request:",
        "",
    ]
    out.append(
        table(
            ["requests", "count", "p50", "p90", "max", "errors", "cut by deadline_s", "retries"],
            latency_rows(calls),
        )
    )
    out.append("")
    kinds = error_kinds(calls)
    out.append(
        f"- errors: {dict(kinds) if kinds else 'none'}; the endpoint's process: "
        f"{run.serve.get('cpu_s', 0):.1f} s of CPU, {mib(run.serve.get('rss'))} RSS, "
        f"{run.serve.get('threads', '?')} threads at the end."
    )
    models = sorted({str(c.get("model")) for c in calls})
    out.append(
        f"- model names the endpoint was asked for: {', '.join(models) or 'none'} "
        "(what `connect()` sent for the personas the notebook names)."
    )
    return out


def key_of(settings: Settings) -> str:
    """What makes two runs comparable: the class size and the hub's settings."""
    fixes = (
        [] if settings.kernel_transport == "ipc" else [f"kernels over {settings.kernel_transport}"]
    )
    if settings.server_ports == "random":
        fixes.append("random server ports")
    if (settings.start_timeout, settings.http_timeout) != (90, 90):
        fixes.append(f"start/http timeouts {settings.start_timeout}/{settings.http_timeout} s")
    if settings.spawn_limit:
        fixes.append(f"spawn limit {settings.spawn_limit}")
    return f"{settings.learners} learners" + (f", {', '.join(fixes)}" if fixes else "")


def hub_settings(settings: Settings) -> str:
    return (
        f"- the hub (tests/hub/jupyterhub_config.py): `c.Spawner.start_timeout = "
        f"{settings.start_timeout}`, `c.Spawner.http_timeout = {settings.http_timeout}`, "
        f"`c.JupyterHub.concurrent_spawn_limit = {settings.spawn_limit or 100}`; kernels over "
        f"{settings.kernel_transport.upper()}"
        + (
            " (`--KernelManager.transport=ipc`)"
            if settings.kernel_transport == "ipc"
            else " (Jupyter's default)"
        )
        + "; learners' servers on "
        + (
            "random ports (JupyterHub's default)"
            if settings.server_ports == "random"
            else f"ports {settings.server_ports}, one per learner (a pre_spawn_hook)"
        )
        + "; kernels culled after 60 s idle with no connection"
    )


def section(runs: Sequence[ClassRun], settings: Settings, command: str) -> str:
    lines = [
        f"## Class simulation (issue 19): {key_of(settings)} on one JupyterHub, all at once",
        "",
        *machine_lines(command),
        hub_settings(settings),
        "",
        "Written by `bench/class_sim.py` (`make bench-class`), which replaces only this block. "
        "Times are from the moment the whole class starts (every learner logs in at once); "
        "p90 by nearest rank. How it is measured: the script's docstring. What the runs "
        'found and what was fixed: bench/NOTES.md, "The class simulation".',
        "",
    ]
    for run in runs:
        lines += [render(run), ""]
    return "\n".join(lines)


# --- command line -----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--learners",
        "-n",
        type=int,
        default=int(os.environ.get("N") or 20),
        help="how many learners (default 20, or $N)",
    )
    parser.add_argument(
        "--runs",
        default="mock,serve",
        help="comma-separated: mock (in-process mock), serve (one shared endpoint)",
    )
    parser.add_argument("--notebook", type=Path, default=NOTEBOOK)
    parser.add_argument("--start-timeout", type=int, default=90, help="c.Spawner.start_timeout")
    parser.add_argument("--http-timeout", type=int, default=90, help="c.Spawner.http_timeout")
    parser.add_argument(
        "--spawn-limit",
        type=int,
        default=None,
        help="c.JupyterHub.concurrent_spawn_limit (default: JupyterHub's, 100)",
    )
    parser.add_argument(
        "--kernel-transport",
        choices=("ipc", "tcp"),
        default="ipc",
        help="how kernels talk to their server (default ipc: see RESULTS.md)",
    )
    parser.add_argument(
        "--server-ports",
        default="20000-32000",
        help="ports for learners' servers: a range, or \"random\" (JupyterHub's own "
        "choice, which can give two learners the same port: see RESULTS.md)",
    )
    parser.add_argument("--cell-timeout", type=float, default=300.0)
    parser.add_argument(
        "--no-write", action="store_true", help="print only; leave RESULTS.md alone"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--keep", action="store_true", help="keep the run's folder (logs, homes)")
    args = parser.parse_args(argv)
    kinds = [k.strip() for k in args.runs.split(",") if k.strip()]
    if unknown := set(kinds) - set(TITLES):
        parser.error(f"unknown run(s): {', '.join(sorted(unknown))}")
    settings = Settings(
        args.learners,
        args.notebook,
        cell_timeout_s=args.cell_timeout,
        start_timeout=args.start_timeout,
        http_timeout=args.http_timeout,
        spawn_limit=args.spawn_limit,
        keep=args.keep,
        kernel_transport=args.kernel_transport,
        server_ports=args.server_ports,
    )
    command = "python bench/class_sim.py " + " ".join(argv if argv is not None else sys.argv[1:])

    def interrupted(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt  # SIGTERM too: the `finally` blocks stop everything

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)
    runs = []
    try:
        for kind in kinds:
            run = run_class(kind, settings)
            runs.append(run)
            print(render(run), "\n", flush=True)
    except KeyboardInterrupt:
        print("interrupted: every process of the run was stopped", file=sys.stderr)
        return 130
    text = section(runs, settings, command.strip())
    if not args.no_write:
        replace_section(args.out, key_of(settings), text)
        print(f"wrote the class section of {args.out}")
    return 0 if all(not r.failed for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
