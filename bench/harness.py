"""What every benchmark shares: side-by-side timing, medians, peak memory, tables, the machine.

Timings on a shared, noisy machine only mean something as ratios of variants measured in the
same run, interleaved: `side_by_side` warms every variant up, then runs them in turn, reversing
the order every repetition so neither gets the quieter moments.
"""

from __future__ import annotations

import gc
import os
import platform
import shutil
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
"""As in tests/conftest.py: Debian's Chromium, nothing downloaded (the browser sections)."""

JUPYTER_DIRS = (
    "JUPYTER_CONFIG_DIR",
    "JUPYTER_DATA_DIR",
    "JUPYTER_RUNTIME_DIR",
    "IPYTHONDIR",
    "MPLCONFIGDIR",
)
"""Where Jupyter, IPython and matplotlib keep their files: a benchmark points each at a
temporary home, so no run reads or writes the user's."""

PACKAGES = (
    "when-to-stop",
    "httpx",
    "pydantic",
    "openai",
    "openai-agents",
    "pydantic-ai-slim",
    "ipywidgets",
    "nbclient",
    "ipykernel",
    "pyinstrument",
)


@dataclass
class Samples:
    """Seconds per repetition of one variant."""

    seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def max(self) -> float:
        return max(self.seconds)

    @property
    def min(self) -> float:
        return min(self.seconds)


def side_by_side(
    variants: dict[str, Callable[[], Any]], reps: int, warmup: int = 1
) -> dict[str, Samples]:
    """Time each variant `reps` times, interleaved (A B, B A, A B …), after `warmup` untimed runs."""
    for _ in range(warmup):
        for fn in variants.values():
            fn()
    results = {name: Samples() for name in variants}
    names = list(variants)
    for rep in range(reps):
        for name in names if rep % 2 == 0 else reversed(names):
            results[name].seconds.append(timed(variants[name])[0])
    return results


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, value) of one call, started from a collected heap so garbage is not inherited."""
    gc.collect()
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def peak_memory(fn: Callable[[], Any]) -> int:
    """Peak bytes Python allocated during one call (tracemalloc; not timed, it slows code down)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs"


def mib(n_bytes: float) -> str:
    return f"{n_bytes / 2**20:.1f} MiB"


@dataclass
class Verdict:
    """One line of the summary: what was measured against what goal, and whether it was met."""

    benchmark: str
    measured: str
    goal: str
    met: bool | None
    """None when the benchmark could not run here (and says why in its section)."""

    @property
    def mark(self) -> str:
        return {True: "met", False: "MISSED", None: "n/a"}[self.met]


@dataclass
class Section:
    """One benchmark's results: a table, notes that explain it, and its verdicts."""

    number: int
    title: str
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    tables: list[tuple[list[str], list[list[str]]]] = field(default_factory=list)
    """More tables, shown after the first: (header, rows)."""

    def markdown(self) -> str:
        parts = [f"## {self.number}. {self.title}", ""]
        if self.header:
            parts += [table(self.header, self.rows), ""]
        for header, rows in self.tables:
            parts += [table(header, rows), ""]
        parts += [f"- {note}" for note in self.notes]
        return "\n".join(parts).rstrip() + "\n"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, padded so it also reads well in a terminal."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"

    return "\n".join(
        [
            line(header),
            "|" + "|".join("-" * (w + 2) for w in widths) + "|",
            *(line(r) for r in rows),
        ]
    )


def summary(sections: Sequence[Section]) -> str:
    verdicts = [v for s in sections for v in s.verdicts]
    return table(
        ["benchmark", "measured (median unless said)", "goal", "goal met?"],
        [[v.benchmark, v.measured, v.goal, v.mark] for v in verdicts],
    )


def machine(command: str) -> list[str]:
    """The facts a reader needs to compare these numbers with their own."""
    versions = ", ".join(f"{name} {_version(name)}" for name in PACKAGES)
    return [
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- command: `{command}`",
        f"- CPU: {_cpu_model()}, {os.cpu_count()} logical cores (shared with other work)",
        f"- Python {platform.python_version()} ({sys.implementation.name}) on {platform.platform()}",
        f"- packages: {versions}",
    ]


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
