"""Each level notebook in JupyterLab, in headless Chromium, as a learner meets it: Run All, no
error box anywhere, the explorer on the page, and the max_turns slider changing what it shows;
axe-core finds no WCAG 2.2 A/AA violation in the explorer and the figures (issue 17), and 1-3's
sloppy caller shows its rejected call without scrolling the transcript (issue 15); 1-1's bill shows
its dollars as text, not maths (issue 28), in both languages, where an unescaped bill would lose
its row; at 1280×720 the castle's badge stays in view beside its tall map, and the dashboard clips
nothing in JupyterLab's narrow columns.

The notebooks are copied to a temporary folder first, so the committed ones stay output-free.
Screenshots of each explorer go to test-artifacts/ (git-ignored).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from a11ypage import axe_violations, describe_violations
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
from projectorpage import clipped, in_view, svg_words

from whentostop.lesson.classroom import notebook_file

pytestmark = [pytest.mark.browser]

EXIT_SHOWN_FIRST = {
    "1-1": "the clock",
    "1-2": "the flag",
    "1-3": "the warp pipe",
    "1-4": "the clock",
}
"""How each level's explorer ends its first run, with the notebook's own settings (the castle's
honest search is longer than the default budget of 10)."""
CASTLE_BUDGET = 20
"""A max_turns the castle's honest search fits in (sixteen rooms, then the warp pipe: 17 turns)."""
SHORT_BUDGET = 2
"""A max_turns below every level's natural length (1-2 needs 3 turns, 1-3 five): the clock."""


MATHS_CONTROL = "controls/unescaped_bill.ipynb"
"""A notebook showing a bill's two dollar amounts in a Markdown table as 1-1 once did, unescaped:
what JupyterLab makes of them (maths), so the test of 1-1's bill can tell escaped from not."""
UNESCAPED_BILL = (
    "from IPython.display import Markdown\n"
    'Markdown("| turns | USD at gpt-4o |\\n|---|---|\\n'
    '| 20 (measured) | $0.05 |\\n| 200 (projected) | $4.61 |")'
)
MATHS = "mjx-container, .MathJax, .MathJax_Preview, .katex"
"""What MathJax (JupyterLab's) or KaTeX put where they typeset maths."""
PROJECTED_ROW = {"en": "200 (projected)", "pt": "200 (projetado)"}


@pytest.fixture(scope="module")
def lesson_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder JupyterLab serves: a copy of notebooks/ as committed (in `notebooks/`), and the
    maths control."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    lesson = tmp_path_factory.mktemp("jupyterlab") / "lesson"
    committed_notebooks(lesson / "notebooks")  # not the outputs `make lab` saved
    (lesson / MATHS_CONTROL).parent.mkdir(parents=True)
    python3 = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(
        new_notebook(cells=[new_code_cell(UNESCAPED_BILL)], metadata={"kernelspec": python3}),
        lesson / MATHS_CONTROL,
    )
    return lesson


@pytest.fixture(scope="module")
def lab(jupyter_env: dict[str, str], lesson_folder: Path) -> Iterator[Lab]:
    """JupyterLab from the project's .venv, serving a copy of notebooks/ as committed."""
    base, lesson = lesson_folder.parent, lesson_folder
    jupyter = Path(sys.executable).parent / "jupyter"
    with jupyter_lab(
        jupyter, root_dir=lesson, state_dir=base, env=jupyter_env, log=base / "jupyterlab.log"
    ) as server:
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


def assert_no_accessibility_violations(page) -> None:
    """axe on our elements (the explorer, the figures) as JupyterLab shows them."""
    assert page.locator("img.wts-figure").count() >= 1, "the figures are not <img alt> yet"
    found = axe_violations(page)
    assert found == [], describe_violations(found)


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
    expect(explorer.locator(".wts-turns")).to_contain_text(
        f"{SHORT_BUDGET} of {SHORT_BUDGET} turns", timeout=15_000
    )
    expect(explorer.locator(".wts-badge")).to_contain_text("the clock", timeout=15_000)
    if before.plot:  # the plot is drawn last, just after the badge and the transcript
        expect(explorer.locator(".wts-plot img").first).not_to_have_attribute(
            "src", before.plot, timeout=15_000
        )
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
    assert_no_accessibility_violations(notebook_page)
    screenshot_explorer(notebook_page, explorer, "jupyterlab-1-1")
    before, after = shorten_to_the_clock(notebook_page, explorer)
    assert "the clock" in before.badge
    assert_everything_followed_the_slider(before, after)
    # the keyboard alone, as in Voila: JupyterLab's notebook shortcuts must not take the keys
    status = explorer.locator("[role=status]")
    for control, key in ((".wts-persona select", "ArrowDown"), (".wts-give-up input", "Space")):
        said = status.text_content()
        explorer.locator(control).focus()
        notebook_page.keyboard.press(key)
        notebook_page.wait_for_function(
            "([el, old]) => el.textContent !== old",
            arg=[status.element_handle(), said],
            timeout=15_000,
        )
    assert explorer.locator(".wts-persona select").input_value() == "sloppy"
    assert explorer.locator(".wts-give-up input").is_checked()


@pytest.mark.timeout(300)
def test_level_1_2_runs_and_a_short_budget_turns_the_flag_into_the_clock(
    notebook_page, lab: Lab
) -> None:
    explorer = run_level(notebook_page, lab, "1-2")
    assert_no_accessibility_violations(notebook_page)
    screenshot_explorer(notebook_page, explorer, "jupyterlab-1-2")
    before, after = shorten_to_the_clock(notebook_page, explorer)
    assert "the flag" in before.badge and "the clock" not in before.badge
    assert_everything_followed_the_slider(before, after)


@pytest.mark.timeout(300)
def test_level_1_3_runs_shows_the_marker_on_the_map_and_loses_it_on_the_clock(
    notebook_page, lab: Lab
) -> None:
    explorer = run_level(notebook_page, lab, "1-3")
    level_map = explorer.locator(".wts-map img").first
    level_map.wait_for(timeout=30_000)
    assert_no_accessibility_violations(notebook_page)
    screenshot_explorer(notebook_page, explorer, "jupyterlab-1-3")
    map_with_marker = level_map.get_attribute("src")
    before, after = shorten_to_the_clock(notebook_page, explorer)
    assert "the warp pipe" in before.badge
    assert "mark_star" in before.transcript
    assert_everything_followed_the_slider(before, after)
    # Stopped by the clock before mark_star: the map is redrawn without the marker.
    assert map_with_marker and map_with_marker.startswith("data:image/svg+xml")
    expect(explorer.locator(".wts-map img").first).not_to_have_attribute("src", map_with_marker)


@pytest.mark.timeout(300)
def test_level_1_4_runs_and_a_budget_sized_for_the_castle_opens_the_warp_pipe(
    notebook_page, lab: Lab
) -> None:
    explorer = run_level(notebook_page, lab, "1-4")
    explorer.locator(".wts-map img").first.wait_for(timeout=30_000)
    before = ExplorerView.read(explorer)
    map_without_marker = explorer.locator(".wts-map img").first.get_attribute("src")
    assert "the clock" in before.badge and "turn 10" in before.transcript
    move_slider(notebook_page, explorer, CASTLE_BUDGET - slider_value(explorer))
    expect(explorer.locator(".wts-badge")).to_contain_text("the warp pipe", timeout=15_000)
    expect(explorer.locator(".wts-turns")).to_contain_text(
        f"17 of {CASTLE_BUDGET} turns", timeout=15_000
    )
    expect(explorer.locator(".wts-map img").first).not_to_have_attribute("src", map_without_marker)
    assert error_outputs(notebook_page) == [], "moving the slider put an error on the page"
    screenshot_explorer(notebook_page, explorer, "jupyterlab-1-4")
    after = ExplorerView.read(explorer)
    assert "47" in after.badge and "mark_star" in after.transcript and "turn 17" in after.transcript
    assert after.plot != before.plot


def test_level_1_3_sloppy_callers_rejected_call_is_in_view_without_scrolling(
    notebook_page, lab: Lab
) -> None:
    explorer = run_level(notebook_page, lab, "1-3")
    status = explorer.locator("[role=status]")
    before = status.text_content()
    explorer.locator(".wts-persona select").select_option("sloppy")
    notebook_page.wait_for_function(
        "([el, old]) => el.textContent !== old",
        arg=[status.element_handle(), before],
        timeout=15_000,
    )
    box = explorer.locator(".wts-transcript-box")
    rejected = box.locator(".wts-call-failed")
    rejected.wait_for(timeout=15_000)
    box.scroll_into_view_if_needed()
    assert box.evaluate("el => el.scrollTop") == 0
    outer, inner = box.bounding_box(), rejected.bounding_box()
    assert (
        outer
        and inner
        and outer["y"] <= inner["y"]
        and (inner["y"] + inner["height"] <= outer["y"] + outer["height"])
    ), (outer, inner)
    screenshot_explorer(notebook_page, explorer, "jupyterlab-1-3-sloppy")


# --- the Portuguese edition (issue 11) --------------------------------------------------------


def words(message: str) -> str:
    """A library message as a Portuguese learner reads it."""
    from whentostop.i18n import _, using

    with using("pt"):
        return str(_(message))


def map_of(explorer) -> str:
    """The level map's SVG, as the page holds it (a data URI), decoded."""
    import base64

    src = explorer.locator(".wts-map img").first.get_attribute("src") or ""
    return base64.b64decode(src.split(",", 1)[1]).decode()


def run_portuguese_level(page, lab: Lab, level: str, exit_name: str):
    open_notebook(page, lab.tree(f"notebooks/pt/{notebook_file(level, 'pt')}"))
    run_all_cells(page)
    assert error_outputs(page) == []
    explorer = page.locator(".wts-explorer").first
    explorer.wait_for(timeout=30_000)
    expect(explorer.locator(".wts-badge")).to_contain_text(words(exit_name), timeout=30_000)
    return explorer


@pytest.mark.timeout(300)
def test_portuguese_1_1_shows_portuguese_badge_transcript_and_map(notebook_page, lab: Lab) -> None:
    explorer = run_portuguese_level(notebook_page, lab, "1-1", "the clock")
    view = ExplorerView.read(explorer)
    assert "Sem resposta" in view.badge and "de 10 turnos" in view.turns
    assert "turno 1" in view.transcript and "turn 1" not in view.transcript
    drawn = map_of(explorer)
    assert "Mundo 1-1: o relógio" in drawn and "buscas, nenhuma estrela" in drawn
    move_slider(notebook_page, explorer, SHORT_BUDGET - slider_value(explorer))
    expect(explorer.locator(".wts-turns")).to_contain_text(
        f"{SHORT_BUDGET} de {SHORT_BUDGET} turnos", timeout=15_000
    )
    expect(explorer.locator("[role=status]").first).to_contain_text(words("the clock"))
    screenshot_explorer(notebook_page, explorer, "jupyterlab-pt-1-1")


@pytest.mark.timeout(300)
def test_portuguese_1_3_shows_the_warp_pipe_and_its_marker_in_portuguese(
    notebook_page, lab: Lab
) -> None:
    explorer = run_portuguese_level(notebook_page, lab, "1-3", "the warp pipe")
    view = ExplorerView.read(explorer)
    assert '"block": 12' in view.badge and "de 10 turnos" in view.turns
    assert "turno 5" in view.transcript and "mark_star" in view.transcript
    drawn = map_of(explorer)
    assert "Mundo 1-3: o cano de atalho" in drawn and words("the star is marked") in drawn
    assert words("marked") in drawn
    page_text = notebook_page.locator(".jp-Notebook").inner_text()
    assert "Perguntas" in page_text and "Pontos-chave" in page_text
    screenshot_explorer(notebook_page, explorer, "jupyterlab-pt-1-3")


# --- a learner's loop that never returns (issue 26) --------------------------------------------

HUNG_LOOP = """# Exercise 1-4.b
def my_loop(post, prompt, tools, max_turns=10, stop_on=()):
    messages = [{"role": "user", "content": prompt}]
    while True:
        try:
            pass
        except:
            pass

q2.check(my_loop)"""


def hung_castle(folder: Path) -> Path:
    """Notebook 1-4 up to exercise 1-4.b, its 1-4.a solved and its 1-4.b a loop that never
    returns and swallows everything; a clock started before it, a cell after it."""
    import nbformat

    from whentostop.lesson.checks import by_tag

    source = folder / notebook_file("1-4")
    nb = nbformat.read(source, as_version=4)
    cells = []
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "exercise-1-4-b" in tags:
            break
        if cell.cell_type != "code":
            continue
        if "exercise-1-4-a" in tags:
            cell.source = by_tag("exercise-1-4-a").cell(solved=True)
        keep = (
            cell is nb.cells[next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")]
            or any(t.startswith(("scratch-", "exercise-")) for t in tags)
            or 'exercises("1-4")' in cell.source
        )
        if keep:
            cells.append(cell)
    cells += [
        nbformat.v4.new_code_cell("import time\nstarted = time.monotonic()"),
        nbformat.v4.new_code_cell(HUNG_LOOP),
        nbformat.v4.new_code_cell(
            'print(f"alive {6 * 7}: the verdict came after {time.monotonic() - started:.1f} s")'
        ),
    ]
    nb.cells = cells
    target = folder / "hung_loop.ipynb"
    nbformat.write(nb, target)
    return target


@pytest.mark.timeout(300)
def test_a_hung_learner_loop_gets_its_verdict_within_the_limit_and_the_kernel_goes_on(
    notebook_page, lab: Lab, lesson_folder: Path
) -> None:
    """A `while True` whose bare `except:` keeps everything, checked in JupyterLab: "Not yet"
    within the limit, and the next cell runs in the same kernel."""
    import re

    from whentostop.lesson.checks import LIMIT_S

    hung_castle(lesson_folder / "notebooks")
    open_notebook(notebook_page, lab.tree("notebooks/hung_loop.ipynb"))
    run_all_cells(notebook_page)
    page_text = notebook_page.locator(".jp-Notebook").inner_text()
    assert "Exercise 1-4.b — Not yet" in page_text, page_text[-2000:]
    assert f"did not return within {LIMIT_S:g} s" in page_text
    came = re.search(r"alive 42: the verdict came after ([\d.]+) s", page_text)
    assert came, page_text[-2000:]
    assert float(came.group(1)) < 10.0
    assert error_outputs(notebook_page) == []
    screenshot(notebook_page, "jupyterlab-hung-loop")


# --- issue 28: 1-1's bill, the projector and the castle -----------------------------------------


def bill_table(page, language: str):
    """The bill's table in 1-1's outputs: the Markdown table holding the projected row."""
    table = page.locator(".jp-RenderedMarkdown table", has_text=PROJECTED_ROW[language])
    expect(table).to_have_count(1, timeout=30_000)
    return table


@pytest.mark.timeout(300)
def test_jupyterlab_typesets_an_unescaped_bills_dollars_as_maths(notebook_page, lab: Lab) -> None:
    """The control: a bill table whose `$` are not escaped loses its row to maths here."""
    open_notebook(notebook_page, lab.tree(MATHS_CONTROL))
    run_all_cells(notebook_page)
    shown = notebook_page.locator(".jp-RenderedMarkdown")
    expect(shown.locator(MATHS).first).to_be_attached(timeout=30_000)
    assert "$4.61" not in shown.inner_text()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("language", ["en", "pt"])
def test_1_1s_bill_shows_the_projected_rows_dollars_as_text_not_maths(
    notebook_page, lab: Lab, language: str
) -> None:
    if language == "en":
        run_level(notebook_page, lab, "1-1")
    else:
        run_portuguese_level(notebook_page, lab, "1-1", "the clock")
    table = bill_table(notebook_page, language)
    row = table.locator("tr", has_text=PROJECTED_ROW[language])
    cells = row.locator("td").all_inner_texts()
    assert table.locator(MATHS).count() == 0
    assert len(cells) == 4 and "$" in cells[2], cells  # "$4.61", "US$4,61": text, in its column
    assert cells[0].startswith(PROJECTED_ROW[language])
    row.scroll_into_view_if_needed()
    screenshot(notebook_page, f"jupyterlab-{language}-1-1-bill")


PROJECTOR = {"width": 1280, "height": 720}


@pytest.mark.timeout(300)
def test_the_castles_badge_stays_in_view_beside_its_map_on_a_1280x720_screen(
    notebook_page, lab: Lab
) -> None:
    notebook_page.set_viewport_size(PROJECTOR)
    explorer = run_level(notebook_page, lab, "1-4")
    image = explorer.locator(".wts-map img").first
    image.wait_for(timeout=30_000)
    badge = explorer.locator(".wts-badge")
    for where in ("center", "end"):  # the middle rooms, then the throne room's star block
        image.evaluate(f"el => el.scrollIntoView({{block: '{where}'}})")
        notebook_page.wait_for_timeout(300)
        assert in_view(badge), f"the badge is out of view while the map's {where} is looked at"
        assert in_view(explorer.locator(".wts-transcript-box"))
    box = image.bounding_box()
    assert box and box["height"] > PROJECTOR["height"]  # a map taller than the screen, indeed
    screenshot(notebook_page, "jupyterlab-1-4-castle-1280x720")
    assert clipped(explorer) == []


@pytest.mark.timeout(300)
def test_the_dashboard_in_jupyterlab_clips_nothing_on_a_1280x720_screen(
    notebook_page, lab: Lab
) -> None:
    """JupyterLab with its file browser open leaves each explorer a narrow column: labels such as
    "stop_on=['mark_star'] — the warp pipe" wrap there rather than end in an ellipsis."""
    notebook_page.set_viewport_size(PROJECTOR)
    open_notebook(notebook_page, lab.tree("notebooks/explorer.ipynb"))
    run_all_cells(notebook_page)
    assert error_outputs(notebook_page) == []
    dashboard = notebook_page.locator(".wts-dashboard")
    expect(dashboard.locator(".wts-explorer")).to_have_count(3, timeout=30_000)
    expect(dashboard.locator(".wts-explorer").nth(2).locator(".wts-badge")).to_contain_text(
        "the warp pipe", timeout=30_000
    )
    warp_pipe = dashboard.locator(".wts-stop-on").first
    assert warp_pipe.inner_text().strip().endswith("— the warp pipe")
    assert clipped(dashboard) == []
    assert [w.text for w in svg_words(dashboard) if not w.inside] == []
    dashboard.evaluate("el => el.scrollIntoView({block: 'start'})")
    screenshot(notebook_page, "jupyterlab-dashboard-1280x720")
