"""The class simulation's judging and reporting (bench/classreport.py), without a hub.

`make bench-class` runs the simulation itself (minutes, a JupyterHub); these check, in a second,
what decides whether a learner "reached the clock" and what the report says when one did not —
including the probe and the request timer it runs inside every learner's kernel, run here
against the real library.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

from whentostop import connect, load_level, run_agent
from whentostop.client import OpenAIChat
from whentostop.mock.endpoint import MockServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from classreport import (
    INSTRUMENT,
    PROBE,
    Cell,
    Learner,
    class_sections,
    latency_rows,
    parse_probe,
    problems,
    replace_section,
    timing_rows,
)


def printed(code: str, namespace: dict) -> list[dict]:
    """Run kernel code in `namespace`; what it printed, as the one stream output a kernel sends."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, namespace)
    return [{"output_type": "stream", "name": "stdout", "text": out.getvalue()}]


def a_learner_who_ran(cells: list[Cell], clock: int = 1) -> Learner:
    learner = Learner(
        "learner01",
        logged_in=0.5,
        server_ready=9.0,
        kernel_ready=11.0,
        first_output=13.0,
        last_cell=20.0,
        cells=cells,
    )
    learner.probe = {"stops": ["max_turns"] * clock, "clock": clock, "calls": []}
    return learner


def ok_cell(index: int, text: str = "done\n", tags: list[str] | None = None) -> Cell:
    return Cell(
        index,
        tags or [],
        sent=12.0,
        first_output=13.0,
        finished=14.0,
        status="ok",
        outputs=[{"output_type": "stream", "name": "stdout", "text": text}],
    )


def test_probe_finds_the_run_the_clock_stopped_in_the_learners_namespace() -> None:
    run = run_agent(
        "Find the star in this level.",
        model=connect("loopboros"),
        tools=load_level("1-1").tools(),
        max_turns=3,
    )
    probe = parse_probe(printed(PROBE, {"run": run, "other": 42}))
    assert probe == {"stops": ["max_turns"], "clock": 1, "calls": []}


def test_probe_says_so_when_no_run_stopped_on_the_clock() -> None:
    run = run_agent(
        "Find the star in this level.",
        model=connect("searcher"),
        tools=load_level("1-2").tools(),
        max_turns=10,
    )
    probe = parse_probe(printed(PROBE, {"run": run}))
    learner = a_learner_who_ran([ok_cell(2)])
    learner.probe = probe
    assert probe["clock"] == 0
    assert problems(learner, expected_cells=1) == [
        "no run stopped on max_turns (runs in the notebook: ['end_turn'])"
    ]


def test_a_learner_who_ran_every_cell_to_the_clock_has_no_problem() -> None:
    cells = [ok_cell(2), ok_cell(28, "✏️ Exercise 1-1.a: not attempted yet.", ["exercise-1-1-a"])]
    assert problems(a_learner_who_ran(cells), expected_cells=2) == []


def test_a_cell_error_is_reported_with_its_cell_and_cause() -> None:
    broken = Cell(
        4,
        sent=12.0,
        finished=12.5,
        status="error",
        outputs=[
            {"output_type": "error", "ename": "NameError", "evalue": "name 'run' is not defined"}
        ],
    )
    learner = a_learner_who_ran([ok_cell(2), broken])
    learner.last_cell, learner.probe = None, None
    assert problems(learner, expected_cells=5) == [
        "ran 2 of 5 code cells",
        "cell 4: NameError: name 'run' is not defined",
    ]


def test_an_exercise_whose_check_showed_nothing_is_a_problem() -> None:
    cells = [ok_cell(2), ok_cell(28, "", ["exercise-1-1-a"])]
    assert problems(a_learner_who_ran(cells), expected_cells=2) == [
        "cell 28: exercise 1-1.a showed no check"
    ]


def test_a_learner_who_never_got_a_server_is_reported_with_the_hubs_reason() -> None:
    learner = Learner("learner07", logged_in=0.4, failure="spawn: failed — Spawn failed: Timeout")
    assert problems(learner, expected_cells=20) == ["spawn: failed — Spawn failed: Timeout"]
    rows = {row[0]: row for row in timing_rows([a_learner_who_ran([ok_cell(2)]), learner])}
    assert rows["server ready (spawned through the REST API)"][-1] == "1/2"


def test_request_timer_counts_every_request_a_kernel_sends_to_the_shared_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(OpenAIChat, "complete", OpenAIChat.complete)  # restored afterwards
    namespace: dict = {}
    printed(INSTRUMENT, namespace)
    with MockServer() as server:
        endpoint_run = run_agent(
            "Find the star in this level.",
            model=connect("loopboros", base_url=server.base_url),
            tools=load_level("1-1").tools(),
            max_turns=4,
        )
    in_process = run_agent(
        "Find the star in this level.",
        model=connect("loopboros"),
        tools=load_level("1-1").tools(),
        max_turns=2,
    )
    calls = parse_probe(printed(PROBE, namespace | {"a": endpoint_run, "b": in_process}))["calls"]
    assert [c["model"] for c in calls] == ["loopboros"] * 4  # the in-process mock is not counted
    assert all(c["error"] is None and c["latency_s"] > 0 for c in calls)
    row = latency_rows(calls)[0]
    assert row[:2] == ["all requests", 4] and row[-3:] == [0, 0, 0]


def test_a_request_cut_by_the_runs_deadline_is_not_counted_as_an_endpoint_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(OpenAIChat, "complete", OpenAIChat.complete)  # restored afterwards
    namespace: dict = {}
    printed(INSTRUMENT, namespace)
    with MockServer() as server:
        slow = run_agent(
            "Find the star in this level.",
            model=connect("slow:0.3", base_url=server.base_url),
            tools=load_level("1-1").tools(),
            max_turns=10,
            deadline_s=0.5,
        )
    calls = parse_probe(printed(PROBE, namespace | {"slow": slow}))["calls"]
    assert str(slow.stop) == "deadline"
    errors, cut = latency_rows(calls)[0][-3:-1]
    assert (errors, cut) == (0, 1)


def test_the_class_section_replaces_its_own_block_and_leaves_the_rest_of_results_alone(
    tmp_path: Path,
) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmarks\n\n## 1. Loop overhead\n\n| a | b |\n")
    replace_section(results, "20 learners", "## Class simulation: 20 learners\nfirst")
    replace_section(results, "30 learners", "## Class simulation: 30 learners\nkept")
    replace_section(results, "20 learners", "## Class simulation: 20 learners\nsecond")
    text = results.read_text()
    assert text.startswith("# Benchmarks\n\n## 1. Loop overhead\n\n| a | b |\n")
    assert list(class_sections(text)) == ["20 learners", "30 learners"]
    assert "second" in text and "first" not in text and "kept" in text
