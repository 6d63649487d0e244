"""The lesson in the browser, offline: the JupyterLite site `make lite` builds (lite/build.py),
served on 127.0.0.1 by lite/serve.py, every notebook of both editions opened in one headless
Chromium page and run with *Run All*, as a learner does.

The page reaches 127.0.0.1 only, like a learner without internet, and no request may leave the
site: the lesson runs on the in-process mock, in Pyodide, and its figures are drawn as SVG (no
matplotlib, which would come from a CDN). Run All must reach the last cell of every notebook with
no error output and every figure drawn; opening a notebook must not mark it changed; the first
cell says that Python is starting. What a learner reads — the exits, the answers, the explorers,
a slider move — is read off the page.

Time: the kernels of all twelve notebooks start together in one page (a Pyodide kernel takes
~12 s to start here alone); the notebooks then run one after the other, each once.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import ARTIFACTS, NOTEBOOKS, ROOT, free_port, loopback_context, quick_bench, running
from labpage import ExplorerView, move_slider, slider_value
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = sorted(str(p.relative_to(NOTEBOOKS)) for p in NOTEBOOKS.rglob("*.ipynb"))
"""Every notebook the site serves (lite/build.py copies notebooks/ whole): both editions."""
FIGURE_CELL = re.compile(r"^plots\.\w+\(", re.MULTILINE)
"""A cell that shows a figure: its last expression is a call to the plotting API."""
SHOWN = {
    "00_start_here.ipynb": ["end_turn (the flag) after 3/10 turns", "Not attempted yet"],
    "1-1_the_clock.ipynb": [
        "max_turns (the clock) after 10/10 turns",
        "NoAnswer: ",
        "deadline (",
        "ratio ",
        "fit: ",
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
    "pt/1-1_o_relogio.ipynb": [
        "max_turns (o relógio) depois de 10/10 turnos",
        "razão ",
        "ajuste: ",
    ],
    "pt/1-3_o_cano_de_atalho.ipynb": [
        "terminal_tool (o cano de atalho) depois de 5/10 turnos",
        "{'item': 'star', 'block': 12}",
        "Ainda não tentado",
    ],
}
"""What a learner reads in each notebook's outputs (runs on the offline mock, as in JupyterLab);
1-1's "ratio" and "fit" lines ("razão", "ajuste") are the long run's numbers, computed without
numpy."""
BADGES = {
    "00_start_here.ipynb": ["the flag"],
    "1-1_the_clock.ipynb": ["the clock"],
    "1-2_the_flag.ipynb": ["the flag"],
    "1-3_the_warp_pipe.ipynb": ["the warp pipe"],
    "pt/1-3_o_cano_de_atalho.ipynb": ["o cano de atalho"],
    "explorer.ipynb": ["the clock", "the flag", "the warp pipe"],
    "pt/painel.ipynb": ["o relógio", "a bandeira", "o cano de atalho"],
}
"""The exit badge of each explorer on the page, in order, after its first run."""
SAID = {
    "en": ("Python is starting in your browser", "drawn without matplotlib"),
    "pt": ("O Python está iniciando no seu navegador", "sem o matplotlib"),
}
"""The first cell's notice, and the words of the first figure drawn as SVG, by edition."""

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
_PANEL = "[...window.jupyterapp.shell.widgets('main')].find(w => w.id === id)"
_KERNEL_IDLE = f"""(id) => {{
  const kernel = {_PANEL}?.sessionContext?.session?.kernel;
  return !!kernel && kernel.status === 'idle';
}}"""
_DIRTY = f"(id) => {_PANEL}.context.model.dirty"
# Run All, once: the command resolves when the last cell has run (or the run stopped).
_RUN_ALL = f"""async ([id, timeoutMs]) => {{
  const app = window.jupyterapp;
  const panel = {_PANEL};
  app.shell.activateById(id);
  while (app.shell.currentWidget !== panel) await new Promise(r => setTimeout(r, 50));
  const ran = app.commands.execute('notebook:run-all-cells');
  const late = new Promise(r => setTimeout(() => r('late'), timeoutMs));
  return (await Promise.race([ran, late])) !== 'late';
}}"""
_CELLS = f"""(id) => {{
  const panel = {_PANEL};
  return panel.content.widgets.filter(c => c.model.type === 'code').map((cell, index) => ({{
    index,
    source: cell.model.sharedModel.getSource(),
    count: cell.model.executionCount,
    error: [...cell.node.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
      .map(e => e.textContent).join('\\n'),
    text: [...cell.node.querySelectorAll('.jp-OutputArea-output')].map(e => e.textContent).join('\\n'),
    figures: [...cell.node.querySelectorAll('.jp-OutputArea-output img.wts-figure')]
      .map(img => ({{alt: img.getAttribute('alt'), svg: img.src.startsWith('data:image/svg+xml')}})),
  }}));
}}"""
_PROGRESS = f"""(id) => {{
  const item = {_PANEL}.node.querySelector('[data-jp-item-name="executionProgress"]');
  return item ? item.textContent : '';
}}"""


@dataclass
class Cell:
    """A code cell as the page shows it after the run."""

    index: int
    source: str
    count: int | None
    error: str
    text: str
    figures: list[dict]


@dataclass
class LiteLab:
    """One page of the site with every notebook of the lesson open, each with its own kernel."""

    page: object
    origin: str
    panels: dict[str, str]
    """Notebook path -> the id of its panel in the page."""
    dirty_on_open: dict[str, bool] = field(default_factory=dict)
    """Notebook path -> whether it was marked changed once its kernel was ready, before any run."""
    requests: list[str] = field(default_factory=list)
    """Every URL the page, its workers and its service worker asked for."""
    ran: dict[str, list[Cell]] = field(default_factory=dict)

    def panel(self, name: str):
        return self.page.locator(f"[id='{self.panels[name]}']")

    def show(self, name: str) -> None:
        """Bring the notebook's tab to the front, as a learner clicking it does."""
        self.page.evaluate("(id) => window.jupyterapp.shell.activateById(id)", self.panels[name])

    def run(self, name: str) -> list[Cell]:
        """Run All, once (a second call returns what the first run showed, its tab in front)."""
        self.show(name)
        if name not in self.ran:
            done = self.page.evaluate(_RUN_ALL, [self.panels[name], 300_000])
            assert done, f"{name}: Run All did not finish in 300 s"
            self.ran[name] = [Cell(**c) for c in self.page.evaluate(_CELLS, self.panels[name])]
        return self.ran[name]

    def off_site(self) -> list[str]:
        """The requests that went anywhere but the site."""
        return [
            url
            for url in self.requests
            if not url.startswith((self.origin + "/", "data:", "blob:"))
        ]


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
    origin = f"http://127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("lite-serve") / "serve.log"
    cmd = [
        sys.executable,
        str(ROOT / "lite" / "serve.py"),
        str(lite_site),
        f"--port={port}",
        "--quiet",
    ]
    with running(cmd, url=f"{origin}/index.html", env=jupyter_env, log=log):
        context = loopback_context(chromium)
        lab = LiteLab(None, origin, {})
        context.on("request", lambda r: lab.requests.append(r.url))  # workers' requests too
        page = context.new_page()
        lab.page = page
        page.set_default_timeout(60_000)
        page.route("**/jupyter-lite.json", _expose_the_app)
        page.goto(f"{origin}/lab/index.html", wait_until="domcontentloaded")
        page.wait_for_function("() => window.jupyterapp?.shell", timeout=60_000)
        ids = page.evaluate(_OPEN, LESSON)
        lab.panels = dict(zip(LESSON, ids))
        for name, panel_id in lab.panels.items():  # the kernels start together, from the site
            page.wait_for_function(_KERNEL_IDLE, arg=panel_id, timeout=600_000, polling=250)
            lab.dirty_on_open[name] = page.evaluate(_DIRTY, panel_id)
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


def _edition(name: str) -> str:
    return "pt" if name.startswith("pt/") else "en"


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("name", LESSON)
def test_run_all_reaches_the_last_cell_offline_with_no_error_and_every_figure_drawn(
    lite_lab: LiteLab, name: str
) -> None:
    cells = lite_lab.run(name)
    code = [c for c in cells if c.source.strip()]
    assert code, f"{name} has no code cell"
    assert [c.index for c in code if c.count is None] == [], "cells Run All did not reach"
    assert {c.index: c.error[-800:] for c in code if c.error} == {}, "error output"

    figures = [f for c in code for f in c.figures]
    assert len(figures) == sum(1 for c in code if FIGURE_CELL.search(c.source)), name
    assert all(f["svg"] and len(f["alt"]) > 60 for f in figures), figures
    if figures:  # the screenshot shows the first figure, as the learner sees it
        lite_lab.panel(name).locator("img.wts-figure").first.scroll_into_view_if_needed()
    _screenshot(lite_lab.page, name.removesuffix(".ipynb").replace("/", "-"))
    shown = "\n".join(c.text for c in code)
    notice, without_matplotlib = SAID[_edition(name)]
    assert shown.count(without_matplotlib) == (1 if figures else 0)  # once per kernel
    for text in SHOWN.get(name, []):
        assert text in shown, f"{name}: {text!r} is not on the page"
    assert "can't start new thread" not in shown  # Pyodide has no threads: tools run inline
    badges = lite_lab.panel(name).locator(".wts-explorer .wts-badge")
    for i, exit_name in enumerate(BADGES.get(name, [])):
        expect(badges.nth(i)).to_contain_text(exit_name, timeout=30_000)
    # The toolbar's execution indicator ends the run idle, with every cell counted.
    progress = lite_lab.page.evaluate(_PROGRESS, lite_lab.panels[name])
    assert "Idle" in progress and "Busy" not in progress, progress
    assert re.search(rf"Executed {len(code)} cells?", progress), progress


@pytest.mark.timeout(600)
def test_each_notebook_opens_unchanged_with_a_first_cell_saying_python_is_starting(
    lite_lab: LiteLab,
) -> None:
    assert [name for name, dirty in lite_lab.dirty_on_open.items() if dirty] == []
    for name in LESSON:
        first = lite_lab.panel(name).locator(".jp-Cell").first
        expect(first).to_contain_text(SAID[_edition(name)][0])
        assert re.search(r"about \d+ s|cerca de \d+ s", first.text_content()), name


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


@pytest.mark.timeout(1800)
def test_no_request_leaves_the_site(lite_lab: LiteLab) -> None:
    for name in LESSON:  # every notebook has run (by its own test, or here)
        lite_lab.run(name)
    assert any(urlsplit(u).path.endswith(".whl") for u in lite_lab.requests)  # we saw the worker
    assert lite_lab.off_site() == []


_RESET = """async (path) => {
  const contents = window.jupyterapp.serviceManager.contents;
  const source = async () => {
    const cell = (await contents.get(path, {content: true})).content.cells[1].source;
    return Array.isArray(cell) ? cell.join('') : cell;
  };
  const original = await source();
  const model = (await contents.get(path, {content: true})).content;
  model.cells[1].source = 'my own notes';
  await contents.save(path, {type: 'notebook', format: 'json', content: model});
  const edited = await source();
  await contents.delete(path);   // what the file browser's Delete does
  return {original, edited, back: await source()};
}"""


@pytest.mark.timeout(600)
def test_deleting_a_notebook_in_the_file_browser_brings_the_original_back(
    lite_lab: LiteLab,
) -> None:
    """The README's reset: the learner's saved copy lives in the browser; deleting it shows the
    site's own notebook again."""
    path = "pt/1-4_o_castelo.ipynb"  # no other test reads this one's cells after this
    panel = lite_lab.panels.pop(path, None)
    if panel is not None:  # closed unsaved, so that no autosave writes it back
        lite_lab.page.evaluate(
            f"(id) => {{ const p = {_PANEL}; p.context.model.dirty = false; p.dispose(); }}", panel
        )
    seen = lite_lab.page.evaluate(_RESET, path)
    assert seen["edited"] == "my own notes"
    assert seen["back"] == seen["original"] and seen["original"].startswith("#")


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
