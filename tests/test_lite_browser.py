"""The lesson in the browser, offline: the JupyterLite site `make lite` builds (lite/build.py),
served on 127.0.0.1 by lite/serve.py, every notebook opened in one headless Chromium page and
every cell run, as a learner does with Run All (going on past a cell that fails).

The page reaches 127.0.0.1 only, like a learner without internet: the lesson runs on the
in-process mock, in Pyodide. The only cells allowed to fail are those that need numpy or
matplotlib, which the site leaves on Pyodide's CDN: each must fail because the module could not
be fetched (the error names it, and the browser asked the CDN for it), and no other cell may
fail. What a learner reads — the exits, the answers, the explorers, a slider move — is read off
the page.

Time: the kernels of all notebooks start together in one page (a Pyodide kernel takes ~11 s
to start here; five in parallel ~30 s); the notebooks then run one after the other.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import ARTIFACTS, NOTEBOOKS, ROOT, free_port, loopback_context, quick_bench, running
from labpage import ExplorerView, move_slider, slider_value
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = [*sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")), "pt/1-3_o_cano_de_atalho.ipynb"]
"""Every English notebook the site serves (lite/build.py copies notebooks/ whole), by its path
there, and one of the Portuguese edition's: its code is the English one's (tests/test_i18n.py),
and each notebook is a Pyodide kernel started in the page, seconds of CPU each."""
NEEDS_PLOTTING = re.compile(
    r"^\s*(import|from) (matplotlib|numpy)\b|\bplots\.|\bnp\.", re.MULTILINE
)
"""A cell that imports numpy or matplotlib, or uses what such a cell defines (`plots`, `np`)."""
PLOTTING_ERROR = re.compile(
    r"ModuleNotFoundError: No module named '(matplotlib|numpy)'"
    r"|NameError: name '(plots|np)' is not defined"
)
SHOWN = {
    "00_start_here.ipynb": ["end_turn (the flag) after 3/10 turns", "Not attempted yet"],
    "1-1_the_clock.ipynb": [
        "max_turns (the clock) after 10/10 turns",
        "NoAnswer: ",
        "deadline (",
        "Not attempted yet",
    ],
    "1-2_the_flag.ipynb": [
        "end_turn (the flag) after 3/10 turns",
        "may give up",
        "Not attempted yet",
    ],
    "1-3_the_warp_pipe.ipynb": [
        "terminal_tool (the warp pipe) after 5/10 turns",
        "{'item': 'star', 'block': 12}",
        "Not attempted yet",
    ],
    "pt/1-3_o_cano_de_atalho.ipynb": [
        "terminal_tool (o cano de atalho) depois de 5/10 turnos",
        "{'item': 'star', 'block': 12}",
        "Ainda não tentado",
    ],
}
"""What a learner reads in each notebook's outputs (runs on the offline mock, as in JupyterLab)."""
BADGES = {
    "00_start_here.ipynb": ["the flag"],
    "1-1_the_clock.ipynb": ["the clock"],
    "1-2_the_flag.ipynb": ["the flag"],
    "1-3_the_warp_pipe.ipynb": ["the warp pipe"],
    "pt/1-3_o_cano_de_atalho.ipynb": ["o cano de atalho"],
    "explorer.ipynb": ["the clock", "the flag", "the warp pipe"],
}
"""The exit badge of each explorer on the page, in order, after its first run."""

# JupyterLab runs in the page; these call its commands, as its menus do. The site is served as
# built; the test only asks JupyterLite to expose its app object (`exposeAppInBrowser`).
_OPEN = """async (paths) => {
  await window.jupyterapp.restored;
  const ids = [];
  for (const path of paths) {
    const panel = await window.jupyterapp.commands.execute('docmanager:open', {path, factory: 'Notebook'});
    ids.push(panel.id);
  }
  return ids;
}"""
_KERNEL_IDLE = """(id) => {
  const panel = [...window.jupyterapp.shell.widgets('main')].find(w => w.id === id);
  const kernel = panel?.sessionContext?.session?.kernel;
  return !!kernel && kernel.status === 'idle';
}"""
# Run All; when a cell fails (the kernel then skips the rest), Run Selected Cell and All Below
# from the next cell that did not run, until every code cell ran. Returns how many runs it took.
_RUN_ALL = """async ([id, roundTimeoutMs]) => {
  const app = window.jupyterapp;
  const panel = [...app.shell.widgets('main')].find(w => w.id === id);
  app.shell.activateById(id);
  while (app.shell.currentWidget !== panel) await new Promise(r => setTimeout(r, 50));
  const notebook = panel.content;
  const notRun = from => notebook.widgets.findIndex((cell, i) => i >= from
      && cell.model.type === 'code' && cell.model.sharedModel.getSource().trim()
      && cell.model.executionCount === null);
  let next = 0, rounds = 0;
  while ((next = notRun(next)) >= 0) {
    notebook.activeCellIndex = next;
    rounds += 1;
    const ran = app.commands.execute('notebook:run-all-below');
    const late = new Promise(r => setTimeout(() => r('late'), roundTimeoutMs));
    if (await Promise.race([ran, late]) === 'late') return -rounds;
    if (notRun(next) === next) return -rounds;  // the cell did not run at all
  }
  return rounds;
}"""
_CELLS = """(id) => {
  const panel = [...window.jupyterapp.shell.widgets('main')].find(w => w.id === id);
  return panel.content.widgets.filter(c => c.model.type === 'code').map((cell, index) => ({
    index,
    source: cell.model.sharedModel.getSource(),
    count: cell.model.executionCount,
    error: [...cell.node.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
      .map(e => e.textContent).join('\\n'),
    text: [...cell.node.querySelectorAll('.jp-OutputArea-output')].map(e => e.textContent).join('\\n'),
  }));
}"""


@dataclass
class Cell:
    """A code cell as the page shows it after the run."""

    index: int
    source: str
    count: int | None
    error: str
    text: str


@dataclass
class LiteLab:
    """One page of the site with every notebook of the lesson open, each with its own kernel."""

    page: object
    panels: dict[str, str]
    """Notebook file name -> the id of its panel in the page."""
    lock: dict
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)

    def panel(self, name: str):
        return self.page.locator(f"[id='{self.panels[name]}']")

    def run(self, name: str) -> list[Cell]:
        """Run every code cell of `name` (going on past failures); what each cell shows."""
        rounds = self.page.evaluate(_RUN_ALL, [self.panels[name], 240_000])
        cells = [Cell(**c) for c in self.page.evaluate(_CELLS, self.panels[name])]
        assert rounds >= 0, (
            f"{name}: a run stalled (round {-rounds}); cells not run: "
            f"{[c.index for c in cells if c.count is None and c.source.strip()]}"
        )
        return cells

    def fetched_from_the_cdn(self, module: str) -> bool:
        """The page asked Pyodide's CDN for `module`'s wheel (and the request could not go out)."""
        entry = next(e for e in self.lock["packages"].values() if e["name"].lower() == module)
        return (
            entry["file_name"].startswith("https://") and entry["file_name"] in self.failed_requests
        )


@pytest.fixture(scope="session")
def lite_site() -> Path:
    """What `make lite` builds, where it builds it (build/lite, git-ignored): on a fresh machine
    everything is fetched (npm, PyPI); after that a build redoes only what changed (~1 s)."""
    out = ROOT / "build" / "lite"
    subprocess.run(
        [sys.executable, str(ROOT / "lite" / "build.py"), "--out", str(out)],
        check=True,
        timeout=900,
    )
    return out


@pytest.fixture(scope="module")
def lite_lab(
    lite_site: Path, chromium, jupyter_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiteLab]:
    """The site served on 127.0.0.1, one offline page, every notebook open, every kernel idle."""
    port = free_port()
    log = tmp_path_factory.mktemp("lite-serve") / "serve.log"
    cmd = [
        sys.executable,
        str(ROOT / "lite" / "serve.py"),
        str(lite_site),
        f"--port={port}",
        "--quiet",
    ]
    with running(cmd, url=f"http://127.0.0.1:{port}/index.html", env=jupyter_env, log=log):
        context = loopback_context(chromium)
        page = context.new_page()
        page.set_default_timeout(60_000)
        lock = json.loads((lite_site / "static" / "pyodide" / "pyodide-lock.json").read_text())
        lab = LiteLab(page, {}, lock)
        page.on(
            "console", lambda m: lab.console_errors.append(m.text) if m.type == "error" else None
        )
        page.on("requestfailed", lambda r: lab.failed_requests.append(r.url))
        page.route("**/jupyter-lite.json", _expose_the_app)
        page.goto(f"http://127.0.0.1:{port}/lab/index.html", wait_until="domcontentloaded")
        page.wait_for_function("() => window.jupyterapp?.shell", timeout=60_000)
        ids = page.evaluate(_OPEN, LESSON)
        lab.panels = dict(zip(LESSON, ids))
        for panel_id in ids:  # the kernels start together; Pyodide loads from the site itself
            page.wait_for_function(_KERNEL_IDLE, arg=panel_id, timeout=240_000, polling=250)
        try:
            yield lab
        finally:
            context.close()


def _expose_the_app(route) -> None:
    """Serve the site's jupyter-lite.json with `exposeAppInBrowser`, so the test can call
    JupyterLab's commands (`window.jupyterapp`); nothing else of the site changes."""
    response = route.fetch()
    config = response.json()
    config.setdefault("jupyter-config-data", {})["exposeAppInBrowser"] = "true"
    route.fulfill(response=response, json=config)


def _screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"lite-{name}.png"))


@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", LESSON)
def test_every_cell_runs_offline_and_only_cells_needing_numpy_or_matplotlib_fail(
    lite_lab: LiteLab, name: str
) -> None:
    cells = lite_lab.run(name)
    _screenshot(lite_lab.page, name.removesuffix(".ipynb").replace("/", "-"))
    code = [c for c in cells if c.source.strip()]
    assert code, f"{name} has no code cell"
    assert [c.index for c in code if c.count is None] == [], "cells that did not run"

    failed = {c.index: c.error for c in code if c.error}
    needs_plotting = {c.index for c in code if NEEDS_PLOTTING.search(c.source)}
    assert set(failed) == needs_plotting, {i: e[-500:] for i, e in failed.items()}
    for index, error in failed.items():
        assert PLOTTING_ERROR.search(error), (
            f"cell {index} failed for another reason: {error[-800:]}"
        )
    # ... and only because the module could not be fetched: the page asked the CDN for it.
    for module in {m for e in failed.values() for m in re.findall(r"No module named '(\w+)'", e)}:
        assert lite_lab.fetched_from_the_cdn(module), (module, lite_lab.failed_requests)
        assert any(f"loading {module}" in line for line in lite_lab.console_errors), module

    shown = "\n".join(c.text for c in code)
    for text in SHOWN.get(name, []):
        assert text in shown, f"{name}: {text!r} is not on the page"
    assert "can't start new thread" not in shown  # Pyodide has no threads: tools run inline
    badges = lite_lab.panel(name).locator(".wts-explorer .wts-badge")
    for i, exit_name in enumerate(BADGES.get(name, [])):
        expect(badges.nth(i)).to_contain_text(exit_name, timeout=30_000)


@pytest.mark.timeout(600)
def test_the_explorer_runs_the_level_again_when_its_slider_moves(lite_lab: LiteLab) -> None:
    name = "1-2_the_flag.ipynb"
    lite_lab.run(name)  # nothing left to run if the notebook's own test ran it
    explorer = lite_lab.panel(name).locator(".wts-explorer").first
    expect(explorer.locator(".wts-badge")).to_contain_text("the flag", timeout=30_000)
    before = ExplorerView.read(explorer)
    move_slider(lite_lab.page, explorer, 2 - slider_value(explorer))
    expect(explorer.locator(".wts-turns")).to_contain_text("2 of 2 turns", timeout=30_000)
    expect(explorer.locator(".wts-badge")).to_contain_text("the clock", timeout=30_000)
    after = ExplorerView.read(explorer)
    explorer.evaluate("el => el.scrollIntoView({block: 'start'})")
    _screenshot(lite_lab.page, "explorer-slider")
    assert after.transcript != before.transcript and "turn 2" in after.transcript
    assert "turn 3" not in after.transcript


@pytest.mark.timeout(900)
def test_offline_the_page_asks_the_internet_only_for_the_cdn_wheels_of_the_lock(
    lite_lab: LiteLab,
) -> None:
    for name in LESSON:  # every notebook has run (by its own test, or here)
        lite_lab.run(name)
    cdn = {
        e["file_name"]
        for e in lite_lab.lock["packages"].values()
        if e["file_name"].startswith("https://")
    }
    off_site = [url for url in lite_lab.failed_requests if not url.startswith("http://127.0.0.1")]
    assert off_site, "no plot cell asked for matplotlib: is it still in a notebook?"
    assert set(off_site) <= cdn, sorted(set(off_site) - cdn)


@pytest.mark.bench
@pytest.mark.timeout(300)
def test_the_benchmarks_lite_section_runs_on_the_site_built_here(
    lite_site: Path, tmp_path: Path
) -> None:
    """`bench/run.py --quick`'s JupyterLite section (tests/test_bench.py runs the others): the
    site loads in Chromium and the section reports its size and a kernel ready, failing nothing."""
    out = tmp_path / "results.md"
    stdout = quick_bench([8], out)
    section = stdout.split("## 8. ")[1].split("## Summary")[0]
    assert "kernel ready" in section and "MB" in section, section
    assert "failed" not in stdout.split("## Summary")[1], stdout
    assert "## 8. " in out.read_text(encoding="utf-8")
