"""A corpus checked as one test: each entry tried, the ones that pass counted, the test failing
under its threshold with every miss listed. The tally ("1-2.a: 458 of 458 permissions pass") is
recorded on the test (`record_property`) and printed at the end of the session (conftest's
`pytest_terminal_summary`), with or without xdist."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Tally:
    what: str
    """What is counted, as the tally says it: "permissions in the corpus pass exercise 1-2.a"."""
    total: int = 0
    misses: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    """Misses of entries known to miss (a corpus's `pending`): listed, not counted against it."""

    def add(self, ok: bool, miss: str = "", *, pending: bool = False) -> None:
        """One entry: whether it passed, and if not, what the miss list says about it."""
        self.total += 1
        if not ok:
            (self.pending if pending else self.misses).append(miss)

    @property
    def passed(self) -> int:
        return self.total - len(self.misses) - len(self.pending)

    def line(self) -> str:
        pending = f", {len(self.pending)} pending" if self.pending else ""
        return f"{self.what}: {self.passed} of {self.total}{pending}"

    def check(self, record_property: Callable[[str, Any], None], at_least: float = 1.0) -> None:
        """Record the tally; fail, listing the misses, when fewer than `at_least` (a fraction
        of the entries not pending) pass."""
        record_property("tally", self.line())
        assert self.total > 0, f"{self.what}: the corpus is empty"
        counted = self.total - len(self.pending)
        assert self.passed >= at_least * counted, (
            f"{self.line()}, under the threshold of {at_least:.0%}; the misses:\n"
            + "\n".join(f"- {miss}" for miss in self.misses)
        )
