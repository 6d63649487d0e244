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

import io
import json
import re
import sys
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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
    return translate(block) if block.strip() else block


def is_prose(text: str) -> bool:
    """A string literal a learner reads: words with a space between them, or a label ending in
    ":" ("stop:"). Identifiers, persona and tool names, level names stay as code."""
    letters = re.search(r"[A-Za-zÀ-ÿ]{2,}", text)
    return bool(letters) and (" " in text.strip() or text.rstrip().endswith(":"))


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
                if m and "b" not in m["prefix"].lower() and is_prose(m["body"]):
                    yield "string", m["body"], tok.start, tok.end
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
        new = translate(text)
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


def mismatches(english: str, translated: str) -> list[str]:
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
    if _code(english) != _code(translated):
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
    spans = sorted(m.group(0) for m in _SPAN.finditer(_FENCED.sub("", text)))
    return fenced + spans


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


def translator(edition: Edition) -> Callable[[str], str]:
    """msgid -> the edition's text (the English itself while untranslated), links pointed at
    the edition's notebooks."""
    catalog = read(po_path(edition), edition.locale)
    table = {m.id: m.string for m in catalog if m.id and m.string and not m.fuzzy}

    def translate(text: str) -> str:
        return _relink(table.get(text, text), edition)

    return translate


def _relink(text: str, edition: Edition) -> str:
    """Links and paths to the English notebooks, pointed at the edition's."""
    for english, other in edition.notebooks.items():
        text = text.replace(f"]({english}", f"]({other}")
        text = text.replace(f"notebooks/{english}", f"notebooks/{edition.lang}/{other}")
    return text


def build_notebook(path: Path, edition: Edition) -> str:
    """The edition of one notebook, as the JSON text to write."""
    from whentostop.i18n import using
    from whentostop.lesson.checks import by_tag

    translate = translator(edition)
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


def build_doc(name: str, edition: Edition) -> str:
    translate = translator(edition)
    text = translate_markdown((DOCS / name).read_text(encoding="utf-8"), translate)
    for english, other in edition.docs.items():
        text = text.replace(f"]({english}", f"]({other}")
    # the guide in docs/<lang>/ reaches the notebooks, and the files beside the English guides
    # (docs/z2jh/config.yaml), one folder further up
    text = text.replace("](../notebooks/", f"](../../notebooks/{edition.lang}/")
    guides = tuple(edition.docs.values())
    return re.sub(
        r"\]\((?!https?:|#|\.\./|mailto:)([^)\s]+)\)",
        lambda m: m.group(0) if m.group(1).startswith(guides) else f"](../{m.group(1)})",
        text,
    )


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def outputs(edition: Edition) -> dict[Path, str]:
    """Every file of the edition, built from the English sources and the catalogue."""
    built: dict[Path, str] = {}
    for english, other in edition.notebooks.items():
        source = NOTEBOOKS / english
        if source.exists():
            built[NOTEBOOKS / edition.lang / other] = build_notebook(source, edition)
    for english, other in edition.docs.items():
        built[DOCS / edition.lang / other] = build_doc(english, edition)
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
    wanted = {m.id for m in template if m.id}
    for edition in EDITIONS.values():
        path = po_path(edition)
        if not path.exists():
            found.append(f"{path.relative_to(ROOT)} is missing: run `make i18n`")
            continue
        have = {m.id: m for m in read(path, edition.locale) if m.id}
        for msgid in sorted(wanted):
            m = have.get(msgid)
            if m is None or m.fuzzy or not m.string:
                found.append(f"{edition.lang}: untranslated: {msgid[:70]!r}")
            else:
                found += [
                    f"{edition.lang}: {problem}: {msgid[:60]!r}"
                    for problem in mismatches(msgid, m.string)
                ]
        for target, text in outputs(edition).items():
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                found.append(
                    f"{target.relative_to(ROOT)} is not what the catalogue builds: "
                    "edit the English source or the .po, then `make i18n`"
                )
            if target.suffix == ".ipynb":
                found += [f"{target.relative_to(ROOT)}: {problem}" for problem in _unparsable(text)]
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
