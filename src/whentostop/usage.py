"""Per-turn token ledger and prices: what each turn cost, and how the total grows.

Every turn sends the whole history again, so a turn's prompt is the previous prompt, plus the
previous reply, plus what is new (tool results). `split_prompt` separates the two, and the part
of the history the server said it had cached. A server that caches prompts (llama.cpp, OpenAI,
Anthropic) reports it in `usage.prompt_tokens_details.cached_tokens`; hosted APIs bill those
tokens at their cached-input rate, which `Price.cost` uses where the table has one.

`Budget` is the run's cap in tokens or dollars, checked before each request (`run_agent(...,
max_tokens_total=..., max_cost_usd=...)`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate

from pydantic import BaseModel, ConfigDict, Field

from ._data import data_file
from ._numbers import as_float, is_number, positive_int, token_count
from ._options import option
from .i18n import _
from .outcome import BudgetStop, Run

DEFAULT_PRICE_MODEL = "gpt-4o"
"""The price every chart uses unless told otherwise: the explorer and the notebooks alike
(`tests/test_notebooks_prices.py` keeps the notebooks on it)."""


class Price(BaseModel):
    """One model's list price, per million tokens, with where and when it was read."""

    model_config = ConfigDict(defer_build=True)

    model: str
    input_per_million: float = Field(ge=0, description="USD per 1,000,000 prompt tokens")
    output_per_million: float = Field(ge=0, description="USD per 1,000,000 completion tokens")
    cached_input_per_million: float | None = Field(
        None,
        ge=0,
        description="USD per 1,000,000 prompt tokens served from the provider's "
        "prompt cache; None where the table has no such rate (they cost the input rate)",
    )
    source: str
    as_of: str
    retired: str | None = Field(
        None,
        description="When the provider retired the model (requests to it fail); its "
        "price stays in the table for comparisons",
    )

    def cost(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
        """USD for one request: the cached part of the prompt at the cached rate, if any. Each
        count is read as `_numbers.token_count` reads it (what cannot be one counts as 0)."""
        prompt_tokens = token_count(prompt_tokens)
        completion_tokens = token_count(completion_tokens)
        cached = min(token_count(cached_tokens), prompt_tokens)
        return (
            (prompt_tokens - cached) * self.input_per_million
            + cached * self._cached_rate
            + completion_tokens * self.output_per_million
        ) / 1_000_000

    @property
    def cheapest_input_per_million(self) -> float:
        """The lowest rate a prompt token can cost: the cached rate where there is one."""
        return min(self.input_per_million, self._cached_rate)

    @property
    def _cached_rate(self) -> float:
        """What a cached prompt token costs: the input rate where the table has no cached one."""
        rate = self.cached_input_per_million
        return self.input_per_million if rate is None else rate


@cache
def _price_table() -> tuple[Price, ...]:
    raw = json.loads(data_file("prices.json").read_text(encoding="utf-8"))
    return tuple(Price.model_validate(p) for p in raw["models"])


def prices() -> dict[str, Price]:
    """The price table from `data/prices.json`, by model name."""
    return {p.model: p for p in _price_table()}


def price(model: str | Price) -> Price:
    """Look a price up by model name; an unknown name lists the known ones."""
    if isinstance(model, Price):
        return model
    table = prices()
    if model not in table:
        said = _("no price for {model!r}; known models: {known}")
        raise KeyError(said.format(model=model, known=", ".join(table)))
    return table[model]


def cost_per_turn(run: Run, model: str | Price) -> list[float]:
    """USD per turn (the wrap-up request included, last, if there was one), the prompt tokens
    the server reported as cached counted at the cached rate where the price has one."""
    p = price(model)
    return [p.cost(t.prompt_tokens, t.completion_tokens, t.cached_tokens) for t in run.all_turns]


def cumulative_cost(run: Run, model: str | Price) -> list[float]:
    """USD spent after each turn: grows roughly with the square of the turns."""
    return list(accumulate(cost_per_turn(run, model)))


def cumulative_tokens(run: Run) -> list[int]:
    """Tokens (prompt + completion) spent after each turn."""
    return list(accumulate(t.total_tokens for t in run.all_turns))


def quadratic_fit(values: Sequence[float]) -> tuple[float, float, float]:
    """The least-squares `a, b, c` of `a·n² + b·n + c` through `values` at n = 1, 2, 3, ...:
    how the cumulative tokens grow with the turns (`numpy.polyfit(n, values, 2)`, in plain
    Python: the browser edition has no numpy)."""
    if len(values) < 3:
        raise ValueError(f"a quadratic fit needs at least 3 values, got {len(values)}")
    ns = range(1, len(values) + 1)
    s = [float(sum(n**k for n in ns)) for k in range(5)]
    t = [sum(n**k * v for n, v in zip(ns, values)) for k in range(3)]
    # The normal equations, solved by Cramer's rule: M · (a, b, c) = (t2, t1, t0).
    m = [[s[4], s[3], s[2]], [s[3], s[2], s[1]], [s[2], s[1], s[0]]]
    rhs = [t[2], t[1], t[0]]
    whole = _det3(m)
    a, b, c = (
        _det3([[rhs[i] if j == col else m[i][j] for j in range(3)] for i in range(3)]) / whole
        for col in range(3)
    )
    return a, b, c


def _det3(m: Sequence[Sequence[float]]) -> float:
    return (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )


@dataclass(frozen=True)
class PromptSplit:
    """A turn's prompt tokens: the history sent again, and what is new this turn."""

    resent: int
    new: int
    cached: int = 0
    """The part of `resent` the server reported as served from its cache (`cached <= resent`):
    sent again, but billed at the cached rate where there is one."""


def split_prompt(run: Run) -> list[PromptSplit]:
    """Per turn: how much of the prompt was history sent again (and how much of that the
    server had cached), and how much was new."""
    splits: list[PromptSplit] = []
    previous = 0
    for turn in run.all_turns:
        resent = min(previous, turn.prompt_tokens)
        cached = min(turn.cached_tokens, resent)
        splits.append(PromptSplit(resent, turn.prompt_tokens - resent, cached))
        previous = turn.prompt_tokens + turn.completion_tokens
    return splits


def next_prompt_floor(run: Run) -> int:
    """The fewest prompt tokens the next request can have, from the server's own usage: the
    last request's prompt plus its reply, since the next one sends all of it again (and the new
    tool results or prompt on top). 0 before the first reply: no server has counted anything
    yet, and a guess from the text would be no bound for another tokenizer."""
    return run.all_turns[-1].total_tokens if run.all_turns else 0


@dataclass(frozen=True)
class Budget:
    """A run's cap in tokens (prompt + completion, every request) and/or dollars.

    Checked before each request against what that request will cost at least
    (`next_prompt_floor`), so a run stops *before* a request that would certainly go over. The
    request it does send may still take it past the cap by that request's new part (the tool
    results and the reply, which nobody can count before they exist). Dollars count the history
    sent again at the cheapest rate the price has (the cached one, if any): a bound, not a
    guess about the server's cache.
    """

    max_tokens_total: int | None = None
    max_cost_usd: float | None = None
    price: Price | None = None

    @classmethod
    def of(
        cls, max_tokens_total: int | None, max_cost_usd: float | None, price_of: str | Price | None
    ) -> Budget | None:
        """The checked budget of `run_agent`'s arguments; None when there is no cap."""
        if max_tokens_total is not None:
            positive_int(max_tokens_total, option("max_tokens_total"))
        if max_cost_usd is not None and not (is_number(max_cost_usd) and max_cost_usd > 0):
            said = _("{name} must be a positive number of dollars, got {value!r}")
            raise ValueError(said.format(name=option("max_cost_usd"), value=max_cost_usd))
        if max_cost_usd is None:
            return None if max_tokens_total is None else cls(max_tokens_total)
        try:
            p = price(price_of or DEFAULT_PRICE_MODEL)
        except KeyError as exc:  # an argument of run_agent: a ValueError, like the others
            raise ValueError(exc.args[0]) from None
        return cls(max_tokens_total, as_float(max_cost_usd), p)

    def over(self, run: Run) -> BudgetStop | None:
        """Where the next request would take `run` at least, if that is past a cap; else None."""
        floor = next_prompt_floor(run)
        if self.max_tokens_total is not None:
            reach = run.total_tokens + floor
            if reach > self.max_tokens_total:
                return BudgetStop("tokens", reach, self.max_tokens_total)
        if self.max_cost_usd is not None and self.price is not None:
            spent = sum(cost_per_turn(run, self.price))
            reach_usd = spent + floor * self.price.cheapest_input_per_million / 1_000_000
            if reach_usd > self.max_cost_usd:
                return BudgetStop("usd", reach_usd, self.max_cost_usd, self.price.model)
        return None
