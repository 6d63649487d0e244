"""The reader of intent's words, loaded from `data/intent/<language>.toml`, and the step that
finds them in a text: the longest phrase of the lexicon at each word, in linear time.

The lexicon files say what each list holds and how to write an entry; this module only reads
them (`lexicon("en")`) and matches (`units(text, lexicon)`).
"""

from __future__ import annotations

import tomllib
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from functools import cache
from itertools import islice, pairwise, product

from .._data import data_file
from .words import Token, fold, scan, window

LANGUAGES = ("en", "pt")
MAX_PHRASE_WORDS = 8
"""No entry is longer: a match looks at most this many words ahead."""
MAX_NUMBER = 1_000_000
"""Digits beyond this are read as this: a count that large is never reached anyway."""
_CONTRACTIONS = {"re": "are", "ll": "will", "ve": "have", "d": "would", "m": "am"}
_S_IS = frozenset(["it", "that", "there", "here", "what", "who", "he", "she", "everything"])
LISTS = tomllib.loads(data_file("intent", "lists.toml").read_text(encoding="utf-8"))
"""The names of the lists, shared by every language's lexicon, and the groups of them that the
rules read alike: data/intent/lists.toml."""
WORD_CLASSES = frozenset(LISTS["word_classes"])
"""Lists that say how a word works in a sentence, not what it says about giving up."""
CUES = WORD_CLASSES | frozenset(LISTS["cues"])
"""Every list a lexicon may have under [cues]; the reader has a rule for each."""
VERB_TAGS = frozenset(LISTS["verbs"])
"""Lists whose words are verbs: `verb_negators` negate before them."""
_CLAUSE_OPENERS = frozenset(LISTS["clause_openers"])
"""Lists whose words open a clause: `agreeing` words never agree across them."""
_MISSPELT_FROM = {tag: int(n) for n, tags in LISTS["misspelt_from"].items() for tag in tags}
"""The lists whose words are worth recognising misspelt ("searchs", "alowed"), and from how
many letters."""
_IMPLIED = {"interjection": {"interjection", "permission"}, "done": {"done", "stop"}}
"""A judgement said on its own is a permission too; finishing is stopping."""


@dataclass(slots=True, eq=False)
class _Node:
    """A node of the trie: the words that go on from it, the stems ("desist*") that do, and the
    lists (and number) of the phrase that ends here."""

    children: dict[str, _Node] = field(default_factory=dict)
    prefixes: dict[str, _Node] = field(default_factory=dict)
    tags: frozenset[str] = frozenset()
    number: int | None = None


@dataclass(frozen=True)
class Lexicon:
    """One language's words: spelling, symbols, numbers and the cue lists, as a trie. Each field
    that defaults to an empty set is a list of words the file gives at its top level."""

    language: str
    concord: bool
    spelling: dict[str, tuple[str, ...]]
    symbols: dict[str, str]
    root: _Node = field(repr=False)
    vocabulary: frozenset[str] = field(repr=False)
    fuzzy: dict[str, frozenset[str]] = field(repr=False)
    word_tags: dict[str, frozenset[str]] = field(repr=False)
    """The lists each single word is in: "gave" is past, inside "gave up" too."""
    e_is_before: frozenset[str] = field(repr=False, default=frozenset())
    e_is_after: frozenset[str] = field(repr=False, default=frozenset())
    verb_as_noun: tuple[str, ...] = ()
    """How a verb used as a noun ends ("giving", "desistir")."""
    noun_first_is_subject: bool = False
    """Whether such a verb opening a clause is always its subject (English "giving up ...")."""
    language_words: frozenset[str] = frozenset()
    """Words that tell this language from the other one."""
    verb_negators: frozenset[str] = frozenset()
    """Words that negate only right before a verb (Spanish "no" in "no pode", "no existe")."""
    true_values: frozenset[str] = frozenset()
    false_values: frozenset[str] = frozenset()
    """A key's values in structured text: "give_up: true" says it, "give_up: false" denies it."""
    agreeing: frozenset[str] = frozenset()
    """Negative words that agree with a negation before them in their clause instead of adding
    one ("não achou nada", "se não tiver nem no castelo"): Portuguese concord."""
    negator: str = "not"
    """The word a denied key is read with ("give_up: false" reads "not give up")."""
    reply_values: frozenset[str] = frozenset()
    """False values that, after a key naming a reply, are the reply ("Final answer: none"), where
    the others deny it ("report_failure: false")."""

    def word_has(self, unit: Unit, *tags: str, at: int = 0) -> bool:
        """Whether `unit` is in one of the lists `tags`, or its first word (`at`: which word) is,
        alone: "gave up" is past because "gave" is."""
        alone = self.word_tags.get(unit.words[at], frozenset())
        return unit.has(*tags) or not alone.isdisjoint(tags)

    def words(self, token: Token) -> list[str]:
        """The words a written word stands for: its spelling, contractions split, a near miss of
        a lexicon word corrected."""
        word = token.word
        if word in self.spelling:
            return list(self.spelling[word])
        if "'" in word:
            return self._contraction(word)
        if len(word) >= 5 and word not in self.vocabulary and word.isalpha():
            return [self._nearest(word)]
        return [word]

    def _contraction(self, word: str) -> list[str]:
        stem, _, rest = word.rpartition("'")
        if rest == "t" and stem.endswith("n"):
            return [*self.words(Token("w", stem[:-1], 0, 0)), "not"]
        if rest in _CONTRACTIONS:
            return [stem, _CONTRACTIONS[rest]]
        if rest == "s":
            return [stem, "is"] if stem in _S_IS else [stem]
        return [word.replace("'", "")]

    def _nearest(self, word: str) -> str:
        """A lexicon word one edit away (a letter missing, extra, changed or swapped) with the same
        first letter, if they all mean the same ("searchs": search, searches); else the word."""
        found = set(self.fuzzy.get(word, ()))
        for i in range(len(word)):
            shorter = word[:i] + word[i + 1 :]
            if shorter in self.vocabulary and len(shorter) >= 5:
                found.add(shorter)
            found |= self.fuzzy.get(shorter, frozenset())
        found = {w for w in found if w[0] == word[0]}
        meanings = {self.word_tags.get(w, frozenset()) for w in found}
        return min(found) if len(meanings) == 1 else word


@dataclass(slots=True)
class Unit:
    """A phrase of the lexicon found in the text (or a word it does not know, or a mark)."""

    kind: str
    """"w" for words; a mark of `Token` otherwise."""
    tags: frozenset[str]
    words: tuple[str, ...]
    start: int
    end: int
    quoted: bool = False
    number: int | None = None
    surface: str = ""
    """The first word as written: "giving", "desistir"."""
    verbal: bool = False
    """Whether that word has the form of a verb used as a noun (`verb_as_noun`)."""
    data: bool = False
    """Whether it stands inside braces: a value of structured text ({"found": false})."""

    def has(self, *tags: str) -> bool:
        return not self.tags.isdisjoint(tags)

    @property
    def meaning(self) -> frozenset[str]:
        """Its tags but the word classes that carry no meaning of their own ("the", "just")."""
        return self.tags - WORD_CLASSES


def says(words: list[Unit], *wanted: tuple[str, ...], without: tuple[str, ...] = ()) -> bool:
    """Whether `words` hold a unit of each list of `wanted` (a unit in any of its tags), and no
    unit with a tag of `without`: says(words, ("star",), ("copula", "holds"))."""
    found = all(any(u.has(*tags) for u in words) for tags in wanted)
    return found and not any(u.has(*without) for u in words)


@cache
def lexicon(language: str) -> Lexicon:
    """The lexicon of `language` ("en" or "pt"), read once from data/intent/<language>.toml."""
    if language not in LANGUAGES:
        raise ValueError(f"no lexicon for {language!r}; languages: {', '.join(LANGUAGES)}")
    return read_lexicon(data_file("intent", f"{language}.toml").read_text(encoding="utf-8"))


def read_lexicon(text: str) -> Lexicon:
    """The lexicon a TOML text describes (the format of data/intent/en.toml)."""
    raw = tomllib.loads(text)
    language = raw["language"]
    spelling = {fold(k): tuple(fold(v).split()) for k, v in raw.get("spelling", {}).items()}
    plain = Lexicon(language, bool(raw.get("concord")), spelling, {}, _Node(), frozenset(), {}, {})
    built = _Built(set(spelling) | {w for ws in spelling.values() for w in ws})
    unknown = set(raw.get("cues", {})) - CUES
    if unknown:
        lists = ", ".join(sorted(unknown))
        raise ValueError(f"{language} lexicon: no rule reads the lists {lists}")
    for tag, phrases in raw.get("cues", {}).items():
        for phrase in phrases:
            for words in _expand(phrase, plain):
                built.add(tag, words)
    for phrase, value in raw.get("numbers", {}).items():
        for words in _expand(phrase, plain):
            built.add_number(words, int(value))

    word_sets = {  # every set of words the file lists at its top level, folded
        f.name: frozenset(fold(w) for w in raw.get(f.name, []))
        for f in fields(Lexicon)
        if f.default == frozenset()
    }
    return Lexicon(
        language,
        plain.concord,
        spelling,
        {k: fold(v) for k, v in raw.get("symbols", {}).items()},
        built.root,
        frozenset(built.vocabulary),
        built.fuzzy(),
        {k: frozenset(v) for k, v in built.word_tags.items()},
        verb_as_noun=tuple(fold(w) for w in raw.get("verb_as_noun", [])),
        noun_first_is_subject=bool(raw.get("noun_first_is_subject")),
        negator=fold(raw.get("negator", "not")),
        **word_sets,
    )


@dataclass
class _Built:
    """A lexicon while it is read: the trie, the words it knows, the words worth correcting."""

    vocabulary: set[str]
    root: _Node = field(default_factory=lambda: _Node())
    word_tags: dict[str, set[str]] = field(default_factory=dict)
    fuzzy_words: set[str] = field(default_factory=set)

    def add(self, tag: str, words: list[str]) -> None:
        _insert(self.root, words).tags |= _IMPLIED.get(tag, {tag})
        if len(words) == 1:
            self.word_tags.setdefault(words[0], set()).add(tag)
        whole = [w for w in words if not w.endswith("*")]
        self.vocabulary.update(whole)
        shortest = _MISSPELT_FROM.get(tag)
        if shortest is not None:
            self.fuzzy_words.update(w for w in whole if len(w) >= shortest)

    def add_number(self, words: list[str], value: int) -> None:
        node = _insert(self.root, words)
        node.tags |= {"number"}
        node.number = value
        self.vocabulary.update(words)

    def fuzzy(self) -> dict[str, frozenset[str]]:
        """Each word, and each word with one letter left out, -> the words it may stand for."""
        index: dict[str, set[str]] = {}
        for word in self.fuzzy_words:
            index.setdefault(word, set()).add(word)
            for i in range(len(word)):
                index.setdefault(word[:i] + word[i + 1 :], set()).add(word)
        return {k: frozenset(v) for k, v in index.items()}


def _expand(phrase: str, plain: Lexicon) -> Iterator[list[str]]:
    """Every word sequence a pattern stands for: "give [it] up" -> [give, up], [give, it, up]."""
    slots: list[list[str]] = []
    for slot in phrase.split():
        optional = slot.startswith("[") and slot.endswith("]")
        if not optional and ("[" in slot or "]" in slot):
            raise ValueError(f"lexicon entry {phrase!r}: [ ] holds one word or a/b/c, no spaces")
        choices = slot.strip("[]").split("/")
        slots.append([*choices, ""] if optional else choices)
    for combination in product(*slots):
        words: list[str] = []
        for written in filter(None, combination):
            if written.endswith("*"):
                words.append(fold(written))
            else:
                words.extend(w for t in scan(written) if t.kind == "w" for w in plain.words(t))
        if words:
            yield words


def _insert(root: _Node, words: list[str]) -> _Node:
    if len(words) > MAX_PHRASE_WORDS:
        raise ValueError(f"a lexicon entry has more than {MAX_PHRASE_WORDS} words: {words}")
    node = root
    for word in words:
        if word.endswith("*"):
            node = node.prefixes.setdefault(word[:-1], _Node())
        else:
            node = node.children.setdefault(word, _Node())
    return node


MAX_TOKENS = 640
"""At most this many words and marks are read of one window: more than 3 KB of prose holds, so
that a window of crafted one-character marks costs no more than a window of prose."""


def text_units(text: str, lex: Lexicon) -> list[list[Unit]]:
    """The units of each part of `text` the mock reads (`words.window`)."""
    return [units(part, lex, offset, last=offset > 0) for offset, part in window(text)]


def units(text: str, lex: Lexicon, offset: int = 0, last: bool = False) -> list[Unit]:
    """The phrases of the lexicon in `text`, longest first, in reading order; a word it does not
    know is a unit without tags; marks are units of their kind. Quoted words are marked so. Of a
    very dense text, the first MAX_TOKENS words and marks are read (the last ones, with `last`)."""
    scanned = scan(text, offset)
    kept = deque(scanned, maxlen=MAX_TOKENS) if last else islice(scanned, MAX_TOKENS)
    tokens = _structure(list(_words(kept, lex)), lex, text, offset)
    quoted = _quoted(tokens)
    braced = [depth > 0 for depth in _depths(tokens)]
    _quote_keys(tokens, quoted, text, offset)
    out: list[Unit] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.kind == "w":
            out.append(_phrase(tokens, quoted, braced, i, lex))
            i += len(out[-1].words) - 1  # the words the phrase takes
        elif token.kind != '"':
            out.append(Unit(token.kind, frozenset(), (), token.start, token.end))
        i += 1
    _negate_before_verbs(out, lex)  # (each a language's: without its words, it does nothing)
    _agree(out, lex)
    return out


def _quote_keys(tokens: list[Token], quoted: list[bool], text: str, offset: int) -> None:
    """ "DONE:none", "FOUND:<area>": a word glued to a colon and a value is a key of a reply
    template, marked quoted."""
    for i, (word, colon) in enumerate(pairwise(tokens)):
        glued = colon.kind == ":" and word.end == colon.start and word.kind == "w"
        if glued and colon.end - offset < len(text) and not text[colon.end - offset].isspace():
            quoted[i] = True


def _phrase(
    tokens: list[Token], quoted: list[bool], braced: list[bool], i: int, lex: Lexicon
) -> Unit:
    """The unit of the longest phrase of the lexicon at word `i` (a word it does not know, or a
    number, alone): its words are the ones it takes."""
    token = tokens[i]
    length, node = _longest(tokens, quoted, i, lex.root)
    if node is None:
        length, tags, number = 1, frozenset[str](), _digits(token.word)
        if number is not None:  # a "3" may be a code ("three", a lexicon number, is not here)
            times = "x" in (token.word[0], token.word[-1])  # "empty x2", "each area 3x"
            tags = frozenset(["number", "unit", "repeat"] if times else ["number"])
    else:
        tags, number = node.tags, node.number
    words = tuple(t.word for t in tokens[i : i + length])
    end = tokens[i + length - 1].end
    verbal = _verbal(token.surface, lex.verb_as_noun)
    return Unit(
        "w", tags, words, token.start, end, quoted[i], number, token.surface, verbal, braced[i]
    )


def _agree(found: list[Unit], lex: Lexicon) -> None:
    """ "Não achou nada", "se a estrela não tiver nem no castelo": a negative word after a
    negation in its clause agrees with it, and negates nothing more (it keeps what else it is:
    "nada" still says nothing was found)."""
    negated = False
    for unit in found:
        if unit.kind != "w" or unit.words == ("que",) or not unit.tags.isdisjoint(_CLAUSE_OPENERS):
            negated = False
        elif "negation" in unit.tags and negated and " ".join(unit.words) in lex.agreeing:
            unit.tags = unit.tags - {"negation"} | {"agrees"}
        elif "negation" in unit.tags:
            negated = True


def _negate_before_verbs(found: list[Unit], lex: Lexicon) -> None:
    """ "Você no pode parar", "se a estrela no existe": a word that negates only before a verb
    is a negation there, and what it is elsewhere ("no castelo") otherwise."""
    for unit, following in pairwise(found):
        verb = following.kind == "w" and not following.tags.isdisjoint(VERB_TAGS)
        if len(unit.words) == 1 and unit.words[0] in lex.verb_negators and verb:
            unit.tags = frozenset(["negation"])


def _digits(word: str) -> int | None:
    """ "3", "3rd", "3ª", "2-3" (the larger), "x2" or "2x" (times): a number written with
    digits."""
    if word[:1] == "-":
        return None
    if len(word) > 1 and "x" in (word[0], word[-1]) and word.strip("x").isdigit():
        return _digits(word.strip("x"))
    if "-" in word:
        parts = [_digits(p) for p in word.split("-")]
        return max(p for p in parts if p is not None) if all(p is not None for p in parts) else None
    digits = len(word) - len(word.lstrip("0123456789"))
    if not digits or word[digits:] not in ("", "st", "nd", "rd", "th", "o", "a", "ª", "º"):
        return None
    return int(word[:digits]) if digits <= 6 else MAX_NUMBER


def _words(tokens: Iterable[Token], lex: Lexicon) -> Iterator[Token]:
    """Each word replaced by the words it stands for; symbols named or dropped."""
    previous = ""
    pending: Token | None = None
    for token in tokens:
        if token.kind == "s":
            named = lex.symbols.get(token.word)
            if named is None:
                continue
            token = Token("w", named, token.start, token.end, named)
        if token.kind != "w":
            if pending is not None:
                yield pending
                pending = None
            previous = ""
            yield token
            continue
        for word in lex.words(token):
            step = Token("w", word, token.start, token.end, token.surface)
            if pending is not None:  # "e" (and) reads "é" (is) before "proibido"
                is_ = word in lex.e_is_before or previous in lex.e_is_after
                yield Token("w", "ɛ", pending.start, pending.end, "e") if is_ else pending
                pending = None
            if lex.e_is_before and word == "e":
                pending = step
                continue
            previous = word
            yield step
    if pending is not None:
        yield pending


_KEY_WORDS = 8
"""A key of structured text is at most this many words ("on_all_areas_empty")."""


def _structure(tokens: list[Token], lex: Lexicon, text: str, offset: int) -> list[Token]:
    """Structured text (JSON, YAML, settings) read as the sentences it stands for: quotation
    marks inside braces are JSON's, not a quotation; a key whose value is true says the key
    ("give_up_allowed": true), one whose value is false denies it ("found": false reads "not
    found"; "halt condition: none", "no halt condition"), unless the key names a reply ("Final
    answer: none" is what to answer)."""
    out: list[Token] = []
    for i, (token, depth) in enumerate(zip(tokens, _depths(tokens), strict=True)):
        if token.kind == '"' and depth:
            continue
        if token.kind == "w" and _a_value(tokens, i, depth, text, offset):
            if token.word in lex.false_values:
                _deny_key(out, lex, token.word)
            if token.word not in lex.false_values and token.word not in lex.true_values:
                out.append(token)
            if _commented(tokens, i, text, offset):  # "allow_give_up: false  # was true"
                out.append(Token(".", "", token.end, token.end))  # the comment is its own
            continue
        out.append(token)
    return out


def _commented(tokens: list[Token], i: int, text: str, offset: int) -> bool:
    """Whether a comment ("# ...") follows word i on its line."""
    following = tokens[i + 1 : i + 2]
    return bool(following) and "#" in text[tokens[i].end - offset : following[0].start - offset]


def _a_value(tokens: list[Token], i: int, depth: int, text: str, offset: int) -> bool:
    """Whether word i is a key's whole value: after a colon (spaced, inside braces, or a glued
    "=" of a settings line), before a break, a comment or the end ("DONE:none", glued outside
    braces, is a reply template's)."""
    if i == 0 or tokens[i - 1].kind != ":":
        return False
    colon = tokens[i - 1]
    glued = colon.end - offset < len(text) and not text[colon.end - offset].isspace()
    if not depth and glued and text[colon.start - offset] != "=":
        return False
    following = tokens[i + 1 : i + 2]
    if _commented(tokens, i, text, offset):
        return True  # "give_up_allowed: false  # overrides the line above"
    return not following or following[0].kind in (",", ".", "h", "t", "?")


def _deny_key(out: list[Token], lex: Lexicon, value: str) -> None:
    """Put the lexicon's negator before the key that ends out (before its colon), unless the
    value is what a reply key says ("Final answer: none")."""
    colon = len(out) - 1
    start = colon
    while start > 0 and out[start - 1].kind in ("w", '"') and colon - start < _KEY_WORDS:
        start -= 1
    key = [t.word for t in out[start:colon] if t.kind == "w"]
    reply = value in lex.reply_values
    if not key or (reply and any("report" in lex.word_tags.get(w, ()) for w in key)):
        return
    at = out[start]
    out.insert(start, Token("w", lex.negator, at.start, at.start, lex.negator))


def _depths(tokens: list[Token]) -> list[int]:
    """How deep inside braces each token stands ("{"found": false}"), its own brace counted."""
    depths, depth = [], 0
    for token in tokens:
        if token.kind == "," and token.word in ("{", "}"):
            depth = depth + 1 if token.word == "{" else max(0, depth - 1)
        depths.append(depth)
    return depths


def _quoted(tokens: list[Token]) -> list[bool]:
    """Which words stand between a pair of quotation marks in the same sentence."""
    flags = [False] * len(tokens)
    open_at: int | None = None
    for i, token in enumerate(tokens):
        if token.kind == '"':
            if open_at is None:
                open_at = i
            else:
                flags[open_at + 1 : i] = [True] * (i - open_at - 1)
                open_at = None
        elif token.kind in ".?ht":
            open_at = None  # a quotation left open ends with its sentence, unread as one
    return flags


def _longest(
    tokens: list[Token], quoted: list[bool], i: int, root: _Node
) -> tuple[int, _Node | None]:
    """The longest entry starting at word `i`, and its node (tags of every path that ends there
    are merged): at most MAX_PHRASE_WORDS words ahead, never across a mark or a quotation."""
    frontier = [root]
    best: tuple[int, _Node | None] = (0, None)
    j = i
    while frontier and j < len(tokens) and j - i < MAX_PHRASE_WORDS:
        token = tokens[j]
        if token.kind != "w" or quoted[j] != quoted[i]:
            break
        word = token.word
        following: list[_Node] = []
        for node in frontier:
            child = node.children.get(word)
            if child is not None:
                following.append(child)
            if word == "ɛ" and node is not root and "e" in node.children:  # "é" as "e" inside
                following.append(node.children["e"])
            following.extend(c for stem, c in node.prefixes.items() if word.startswith(stem))
        j += 1
        ends = [n for n in following if n.tags]
        if ends:
            best = (j - i, _merged(ends))
        frontier = following
    return best


def _merged(nodes: list[_Node]) -> _Node:
    if len(nodes) == 1:
        return nodes[0]
    number = next((node.number for node in nodes if node.number is not None), None)
    return _Node(tags=frozenset().union(*(node.tags for node in nodes)), number=number)


def _verbal(word: str, endings: tuple[str, ...]) -> bool:
    """Whether a word has the form of a verb used as a noun: an ending after a stem of three
    letters or more ("giving", "saying"; not "ping", "bring")."""
    return any(word.endswith(e) and len(word) - len(e) >= 3 for e in endings)
