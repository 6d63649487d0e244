"""The Portuguese edition of the notebooks and the guide, built from the English ones and a
catalogue of their paragraphs — the way the Carpentries keep translated lessons from drifting.

    python tools/lesson_i18n.py update   # extract -> lesson.pot, merge into each .po, build the editions
    python tools/lesson_i18n.py check    # what is stale, untranslated, or edited by hand

What is translated: each paragraph of a markdown cell (or of a markdown file), and in code
cells the comments and the string literals that are prose (they hold a space or end in ":"),
f-strings included (their `{...}` fields must stay as written). Everything else is copied as
it is, so the two editions share their code: a code cell of an edition differs from the English
one only in translated comments and literals, in `set_language("en")` set to the edition's
language, and in exercise cells, which are the exercise's own cell in that language. Links to
other notebooks are pointed at the edition's files.

Babel reads and writes the catalogues (`lesson/locale/<locale>/LC_MESSAGES/lesson.po`).
"""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.messages.catalog import Catalog
from i18n import po_bytes, read  # tools/i18n.py: the library's catalogues, written the same way

from whentostop.lesson.classroom import EDITIONS as CLASSROOM
from whentostop.lesson.classroom import NOTEBOOKS as NOTEBOOKS_EN

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
DOCS = ROOT / "docs"
LOCALE = ROOT / "lesson" / "locale"
TEMPLATE = LOCALE / "lesson.pot"
HEADER = "# Paragraphs and code-cell words of the whentostop lesson. See tools/lesson_i18n.py."


@dataclass(frozen=True)
class Edition:
    lang: str
    """The code `set_language` takes."""
    locale: str
    """The catalogue's folder."""
    notebooks: dict[str, str]
    """English notebook file -> this edition's file (in `notebooks/<lang>/`)."""
    docs: dict[str, str]
    """English guide file (in docs/) -> this edition's (in `docs/<lang>/`)."""


EDITIONS = {
    "pt": Edition(
        lang="pt",
        locale="pt_BR",
        notebooks={NOTEBOOKS_EN[short]: name for short, name in CLASSROOM["pt"].items()},
        docs={"workshop.md": "oficina.md", "faults.md": "falhas.md"},
    ),
}
LANGUAGE_LINE = re.compile(r'set_language\("en"\)')
FENCE = re.compile(r"^\s*(```|~~~)")


# -- what is translatable ---------------------------------------------------------------------


def blocks(markdown: str) -> list[str]:
    """The paragraphs of a markdown text: blocks separated by blank lines, a fenced code block
    kept whole (with its blank lines) so it is never split."""
    out: list[str] = []
    current: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                out.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        out.append("\n".join(current))
    return out


def translate_markdown(markdown: str, translate: Callable[[str], str]) -> str:
    """The markdown with each paragraph translated; the blank lines between them as they were."""
    pieces = re.split(r"(\n\s*\n)", markdown)
    out, fenced = [], False
    pending: list[str] = []
    for piece in pieces:
        if re.fullmatch(r"\n\s*\n", piece) and not fenced:
            out.append(_translated_block("".join(pending), translate))
            out.append(piece)
            pending = []
            continue
        pending.append(piece)
        fenced ^= sum(1 for line in piece.split("\n") if FENCE.match(line)) % 2 == 1
    out.append(_translated_block("".join(pending), translate))
    return "".join(out)


def _translated_block(block: str, translate: Callable[[str], str]) -> str:
    """One paragraph translated, looked up as `blocks()` extracts it: without the blank space
    around it (a file's last paragraph ends with the file's newline, its first may follow blank
    lines), which is put back as it was."""
    if not block.strip():
        return block
    body = block.strip("\n")
    head = block[: len(block) - len(block.lstrip("\n"))]
    tail = block[len(head) + len(body) :]
    return head + translate(body) + tail


def is_prose(text: str) -> bool:
    """A string literal a learner reads: words with a space between them, or a label ending in
    ":" ("stop:"). Identifiers, persona and tool names, level names stay as code."""
    letters = re.search(r"[A-Za-zÀ-ÿ]{2,}", text)
    return bool(letters) and (" " in text.strip() or text.rstrip().endswith(":"))


WORD = re.compile(r"[A-Za-z]{2,}")
"""A one-word literal that may be shown: a plain word (not `end_turn`, `gpt-4o`, `slow:0.3`)."""
_SHOWN_IN_FIELD = re.compile(
    r"""(?P<head>\b(?:or|else)\s+)(?P<q>['"])(?P<word>[A-Za-z]{2,})(?P=q)"""
)
"""A word an f-string's field shows in place of a value: `{asked or 'nothing'}`,
`{x if x else 'none'}`."""


def shown_words(source: str) -> set[tuple[int, int]]:
    """Where (row, column, as tokenize counts them) the cell has a one-word literal a learner
    reads: an argument of `print()`, or the fallback of an `or` or a conditional expression
    (`answer or "none"`). Other one-word literals are keys, names and settings: code."""
    try:
        tree = ast.parse(without_magics(source))
    except SyntaxError:
        return set()
    lines = source.split("\n")
    found: set[tuple[int, int]] = set()

    def add(node: ast.expr) -> None:
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and WORD.fullmatch(node.value)
        ):
            line = lines[node.lineno - 1].encode()
            found.add((node.lineno, len(line[: node.col_offset].decode())))

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "print":
                for arg in node.args:
                    add(arg)
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            add(node.values[-1])
        elif isinstance(node, ast.IfExp):
            add(node.body)
            add(node.orelse)
    return found


def _fields_words_translated(text: str, translate: Callable[[str], str]) -> str:
    """An f-string's text with the words its fields show (`{asked or 'nothing'}`) translated;
    the rest of each field as written."""
    return re.sub(
        r"(?<!\{)\{[^{}]*\}(?!\})",
        lambda field: _SHOWN_IN_FIELD.sub(
            lambda m: f"{m['head']}{m['q']}{translate(m['word'])}{m['q']}", field.group(0)
        ),
        text,
    )


_STRING = re.compile(
    r"(?s)^(?P<prefix>[rRbBuUfF]{0,2})(?P<quote>'''|\"\"\"|'|\")(?P<body>.*)(?P=quote)$"
)


def code_pieces(source: str) -> Iterator[tuple[str, str, tuple[int, int], tuple[int, int]]]:
    """(kind, text, start, end) of each comment and prose string literal of a code cell.

    Comments alone on consecutive lines are one piece, their lines joined by newlines (a
    sentence may run over several), from the first line's start to the last line's end; lines
    that start with `%` or `!` (IPython) are skipped."""
    lines = source.split("\n")
    plain = without_magics(source)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(plain).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return
    block: list[tokenize.TokenInfo] = []
    shown = shown_words(source)

    def flush() -> Iterator[tuple[str, str, tuple[int, int], tuple[int, int]]]:
        if block:
            text = "\n".join(tok.string[1:].strip() for tok in block)
            if re.search(r"[A-Za-z]{2,}", text):
                yield "comments", text, block[0].start, block[-1].end
            block.clear()

    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            alone = not lines[tok.start[0] - 1][: tok.start[1]].strip()
            follows = (
                block
                and alone
                and tok.start[0] == block[-1].start[0] + 1
                and tok.start[1] == block[-1].start[1]
            )
            if not follows:
                yield from flush()
            if alone:
                block.append(tok)
                continue
            text = tok.string[1:].strip()
            if text and re.search(r"[A-Za-z]{2,}", text):
                yield "comment", text, tok.start, tok.end
        elif tok.type in (tokenize.NL, tokenize.NEWLINE):
            continue
        else:
            yield from flush()
            if tok.type == tokenize.STRING:
                m = _STRING.match(tok.string)
                if not m or "b" in m["prefix"].lower():
                    continue
                if is_prose(m["body"]) or tok.start in shown:
                    yield "string", m["body"], tok.start, tok.end
                if "f" in m["prefix"].lower():
                    for field in fields(m["body"]):
                        for word in _SHOWN_IN_FIELD.finditer(field):
                            yield "word", word["word"], tok.start, tok.end
    yield from flush()


def without_magics(source: str) -> str:
    """The cell as plain Python: each IPython line (`%pip ...`, `!ls`) becomes `pass` at its
    indentation, so that one inside a block (the install line under its `if`) still parses and
    every other line keeps its number and columns."""
    return "\n".join(
        ln[: len(ln) - len(ln.lstrip())] + "pass" if ln.lstrip().startswith(("%", "!")) else ln
        for ln in source.split("\n")
    )


def translate_code(source: str, translate: Callable[[str], str]) -> str:
    """The code with its comments and prose literals translated, everything else unchanged."""
    lines = source.split("\n")
    edits: list[tuple[int, int, int, int, list[str]]] = []
    for kind, text, start, end in code_pieces(source):
        if kind == "word":  # translated where its f-string is: see _fields_words_translated
            continue
        new = translate(text)
        if kind == "string":
            new = _fields_words_translated(new, translate)
        if new == text:
            continue
        row, col = start[0] - 1, start[1]
        if kind == "comments":  # whole lines: as many comment lines as the translation has
            indent = lines[row][:col]
            edits.append(
                (
                    row,
                    end[0] - 1,
                    0,
                    len(lines[end[0] - 1]),
                    [f"{indent}# {line}".rstrip() for line in new.split("\n")],
                )
            )
        elif kind == "comment":
            original = lines[row][col : end[1]]
            edits.append((row, row, col, end[1], [original.replace(text, new, 1)]))
        elif start[0] == end[0]:  # a literal over several lines stays as written
            original = lines[row][col : end[1]]
            edits.append(
                (row, row, col, end[1], [original.replace(text, new.replace("\n", "\\n"), 1)])
            )
    for first, last, col, end_col, replacement in sorted(edits, reverse=True):
        head, tail = lines[first][:col], lines[last][end_col:]
        replacement = [head + replacement[0], *replacement[1:]]
        replacement[-1] += tail
        lines[first : last + 1] = replacement
    return "\n".join(lines)


def mismatches(english: str, translated: str, locale: str | None = None) -> list[str]:
    """What a translation must keep of its source: the `{fields}` of an f-string, the numbers
    (a minute count, a turn count: prose must not state other numbers than the English), the
    code in backticks, the links' targets (other notebooks are re-pointed when built), and the
    shape of headings and tables."""
    found = []
    if fields(english) != fields(translated):
        found.append("its {fields} changed")

    def numbers(text: str) -> list[str]:
        # 4,300 and 4.5 in English are 4.300 and 4,5 in Portuguese: compared without separators
        # (sorted after that, or the two orders differ)
        found = re.findall(r"\d+(?:[.,]\d+)*", re.sub(r"`[^`]*`|\]\([^)]*\)", "", text))
        return sorted(n.replace(",", "").replace(".", "") for n in found)

    if numbers(english) != numbers(translated):
        found.append("its numbers changed")
    if _code(english) != _code(translated) and (
        locale is None
        or _code(english) != _code(_quoted_as_in_english(english, translated, locale))
    ):
        found.append("its `code` changed")
    if re.findall(r"\]\(([^)]+)\)", english) != re.findall(r"\]\(([^)]+)\)", translated):
        found.append("its link targets changed")
    heading = re.match(r"#+ ", english)
    if heading and not translated.startswith(heading.group(0)):
        found.append("its heading level changed")
    pipes = [line.count("|") for line in english.split("\n")]
    if any(pipes) and pipes != [line.count("|") for line in translated.split("\n")]:
        found.append("its table's shape changed")
    return found


_FENCED = re.compile(r"^\s*(```|~~~).*?^\s*\1", re.S | re.M)
_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


def _code(text: str) -> list[str]:
    """The code of a Markdown text: its fenced blocks without their comments (a comment may be
    translated), then its code spans (any number of backticks), sorted."""
    fenced = [
        re.sub(r"(^|\s)#.*$", "", block, flags=re.M).strip()
        for block in (m.group(0) for m in _FENCED.finditer(text))
    ]
    spans = sorted(_skeleton(m.group(0)) for m in _SPAN.finditer(_FENCED.sub("", text)))
    return fenced + spans


_URL_PLACEHOLDER = re.compile(r"(https://(?:github\.com/)?)[A-Z][A-Z-]*(?=[/\s`\"]|$)")
"""A placeholder the reader replaces, in capitals in an address: `https://YOUR-HUB`,
`https://github.com/YOU/when-to-stop`; the reader's language may name it."""
_ELEMENT = re.compile(r"(?<=[(,])(\s*)[a-zà-ÿ]+(?: [a-zà-ÿ]+)*(\s*)(?=[,)])")
_QUOTED = re.compile(r"(\"[^\"]*\"|'[^']*')")


def _skeleton(span: str) -> str:
    """A code span as the check compares it. A tuple written with words for its values —
    `(False, None, an error line)`, `("answer", the answer, runs)` — has those words for the
    reader to translate: each element that is only lowercase words reads as "…"; so does a
    placeholder in capitals in an address (`https://YOUR-HUB`). The rest
    (True/False/None, numbers, quoted strings, punctuation) and every other span stay as
    written."""
    span = _URL_PLACEHOLDER.sub(r"\1…", span)
    if not (span.strip("`").startswith("(") and "," in span):
        return span
    return "".join(
        piece if _QUOTED.fullmatch(piece) else _ELEMENT.sub(r"\1…\2", piece)
        for piece in _QUOTED.split(span)
    )


# -- the library's own messages, quoted in a guide ------------------------------------------------


@cache
def _library_messages(locale: str) -> tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...]:
    """(the English message as a pattern, its translation as a pattern, the translation) for
    every message of the library's catalogue: a field ("{error}") matches any text."""
    from i18n import LOCALES as LIBRARY_LOCALES
    from i18n import po_path as library_po

    lang = next(code for code, loc in LIBRARY_LOCALES.items() if loc == locale)
    found = []
    for m in read(library_po(lang), locale):
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strs = m.string if isinstance(m.string, tuple) else (m.string,)
        for msgid, msgstr in zip(ids, strs, strict=False):
            # a sentence or a labelled field ("error: {error}"), not a word ("is") or a bare
            # field ("{text}") that would match anything
            words = len(re.findall(r"[A-Za-z]{2,}", fields_out(msgid))) if msgid else 0
            label = re.match(r"[a-z]+: \{", msgid) and not msgid.startswith("model:")
            if msgstr and (words >= 2 or (words and label)):
                found.append((_as_pattern(msgid), _as_pattern(msgstr), msgstr))
    return tuple(found)


def fields_out(message: str) -> str:
    return re.sub(r"\{[^{}]*\}", " ", message)


def _as_pattern(message: str) -> re.Pattern[str]:
    """A message as a pattern: its text literal, each `{field}` a named group (the same field
    twice, the same text)."""
    out, seen = [], set()
    for piece in re.split(r"(\{[^{}]*\}|%\(\w+\)[sdr])", message):
        name = re.fullmatch(r"\{(\w*)[^{}]*\}|%\((\w+)\)[sdr]", piece)
        if not name:
            out.append(re.escape(piece))
            continue
        key = f"f_{name.group(1) or name.group(2) or len(seen)}"
        out.append(f"(?P={key})" if key in seen else f"(?P<{key}>.+?)")
        seen.add(key)
    return re.compile("".join(out), re.S)


def library_says(english: str, locale: str, depth: int = 3) -> str | None:
    """What the library prints in `locale` where it prints `english` in English (a message of
    its catalogue with its fields filled, each field's text itself translated when it is a
    message too), or None when `english` is none of its messages."""
    for source, _target, msgstr in _library_messages(locale):
        m = source.fullmatch(english)
        if not m:
            continue
        values = {}
        for key, text in m.groupdict().items():
            said = library_says(text, locale, depth - 1) if depth else None
            if said is None and (
                len(re.findall(r"\b[a-z]{2,}\b", text)) >= 3 or text.startswith("The ")
            ):
                break  # English words the catalogue cannot say: the guide cannot either
            values[key[2:]] = said or _number_as_in(text, locale)
        else:
            return _filled(msgstr, values)
    return None


def _filled(msgstr: str, values: dict[str, str]) -> str | None:
    """A translation with its `{fields}` and `%(fields)s` filled in."""
    try:
        text = re.sub(r"\{(\w*)[^{}]*\}", lambda f: values.get(f.group(1), f.group(0)), msgstr)
        return re.sub(r"%\((\w+)\)[sdr]", lambda f: values.get(f.group(1), f.group(0)), text)
    except re.error:
        return None


def _number_as_in(text: str, locale: str) -> str:
    """A field's text as the library writes it in `locale`: a number with its separators."""
    if locale.startswith("pt") and re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+\.\d+", text):
        return text.translate(str.maketrans(",.", ".,"))
    return text


def _quoted_as_in_english(english: str, translated: str, locale: str) -> str:
    """The translation with each quoted library message (a code span: what a learner sees)
    put back as the English has it, where it is the library's own message in `locale` for the
    English one: a guide may quote what the library prints in the learner's language, and
    nothing else in a code span may change."""
    for m in _SPAN.finditer(english):
        ticks, quoted = m.group(1), m.group(2)
        said = library_says(quoted, locale)
        if said and said != quoted:
            translated = translated.replace(f"{ticks}{said}{ticks}", m.group(0))
    return translated


def fields(text: str) -> list[str]:
    """The `{...}` fields of an f-string literal, in order: they must survive a translation."""
    return re.findall(r"(?<!\{)\{[^{}]*\}(?!\})", text)


# -- the catalogue ----------------------------------------------------------------------------


def _english_notebooks() -> list[Path]:
    return sorted(p for p in NOTEBOOKS.glob("*.ipynb"))


def extract() -> Catalog:
    """Every translatable piece of the English notebooks and guides, in reading order."""
    catalog = Catalog(
        project="whentostop-lesson", version="", header_comment=HEADER, fuzzy=False, charset="utf-8"
    )
    for path in _english_notebooks():
        nb = json.loads(path.read_text(encoding="utf-8"))
        where = f"notebooks/{path.name}"
        for index, cell in enumerate(nb["cells"]):
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                for block in blocks(source):
                    catalog.add(block, None, [(where, index)])
            elif cell["cell_type"] == "code" and not _exercise_tag(cell):
                for kind, text, _start, _end in code_pieces(source):
                    catalog.add(
                        text,
                        None,
                        [(where, index)],
                        auto_comments=[
                            "a code comment"
                            if kind.startswith("comment")
                            else "a string in code: keep every {field} as it is"
                        ],
                    )
    for name in sorted({d for e in EDITIONS.values() for d in e.docs}):
        for block in blocks((DOCS / name).read_text(encoding="utf-8")):
            catalog.add(block, None, [(f"docs/{name}", 0)])
    return catalog


def po_path(edition: Edition) -> Path:
    return LOCALE / edition.locale / "LC_MESSAGES" / "lesson.po"


def _exercise_tag(cell: dict) -> str | None:
    return next(
        (t for t in cell.get("metadata", {}).get("tags", []) if t.startswith("exercise-")), None
    )


# -- building an edition ----------------------------------------------------------------------


def translator(edition: Edition, missed: set[str] | None = None) -> Callable[[str], str]:
    """msgid -> the edition's text (the English itself while untranslated), links pointed at
    the edition's notebooks. Each text looked up and not found is added to `missed`: the check
    reports what the build leaves in English, wherever it sits in a file."""
    catalog = read(po_path(edition), edition.locale)
    table = {
        m.id: m.string for m in catalog if m.id and m.string and not m.fuzzy and m.context is None
    }

    def translate(text: str) -> str:
        if text not in table and missed is not None:
            missed.add(text)
        return _relink(table.get(text, text), edition)

    return translate


def _relink(text: str, edition: Edition) -> str:
    """Links and paths to the English notebooks, pointed at the edition's."""
    for english, other in edition.notebooks.items():
        text = text.replace(f"]({english}", f"]({other}")
        text = text.replace(f"notebooks/{english}", f"notebooks/{edition.lang}/{other}")
    return text


def build_notebook(path: Path, edition: Edition, missed: set[str] | None = None) -> str:
    """The edition of one notebook, as the JSON text to write."""
    from whentostop.i18n import using
    from whentostop.lesson.checks import by_tag

    translate = translator(edition, missed)
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            new = translate_markdown(source, translate)
        elif cell["cell_type"] == "code":
            tag = _exercise_tag(cell)
            if tag:
                with using(edition.lang):
                    new = by_tag(tag).cell()
            else:
                new = LANGUAGE_LINE.sub(
                    f'set_language("{edition.lang}")', translate_code(source, translate)
                )
        else:
            new = source
        cell["source"] = _lines(new)
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def build_doc(name: str, edition: Edition, missed: set[str] | None = None) -> str:
    """The edition's guide: its paragraphs translated, and what it tells a teacher to open or
    type pointed at the edition — its notebooks by their paths (`notebooks/pt/00_comece_aqui
    .ipynb`), the lesson's commands with `--lang pt`, `make lab LANG=pt`."""
    translate = translator(edition, missed)
    text = translate_markdown((DOCS / name).read_text(encoding="utf-8"), translate)
    for english, other in edition.docs.items():
        text = text.replace(f"]({english}", f"]({other}")
    text = for_the_edition(text, edition)
    # the guide in docs/<lang>/ reaches the notebooks, and the files beside the English guides
    # (docs/z2jh/config.yaml), one folder further up
    text = text.replace("](../notebooks/", f"](../../notebooks/{edition.lang}/")
    guides = tuple(edition.docs.values())
    return re.sub(
        r"\]\((?!https?:|#|\.\./|mailto:)([^)\s]+)\)",
        lambda m: m.group(0) if m.group(1).startswith(guides) else f"](../{m.group(1)})",
        text,
    )


_LESSON_COMMAND = re.compile(
    r"(python -m whentostop (?:link|lesson|lab|dashboard)\b)(?![^`\n]*--lang)"
)
_MAKE_LAB = re.compile(r"\bmake lab\b(?![-\w])(?![^`\n]*\bLANG=)")


def for_the_edition(text: str, edition: Edition) -> str:
    """A guide's commands and notebook names for the edition: an English notebook's file name
    on its own becomes the edition's path, a URL-encoded path the edition's, each command that
    opens the lesson gets the edition's language (`--lang pt`, `make lab LANG=pt`)."""
    for english, other in edition.notebooks.items():
        text = text.replace(
            f"notebooks%2F{english}", f"notebooks%2F{edition.lang}%2F{other}"
        ).replace(f"path={english}", f"path={edition.lang}%2F{other}")
        text = re.sub(
            rf"(?<![\w/%.=-]){re.escape(english)}", f"notebooks/{edition.lang}/{other}", text
        )
    text = _LESSON_COMMAND.sub(rf"\1 --lang {edition.lang}", text)
    return _MAKE_LAB.sub(f"make lab LANG={edition.lang}", text)


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def outputs(edition: Edition, missed: set[str] | None = None) -> dict[Path, str]:
    """Every file of the edition, built from the English sources and the catalogue; what the
    build looked up and the catalogue lacks is added to `missed`."""
    built: dict[Path, str] = {}
    for english, other in edition.notebooks.items():
        source = NOTEBOOKS / english
        if source.exists():
            built[NOTEBOOKS / edition.lang / other] = build_notebook(source, edition, missed)
    for english, other in edition.docs.items():
        built[DOCS / edition.lang / other] = build_doc(english, edition, missed)
    return built


# -- the commands -----------------------------------------------------------------------------


def update() -> None:
    template = extract()
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_bytes(po_bytes(template))
    for edition in EDITIONS.values():
        path = po_path(edition)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            catalog = read(path, edition.locale)
        else:
            catalog = Catalog(
                locale=edition.locale,
                project="whentostop-lesson",
                charset="utf-8",
                header_comment=HEADER,
                fuzzy=False,
            )
        catalog.update(template, update_header_comment=False, no_fuzzy_matching=True)
        path.write_bytes(po_bytes(catalog, ignore_obsolete=True, include_previous=False))
        for target, text in outputs(edition).items():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")


def problems() -> list[str]:
    """Stale template, untranslated pieces, f-string fields lost, editions edited by hand."""
    found: list[str] = []
    template = extract()
    if not TEMPLATE.exists() or po_bytes(template) != TEMPLATE.read_bytes():
        found.append(f"{TEMPLATE.relative_to(ROOT)} is stale: run `make i18n`")
    wanted = {(m.id, m.context) for m in template if m.id}  # one entry per msgid and msgctxt
    for edition in EDITIONS.values():
        path = po_path(edition)
        if not path.exists():
            found.append(f"{path.relative_to(ROOT)} is missing: run `make i18n`")
            continue
        have = {(m.id, m.context): m for m in read(path, edition.locale) if m.id}
        for msgid, context in sorted(wanted, key=lambda key: (key[0], key[1] or "")):
            m = have.get((msgid, context))
            if m is None or m.fuzzy or not m.string:
                found.append(f"{edition.lang}: untranslated: {msgid[:70]!r}")
            else:
                found += [
                    f"{edition.lang}: {problem}: {msgid[:60]!r}"
                    for problem in mismatches(msgid, m.string, edition.locale)
                ]
        missed: set[str] = set()
        for target, text in outputs(edition, missed).items():
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                found.append(
                    f"{target.relative_to(ROOT)} is not what the catalogue builds: "
                    "edit the English source or the .po, then `make i18n`"
                )
            if target.suffix == ".ipynb":
                found += [f"{target.relative_to(ROOT)}: {problem}" for problem in _unparsable(text)]
        found += [
            f"{edition.lang}: the build looked up a text the catalogue lacks: {text[:70]!r}"
            for text in sorted(missed)
        ]
    return found


def _unparsable(notebook: str) -> list[str]:
    """Code cells a translation broke (a quote inside a literal, a lost bracket)."""
    import ast

    broken = []
    for index, cell in enumerate(json.loads(notebook)["cells"]):
        if cell["cell_type"] != "code":
            continue
        try:
            ast.parse(without_magics("".join(cell["source"])))
        except SyntaxError as exc:
            broken.append(f"cell {index} does not parse: {exc.msg}")
    return broken


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "update":
        update()
        command = "check"
    if command == "check":
        found = problems()
        print(
            "\n".join(found[:60]) + (f"\n… {len(found) - 60} more" if len(found) > 60 else "")
            if found
            else "the lesson's editions are complete and built"
        )
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
