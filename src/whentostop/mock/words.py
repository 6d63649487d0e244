"""How the mock reads text, in linear time: what part of a text it reads, folding, and a
tokeniser that turns it into words and punctuation with their offsets in the original.

Every text the mock reads (a prompt, a tool's description, a tool's result) may be long or
crafted. The mock reads at most the first `HEAD_CHARS` and the last `TAIL_CHARS` of it, as a
model's attention would, and each step below walks the text once: no regular expression, no
search that can start again at every character.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Generator, Iterator
from dataclasses import dataclass

HEAD_CHARS = 3072
"""The mock reads this much from the start of a text ..."""
TAIL_CHARS = 3072
"""... and this much from its end (a later instruction decides), nothing in between."""
MAX_WORD_CHARS = 40
"""A longer run of letters is not a word anyone wrote to the model: it is skipped."""

_QUOTES = dict(zip("’‘`´“”„«»–—‐", "''''" + '"' * 5 + "-" * 3, strict=True))
"""Curly and typed quotation marks read as straight ones, dashes as a hyphen."""
_SENTENCE_END = frozenset(".!?…")
_BREAK = frozenset(",;()[]")
"""Marks that break a clause (a run of them, one break); a brace breaks one too, read apart."""
PLACEHOLDER_CHARS = 40
"""A "<name>" longer than this is not a template's placeholder: its "<" is a symbol."""


def window(text: str, head: int = HEAD_CHARS, tail: int = TAIL_CHARS) -> list[tuple[int, str]]:
    """The parts of `text` the mock reads, each with its offset: the whole text when short, else
    its first `head` and last `tail` characters, cut at a space where one is near."""
    if len(text) <= head + tail:
        return [(0, text)]
    cut = text.rfind(" ", head - 200, head)
    first = text[: cut if cut > 0 else head]
    start = len(text) - tail
    space = text.find(" ", start, start + 200)
    start = space + 1 if space >= 0 else start
    return [(0, first), (start, text[start:])]


def fold(text: str) -> str:
    """Lower case, no accents, straight quotes, and exactly as long as `text`, so an offset in
    the folded text is the same offset in the original."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters grow in lower case: leave those as they are
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    if lowered.isascii():
        return lowered
    table = {ord(c): _plain(c) for c in set(lowered) if not c.isascii()}
    return lowered.translate(table)


def _plain(c: str) -> str:
    if c in _QUOTES:
        return _QUOTES[c]
    base = unicodedata.normalize("NFD", c)[0]
    return base if base.isascii() and base.isalpha() else c


@dataclass(frozen=True, slots=True)
class Token:
    """A word (kind "w") or a mark: "." (a sentence ends), "?" (a question ends), "h" (a line
    that heads the lines under it ends), "t" (the list under a "Label:" line has ended), ","
    (a clause break), ":" (a colon), '"' (a quotation mark), or "s" (a symbol, for the lexicon
    to name)."""

    kind: str
    word: str
    start: int
    end: int
    """Offsets in the original text."""
    surface: str = ""
    """The word as written (folded), before spelling was applied: "giving", "desistir"."""


def scan(text: str, offset: int = 0) -> Iterator[Token]:
    """The words and marks of `text` (already a window), in one pass, line by line. Words keep
    inner apostrophes and hyphens ("don't", "empty-handed"); "_" separates words ("NOT_FOUND");
    a run of marks is one mark; a line break ends a sentence, and ends a heading ("h") after a
    line that heads what follows ("## When to stop", "**Rules**", "Stop conditions:"; a label's
    heading ends with the first line under it that is not an item of a list); symbols are
    returned as kind "s" for the lexicon to name."""
    folded = fold(text)
    begin = 0
    under = -1  # lines read under a "Stop conditions:" label: its first line, then its list
    while begin <= len(folded):
        end = folded.find("\n", begin)
        end = len(folded) if end < 0 else end
        line = folded[begin:end].strip()
        heads = bool(line) and (
            line.startswith("#") or line.endswith(":") or (line[:2] == "**" == line[-2:])
        )
        item = line[:1] in ("-", "*", "•", ">") or line[:1].isdigit()
        if under > 0 and line and not heads and not item:
            under = -1
            yield Token("t", "", offset + begin, offset + begin)  # the list has ended
        for start, stop in _unstruck(folded, begin, end):
            yield from _scan_line(text, folded, start, stop, offset)
        if end < len(folded) and line:
            under = (0 if not line.startswith("#") else -1) if heads else under + (under >= 0)
            yield Token("h" if heads else ".", "", offset + end, offset + end + 1)
        begin = end + 1


_STRUCK = (("~~", "~~"), ("<s>", "</s>"), ("<del>", "</del>"), ("<strike>", "</strike>"))
"""Marks around words struck out ("~~never give up~~", "<del>...</del>"): taken back, unread."""


def _unstruck(folded: str, begin: int, end: int) -> list[tuple[int, int]]:
    """The spans of the line folded[begin:end] that are not struck out (a mark left open strikes
    nothing), found left to right: each mark's next place is looked for only once passed, so
    every character is looked at a bounded number of times."""
    spans, i = [], begin
    ahead = {o: folded.find(o, i, end) for o, _ in _STRUCK}
    while True:
        for o in ahead:
            if 0 <= ahead[o] < i:
                ahead[o] = folded.find(o, i, end)
        found = [(at, o, c) for o, c in _STRUCK if (at := ahead[o]) >= 0]
        if not found:
            break
        at, opening, closing = min(found)
        close = folded.find(closing, at + len(opening), end)
        if close < 0:
            break
        spans.append((i, at))
        i = close + len(closing)
    spans.append((i, end))
    return spans


def _scan_line(text: str, folded: str, i: int, n: int, offset: int) -> Iterator[Token]:
    """The words and marks of folded[i:n], one line; a bullet or "#" at its start says nothing."""
    while i < n and folded[i] in " \t\r#-•>*":
        i += 1
    while i < n:
        c = folded[i]
        if c.isalnum() or (c == "-" and i + 1 < n and folded[i + 1].isdigit()):
            j = _word_end(folded, i, n)
            yield from _word(text, folded, i, j, n, offset)
            i = j
        elif c in " \t\r_*#":
            i += 1
        elif c in _SENTENCE_END:
            j = i
            while j < n and folded[j] in ".!?…":
                j += 1
            yield Token(_end_mark(folded, i, j), "", offset + i, offset + j)
            i = j
        else:
            i = yield from _mark(text, folded, i, n, offset)


def _word(text: str, folded: str, i: int, j: int, n: int, offset: int) -> tuple[Token, ...]:
    """The token the word folded[i:j] is read as, or none for a word that says nothing: a
    template's variable, a label's number, an item's number in parentheses, an overlong word."""
    if j - i == 1 and folded[j : j + 1] == "=":  # "N=4": a template's variable
        return ()
    if folded[i:j].isdigit() and j - i <= 2 and folded[j : j + 2] in (": ", ":"):
        return ()  # "Rule 4: ...", "Passo 2:": a label's number, not a count
    if _enumerator(folded, i, j, n):  # "2) Prefer ...", "(b) if it doesn't": an item
        return () if folded[i - 1 : i] == "(" else (Token(".", "", offset + i, offset + j + 1),)
    if j - i <= MAX_WORD_CHARS:
        word = "ɛ" if text[i:j] in ("é", "É") else folded[i:j]
        return (Token("w", word, offset + i, offset + j, folded[i:j]),)
    return ()


def _placeholder(
    text: str, folded: str, i: int, n: int, offset: int
) -> Generator[Token, None, int]:
    """ "<N>", "<area>": a template's placeholder, read as a quoted name; "<<stop_rule>>": a
    template's label, read as a break between its parts. A "<" that closes nowhere near is a
    symbol."""
    if folded[i : i + 2] == "<<":
        close = folded.find(">>", i + 2, min(n, i + 2 + PLACEHOLDER_CHARS))
        if close >= 0:
            yield Token(",", "", offset + i, offset + close + 2)
            return close + 2
    else:
        close = folded.find(">", i + 1, min(n, i + 1 + PLACEHOLDER_CHARS))
        if close >= 0 and "<" not in folded[i + 1 : close]:
            yield Token('"', "", offset + i, offset + i + 1)
            yield from _scan_line(text, folded, i + 1, close, offset)
            yield Token('"', "", offset + close, offset + close + 1)
            return close + 1
    yield Token("s", "<", offset + i, offset + i + 1)
    return i + 1


def _enumerator(folded: str, i: int, j: int, n: int) -> bool:
    """Whether folded[i:j] labels an item of a list: one or two digits, a letter or a roman
    numeral, closed by ")" ("1)", "b)", "(ii)"), never a count ("três (3) buscas" keeps it)."""
    if j >= n or folded[j] != ")" or (i > 0 and folded[i - 1] not in " \t(") or j - i > 4:
        return False
    word = folded[i:j]
    if word.isdigit():
        return len(word) <= 2 and folded[i - 1 : i] != "("
    return len(word) == 1 or set(word) <= set("ivx")


def _end_mark(folded: str, i: int, j: int) -> str:
    """ "?" for a question, "." for a sentence's end, "," for an ellipsis that the sentence goes on
    after ("Don't give up... unless every area is empty")."""
    run = folded[i:j]
    if "?" in run:
        return "?"
    goes_on = j + 1 < len(folded) and folded[j] == " " and folded[j + 1].islower()
    return "," if run in ("..", "...", "…", "....") and goes_on else "."


def _word_end(folded: str, i: int, n: int) -> int:
    j = i + 1
    while j < n:
        c = folded[j]
        if c.isalnum():
            j += 1
        elif c in "'-." and j + 1 < n and folded[j + 1].isalnum() and folded[j - 1].isalnum():
            if c == "." and not (folded[j - 1].isdigit() and folded[j + 1].isdigit()):
                break  # "0.5" is one word; "fim.Depois" is two
            j += 1
        else:
            break
    return j


_KEY_CHARS = 40
"""A settings key is at most this long ("give_up_when_not_found")."""


def _a_key(folded: str, i: int, n: int) -> bool:
    """Whether the "=" at i gives a key its value: glued ("STAR=none"), or spaced after the
    one word that opens a line, as in a settings file ("report_not_found = off")."""
    after = folded[i + 1 : i + 2]
    if 0 < i < n - 1 and folded[i - 1].isalpha() and (after.isalnum() or after == "<"):
        return True  # between a word and a value with no space
    line = folded[max(0, i - _KEY_CHARS) : i].rpartition("\n")[2]  # (a full window: no key)
    key = line.strip()
    value = after == " " and folded[i + 2 : i + 3].isalnum()
    spaced = line.endswith(" ") and len(line) < _KEY_CHARS
    return value and spaced and bool(key) and all(c.isalnum() or c in "_.-" for c in key)


def _mark(text: str, folded: str, i: int, n: int, offset: int) -> Generator[Token, None, int]:
    """One punctuation mark or symbol at `i`; returns where the next token starts."""
    c = folded[i]
    if c == "(" and folded[i + 1 : i + 5].partition(")")[0].isdigit() and ")" in folded[i : i + 5]:
        return folded.index(")", i) + 1  # "três (3) buscas": the number said again, no break
    if c in _BREAK:
        j = i + 1
        while j < n and (folded[j] in _BREAK or folded[j] in " \t"):
            j += 1  # "((((", ", ,": one break
        yield Token(",", "", offset + i, offset + j)
        return j
    if c == "<":
        return (yield from _placeholder(text, folded, i, n, offset))
    return (yield from _symbol(folded, i, n, offset))


def _symbol(folded: str, i: int, n: int, offset: int) -> Generator[Token, None, int]:
    """A mark that is not a break nor a placeholder: a brace, a key's colon, a quote, an arrow,
    a dash, a bullet, or any other symbol; returns where the next token starts."""
    c, two = folded[i], folded[i : i + 2]
    if c == "•":
        return i + 1
    kind, word, j = "s", c, i + 1
    if c in "{}":  # a brace is a break the lexicon reads: quotes inside braces are JSON's
        kind = ","
    elif c == ":" or (c == "=" and _a_key(folded, i, n)):  # ("STAR=none": a key, as "STAR:none")
        kind, word = ":", ""
    elif c in "\"'":
        kind, word = '"', ""
    elif two in ("->", "=>"):
        word, j = two, i + 2
    elif c == "-":  # a dash breaks a clause
        kind, word = ",", ""
        while j < n and folded[j] == "-":
            j += 1
    yield Token(kind, word, offset + i, offset + j)
    return j
