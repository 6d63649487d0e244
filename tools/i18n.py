"""The catalogues: extract every learner-facing string, keep each language's `.po` in step, compile.

    python tools/i18n.py update     # extract -> locale/whentostop.pot, merge into each .po, compile .mo
    python tools/i18n.py check      # what is stale or untranslated (tests/test_i18n.py runs the same)

Babel does the work (extraction, merging, compiling); this file only says where things are. The
library marks strings with `_()`, `N_()` and `ngettext()` (see `whentostop/i18n.py`); the shipped
levels' titles and stories are extracted from their JSON files, the command line's words from
data/cli.toml, the loop library's longer words from data/said.toml, and the exercises' words from
data/lesson/ (`whentostop.lesson.content.msgids`).
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "whentostop"
LOCALE = PACKAGE / "locale"
TEMPLATE = LOCALE / "whentostop.pot"
LEVELS = ROOT / "data" / "levels"
CLI = ROOT / "data" / "cli.toml"
SAID = ROOT / "data" / "said.toml"
LOCALES = {"pt": "pt_BR"}
KEYWORDS = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "NC_": ((1, "c"), 2),
    "pgettext": ((1, "c"), 2),
}
PLURAL_FORMS = {"pt": "nplurals=2; plural=(n > 1);"}
HEADER = "Learner-facing words of whentostop. Code stays English; see src/whentostop/i18n.py."


def extract() -> Catalog:
    """Every marked string of the library and every level's title and story, in source order."""
    catalog = Catalog(
        project="whentostop", version="", header_comment=f"# {HEADER}", fuzzy=False, charset="utf-8"
    )
    for filename, lineno, message, comments, context in extract_from_dir(
        str(PACKAGE),
        method_map=[("**.py", "python")],
        keywords=KEYWORDS,
        comment_tags=("Translators:",),
        strip_comment_tags=True,
    ):
        catalog.add(
            message,
            None,
            [(f"src/whentostop/{filename}", lineno)],
            auto_comments=comments,
            context=context,
        )
    for path, line, text in _level_strings():
        catalog.add(text, None, [(path, line)])
    for text in _cli_strings():
        catalog.add(text, None, [("data/cli.toml", 0)])
    for text in _said_strings():
        catalog.add(text, None, [("data/said.toml", 0)])
    for path, text in _lesson_strings():  # a question's option may carry its context (NC_)
        catalog.add(text, None, [(path, 0)], context=getattr(text, "context", None))
    return catalog


def _level_strings() -> Iterator[tuple[str, int, str]]:
    for path in sorted(LEVELS.glob("*.json")):
        spec = json.loads(path.read_text(encoding="utf-8"))
        for key in ("title", "story"):
            if spec.get(key):
                yield f"data/levels/{path.name}", 0, spec[key]


def _cli_strings() -> Iterator[str | tuple[str, ...]]:
    """The command line's words: its description, argparse's own words (the plural one as its
    two forms), the exit statuses, each command's and option's help."""
    import tomllib

    cli = tomllib.loads(CLI.read_text(encoding="utf-8"))
    yield from (cli["description"], cli["lang_help"], *cli["argparse"]["words"])
    yield tuple(cli["argparse"]["plural"])
    yield from cli["exit_status"].values()
    for command in cli["commands"].values():
        yield command["help"]
        yield from (option["help"] for option in command["options"] if "help" in option)


def _said_strings() -> Iterator[str | tuple[str, ...]]:
    """What the loop library says at length (`whentostop.i18n.say`): each message, a plural one
    as its two forms."""
    import tomllib

    for text in tomllib.loads(SAID.read_text(encoding="utf-8"))["said"].values():
        yield tuple(text) if isinstance(text, list) else text


def _lesson_strings() -> Iterator[tuple[str, str]]:
    """The exercises' words in data/lesson/: hints, case titles, success messages, and the
    comments and prose literals of each blank cell and solution (translated line by line)."""
    from whentostop.lesson.content import msgids

    yield from msgids()


def po_path(lang: str) -> Path:
    return LOCALE / LOCALES[lang] / "LC_MESSAGES" / "whentostop.po"


def po_bytes(catalog: Catalog, **options: bool) -> bytes:
    """A catalogue as .po (or .pot) bytes, the same bytes for the same messages (also the
    lesson's catalogues, tools/lesson_i18n.py)."""
    out = io.BytesIO()
    write_po(out, catalog, width=100, include_lineno=False, **options)
    # the dates change on every run: leave them out, so an unchanged catalogue stays unchanged
    return b"\n".join(
        line
        for line in out.getvalue().split(b"\n")
        if not line.startswith((b'"POT-Creation-Date', b'"PO-Revision-Date'))
    )


def _mo_bytes(catalog: Catalog) -> bytes:
    # fixed dates in the .mo's header, so the same .po always compiles to the same bytes
    catalog.creation_date = catalog.revision_date = datetime(2026, 1, 1, tzinfo=UTC)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def update() -> None:
    template = extract()
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_bytes(po_bytes(template))
    for lang, locale in LOCALES.items():
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            catalog = read(path, locale)
        else:
            catalog = Catalog(
                locale=locale,
                project="whentostop",
                charset="utf-8",
                header_comment=f"# {HEADER}",
                fuzzy=False,
            )
            # the two forms Brazilian gettext catalogues use, not CLDR's three
            catalog.mime_headers = [
                (k, PLURAL_FORMS[lang] if k == "Plural-Forms" else v)
                for k, v in catalog.mime_headers
            ]
        catalog.update(template, update_header_comment=False, no_fuzzy_matching=True)
        path.write_bytes(po_bytes(catalog, ignore_obsolete=True, include_previous=False))
        path.with_suffix(".mo").write_bytes(_mo_bytes(read(path, locale)))


def problems() -> list[str]:
    """What is out of step: a stale template, a msgid without translation, a stale .mo."""
    found: list[str] = []
    template = extract()
    if not TEMPLATE.exists() or po_bytes(template) != TEMPLATE.read_bytes():
        found.append(f"{TEMPLATE.relative_to(ROOT)} is stale: run `make i18n`")
    wanted = {(m.id, m.context) for m in template if m.id}  # one entry per msgid and msgctxt
    for lang, locale in LOCALES.items():
        path = po_path(lang)
        if not path.exists():
            found.append(f"{path.relative_to(ROOT)} is missing: run `make i18n`")
            continue
        catalog = read(path, locale)
        have = {(m.id, m.context): m for m in catalog if m.id}
        for msgid, context in wanted:
            m = have.get((msgid, context))
            text = msgid if isinstance(msgid, str) else msgid[0]
            text = text if context is None else f"{text} (msgctxt {context!r})"
            if m is None:
                found.append(f"{lang}: not in the catalogue: {text!r}")
            elif m.fuzzy or not (m.string if isinstance(m.string, str) else all(m.string)):
                found.append(f"{lang}: untranslated: {text!r}")
        mo = path.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != _mo_bytes(catalog):
            found.append(f"{mo.relative_to(ROOT)} is stale: run `make i18n`")
    return found


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "update":
        update()
        command = "check"
    if command == "check":
        found = problems()
        print("\n".join(found) or "catalogues complete and compiled")
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
