"""Turning a case's data into what an answer is tried on: runs on the mock, levels, tools, calls;
and calling the learner's code on it, so that whatever it does comes back as data.

Every run is played on the in-process mock whatever the configuration says (a verdict never
depends on a real endpoint), in the language in effect (the mock answers in the conversation's
language), and made once per language: a learner's function gets its own copy of it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import sys
from functools import cache
from typing import Any, NoReturn

from ..client import Completion
from ..i18n import _, language
from ..level import CASTLE, Level, LevelSpec, load_level
from ..loop import run_agent
from ..models import mock
from ..outcome import Run
from ..tools import Tool
from . import give_up, limits, prompt
from .castle import empty_castle
from .content import extra_levels
from .verdict import PROGRESS

JAMMED = "the ? blocks are stuck: try again"
"""What a jammed tool raises the first time it is called (RuntimeError)."""


KEPT_GOING = 20
"""How many times learner code may go on after the check's plumbing told it to stop before the
check ends it (it keeps everything it is told: a bare `except:`)."""


class Runaway(BaseException):
    """Raised by the check's own plumbing when learner code asks for far more than its case
    needs (requests, runs). A BaseException, so that `except Exception` lets it through."""


def runaway(why: object) -> NoReturn:
    """Stop learner code that asks for far more than its case needs: `Runaway`, counted in
    `PROGRESS.stopped`; past `KEPT_GOING` of them, its time is up (`limits.end_now`)."""
    PROGRESS.stopped += 1
    if PROGRESS.stopped > KEPT_GOING:
        limits.end_now()
    raise Runaway(why)


def level_named(name: str) -> Level:
    """A shipped level, "castle" (1-4), "empty castle" (its star taken), or a level a data file
    makes up for the checks (`[level.<name>]`)."""
    if name == "castle":
        return load_level(CASTLE)
    if name == "empty castle":
        return empty_castle()
    made_up = extra_levels().get(name)
    if made_up is not None:
        return Level(spec=LevelSpec.model_validate(made_up))
    return load_level(name)


def case_run(spec: dict[str, Any]) -> Run:
    """A copy of the run a case's `run` table describes (made once per language)."""
    return copy.deepcopy(_case_run(json.dumps(spec, sort_keys=True), language()))


@cache
def _case_run(frozen: str, lang: str) -> Run:
    spec = json.loads(frozen)
    tools = level_named(spec["level"]).tools(*spec.get("tools", ()))
    system = spec.get("system")
    return run_agent(
        spec.get("prompt") or prompt(),
        model=mock(spec.get("persona", "searcher")),
        tools=tools,
        max_turns=spec.get("max_turns", 10),
        stop_on=spec.get("stop_on", ()),
        system=give_up() if system == "GIVE_UP" else system,
        deadline_s=spec.get("deadline_s"),
        max_tokens_total=spec.get("max_tokens_total"),
        on_max_turns=spec.get("on_max_turns", "stop"),
    )


def mock_run(
    level: str,
    persona: str = "searcher",
    *,
    only_search: bool = False,
    stop_on: bool = False,
    max_turns: int = 10,
) -> Run:
    """One run on the mock (the shape older tests and notebooks call)."""
    spec: dict[str, Any] = {"level": level, "persona": persona, "max_turns": max_turns}
    if only_search:
        spec["tools"] = ["search_blocks"]
    if stop_on:
        spec["stop_on"] = ["mark_star"]
    return case_run(spec)


# -- tools a case changes ------------------------------------------------------------------------


def changed(original: Tool, how: str | None) -> Tool:
    """The same tool, schema and all, whose body is changed: "jammed" raises RuntimeError the
    first time, "listing" returns a list instead of text, "exiting" calls `sys.exit()`."""
    if how is None:
        return original
    calls = {"n": 0}

    def body(**kwargs: Any) -> Any:
        calls["n"] += 1
        if how == "jammed" and calls["n"] == 1:
            raise RuntimeError(JAMMED)
        if how == "exiting":
            sys.exit(3)
        result = original.fn(**kwargs)
        return result.splitlines() if how == "listing" else result

    return dataclasses.replace(original, fn=body, timeout_s=None)


def case_tools(
    level: str, names: tuple[str, ...] = (), change: dict[str, str] | None = None
) -> list[Tool]:
    """The level's tools (those named, or both), each changed as `change` says."""
    return [changed(t, (change or {}).get(t.name)) for t in level_named(level).tools(*names)]


# -- calling the learner's code ------------------------------------------------------------------


class CountingModel:
    """A mock persona that counts what the learner's code asks of it: requests and runs (a
    request with no assistant message yet starts a run). Past `most_runs` runs, or the check's
    time limit, it raises instead of answering."""

    def __init__(self, persona: str, most_runs: int) -> None:
        self.inner = mock(persona)
        self.name = self.inner.name
        self.most_runs = most_runs

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], **options: Any
    ) -> Completion:
        limits.stop_if_expired()
        PROGRESS.requests += 1
        if not any(m.get("role") == "assistant" for m in messages if isinstance(m, dict)):
            PROGRESS.runs += 1
            if PROGRESS.runs > self.most_runs:
                runaway(_("more than {n} runs").format(n=self.most_runs))
        return self.inner.complete(messages, tools, **options)

    def close(self) -> None:
        self.inner.close()


def searched_elsewhere(run: Run, level: Level) -> bool:
    """Whether a search of the run got an output `level` would not give: it ran on another level."""
    for call in run.tool_calls:
        if call.name == "search_blocks" and call.ok and call.input is not None:
            area = level.area_named(str(call.input.get("area", "")))
            if area is None or level.search_blocks(area) != call.output:
                return True
    return False
