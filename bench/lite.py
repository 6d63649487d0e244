"""Benchmark 8: the lesson in the browser — the JupyterLite site `make lite` builds (build/lite),
opened offline in headless Chromium the way a learner meets it, on a first visit (an empty
browser profile) and on a second one (the same profile, its HTTP cache and service worker kept):
page load -> notebook on screen (its first cell says Python is starting) -> kernel ready -> first
output, the bytes transferred, the site's size."""

from __future__ import annotations

import functools
import importlib.util
import os
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from statistics import median
from typing import Any, ClassVar

from harness import CHROMIUM, CHROMIUM_ARGS, Section, Verdict, ms

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "lite"
LITE_CHROMIUM_ARGS = [
    *CHROMIUM_ARGS,
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
"""Offline: no host but 127.0.0.1 resolves, and no QUIC. Not Playwright's request routing, which
tests/test_lite_browser.py uses: routing turns the browser's HTTP cache off, and a second visit
would then fetch everything again."""
KERNEL_GOAL_S = 30.0
SIZE_GOAL_MB = 60.0


def lite(cfg: Any) -> Section:
    section = Section(8, "JupyterLite: the lesson in the browser, offline (build/lite in Chromium)")
    missing = (
        "no site in build/lite: `make lite` builds it (`make bench` does, first)"
        if not (SITE / "index.html").is_file()
        else "no Chromium here (apt-get install chromium)"
        if not Path(CHROMIUM).exists()
        else ""
    )
    if missing:
        section.notes = [f"Not measured: {missing}."]
        section.verdicts = [
            Verdict(
                "8. JupyterLite: page load -> kernel ready", "n/a", f"< {KERNEL_GOAL_S:g} s", None
            )
        ]
        return section
    reps = 1 if cfg.quick else 3
    load_before = os.getloadavg()[0]
    visits = _visits(reps)
    load_after = os.getloadavg()[0]
    sizes = _site_sizes()

    def cell(kind: str, key: str) -> str:
        values = [v[kind][key] for v in visits]
        return f"{ms(median(values))} ({ms(min(values))} / {ms(max(values))})"

    def fetched(kind: str) -> str:
        size, files, unchanged = visits[-1][kind]["fetched"]
        amount = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"
        return f"{amount} in {files} files" + (
            f" ({unchanged} answered 'not modified')" if unchanged else ""
        )

    cold = median(v["first"]["ready"] for v in visits)
    warm = median(v["second"]["ready"] for v in visits)
    section.header = [
        "measure",
        "first visit: median (min / max)",
        "second visit: median (min / max)",
    ]
    section.rows = [
        [
            "page load -> the notebook on screen (its first cell: Python is starting)",
            cell("first", "shown"),
            cell("second", "shown"),
        ],
        [
            "page load -> kernel ready (status bar: Idle)",
            cell("first", "ready"),
            cell("second", "ready"),
        ],
        [
            "kernel ready -> first output (00's first code cell)",
            cell("first", "first_output"),
            cell("second", "first_output"),
        ],
        [
            "page load -> first output",
            cell("first", "to_output"),
            cell("second", "to_output"),
        ],
        [
            "bytes the server sent until the first output",
            fetched("first"),
            fetched("second"),
        ],
    ]
    section.notes = [
        f"{reps} learner{'s' if reps > 1 else ''}, each a new Chromium profile on disk (a real "
        "browser's HTTP cache and service worker, not an in-memory one): a first visit, then a "
        "second visit to the same page in the same profile. Served on 127.0.0.1 by lite/serve.py's "
        "handler, which asks the browser to revalidate every file and counts what it sends (a "
        "file the browser still has is answered 'not modified', with no body); the page reaches "
        "nothing else, as offline.",
        "Kernel ready includes loading Pyodide (a 10 MB WebAssembly interpreter) and preloading "
        "the lesson's wheels from the site; numpy and matplotlib are never loaded (the figures "
        "are drawn as SVG). On a second visit the files come from the browser's cache, but "
        "Pyodide still starts from scratch: the start is CPU-bound.",
        f"The machine's load average (1 min) was {load_before:.1f} before and {load_after:.1f} "
        "after: Pyodide's start is CPU work, and other work on the machine lengthens it.",
        "Requests that left the site: "
        f"{sum(len(v[k]['off_site']) for v in visits for k in ('first', 'second'))}.",
        f"The site on disk: {sizes['all']:.1f} MB (Pyodide {sizes['pyodide']:.1f} MB, "
        f"{sizes['wheel_count']} wheels {sizes['wheels']:.1f} MB, JupyterLite "
        f"{sizes['all'] - sizes['pyodide'] - sizes['wheels']:.1f} MB).",
    ]
    section.verdicts = [
        Verdict(
            "8. JupyterLite: page load -> kernel ready, first / second visit",
            f"{ms(cold)} / {ms(warm)} (first output "
            f"{ms(median(v['first']['first_output'] for v in visits))} later)",
            f"< {KERNEL_GOAL_S:g} s",
            max(cold, warm) < KERNEL_GOAL_S,
        ),
        Verdict(
            "8. JupyterLite: site size",
            f"{sizes['all']:.1f} MB; to the first output, a first visit transfers "
            f"{fetched('first').split(' in ')[0]}, a second {fetched('second').split(' in ')[0]}",
            f"< {SIZE_GOAL_MB:g} MB",
            sizes["all"] < SIZE_GOAL_MB,
        ),
    ]
    return section


def _visits(reps: int) -> list[dict[str, dict[str, Any]]]:
    """`reps` learners, each a first and a second visit in a browser profile of their own."""
    from playwright.sync_api import sync_playwright

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Counted, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with sync_playwright() as p:
            return [_learner(p, server.server_address[1]) for _ in range(reps)]
    finally:
        server.shutdown()
        server.server_close()


def _site_handler() -> type:
    """lite/serve.py's request handler: the one `make lite-serve` tries the site with."""
    spec = importlib.util.spec_from_file_location("lite_serve", ROOT / "lite" / "serve.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SiteHandler


class _Counted(_site_handler()):  # type: ignore[misc]
    """lite/serve.py's handler, counting what it sends: the bytes of every file body, the files,
    and the answers "not modified" (304: the browser's copy is still good, no body)."""

    quiet = True
    lock: ClassVar[threading.Lock] = threading.Lock()
    sent: ClassVar[dict[str, int]] = {"bytes": 0, "files": 0, "unchanged": 0}

    def send_response(self, code: int, message: str | None = None) -> None:
        super().send_response(code, message)
        with self.lock:
            self.sent["files"] += 1
            self.sent["unchanged"] += code == 304

    def copyfile(self, source: Any, outputfile: Any) -> None:
        with self.lock:
            self.sent["bytes"] += os.fstat(source.fileno()).st_size
        super().copyfile(source, outputfile)


def _learner(playwright: Any, port: int) -> dict[str, dict[str, Any]]:
    """One learner's first visit in an empty profile, then a second visit in the same one."""
    with tempfile.TemporaryDirectory(prefix="wts-lite-profile-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            args=LITE_CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            return {"first": _visit(context, port), "second": _visit(context, port)}
        finally:
            context.close()


def _visit(context: Any, port: int) -> dict[str, Any]:
    """Open 00 start here, wait for the kernel, run its first code cell; what it took and what
    the server sent for it (to the page, its workers and its service worker)."""
    with _Counted.lock:
        before = dict(_Counted.sent)
    off_site: list[str] = []

    def note(request: Any) -> None:
        if not request.url.startswith((f"http://127.0.0.1:{port}/", "data:", "blob:")):
            off_site.append(request.url)

    context.on("request", note)
    page = context.new_page()
    try:
        start = time.perf_counter()
        page.goto(
            f"http://127.0.0.1:{port}/lab/index.html?path=00_start_here.ipynb",
            wait_until="domcontentloaded",
        )
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=120_000)
        shown = time.perf_counter() - start
        page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(timeout=240_000)
        ready = time.perf_counter() - start
        first_cell = page.locator(".jp-NotebookPanel .jp-CodeCell").first
        first_cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        first_cell.locator(".jp-OutputArea-output").first.wait_for(timeout=120_000)
        to_output = time.perf_counter() - start
    finally:
        context.remove_listener("request", note)
        page.close()
    with _Counted.lock:
        after = dict(_Counted.sent)
    return {
        "shown": shown,
        "ready": ready,
        "first_output": to_output - ready,
        "to_output": to_output,
        "fetched": tuple(after[k] - before[k] for k in ("bytes", "files", "unchanged")),
        "off_site": off_site,
    }


def _site_sizes() -> dict[str, Any]:
    pyodide = SITE / "static" / "pyodide"
    wheels = list(pyodide.glob("*.whl"))
    mb = lambda paths: sum(p.stat().st_size for p in paths if p.is_file()) / 1e6  # noqa: E731
    return {
        "all": mb(SITE.rglob("*")),
        "wheels": mb(wheels),
        "wheel_count": len(wheels),
        "pyodide": mb(p for p in pyodide.iterdir() if p.suffix != ".whl"),
    }
