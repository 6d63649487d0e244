"""The explorer as a learner or an instructor sees it: the notebook served by Voila (no code
shown), in headless Chromium; moving the `max_turns` slider with the keyboard changes the badge,
the number of turns and the cost plot on the page."""

from __future__ import annotations

import pytest
from conftest import NOTEBOOKS, screenshot
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

SHOW_TIMEOUT_MS = 120_000
"""Voila starts a kernel per page and runs the notebook before the widgets appear."""
CHANGE_TIMEOUT_MS = 60_000


def open_explorer(voila, page, notebook: str, which: int):
    path = NOTEBOOKS / notebook
    if not path.exists():
        pytest.skip(f"{path.relative_to(NOTEBOOKS.parent)} does not exist yet (being written)")
    page.goto(voila(path), wait_until="domcontentloaded")
    explorers = page.locator(".wts-explorer")
    explorer = explorers.nth(which) if which >= 0 else explorers.last
    explorer.locator(".wts-turns").wait_for(state="visible", timeout=SHOW_TIMEOUT_MS)
    page.wait_for_function(
        "el => /\\d+ of \\d+ turns?/.test(el.textContent)",
        arg=explorer.locator(".wts-turns").element_handle(), timeout=SHOW_TIMEOUT_MS,
    )
    return explorer


def move_max_turns_and_check(page, explorer) -> tuple[str, str]:
    """Move the slider to an end with the keyboard; return the turns text before and after."""
    turns, badge = explorer.locator(".wts-turns"), explorer.locator(".wts-badge")
    plot = explorer.locator(".wts-plot img")
    before_turns, before_badge = turns.inner_text().strip(), badge.inner_text().strip()
    before_plot = plot.get_attribute("src")
    assert before_plot and before_plot.startswith("data:image/svg+xml;base64,")
    readout = explorer.locator(".wts-max-turns output")
    before_readout = readout.inner_text().strip()
    handle = explorer.locator(".wts-max-turns input[type=range]")
    for _ in range(3):  # the first key can land before the page's widgets are wired up
        handle.focus()
        handle.press("End" if before_turns.startswith("1 of") else "Home")
        try:
            page.wait_for_function(
                "([el, old]) => el.textContent.trim() !== old",
                arg=[readout.element_handle(), before_readout], timeout=5_000,
            )
            break
        except PlaywrightTimeout:
            continue
    page.wait_for_function(
        "([el, old]) => el.textContent.trim() !== old",
        arg=[turns.element_handle(), before_turns], timeout=CHANGE_TIMEOUT_MS,
    )
    page.wait_for_function(
        "([el, old]) => el.textContent.trim() !== old",
        arg=[badge.element_handle(), before_badge], timeout=CHANGE_TIMEOUT_MS,
    )
    after_turns = turns.inner_text().strip()
    value = readout.inner_text().strip()
    assert value != before_readout
    assert after_turns.split(" · ")[0] in (f"{value} of {value} turns", f"{value} of {value} turn")
    assert after_turns.split(" · ")[0] in badge.inner_text()
    page.wait_for_function(  # the widget replaces its <img>: look it up again inside .wts-plot
        "([el, old]) => el.querySelector('img').getAttribute('src') !== old",
        arg=[explorer.locator(".wts-plot").element_handle(), before_plot], timeout=CHANGE_TIMEOUT_MS,
    )
    return before_turns.split(" · ")[0], after_turns.split(" · ")[0]


def test_projector_dashboard_shows_three_explorers_without_code_and_the_slider_reruns(voila, page) -> None:
    first = open_explorer(voila, page, "explorer.ipynb", 0)
    explorers = page.locator(".wts-explorer")
    assert explorers.count() == 3
    badges = [explorers.nth(i).locator(".wts-badge").inner_text() for i in range(3)]
    assert "the clock" in badges[0] and "No answer" in badges[0]
    assert "the flag" in badges[1]
    assert "the warp pipe" in badges[2]
    assert explorers.nth(2).locator(".wts-map img").count() == 1  # 1-3: the marker on the map
    assert "from whentostop" not in page.content()  # Voila hides the code
    before, after = move_max_turns_and_check(page, first)
    assert (before, after) == ("10 of 10 turns", "1 of 1 turn")
    assert "No answer after 1 of 1 turn" in first.locator(".wts-badge").inner_text()
    screenshot(page, "voila-explorer-dashboard")


def test_the_clock_notebooks_explorer_reruns_when_max_turns_moves(voila, page) -> None:
    explorer = open_explorer(voila, page, "1-1_the_clock.ipynb", -1)
    before, after = move_max_turns_and_check(page, explorer)
    assert before != after
    explorer.scroll_into_view_if_needed()
    screenshot(page, "voila-1-1-explorer")
