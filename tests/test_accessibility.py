"""Every learner can use the explorer and the figures (issue 17), and the projector dashboard fits
a projector (issue 15), in Voila and headless Chromium:

- axe-core finds no WCAG 2.2 A/AA violation in our elements: the dashboard, and each level's
  explorer and figures;
- a keyboard alone moves the slider, changes the model and toggles a switch, each with a visible
  focus ring, and the live region's announcement changes each time;
- at 1280×720 and 1920×1080 every badge and cost chart of the dashboard is on screen at once,
  with no gap under the 1-3 map;
- switching 1-3 to the sloppy caller shows its rejected call inside the transcript box, unscrolled;
- on a 1280×720 projector (issue 28), in both languages: the explorers' text is 18 px or more,
  the charts' ticks 12 px or more as drawn, nothing is cut off by its box, and the 1-3 map is
  seen whole under its badge, which stays in view while the map is looked at;
- the system prompt field is disabled (and says so) until giving up is allowed.

One Voila server serves the notebooks folder; each notebook's page is opened once per module and
the tests read it in order (the keyboard test, which changes the runs, comes last).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from a11ypage import axe_violations, describe_violations, focus_ring, tab_to
from conftest import NOTEBOOKS, free_port, loopback_context, running, screenshot, voila_command
from playwright.sync_api import expect
from projectorpage import clipped, in_view, svg_words, text_sizes

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SHOW_TIMEOUT_MS = 120_000
CHANGE_TIMEOUT_MS = 30_000
PROJECTORS = [(1280, 720), (1920, 1080)]
LEVEL_NOTEBOOKS = {
    "1-1": "1-1_the_clock.ipynb",
    "1-2": "1-2_the_flag.ipynb",
    "1-3": "1-3_the_warp_pipe.ipynb",
}


@pytest.fixture(scope="module")
def voila_url(
    jupyter_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """Voila serving notebooks/ on a free loopback port; pages at /voila/render/NAME."""
    port, log = free_port(), tmp_path_factory.mktemp("voila") / "voila.log"
    with running(
        voila_command(port, NOTEBOOKS, cull_idle_timeout_s=60),
        url=f"http://127.0.0.1:{port}/voila/static/voila.js",
        env=jupyter_env,
        cwd=NOTEBOOKS,
        log=log,
        start_timeout_s=90,
    ):
        yield f"http://127.0.0.1:{port}/voila/render/"


@pytest.fixture(scope="module")
def pages(chromium, voila_url: str) -> Iterator[dict[str, object]]:
    """Each notebook's Voila page, opened on first use and kept for the module's tests."""
    opened: dict[str, object] = {}
    contexts = []

    def open_page(notebook: str, width: int = 1280, height: int = 720):
        if notebook not in opened:
            context = loopback_context(chromium)
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.set_viewport_size({"width": width, "height": height})
            page.goto(voila_url + notebook, wait_until="domcontentloaded")
            shown = page.locator(".wts-explorer .wts-status [role=status]")
            shown.last.wait_for(state="attached", timeout=SHOW_TIMEOUT_MS)
            page.wait_for_function(
                "() => [...document.querySelectorAll('.wts-plot img')].length > 0 && "
                "[...document.querySelectorAll('[role=status]')].every(e => e.textContent)",
                timeout=SHOW_TIMEOUT_MS,
            )
            opened[notebook] = page
        return opened[notebook]

    yield open_page  # type: ignore[misc]
    for context in contexts:
        context.close()


def announcement(explorer) -> str:
    return explorer.locator("[role=status]").text_content() or ""


def wait_for_new_announcement(page, explorer, before: str) -> str:
    page.wait_for_function(
        "([el, old]) => el.textContent && el.textContent !== old",
        arg=[explorer.locator("[role=status]").element_handle(), before],
        timeout=CHANGE_TIMEOUT_MS,
    )
    return announcement(explorer)


# -- axe: no violations in our elements --------------------------------------------------------


def test_the_dashboard_has_no_accessibility_violations_in_our_elements(pages) -> None:
    page = pages("explorer.ipynb")
    found = axe_violations(page)
    assert found == [], describe_violations(found)


@pytest.mark.parametrize("level", list(LEVEL_NOTEBOOKS))
def test_each_levels_explorer_and_figures_have_no_accessibility_violations(pages, level) -> None:
    path = NOTEBOOKS / LEVEL_NOTEBOOKS[level]
    if not Path(path).exists():
        pytest.skip(f"{path.name} does not exist")
    page = pages(LEVEL_NOTEBOOKS[level], 1400, 1000)
    figures = page.locator("img.wts-figure")
    assert figures.count() >= 1, "the notebook's figures are not <img alt> yet"
    for alt in figures.evaluate_all("els => els.map(e => e.alt)"):
        assert len(alt) > 40, alt  # computed from the run, not "figure"
    found = axe_violations(page)
    assert found == [], describe_violations(found)


# -- issue 15: the projector ---------------------------------------------------------------------


@pytest.mark.parametrize("width, height", PROJECTORS)
def test_the_dashboard_shows_every_badge_and_cost_chart_at_once(pages, width, height) -> None:
    page = pages("explorer.ipynb")
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(500)
    explorers = page.locator(".wts-explorer")
    assert explorers.count() == 3
    for i in range(3):
        for part in (".wts-badge", ".wts-plot img"):
            box = explorers.nth(i).locator(part).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (
                f"explorer {i + 1}'s {part} is not fully on a {width}×{height} screen: {box}"
            )
            assert box["x"] >= 0 and box["x"] + box["width"] <= width
    level_map = explorers.nth(2).locator(".wts-map")
    pane, image = level_map.bounding_box(), level_map.locator("img").bounding_box()
    assert pane and image and pane["height"] - image["height"] < 12, (pane, image)
    screenshot(page, f"voila-dashboard-{width}x{height}")


def test_switching_to_the_sloppy_caller_shows_its_rejected_call_without_scrolling(pages) -> None:
    page = pages(LEVEL_NOTEBOOKS["1-3"], 1400, 1000)
    explorer = page.locator(".wts-explorer").last
    before = announcement(explorer)
    explorer.locator(".wts-persona select").select_option("sloppy")
    wait_for_new_announcement(page, explorer, before)
    box = explorer.locator(".wts-transcript-box")
    rejected = box.locator(".wts-call-failed")
    rejected.wait_for(timeout=CHANGE_TIMEOUT_MS)
    assert box.evaluate("el => el.scrollTop") == 0
    outer, inner = box.bounding_box(), rejected.bounding_box()
    assert (
        outer
        and inner
        and outer["y"] <= inner["y"]
        and (inner["y"] + inner["height"] <= outer["y"] + outer["height"])
    ), (outer, inner)
    explorer.scroll_into_view_if_needed()
    screenshot(page, "voila-1-3-sloppy-transcript")


# -- issue 28: the projector at 1280×720, read from the back of the room ---------------------------

DASHBOARDS = {"en": "explorer.ipynb", "pt": "pt/painel.ipynb"}
BODY_PX = 18
"""The explorers' text on a projector: readable from the back of a room."""
TICK_PX = 12
"""The charts' tick labels (and the map's block captions), as drawn on the screen."""


def on_the_projector(pages, language: str):
    """The dashboard in `language` on a 1280×720 screen, scrolled to its top."""
    page = pages(DASHBOARDS[language])
    page.set_viewport_size({"width": 1280, "height": 720})
    page.locator(".wts-explorer").first.evaluate("el => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    return page


@pytest.mark.parametrize("language", DASHBOARDS)
def test_on_a_1280x720_projector_the_explorers_text_is_at_least_18_px(pages, language) -> None:
    page = on_the_projector(pages, language)
    explorers = page.locator(".wts-explorer")
    sizes = [size for i in range(explorers.count()) for size in text_sizes(explorers.nth(i))]
    read = " ".join(text for _px, text in sizes)
    for part in ("max_turns", "10 of 10 turns" if language == "en" else "10 de 10 turnos"):
        assert part in read  # the labels and the turns line are among the texts measured
    for selector in (".wts-pill", ".wts-transcript-box summary", ".wts-persona label"):
        assert explorers.first.locator(selector).first.inner_text().strip()[:20] in read
    small = [(px, text) for px, text in sizes if px < BODY_PX]
    assert small == [], f"text under {BODY_PX} px on the projector: {small}"


@pytest.mark.parametrize("language", DASHBOARDS)
def test_on_a_1280x720_projector_the_charts_ticks_are_at_least_12_px_as_drawn(
    pages, language
) -> None:
    page = on_the_projector(pages, language)
    words = svg_words(page.locator(".wts-dashboard"))
    ticks = [w for w in words if w.view == "chart" and w.kind == "tick"]
    captions = [w for w in words if w.view == "map" and w.kind == "caption"]
    assert len(ticks) >= 3 * 2 * 4 and len(captions) >= 13  # three charts' x and y; 1-3's blocks
    small = [(round(w.px, 1), w.text) for w in ticks + captions if w.px < TICK_PX]
    assert small == [], f"under {TICK_PX} px as drawn at 1280×720: {small}"


@pytest.mark.parametrize("language", DASHBOARDS)
def test_on_a_1280x720_projector_nothing_in_the_dashboard_is_cut_off(pages, language) -> None:
    page = on_the_projector(pages, language)
    dashboard = page.locator(".wts-dashboard")
    assert clipped(dashboard) == []
    words = svg_words(dashboard)
    assert len(words) > 50
    assert [(w.view, w.text) for w in words if not w.inside] == []
    box = dashboard.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 1280


@pytest.mark.parametrize("language", DASHBOARDS)
def test_on_a_1280x720_projector_the_1_3_map_is_seen_whole_under_its_badge(pages, language) -> None:
    page = on_the_projector(pages, language)
    explorer = page.locator(".wts-explorer").nth(2)
    image = explorer.locator(".wts-map img")
    image.evaluate("el => el.scrollIntoView({block: 'end'})")
    page.wait_for_timeout(300)
    ending = explorer.locator(".wts-ending")
    assert in_view(explorer.locator(".wts-badge")), "the badge scrolled away with the map"
    drawn, above = image.bounding_box(), ending.bounding_box()
    assert drawn and above
    assert drawn["y"] >= above["y"] + above["height"] - 1, (drawn, above)  # not under the badge
    assert drawn["y"] + drawn["height"] <= 720 + 1, drawn  # and not cut off at the bottom
    screenshot(page, f"voila-dashboard-1280x720-map-{language}")


# -- issue 28: the system prompt is used only when giving up is allowed ---------------------------


def test_the_system_prompt_field_is_disabled_until_giving_up_is_allowed(pages) -> None:
    page = pages(LEVEL_NOTEBOOKS["1-1"], 1400, 1000)
    explorer = page.locator(".wts-explorer").last
    field = explorer.get_by_role("textbox", name="system prompt")
    switch = explorer.get_by_role("checkbox", name="allow giving up (system prompt)")
    assert not switch.is_checked()
    assert field.is_disabled()  # announced as unavailable, and looks it:
    looks = "el => [getComputedStyle(el).backgroundColor, getComputedStyle(el).borderStyle]"
    off = field.evaluate(looks)
    before = announcement(explorer)
    switch.check()
    wait_for_new_announcement(page, explorer, before)
    expect(field).to_be_enabled(timeout=CHANGE_TIMEOUT_MS)
    on = field.evaluate(looks)
    assert off != on and off[1] == "dashed", (off, on)
    field.scroll_into_view_if_needed()
    screenshot(page, "voila-1-1-system-prompt-enabled")
    found = axe_violations(page, [".wts-explorer"])
    assert found == [], describe_violations(found)
    before = announcement(explorer)
    switch.uncheck()
    wait_for_new_announcement(page, explorer, before)
    expect(field).to_be_disabled(timeout=CHANGE_TIMEOUT_MS)


# -- the keyboard alone --------------------------------------------------------------------------


def test_the_keyboard_alone_moves_the_slider_changes_the_model_and_toggles_a_switch(pages) -> None:
    page = pages("explorer.ipynb")
    page.set_viewport_size({"width": 1280, "height": 720})
    first = page.locator(".wts-explorer").first
    said = announcement(first)
    assert said.startswith("Level 1-1, run ") and "10 of 10 turns" in said
    page.locator("body").focus()

    tab_to(page, "el => el.matches('.wts-max-turns input[type=range]')")
    assert focus_ring(page)[0] != "none" and focus_ring(page)[1] >= 2
    page.keyboard.press("ArrowLeft")
    said = wait_for_new_announcement(page, first, said)
    assert "9 of 9 turns" in said

    tab_to(page, "el => el.matches('.wts-persona select')")
    assert focus_ring(page)[0] != "none" and focus_ring(page)[1] >= 2
    page.keyboard.press("ArrowDown")  # loopboros -> sloppy
    said = wait_for_new_announcement(page, first, said)
    assert first.locator(".wts-persona select").input_value() == "sloppy"

    tab_to(page, "el => el.matches('.wts-give-up input[type=checkbox]')")
    assert focus_ring(page)[0] != "none" and focus_ring(page)[1] >= 2
    page.keyboard.press("Space")
    said = wait_for_new_announcement(page, first, said)
    assert first.locator(".wts-give-up input").is_checked()

    tab_to(page, "el => el.matches('.wts-transcript-box')")  # the transcript is reachable too
    assert focus_ring(page)[0] != "none"
    screenshot(page, "voila-dashboard-keyboard")
