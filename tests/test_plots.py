"""Every plot builder on real runs of the mock: the data drawn is the run's data, and every
figure carries a title and labelled axes a projector can show."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from types import SimpleNamespace

import pytest
from conftest import MAY_GIVE_UP
from matplotlib.figure import Figure
from matplotlib.text import Text

from whentostop import Run, ToolCall, Turn, load_level
from whentostop.usage import cumulative_cost, cumulative_tokens
from whentostop.views import mplfigure, plots


@pytest.fixture(scope="module")
def loopboros(play) -> Run:
    return play("1-1", "loopboros", max_turns=25).run


def by_gid(fig: Figure, gid: str, kind: Callable[[object], list]) -> object:
    found = [artist for ax in fig.axes for artist in kind(ax) if artist.get_gid() == gid]
    assert found, f"nothing drawn with gid {gid!r}"
    return found[0]


def bars(fig: Figure, gid: str) -> list[float]:
    return [patch.get_height() for patch in fig.axes[0].patches if patch.get_gid() == gid]


def test_tokens_per_turn_grows_every_turn_of_the_loopboros(loopboros: Run) -> None:
    fig = plots.tokens_per_turn(loopboros)
    prompts = [r + n for r, n in zip(bars(fig, "resent"), bars(fig, "new"))]
    assert len(prompts) == 25
    assert all(a < b for a, b in zip(prompts, prompts[1:])), prompts


def test_tokens_per_turn_stacks_to_each_turns_prompt_and_completion(loopboros: Run) -> None:
    fig = plots.tokens_per_turn(loopboros)
    resent, new, completion = bars(fig, "resent"), bars(fig, "new"), bars(fig, "completion")
    assert [r + n for r, n in zip(resent, new)] == [t.prompt_tokens for t in loopboros.turns]
    assert completion == [t.completion_tokens for t in loopboros.turns]
    # From turn 2 on, most of each prompt is history sent again.
    assert all(r > n for r, n in zip(resent[1:], new[1:]))


def test_wrap_up_request_is_drawn_last_and_labelled(play) -> None:
    run = play("1-1", "loopboros", max_turns=4, on_max_turns="wrap_up").run
    fig = plots.tokens_per_turn(run)
    assert len(bars(fig, "resent")) == 5
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels[-1].replace("\n", "") == "wrap-up"


def test_cumulative_cost_ends_at_the_runs_total(loopboros: Run) -> None:
    fig = plots.cumulative_cost(loopboros, model="gpt-4o")
    usd = by_gid(fig, "cumulative_usd", lambda ax: ax.get_lines())
    tokens = by_gid(fig, "cumulative_tokens", lambda ax: ax.get_lines())
    assert list(usd.get_ydata())[-1] == pytest.approx(cumulative_cost(loopboros, "gpt-4o")[-1])
    assert list(tokens.get_ydata()) == cumulative_tokens(loopboros)
    assert tokens.get_ydata()[-1] == loopboros.total_tokens
    assert "gpt-4o" in fig.axes[0].get_title(loc="left")


def test_cumulative_tokens_grow_faster_than_if_every_turn_cost_like_the_first(
    loopboros: Run,
) -> None:
    fig = plots.cumulative_cost(loopboros)
    tokens = by_gid(fig, "cumulative_tokens", lambda ax: ax.get_lines()).get_ydata()
    linear = by_gid(fig, "linear_reference", lambda ax: ax.get_lines()).get_ydata()
    assert tokens[-1] > 3 * linear[-1]  # 25 turns of re-sent history: superlinear growth


def test_compare_runs_draws_one_line_per_run_with_its_exit(play) -> None:
    clock = play("1-1", "searcher").run
    flag = play("1-1", "searcher", system=MAY_GIVE_UP).run
    fig = plots.compare_runs({"no permission": clock, "may give up": flag})
    a = by_gid(fig, "run:no permission", lambda ax: ax.get_lines())
    b = by_gid(fig, "run:may give up", lambda ax: ax.get_lines())
    assert list(a.get_ydata()) == cumulative_tokens(clock) and len(a.get_xdata()) == 10
    assert list(b.get_ydata()) == cumulative_tokens(flag) and len(b.get_xdata()) == 5
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "the clock" in legend[0] and "the flag" in legend[1]


def texts(fig: Figure) -> dict[str, str]:
    return {t.get_gid(): t.get_text() for t in fig.axes[0].texts if t.get_gid()}


def test_level_map_hides_blocks_that_were_not_searched() -> None:
    fig = plots.level_map(load_level("1-3"))
    labels = texts(fig)
    assert {labels[f"label:{n}"] for n in range(1, 14)} == {"?"}
    assert "nothing searched yet" in fig.axes[0].get_title(loc="left")


def test_level_map_draws_a_marker_at_the_marked_block_and_reveals_the_star(play) -> None:
    run, level, _ = play("1-3", "searcher", stop_on=["mark_star"])
    assert run.answer == {"item": "star", "block": 12}
    fig = plots.level_map(level, run)
    marker = by_gid(fig, "marker:12", lambda ax: ax.get_lines())
    col, y = marker.get_xdata()[0], marker.get_ydata()[0]
    block = by_gid(fig, "block:12", lambda ax: ax.patches)
    assert block.get_x() < col < block.get_x() + block.get_width()
    assert block.get_y() < y < block.get_y() + block.get_height()
    labels = texts(fig)
    assert labels["label:12"] == "STAR" and "marked" in labels["number:12"]
    assert "the star is marked" in fig.axes[0].get_title(loc="left")


def test_level_map_shows_a_wrong_marker_as_wrong() -> None:
    level = load_level("1-3")
    call = ToolCall(
        id="c1",
        name="mark_star",
        arguments='{"item": "star", "block": 5}',
        input={"item": "star", "block": 5},
        output=level.mark_star("star", 5),
        ok=True,
    )
    turn = Turn(
        index=1,
        prompt_tokens=10,
        completion_tokens=5,
        latency_s=0.0,
        message={"role": "assistant", "content": None},
        tool_calls=[call],
    )
    guessed = Run(stop=None, messages=[], turns=[turn], max_turns=3)
    labels = texts(plots.level_map(level, guessed))
    assert "WRONG" in labels["number:5"]
    assert labels["label:12"] == "?"  # the star stays hidden: nobody found it


def test_level_map_reveals_the_areas_searched_on_the_empty_level(play) -> None:
    run, level, _ = play("1-1", "loopboros", max_turns=2)
    labels = texts(plots.level_map(level, run))
    assert [labels[f"label:{n}"] for n in range(1, 9)] == [
        "coin",
        "mushroom",
        "coin",
        "nothing",
        "coin",
        "coin",
        "flower",
        "nothing",
    ]
    assert labels["label:9"] == "?"  # the sky was not reached in 2 turns


@pytest.mark.parametrize(
    "build",
    [
        lambda r, lv: plots.tokens_per_turn(r),
        lambda r, lv: plots.cumulative_cost(r),
        lambda r, lv: plots.compare_runs({"a": r}),
    ],
    ids=["tokens_per_turn", "cumulative_cost", "compare_runs"],
)
def test_every_cost_plot_has_a_title_units_and_projector_fonts(build, play) -> None:
    run, level, _ = play("1-2", "searcher", tools=load_level("1-2").tools("search_blocks"))
    fig = build(run, level)
    for ax in fig.axes:
        assert ax.get_ylabel(), "unlabelled y axis"
        assert ax.yaxis.label.get_fontsize() >= 12
    main = fig.axes[0]
    assert main.get_title(loc="left")
    assert main._left_title.get_fontsize() >= 12
    assert main.get_xlabel() == "turn"
    assert "tokens" in main.get_ylabel()
    assert all(t.get_fontsize() >= 12 for t in main.get_xticklabels() + main.get_yticklabels())
    assert plots.png_bytes(fig).startswith(b"\x89PNG")


def test_plots_of_a_run_with_no_turns_say_so_instead_of_failing() -> None:
    empty = Run(stop=None, messages=[], turns=[], max_turns=5, error="unreachable")
    for fig in (plots.tokens_per_turn(empty), plots.cumulative_cost(empty)):
        assert "no turns yet" in [t.get_text() for t in fig.axes[0].texts]
        assert plots.png_bytes(fig).startswith(b"\x89PNG")


def test_a_chart_with_turn_ticks_and_nothing_drawn_yet_is_drawn_not_a_crash() -> None:
    from whentostop.views.figure import Axis, Chart

    turns = Axis("turn", "turn", ticks=((1, "1"), (2, "2")))
    model = Chart("turns", "A race not yet run", turns, Axis("tokens", "tokens"), series=())
    figure = mplfigure.chart(model, (6, 3)).figure
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["1", "2"]


def test_plots_leave_no_pyplot_figures_open(loopboros: Run) -> None:
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    plots.tokens_per_turn(loopboros)
    plots.cumulative_cost(loopboros)
    plots.level_map(load_level("1-1"), loopboros)
    assert plt.get_fignums() == before


def test_a_returned_figure_shows_as_an_image_with_alt_text_in_jupyter_without_pyplot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import IPython
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    monkeypatch.setattr(
        IPython, "get_ipython", lambda: SimpleNamespace(display_formatter=formatter)
    )
    mplfigure.show_figures_in_jupyter()
    fig = plots.level_map(load_level("1-1"))
    shown, _ = formatter.format(fig)
    assert base64.b64decode(shown["image/png"]).startswith(b"\x89PNG")
    assert f'alt="{html.escape(fig.alt_text)}"' in shown["text/html"]
    assert shown["image/png"] in shown["text/html"]  # one drawing for both
    plain, _ = formatter.format(Figure())  # any other Figure still shows as a PNG
    assert plain["image/png"].startswith(b"\x89PNG")


def test_a_dollar_in_a_levels_title_and_areas_is_drawn_as_written(tmp_path) -> None:
    """`$` starts matplotlib mathtext: unescaped, the title below is drawn garbled and the
    second area name cannot be drawn at all (a ValueError when the PNG is made)."""
    import json

    title, areas = "Pay $5, then $x^2$ more", ["$$ vault", r"cost $\notacommand$"]
    path = tmp_path / "dollars.json"
    path.write_text(
        json.dumps(
            {
                "name": "d",
                "title": title,
                "areas": {areas[0]: {"1": "coin", "2": "star"}, areas[1]: {"3": "coin"}},
            }
        ),
        encoding="utf-8",
    )
    level = load_level(path)
    search = level.tools("search_blocks")[0]
    searched = search(json.dumps({"area": areas[0]}))
    turn = Turn(
        index=1,
        prompt_tokens=10,
        completion_tokens=5,
        latency_s=0.0,
        message={"role": "assistant", "content": None},
        tool_calls=[
            ToolCall(
                id="c1",
                name="search_blocks",
                arguments="{}",
                input={"area": areas[0]},
                output=searched.output,
                ok=searched.ok,
            )
        ],
    )
    for run in (None, Run(stop=None, messages=[], turns=[turn], max_turns=3)):
        fig = plots.level_map(level, run)
        assert plots.png_bytes(fig).startswith(b"\x89PNG")  # drawn without a mathtext error
        ax = fig.axes[0]
        heading = next(t for t in ax.findobj(Text) if t.get_text() == ax.get_title(loc="left"))
        drawn = [heading, *ax.get_yticklabels()]
        # what matplotlib itself decides to draw: (the text, whether it is mathtext)
        shown = [t._preprocess_math(t.get_text()) for t in drawn]
        assert all(not is_math for _, is_math in shown), shown
        assert shown[0][0].startswith(title)
        assert sorted(text for text, _ in shown[1:]) == sorted(areas)


def test_the_png_of_a_described_figure_is_drawn_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import IPython
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    monkeypatch.setattr(
        IPython, "get_ipython", lambda: SimpleNamespace(display_formatter=formatter)
    )
    formatter.formatters["image/png"].for_type(Figure, plots.png_bytes)  # as %matplotlib inline
    mplfigure.show_figures_in_jupyter()
    drawn: list[int] = []
    real = mplfigure.png_bytes
    monkeypatch.setattr(
        mplfigure, "png_bytes", lambda fig, **kw: drawn.append(1) or real(fig, **kw)
    )
    formatter.format(plots.level_map(load_level("1-1")))
    assert len(drawn) == 1
