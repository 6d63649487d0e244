"""The benchmarks of issue 6 (and 8, the JupyterLite site, issue 12). Each returns a `Section`: its table, notes and verdicts."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

from harness import (
    JUPYTER_DIRS,
    Samples,
    Section,
    Verdict,
    mib,
    ms,
    peak_memory,
    side_by_side,
    timed,
    us,
)
from install import install
from loops import (
    PERSONA,
    TURNS,
    TimedTransport,
    bare_httpx_loop,
    connect,
    library_run,
    mock_client,
    mock_model,
    same_messages,
    seed_loop,
    serving,
    trusted_certificate,
)
from peers import FRAMEWORKS, Worker, available

from lite import lite
from whentostop.tools import DEFAULT_TOOL_TIMEOUT_S

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Config:
    """How many repetitions each benchmark gets: `--quick` is a smoke run, not a measurement."""

    quick: bool
    reps: int
    socket_reps: int
    before_reps: int
    peer_reps: int
    widget_sweeps: int
    browser_samples: int
    notebook_reps: int
    import_reps: int
    growth_reps: int
    growth_sizes: tuple[int, ...] = (10, 50, 100, 200)
    slider_values: tuple[int, ...] = tuple(range(1, 26))

    @classmethod
    def make(cls, quick: bool) -> Config:
        if quick:
            return cls(
                True,
                reps=3,
                socket_reps=2,
                before_reps=1,
                peer_reps=1,
                widget_sweeps=1,
                browser_samples=2,
                notebook_reps=1,
                import_reps=2,
                growth_reps=1,
                growth_sizes=(10, 50),
                slider_values=(1, 25),
            )
        return cls(
            False,
            reps=30,
            socket_reps=15,
            before_reps=5,
            peer_reps=10,
            widget_sweeps=5,
            browser_samples=15,
            notebook_reps=3,
            import_reps=9,
            growth_reps=11,
        )


def ratio(a: Samples, b: Samples) -> float:
    return a.median / b.median


# ---- 1 -------------------------------------------------------------------------------------


def with_tool_timeouts(level: Any) -> list[Any]:
    """The level's tools with the default per-call timeout: a thread per call (the 'before')."""
    return [dataclasses.replace(t, timeout_s=DEFAULT_TOOL_TIMEOUT_S) for t in level.tools()]


def loop_overhead(cfg: Config) -> Section:
    section = Section(
        1, f"Loop overhead: run_agent vs. a bare httpx loop ({TURNS} turns, in-process mock)"
    )

    def library() -> Any:
        with connect(PERSONA) as model:
            return library_run(model)

    def library_before() -> Any:
        with connect(PERSONA) as model:
            return library_run(model, tools=with_tool_timeouts)

    def bare() -> Any:
        with mock_client() as client:
            return bare_httpx_loop(client)

    same = same_messages(library().messages, bare())
    times = side_by_side({"bare": bare, "library": library, "before": library_before}, cfg.reps)
    b, a, before = times["bare"], times["library"], times["before"]
    section.header = ["variant", "median per run", "min", "max", "ratio to bare"]
    section.rows = [
        [
            "bare loop: plain httpx, same transport, tools called directly",
            ms(b.median),
            ms(b.min),
            ms(b.max),
            "1.00",
        ],
        [
            "run_agent(connect('loopboros'), level.tools())",
            ms(a.median),
            ms(a.min),
            ms(a.max),
            f"{ratio(a, b):.2f}",
        ],
        [
            "before the fix: same, tools with a per-call timeout thread",
            ms(before.median),
            ms(before.min),
            ms(before.max),
            f"{ratio(before, b):.2f}",
        ],
    ]
    overhead = a.median - b.median
    section.notes = [
        f"{cfg.reps} runs each, interleaved, after a warm-up; both loops send the same "
        f"{2 * TURNS + 1} messages: {'yes' if same else 'NO - the comparison is not like for like'}.",
        f"The library's own cost: {ms(overhead)} per run, {us(overhead / TURNS)} per turn "
        "(validation, the Run/Turn transcript, events, error handling), against a mock that "
        "itself re-reads and re-counts the whole history every turn.",
        "The 'before' row is any tool with a timeout (the default for @tool): each call runs in a "
        "new thread, which on this busy 2-core machine costs up to ~1 ms. The level's own tools "
        "cannot hang, so they now run in the caller's thread (level.py: timeout_s=None).",
    ]
    section.verdicts = [
        Verdict(
            "1. loop overhead (run_agent / bare httpx)",
            f"{ratio(a, b):.2f}x",
            "<= 1.25x",
            ratio(a, b) <= 1.25 and same,
        )
    ]
    return section


# ---- 2 -------------------------------------------------------------------------------------


def keep_alive(cfg: Config) -> Section:
    section = Section(
        2, f"Keep-alive on a real socket: the library vs. the seed's stdlib loop ({TURNS} turns)"
    )
    with serving() as url, serving(nagle=True) as url_before:
        shared = connect(PERSONA, base_url=url, api_key="")

        def library() -> Any:
            with connect(PERSONA, base_url=url, api_key="") as model:
                return library_run(model)

        def library_own_ssl() -> Any:
            with _fresh_ssl_context_per_client():
                return library()

        times = side_by_side(
            {
                "seed": lambda: seed_loop(url),
                "library": library,
                "shared": lambda: library_run(shared),
                "ssl": library_own_ssl,
            },
            cfg.socket_reps,
        )

        def before() -> Any:
            with connect(PERSONA, base_url=url_before, api_key="") as model:
                return library_run(model)

        slow = side_by_side(
            {"before": before, "seed": lambda: seed_loop(url_before)}, cfg.before_reps
        )
        shared.close()
    with tempfile.TemporaryDirectory() as folder, trusted_certificate(folder) as tls:
        secure = _over_tls(tls, cfg) if tls else None
    s, a, one, ssl = times["seed"], times["library"], times["shared"], times["ssl"]
    section.header = ["variant", "median per run", "min", "max", "ratio to seed"]
    section.rows = [
        ["seed: urllib, a new connection per request", ms(s.median), ms(s.min), ms(s.max), "1.00"],
        [
            "library: connect() + run_agent, one keep-alive connection",
            ms(a.median),
            ms(a.min),
            ms(a.max),
            f"{ratio(a, s):.2f}",
        ],
        [
            "library, one client reused across runs (as in a notebook)",
            ms(one.median),
            ms(one.min),
            ms(one.max),
            f"{ratio(one, s):.2f}",
        ],
        [
            "before fix 2: connect() building its own SSL context",
            ms(ssl.median),
            ms(ssl.min),
            ms(ssl.max),
            f"{ratio(ssl, s):.2f}",
        ],
        [
            "before fix 1: library against the server with Nagle on",
            ms(slow["before"].median),
            ms(slow["before"].min),
            ms(slow["before"].max),
            f"{ratio(slow['before'], slow['seed']):.2f} (to seed on the same server)",
        ],
    ]
    if secure:
        ts, ta = secure["seed"], secure["library"]
        section.rows += [
            [
                "HTTPS: seed, a new TLS connection per request",
                ms(ts.median),
                ms(ts.min),
                ms(ts.max),
                "1.00",
            ],
            [
                "HTTPS: library, connect() + run_agent, one keep-alive connection",
                ms(ta.median),
                ms(ta.min),
                ms(ta.max),
                f"{ratio(ta, ts):.2f} (to seed over HTTPS)",
            ],
        ]
    section.notes = [
        f"`python -m whentostop serve` on 127.0.0.1 in its own process; {cfg.socket_reps} runs each, "
        f"interleaved ({cfg.before_reps} for the 'before' row, which is slow).",
        "Before the fix the mock server wrote the headers and the body of each reply as two "
        "small writes with Nagle's algorithm on: a keep-alive client then waited for a delayed "
        "ACK (~40 ms) on every reply, and lost to the seed's new-connection-per-request loop "
        "by 10-20x. Fix 1, in mock/endpoint.py: disable_nagle_algorithm = True.",
        "connect() to a real URL builds an httpx client, and httpx builds an SSL context for "
        "each client by reading the CA bundle (~30 ms, more on a busy machine, even for http://). "
        "Fix 2, in client.py: one SSL context, made once, shared by every client.",
        f"What connect() still costs per run: {ms(a.median - one.median)} (the two library rows' difference).",
        "Over plain HTTP on loopback a new connection costs ~0.1 ms, less than httpx's own work per "
        "request over http.client's, so keep-alive cannot win there. A hosted endpoint is HTTPS: "
        "the HTTPS rows serve the same mock behind TLS (a self-signed P-256 certificate made for "
        "the run and trusted through SSL_CERT_FILE), where every new connection is a handshake."
        if secure
        else "HTTPS rows skipped: `openssl` is not installed.",
    ]
    section.verdicts = [
        Verdict(
            "2. keep-alive (library / seed), connect() per run",
            f"{ratio(a, s):.2f}x",
            "< 1",
            ratio(a, s) < 1,
        ),
        Verdict(
            "2. keep-alive (library / seed), client reused",
            f"{ratio(one, s):.2f}x",
            "< 1",
            ratio(one, s) < 1,
        ),
    ]
    if secure:
        r = ratio(secure["library"], secure["seed"])
        section.verdicts.append(
            Verdict("2. keep-alive over HTTPS (library / seed)", f"{r:.2f}x", "< 1", r < 1)
        )
    return section


def _over_tls(tls: tuple[str, str], cfg: Config) -> dict[str, Any]:
    """The seed and the library against the mock behind TLS, side by side."""
    with serving(tls=tls) as url:

        def library() -> Any:
            with connect(PERSONA, base_url=url, api_key="") as model:
                return library_run(model)

        return side_by_side({"seed": lambda: seed_loop(url), "library": library}, cfg.socket_reps)


@contextmanager
def _fresh_ssl_context_per_client() -> Iterator[None]:
    """Undo fix 2 for one run: every client builds its own SSL context, as httpx does."""
    import httpx

    import whentostop.client as client

    shared = client._ssl_context
    client._ssl_context = httpx.create_ssl_context  # type: ignore[assignment]
    try:
        yield
    finally:
        client._ssl_context = shared


# ---- 3 -------------------------------------------------------------------------------------


def peers(cfg: Config) -> Section:
    section = Section(
        3, f"Peers on the same work: {TURNS} turns of the Loopboros over loopback HTTP"
    )
    present = [f for f in FRAMEWORKS if available(f)]
    missing = [f for f in FRAMEWORKS if f not in present]
    if missing:
        section.notes.append(
            f"Skipped {', '.join(missing)}: not installed (they are in the `bench` extra: "
            "`pip install -e '.[bench]'`; `make bench` installs it)."
        )
    with serving() as url:
        workers = {f: Worker(f, url) for f in present}
        try:
            for w in workers.values():
                w.wait_ready()
            runs: dict[str, list[dict[str, Any]]] = {f: [] for f in present}
            for f in present if not cfg.quick else ():  # warm-up
                workers[f].ask("run")
            for rep in range(cfg.peer_reps):
                for f in present if rep % 2 == 0 else reversed(present):
                    runs[f].append(workers[f].ask("run"))
            peak = {f: workers[f].ask("memory")["peak_bytes"] for f in present}
        finally:
            rss = {f: workers[f].close().get("maxrss_kib", 0) for f in present}
    base = median(r["seconds"] for r in runs["whentostop"])
    section.header = [
        "framework",
        "version",
        "median per run",
        "ratio to whentostop",
        "CPU in its process",
        "requests",
        "peak traced memory in a run",
        "process max RSS",
        "how the caller learns the clock ended",
    ]
    for f in present:
        t = median(r["seconds"] for r in runs[f])
        last = runs[f][-1]
        cpu = median(r["cpu"] for r in runs[f])
        section.rows.append(
            [
                f,
                _version(FRAMEWORKS[f]),
                ms(t),
                f"{t / base:.2f}",
                ms(cpu),
                str(last["requests"]),
                mib(peak[f]),
                mib(rss[f] * 1024),
                f"{last['how']}: {last['what']}",
            ]
        )
    section.notes += [
        f"Each framework runs in its own worker process (imports and memory kept apart); "
        f"{cfg.peer_reps} runs each after a warm-up, interleaved across the workers. Each made "
        "one client and one agent at start-up and reuses them, as its docs show."
        + (" Quick run: no warm-up." if cfg.quick else ""),
        "CPU in its process: the worker's own CPU time per run (median), the rest of a run is "
        "waiting for the mock server, which answers every framework alike.",
        "Peak traced memory: tracemalloc's peak during one run (Python allocations only). "
        "Max RSS: the worker's resident high-water mark, imports included.",
        "openai-agents: AsyncOpenAI(base_url) + OpenAIChatCompletionsModel, function_tool on the "
        "level's two functions, Runner.run_sync(max_turns=25), tracing disabled. A tool's exception "
        "goes back to the model as text (its default failure_error_function).",
        "pydantic-ai: OpenAIChatModel + OpenAIProvider(openai_client=AsyncOpenAI(base_url)), "
        "Tool on the level's two functions, run_sync(usage_limits=UsageLimits(request_limit=25)). "
        "A tool's exception is not sent to the model: it ends the run, so search_blocks turns the "
        "level's error into ModelRetry; with the default max_retries=1 the run then ends at the "
        "2nd wrong spelling in a row with UnexpectedModelBehavior, so max_retries=25 here.",
    ]
    faster = all(base < median(r["seconds"] for r in runs[f]) for f in present if f != "whentostop")
    measured = (
        ", ".join(
            f"{f} {median(r['seconds'] for r in runs[f]) / base:.2f}x"
            for f in present
            if f != "whentostop"
        )
        or "peers skipped"
    )
    complete = not missing
    section.verdicts = [
        Verdict(
            "3. peers (their time / ours)",
            measured,
            "faster than both (> 1x)",
            faster if complete else None,
        )
    ]
    return section


def _version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "-"


# ---- 4 -------------------------------------------------------------------------------------


def widget(cfg: Config) -> Section:
    section = Section(4, "Widget re-run: the explorer's max_turns slider from 1 to 25")
    try:
        from whentostop.views.widgets import explorer

        ex = explorer("1-1")
        slider = ex.max_turns
    except (ImportError, AttributeError, TypeError) as exc:
        section.notes = [
            f"Not available yet: whentostop.views.widgets.explorer('1-1').max_turns "
            f"could not be built here ({type(exc).__name__}: {exc})."
        ]
        section.verdicts = [Verdict("4. widget re-run", "not available yet", "< 100 ms", None)]
        return section
    slider.value = 25  # warm-up: one full run
    per_value: dict[int, list[float]] = {}
    for _ in range(cfg.widget_sweeps):
        slider.value = 2
        for value in cfg.slider_values:
            seconds, _ = timed(lambda: setattr(slider, "value", value))
            per_value.setdefault(value, []).append(seconds)
    all_times = [t for ts in per_value.values() for t in ts]
    at_25 = per_value[25]
    section.header = ["slider change", "median", "max"]
    section.rows = [
        [
            f"any value {_values(cfg.slider_values)} (until the outputs are updated)",
            ms(median(all_times)),
            ms(max(all_times)),
        ],
        ["to 25 (a 25-turn run)", ms(median(at_25)), ms(max(at_25))],
    ]
    section.notes = [
        f"{cfg.widget_sweeps} sweeps over {_values(cfg.slider_values)}, in process; setting "
        "`.value` re-runs synchronously, so the time is until the badge and plots are updated."
    ]
    section.verdicts = [
        Verdict(
            "4. widget re-run to 25 turns",
            f"{ms(median(at_25))} (max {ms(max(at_25))})",
            "< 100 ms",
            max(at_25) < 0.1,
        )
    ]
    return section


def _values(values: tuple[int, ...]) -> str:
    return f"{values[0]}..{values[-1]}" if len(values) > 2 else " and ".join(map(str, values))


# ---- 5 -------------------------------------------------------------------------------------


def notebooks(cfg: Config) -> Section:
    section = Section(5, "Notebooks: each executed from a clean kernel (nbclient)")
    found = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if cfg.quick:
        found = sorted(found, key=lambda p: p.stat().st_size)[:1]
    if not found:
        section.notes = ["No notebooks in notebooks/ yet: nothing to time."]
        section.verdicts = [Verdict("5. notebooks", "none yet", "< 10 s each", None)]
        return section
    section.header = ["notebook", "median", "max", "cells"]
    worst = 0.0
    with _jupyter_sandbox():
        for path in found:
            times, cells = [], 0
            for _ in range(cfg.notebook_reps):
                seconds, cells = timed(lambda: _execute(path))
                times.append(seconds)
            worst = max(worst, median(times))
            section.rows.append([path.name, ms(median(times)), ms(max(times)), str(cells)])
    section.notes = [
        f"{cfg.notebook_reps} executions each; each starts a new kernel, so kernel "
        "start-up is included." + (" Quick run: the smallest notebook only." if cfg.quick else "")
    ]
    section.verdicts = [
        Verdict("5. notebooks (slowest median)", ms(worst), "< 10 s each", worst < 10)
    ]
    return section


def _execute(path: Path) -> int:
    import nbformat
    from nbclient import NotebookClient
    from traitlets.config import Config

    nb = nbformat.read(path, as_version=4)
    # Unix sockets, not TCP ports another process may take between their pick and the kernel's
    # bind (tests/conftest.py, `jupyter_env`); the runtime folder is the sandbox's, made here.
    runtime = Path(os.environ["JUPYTER_RUNTIME_DIR"])
    runtime.mkdir(parents=True, exist_ok=True)
    connection = runtime / f"k-{os.getpid()}-{time.monotonic_ns()}.json"
    ipc = Config({"KernelManager": {"transport": "ipc", "connection_file": str(connection)}})
    NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        config=ipc,
    ).execute()
    return sum(1 for c in nb.cells if c.cell_type == "code")


@contextmanager
def _jupyter_sandbox() -> Iterator[None]:
    """Kernels write their files into a temporary home and never see a real endpoint."""
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="whentostop-bench-") as home:
        for name in JUPYTER_DIRS:
            os.environ[name] = str(Path(home, name.lower()))
        for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "WHENTOSTOP_MODEL"):
            os.environ.pop(name, None)
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


# ---- 6 -------------------------------------------------------------------------------------

HEAVY = ("matplotlib", "ipywidgets")
FLOOR = "from pydantic import BaseModel, ValidationError, create_model"
"""What `import whentostop` cannot do without: pydantic (httpx loads when a client is made)."""
_IMPORT_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\| ( *)(\S+)\s*$")
_MARK = "--- the statement starts here ---"


def import_time(cfg: Config) -> Section:
    section = Section(6, "Import: python -X importtime -c 'import whentostop'")
    ours: list[float] = []
    floor: list[float] = []
    httpx_part: list[float] = []
    for rep in range(cfg.import_reps + 1):  # the first pair warms the .pyc files, and is dropped
        pair = [(ours, "import whentostop"), (floor, FLOOR)]
        for samples, statement in pair if rep % 2 == 0 else reversed(pair):
            total, part = _importtime(statement)
            samples.append(total)
            if samples is ours:
                httpx_part.append(part)
    ours, floor, httpx_part = ours[1:], floor[1:], httpx_part[1:]
    loaded = json.loads(
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import json, sys, whentostop; "
                f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    best, base = median(ours), median(floor)
    section.header = ["measure", "median", "min / max"]
    section.rows = [
        ["import whentostop (cumulative)", ms(best), f"{ms(min(ours))} / {ms(max(ours))}"],
        ["of which httpx (0 when it is left for the first connect())", ms(median(httpx_part)), ""],
        [
            f"`{FLOOR}` (the floor: pydantic alone)",
            ms(base),
            f"{ms(min(floor))} / {ms(max(floor))}",
        ],
        ["whentostop's own share (difference of medians)", ms(best - base), ""],
        ["matplotlib or ipywidgets imported?", ", ".join(loaded) or "neither", ""],
    ]
    section.notes = [
        f"{cfg.import_reps} fresh interpreters each, interleaved, after one warm-up pair; the numbers "
        "are importtime's cumulative microseconds of the top-level imports the statement made.",
        "httpx (with its command-line tool: click, pygments, rich, whenever those are installed) is "
        "imported by the first connect(), not by `import whentostop`; pydantic is needed at import, "
        "by the level and tool models.",
    ]
    section.verdicts = [
        Verdict(
            "6. import whentostop",
            f"{ms(best)} (pydantic alone: {ms(base)}); "
            f"loads {', '.join(loaded) or 'neither matplotlib nor ipywidgets'}",
            "< 150 ms, no matplotlib/ipywidgets",
            best < 0.150 and not loaded,
        )
    ]
    return section


def _importtime(statement: str, part: str = "httpx") -> tuple[float, float]:
    """Seconds `statement` spends importing in a fresh interpreter, by importtime's own account,
    and how much of that went to importing `part` (wherever in the tree it was first imported)."""
    err = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            f"import sys; print({_MARK!r}, file=sys.stderr); {statement}",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stderr
    after = err.split(_MARK, 1)[1]
    lines = [m for m in map(_IMPORT_LINE.match, after.splitlines()) if m]
    tops = [m for m in lines if not m.group(3)]
    if not tops:
        raise RuntimeError(f"-X importtime reported no import for {statement!r}")
    of_part = sum(int(m.group(2)) for m in lines if m.group(4) == part)
    return sum(int(m.group(2)) for m in tops) / 1e6, of_part / 1e6


# ---- 7 -------------------------------------------------------------------------------------


def growth(cfg: Config) -> Section:
    section = Section(7, "Growth: a Loopboros run as max_turns grows (in-process mock)")
    section.header = [
        "max_turns",
        "library run",
        "mock's share",
        "ours per turn (library)",
        "ours per turn (bare loop)",
        "library's extra per turn",
        "prompt tokens: turn 1 -> last",
        "tokens in the run",
        "peak memory (library run)",
    ]
    extras: dict[int, float] = {}
    for size in cfg.growth_sizes:
        lib_ours: list[float] = []
        bare_ours: list[float] = []
        mock_share: list[float] = []
        last_run: list[Any] = []

        def library() -> None:
            transport = TimedTransport()
            start = time.perf_counter()
            with mock_model(transport) as model:
                last_run[:] = [library_run(model, max_turns=size)]
            total = time.perf_counter() - start
            lib_ours.append(total - transport.seconds)
            mock_share.append(transport.seconds / total)

        def bare() -> None:
            transport = TimedTransport()
            start = time.perf_counter()
            with mock_client(transport) as client:
                bare_httpx_loop(client, max_turns=size)
            bare_ours.append(time.perf_counter() - start - transport.seconds)

        times = side_by_side({"library": library, "bare": bare}, cfg.growth_reps)
        del (
            lib_ours[: -cfg.growth_reps],
            bare_ours[: -cfg.growth_reps],
            mock_share[: -cfg.growth_reps],
        )  # drop warm-up
        run = last_run[0]
        peak = peak_memory(lambda: library_run(mock_model(), max_turns=size))
        ours, bare_turn = median(lib_ours) / size, median(bare_ours) / size
        extras[size] = ours - bare_turn
        section.rows.append(
            [
                str(size),
                ms(times["library"].median),
                f"{median(mock_share):.0%}",
                us(ours),
                us(bare_turn),
                us(extras[size]),
                f"{run.turns[0].prompt_tokens:,} -> {run.turns[-1].prompt_tokens:,}",
                f"{run.total_tokens:,}",
                mib(peak),
            ]
        )
    small, large = extras[min(extras)], extras[max(extras)]
    # Flat: the least-squares line through the extra per turn rises by under 100 µs across the
    # sizes. One pair of sizes (as before) is at the mercy of the noise in the smallest run.
    sizes = sorted(extras)
    mean_x, mean_y = sum(sizes) / len(sizes), sum(extras.values()) / len(sizes)
    slope = sum((x - mean_x) * (extras[x] - mean_y) for x in sizes) / (
        sum((x - mean_x) ** 2 for x in sizes) or 1.0
    )
    rise = slope * (sizes[-1] - sizes[0])
    flat = rise < 100e-6
    section.notes = [
        f"{cfg.growth_reps} runs per size and loop, interleaved. 'Ours' is a run's time minus the "
        "time spent inside the mock's transport (timed around it); the bare loop's 'ours' is what "
        "plain httpx + json cost for the same messages.",
        "Ours per turn grows a little with the history for both loops: every request serializes "
        "the whole conversation (the protocol demands it). The library's extra per turn is what "
        "the library adds on top: it should stay flat.",
        "The mock's token counts are those it reported (usage), counted from each request.",
    ]
    section.verdicts = [
        Verdict(
            "7. growth: library's extra per turn",
            f"{us(small)} at {min(extras)} turns, {us(large)} at {max(extras)}; fitted rise {us(rise)}",
            "flat (fitted rise < 100 µs)",
            flat,
        )
    ]
    return section


# ---- 8 -------------------------------------------------------------------------------------

LONG_SYSTEM = (
    "You are a careful searcher in a platform game. The level has several areas, each with "
    "numbered ? blocks. Search the areas one at a time with search_blocks and read what each "
    "block hides. Some models give up too early; last time one stopped after a single search, "
    "and that was wrong. Do not search the same area twice under a different spelling. Do not "
    "guess a block you have not seen. Never give up before every area has been searched. "
    "Actually, once every area has come back without the star, you may stop: say you couldn't "
    "find it, and list the areas you searched. If you find the star, say which area and block."
)


ADVERSARIAL = {
    "a run of dots": "." * 1_000_000,
    "unclosed quotes": ('"' + "never give up ") * 66_000,
    "spaces after Areas:": "Areas:" + " " * 1_000_000,
    "repeated sentences": "If nothing turns up, say so. " * 34_000,
    "nested brackets": "(" * 500_000 + ")" * 500_000,
    "conditions without an end": ", if" * 250_000,
    "questions": "No star? " * 110_000,
    "one long word": "a" * 1_000_000,
    "mixed scripts": "ñ日本語 desista Ω ⭐ " * 62_500,
    "negations": "not never não " * 71_000,
    "corrections": "Forget that. Actually, " * 43_000,
    "struck out and left open": "~~never give up <del>stop</s> " * 32_000,
    "strikes closed": "~~a~~ <s>b</s> " * 66_000,
}
"""The crafted inputs of issue 25 (1 MB each), as tests/test_mock_reading.py reads them."""
NEWEST = {
    name: float(row["floor"])
    for name, row in sorted(
        tomllib.loads(
            (ROOT / "data" / "intent" / "floors.toml").read_text(encoding="utf-8")
        ).items(),
        key=lambda item: -int(item[0].removeprefix("dev-w")),
    )
}
"""Rounds 4 to 7's writers' files and their floors (data/intent/floors.toml, which
tests/test_intent.py holds them at), newest first: their misses are the reader's work queue."""
DEVELOPMENT = ("dev-w6", "dev-w5", "dev-w4", "dev", "seed")
CORPORA = ("heldout", *NEWEST, *DEVELOPMENT)
"""The corpus files measured: the held-out one first, the one that counts."""


_KNOWN_MISSES = 4
"""How many development phrasings the reader is known to miss (tests/test_intent.py lists them)."""


def intent(cfg: Config) -> Section:
    section = Section(
        9, "The mock's reader of intent: accuracy on words it never saw, and its cost"
    )
    from whentostop.mock import corpus
    from whentostop.mock.intent import read_intent, read_rules

    tallies = {name: corpus.score(corpus.load(name)) for name in CORPORA}
    rules_alone = {
        f"{name} (rules alone)": corpus.score(corpus.load(name), read_rules)
        for name in ("heldout", *NEWEST)
    }
    section.header = ["corpus", "phrasings", "all", "en", "pt", "gives_up", "keeps_searching"]
    for name, tally in {**tallies, **rules_alone}.items():
        section.rows.append(
            [name, str(tally.total["all"])]
            + [
                _share(tally, group)
                for group in (
                    "all",
                    "lang en",
                    "lang pt",
                    "label gives_up",
                    "label keeps_searching",
                )
            ]
        )
    classes = sorted({g for t in tallies.values() for g in t.total if g.startswith("class ")})
    section.tables.append(
        (
            ["class", *CORPORA],
            [[c[len("class ") :], *(_share(tallies[n], c) for n in CORPORA)] for c in classes],
        )
    )
    timing, slowest_first, slowest_average = _intent_timing(cfg, read_intent)
    section.tables.append(timing)
    worst_crafted = _crafted(read_intent, 1 if cfg.quick else 3)
    held_out = tallies["heldout"]
    writers = [n for n in tallies if n.startswith("dev") and "(" not in n]
    last = max(writers, key=lambda n: int(n[5:]) if n[5:].isdigit() else 0)
    section.notes = [
        "Accuracy: the share of phrasings whose reading leads the searcher on level 1-1 (no star, "
        "max_turns=10) to its label's exit (`python -m whentostop.mock.corpus`). heldout: 426 "
        "phrasings by a writer who never saw the reader, in whole paraphrase families, measured "
        f"and never read; dev, dev-w4 ... {last}: {len(writers)} more such writers', which the "
        "reader was developed on and its second opinion (mock/gist.py) is trained on (each was measured "
        "once before its misses were read: bench/NOTES.md); seed: the 728 phrasings written with "
        "the first reader. '(rules alone)': the same files read without the second opinion "
        "(`read_rules`), side by side.",
        "Timing: requests as the searcher receives them at turn 5 of level 1-1 (system prompt, "
        f"task, four searches and their results); {cfg.reps} samples of "
        f"{20 if cfg.quick else 200} calls each, the variants interleaved. A first request reads "
        "the system prompt and the task (the cache of readings cleared before each call); every "
        "later request of a conversation finds its reading in read_intent's cache (bounded in "
        "bytes), so a long system prompt is read once per conversation, not once per turn.",
        f"Crafted inputs: {len(ADVERSARIAL)} texts of 1 MB ({', '.join(ADVERSARIAL)}), "
        f"each read {'once' if cfg.quick else '3 times'} from an empty cache; the slowest, in CPU time "
        f"(time.thread_time): {ms(worst_crafted)}. The reader reads the first and last 3 KB of a "
        "text, as a model's attention would.",
    ]
    section.verdicts = [
        Verdict(
            f"9. held-out accuracy, {label}",
            _share(held_out, group),
            goal,
            held_out.accuracy(group) >= floor,
        )
        for label, group, goal, floor in [
            ("English", "lang en", ">= 95 %", 0.95),
            ("Portuguese", "lang pt", ">= 95 %", 0.95),
            ("refusals kept (keeps_searching)", "label keeps_searching", ">= 98 %", 0.98),
        ]
    ] + [
        Verdict(
            "9. development corpora read right (" + ", ".join(DEVELOPMENT) + ")",
            f"{sum(tallies[n].right['all'] for n in DEVELOPMENT)} / "
            f"{sum(tallies[n].total['all'] for n in DEVELOPMENT)}",
            "all but the known misses (tests/test_intent.py)",
            sum(len(tallies[n].misses) for n in DEVELOPMENT) <= _KNOWN_MISSES,
        ),
        Verdict(
            "9. newest development corpora (" + ", ".join(NEWEST) + ")",
            ", ".join(_share(tallies[n], "all") for n in NEWEST),
            "at or above their floors (" + ", ".join(f"{f:.0%}" for f in NEWEST.values()) + ")",
            all(tallies[n].accuracy("all") >= f for n, f in NEWEST.items()),
        ),
        Verdict(
            "9. read_intent, first reading (slowest request)",
            us(slowest_first),
            "< 1 ms",
            slowest_first < 1e-3,
        ),
        Verdict(
            "9. read_intent per request, over a 10-request conversation",
            us(slowest_average),
            "< 1 ms",
            slowest_average < 1e-3,
        ),
        Verdict(
            "9. 1 MB of crafted text, slowest reading (CPU)",
            ms(worst_crafted),
            "< 100 ms",
            worst_crafted < 0.1,
        ),
    ]
    return section


def _share(tally: Any, group: str) -> str:
    return f"{tally.accuracy(group):.1%} ({tally.right[group]}/{tally.total[group]})"


def _crafted(read_intent: Any, reps: int) -> float:
    """The slowest CPU time, over the crafted inputs, of reading one from an empty cache."""
    read_intent("Give up.", "Desista.")  # the lexicons are loaded once per process
    worst = 0.0
    for text in ADVERSARIAL.values():
        best = float("inf")
        for _ in range(reps):
            read_intent.cache_clear()
            start = time.thread_time()
            read_intent(text, text)
            best = min(best, time.thread_time() - start)
        worst = max(worst, best)
    return worst


def _intent_timing(
    cfg: Config, read_intent: Any
) -> tuple[tuple[list[str], list[list[str]]], float, float]:
    """Its share of one mock reply: (the table, the slowest first reading, the slowest average
    reading over a 10-request conversation)."""
    from whentostop import load_level, run_agent
    from whentostop.i18n import using
    from whentostop.lesson import give_up, prompt
    from whentostop.mock.personas import reply

    def request(system: str | None, lang: str) -> dict[str, Any]:
        """What the searcher receives at turn 5 of level 1-1: four searches in the history."""
        tools = load_level("1-1").tools()
        with using(lang), connect("searcher") as model:
            run = run_agent(
                prompt(), model=model, tools=tools, system=system or give_up(), max_turns=4
            )
        return {"model": "searcher", "messages": run.messages, "tools": [t.schema for t in tools]}

    bodies = {
        "the lesson's give-up sentence, English": request(None, "en"),
        "the lesson's give-up sentence, Portuguese": request(None, "pt"),
        f"a long system prompt ({len(LONG_SYSTEM.split())} words, 8 sentences)": request(
            LONG_SYSTEM, "en"
        ),
    }
    batch = 20 if cfg.quick else 200

    def first(fn: Any) -> Any:
        """A request as the first of its conversation: nothing read before."""
        read_intent.cache_clear()
        return fn()

    header = [
        "request",
        "whole mock reply, first request",
        "whole mock reply, later request",
        "read_intent, first reading",
        "its share of a first reply",
        "read_intent, later request",
    ]
    rows: list[list[str]] = []
    slowest_first, slowest_average = 0.0, 0.0
    for name, body in bodies.items():
        system, task = (str(m["content"]) for m in body["messages"][:2])
        times = side_by_side(
            {
                "reply first": lambda body=body: [first(lambda: reply(body)) for _ in range(batch)],
                "reply": lambda body=body: [reply(body) for _ in range(batch)],
                "read first": lambda s=system, t=task: [
                    first(lambda: read_intent(s, t)) for _ in range(batch)
                ],
                "read": lambda s=system, t=task: [read_intent(s, t) for _ in range(batch)],
            },
            cfg.reps,
        )
        reply_first, reply_later, read_first, read_later = (
            times[k].median / batch for k in ("reply first", "reply", "read first", "read")
        )
        slowest_first = max(slowest_first, read_first)
        slowest_average = max(slowest_average, (read_first + 9 * read_later) / 10)
        rows.append(
            [
                name,
                us(reply_first),
                us(reply_later),
                us(read_first),
                f"{read_first / reply_first:.0%}",
                f"{read_later * 1e9:.0f} ns",
            ]
        )
    return (header, rows), slowest_first, slowest_average


def slider_in_browser(cfg: Config) -> Section:
    """Slider -> page updated, in Chromium: Voila and JupyterLab, one explorer and the dashboard
    (and the dashboard with ipywidgets.HTML outputs, as before the fix), side by side."""
    import browser

    section = Section(
        10,
        "Slider -> page updated in Chromium: Voila and JupyterLab, one explorer and the dashboard",
    )
    why = browser.available()
    if why:
        section.notes = [f"Skipped: {why}."]
        section.verdicts = [
            Verdict("10. slider -> page updated", "not measured here", "< 100 ms", None)
        ]
        return section
    names = ("explorer",) if cfg.quick else tuple(browser.NOTEBOOKS)
    found = {
        "Voila": browser.voila_latencies(cfg.browser_samples, names),
        "JupyterLab": browser.lab_latencies(cfg.browser_samples, names),
    }
    base = median(found["Voila"]["explorer"].total)
    what = {
        "explorer": "one explorer (1-1)",
        "dashboard": "the dashboard (three levels)",
        "dashboard-html": "the dashboard, outputs as ipywidgets.HTML (before the fix)",
    }
    section.header = [
        "page",
        "what moved",
        "median",
        "max",
        "ratio to Voila, one explorer",
        "to the first output",
        "outputs applied",
        "layout and paint",
        "the page's own work (of which style and layout)",
    ]
    for where, times in found.items():
        for name, t in times.items():
            section.rows.append(
                [
                    where,
                    what[name],
                    ms(median(t.total)),
                    ms(max(t.total)),
                    f"{median(t.total) / base:.2f}",
                    ms(median(t.to_first_output)),
                    ms(median(t.outputs)),
                    ms(median(t.paint)),
                    f"{ms(median(t.main_thread))} ({ms(median(t.layout))})",
                ]
            )
    section.notes = [
        f"{cfg.browser_samples} key presses each (after one warm-up), alternating the 1-1 "
        "explorer's max_turns one step left and right (a 9- and a 10-turn Loopboros run), in "
        "headless Chromium driven by Playwright as the browser tests drive it (bench/browser.py).",
        "The clock starts at the keydown's own timestamp and stops at the first painted frame after "
        "the explorer's chart is replaced and its live region announces the new run (set last): "
        "the kernel's round trip, the run, and the page's layout and paint included. The last three "
        "columns split it (medians): keydown -> the first output changes (the value's trip to the "
        "kernel, the run and its drawing there, the first message back); first -> last output "
        "changed (the other messages, applied); last -> painted.",
        "The page's own work is Chromium's TaskDuration over the press (scripts, style, layout, "
        "paint), whatever the kernel took: what the page costs even on a busy machine.",
        "The 'ipywidgets.HTML' row draws the dashboard's outputs with ipywidgets.HTML, as the code "
        "before issue 18 did; the explorer now uses `controls.Pane`, an anywidget that only swaps "
        "its HTML: compare the page's own work of the two dashboard rows. Each explorer re-runs "
        "and redraws only itself (tests/test_widgets.py).",
    ]
    worst = max(
        median(t.total)
        for times in found.values()
        for k, t in times.items()
        if k in ("explorer", "dashboard")
    )
    section.verdicts = [
        Verdict(
            "10. slider -> page updated (slowest median of Voila/Lab x explorer/dashboard)",
            ms(worst),
            "< 100 ms",
            worst < 0.1,
        )
    ]
    return section


SECTIONS = {
    1: loop_overhead,
    2: keep_alive,
    3: peers,
    4: widget,
    5: notebooks,
    6: import_time,
    7: growth,
    8: lite,
    9: intent,
    10: slider_in_browser,
    11: install,
}
