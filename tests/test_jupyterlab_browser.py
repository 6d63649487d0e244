"""Each level notebook in JupyterLab, in headless Chromium, as a learner meets it: Run All, no
error box anywhere, the explorer on the page, and the max_turns slider changing what it shows.

The notebooks are copied to a temporary folder first, so the committed ones stay output-free.
Screenshots of each explorer go to test-artifacts/ (git-ignored).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import committed_notebooks, screenshot
from labpage import (
    ExplorerView,
    Lab,
    code_cells_run,
    error_outputs,
    jupyter_lab,
    move_slider,
    open_notebook,
    run_all_cells,
    slider_value,
)
from playwright.sync_api import expect

from whentostop.classroom import notebook_file

pytestmark = [pytest.mark.browser]

EXIT_SHOWN_FIRST = {"1-1": "the clock", "1-2": "the flag", "1-3": "the warp pipe"}
"""How each level's explorer ends its first run, with the notebook's own settings."""
SHORT_BUDGET = 2
"""A max_turns below every level's natural length (1-2 needs 3 turns, 1-3 five): the clock."""


@pytest.fixture(scope="module")
def lab(jupyter_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """JupyterLab from the project's .venv, serving a copy of notebooks/ as committed."""
    base = tmp_path_factory.mktemp("jupyterlab")
    lesson = base / "lesson"
    committed_notebooks(lesson / "notebooks")  # not the outputs `make lab` saved
    jupyter = Path(sys.executable).parent / "jupyter"
    with jupyter_lab(jupyter, root_dir=lesson, state_dir=base, env=jupyter_env,
                     log=base / "jupyterlab.log") as server:
        yield server


@pytest.fixture
def notebook_page(lab: Lab, page) -> Iterator[object]:
    """The page, with every kernel stopped after the test (they cost ~110 MB each)."""
    yield page
    lab.shutdown_kernels()


def run_level(page, lab: Lab, level: str):
    """Open the level's notebook, Run All, check no error is shown; return its explorer."""
    open_notebook(page, lab.tree(f"notebooks/{notebook_file(level)}"))
    run_all_cells(page)
    assert error_outputs(page) == []
    assert code_cells_run(page) > 0
    explorer = page.locator(".wts-explorer").first
    explorer.wait_for(timeout=30_000)
    expect(explorer.locator(".wts-badge")).to_contain_text(EXIT_SHOWN_FIRST[level], timeout=30_000)
    return explorer


def screenshot_explorer(page, explorer, name: str) -> None:
    """Keep a picture of the whole explorer, top first, as the learner scrolls to it."""
    page.set_viewport_size({"width": 1400, "height": 1800})
    explorer.evaluate("el => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    screenshot(page, name)


def shorten_to_the_clock(page, explorer) -> tuple[ExplorerView, ExplorerView]:
    """Move max_turns down to SHORT_BUDGET; return what the explorer showed before and after."""
    before = ExplorerView.read(explorer)
    move_slider(page, explorer, SHORT_BUDGET - slider_value(explorer))
    expect(explorer.locator(".wts-turns")).to_have_text(f"{SHORT_BUDGET} turns", timeout=15_000)
    expect(explorer.locator(".wts-badge")).to_contain_text("the clock", timeout=15_000)
    if before.plot:  # the plot is drawn last, just after the badge and the transcript
        expect(explorer.locator(".wts-plot img").first).not_to_have_attribute(
            "src", before.plot, timeout=15_000)
    assert error_outputs(page) == [], "moving the slider put an error on the page"
    return before, ExplorerView.read(explorer)


def assert_everything_followed_the_slider(before: ExplorerView, after: ExplorerView) -> None:
    """The badge, turns line, transcript and plot all show the new, shorter run."""
    assert after.badge != before.badge
    assert after.turns != before.turns
    assert after.transcript != before.transcript
    assert f"turn {SHORT_BUDGET}" in after.transcript
    assert f"turn {SHORT_BUDGET + 1}" not in after.transcript
    assert before.plot and after.plot and before.plot.startswith("data:image/svg+xml")
    assert after.plot != before.plot


@pytest.mark.timeout(300)
def test_level_1_1_runs_and_its_slider_moves_the_clock(notebook_page, lab: Lab) -> None:
    explorer = run_level(notebook_page, lab, "1-1")
    screenshot_explorer(notebook_page, explorer, "jupyterlab-1-1")
    before, after = shorten_to_the_clock(notebook_page, explorer)
    assert "the clock" in before.badge
    assert_everything_followed_the_slider(before, after)


@pytest.mark.timeout(300)
def test_level_1_2_runs_and_a_short_budget_turns_the_flag_into_the_clock(notebook_page, lab: Lab) -> None:
    explorer = run_level(notebook_page, lab, "1-2")
    screenshot_explorer(notebook_page, explorer, "jupyterlab-1-2")
    before, after = shorten_to_the_clock(notebook_page, explorer)
    assert "the flag" in before.badge and "the clock" not in before.badge
    assert_everything_followed_the_slider(before, after)


@pytest.mark.timeout(300)
def test_level_1_3_runs_shows_the_marker_on_the_map_and_loses_it_on_the_clock(notebook_page, lab: Lab) -> None:
    explorer = run_level(notebook_page, lab, "1-3")
    level_map = explorer.locator(".wts-map img").first
    level_map.wait_for(timeout=30_000)
    screenshot_explorer(notebook_page, explorer, "jupyterlab-1-3")
    map_with_marker = level_map.get_attribute("src")
    before, after = shorten_to_the_clock(notebook_page, explorer)
    assert "the warp pipe" in before.badge
    assert "mark_star" in before.transcript
    assert_everything_followed_the_slider(before, after)
    # Stopped by the clock before mark_star: the map is redrawn without the marker.
    assert map_with_marker and map_with_marker.startswith("data:image/svg+xml")
    expect(explorer.locator(".wts-map img").first).not_to_have_attribute("src", map_with_marker)
