"""`python bench/run.py --quick` works: every benchmark section runs and the results file is written
(the JupyterLite section's smoke run is in tests/test_lite_browser.py, where the site is built).

Speed itself is never asserted here (the machine is shared and noisy); `make bench` measures it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from conftest import ROOT, quick_bench

pytestmark = pytest.mark.bench

NUMBERS = sorted(
    key.value
    for node in ast.walk(ast.parse((ROOT / "bench" / "sections.py").read_text()))
    if isinstance(node, ast.Assign)
    and any(getattr(t, "id", "") == "SECTIONS" for t in node.targets)
    for key in node.value.keys
)
"""Every section bench/sections.py registers."""

LITE = 8
"""The JupyterLite section measures build/lite, which the lite browser test builds: it runs there
(tests/test_lite_browser.py, beside that test on one worker), the others here, side by side."""
HERE = [n for n in NUMBERS if n != LITE]
SECTIONS = [f"## {n}. " for n in HERE]
"""The headings this module's smoke run prints."""


QUICK_RUN_TIMEOUT_S = 960
"""The first test to use the smoke run waits for it (conftest.quick_bench's bound, and a minute)."""


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    out = tmp_path_factory.mktemp("bench") / "results.md"
    return quick_bench(HERE, out), out


@pytest.mark.timeout(QUICK_RUN_TIMEOUT_S)
def test_quick_run_prints_every_section_and_a_summary(quick_run: tuple[str, Path]) -> None:
    stdout, _ = quick_run
    for heading in SECTIONS + ["## Summary"]:
        assert heading in stdout, f"{heading!r} missing from the output"
    assert "failed" not in stdout.split("## Summary")[1], stdout.split("## Summary")[1]


@pytest.mark.timeout(QUICK_RUN_TIMEOUT_S)
def test_quick_run_writes_what_it_printed_with_the_machine(quick_run: tuple[str, Path]) -> None:
    stdout, out = quick_run
    written = out.read_text(encoding="utf-8")
    summary = stdout.split("## Summary")[1].split("wrote ")[0].strip()
    assert summary in written
    for fact in ("- CPU: ", "- Python ", "- packages: ", "- date: ", "- command: `"):
        assert fact in written
    for heading in SECTIONS:
        assert heading in written


@pytest.mark.timeout(QUICK_RUN_TIMEOUT_S)
def test_peers_run_or_are_skipped_with_a_note(quick_run: tuple[str, Path]) -> None:
    stdout, _ = quick_run
    peers = stdout.split("## 3. ")[1].split("## 4. ")[0]
    if find_spec("agents") and find_spec("pydantic_ai"):
        assert "| openai-agents" in peers and "| pydantic-ai" in peers
        assert "MaxTurnsExceeded" in peers and "UsageLimitExceeded" in peers
    else:
        assert "Skipped" in peers and "bench" in peers
    assert "NoAnswer" in peers  # the library's own row always runs


@pytest.mark.timeout(300)
def test_merge_replaces_one_section_and_its_summary_rows_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    """`--only N --merge` (how section 8 is re-measured alone): section N and its summary rows
    are new, every other section and row is the whole run's, and a line says what was redone."""
    committed = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    out = tmp_path / "results.md"
    out.write_text(committed, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "bench/run.py", "--quick", "--only", "6", "--merge", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    merged = out.read_text(encoding="utf-8")

    def section(text: str, n: int) -> str:
        start = text.index(f"\n## {n}. ")
        return text[start : text.index("\n## ", start + 1)]

    def rows(text: str, n: int) -> list[str]:
        summary = text[text.index("## Summary") : text.index("\n## 1. ")]
        return [
            line.split("|")[1].strip()
            for line in summary.splitlines()
            if line.startswith(f"| {n}. ")
        ]

    assert section(merged, 7) == section(committed, 7) and section(merged, 1) == section(
        committed, 1
    )
    assert section(merged, 6) != section(committed, 6) and "(this section took" in section(
        merged, 6
    )
    assert rows(merged, 1) == rows(committed, 1) and rows(merged, 6)
    assert "Section 6 re-measured alone" in merged
    assert merged.count("## Summary") == 1
