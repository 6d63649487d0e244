"""The explorer's callbacks, driven in plain pytest (no kernel, no browser): moving a control
re-runs the level on the mock and updates what the learner reads; a real endpoint waits for Run
and shows a failure as a message, not a traceback."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from html import unescape
from typing import Any

import pytest
from tally import Tally
from test_intent import GIVES_UP

from whentostop import Run, Stop, connect
from whentostop.lesson import give_up
from whentostop.mock import MockServer
from whentostop.mock.intent import read_intent
from whentostop.models import is_mock
from whentostop.views import look
from whentostop.views.controls import EXPLORER_CSS
from whentostop.views.widgets import (
    badge_html,
    dashboard,
    explorer,
    notable_turns,
    transcript_html,
    turns_text,
)


def text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def svg_in(html: str) -> str:
    found = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', html)
    assert found, "no inline SVG"
    return base64.b64decode(found.group(1)).decode()


def test_level_1_1_starts_with_the_loopboros_stopped_by_the_clock() -> None:
    ex = explorer("1-1")
    assert ex.run.stop == Stop.MAX_TURNS and len(ex.run.turns) == 10
    assert "the clock" in ex.badge.value and "No answer" in ex.badge.value
    assert "10 of 10 turns" in ex.badge.value
    assert text_of(ex.turns.value).split() == ["10", "of", "10", "turns", "·", "run", "1"]


def test_moving_the_slider_reruns_with_the_new_budget() -> None:
    ex = explorer("1-1")
    first_plot = ex.plot_svg
    ex.max_turns.value = 3
    assert len(ex.run.turns) == 3 and ex.run.max_turns == 3
    assert "3 of 3 turns" in text_of(ex.turns.value)
    assert "No answer after 3 of 3 turns" in text_of(ex.badge.value)
    assert text_of(ex.transcript.value).count("turn ") == 3
    assert svg_in(ex.plot.value) == ex.plot_svg != first_plot
    first_map = ex.map_svg
    ex.max_turns.value = 1
    assert "1 of 1 turn" in text_of(ex.turns.value)
    assert ex.level.view(ex.run).searched == ("overworld",)  # the map follows the run
    assert svg_in(ex.map.value) == ex.map_svg != first_map


def test_permission_to_give_up_turns_the_searchers_clock_into_a_flag() -> None:
    ex = explorer("1-1", persona="searcher")
    assert ex.run.stop == Stop.MAX_TURNS
    ex.give_up.value = True
    assert ex.run.stop == Stop.END_TURN and len(ex.run.turns) == 5
    assert "the flag" in ex.badge.value and "couldn" in ex.badge.value
    ex.persona.value = "loopboros"  # the Loopboros never takes the permission
    assert ex.run.stop == Stop.MAX_TURNS


def test_the_learners_own_words_let_the_searcher_give_up_and_the_transcript_quotes_them() -> None:
    ex = explorer("1-1", persona="searcher", allow_give_up=True)
    assert ex.system_prompt.value == give_up() and ex.run.stop == Stop.END_TURN
    ex.system_prompt.value = "Tell me if it isn't there."
    assert ex.run.stop == Stop.END_TURN
    assert 'as you allowed: "Tell me if it isn\'t there"' in text_of(ex.transcript.value)
    assert "the mock reads" in text_of(ex.reading.value) and "Tell me if it isn't there" in text_of(
        ex.reading.value
    )
    ex.system_prompt.value = "Don't say you couldn't find it."
    assert ex.run.stop == Stop.MAX_TURNS
    assert "a refusal" in text_of(ex.reading.value)
    ex.give_up.value = False  # switched off: no system prompt at all
    assert ex.run.messages[0]["role"] == "user" and ex.reading.value == ""


def test_the_system_prompt_field_follows_the_widget_contract() -> None:
    ex = explorer("1-2")
    assert ex.system_prompt.continuous_update is False
    assert "wts-system-prompt" in ex.system_prompt._dom_classes
    assert ex.system_prompt in ex.widget.children and ex.reading in ex.widget.children
    assert ex.system_prompt not in explorer("1-3").widget.children  # 1-3 is not about giving up


def test_the_system_prompt_field_is_disabled_while_giving_up_is_off() -> None:
    ex = explorer("1-2")
    assert ex.system_prompt.disabled  # nothing of it is sent: the field says so
    ex.give_up.value = True
    assert not ex.system_prompt.disabled and ex.run.stop == Stop.END_TURN
    ex.give_up.value = False
    assert ex.system_prompt.disabled
    assert not explorer("1-2", allow_give_up=True).system_prompt.disabled


def test_the_give_up_switch_works_with_the_corpus_permissions(record_property: Any) -> None:
    """Every 20th permission of the intent corpus typed into the explorer's system prompt: the
    searcher gives up on the flag, the transcript quotes the words it took, and level 1-2's run
    sends the prompt as written. One test, its tally printed, every miss listed."""
    tally = Tally("corpus permissions the explorer's give-up switch honours")
    for phrasing in GIVES_UP[::20]:
        ex = explorer("1-1", persona="searcher", allow_give_up=True)
        ex.system_prompt.value = phrasing
        quoted = read_intent(phrasing).quote in text_of(ex.transcript.value)
        on_1_2 = explorer("1-2", allow_give_up=True)
        on_1_2.system_prompt.value = phrasing
        sent = on_1_2.run.messages[0] == {"role": "system", "content": phrasing}
        tally.add(
            ex.run.stop == Stop.END_TURN and quoted and sent,
            f"{phrasing!r}: {ex.run.stop}, quoted: {quoted}, sent as written: {sent}",
        )
    tally.check(record_property)


def test_the_wrap_up_is_labelled_not_an_answer_and_the_badge_still_says_no_answer() -> None:
    ex = explorer("1-1", max_turns=4)
    assert "wrap-up" not in ex.transcript.value
    ex.wrap_up.value = True
    assert ex.run.wrap_up_turn is not None and len(ex.run.turns) == 4
    assert "wrap-up — not an answer" in ex.transcript.value
    assert "No answer" in ex.badge.value and "4 of 4 turns" in text_of(ex.turns.value)


def test_level_1_2_raises_the_flag_in_three_turns_and_the_map_shows_the_star() -> None:
    ex = explorer("1-2")
    assert ex.run.stop == Stop.END_TURN and len(ex.run.turns) == 3
    assert "the flag" in ex.badge.value and "3 of 10 turns" in ex.badge.value
    assert ex.level.view(ex.run).searched == ("overworld", "underground")
    assert svg_in(ex.map.value) == ex.map_svg


def test_level_1_3_takes_the_warp_pipe_and_without_stop_on_spends_one_more_turn() -> None:
    ex = explorer("1-3")
    assert ex.stop_on.value is True
    assert ex.run.stop == Stop.TERMINAL_TOOL and len(ex.run.turns) == 5
    assert "the warp pipe" in ex.badge.value and '"block": 12' in text_of(ex.badge.value)
    assert "warp pipe: its input is the answer" in ex.transcript.value
    markers = ex.level.view(ex.run).markers
    assert markers[0].block == 12 and markers[0].correct
    ex.stop_on.value = False
    assert ex.run.stop == Stop.END_TURN and len(ex.run.turns) == 6
    assert "the flag" in ex.badge.value


def test_the_sloppy_callers_error_is_marked_in_the_transcript() -> None:
    ex = explorer("1-3", persona="sloppy")
    assert ex.run.stop == Stop.TERMINAL_TOOL and len(ex.run.turns) == 6
    assert ex.transcript.value.count("✗ error") == 1
    assert "turn 6" in text_of(ex.transcript.value)


def test_each_level_shows_the_switches_it_is_about() -> None:
    def shown(ex) -> set[str]:
        return {
            c
            for c in ("stop_on", "give_up", "wrap_up")
            if any(
                getattr(ex, c) is child
                for box in ex.widget.children
                for child in getattr(box, "children", ())
            )
        }

    assert shown(explorer("1-1")) == {"give_up", "wrap_up"}
    assert shown(explorer("1-2")) == {"give_up"}
    assert shown(explorer("1-3")) == {"stop_on"}


def test_controls_follow_the_widget_contract() -> None:
    ex = explorer("1-3")
    slider = ex.max_turns
    assert (slider.min, slider.max, slider.continuous_update) == (1, 25, False)
    assert "wts-explorer" in ex.widget._dom_classes
    for widget, cls in [
        (slider, "wts-max-turns"),
        (ex.badge, "wts-badge"),
        (ex.turns, "wts-turns"),
        (ex.transcript, "wts-transcript"),
        (ex.plot, "wts-plot"),
        (ex.map, "wts-map"),
    ]:
        assert cls in widget._dom_classes
    assert 'style="height:400px"' in ex.transcript.value  # fixed: no jump
    assert re.search(r"\.wts-transcript-box \{ overflow: auto;", EXPLORER_CSS)  # it scrolls
    # the views keep their aspect ratio at any width: the page does not jump, no gap below
    assert re.search(r'<img [^>]*width="\d+" height="\d+"', ex.plot.value)
    assert re.search(r'<img [^>]*width="\d+" height="\d+"', ex.map.value)
    assert ex.run_button.layout.display == "none"  # the mock needs no Run button


def test_dashboard_holds_the_three_levels_compact() -> None:
    grid = dashboard()
    assert [ex.level_name for ex in grid.explorers] == ["1-1", "1-2", "1-3"]
    assert [ex.run.stop for ex in grid.explorers] == [
        Stop.MAX_TURNS,
        Stop.END_TURN,
        Stop.TERMINAL_TOOL,
    ]
    assert grid.children == tuple(ex.widget for ex in grid.explorers)
    assert grid.explorers[2].map in grid.explorers[2].widget.children


def test_the_dashboard_is_set_for_a_projector_unless_told_not_to_be() -> None:
    assert "wts-projector" in dashboard(["1-2"])._dom_classes
    assert "wts-projector" not in dashboard(["1-2"], projector=False)._dom_classes
    assert "wts-projector" in explorer("1-2", projector=True).widget._dom_classes
    assert "wts-projector" not in explorer("1-2").widget._dom_classes


def test_a_dashboard_column_shows_the_slider_badge_and_chart_before_the_switches() -> None:
    ex = dashboard(["1-3"]).explorers[0]
    parts = list(ex.widget.children)
    ending = next(p for p in parts if "wts-ending" in p._dom_classes)
    options = next(p for p in parts if ex.persona in getattr(p, "children", ()))
    assert ex.badge in ending.children
    assert parts.index(ending) < parts.index(ex.plot) < parts.index(options)
    assert ex.stop_on in options.children and parts.index(options) < parts.index(ex.map)


def test_beside_the_map_the_badge_and_transcript_share_the_column_that_stays_in_view() -> None:
    ex = explorer("1-4", stop_on=True)
    views = next(p for p in ex.widget.children if "wts-views" in p._dom_classes)
    beside = views.children[1]
    assert views.children[0] is ex.map and "wts-beside-map" in beside._dom_classes
    ending = beside.children[0]
    assert "wts-ending" in ending._dom_classes and ex.badge in ending.children
    assert ex.transcript in beside.children


def test_a_real_endpoint_runs_only_when_run_is_pressed_and_shows_progress() -> None:
    with MockServer() as server:
        model = connect("loopboros", base_url=server.base_url)
        assert not is_mock(model)
        ex = explorer("1-1", model=model, max_turns=3)
        assert ex.run is None and "not run yet" in ex.badge.value
        assert ex.persona.layout.display == "none" and ex.run_button.layout.display is None
        ex.max_turns.value = 4
        assert ex.run is None  # a control change alone spends nothing on a real endpoint
        seen: list[str] = []
        ex.progress.observe(lambda change: seen.append(change["new"]), names="value")
        ex.run_button.click()
        model.close()
    assert ex.run.stop == Stop.MAX_TURNS and len(ex.run.turns) == 4
    assert [s for s in seen if "of 4" in s][-4:] == [
        f"turn {n} of 4… waiting for the model" for n in range(1, 5)
    ]
    assert "done: 4 turns" in ex.progress.value
    assert "the clock" in ex.badge.value


def test_an_unreachable_endpoint_shows_a_plain_message_and_no_traceback() -> None:
    model = connect("llama3.2", base_url="http://127.0.0.1:9/v1", timeout_s=3, max_retries=0)
    ex = explorer("1-2", model=model)
    ex.run_button.click()  # must not raise
    assert ex.error and "Could not reach http://127.0.0.1:9/v1" in ex.error
    assert "Could not reach" in ex.progress.value and "Traceback" not in ex.progress.value
    assert "endpoint error" in ex.badge.value and "No answer after 0 of 10 turns" in ex.badge.value
    assert ex.run is not None and ex.run.turns == []
    assert "The endpoint failed" in ex.transcript.value
    assert not ex.run_button.disabled  # the instructor can fix the server and press Run again


@pytest.mark.parametrize(
    "stop, colour, words",
    [
        (Stop.END_TURN, "#2E7D32", "the flag"),
        (Stop.TERMINAL_TOOL, "#6A1B9A", "the warp pipe"),
        (Stop.MAX_TURNS, "#C62828", "the clock — No answer"),
        (Stop.DEADLINE, "#A84300", "the deadline — No answer"),
    ],
)
def test_badge_colour_and_words_per_exit(stop: Stop, colour: str, words: str) -> None:
    run = Run(stop=stop, messages=[], turns=[], max_turns=2, _answer="x")
    badge = badge_html(run)
    assert colour in badge and words in badge and "0 of 2 turns" in badge


def test_transcript_escapes_what_the_model_and_tools_said() -> None:
    ex = explorer("1-3", persona="sloppy")
    ex.run.turns[0].message["content"] = "<script>alert(1)</script>"
    assert "<script>" not in transcript_html(ex.run)
    assert "&lt;script&gt;" in transcript_html(ex.run)
    assert turns_text(None) == "0 turns"


def test_importing_whentostop_loads_no_widgets_or_matplotlib() -> None:
    code = "import sys, whentostop; print('ipywidgets' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_openai_base_url_in_the_environment_makes_the_explorer_wait_for_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with MockServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("WHENTOSTOP_MODEL", "searcher")
        ex = explorer("1-2")
        assert ex.live and ex.run is None
        ex.rerun()
    assert ex.run.stop == Stop.END_TURN and len(ex.run.turns) == 3


def test_a_mock_model_object_keeps_the_explorer_instant_and_picks_its_persona() -> None:
    ex = explorer("1-3", model=connect("sloppy"))
    assert not ex.live and ex.persona.value == "sloppy"
    assert ex.run.stop == Stop.TERMINAL_TOOL and len(ex.run.turns) == 6


# -- issue 15: what a learner and an instructor trip on ----------------------------------------


def test_a_rerun_with_the_same_result_still_shows_that_it_ran() -> None:
    ex = explorer("1-1")
    badge, before = ex.badge.value, text_of(ex.turns.value)
    ex.give_up.value = True  # the Loopboros ignores the permission: the same clock
    assert ex.badge.value == badge
    assert "run 2" in text_of(ex.turns.value) and text_of(ex.turns.value) != before
    assert ex.runs == 2


def test_the_transcript_opens_the_rejected_call_and_folds_the_routine_turns() -> None:
    ex = explorer("1-3", persona="sloppy")
    assert notable_turns(ex.run) == {5, 6}  # the rejected mark_star, and the answer
    shown = ex.transcript.value
    opened = re.findall(r'<details class="wts-turn" data-turn="(\d+)" open', shown)
    assert opened == ["5", "6"]
    folded = re.findall(r'<details class="wts-turn" data-turn="(\d+)">', shown)
    assert folded == ["1", "2", "3", "4"]
    assert shown.count('class="wts-call wts-call-failed"') == 1
    # a folded turn still says in one line what it called
    assert "search_blocks ✓" in text_of(shown.split('data-turn="2"')[1].split("</summary>")[0])


def test_a_short_run_opens_every_turn() -> None:
    ex = explorer("1-2")
    assert notable_turns(ex.run) == {1, 2, 3}


def test_the_explorer_prices_at_the_default_model_and_says_which() -> None:
    from whentostop.usage import DEFAULT_PRICE_MODEL

    ex = explorer("1-2")
    assert ex.price_model == DEFAULT_PRICE_MODEL
    assert f"Cumulative cost at {DEFAULT_PRICE_MODEL}:" in ex.plot_svg
    assert "Cumulative cost at gpt-4o-mini" in explorer("1-2", price_model="gpt-4o-mini").plot_svg


def test_the_clock_explorers_map_counts_misspelt_searches_apart() -> None:
    ex = explorer("1-1", max_turns=25)
    view = ex.level.view(ex.run)
    assert view.misspelt > 0
    title = f"{len(view.searched)} searches, no star ({view.misspelt} more misspelt: no such area)"
    assert title in ex.map_svg
    assert title in unescape(re.search(r'alt="([^"]*)"', ex.map.value).group(1))


# -- issue 17: every learner can use it --------------------------------------------------------


def test_the_live_region_announces_each_run_in_words() -> None:
    ex = explorer("1-1")
    assert ex.status.text == (
        "Level 1-1, run 1: the clock — No answer after 10 of 10 turns, "
        "still asking for search_blocks."
    )
    ex.max_turns.value = 3
    assert ex.status.text.startswith("Level 1-1, run 2: the clock — No answer after 3 of 3 turns")
    ex.persona.value = "searcher"
    ex.give_up.value = True
    ex.max_turns.value = 10
    assert "run 5: the flag — answered in 5 of 10 turns" in ex.status.text
    assert "wts-status" in ex.status._dom_classes


def test_the_announcement_follows_the_language() -> None:
    from whentostop.i18n import using

    with using("pt"):
        ex = explorer("1-1", max_turns=2)
        said = ex.status.text
    assert said.startswith("Fase 1-1, execução 1: o relógio — ")
    assert "2 de 2 turnos" in said


def test_the_level_title_is_a_heading() -> None:
    ex = explorer("1-2")
    header = ex.widget.children[0]
    assert re.fullmatch(r'<h3 class="wts-level-title">World 1-2: the flag</h3>', header.value)
    grid = dashboard()
    assert all(ex.widget.children[0].value.startswith("<h2 ") for ex in grid.explorers)


def test_the_transcript_is_a_named_focusable_region() -> None:
    ex = explorer("1-3")
    box = re.match(r"<div ([^>]*)>", ex.transcript.value).group(1)
    assert 'role="region"' in box and 'tabindex="0"' in box
    assert 'aria-label="Transcript of level 1-3, run 1"' in box


def test_the_slider_is_a_labelled_range_and_clamps_its_value() -> None:
    ex = explorer("1-1")
    assert ex.max_turns.description == "max_turns"
    assert 'input.type = "range"' in ex.max_turns._esm and "label.htmlFor = id" in ex.max_turns._esm
    ex.max_turns.value = 99
    assert ex.max_turns.value == 25 and len(ex.run.turns) == 25


def test_every_view_of_the_explorer_has_alt_text_from_the_run() -> None:
    ex = explorer("1-3")
    plot_alt = unescape(re.search(r'alt="([^"]*)"', ex.plot.value).group(1))
    map_alt = unescape(re.search(r'alt="([^"]*)"', ex.map.value).group(1))
    assert "the warp pipe" in plot_alt and f"{ex.run.total_tokens:,} tokens" in plot_alt
    assert "right, the star is there" in map_alt and "castle" in map_alt


# -- issue 18: only what moved is redrawn ------------------------------------------------------


def test_in_the_dashboard_only_the_explorer_whose_control_moved_reruns_and_redraws() -> None:
    grid = dashboard()
    first, *others = grid.explorers
    sent: list[str] = []
    for ex in others:
        for pane in (ex.badge, ex.turns, ex.transcript, ex.plot, ex.map, ex.status):
            pane.observe(lambda change, name=ex.level_name: sent.append(name))
    first.max_turns.value = 4
    assert first.runs == 2 and [ex.runs for ex in others] == [1, 1]
    assert sent == []


# -- issue 16: what a small real model does does not look like a clean answer ------------------


@pytest.fixture(scope="module")
def replay():
    """The loopback replay of a small local model (tests/replay_server.py), for the module."""
    from replay_server import ReplayServer

    with ReplayServer() as server:
        yield server


def replayed(server, level: str, behaviour: str):
    """An explorer on a real endpoint (the replay), after one press of Run."""
    ex = explorer(level, model=connect(f"replay:{behaviour}", base_url=server.base_url))
    ex.run_button.click()
    return ex


def test_a_tool_call_written_as_text_has_its_own_badge_not_the_flags(replay) -> None:
    ex = replayed(replay, "1-3", "fenced")
    assert ex.run.stop == Stop.END_TURN and ex.run.answer_is_text_tool_call
    badge = text_of(ex.badge.value)
    assert "the flag — but the model wrote a tool call as text, not an answer" in badge
    assert "mark_star" in badge and "⚠" in badge
    assert look.BADGE_COLOURS["text_tool_call"] in ex.badge.value
    assert look.BADGE_COLOURS["end_turn"] not in ex.badge.value


def test_a_guessed_marker_that_validates_is_called_the_wrong_block(replay) -> None:
    ex = replayed(replay, "1-3", "guess-pipe")
    assert ex.run.stop == Stop.TERMINAL_TOOL and ex.judgement.correct is False
    badge = text_of(ex.badge.value)
    assert "the warp pipe — validated, but the wrong block (1 of 10 turns)" in badge
    assert '"block": 4' in badge and look.BADGE_COLOURS["wrong"] in ex.badge.value


def test_a_guessed_answer_in_text_is_called_wrong(replay) -> None:
    ex = replayed(replay, "1-2", "guess-text")
    assert "the flag — answered in 1 of 10 turns, but wrong" in text_of(ex.badge.value)


def test_a_right_answer_says_so_on_the_badge() -> None:
    ex = explorer("1-3")
    assert ex.judgement.correct is True
    assert text_of(ex.badge.value).strip().endswith("— right")
    assert look.BADGE_COLOURS["terminal_tool"] in ex.badge.value


def test_the_live_region_says_what_the_badge_says(replay) -> None:
    ex = replayed(replay, "1-3", "fenced")
    assert ex.status.text.startswith(
        "Level 1-3, run 1: the flag — but the model wrote a tool call as text, not an answer"
    )
    ex = replayed(replay, "1-3", "guess-pipe")
    assert "validated, but the wrong block" in ex.status.text


def test_the_transcript_shows_the_turns_note_the_runs_warning_and_the_verdict(replay) -> None:
    ex = replayed(replay, "1-3", "fenced")
    shown = ex.transcript.value
    assert 'class="wts-note wts-note-text_tool_call"' in shown
    assert ex.run.turns[0].notes[0].text in unescape(shown)
    assert "a tool call written as text" in text_of(shown.split("</summary>")[0])
    assert 'class="wts-warning"' in shown and "--jinja" in unescape(shown)
    assert 'class="wts-verdict" data-correct="none"' in shown and "Not an answer" in shown


def test_the_transcript_gives_a_wrong_markers_verdict(replay) -> None:
    ex = replayed(replay, "1-3", "guess-pipe")
    verdict = re.search(
        r'<div class="wts-verdict" data-correct="false"[^>]*>([^<]*)</div>', ex.transcript.value
    )
    assert verdict and "Wrong: the marker is on block 4" in unescape(verdict.group(1))
    assert "the model guessed" in unescape(verdict.group(1))


def test_an_empty_reply_is_noted_and_opened_in_the_transcript(replay) -> None:
    ex = replayed(replay, "1-2", "empty")
    first = ex.run.turns[0]
    assert first.empty and 1 in notable_turns(ex.run)
    assert 'class="wts-note wts-note-empty_reply"' in ex.transcript.value
    assert "an empty reply" in text_of(ex.transcript.value.split('data-turn="2"')[0])


def test_the_cost_charts_words_say_what_the_badge_says(replay) -> None:
    ex = replayed(replay, "1-3", "guess-pipe")
    plot_alt = unescape(re.search(r'alt="([^"]*)"', ex.plot.value).group(1))
    assert "validated, but the wrong block" in plot_alt
    assert "validated, but the wrong block" in unescape(ex.plot_svg.split("</desc>")[0])
    ex = replayed(replay, "1-2", "fenced")
    map_alt = unescape(re.search(r'alt="([^"]*)"', ex.map.value).group(1))
    plot_alt = unescape(re.search(r'alt="([^"]*)"', ex.plot.value).group(1))
    assert "wrote a tool call as text" in plot_alt
    assert "Not an answer" in map_alt


def test_the_badges_words_follow_the_language(replay) -> None:
    from whentostop.i18n import using

    with using("pt"):
        ex = replayed(replay, "1-3", "guess-pipe")
        badge = text_of(ex.badge.value)
    assert "o cano de atalho — validou, mas é o bloco errado (1 de 10 turnos)" in badge


def test_badge_html_takes_the_levels_judgement(play) -> None:
    from whentostop.level import Judgement

    run = play("1-3", "searcher", stop_on=["mark_star"]).run
    wrong = badge_html(run, judgement=Judgement(False, "Wrong."))
    assert look.BADGE_COLOURS["wrong"] in wrong and "✗" in wrong
    assert "validated, but the wrong block" in text_of(wrong)
    unknown = badge_html(run, judgement=Judgement(None, "?"))
    assert unknown == badge_html(run) and look.BADGE_COLOURS["terminal_tool"] in unknown
