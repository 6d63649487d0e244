"""One escaping rule for every Markdown and HTML output (issue 27, class 3): a model's, a tool's or a
learner's text reaches a notebook's Markdown through `whentostop._text.markdown_text` and its HTML
(and SVG) through `html.escape`. A hostile text is driven through every such output the package
builds, and nothing active survives: no tag or attribute of its own, no link, no image, no maths,
no broken table. JupyterLab does not sanitise trusted output (a kernel the learner ran)."""

from __future__ import annotations

import ast
import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest

from whentostop import Note, OpenAIChat, Run, Stop, ToolCall, Turn, load_level, run_agent
from whentostop.level import Judgement

SRC = Path(__file__).resolve().parent.parent / "src" / "whentostop"

HOSTILE = (
    "<img src=x onerror=alert(1)> ](javascript:alert(2)) [click](javascript:alert(3)) "
    "![i](x.png) $x$ | ** __b__ `c` <script>alert(4)</script> <a href='javascript:x'>a</a>\n"
    "# head\n\n| a | b |\n|---|---|\n\\$y\\$ &lt;b&gt; \"q' <svg onload=alert(5)>=\r\n=== *"
)
"""What a model (or a tool, or a learner) may write to make a notebook's output act."""

SAFE_TAGS = {
    *("div", "span", "b", "i", "code", "pre", "details", "summary", "ul", "li", "p", "br"),
    *("h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "em"),
    *("strong", "hr"),
    *("img", "svg", "g", "rect", "text", "tspan", "line", "polyline", "polygon", "circle"),
    *("title", "desc", "path"),
}


class _Active(HTMLParser):
    """What in an HTML (or SVG) text could act: a tag outside `SAFE_TAGS`, an event handler, a
    script link, an image from anywhere but a data URI (whose SVG is read too)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in SAFE_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            value = (value or "").strip().lower()
            if name.startswith("on"):
                self.found.append(f"{tag} {name}=")
            if name in ("href", "src", "xlink:href", "action") and value.startswith(
                ("javascript:", "vbscript:")
            ):
                self.found.append(f"{tag} {name}={value[:20]}")
        if tag == "img":
            src = dict(attrs).get("src") or ""
            if not src.startswith("data:image/"):
                self.found.append(f"img src={src[:20]}")
            elif src.startswith("data:image/svg+xml;base64,"):
                self.found += active_html(base64.b64decode(src.split(",", 1)[1]).decode())

    handle_startendtag = handle_starttag


def active_html(text: str) -> list[str]:
    parser = _Active()
    parser.feed(text)
    parser.close()
    return parser.found


def maths(markdown: str) -> list[int]:
    """Where a `$` is not escaped: JupyterLab typesets what lies between two of them."""
    found, escaped = [], False
    for i, char in enumerate(markdown):
        if char == "$" and not escaped:
            found.append(i)
        escaped = char == "\\" and not escaped
    return found


def active_markdown(markdown: str) -> list[str]:
    """What in a Markdown text could act once JupyterLab renders it (raw HTML passes through)."""
    mistune = pytest.importorskip("mistune")
    rendered = mistune.create_markdown(escape=False, plugins=["table"])(markdown)
    found = active_html(rendered)
    found += [f"a link: {m[:30]}" for m in re.findall(r"<a\s[^>]*>", rendered)]
    found += [f"an image: {m[:30]}" for m in re.findall(r"<img\s[^>]*>", rendered)]
    found += [f"maths at {i}" for i in maths(markdown)]
    return found


def table_shape(markdown: str) -> list[int]:
    """Cells per row of a Markdown table (unescaped `|` per line), for the rows that are one."""
    return [
        len(re.findall(r"(?<!\\)\|", line))
        for line in markdown.splitlines()
        if line.startswith("|")
    ]


# -- what a hostile text goes through ----------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_level(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A level a learner wrote: its title, story and area names are shown everywhere."""
    path = tmp_path_factory.mktemp("escaping") / "hostile.json"
    areas = {f"cave {HOSTILE[:60]}": {"1": "coin", "2": "star"}, "sky": {"3": "coin"}}
    path.write_text(json.dumps({"name": "h", "title": HOSTILE, "story": HOSTILE, "areas": areas}))
    return path


def hostile_model() -> OpenAIChat:
    """A model that writes `HOSTILE` in its text, its tool calls' names and arguments."""
    replies = [
        {"content": HOSTILE, "calls": [("search_blocks", {"area": HOSTILE})]},
        {"content": None, "calls": [(f"x{HOSTILE[:40]}", {"a": HOSTILE})]},
        {"content": f"The answer: {HOSTILE}", "calls": []},
    ]
    served = {"n": 0}

    def answer(request: httpx.Request) -> httpx.Response:
        reply = replies[min(served["n"], len(replies) - 1)]
        served["n"] += 1
        message: dict[str, Any] = {"role": "assistant", "content": reply["content"]}
        if reply["calls"]:
            message["tool_calls"] = [
                {
                    "id": f"c{i}",
                    "type": "function",
                    "function": {"name": n, "arguments": json.dumps(a)},
                }
                for i, (n, a) in enumerate(reply["calls"])
            ]
        usage = {"prompt_tokens": 100 * served["n"], "completion_tokens": 9}
        return httpx.Response(200, json={"choices": [{"message": message}], "usage": usage})

    return OpenAIChat(HOSTILE[:30], "http://hostile.test/v1", transport=httpx.MockTransport(answer))


@pytest.fixture(scope="module")
def hostile_run(hostile_level: Path) -> Run:
    level = load_level(hostile_level)
    run = run_agent("Find the star.", model=hostile_model(), tools=level.tools(), max_turns=5)
    run.warnings.append(HOSTILE)
    run.turns[0].notes.append(Note("text_tool_call", HOSTILE))
    run.turns[0].retries.append(HOSTILE)
    assert run.stop == Stop.END_TURN and HOSTILE in run.answer
    return run


def broken_run() -> Run:
    turn = Turn(
        1,
        10,
        2,
        0.1,
        {"role": "assistant", "content": HOSTILE},
        tool_calls=[ToolCall("c1", HOSTILE, HOSTILE, None, HOSTILE, ok=False)],
    )
    return Run(stop=None, messages=[], turns=[turn], max_turns=3, model=HOSTILE).break_off(HOSTILE)


# -- Markdown -----------------------------------------------------------------------------------------


def test_castle_side_by_side_keeps_model_text_literal_in_its_table(hostile_run: Run) -> None:
    from whentostop.lesson.castle import side_by_side

    message = {"role": "assistant", "content": HOSTILE}
    called = {
        "role": "assistant",
        "tool_calls": [{"function": {"name": HOSTILE, "arguments": HOSTILE}}],
    }
    rows = [
        (HOSTILE, message, [{"type": "session_end", "reason": HOSTILE}], hostile_run),
        ("b", called, [], ValueError(HOSTILE)),
        ("c", RuntimeError(HOSTILE), [], broken_run()),
    ]
    table = side_by_side(rows)._repr_markdown_()
    assert active_markdown(table) == []
    header, *rest = table_shape(table)
    assert rest and all(cells == header for cells in rest)
    assert len(table.splitlines()) == 2 + len(rows)  # no row split by a newline


def test_the_uncapped_bill_keeps_its_words_literal() -> None:
    from whentostop.lesson.uncapped import Bill, BillRow

    bill = Bill(
        (BillRow(2, 100, 0.5, 90, True), BillRow(20, 9_000, 12.5, 900, False)), 3.0, 2.0, HOSTILE
    )
    shown = bill._repr_markdown_()
    assert active_markdown(shown) == []
    assert len(set(table_shape(shown))) == 1


def test_markdown_text_is_the_rule_for_any_text() -> None:
    from whentostop._text import markdown_text

    assert active_markdown(markdown_text(HOSTILE)) == []
    assert active_markdown(HOSTILE) != []  # the hostile text is hostile


# -- HTML and SVG ------------------------------------------------------------------------------------


def test_the_explorers_plain_views_escape_every_text(hostile_run: Run) -> None:
    from whentostop.views import charts, widgets

    judgement = Judgement(None, HOSTILE)
    outputs = [
        widgets.transcript_html(hostile_run, label=HOSTILE, judgement=judgement),
        widgets.transcript_html(broken_run(), label=HOSTILE),
        widgets.badge_html(hostile_run, HOSTILE, judgement),
        widgets.badge_html(broken_run(), HOSTILE),
        widgets.badge_html(hostile_run, None, Judgement(False, HOSTILE)),
        widgets.turns_line(hostile_run, 3),
        widgets.reading_html(f"If a few searches come back empty, {HOSTILE}, say so.", HOSTILE),
        charts.img(charts.cost_svg(broken_run())),  # its words, read back as the alt text
    ]
    for shown in outputs:
        assert active_html(shown) == [], shown[:300]
    assert HOSTILE.splitlines()[0][:20] not in "".join(outputs)  # escaped, not dropped:
    assert "&lt;img src=x onerror=alert(1)&gt;" in outputs[0]


def test_the_svg_charts_and_their_words_escape_every_text(
    hostile_level: Path, hostile_run: Run
) -> None:
    import dataclasses

    from whentostop.usage import price
    from whentostop.views import charts, describe, figure

    level = load_level(hostile_level)
    long_title = dataclasses.replace(  # broken into lines in a dashboard column's width
        figure.cumulative_cost_chart(hostile_run, price("gpt-4o")), title=f"{HOSTILE} " * 3
    )
    for svg in (
        charts.cost_svg(hostile_run),
        charts.cost_svg(hostile_run, tokens_per_turn=False),
        charts.chart_svg(long_title, charts.COMPACT_W, charts.COMPACT_H),
        charts.map_svg(level, hostile_run),
        charts.map_svg(level, hostile_run, narrow=True),
        charts.map_svg(level, None),
    ):
        assert active_html(svg) == [] and svg.count("<svg") == 1
    cumulative = figure.cumulative_cost_chart(hostile_run, price("gpt-4o"))
    alt = describe.panels_alt(figure.tokens_per_turn(hostile_run), cumulative)
    assert active_html(charts.data_uri(charts.cost_svg(hostile_run))) == []
    assert "&lt;" not in alt  # words are plain text: escaped where they are put into markup


def test_the_figures_alt_texts_are_escaped_in_their_img(
    hostile_level: Path, hostile_run: Run
) -> None:
    pytest.importorskip("matplotlib")
    from whentostop.views import plots

    level = load_level(hostile_level)
    for figure in (
        plots.level_map(level, hostile_run),
        plots.tokens_per_turn(hostile_run),
        plots.cumulative_cost(hostile_run),
        plots.compare_runs({HOSTILE: hostile_run}),
    ):
        bundle = figure._repr_mimebundle_()
        assert active_html(bundle["text/html"]) == []
        assert bundle["text/plain"] == figure.alt_text


def test_the_figures_drawn_without_matplotlib_escape_their_words_too(
    hostile_level: Path, hostile_run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The browser edition's figures: the same models drawn as SVG where matplotlib is missing."""
    from whentostop.views import plots

    monkeypatch.setattr(plots, "matplotlib_renderer", lambda: None)
    level = load_level(hostile_level)
    for figure in (
        plots.level_map(level, hostile_run),
        plots.tokens_per_turn(hostile_run),
        plots.cumulative_cost(hostile_run),
        plots.compare_runs({HOSTILE: hostile_run}),
    ):
        assert isinstance(figure, plots.SvgFigure)
        bundle = figure._repr_mimebundle_()
        assert active_html(bundle["text/html"]) == []
        assert active_html(figure.svg) == []
        assert "onerror" in figure.svg  # the hostile words are there, as text


def widget_html(root: Any) -> list[str]:
    """Every HTML value in a widget tree (panes, HTML widgets), as the page would receive it."""
    found, todo = [], [root]
    while todo:
        widget = todo.pop()
        todo += list(getattr(widget, "children", ()) or ())
        value = getattr(widget, "value", None)
        if isinstance(value, str) and type(widget).__name__ in ("Pane", "HTML", "HTMLMath"):
            found.append(value)
    return found


def test_an_explorer_on_a_hostile_level_and_model_shows_nothing_active(hostile_level: Path) -> None:
    pytest.importorskip("ipywidgets")
    from whentostop.views.widgets import Explorer

    explorer = Explorer(str(hostile_level), model=hostile_model())
    explorer.rerun()
    shown = widget_html(explorer.widget)
    assert len(shown) >= 5 and any("onerror" in html for html in shown)  # there, as text
    for html in shown:
        assert active_html(html) == [], html[:300]


def test_a_race_on_a_hostile_level_shows_nothing_active(hostile_level: Path) -> None:
    pytest.importorskip("ipywidgets")
    from whentostop.views.widgets import Race

    race = Race(str(hostile_level), pace_s=0.001, deadline_s=0.5, max_turns=4)
    race.rerun()
    for html in widget_html(race.widget):
        assert active_html(html) == [], html[:300]


def test_the_checks_verdicts_keep_what_the_learner_or_model_wrote_literal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An exercise's verdict quotes what the learner's function returned (a real model's text
    when OPENAI_BASE_URL is set); a question's verdict answers whatever was passed."""
    from whentostop.lesson import checks

    shown: list[str] = []
    monkeypatch.setattr(checks, "_show", lambda markdown, plain: shown.append(markdown))
    checks.by_tag("exercise-1-1-b").check(lambda run: HOSTILE)
    checks.quiz("1-1")[0].check(HOSTILE)
    checks.by_tag("exercise-1-2-a").check(HOSTILE)
    assert len(shown) == 3
    for markdown in shown:
        assert active_markdown(markdown) == [], markdown


# -- every output is one of the above ----------------------------------------------------------------

DRIVEN = {
    ("lesson/castle.py", "Table"),
    ("lesson/checks.py", "_show"),
    ("lesson/uncapped.py", "Bill"),
    ("views/mplfigure.py", "DescribedFigure"),
    ("views/plots.py", "SvgFigure"),
    *(("views/widgets.py", n) for n in ("_View", "transcript_html", "reading_html", "_counted")),
    *(("views/widgets.py", n) for n in ("_call_html", "_note", "_pill", "_turn_html")),
    *(("views/widgets.py", n) for n in ("_verdict_html", "Explorer", "Race")),
    ("views/charts.py", "img_html"),
    ("views/charts.py", "_tag"),
}
"""Every place that builds Markdown or HTML, by (file, top-level name): each is driven above,
directly or as part of the output it builds (a chart's `_axes` inside `cost_svg`)."""
NOT_MARKUP = {("client.py", "OpenAIChat"), ("outcome.py", "Run")}
"""f-strings with `<` that are reprs (`<OpenAIChat model=...>`), shown as plain text."""


def markup_builders() -> set[tuple[str, str]]:
    """Where the source builds Markdown or HTML: a `_repr_*_` method, a `text/markdown` or
    `text/html` bundle, a `display(` call, or an f-string with a tag in it."""
    tag = re.compile(r"<[a-zA-Z/]")
    found = set()
    for path in sorted(SRC.rglob("*.py")):
        file = str(path.relative_to(SRC))
        if file.startswith("mock/"):
            continue
        for top in ast.parse(path.read_text(encoding="utf-8")).body:
            name = getattr(top, "name", None) or ast.unparse(getattr(top, "targets", [top])[0])
            for node in ast.walk(top):
                if (
                    (isinstance(node, ast.FunctionDef) and node.name.startswith("_repr_"))
                    or (
                        isinstance(node, ast.Constant)
                        and node.value in ("text/markdown", "text/html")
                    )
                    or (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "display")
                    or (
                        isinstance(node, ast.JoinedStr)
                        and any(isinstance(v, ast.FormattedValue) for v in node.values)
                        and any(
                            isinstance(v, ast.Constant) and tag.search(v.value) for v in node.values
                        )
                    )
                ):
                    found.add((file, name))
    return found


def test_every_markdown_or_html_output_is_driven_by_this_test() -> None:
    found = markup_builders()
    assert found - DRIVEN - NOT_MARKUP == set(), "drive the new output in tests/test_escaping.py"
    assert DRIVEN - found == set(), "no longer builds markup: remove it from DRIVEN"
