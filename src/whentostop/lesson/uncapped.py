"""The `while True` tool loop of the tutorials, run safely: the mock stops it from outside after a
number of requests, and the bill it would have run up is extrapolated from its own usage.

    post = http_post(*cut_off_after(20, "loopboros"))   # the mock refuses request 21
    ... while True: reply = post(body); usage.append(reply["usage"]) ...
    bill(usage)          # the turns it ran, and 10 and 100 times as many, priced

Such a loop has one exit, the flag; a model that never stops asking (the Loopboros) keeps it
going until something outside it says no — here the mock, as a provider's spending limit or an
exhausted quota would, with an error after the money is spent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import httpx

from .._numbers import token_count
from .._text import markdown_text
from ..i18n import _
from ..usage import DEFAULT_PRICE_MODEL, price
from .castle import Table, Where, on_the_mock
from .content import said

TIMES = (10, 100)
"""How many times the measured turns the bill projects."""
CUT_OFF = {"type": "whentostop_cut_off", "param": None, "code": "cut_off"}
"""The error a refused request's reply carries after its message, as an OpenAI error does."""


class CutOffTransport(httpx.BaseTransport):
    """A transport that passes the first `after` chat requests on, and answers every one after
    them with HTTP 429 and a message that says who stopped the loop, and why."""

    def __init__(self, inner: httpx.BaseTransport, after: int) -> None:
        self.inner, self.after, self.requests = inner, after, 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/chat/completions"):
            self.requests += 1
            if self.requests > self.after:
                message = _(said("1-1", "cut_off")).format(n=self.requests, after=self.after)
                return httpx.Response(429, json={"error": {"message": message, **CUT_OFF}})
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


class CutOff(Where):
    """Where to post for a loop that must be stopped from outside: the mock, in process, with a
    `CutOffTransport`. Its repr says so."""

    __slots__ = ()

    def __repr__(self) -> str:
        after = getattr(self.transport, "after", "?")
        return _(said("shared", "cut_off_repr")).format(model=self.model, after=after)


def cut_off_after(requests: int, persona: str = "loopboros") -> CutOff:
    """Where a plain loop posts to be stopped after `requests` requests: always the mock persona
    in process, never a configured endpoint (an uncapped loop must not reach a paid one)."""
    if isinstance(requests, bool) or not isinstance(requests, int) or requests < 1:
        raise ValueError(_("requests must be a positive int, got {value!r}").format(value=requests))
    base = on_the_mock(persona)
    return CutOff(base.base_url, base.model, None, CutOffTransport(base.transport, requests))


@dataclass(frozen=True)
class BillRow:
    turns: int
    tokens: int
    usd: float
    last_prompt: int
    """The longest prompt by then: what the last request sends."""
    measured: bool


@dataclass(frozen=True)
class Bill:
    """What a loop spent in the turns it ran, and would spend in more, at one price. The turns
    beyond the measured ones follow the run's own growth: each prompt `growth` tokens longer than
    the one before (the measured average), each reply `reply` tokens (the measured average)."""

    rows: tuple[BillRow, ...]
    growth: float
    reply: float
    price_model: str

    def _table(self) -> Table:
        """The bill's rows in words, under their header (literal text: "$" is no maths)."""
        head = (
            _("turns"),
            _("tokens in all"),
            _("USD at {model}").format(model=self.price_model),
            _("the last prompt (tokens)"),
        )
        rows = tuple(
            (
                _("{turns:,} (measured)").format(turns=row.turns)
                if row.measured
                else _("{turns:,} (projected)").format(turns=row.turns),
                _("{tokens:,}").format(tokens=row.tokens),
                _("${usd:,.2f}").format(usd=row.usd),
                _("{tokens:,}").format(tokens=row.last_prompt),
            )
            for row in self.rows
        )
        return Table(head, rows)

    def caption(self) -> str:
        return _(said("shared", "bill_caption")).format(growth=self.growth, reply=self.reply)

    def _repr_markdown_(self) -> str:
        return self._table()._repr_markdown_() + "\n\n" + markdown_text(self.caption())

    def __str__(self) -> str:
        table = self._table()
        rows = (table.header, *table.rows)
        widths = [max(map(len, column)) for column in zip(*rows)]
        lines = ["  ".join(cell.rjust(w) for cell, w in zip(r, widths)) for r in rows]
        return "\n".join([*lines, self.caption()])

    __repr__ = __str__


def bill(
    usage: Sequence[Mapping[str, int]],
    price_model: str = DEFAULT_PRICE_MODEL,
    times: Sequence[int] = TIMES,
) -> Bill:
    """The bill of a loop's replies (`usage`: each reply's `usage` object, in order) for the
    turns it ran and for `times` as many, extrapolated from its own growth (see `Bill`)."""
    prompts = [token_count(u.get("prompt_tokens")) for u in usage]  # 10**400: not a count
    replies = [token_count(u.get("completion_tokens")) for u in usage]
    if not prompts:
        raise ValueError(_("no usage to bill: the loop made no request"))
    p = price(price_model)
    n = len(prompts)
    growth = (prompts[-1] - prompts[0]) / (n - 1) if n > 1 else 0.0
    reply = sum(replies) / n
    rows, tokens, usd = [], 0.0, 0.0
    last = float(prompts[-1])
    for turn in range(1, n * max([1, *times]) + 1):
        if turn <= n:
            prompt, out = float(prompts[turn - 1]), float(replies[turn - 1])
        else:
            prompt, out = last + growth * (turn - n), reply
        tokens += prompt + out
        usd += p.cost(round(prompt), round(out))
        if turn == n or turn in {n * t for t in times}:
            rows.append(BillRow(turn, round(tokens), usd, round(prompt), turn == n))
    return Bill(tuple(rows), growth, reply, p.model)
