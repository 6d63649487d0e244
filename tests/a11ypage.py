"""Accessibility checks on a real page: axe-core (from npm, `tests/a11y/package.json`, installed
by `make test` and `.ci/run`) injected by Playwright, run on *our* elements only (the explorer,
the figures), with the WCAG 2.2 A and AA rules; and what a keyboard user reaches and sees.
Shared by the Voila and JupyterLab tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import ROOT

AXE = ROOT / "tests" / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
OURS = [".wts-explorer", ".wts-race", ".wts-figure"]
"""What the package puts on a page; Voila's and JupyterLab's own chrome is theirs to fix."""

_RUN_AXE = """async ([selectors, tags]) => {
    const include = selectors.filter(s => document.querySelector(s)).map(s => [s]);
    if (!include.length) return {error: 'none of ' + selectors.join(', ') + ' is on the page'};
    const result = await axe.run({include}, {runOnly: {type: 'tag', values: tags},
                                              resultTypes: ['violations']});
    return {violations: result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 300),
                                  why: n.failureSummary}))}))};
}"""


def axe_script() -> Path:
    """axe-core's script, installed from npm; a missing one skips locally and fails on CI."""
    if not AXE.exists():
        message = "axe-core is not installed: run `make test` (npm ci in tests/a11y)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return AXE


def axe_violations(page, selectors: list[str] = OURS) -> list[dict]:
    """Every WCAG 2.2 A/AA violation axe finds inside `selectors` (present on the page)."""
    script = axe_script()
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(script))
    result = page.evaluate(_RUN_AXE, [selectors, WCAG_TAGS])
    assert "error" not in result, result.get("error")
    return result["violations"]


def describe_violations(violations: list[dict]) -> str:
    """One readable line per failing element, for an assertion message."""
    return "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']} — {n['target']}: {n['why']}"
        for v in violations
        for n in v["nodes"]
    )


def focused(page) -> str:
    """A short description of the element that has the keyboard focus."""
    return page.evaluate("""() => {
        const el = document.activeElement;
        if (!el) return '';
        return [el.tagName.toLowerCase(), el.type || '', el.className || '',
                el.closest('[class*=wts-]') ? [...el.closest('[class*=wts-]').classList]
                    .filter(c => c.startsWith('wts-')).join(' ') : ''].join('|');
    }""")


def tab_to(page, test_js: str, limit: int = 60) -> None:
    """Press Tab until the focused element satisfies `test_js` (a function of the element)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => ({test_js})(document.activeElement)"):
            return
    raise AssertionError(f"Tab never reached the element ({test_js}); ended on {focused(page)}")


def focus_ring(page) -> tuple[str, float]:
    """The focused element's outline style and width (px): what shows where the focus is."""
    style, width = page.evaluate("""() => {
        const s = getComputedStyle(document.activeElement);
        return [s.outlineStyle, parseFloat(s.outlineWidth) || 0];
    }""")
    return style, width
