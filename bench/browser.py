"""Slider -> page updated, measured in headless Chromium as the browser tests drive it: Voila and
JupyterLab, one explorer and the three-level dashboard.

The clock starts at the keydown on the focused `max_turns` slider (the event's own timestamp)
and stops at the first painted frame after the explorer shows the new run: its cost chart
replaced and its live region's new announcement (set last, after the badge, turns line,
transcript and map). What a learner waits for, kernel round trip and the page's layout included.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from harness import CHROMIUM, CHROMIUM_ARGS, JUPYTER_DIRS

NOTEBOOKS = {
    "explorer": 'from whentostop.views.widgets import explorer\nexplorer("1-1")',
    "dashboard": 'from whentostop.views.widgets import dashboard\ndashboard(["1-1", "1-2", "1-3"])',
    "dashboard-html": (
        "import ipywidgets\nimport whentostop.views.widgets as W\n"
        "W.Pane = ipywidgets.HTML  # the outputs as ipywidgets.HTML, as before the fix\n"
        'W.dashboard(["1-1", "1-2", "1-3"])'
    ),
}
"""One code cell each: a single explorer (level 1-1), the projector dashboard, and the same
dashboard with its outputs drawn by `ipywidgets.HTML` (the code before the fix did)."""


def available() -> str | None:
    """Why the browser benchmarks cannot run here, or None when they can."""
    if not Path(CHROMIUM).exists():
        return "chromium is not installed (apt-get install chromium)"
    try:
        import playwright  # noqa: F401
        import voila  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (the test extra)"
    return None


@dataclass
class Timings:
    """Seconds per key press: to the page updated, and where that time went."""

    total: list[float] = field(default_factory=list)
    """keydown -> the first frame painted after the explorer shows the new run."""
    to_first_output: list[float] = field(default_factory=list)
    """keydown -> the first output of the explorer changes: the value's trip to the kernel, the
    run and its drawing there, the first message back."""
    outputs: list[float] = field(default_factory=list)
    """first output changed -> last (the live region): the rest of the messages, applied."""
    paint: list[float] = field(default_factory=list)
    """last output changed -> painted: the page's layout and paint."""
    main_thread: list[float] = field(default_factory=list)
    """The page's own work per press (Chromium's TaskDuration: scripts, style, layout, paint),
    whatever the kernel and the network took: what the page costs, even on a busy machine."""
    layout: list[float] = field(default_factory=list)
    """Of which style recalculation and layout (RecalcStyleDuration + LayoutDuration)."""


def measure(page: Any, explorer: Any, samples: int) -> Timings:
    """Time `samples` key presses (after one warm-up), alternating the slider one step left and
    right; each split into its parts (`Timings`)."""
    script = """async ([root, key]) => {
        // the slider: ours (a range input) or ipywidgets' (a noUiSlider handle, the code before)
        const input = root.querySelector(
            '.wts-max-turns input[type=range], .wts-max-turns .noUi-handle');
        const slider = root.querySelector('.wts-max-turns');
        const status = root.querySelector('[role=status]');
        const plot = () => root.querySelector('.wts-plot img')?.getAttribute('src');
        const before = [status ? status.textContent : null, plot()];
        const done = () => plot() !== before[1] && (!status || status.textContent !== before[0]);
        input.focus();
        const pressed = new Promise(resolve => input.addEventListener(
            'keydown', e => resolve(e.timeStamp), {capture: true, once: true}));
        let first = null;
        const painted = new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error('no update in 30 s')), 30000);
            const seen = new MutationObserver(records => {
                if (first === null && records.some(r => !slider.contains(r.target))) {
                    first = performance.now();
                }
                if (!done()) return;
                const last = performance.now();
                seen.disconnect();
                requestAnimationFrame(() => requestAnimationFrame(() => {
                    clearTimeout(timer); resolve([first ?? last, last, performance.now()]);
                }));
            });
            seen.observe(root, {childList: true, characterData: true, subtree: true,
                                attributes: true});
        });
        window.__wts = Promise.all([pressed, painted]);
        return true;
    }"""
    handle = explorer.element_handle()
    out = Timings()
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")

    def metrics() -> dict[str, float]:
        return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

    for i in range(samples + 1):
        key = "ArrowLeft" if i % 2 == 0 else "ArrowRight"
        page.evaluate(script, [handle, key])
        before = metrics()
        page.keyboard.press(key)
        pressed, (first, last, painted) = page.evaluate("() => window.__wts")
        after = metrics()
        if i:
            out.main_thread.append(after["TaskDuration"] - before["TaskDuration"])
            out.layout.append(
                after["LayoutDuration"]
                + after["RecalcStyleDuration"]
                - before["LayoutDuration"]
                - before["RecalcStyleDuration"]
            )
            out.total.append((painted - pressed) / 1000)
            out.to_first_output.append((first - pressed) / 1000)
            out.outputs.append((last - first) / 1000)
            out.paint.append((painted - last) / 1000)
    return out


def _notebook(path: Path, code: str) -> Path:
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": code,
            }
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def _env(home: Path, pythonpath: str | None = None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "WHENTOSTOP_MODEL")
    }
    for name in JUPYTER_DIRS:
        (home / name.lower()).mkdir(parents=True, exist_ok=True)
        env[name] = str(home / name.lower())
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if pythonpath:  # another copy of the package first (the code before a change, by hand)
        env["PYTHONPATH"] = pythonpath
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _server(cmd: list[str], url: str, env: dict[str, str], cwd: Path, log: Path) -> Iterator[None]:
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            deadline = time.monotonic() + 120
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{cmd[1:3]} exited: {log.read_text()[-1500:]}")
                try:
                    if httpx.get(url, timeout=2).status_code < 500:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{cmd[1:3]} did not answer in 120 s")
                time.sleep(0.3)
            yield
        finally:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=10)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait(timeout=5)


def _browser() -> Any:
    from playwright.sync_api import sync_playwright

    manager = sync_playwright().start()
    browser = manager.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    return manager, browser


def _page(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})

    def only_loopback(route: Any) -> None:
        url = route.request.url
        host = url.split("/")[2].split(":")[0] if "://" in url else ""
        if host in ("127.0.0.1", "localhost") or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_loopback)
    page = context.new_page()
    page.set_default_timeout(120_000)
    return page


def voila_latencies(
    samples: int, names: tuple[str, ...] = tuple(NOTEBOOKS), pythonpath: str | None = None
) -> dict[str, Timings]:
    """Slider -> painted update in Voila: {"explorer": [...], "dashboard": [...]} seconds."""
    out: dict[str, Timings] = {}
    with tempfile.TemporaryDirectory(prefix="whentostop-bench-voila-") as tmp:
        base = Path(tmp)
        for name, code in NOTEBOOKS.items():
            _notebook(base / f"{name}.ipynb", code)
        port = _free_port()
        cmd = [
            sys.executable,
            "-m",
            "voila",
            "--no-browser",
            f"--port={port}",
            "--Voila.ip=127.0.0.1",
            "--MappingKernelManager.cull_interval=10",
            "--MappingKernelManager.cull_idle_timeout=30",
            "--VoilaConfiguration.extension_denylist=@jupyter-notebook/lab-extension",
            str(base),
        ]
        with _server(
            cmd,
            f"http://127.0.0.1:{port}/voila/static/voila.js",
            _env(base / "home", pythonpath),
            base,
            base / "voila.log",
        ):
            manager, browser = _browser()
            try:
                for name in names:
                    page = _page(browser)
                    page.goto(
                        f"http://127.0.0.1:{port}/voila/render/{name}.ipynb",
                        wait_until="domcontentloaded",
                    )
                    explorer = page.locator(".wts-explorer").first
                    explorer.locator(".wts-plot img").wait_for()
                    page.wait_for_timeout(500)
                    out[name] = measure(page, explorer, samples)
                    page.context.close()
            finally:
                browser.close()
                manager.stop()
    return out


def lab_latencies(
    samples: int, names: tuple[str, ...] = tuple(NOTEBOOKS), pythonpath: str | None = None
) -> dict[str, Timings]:
    """Slider -> painted update in JupyterLab (Run All first): {"explorer", "dashboard"}."""
    out: dict[str, Timings] = {}
    with tempfile.TemporaryDirectory(prefix="whentostop-bench-lab-") as tmp:
        base = Path(tmp)
        root = base / "root"
        root.mkdir()
        for name, code in NOTEBOOKS.items():
            _notebook(root / f"{name}.ipynb", code)
        settings = base / "settings"
        for path, value in {
            "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
                "fetchNews": "false"
            },
        }.items():
            (settings / path).parent.mkdir(parents=True, exist_ok=True)
            (settings / path).write_text(json.dumps(value))
        port, token = _free_port(), secrets.token_hex(16)
        cmd = [
            str(Path(sys.executable).parent / "jupyter"),
            "lab",
            "--no-browser",
            "--allow-root",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            f"--LabApp.workspaces_dir={base / 'workspaces'}",
            f"--LabApp.user_settings_dir={settings}",
        ]
        url = f"http://127.0.0.1:{port}/"
        with _server(
            cmd,
            f"{url}api/status?token={token}",
            _env(base / "home", pythonpath),
            root,
            base / "lab.log",
        ):
            manager, browser = _browser()
            try:
                for name in names:
                    page = _page(browser)
                    page.goto(
                        f"{url}lab/tree/{name}.ipynb?reset&token={token}",
                        wait_until="domcontentloaded",
                    )
                    page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for()
                    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
                    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
                    explorer = page.locator(".wts-explorer").first
                    explorer.locator(".wts-plot img").wait_for()
                    page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for()
                    page.wait_for_timeout(500)
                    out[name] = measure(page, explorer, samples)
                    headers = {"Authorization": f"token {token}"}
                    for kernel in httpx.get(
                        f"{url}api/kernels", headers=headers, timeout=10
                    ).json():
                        httpx.delete(
                            f"{url}api/kernels/{kernel['id']}", headers=headers, timeout=30
                        )
                    page.context.close()
            finally:
                browser.close()
                manager.stop()
    return out


if __name__ == "__main__":
    # python bench/browser.py voila|lab|both [samples] [notebook,...] [PYTHONPATH of other code]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    which = sys.argv[1] if len(sys.argv) > 1 else "both"
    chosen = tuple(sys.argv[3].split(",")) if len(sys.argv) > 3 else tuple(NOTEBOOKS)
    other = sys.argv[4] if len(sys.argv) > 4 else None
    from statistics import median

    results = {}
    if which in ("voila", "both"):
        results["voila"] = voila_latencies(n, chosen, other)
    if which in ("lab", "both"):
        results["lab"] = lab_latencies(n, chosen, other)
    for where, found in results.items():
        for name, t in found.items():
            print(
                f"{where:5} {name:14} median {median(t.total) * 1e3:6.1f} ms  max "
                f"{max(t.total) * 1e3:6.1f} ms | to first output {median(t.to_first_output) * 1e3:5.1f}"
                f"  outputs {median(t.outputs) * 1e3:5.1f}  paint {median(t.paint) * 1e3:5.1f}"
                f" | page's work {median(t.main_thread) * 1e3:5.1f} (layout {median(t.layout) * 1e3:4.1f})"
            )
