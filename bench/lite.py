"""Benchmark 8: the lesson in the browser — the JupyterLite site `make lite` builds (build/lite),
opened offline in headless Chromium the way a learner's first visit meets it: page load ->
notebook on screen -> kernel ready -> first output, what the browser fetched, the site's size."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any
from urllib.parse import urlsplit

from harness import CHROMIUM, CHROMIUM_ARGS, Section, Verdict, ms

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "lite"
LITE_CHROMIUM_ARGS = [*CHROMIUM_ARGS, "--disable-quic"]
"""Offline as tests/test_lite_browser.py is: no QUIC either."""
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
    visits = _visits(reps)
    shown, ready, first = ([v[k] for v in visits] for k in ("shown", "ready", "first_output"))
    fetched = visits[-1]["fetched"]
    sizes = _site_sizes()
    section.header = ["measure", "median", "min / max"]
    section.rows = [
        [
            "page load -> the notebook on screen",
            ms(median(shown)),
            f"{ms(min(shown))} / {ms(max(shown))}",
        ],
        [
            "page load -> kernel ready (status bar: Idle)",
            ms(median(ready)),
            f"{ms(min(ready))} / {ms(max(ready))}",
        ],
        [
            "kernel ready -> first output (00's first code cell)",
            ms(median(first)),
            f"{ms(min(first))} / {ms(max(first))}",
        ],
        [
            "first visit: what the browser fetched until the first output",
            f"{fetched[0] / 1e6:.1f} MB in {fetched[1]} files",
            "",
        ],
        [
            "the site on disk",
            f"{sizes['all']:.1f} MB",
            f"Pyodide {sizes['pyodide']:.1f} MB, {sizes['wheel_count']} wheels {sizes['wheels']:.1f} MB, "
            f"JupyterLite {sizes['all'] - sizes['pyodide'] - sizes['wheels']:.1f} MB",
        ],
    ]
    section.notes = [
        f"{reps} first visit{'s' if reps > 1 else ''}, each in a new browser context (empty cache), "
        "served by lite/serve.py on 127.0.0.1; the page reaches nothing else, as offline.",
        "Kernel ready includes loading Pyodide (a 10 MB WebAssembly interpreter) and preloading "
        "the lesson's wheels from the site; numpy and matplotlib are not loaded (they come from "
        "Pyodide's CDN on first import, online only).",
    ]
    section.verdicts = [
        Verdict(
            "8. JupyterLite: page load -> kernel ready",
            f"{ms(median(ready))} (first output {ms(median(first))} later)",
            f"< {KERNEL_GOAL_S:g} s",
            median(ready) < KERNEL_GOAL_S,
        ),
        Verdict(
            "8. JupyterLite: site size",
            f"{sizes['all']:.1f} MB; first visit fetches {fetched[0] / 1e6:.1f} MB",
            f"< {SIZE_GOAL_MB:g} MB",
            sizes["all"] < SIZE_GOAL_MB,
        ),
    ]
    return section


def _visits(reps: int) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "lite" / "serve.py"), str(SITE), f"--port={port}", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_for(port)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, args=LITE_CHROMIUM_ARGS, headless=True
            )
            try:
                return [_first_visit(browser, port) for _ in range(reps)]
            finally:
                browser.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)


def _first_visit(browser: Any, port: int) -> dict[str, Any]:
    """One learner's first visit: open 00 start here, wait for the kernel, run its first cell."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if urlsplit(route.request.url).hostname in ("127.0.0.1", "localhost")
            else route.abort()
        ),
    )
    fetched: set[str] = set()
    page = context.new_page()
    page.on("requestfinished", lambda r: fetched.add(urlsplit(r.url).path))
    try:
        start = time.perf_counter()
        page.goto(
            f"http://127.0.0.1:{port}/lab/index.html?path=00_start_here.ipynb",
            wait_until="domcontentloaded",
        )
        first_cell = page.locator(".jp-NotebookPanel .jp-CodeCell").first
        first_cell.wait_for(timeout=120_000)
        shown = time.perf_counter() - start
        page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(timeout=240_000)
        ready = time.perf_counter() - start
        first_cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        first_cell.locator(".jp-OutputArea-output").first.wait_for(timeout=120_000)
        first_output = time.perf_counter() - start - ready
    finally:
        context.close()
    files = [SITE / path.lstrip("/") for path in fetched]
    size = sum(f.stat().st_size for f in files if f.is_file())
    return {
        "shown": shown,
        "ready": ready,
        "first_output": first_output,
        "fetched": (size, sum(1 for f in files if f.is_file())),
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


def _wait_for(port: int, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"lite/serve.py did not listen on 127.0.0.1:{port}")
