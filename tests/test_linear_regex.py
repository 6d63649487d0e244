"""One linear-time rule for every regular expression that reads untrusted text (issue 27, class 1):
the rule (`linear_regex.py`) catches each known shape of super-linear backtracking and passes
linear patterns; every regular expression in `src/` — spelled out, compiled at import, or built
from parts at run time (`regex_inventory.py`) — keeps it. And the level loader's check for keys
written twice reads a large file in linear time."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest
from linear_regex import findings
from regex_inventory import BUILDERS, call_sites

from whentostop import LevelFileError, load_level

TESTS = Path(__file__).resolve().parent

# -- the rule ------------------------------------------------------------------------------------

BAD_SHAPES = {
    # nested quantifiers: exponential
    r"(a+)+$": "nested",
    r"^(\w+\s*)+$": "nested",
    r"(a*)*b": "nested",
    r"^(\w+\s?)*$": "nested",
    r"^(?:[a-z]+\d*)+!": "nested",
    # adjacent quantifiers over overlapping characters: polynomial
    r"\w*_\w*_\w*$": "adjacent",
    r"\d+\d+x": "adjacent",
    r"^\s*\S*\s*:": "adjacent",
    r"^\d+.\d+$": "adjacent",
    r"^.*x.*y": "adjacent",
    r"^a\s*(?:b)?\s*c": "adjacent",
    r"^[a-z]+(?:-)?[a-z]+=": "adjacent",
    # alternatives that start alike under a quantifier
    r"^(?:a\w|\wa)*$": "alternation",
    r"^(?:\d\w|\w\d)+x": "alternation",
    r"^(?:x[0-9]|[a-z]y)*;": "alternation",
    r"^(?:foo|f\w+)+;": "nested",  # re factors it into f(?:oo|\w+), a nested quantifier
    # .*? or [^x]* up to a terminator that may never come, under re.search
    r"<(.*?)>": "search",
    r"<([^>]*)>": "search",
    r"a[^x]*x": "search",
    r"\s+$": "search",
    r"\s*$": "search",
    r"\d+\.\d+": "search",
    r"(?i)A[a-z]*b": "search",
    r"(?m)^\s*#.*x$": "search",
    r"(?:block|bloco) (\d+)\b": "",  # linear: kept as a control below
}
"""Each known bad shape, with the finding it must give ("" for a linear control)."""

LINEAR = [
    r"block (\d+)",
    r'"([^"]*)"',
    r"[1-9][0-9]*",
    r"\b(?:block|bloco|bloque)s?\s*(?:#|n[º°o]\.?\s*|number\s+|número\s+)?(\d+)",
    r"\A\s*\S+\s*\Z",
    r"^a.*b",
    r": star$",
    r"x{0,20}y{0,20}z",
    r"[0-9]+",
    r"\bno star\b|\bfound nothing\b",
    r"(?:\\u0073|%73|&#0*115;|s)(?:\\u006b|%6b|k)",
    r"(?:block|bloco) (\d+)\b",
]


@pytest.mark.parametrize("pattern, shape", [(p, s) for p, s in BAD_SHAPES.items() if s])
def test_the_rule_catches_each_known_bad_shape(pattern: str, shape: str) -> None:
    assert shape in {f.shape for f in findings(pattern)}, findings(pattern)


@pytest.mark.parametrize("pattern", LINEAR)
def test_the_rule_passes_linear_patterns(pattern: str) -> None:
    assert findings(pattern) == []


def test_the_search_shape_is_super_linear_for_real() -> None:
    """What the rule calls "search" is measured once: doubling the input quadruples the work."""
    import re

    def steps(n: int) -> float:
        text = "<" * n
        start = time.process_time()
        re.search(r"<(.*?)>", text)
        return time.process_time() - start

    small, large = steps(2_000), steps(8_000)
    assert large > 4 * small  # linear would be 4x; quadratic is 16x (a generous margin)


# -- every regular expression in src/ ---------------------------------------------------------------

ALLOWED: set[tuple[str, str]] = set()
"""Patterns that break the rule, by (file, owner): none. Keep it empty; a pattern that cannot keep
the rule reads a bounded window, and says so where it is used."""


@cache
def captured() -> list[dict[str, object]]:
    """What `re` was given from the package: at import, and by the builders (a fresh process)."""
    done = subprocess.run(
        [sys.executable, str(TESTS / "regex_inventory.py")],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    return json.loads(done.stdout)


@cache
def inventory() -> dict[tuple[str, str], list[tuple[str, int]]]:
    """Every pattern in src/, by the call site's (file, owner)."""
    patterns: dict[tuple[str, str], list[tuple[str, int]]] = {}
    records = captured()
    for site in call_sites():
        key = (site.file, site.owner)
        found = {
            (str(r["pattern"]), int(r["flags"]))
            for r in records
            if r["file"] == site.file and site.first_line <= int(r["line"]) <= site.last_line
        }
        if site.literal is not None:
            found.add(site.literal)
        patterns.setdefault(key, [])
        patterns[key] += sorted(found - set(patterns[key]))
    return patterns


def test_every_regex_call_in_src_is_in_the_inventory() -> None:
    """A pattern the source does not spell out must have been seen at import or built by one of
    `regex_inventory.BUILDERS`: otherwise the rule would never see it."""
    unseen = [key for key, found in inventory().items() if not found]
    assert not unseen, f"add a builder to tests/regex_inventory.py for: {unseen}"
    assert set(BUILDERS) <= set(inventory()), "a builder names a call site that is gone"


def test_the_inventory_finds_the_patterns_built_from_parts() -> None:
    built = inventory()[("_secrets.py", "redactor.spelled")]
    assert built and all("&#0*" in pattern for pattern, _flags in built)
    assert ("mock/personas.py", "_TOKEN") in inventory()  # the mock's included: every module read


def test_every_regex_in_src_reads_in_linear_time() -> None:
    broken = {
        key: [(pattern[:80], [f.shape for f in findings(pattern, flags)])]
        for key, found in inventory().items()
        for pattern, flags in found
        if key not in ALLOWED and findings(pattern, flags)
    }
    assert not broken, broken


def test_only_the_mock_is_allowed_to_break_the_rule_and_only_where_it_does() -> None:
    assert all(file.startswith("mock/") for file, _owner in ALLOWED)
    stale = sorted(
        key
        for key in ALLOWED
        if not any(findings(pattern, flags) for pattern, flags in inventory().get(key, []))
    )
    assert not stale, f"these keep the rule now: remove them from ALLOWED: {stale}"


# -- the level loader reads a large file in linear time ---------------------------------------------


def level_text(blocks: int, repeated: bool) -> str:
    body = ", ".join(f'"{n}": "coin"' for n in range(1, blocks + 1))
    if repeated:
        body += ', "1": "star"'
    return f'{{"name": "big", "title": "t", "story": "s", "areas": {{"a": {{{body}}}}}}}'


@pytest.mark.parametrize("repeated", [True, False])
def test_a_level_of_40000_blocks_is_read_in_well_under_a_second_of_cpu(
    tmp_path: Path, repeated: bool
) -> None:
    """Counting the keys once per object: the quadratic scan took about 58 s on this file."""
    path = tmp_path / "big.json"
    path.write_text(level_text(40_000, repeated), encoding="utf-8")
    start = time.process_time()
    if repeated:
        with pytest.raises(LevelFileError, match="block '1' is written twice"):
            load_level(path)
    else:
        assert len(load_level(path).spec.areas["a"]) == 40_000
    assert time.process_time() - start < 5.0  # linear: ~0.1 s; quadratic: ~16 s here, 58 s there


def test_keys_written_twice_are_found_among_many_areas_too(tmp_path: Path) -> None:
    areas = ", ".join(f'"area {n}": {{"{n}": "coin"}}' for n in range(20_000))
    path = tmp_path / "areas.json"
    path.write_text(
        f'{{"name": "x", "title": "t", "story": "s", "areas": {{{areas}, "area 7": {{"1": "star"}}}}}}'
    )
    start = time.process_time()
    with pytest.raises(LevelFileError, match="the area 'area 7' is written twice"):
        load_level(path)
    assert time.process_time() - start < 5.0
