"""One price for every chart (issue 15): the notebooks' cost figures and printed prices use the
model the explorer prices at, `usage.DEFAULT_PRICE_MODEL`, so the dollars a learner reads in a
plot and in the explorer beside it agree."""

from __future__ import annotations

import json
import re

import pytest
from conftest import NOTEBOOKS

from whentostop.usage import DEFAULT_PRICE_MODEL, prices

PRICED = re.compile(r"""["']([\w.-]+)["']""")


def priced_models(notebook) -> set[str]:
    """Every price-table model named in the notebook's code cells."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return {name for name in PRICED.findall(code) if name in prices()}


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_a_notebook_prices_at_the_explorers_model(notebook) -> None:
    assert priced_models(notebook) <= {DEFAULT_PRICE_MODEL}
