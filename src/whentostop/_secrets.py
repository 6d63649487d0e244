"""The API key, kept out of sight: checked before it goes in a header, and hidden as `***` in
whatever an endpoint sends back — in every spelling the layers between may give it.

`OpenAIChat` builds one `redactor` per set of secrets (the key, credentials in the base URL) and
passes every text it quotes or keeps through it; `hidden` does the same for parsed JSON.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import InvalidAPIKey
from .i18n import _, say

if TYPE_CHECKING:
    import re


def _userinfo(url: str) -> tuple[str, str, str]:
    """`url` as (its scheme and "://", its user-info, what follows the user-info's "@"); the
    user-info is "" when there is none. It ends at the last "@": a key typed with an unescaped
    /, ? or # in it ("http://user:sk-ab/cd@host", not a valid URL, or one whose host is "user")
    is still a key, never shown. So an "@" in a base URL's path is taken for one too: what comes
    before it is hidden, and (holding a "/") refused by the client as a key it cannot send."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, after = rest.rpartition("@")
    return (scheme + sep, userinfo, after) if sep and at else (url, "", "")


def shown_url(url: str) -> str:
    """`url` as it may be shown: its user-info (`http://user:KEY@host`, a key some gateways
    take in the URL) replaced by `***`; the rest as written."""
    start, userinfo, after = _userinfo(url)
    return f"{start}***@{after}" if userinfo else url


def unescaped_userinfo(url: str) -> bool:
    """Whether `url`'s user-info has a /, ? or # typed as it is, which a URL cannot hold there."""
    return any(c in _userinfo(url)[1] for c in "/?#")


def userinfo_secrets(url: str) -> list[str]:
    """The secrets in `url`'s user-info, as written, decoded, and as the `Basic` credentials
    httpx sends for them. A user name is a secret only when no password follows it (a token)."""
    import base64
    from urllib.parse import unquote

    userinfo = _userinfo(url)[1]
    if not userinfo:
        return []
    user, _, password = userinfo.partition(":")
    basic = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
    token = password or user
    return [userinfo, token, unquote(token), basic]


SECRET_FRAGMENT = 8
"""A run of this many characters of a key, or more, is hidden too: a gateway may cut the key
it echoes, and a fragment is still a secret."""


@functools.lru_cache(maxsize=16)
def redactor(secrets: tuple[str, ...]) -> Callable[[str], str]:
    """What hides `secrets` in text an endpoint sent back, as `***`: each secret in any spelling
    the layers between may give it (as written, in any case, JSON's `\\uXXXX`, `\\/` and
    `\\"`, `\\xHH`, URLs' `%XX`, HTML's `&#NN;`, `&#xHH;` and named references, base64 in
    either alphabet), and any run of `SECRET_FRAGMENT` or more of its characters as written.
    Built once per set of secrets."""
    import base64
    import re

    if not any(secrets):
        return as_is
    encoded = [base64.b64encode(s.encode()).decode() for s in secrets if s]
    encoded += [e.replace("+", "-").replace("/", "_") for e in encoded]  # the URL-safe alphabet
    unpadded = {e.rstrip("=") for e in encoded}  # it also finds the padded
    forms = sorted({s for s in secrets if s} | unpadded, key=len, reverse=True)
    long_ones = [s.lower() for s in forms if len(s) > SECRET_FRAGMENT]  # found by their blocks
    short = [s for s in forms if len(s) <= SECRET_FRAGMENT]
    literal = re.compile("|".join(map(re.escape, short)), re.IGNORECASE) if short else None

    @functools.cache
    def spelled() -> re.Pattern[str]:  # compiled when first needed: ~50 ms for a long key
        return re.compile("|".join("".join(_spellings(c) for c in s) for s in forms), re.IGNORECASE)

    def hide(text: str) -> str:
        if "\\" in text or "%" in text or "&" in text:  # how every other spelling starts
            text = spelled().sub("***", text)
        elif literal is not None:
            text = literal.sub("***", text)
        for secret in long_ones:
            text = _hide_fragments(text, secret)
        return text

    return hide


def as_is(text: str) -> str:
    return text


def _spellings(char: str) -> str:
    """A regular expression for one character of a secret, in every spelling `redactor` knows."""
    import re

    code = ord(char)
    options = [
        re.escape(char),
        rf"\\u{code:04x}",
        "".join(f"%{b:02x}" for b in char.encode()),
        f"&#0*{code};",
        f"&#x0*{code:x};",
    ]
    if code < 256:
        options.append(rf"\\x{code:02x}")  # a script's or a repr's escape
    options += [re.escape(f"&{name}") for name in _html_names().get(char, ())]
    if char in '/"\\':
        options.append(re.escape("\\" + char))
    return "(?:" + "|".join(options) + ")"


@functools.cache
def _html_names() -> dict[str, list[str]]:
    """HTML's named character references, by the character they stand for (`/`: `sol;`)."""
    import html.entities

    names: dict[str, list[str]] = {}
    for name, char in html.entities.html5.items():
        if name.endswith(";"):
            names.setdefault(char, []).append(name)
    return names


def _hide_fragments(text: str, secret: str) -> str:
    """`text` with every run of `SECRET_FRAGMENT` or more characters of `secret` (lower-case)
    replaced by `***`. Any such run holds one of the secret's 4-character blocks that start at
    a multiple of 4, so `str.find` of those blocks finds every candidate at C speed."""
    low, spans = text.lower(), []
    if len(low) != len(text):  # a few characters lower-case to two: keep positions aligned
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    for start in range(0, len(secret) - 3, 4):
        block = secret[start : start + 4]
        at = low.find(block)
        while at != -1:
            left, right, i, j = at, at + 4, start, start + 4
            while i > 0 and left > 0 and low[left - 1] == secret[i - 1]:
                left, i = left - 1, i - 1
            while j < len(secret) and right < len(low) and low[right] == secret[j]:
                right, j = right + 1, j + 1
            if right - left >= SECRET_FRAGMENT:
                spans.append((left, right))
            at = low.find(block, at + 1)
    pieces: list[str] = []
    end = 0
    for left, right in sorted(spans):  # spans that overlap or touch are hidden as one
        if not pieces or left > end:
            pieces += [text[end:left], "***"]
        end = max(end, right)
    return "".join(pieces) + text[end:]


def trimmed(value: str, name: str) -> str:
    """A setting without the spaces or line break a paste (or a file's last line) leaves around
    it, with a warning that says they were removed (never the value: it may be a secret)."""
    bare = value.strip(" \t\r\n")  # ASCII only: a non-breaking space is a paste to redo
    if bare != value:
        said = _("{name} had spaces or a line break around it; they were removed.")
        warnings.warn(said.format(name=name), UserWarning, stacklevel=3)
    return bare


def checked_api_key(key: str | None) -> str:
    """The API key as it can go in the `Authorization` header ("" for none). Spaces, tabs or a
    line break around it (a paste, a file's last line) are removed, with a warning that says
    so; a character that no HTTP header carries (a non-breaking space, a control character, a
    letter outside ASCII) is `InvalidAPIKey`, naming the character and where it is. Neither
    message shows the key."""
    if key is None:
        return ""
    if not isinstance(key, str):
        said = _("The API key must be text, got {kind}")
        raise InvalidAPIKey(said.format(kind=type(key).__name__))
    bare = trimmed(key, _("The API key (api_key, or OPENAI_API_KEY)"))
    for position, char in enumerate(bare, start=1):
        if not (char == " " or char == "\t" or "!" <= char <= "~"):  # what a header value holds
            where = {"char": _character(char), "position": position, "length": len(bare)}
            raise InvalidAPIKey(say("key_not_header", **where))
    return bare


def _character(char: str) -> str:
    """A character named so a reader can find it: "a NO-BREAK SPACE (U+00A0)"."""
    import unicodedata

    name = unicodedata.name(char, "") or _("a control character")
    return f"{name} (U+{ord(char):04X})"


def hidden(value: Any, hide: Callable[[str], str]) -> Any:
    """Parsed JSON with every string in it (keys too) passed through `hide`: what a reply's
    escapes (`\\uXXXX`, `\\/`) spelled differently is plain text by now."""
    if hide is as_is:  # no key to hide (the mock, most local servers)
        return value
    if isinstance(value, str):
        return hide(value)
    if isinstance(value, list):
        return [hidden(item, hide) for item in value]
    if isinstance(value, dict):
        return {hide(k): hidden(v, hide) for k, v in value.items()}
    return value
