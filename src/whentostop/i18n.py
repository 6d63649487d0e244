"""The learner's language: one setting for every word the library shows.

    import whentostop
    whentostop.set_language("pt")      # or WHENTOSTOP_LANG=pt; English is the default

Badges, transcripts, verdicts and hints, plot titles, level stories, `NoAnswer` and the CLI's
words come from gettext catalogues (`locale/<lang>/LC_MESSAGES/whentostop.mo`), compiled from the
`.po` files with Babel (`make i18n`). The code stays English: function names, arguments, `Stop`
values. In the library, wrap a learner-facing string in `_()` where it is shown, and mark a
constant with `N_()` so the extractor finds it and `_()` translates it when it is used.
"""

from __future__ import annotations

import gettext
import os
import string
import struct
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

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
        raise ValueError(
            f"no {lang!r} edition: the lesson is written in "
            + ", ".join(f"{c} ({name})" for c, name in LANGUAGES.items())
        )
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
    if configured:
        return _configured(configured)
    return "en"


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
        warnings.warn(
            f"The {LANGUAGES[code]} catalogue ({LOCALE_DIR / LOCALES[code] / 'LC_MESSAGES'}/"
            f"{DOMAIN}.mo) cannot be read ({reason}): showing English instead. A source checkout "
            "builds it with `make i18n`.",
            MissingCatalogue,
            stacklevel=3,
        )
        return gettext.NullTranslations()


DECIMAL_COMMA = {"pt"}
"""Languages that write 1.326,5 where English writes 1,326.5."""


_SWAP_SEPARATORS = str.maketrans(",.", ".,")


class _Numbers(string.Formatter):
    """`str.format` that writes numbers the language's way (1.326 tokens, US$0,0123)."""

    def format_field(self, value: object, format_spec: str) -> str:
        text: str = format(value, format_spec)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            text = text.translate(_SWAP_SEPARATORS)
        return text


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
            return _Numbers().vformat(self, args, kwargs)
        return str.format(self, *args, **kwargs)


def _(message: str) -> str:
    """`message` in the language in effect."""
    lang = language()
    return Text(translator(lang).gettext(message), lang)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for `n`, in the language in effect."""
    lang = language()
    return Text(translator(lang).ngettext(singular, plural, n), lang)


def N_(message: str) -> str:
    """Mark a constant for the catalogue without translating it yet (`_()` does, when shown)."""
    return message


__all__ = [
    "LANGUAGES",
    "N_",
    "MissingCatalogue",
    "_",
    "language",
    "ngettext",
    "normalize",
    "set_language",
    "translator",
    "using",
]
