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
        arg=explorer.locator(".wts-turns").element_handle(),
        timeout=SHOW_TIMEOUT_MS,
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
                arg=[readout.element_handle(), before_readout],
                timeout=5_000,
            )
            break
        except PlaywrightTimeout:
            continue
    page.wait_for_function(
        "([el, old]) => el.textContent.trim() !== old",
        arg=[turns.element_handle(), before_turns],
        timeout=CHANGE_TIMEOUT_MS,
    )
    page.wait_for_function(
        "([el, old]) => el.textContent.trim() !== old",
        arg=[badge.element_handle(), before_badge],
        timeout=CHANGE_TIMEOUT_MS,
    )
    after_turns = turns.inner_text().strip()
    value = readout.inner_text().strip()
    assert value != before_readout
    assert after_turns.split(" · ")[0] in (f"{value} of {value} turns", f"{value} of {value} turn")
    assert after_turns.split(" · ")[0] in badge.inner_text()
    page.wait_for_function(  # the widget replaces its <img>: look it up again inside .wts-plot
        "([el, old]) => el.querySelector('img').getAttribute('src') !== old",
        arg=[explorer.locator(".wts-plot").element_handle(), before_plot],
        timeout=CHANGE_TIMEOUT_MS,
    )
    return before_turns.split(" · ")[0], after_turns.split(" · ")[0]


def test_projector_dashboard_shows_three_explorers_without_code_and_the_slider_reruns(
    voila, page
) -> None:
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


# -- issue 20: the race between the stops, in notebook 1-1 ---------------------------------------


def race_badge_changes(page, race, control: str, key: str) -> str:
    """Press `key` on one of the race's sliders; wait for the badge to change; return it."""
    badge = race.locator(".wts-badge")
    before = badge.inner_text().strip()
    handle = race.locator(f"{control} input[type=range]")
    readout = race.locator(f"{control} output")
    shown = readout.inner_text().strip()
    for _ in range(3):  # the first key can land before the page's widgets are wired up
        handle.focus()
        handle.press(key)
        try:
            page.wait_for_function(
                "([el, old]) => el.textContent.trim() !== old",
                arg=[readout.element_handle(), shown],
                timeout=5_000,
            )
            break
        except PlaywrightTimeout:
            continue
    page.wait_for_function(
        "([el, old]) => el.textContent.trim() !== old",
        arg=[badge.element_handle(), before],
        timeout=CHANGE_TIMEOUT_MS,
    )
    return badge.inner_text().strip()


def test_the_race_in_1_1_names_the_new_winner_when_a_control_moves(voila, page) -> None:
    from a11ypage import axe_violations, describe_violations

    path = NOTEBOOKS / "1-1_the_clock.ipynb"
    page.goto(voila(path), wait_until="domcontentloaded")
    race = page.locator(".wts-race")
    race.locator(".wts-badge").wait_for(state="visible", timeout=SHOW_TIMEOUT_MS)
    page.wait_for_function(
        "el => el.textContent.includes('the budget')",
        arg=race.locator(".wts-badge").element_handle(),
        timeout=SHOW_TIMEOUT_MS,
    )
    assert "No answer after 10 of 15 turns" in race.locator(".wts-badge").inner_text()
    said = race.locator("[role=status]").text_content()
    assert said.startswith("Race on level 1-1, run 1: the budget fired first")
    chart = race.locator(".wts-plot img").get_attribute("src")
    assert "fires first" in race.locator(".wts-falls").inner_text()

    assert "the deadline" in race_badge_changes(page, race, ".wts-deadline", "Home")
    assert race.locator(".wts-deadline output").inner_text().strip() == "0.1 s"
    race_badge_changes(page, race, ".wts-deadline", "End")
    assert "the clock — No answer after 1 of 1 turn" in race_badge_changes(
        page, race, ".wts-max-turns", "Home"
    )
    page.wait_for_function(
        "([el, old]) => el.querySelector('img').getAttribute('src') !== old",
        arg=[race.locator(".wts-plot").element_handle(), chart],
        timeout=CHANGE_TIMEOUT_MS,
    )
    page.wait_for_function(
        "el => el.textContent.includes('the clock fired first')",  # the live
        arg=race.locator("[role=status]").element_handle(),  # region is set last
        timeout=CHANGE_TIMEOUT_MS,
    )
    alt = race.locator(".wts-plot img").get_attribute("alt")
    assert alt.startswith("The race between the stops") and "max_turns=1" in alt
    found = axe_violations(page, [".wts-race"])
    assert found == [], describe_violations(found)
    race.scroll_into_view_if_needed()
    screenshot(page, "voila-1-1-race")


# -- issue 16: a small real model's runs, through the explorer, against the replay server --------


def test_against_a_replayed_small_model_the_badge_tells_a_text_call_and_a_wrong_marker_apart(
    jupyter_env,
    tmp_path,
    page,
) -> None:
    """Voila serves two explorers whose model is the replay of a small local model
    (tests/replay_server.py as OPENAI_BASE_URL): press Run on each, and the badges say what the
    runs were — not the flag's or the pipe's clean answer."""

    import nbformat
    from a11ypage import axe_violations, describe_violations
    from conftest import free_port, running, voila_command
    from nbformat.v4 import new_code_cell, new_notebook
    from replay_server import ReplayServer

    notebook = tmp_path / "replayed.ipynb"
    nbformat.write(
        new_notebook(
            cells=[
                new_code_cell(
                    "from whentostop import connect\nfrom whentostop.views.widgets import explorer"
                ),
                new_code_cell('explorer("1-2", model=connect("replay:fenced"))'),
                new_code_cell('explorer("1-3", model=connect("replay:guess-pipe"))'),
            ]
        ),
        notebook,
    )
    with ReplayServer() as server:
        env = {
            **jupyter_env,
            "OPENAI_BASE_URL": server.base_url,
            "WHENTOSTOP_MODEL": "qwen2.5-0.5b",
        }
        port = free_port()
        with running(
            voila_command(port, notebook),
            url=f"http://127.0.0.1:{port}/voila/static/voila.js",
            env=env,
            cwd=tmp_path,
            log=tmp_path / "voila.log",
        ):
            page.goto(f"http://127.0.0.1:{port}/", wait_until="domcontentloaded")
            explorers = page.locator(".wts-explorer")
            explorers.nth(1).locator(".wts-badge").wait_for(
                state="visible", timeout=SHOW_TIMEOUT_MS
            )
            badges = []
            for i in range(2):
                explorer = explorers.nth(i)
                badge = explorer.locator(".wts-badge")
                page.wait_for_function(
                    "el => el.textContent.includes('press Run')",
                    arg=badge.element_handle(),
                    timeout=SHOW_TIMEOUT_MS,
                )
                explorer.locator("button.wts-run").click()
                page.wait_for_function(  # the live region is set last, after badge and verdict
                    "el => !el.textContent.includes('press Run')",
                    arg=explorer.locator("[role=status]").element_handle(),
                    timeout=CHANGE_TIMEOUT_MS,
                )
                badges.append(badge.inner_text())
            fenced, guessed = badges
            assert "the flag — but the model wrote a tool call as text, not an answer" in fenced
            assert "the warp pipe — validated, but the wrong block (1 of 10 turns)" in guessed
            transcript = explorers.nth(0).locator(".wts-transcript-box")
            assert transcript.locator(".wts-warning").count() == 1
            assert "--jinja" in transcript.locator(".wts-warning").inner_text()
            verdict = explorers.nth(1).locator(".wts-verdict").inner_text()
            assert "Wrong: the marker is on block 4" in verdict
            said = explorers.nth(1).locator("[role=status]").text_content()
            assert "validated, but the wrong block" in said
            found = axe_violations(page, [".wts-explorer"])
            assert found == [], describe_violations(found)
            screenshot(page, "voila-replayed-small-model")
        assert len(server.requests) >= 2  # the runs really went to the replayed model
