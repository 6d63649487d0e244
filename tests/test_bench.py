"""`python bench/run.py --quick` works: every benchmark section runs and the results file is written
(the JupyterLite section's smoke run is in tests/test_lite_browser.py, where the site is built).

Speed itself is never asserted here (the machine is shared and noisy); `make bench` measures it.
"""

from __future__ import annotations

import ast
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


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    out = tmp_path_factory.mktemp("bench") / "results.md"
    return quick_bench(HERE, out), out


@pytest.mark.timeout(300)
def test_quick_run_prints_every_section_and_a_summary(quick_run: tuple[str, Path]) -> None:
    stdout, _ = quick_run
    for heading in SECTIONS + ["## Summary"]:
        assert heading in stdout, f"{heading!r} missing from the output"
    assert "failed" not in stdout.split("## Summary")[1], stdout.split("## Summary")[1]


@pytest.mark.timeout(300)
def test_quick_run_writes_what_it_printed_with_the_machine(quick_run: tuple[str, Path]) -> None:
    stdout, out = quick_run
    written = out.read_text(encoding="utf-8")
    summary = stdout.split("## Summary")[1].split("wrote ")[0].strip()
    assert summary in written
    for fact in ("- CPU: ", "- Python ", "- packages: ", "- date: ", "- command: `"):
        assert fact in written
    for heading in SECTIONS:
        assert heading in written


@pytest.mark.timeout(300)
def test_peers_run_or_are_skipped_with_a_note(quick_run: tuple[str, Path]) -> None:
    stdout, _ = quick_run
    peers = stdout.split("## 3. ")[1].split("## 4. ")[0]
    if find_spec("agents") and find_spec("pydantic_ai"):
        assert "| openai-agents" in peers and "| pydantic-ai" in peers
        assert "MaxTurnsExceeded" in peers and "UsageLimitExceeded" in peers
    else:
        assert "Skipped" in peers and "bench" in peers
    assert "NoAnswer" in peers  # the library's own row always runs
