"""Exercise 1-2.b, solved. `q2.solution()` shows the code below the marker line; the lines above
it are the notebook's context, so that ruff and mypy check the solution like any code."""

from whentostop import NoAnswer

# --- the answer cell ---
import re

def star_block(run):
    try:
        text = run.answer
    except NoAnswer:
        return None
    found = re.search(r"(?:block|bloco) (\d+)", text)  # bloco: a Portuguese run
    return int(found.group(1)) if found else None
