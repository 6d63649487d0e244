"""The learner's language: one setting for every word the library shows.

    import whentostop
    whentostop.set_language("pt")      # or WHENTOSTOP_LANG=pt; English is the default

Badges, transcripts, verdicts and hints, plot titles, level stories, `NoAnswer` and the CLI's
words come from gettext catalogues (`locale/<lang>/LC_MESSAGES/whentostop.mo`), compiled from the
`.po` files with Babel (`make i18n`). The code stays English: function names, arguments, `Stop`
values. In the library, wrap a learner-facing string in `_()` where it is shown, and mark a
constant with `N_()` so the extractor finds it and `_()` translates it when it is used; where the
same English words have two meanings ("None." as Python's None, or as no runs), give each its
context with `NC_(context, message)` (or `pgettext` where it is shown): the catalogue keeps one
entry per context (msgctxt).
"""

from __future__ import annotations

import copy
import gettext
import os
import string
import struct
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

DOMAIN = "whentostop"
LANGUAGES = {"en": "English", "pt": "Português (Brasil)"}
"""The languages the lesson is written in, by the code `set_language` takes."""
LOCALES = {"en": "en", "pt": "pt_BR"}
"""The catalogue folder of each language under `locale/`."""
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_chosen: str | None = None


def normalize(lang: str) -> str:
    """ "pt", "pt-BR", "pt_BR", "PT" -> "pt"; a language the lesson lacks is a ValueError."""
    code = str(lang).strip().replace("-", "_").split("_")[0].lower()
    if code not in LANGUAGES:
        editions = ", ".join(f"{c} ({name})" for c, name in LANGUAGES.items())
        raise ValueError(f"no {lang!r} edition: the lesson is written in {editions}")
    return code


def set_language(lang: str | None) -> str:
    """Choose the language of everything the library shows from now on; None goes back to the
    default (`WHENTOSTOP_LANG`, else English). Returns the language in effect."""
    global _chosen
    _chosen = None if lang is None else normalize(lang)
    return language()


def language() -> str:
    """The language in effect: `set_language`'s, else `WHENTOSTOP_LANG`'s, else "en"."""
    if _chosen is not None:
        return _chosen
    configured = os.environ.get("WHENTOSTOP_LANG")
    return _configured(configured) if configured else "en"


@cache
def _configured(value: str) -> str:
    """`WHENTOSTOP_LANG`'s language; English for one the lesson lacks, said once (a setting
    must not break a run)."""
    try:
        return normalize(value)
    except ValueError as exc:
        warnings.warn(f"WHENTOSTOP_LANG: {exc}. Showing English.", UserWarning, stacklevel=4)
        return "en"


@contextmanager
def using(lang: str) -> Iterator[str]:
    """Show words in `lang` inside the block, then go back to the language before it."""
    global _chosen
    before, _chosen = _chosen, normalize(lang)
    try:
        yield _chosen
    finally:
        _chosen = before


class MissingCatalogue(UserWarning):
    """A language's catalogue is missing or unreadable: its words are shown in English."""


def translator(lang: str) -> gettext.NullTranslations:
    """The catalogue of one language; English (the source text) needs none. A catalogue that
    is missing or unreadable (a source checkout without `make i18n`, a broken install) leaves
    the words in English, and says so once (`MissingCatalogue`) instead of failing every one."""
    return _catalogue(lang if lang in LOCALES else normalize(lang))


@cache
def _catalogue(code: str) -> gettext.NullTranslations:
    if code == "en":
        return gettext.NullTranslations()
    try:
        return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[LOCALES[code]])
    except (OSError, struct.error, UnicodeError) as exc:  # not found, or not a catalogue
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        mo = f"{LOCALE_DIR / LOCALES[code] / 'LC_MESSAGES'}/{DOMAIN}.mo"
        said = f"The {LANGUAGES[code]} catalogue ({mo}) cannot be read ({reason}): "
        instead = "showing English instead. A source checkout builds it with `make i18n`."
        warnings.warn(said + instead, MissingCatalogue, stacklevel=3)
        return gettext.NullTranslations()


DECIMAL_COMMA = {"pt"}
"""Languages that write 1.326,5 where English writes 1,326.5."""


_SWAP_SEPARATORS = str.maketrans(",.", ".,")
"""What turns a number written the English way (`format(x, ",.1f")`: 1,326.5) into the way of
a `DECIMAL_COMMA` language (1.326,5)."""


# -- numbers as the learner reads them ---------------------------------------------------------
#
# One rule for every number the lesson shows, in the language in effect: these four for a value
# on its own (a chart's tick, a notebook's f-string), and `Text.format` (what `_()` returns) for a
# number inside a translated sentence, which writes "{tokens:,}" and "{usd:.4f}" the same way.
# The standard library's `format()` does the digits and grouping; the language only swaps the two
# separators. Babel (CLDR) would do both, but it installs 36 MB of locale data for a rule two
# languages state in one line, and the wheel must stay light in the browser (JupyterLite);
# `locale` depends on what the machine has installed and is process-wide.


def number(value: float, digits: int = 0) -> str:
    """`value` with its thousands grouped and `digits` decimals: 7,684 and 3.3 in English,
    7.684 and 3,3 in Portuguese."""
    text = format(value, f",.{digits}f")
    return text.translate(_SWAP_SEPARATORS) if language() in DECIMAL_COMMA else text


def ratio(value: float, digits: int = 1) -> str:
    """How many times: 3.3× in English, 3,3× in Portuguese."""
    return number(value, digits) + "×"


def money(usd: float, digits: int = 2) -> str:
    """An amount in US dollars: $0.025 in English, US$ 0,025 in Portuguese (as Brazil writes a
    dollar amount, the sign apart from the number)."""
    amount = number(abs(usd), digits)
    sign = "-" if usd < 0 and amount.strip("0.,") else ""
    return f"{sign}US$ {amount}" if language() in DECIMAL_COMMA else f"{sign}${amount}"


def seconds(value: float, digits: int = 1) -> str:
    """A duration: 1.0 s in English, 1,0 s in Portuguese."""
    return number(value, digits) + " s"


class _DecimalComma(string.Formatter):
    """`str.format` that writes numbers the way of a `DECIMAL_COMMA` language (1.326 tokens,
    US$ 0,0123)."""

    def format_field(self, value: object, format_spec: str) -> str:
        text: str = format(value, format_spec)
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return text.translate(_SWAP_SEPARATORS) if is_number else text


class Text(str):
    """A translated string whose `.format()` also writes numbers in the language's way."""

    lang: str

    def __new__(cls, value: str, lang: str) -> Text:
        text = super().__new__(cls, value)
        text.lang = lang
        return text

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]
        """What copy and pickle need: a run that holds translated words can be copied."""
        return str(self), self.lang

    def format(self, /, *args: object, **kwargs: object) -> str:
        if self.lang in DECIMAL_COMMA:
            return _DecimalComma().vformat(self, args, kwargs)
        return str.format(self, *args, **kwargs)


class InContext(str):
    """A msgid marked with `NC_()`: the same English words with a meaning of their own ("None."
    as Python's None, or as no runs), translated by `_()` through its context (msgctxt)."""

    context: str

    def __new__(cls, context: str, message: str) -> InContext:
        text = super().__new__(cls, message)
        text.context = context
        return text

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]
        return self.context, str(self)


def _(message: str) -> str:
    """`message` in the language in effect (through its context, if `NC_()` marked one)."""
    if isinstance(message, InContext):
        return pgettext(message.context, message)
    lang = language()
    return Text(translator(lang).gettext(message), lang)


def pgettext(context: str, message: str) -> str:
    """`message` in the language in effect, as the catalogue translates it in `context`: for
    the same English words with two meanings (msgctxt)."""
    lang = language()
    return Text(translator(lang).pgettext(context, message), lang)


def NC_(context: str, message: str) -> str:
    """Mark a constant with its context (msgctxt) for the catalogue; `_()` translates it in
    that context when it is shown."""
    return InContext(context, message)


class _Untranslated(gettext.NullTranslations):
    """The fallback `has_translation` adds: what reaches it missed the catalogue."""

    def gettext(self, message: str) -> str:
        return _MISSED

    def pgettext(self, context: str, message: str) -> str:
        return _MISSED


_MISSED = "\x00 not in the catalogue"


def has_translation(lang: str, message: str) -> bool:
    """Whether `lang`'s catalogue has `message` (in its context, if `NC_()` marked one): shown
    in `lang` it would not fall back to English. English has every message."""
    if normalize(lang) == "en":
        return True
    probe = copy.copy(translator(lang))  # the fallback goes on a copy, not the shared catalogue
    probe.add_fallback(_Untranslated())
    context = message.context if isinstance(message, InContext) else None
    found = probe.gettext(message) if context is None else probe.pgettext(context, message)
    return found is not _MISSED


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for `n`, in the language in effect."""
    lang = language()
    return Text(translator(lang).ngettext(singular, plural, n), lang)


def N_(message: str) -> str:
    """Mark a constant for the catalogue without translating it yet (`_()` does, when shown)."""
    return message


@cache
def _said() -> dict[str, Any]:
    """`data/said.toml`: its messages by name (a text, or a plural's two forms), in `[said]` the
    learner's, in `[to_the_model]` the model's."""
    import tomllib

    from ._data import data_file

    return tomllib.loads(data_file("said.toml").read_text(encoding="utf-8"))


def say(name: str, /, **fields: object) -> str:
    """What the library says at length, by name: an English msgid of `data/said.toml`, in the
    language in effect, its `{fields}` filled in (none given: left for the caller to fill)."""
    text = _(str(_said()["said"][name]))
    return text.format(**fields) if fields else text


def say_n(name: str, count: int, /, **fields: object) -> str:
    """`say` for a message with a plural: its singular or plural form for `count` (`ngettext`)."""
    singular, plural = _said()["said"][name]
    text = ngettext(singular, plural, count)
    return text.format(**fields) if fields else text


def told(name: str, /, **fields: object) -> str:
    """What the library tells the model at length, by name (`data/said.toml`'s `[to_the_model]`),
    its `{fields}` filled in: protocol, in English whatever the learner's language."""
    return str(_said()["to_the_model"][name]).format(**fields)
