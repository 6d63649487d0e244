"""The race between the stops: which limit ends a run first — the clock (`max_turns`), the
deadline (`deadline_s`) or the budget (`max_tokens_total` or `max_cost_usd`).

A race has two runs of the same model on the same level. The *track* is the run with no
deadline and no budget, as long as the longest clock allows: where the run goes when nothing
else stops it, with the moment each reply came (`timed_run`). `falls(track, limits)` reads the
track with the loop's own rules — the budget through `usage.Budget.over`, a tie in the order
`run_agent` checks its limits — to say where each limit would fall. The race's real run
(`run_agent` with every limit at once) is what happened: its `stop` names the limit that fired.

It only reads runs; the explorer (`views.widgets.race`) and the chart (`views.charts.race_svg`,
drawn from the figure model's `views.figure.race`) show it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..client import ChatModel
from ..events import Event, ModelReply
from ..loop import run_agent
from ..outcome import Run, Stop
from ..tools import Tool
from ..usage import DEFAULT_PRICE_MODEL, Budget, cumulative_cost, cumulative_tokens

Unit = Literal["tokens", "usd"]
TRACK_TURNS = 25
"""The track's length: the explorers' longest clock."""
ORDER = (Stop.MAX_TURNS, Stop.DEADLINE, Stop.BUDGET)
"""Who wins a tie: after the last turn the loop ends on the clock without checking the others;
before a turn it checks the deadline, then the budget."""


@dataclass(frozen=True)
class Limits:
    """The limits a race runs under: the clock always, a deadline and a budget if given."""

    max_turns: int
    deadline_s: float | None = None
    budget: float | None = None
    """Tokens (`unit="tokens"`: `max_tokens_total`) or dollars (`"usd"`: `max_cost_usd`)."""
    unit: Unit = "tokens"
    price_model: str = DEFAULT_PRICE_MODEL
    """Whose prices a dollar budget, and the dollars on the chart, are counted at."""

    def run_options(self) -> dict[str, Any]:
        """The limits as `run_agent`'s keyword arguments."""
        tokens = self.budget is not None and self.unit == "tokens"
        usd = self.budget is not None and self.unit == "usd"
        return {
            "max_turns": self.max_turns,
            "deadline_s": self.deadline_s,
            "max_tokens_total": int(self.budget) if tokens and self.budget else None,
            "max_cost_usd": float(self.budget) if usd and self.budget else None,
            "price": self.price_model if usd else None,
        }


@dataclass(frozen=True)
class Timed:
    """A run and the moment each of its replies came, in seconds from the run's start."""

    run: Run
    ends: tuple[float, ...]

    def spent(self, unit: Unit, price_model: str = DEFAULT_PRICE_MODEL) -> list[float]:
        """What the run had spent after each turn: tokens, or dollars at `price_model`."""
        if unit == "usd":
            return cumulative_cost(self.run, price_model)
        return [float(t) for t in cumulative_tokens(self.run)]


@dataclass(frozen=True)
class Fall:
    """Where one limit would stop the track."""

    stop: Stop
    kept: int | None
    """The turns the run keeps when this limit stops it; None when it does not stop the track
    (it answered first, or the limit lies beyond its last turn)."""
    at_s: float | None
    """When it stops the run, in seconds from its start (the deadline: `deadline_s` itself)."""
    spent: float
    """What the run has spent by then, in the race's unit."""
    why: str = ""
    """The budget's own words: where the next request would have taken the run."""


@dataclass(frozen=True)
class RaceResult:
    """One race: its limits, the track, the real run, and where each limit falls on the track."""

    limits: Limits
    track: Timed
    run: Timed
    falls: tuple[Fall, ...]

    @property
    def fired(self) -> Stop | None:
        """The limit (or exit) that ended the real run: what the badge names."""
        return self.run.run.stop

    @property
    def predicted(self) -> Fall | None:
        """The limit the track says fires first: `first(falls)`."""
        return first(self.falls)


def timed_run(
    prompt: str,
    *,
    model: ChatModel,
    tools: Iterable[Tool | Callable[..., Any]],
    limits: Limits,
    system: str | None = None,
) -> Timed:
    """`run_agent` under `limits`, with the moment each reply came."""
    replies: list[float] = []

    def on_event(event: Event) -> None:
        if isinstance(event, ModelReply) and not event.turn.wrap_up:
            replies.append(time.monotonic())

    run = run_agent(
        prompt, model=model, tools=tools, system=system, on_event=on_event, **limits.run_options()
    )
    return Timed(run, tuple(t - run.started for t in replies))


def track_of(
    prompt: str,
    *,
    model: ChatModel,
    tools: Iterable[Tool | Callable[..., Any]],
    turns: int = TRACK_TURNS,
    system: str | None = None,
) -> Timed:
    """The track: the run with the clock alone, `turns` long. One request goes first, unrecorded,
    so the track's first reply does not carry what a process's first request pays once (imports,
    a connection) and the deadline falls where a later run's would."""
    tools = list(tools)
    run_agent(prompt, model=model, tools=tools, system=system, max_turns=1)
    return timed_run(prompt, model=model, tools=tools, limits=Limits(turns), system=system)


def falls(track: Timed, limits: Limits) -> tuple[Fall, ...]:
    """Where each of the race's limits would stop the track: the clock, then the deadline and the
    budget if the race has them. Read with the loop's rules: the budget by `Budget.over` on the
    track cut after each turn; the deadline after the last reply that came before it."""
    run = track.run
    spent = track.spent(limits.unit, limits.price_model)
    turns = len(run.turns)
    answered = run.has_answer  # then its last turn is the answer, and no limit after it

    def at(kept: int) -> tuple[float, float]:
        return (track.ends[kept - 1], spent[kept - 1]) if kept else (0.0, 0.0)

    on_track = limits.max_turns < turns if answered else limits.max_turns <= turns
    clock = limits.max_turns if on_track else None
    found = [Fall(Stop.MAX_TURNS, clock, *at(clock or 0))]
    if limits.deadline_s is not None:
        before = sum(1 for end in track.ends if end <= limits.deadline_s)
        kept = None if before >= turns else before  # None: every reply came before it
        found.append(Fall(Stop.DEADLINE, kept, limits.deadline_s, at(before)[1]))
    if limits.budget is not None:
        options = limits.run_options()
        budget = Budget.of(options["max_tokens_total"], options["max_cost_usd"], options["price"])
        kept, why = None, ""
        for n in range(turns + (0 if answered else 1)):
            cut = Run(stop=None, messages=[], turns=run.turns[:n], max_turns=run.max_turns)
            over = budget.over(cut) if budget else None
            if over is not None:
                kept, why = n, over.text()
                break
        found.append(Fall(Stop.BUDGET, kept, *at(kept or 0), why=why))
    return tuple(found)


def first(found: Iterable[Fall]) -> Fall | None:
    """The limit that stops the track first (a tie goes as the loop checks: `ORDER`); None when
    the track answers before any limit."""
    on_track = [f for f in found if f.kept is not None]
    return min(on_track, key=lambda f: (f.kept, ORDER.index(f.stop)), default=None)


def race(
    prompt: str,
    *,
    model: ChatModel,
    tools: Iterable[Tool | Callable[..., Any]],
    limits: Limits,
    track: Timed | None = None,
    system: str | None = None,
) -> RaceResult:
    """Run the race: the real run under every limit, and (unless given) the track it is read
    against."""
    tools = list(tools)
    if track is None or (len(track.run.turns) < limits.max_turns and not track.run.has_answer):
        turns = max(TRACK_TURNS, limits.max_turns)
        track = track_of(prompt, model=model, tools=tools, system=system, turns=turns)
    run = timed_run(prompt, model=model, tools=tools, limits=limits, system=system)
    return RaceResult(limits, track, run, falls(track, limits))
