"""What the class simulation (bench/class_sim.py) runs in each kernel besides the notebook, and
how it judges and reports what it measured.

Pure functions over plain records, so a test can check them without a hub: whether a learner
reached the clock in notebook 1-1, what went wrong and where, and the percentiles of the room.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BEGIN, END = "<!-- class-sim: begin {key} -->", "<!-- class-sim: end {key} -->"
"""bench/class_sim.py owns what lies between such lines of RESULTS.md, one block per kind of run
(its key: the class size and settings); bench/run.py keeps them when it rewrites the file."""
_BLOCK = re.compile(r"<!-- class-sim: begin (.*?) -->.*?<!-- class-sim: end \1 -->", re.DOTALL)

PROBE_MARK = "WTS-CLASS-PROBE "
"""The probe cell prints one line starting with this, then a JSON object."""

INSTRUMENT = """\
import time as _wts_time
from whentostop.client import OpenAIChat as _WtsChat
from whentostop.errors import DeadlineReached as _WtsDeadline
from whentostop.models import is_mock as _wts_is_mock
_wts_class_calls = []
def _wts_timed(complete):
    def timed(self, *args, **kwargs):
        started, record = _wts_time.perf_counter(), {"model": self.name, "error": None, "retries": 0}
        try:
            result = complete(self, *args, **kwargs)
            record["retries"] = len(getattr(result, "retries", None) or [])
            return result
        except Exception as exc:
            if isinstance(exc, _WtsDeadline):
                record["cut_by_deadline"] = True  # the run's deadline_s, not the endpoint
            else:
                record["error"] = f"{type(exc).__name__}: {exc}"[:300]
            raise
        finally:
            record["latency_s"] = _wts_time.perf_counter() - started
            if not _wts_is_mock(self):
                _wts_class_calls.append(record)
    return timed
_WtsChat.complete = _wts_timed(_WtsChat.complete)
"""
"""Run before the notebook in the `serve` run: every request to the endpoint, timed by its client."""

PROBE = f"""\
import json as _wts_json
from whentostop import Run as _WtsRun, Stop as _WtsStop
_wts_runs = [v for v in list(globals().values()) if isinstance(v, _WtsRun)]
print({PROBE_MARK!r} + _wts_json.dumps({{
    "stops": sorted(str(r.stop) for r in _wts_runs),
    "clock": sum(r.stop == _WtsStop.MAX_TURNS for r in _wts_runs),
    "calls": globals().get("_wts_class_calls", []),
}}))
"""
"""Run after the notebook: which runs the learner's namespace holds, and how each one stopped."""

OUTPUT_TYPES = frozenset({"stream", "display_data", "execute_result", "error"})
"""iopub messages that put something under a cell (what a learner sees appear)."""


@dataclass
class Cell:
    """One code cell as the learner ran it: when it was sent, first showed something, finished."""

    index: int
    """Position in the notebook (all cells counted, markdown too)."""
    tags: list[str] = field(default_factory=list)
    sent: float | None = None
    first_output: float | None = None
    finished: float | None = None
    status: str | None = None
    """The kernel's execute_reply status: "ok", "error", "aborted"; None if no reply came."""
    outputs: list[dict[str, Any]] = field(default_factory=list)
    """nbformat-shaped outputs (output_type, text / data / ename, evalue)."""


@dataclass
class Learner:
    """One simulated learner. Times are seconds since the whole class was told to start."""

    name: str
    logged_in: float | None = None
    server_ready: float | None = None
    kernel_ready: float | None = None
    first_output: float | None = None
    last_cell: float | None = None
    cells: list[Cell] = field(default_factory=list)
    probe: dict[str, Any] | None = None
    failure: str | None = None
    """Where and why the learner stopped: "spawn: timed out after 300 s", "cell 12: NameError: ..."."""

    @property
    def notebook_s(self) -> float | None:
        """From the first cell sent to the last cell's reply: the "Run All" part alone."""
        sent = [c.sent for c in self.cells if c.sent is not None]
        if not sent or self.last_cell is None:
            return None
        return self.last_cell - min(sent)


def output_text(output: dict[str, Any]) -> str:
    """The text a learner reads in one output (stream text, plain or markdown data, an error)."""
    kind = output.get("output_type")
    if kind == "stream":
        return str(output.get("text") or "")
    if kind == "error":
        return f"{output.get('ename')}: {output.get('evalue')}"
    data = output.get("data") or {}
    return "\n".join(str(data[m]) for m in ("text/plain", "text/markdown") if m in data)


def exercise_id(tag: str) -> str | None:
    """ "exercise-1-1-a" -> "1-1.a", the id the check prints; None for any other tag."""
    found = re.fullmatch(r"exercise-(.+)-([a-z])", tag)
    return f"{found[1]}.{found[2]}" if found else None


def parse_probe(outputs: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The probe cell's JSON, from its printed line; None if it printed none."""
    for output in outputs:
        for line in output_text(output).splitlines():
            if line.startswith(PROBE_MARK):
                try:
                    found = json.loads(line[len(PROBE_MARK) :])
                except ValueError:
                    return None
                return found if isinstance(found, dict) else None
    return None


def problems(learner: Learner, expected_cells: int) -> list[str]:
    """Everything that keeps this learner from having reached the clock in 1-1; empty if fine.

    A learner passes when every code cell ran and replied "ok" with no error output, every
    exercise cell showed its check, and the probe found a run that the clock (`max_turns`) stopped.
    """
    found: list[str] = []
    if learner.failure:
        found.append(learner.failure)
    ran = [c for c in learner.cells if c.status is not None]
    if not learner.failure and len(ran) < expected_cells:
        found.append(f"ran {len(ran)} of {expected_cells} code cells")
    for cell in learner.cells:
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if errors:
            found.append(f"cell {cell.index}: {output_text(errors[0])}")
        elif cell.status not in (None, "ok"):
            found.append(f"cell {cell.index}: execute_reply status {cell.status}")
        for tag in cell.tags:
            ident = exercise_id(tag)
            if (
                ident
                and cell.status == "ok"
                and not any(ident in output_text(o) for o in cell.outputs)
            ):
                found.append(f"cell {cell.index}: exercise {ident} showed no check")
    if learner.failure is None and len(ran) == expected_cells:
        probe = learner.probe
        if probe is None:
            found.append("the probe after the notebook printed nothing")
        elif not probe.get("clock"):
            found.append(
                f"no run stopped on max_turns (runs in the notebook: {probe.get('stops')})"
            )
    return found


def warnings(learner: Learner) -> list[str]:
    """Text a learner saw on stderr (not a failure: a warning is still shown, in red)."""
    seen = []
    for cell in learner.cells:
        for output in cell.outputs:
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                seen.append(f"cell {cell.index}: {' '.join(output_text(output).split())[:160]}")
    return seen


def nearest_rank(values: Sequence[float], q: float) -> float:
    """The q-quantile by nearest rank: a value that was measured, never an interpolation."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def spread(values: Iterable[float | None]) -> tuple[float, float, float] | None:
    """(median, p90, max) of the values that exist; None when none do."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    return nearest_rank(present, 0.5), nearest_rank(present, 0.9), max(present)


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table, columns padded so it also reads as plain text."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    line = lambda row: "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |"  # noqa: E731
    return "\n".join(
        [
            line(cells[0]),
            "|" + "|".join("-" * (w + 2) for w in widths) + "|",
            *(line(r) for r in cells[1:]),
        ]
    )


STAGES = (
    ("login (token from the hub's REST API)", "logged_in"),
    ("server ready (spawned through the REST API)", "server_ready"),
    ("kernel ready (kernel_info answered over the websocket)", "kernel_ready"),
    ("first output of notebook 1-1", "first_output"),
    ("last cell of notebook 1-1 done", "last_cell"),
)


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def timing_rows(learners: Sequence[Learner]) -> list[list[str]]:
    """One row per stage: how long after "start now" the class got there (median, p90, max)."""
    rows = []
    for label, attr in STAGES:
        values = [getattr(le, attr) for le in learners]
        got = spread(values)
        reached = sum(v is not None for v in values)
        rows.append(
            [label, *(seconds(v) for v in got or (None, None, None)), f"{reached}/{len(learners)}"]
        )
    notebook = spread(le.notebook_s for le in learners)
    rows.append(
        [
            "notebook 1-1 alone (first cell sent to last reply)",
            *(seconds(v) for v in notebook or (None, None, None)),
            f"{sum(le.notebook_s is not None for le in learners)}/{len(learners)}",
        ]
    )
    return rows


def mib(value: float | None) -> str:
    return "-" if value is None else f"{value / 2**20:,.0f} MiB"


def latency_rows(calls: Sequence[dict[str, Any]]) -> list[list[str]]:
    """The shared endpoint as its clients saw it: one row for all requests, one per model name.
    A request the run's own deadline cut short (`deadline_s`, the lesson's "turns are not time")
    is counted apart: it is the loop's limit working, not the endpoint failing."""
    rows = []
    groups: dict[str, list[dict[str, Any]]] = {"all requests": list(calls)}
    for call in calls:
        groups.setdefault(f"model={call.get('model')!s}", []).append(call)
    for label, group in groups.items():
        answered = [
            c["latency_s"] * 1000
            for c in group
            if not c.get("error") and not c.get("cut_by_deadline")
        ]
        got = spread(answered)
        errors = sum(1 for c in group if c.get("error"))
        cut = sum(1 for c in group if c.get("cut_by_deadline"))
        retries = sum(int(c.get("retries") or 0) for c in group)
        rows.append(
            [
                label,
                len(group),
                *(("-",) * 3 if got is None else (f"{v:.0f} ms" for v in got)),
                errors,
                cut,
                retries,
            ]
        )
    return rows


def error_kinds(calls: Iterable[dict[str, Any]]) -> Counter[str]:
    """How many requests failed, by the first words of their error."""
    return Counter(str(c["error"]).split(":")[0] for c in calls if c.get("error"))


def class_sections(text: str) -> dict[str, str]:
    """The class simulation's blocks in a RESULTS.md text, markers included, by key."""
    return {found[1]: found[0] for found in _BLOCK.finditer(text)}


def block(key: str, body: str) -> str:
    """`body` between the markers of `key`."""
    return f"{BEGIN.format(key=key)}\n{body.strip(chr(10))}\n{END.format(key=key)}"


def replace_section(path: Path, key: str, body: str) -> None:
    """Put one block into RESULTS.md: in place of the block with the same key, else at the end.
    Everything else in the file (bench/run.py's tables and notes, other blocks) stays as it was."""
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    new = block(key, body)
    old = class_sections(current).get(key)
    if old:
        updated = current.replace(old, new, 1)
    else:
        updated = current.rstrip("\n") + ("\n\n" if current else "") + new + "\n"
    path.write_text(updated, encoding="utf-8")


__all__ = [
    "BEGIN",
    "END",
    "INSTRUMENT",
    "OUTPUT_TYPES",
    "PROBE",
    "PROBE_MARK",
    "STAGES",
    "Cell",
    "Learner",
    "block",
    "class_sections",
    "error_kinds",
    "exercise_id",
    "latency_rows",
    "mib",
    "nearest_rank",
    "output_text",
    "parse_probe",
    "problems",
    "replace_section",
    "seconds",
    "spread",
    "table",
    "timing_rows",
    "warnings",
]
