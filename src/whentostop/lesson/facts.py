"""The lesson's facts tables: what other libraries do, each row with the version read, its release
date, the day it was read and its sources, kept as data in `data/lesson/<notebook>.toml`
(`[facts.<name>]`) and shown as a Markdown table in the learner's language.

    from whentostop.lesson.facts import facts_table
    facts_table("1-1", "clocks")

A table has its `columns` (the first is the library's) and its rows, `[[facts.<name>.row]]`: the
`library`, the `version` read and the day it was `released` where known, the day it was read
(`as_of`), its `sources` by name (https addresses), a `note` after the library's name, and its
`cells`, one per column after the first. A cell is Markdown whose links name a source,
`[words](name)`: an address is data, never part of the words. Every word is an English msgid,
translated through the catalogue in the table's context (`facts 1-1 clocks`). `problems` says,
row and field, what does not hold (`python -m whentostop lesson check`); a table that does not
hold is not shown.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from typing import Any

from .._text import excerpt, markdown_text
from ..i18n import LANGUAGES, N_, NC_, _, has_translation, using
from .classroom import page_address
from .content import notebook_data

REQUIRED = ("library", "as_of", "cells")
NAME = re.compile(r"[\w-]+")
LINK = re.compile(r"\[([^\[\]\n]+)\]\(([\w-]+)\)")
"""A link in a cell, `[words](a source's name)`: read in linear time (each class stops at the
character that ends it)."""
SHOWN = re.compile(r"""facts_table\(\s*["']([\w-]{1,32})["']\s*,\s*["']([\w-]{1,32})["']\s*\)""")
"""A notebook cell that shows a table: `facts_table("1-1", "clocks")` (names bounded: a search
tries every start, and an unbounded run of the first letter would be read again from each)."""


def is_words(value: Any) -> bool:
    """Whether `value` is text with something in it (a sentence, a name): not blank."""
    return isinstance(value, str) and bool(value.strip())


def _date(value: Any) -> bool:
    """Whether `value` is a date, as TOML reads 2026-11-30 (a quoted "2026-11-30" is words)."""
    return isinstance(value, dt.date) and not isinstance(value, dt.datetime)


WORDS = N_("must be words")
A_DATE = N_("must be a date, written 2026-11-30 without quotes")
FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "library": (is_words, WORDS),
    "version": (is_words, WORDS),
    "released": (_date, A_DATE),
    "as_of": (_date, A_DATE),
    "sources": (
        lambda value: isinstance(value, dict) and all(NAME.fullmatch(n) for n in value),
        N_('must be a table of addresses by name (letters, digits, _ and -): name = "https://…"'),
    ),
    "note": (is_words, WORDS),
    "cells": (
        lambda value: isinstance(value, list) and all(map(is_words, value)),
        N_("must be a list of cells, each of them words"),
    ),
}
"""A row's fields, each with what its value must be."""


def context(notebook: str, name: str) -> str:
    """The msgctxt of a table's words: the same English words in two tables are two entries."""
    return f"facts {notebook} {name}"


def texts(key: str, table: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(key, English words) of each translated piece of a table that holds together: its
    columns, and each row's library, note and cells."""
    yield from ((f"{key}.columns[{i}]", column) for i, column in enumerate(table["columns"]))
    for i, row in enumerate(table["row"]):
        yield from ((f"{key}.row[{i}].{f}", row[f]) for f in ("library", "note") if f in row)
        yield from ((f"{key}.row[{i}].cells[{j}]", c) for j, c in enumerate(row["cells"]))


def words(notebook: str, name: str, table: dict[str, Any]) -> Iterator[str]:
    """A table's msgids, each in the table's context (`make i18n` extracts them)."""
    yield from (NC_(context(notebook, name), text) for _key, text in texts(f"facts.{name}", table))


# -- what must hold ------------------------------------------------------------------------------


def problems(notebook: str, facts: Any) -> Iterator[tuple[str, str]]:
    """(key, what) for each thing in a notebook's `[facts]` that would keep a table from being
    shown, or would show it in English in another language."""
    if not isinstance(facts, dict) or not all(isinstance(t, dict) for t in facts.values()):
        yield "facts", _("must hold one table per facts table, [facts.<name>]")
        return
    for name, table in facts.items():
        found = list(table_problems(name, table))
        yield from found if found else _translations(notebook, name, table)


def table_problems(name: str, table: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(key, what) for each field of one table that does not hold, row by row."""
    key = f"facts.{name}"
    if not NAME.fullmatch(name) or set(table) - {"columns", "row"}:
        yield key, _("a table is named with letters, digits, _ and -, and holds columns and row")
    columns, rows = table.get("columns"), table.get("row")
    if not isinstance(columns, list) or len(columns) < 2 or not all(map(is_words, columns)):
        yield f"{key}.columns", _("must be a list of two headers or more, the library's first")
    elif not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        yield f"{key}.row", _("must be one table or more, [[facts.<name>.row]], a library each")
    else:
        for i, row in enumerate(rows):
            yield from _row(f"{key}.row[{i}]", row, len(columns) - 1)


def _row(key: str, row: dict[str, Any], width: int) -> Iterator[tuple[str, str]]:
    """(key, what) for each field of a row that is missing, unknown or not what it must be;
    when they all hold, for what they say together (`_together`)."""
    found = [(f"{key}.{field}", _("missing")) for field in REQUIRED if field not in row]
    for field, value in row.items():
        holds, what = FIELDS.get(field, (None, ""))
        if holds is None:
            known = ", ".join(FIELDS)
            found.append((f"{key}.{field}", _("unknown key (known: {known})").format(known=known)))
        elif not holds(value):
            shown = _("{what}, not {value}").format(what=_(what), value=excerpt(repr(value), 80))
            found.append((f"{key}.{field}", shown))
    yield from found if found else _together(key, row, width)


def _together(key: str, row: dict[str, Any], width: int) -> Iterator[tuple[str, str]]:
    """(key, what) for a row whose fields each hold: its dates, cells, sources and links."""
    released, read = row.get("released"), row["as_of"]
    if released and "version" not in row:
        yield f"{key}.released", _("the release date of no version: name it in `version`")
    if released and released > read:
        yield f"{key}.released", _("is after the day it was read, {day}").format(day=read)
    if len(row["cells"]) != width:
        what = _("{n} cells for {width} columns")
        yield f"{key}.cells", what.format(n=len(row["cells"]), width=width)
    sources = row.get("sources", {})
    for name, url in sources.items():
        try:
            page_address(url if isinstance(url, str) else repr(url))
        except ValueError as exc:
            yield f"{key}.sources.{name}", str(exc)
    pieces = [("note", row.get("note", ""))]
    pieces += [(f"cells[{j}]", cell) for j, cell in enumerate(row["cells"])]
    for field, text in pieces:
        yield from ((f"{key}.{field}", what) for what in _links(text, set(sources)))
    for name in sorted(set(sources) - {m[2] for _f, text in pieces for m in LINK.finditer(text)}):
        what = _("no cell links it: write [words]({name})")
        yield f"{key}.sources.{name}", what.format(name=name)


def _links(text: str, names: set[str]) -> Iterator[str]:
    """What is wrong with the links of one cell (or note): an address in the words, a link to
    a source the row does not have, a link not written [words](name)."""
    if "://" in text:
        yield _("an address in the words: put it in `sources` and link it as [words](name)")
    for m in LINK.finditer(text):
        if m[2] not in names:
            what = _("links to {name!r}, which is not one of the row's sources ({known})")
            yield what.format(name=m[2], known=", ".join(sorted(names)) or _("none"))
    if "](" in LINK.sub("", text):
        yield _("a link is written [words](name), the name one of the row's sources")


UNTRANSLATED = N_("no translation into {language} in the catalogue: `make i18n`, then translate it")
RELINKED = N_("its translation into {language} links other sources than the English")


def _translations(notebook: str, name: str, table: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(key, what) for each piece another language would show in English, or whose translation
    links other sources than the English."""
    for lang in sorted(set(LANGUAGES) - {"en"}):
        for key, text in texts(f"facts.{name}", table):
            message = NC_(context(notebook, name), text)
            with using(lang):
                said = _(message)
            if not has_translation(lang, message):
                yield key, _(UNTRANSLATED).format(language=LANGUAGES[lang])
            elif _names(said) != _names(text):
                yield key, _(RELINKED).format(language=LANGUAGES[lang])


def _names(text: str) -> list[str]:
    return sorted(m[2] for m in LINK.finditer(text))


# -- the table, shown ----------------------------------------------------------------------------


def markdown(notebook: str, name: str, table: dict[str, Any] | None = None) -> str:
    """The facts table `name` of `notebook` (or `table`, as a data file would hold it) as
    Markdown, in the language in effect; a ValueError naming each row and field that does not
    hold."""
    where, tables = f"data/lesson/{notebook}.toml", notebook_data(notebook).get("facts", {})
    if table is None and name not in tables:
        what = _("{file} has no table [facts.{name}] (it has: {known})")
        raise ValueError(what.format(file=where, name=name, known=", ".join(tables) or _("none")))
    table = tables[name] if table is None else table
    found = [f"{where}: {key}: {what}" for key, what in table_problems(name, table)]
    if found:
        raise ValueError("\n".join(found))
    ctx = context(notebook, name)
    columns = [_cell(ctx, column, {}) for column in table["columns"]]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in table["row"]:
        cells = [_cell(ctx, c, row.get("sources", {})) for c in row["cells"]]
        lines.append("| " + " | ".join([_library(ctx, row), *cells]) + " |")
    return "\n".join(lines) + "\n\n" + _read_on(ctx, table["row"])


def _cell(ctx: str, text: str, sources: dict[str, str]) -> str:
    """One cell's words translated, on one line, its links pointed at their sources (a
    translation that links a source the row lacks is a ValueError)."""
    said = " ".join(_(NC_(ctx, text)).split()).replace("|", "\\|")

    def link(m: re.Match[str]) -> str:
        if m[2] not in sources:
            what = _("The translation of {text!r} links {name!r}, a source the row lacks")
            raise ValueError(what.format(text=text, name=m[2]))
        return f"[{m[1]}]({page_address(sources[m[2]])})"

    return LINK.sub(link, said)


def _library(ctx: str, row: dict[str, Any]) -> str:
    """The first column: the library's name, (version, release date), and the note."""
    shown = markdown_text(_(NC_(ctx, row["library"])))
    if "version" in row:
        released = f", {row['released']}" if "released" in row else ""
        shown += f" ({markdown_text(row['version'])}{released})"
    if "note" in row:
        shown += ", " + _cell(ctx, row["note"], row.get("sources", {}))
    return shown


def _read_on(ctx: str, rows: list[dict[str, Any]]) -> str:
    """The line under the table: the day the rows were read, or each day with its libraries."""
    days: dict[dt.date, list[str]] = {}
    for row in rows:
        days.setdefault(row["as_of"], []).append(markdown_text(_(NC_(ctx, row["library"]))))
    dates = "; ".join(f"{day} ({', '.join(libraries)})" for day, libraries in days.items())
    return _("As read on {dates}.").format(dates=str(next(iter(days))) if len(days) == 1 else dates)


def facts_table(notebook: str, name: str) -> Any:
    """A facts table for a notebook to show (`IPython.display.Markdown`), in the language in
    effect, from `data/lesson/<notebook>.toml`."""
    from IPython.display import Markdown

    return Markdown(markdown(notebook, name))
