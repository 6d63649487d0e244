"""Per-turn token ledger and prices: what each turn cost, and how the total grows.

Every turn sends the whole history again, so a turn's prompt is the previous prompt, plus the
previous reply, plus what is new (tool results). `split_prompt` separates the two.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from itertools import accumulate

from pydantic import BaseModel, ConfigDict, Field

from ._data import data_file
from .i18n import _
from .outcome import Run

DEFAULT_PRICE_MODEL = "gpt-4o"
"""The price every chart uses unless told otherwise: the explorer and the notebooks alike
(`tests/test_notebooks_prices.py` keeps the notebooks on it)."""


class Price(BaseModel):
    """One model's list price, per million tokens, with where and when it was read."""

    model_config = ConfigDict(defer_build=True)

    model: str
    input_per_million: float = Field(ge=0, description="USD per 1,000,000 prompt tokens")
    output_per_million: float = Field(ge=0, description="USD per 1,000,000 completion tokens")
    source: str
    as_of: str

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.input_per_million + completion_tokens * self.output_per_million
        ) / 1_000_000


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
        raise KeyError(_("no price for {model!r}; known models: {known}")
                       .format(model=model, known=", ".join(table)))
    return table[model]


def cost_per_turn(run: Run, model: str | Price) -> list[float]:
    """USD per turn (the wrap-up request included, last, if there was one)."""
    p = price(model)
    return [p.cost(t.prompt_tokens, t.completion_tokens) for t in run.all_turns]


def cumulative_cost(run: Run, model: str | Price) -> list[float]:
    """USD spent after each turn: grows roughly with the square of the turns."""
    return list(accumulate(cost_per_turn(run, model)))


def cumulative_tokens(run: Run) -> list[int]:
    """Tokens (prompt + completion) spent after each turn."""
    return list(accumulate(t.total_tokens for t in run.all_turns))


@dataclass(frozen=True)
class PromptSplit:
    """A turn's prompt tokens: the history sent again, and what is new this turn."""

    resent: int
    new: int
    cached: int = 0
    """The part of `resent` the server reported as cached (`cached <= resent`)."""


def split_prompt(run: Run) -> list[PromptSplit]:
    """Per turn: how much of the prompt was history sent again, and how much was new."""
    splits: list[PromptSplit] = []
    previous = 0
    for turn in run.all_turns:
        resent = min(previous, turn.prompt_tokens)
        splits.append(PromptSplit(resent=resent, new=turn.prompt_tokens - resent,
                                  cached=min(turn.cached_tokens, resent)))
        previous = turn.prompt_tokens + turn.completion_tokens
    return splits
