"""One figure model, two renderers (issue 33): a figure is data (`views/figure.py`), drawn with
matplotlib (`views/mplfigure.py`) or as SVG (`views/charts.py`), and its words are written from it
(`describe.py`). Both drawings of one model show the same title, series, labels, units, numbers
and text alternative; where matplotlib cannot be imported (the browser edition), the plotting
API draws SVG and says so once, in the learner's language (issue 29)."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest
from conftest import MAY_GIVE_UP

from whentostop import Run, load_level
from whentostop.views import charts, figure, mplfigure, plots
from whentostop.views.figure import Chart

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def runs(play) -> dict[str, Run]:
    return {
        "clock": play("1-1", "loopboros", max_turns=6, on_max_turns="wrap_up").run,
        "flag": play("1-1", "searcher", system=MAY_GIVE_UP).run,
    }


CHARTS: dict[str, Callable[[dict[str, Run]], Chart]] = {
    "tokens_per_turn": lambda r: figure.tokens_per_turn(r["clock"]),
    "cumulative_cost": lambda r: figure.cumulative_cost_chart(r["clock"], "gpt-4o"),
    "compare_runs": lambda r: figure.compare_runs({"no permission": r["clock"], "may give up": r["flag"]}),
}  # fmt: skip


def unescaped(text: str) -> str:
    return text.replace(r"\$", "$")


def mpl_reading(model: Chart) -> dict[str, object]:
    """What the matplotlib drawing of `model` shows: words, and the numbers of each series."""
    fig = mplfigure.chart(model, plots.WIDE)
    ax = fig.axes[0]
    data: dict[str, list[float]] = {}
    for a in fig.axes:
        for line in a.get_lines():
            if line.get_gid():
                data[line.get_gid()] = [float(v) for v in line.get_ydata()]
        for patch in a.patches:
            if patch.get_gid():
                data.setdefault(patch.get_gid(), []).append(float(patch.get_height()))
    return {
        "title": unescaped(ax.get_title(loc="left")),
        "x": ax.get_xlabel(),
        "y": ax.get_ylabel(),
        "y2": fig.axes[1].get_ylabel() if len(fig.axes) > 1 else None,
        "legend": [unescaped(t.get_text()) for t in ax.get_legend().get_texts()],
        "data": data,
        "alt": fig.alt_text,
    }


def svg_reading(model: Chart) -> dict[str, object]:
    """What the SVG drawing of `model` shows, read back from the document."""
    root = ET.fromstring(charts.chart_svg(model, 900, 460))

    def text_of(cls: str) -> str | None:
        found = [e for e in root.iter(f"{SVG}text") if e.get("class") == cls]
        return found[0].text if found else None

    data: dict[str, list[float]] = {}
    for e in root.iter(f"{SVG}rect"):
        classes = (e.get("class") or "").split()
        if classes[:1] == ["bar"]:
            data.setdefault(classes[1], []).append(float(e.get("data-value")))
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "series":
            data[g.get("data-series")] = [float(v) for v in g.get("data-values").split()]
    return {
        "title": next(e for e in root.iter(f"{SVG}text") if e.get("font-weight") == "bold").text,
        "x": text_of("axis-label x"),
        "y": text_of("axis-label y"),
        "y2": text_of("axis-label y2"),
        "legend": [
            g.find(f"{SVG}text").text for g in root.iter(f"{SVG}g") if g.get("class") == "legend"
        ],
        "data": data,
        "alt": root.find(f"{SVG}desc").text,
    }


@pytest.mark.parametrize("name", CHARTS)
def test_both_drawings_of_a_chart_show_its_title_labels_units_legend_and_words(
    name: str, runs: dict[str, Run]
) -> None:
    model = CHARTS[name](runs)
    drawn, svg = mpl_reading(model), svg_reading(model)
    for reading in (drawn, svg):
        assert reading["title"] == model.title
        assert (reading["x"], reading["y"]) == (model.x.label, model.y.label)
        assert reading["y2"] == (model.y2.label if model.y2 else None)
        assert reading["legend"] == [s.label for s in model.series]
        assert reading["alt"] == model.alt
    assert model.y.unit == "tokens" and "tokens" in model.y.label
    if model.y2 is not None:
        assert model.y2.unit == "usd" and "USD" in model.y2.label


@pytest.mark.parametrize("name", CHARTS)
def test_both_drawings_of_a_chart_draw_the_models_numbers(name: str, runs: dict[str, Run]) -> None:
    model = CHARTS[name](runs)
    drawn, svg = mpl_reading(model)["data"], svg_reading(model)["data"]
    for series in model.series:
        assert drawn[series.key] == pytest.approx(list(series.y)), series.key
        assert svg[series.key] == pytest.approx(list(series.y)), series.key


def test_the_charts_numbers_are_the_runs(runs: dict[str, Run]) -> None:
    run = runs["clock"]
    tokens = figure.tokens_per_turn(run)
    prompt = [
        sum(s.y[i] for s in tokens.series if s.key in ("cached", "resent", "new"))
        for i in range(len(run.all_turns))
    ]
    assert prompt == [t.prompt_tokens for t in run.all_turns]
    assert tokens.wrap_up == run.all_turns[-1].index  # the notable point: the wrap-up request
    assert tokens.x.ticks[-1] == (run.all_turns[-1].index, "wrap-up")
    cumulative = figure.cumulative_cost_chart(run)
    assert cumulative.series[0].y[-1] == run.total_tokens


def test_both_drawings_of_the_level_map_show_the_same_blocks_title_and_words(play) -> None:
    run, level, _ = play("1-3", "searcher", stop_on=["mark_star"])
    view = figure.level_map(level, run)
    fig = mplfigure.level_map(view)
    texts = {t.get_gid(): t.get_text() for t in fig.axes[0].texts if t.get_gid()}
    root = ET.fromstring(charts.level_map_svg(view))
    blocks = {
        int(g.get("data-block")): g for g in root.iter(f"{SVG}g") if g.get("data-block") is not None
    }
    for _area, row in view.rows:
        for block in row:
            assert texts[f"label:{block.number}"] == block.face.label
            assert blocks[block.number].get("data-item") == (block.item or "?")
    assert fig.axes[0].get_title(loc="left").startswith(view.name)
    svg_title = "".join(
        next(e for e in root.iter(f"{SVG}text") if e.get("class") == "map-title").itertext()
    )
    assert svg_title.startswith(view.name) and view.news.split()[0] in svg_title
    assert [b.number for _a, row in view.rows for b in row if b.marker] == [12]
    assert fig.alt_text == root.find(f"{SVG}desc").text == view.alt
    assert "A marker on block 12 (castle): right, the star is there" in view.alt


def test_the_explorers_cost_view_is_drawn_from_the_same_models(runs: dict[str, Run]) -> None:
    run = runs["clock"]
    svg = charts.cost_svg(run, "gpt-4o")
    tokens, cumulative = figure.tokens_per_turn(run), figure.cumulative_cost_chart(run, "gpt-4o")
    for series in (*tokens.series, *cumulative.series):
        assert f'data-series="{series.key}"' in svg
    assert cumulative.title in svg and tokens.title in svg


WITHOUT_MATPLOTLIB = """
import json, sys
sys.modules["matplotlib"] = None   # as in the browser edition: `import matplotlib` fails
from whentostop import connect, load_level, run_agent, set_language
set_language("pt")
from whentostop.views import plots
level = load_level("1-3")
run = run_agent("Find the star.", model=connect("searcher"), tools=level.tools(), stop_on=["mark_star"])
figures = [plots.tokens_per_turn(run), plots.cumulative_cost(run), plots.compare_runs({"a": run}),
           plots.level_map(level, run)]
shown = [f._repr_mimebundle_() for f in figures]
print(json.dumps({
    "kinds": [type(f).__name__ for f in figures],
    "html": [s["text/html"] for s in shown],
    "alts": [f.alt_text for f in figures],
    "matplotlib": sys.modules.get("matplotlib") is not None,
}))
"""


def test_without_matplotlib_the_plots_draw_svg_and_say_so_once_in_the_learners_language() -> None:
    out = subprocess.run(
        [sys.executable, "-c", WITHOUT_MATPLOTLIB], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["kinds"] == ["SvgFigure"] * 4 and not result["matplotlib"]
    said = "sem o matplotlib"
    assert [said in html for html in result["html"]] == [True, False, False, False]
    for html, alt in zip(result["html"], result["alts"]):
        assert 'src="data:image/svg+xml;base64,' in html and 'class="wts-figure"' in html
        assert alt
    assert result["alts"][0].startswith("Tokens por turno")


def test_importing_the_plotting_api_loads_no_matplotlib() -> None:
    code = "import sys; from whentostop.views import plots; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_with_matplotlib_the_plotting_api_returns_a_matplotlib_figure_with_the_models_words(
    runs: dict[str, Run],
) -> None:
    from matplotlib.figure import Figure

    fig = plots.level_map(load_level("1-1"), runs["clock"])
    assert isinstance(fig, Figure)
    assert fig.alt_text == figure.level_map(load_level("1-1"), runs["clock"]).alt


def test_only_the_matplotlib_renderer_imports_matplotlib() -> None:
    """One plotting API, whatever draws it: matplotlib stays inside `views/mplfigure.py`, which
    `plots` imports only where matplotlib can be imported."""
    import re

    from conftest import ROOT

    importing = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "src" / "whentostop").rglob("*.py")
        if re.search(r"^\s*(import|from)\s+matplotlib\b", path.read_text(encoding="utf-8"), re.M)
    ]
    assert importing == ["src/whentostop/views/mplfigure.py"]
