"""Reading a reply's body within bounds: its size, the wall clock, and its compression.

A reply larger than `MAX_RESPONSE_BYTES`, or still arriving when the request's time is up, is
an error before it fills memory; gzip and deflate (the only encodings asked for) are undone a
piece at a time, so a few kilobytes that inflate to gigabytes are counted as they grow.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._text import excerpt
from .errors import BadResponse
from .i18n import _, say

if TYPE_CHECKING:
    import httpx

MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""A reply larger than this is not a chat completion we can use (`BadResponse`)."""
ACCEPT_ENCODING = "gzip, deflate"
"""The only compressions asked for, and so the only ones read (`inflated`); any other is a
`BadResponse`. httpx would also offer br and zstd when their packages happen to be installed."""
PIECE = 64 * 1024
"""Decompressed bytes are produced at most this many at a time, so they are counted as they
grow: a few kilobytes that inflate to gigabytes never reach memory whole."""


def read_bounded(
    response: httpx.Response, url: str, stop_at: float, still_arriving: Exception
) -> httpx.Response:
    """The whole response, its encoding undone, read against the wall clock (`stop_at`, a
    `time.monotonic()` value; past it, `still_arriving` is raised) and `MAX_RESPONSE_BYTES`
    (counted before and after inflating)."""
    import httpx

    try:
        response.content  # noqa: B018 — an in-process transport has already read it
        return response
    except httpx.ResponseNotRead:
        pass
    said = _("{url} sent more than {limit:,} bytes: not a chat completion")
    too_big = BadResponse(said.format(url=url, limit=MAX_RESPONSE_BYTES), url=url)

    def bounded(pieces: Iterator[bytes]) -> Iterator[bytes]:
        size = 0
        for piece in pieces:
            size += len(piece)
            if size > MAX_RESPONSE_BYTES:
                raise too_big
            if time.monotonic() > stop_at:
                raise still_arriving
            yield piece

    try:
        content = b"".join(bounded(inflated(response, bounded(response.iter_raw()), url)))
    except httpx.TimeoutException:
        raise still_arriving from None
    # the headers as sent (a value outside ASCII stays its bytes), less the two that described
    # the body before it was inflated: httpx counts the new length
    headers = response.headers.copy()
    for name in ("content-encoding", "content-length"):
        headers.pop(name, None)
    return httpx.Response(
        response.status_code, headers=headers, content=content, request=response.request
    )


def inflated(response: httpx.Response, chunks: Iterator[bytes], url: str) -> Iterator[bytes]:
    """The body with its `Content-Encoding` undone (gzip and deflate, in any number of
    layers), in pieces of at most `PIECE` bytes; `BadResponse` for an encoding this client
    did not ask for, and for a body that is not what its header says."""
    said = response.headers.get("content-encoding", "")
    codings = [c.strip().lower() for c in said.split(",")]
    codings = [c for c in codings if c and c != "identity"]

    def bad(message: str) -> BadResponse:
        shown = message.format(url=url, encoding=excerpt(said, 60), accepted=ACCEPT_ENCODING)
        return BadResponse(shown, url=url)

    if any(c not in ("gzip", "x-gzip", "deflate") for c in codings):
        raise bad(say("encoding_not_asked"))
    lie = bad(_("{url}: the reply says it is compressed (Content-Encoding: {encoding}) but is not"))
    cut = bad(_("{url}: the compressed reply is cut short (Content-Encoding: {encoding})"))
    for coding in reversed(codings):  # the header lists them in the order they were applied
        chunks = _inflate(chunks, coding, lie, cut)
    return chunks


def _inflate(
    chunks: Iterator[bytes], coding: str, lie: BadResponse, cut: BadResponse
) -> Iterator[bytes]:
    """One layer of gzip or deflate undone, `PIECE` bytes at most at a time (zlib's
    `max_length`): what is left of the input waits in `unconsumed_tail` until asked for.
    `deflate` is tried zlib-wrapped, then raw, as servers send both."""
    import zlib

    wbits = 16 + zlib.MAX_WBITS if coding in ("gzip", "x-gzip") else zlib.MAX_WBITS
    inflater = zlib.decompressobj(wbits)
    started = arrived = False
    for data in chunks:  # each chunk, as much of it as is still to inflate
        arrived = arrived or bool(data)
        while data and not inflater.eof:
            try:
                piece = inflater.decompress(data, PIECE)
            except zlib.error:
                if started or wbits != zlib.MAX_WBITS:
                    raise lie from None
                wbits, inflater = -zlib.MAX_WBITS, zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            started = True
            data = inflater.unconsumed_tail
            if piece:
                yield piece
            while len(piece) == PIECE and not data and not inflater.eof:
                piece = inflater.decompress(b"", PIECE)  # output still held inside zlib
                if piece:
                    yield piece
    if arrived and not inflater.eof:  # an empty body is empty, whatever its header says
        raise cut


def body_text(response: httpx.Response) -> str:
    """The body as text. JSON is UTF-8 (RFC 8259) whatever the `charset` says, so that is tried
    first; then the charset, then UTF-8 with replacement characters: a charset that lies, or
    that Python does not know, never raises."""
    content = response.content
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return content.decode(response.charset_encoding or "utf-8", errors="replace")
    except (LookupError, UnicodeError):
        return content.decode("utf-8", errors="replace")
