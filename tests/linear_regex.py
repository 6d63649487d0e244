"""The linear-time rule for regular expressions that read untrusted text, and the inventory of
every regular expression in `src/` it is applied to (`tests/test_linear_regex.py`).

Python's `re` backtracks, and holds the GIL while it does: one pattern that can try a long span
in many ways stalls every thread of a shared `serve`. A pattern passes the rule when none of these
shapes is in it (each checked on the parse tree `re` itself builds, after its own rewrites):

- **adjacent** — two quantifiers in a row that can take the same characters, with nothing
  between them that only one of them could take: `\\d+\\d+`, `\\w*_\\w*`, `\\s*\\S*\\s*`,
  `.*x.*`. The text between them can be split in O(n) ways, each tried: O(n²) per start.
- **nested** — a quantifier over a group whose body has such an ambiguity with its own next
  round: `(a+)+`, `(\\w+\\s?)*`, `(a*)*` (the body followed by itself is checked as above).
- **alternation** — alternatives that can start with the same character under an unbounded
  quantifier: `(a|ab)*`, `(?:x|\\w)+` (each round can be split two ways: exponential).
- **search** — an unbounded quantifier that can take the character a match starts with, followed
  by something that can fail (a terminator that may never come): `<.*?>`, `a[^x]*x`, `\\s+$`.
  `re.search`, `findall`, `sub` try every start: each attempt scans on to the end, O(n²) in all.
  A pattern anchored at the start of the text (`\\A`, or `^` without MULTILINE) is exempt.

The rule is deliberately simple, so it is conservative: it may refuse a pattern that is in fact
linear (`\\b` between two `\\w*` is not understood), never the other way round for these shapes.
A quantifier bounded at `MANY` or fewer repeats counts as bounded. Characters are compared on a
sample alphabet (`UNIVERSE`: Latin-1 and the other characters the library's patterns name, each
Unicode category Python's classes distinguish) rather than on all of Unicode.

Why our own: the libraries on PyPI catch only some of these shapes. regexploit (last release
2021) and dlint's DUO138 report nested and cubic patterns but none of `\\d+\\d+x`, `<.*?>`,
`(a|ab)*c` or `\\s+$`; redos (0.1.0) reports only exponential shapes; redos-linter runs recheck on
Deno (a second runtime, JavaScript's regex dialect, 16 s for ten patterns) and reads only literals.
None sees a pattern built from parts at run time, which this inventory captures as `re` compiles it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _constants as C
from re import _parser as sre_parse  # the parser `re.compile` runs: the tree it compiles

MANY = 32
"""A quantifier with at most this many repeats is bounded: it cannot make a span unbounded."""

UNIVERSE = frozenset(
    [chr(c) for c in range(256)]
    + list("ſKıİ\u2028\u2029\u3000\u200b\ufeff٣߂中ɛΩωçãõéêóúíáâôº°ß€—…“”‘’")
    + ["\U0001f600"]
)
"""The characters sets are compared on: all of Latin-1, and one or more of every other kind the
patterns in `src/` name or Python's classes (\\w, \\d, \\s, case folding) treat specially."""

_CATEGORY = {
    C.CATEGORY_DIGIT: r"\d",
    C.CATEGORY_NOT_DIGIT: r"\D",
    C.CATEGORY_SPACE: r"\s",
    C.CATEGORY_NOT_SPACE: r"\S",
    C.CATEGORY_WORD: r"\w",
    C.CATEGORY_NOT_WORD: r"\W",
}
_REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)}


@dataclass(frozen=True)
class Finding:
    """One shape that can backtrack over an unbounded span, named as the module doc names it."""

    shape: str
    where: str
    """The part of the pattern it is in, as `re`'s parser shows it."""


def findings(pattern: str, flags: int = 0) -> list[Finding]:
    """Every shape in `pattern` that breaks the linear-time rule; [] when it reads in linear time."""
    parsed = sre_parse.parse(pattern, flags)
    checker = _Checker(parsed.state.flags)
    items = list(parsed)
    checker.sequence(items, frozenset())
    if not _anchored(items, parsed.state.flags):
        checker.search(items, _first(items, checker.flags))
    return checker.found


class _Checker:
    def __init__(self, flags: int) -> None:
        self.flags = flags
        self.found: list[Finding] = []

    def flag(self, shape: str, where: object) -> None:
        finding = Finding(shape, str(where)[:160])
        if finding not in self.found:
            self.found.append(finding)

    def sequence(self, items: list, live: frozenset[str]) -> frozenset[str]:
        """Walk `items` left to right; `live` holds the characters an earlier unbounded
        quantifier can still take at this point. Returns `live` after the sequence."""
        for op, av in items:
            if op in _REPEATS:
                low, high, body = av
                body = list(body)
                takes = _chars_of(body, self.flags)
                if high > MANY:
                    if takes & live:
                        self.flag("adjacent", (op, av))
                    # the body followed by its own next round: nested ambiguity
                    twice = self.sequence(body, frozenset())
                    before = len(self.found)
                    self.sequence(body, twice)
                    if len(self.found) > before:
                        self.found[before:] = [Finding("nested", str((op, av))[:160])]
                    self.alternatives(body)
                    live = takes if low > 0 else live | takes
                else:
                    inner = self.sequence(body, live)
                    live = inner if low > 0 else live | inner
            elif op == C.SUBPATTERN:
                _group, add, remove, body = av
                saved = self.flags
                self.flags = (self.flags | add) & ~remove
                live = self.sequence(list(body), live)
                self.flags = saved
            elif op == C.BRANCH:
                ends = [self.sequence(list(branch), live) for branch in av[1]]
                live = frozenset().union(*ends)
            elif op in (C.ASSERT, C.ASSERT_NOT):
                _direction, body = av
                self.sequence(list(body), frozenset())  # checked on its own: zero-width
            elif op == getattr(C, "ATOMIC_GROUP", None):
                self.sequence(list(av), frozenset())
                live = frozenset()  # no backtracking into it
            elif op == C.AT:
                pass  # zero-width: \b, ^, $ (conservatively: as if always true)
            else:
                # one character: an earlier quantifier goes on only if it could take it too
                # (None: a back-reference, unknown text; no ambiguity assumed across it)
                one = _set_of(op, av, self.flags)
                live = live if one is not None and one & live else frozenset()
        return live

    def alternatives(self, body: list) -> None:
        """Alternatives under an unbounded quantifier that can start alike."""
        for op, av in body:
            if op == C.BRANCH:
                starts = [_first(list(b), self.flags) for b in av[1]]
                for i, a in enumerate(starts):
                    if any(a & b for b in starts[i + 1 :]):
                        self.flag("alternation", (op, av))
                        return
            elif op == C.SUBPATTERN:
                self.alternatives(list(av[3]))
            if not _nullable([(op, av)]):
                return

    def search(self, items: list, starts: frozenset[str], rest: list | None = None) -> None:
        """An unbounded quantifier that can take a match's first character, followed by
        something that can fail: every start position scans on to the end."""
        rest = rest or []
        for i, (op, av) in enumerate(items):
            after = items[i + 1 :] + rest
            if op in _REPEATS:
                low, high, body = av
                if high > MANY and _chars_of(list(body), self.flags) & starts and _can_fail(after):
                    self.flag("search", (op, av))
                self.search(list(body), starts, after)
            elif op == C.SUBPATTERN:
                self.search(list(av[3]), starts, after)
            elif op == C.BRANCH:
                for branch in av[1]:
                    self.search(list(branch), starts, after)


def _set_of(op: int, av: object, flags: int) -> frozenset[str] | None:
    """The characters one single-character item matches (None: not one)."""
    fold = bool(flags & re.IGNORECASE)
    if op == C.LITERAL:
        return _literal(chr(av), fold)
    if op == C.NOT_LITERAL:
        return UNIVERSE - _literal(chr(av), fold)
    if op == C.ANY:
        return UNIVERSE if flags & re.DOTALL else UNIVERSE - {"\n"}
    if op == C.IN:
        chosen: set[str] = set()
        negate = False
        for kind, value in av:
            if kind == C.NEGATE:
                negate = True
            elif kind == C.LITERAL:
                chosen |= _literal(chr(value), fold)
            elif kind == C.RANGE:
                low, high = value
                chosen |= {
                    u
                    for u in UNIVERSE
                    if any(low <= ord(v) <= high for v in {u, u.lower(), u.upper()} if len(v) == 1)
                    and (fold or low <= ord(u) <= high)
                }
            elif kind == C.CATEGORY:
                test = re.compile(_CATEGORY[value], flags & re.ASCII)
                chosen |= {u for u in UNIVERSE if test.fullmatch(u)}
        return frozenset(UNIVERSE - chosen if negate else chosen)
    return None


def _literal(char: str, fold: bool) -> frozenset[str]:
    if not fold:
        return frozenset({char})
    return frozenset(u for u in UNIVERSE if u.casefold() == char.casefold()) | {char}


def _chars_of(items: list, flags: int) -> frozenset[str]:
    """Every character some part of `items` can take."""
    found: set[str] = set()
    for op, av in items:
        one = _set_of(op, av, flags)
        if one is not None:
            found |= one
        elif op in _REPEATS:
            found |= _chars_of(list(av[2]), flags)
        elif op == C.SUBPATTERN:
            found |= _chars_of(list(av[3]), (flags | av[1]) & ~av[2])
        elif op == C.BRANCH:
            for branch in av[1]:
                found |= _chars_of(list(branch), flags)
        elif op in (C.GROUPREF, getattr(C, "ATOMIC_GROUP", None)):
            found |= UNIVERSE
    return frozenset(found)


def _first(items: list, flags: int) -> frozenset[str]:
    """The characters a match of `items` can start with."""
    found: set[str] = set()
    for op, av in items:
        one = _set_of(op, av, flags)
        if one is not None:
            return frozenset(found | one)
        if op in _REPEATS:
            found |= _first(list(av[2]), flags)
            if av[0] > 0:
                return frozenset(found)
        elif op == C.SUBPATTERN:
            found |= _first(list(av[3]), (flags | av[1]) & ~av[2])
            if not _nullable(list(av[3])):
                return frozenset(found)
        elif op == C.BRANCH:
            for branch in av[1]:
                found |= _first(list(branch), flags)
            if not any(_nullable(list(b)) for b in av[1]):
                return frozenset(found)
        elif op == C.GROUPREF:
            return UNIVERSE
    return frozenset(found)


def _nullable(items: list) -> bool:
    """Whether `items` can match the empty string (zero-width items count as empty)."""
    for op, av in items:
        if op in _REPEATS:
            if av[0] > 0 and not _nullable(list(av[2])):
                return False
        elif op == C.SUBPATTERN:
            if not _nullable(list(av[3])):
                return False
        elif op == C.BRANCH:
            if not any(_nullable(list(b)) for b in av[1]):
                return False
        elif op not in (C.AT, C.ASSERT, C.ASSERT_NOT):
            return False
    return True


def _can_fail(items: list) -> bool:
    """Whether what follows can fail to match: anything but optional repeats and groups of them."""
    for op, av in items:
        if op in _REPEATS and av[0] == 0:
            continue
        if op == C.SUBPATTERN and not _can_fail(list(av[3])):
            continue
        return True
    return False


def _anchored(items: list, flags: int) -> bool:
    """Whether a match can start only at the start of the text."""
    for op, av in items:
        if op == C.AT:
            return av == C.AT_BEGINNING_STRING or (
                av == C.AT_BEGINNING and not flags & re.MULTILINE
            )
        if op == C.SUBPATTERN:
            return _anchored(list(av[3]), flags)
        return False
    return False


__all__ = ["MANY", "UNIVERSE", "Finding", "findings"]
