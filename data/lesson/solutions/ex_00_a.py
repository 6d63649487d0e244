"""Exercise 00.a, solved. `q1.solution()` shows the code below the marker line; the lines above
it are the notebook's context, so that ruff and mypy check the solution like any code."""

from whentostop import connect, load_level, run_agent
from whentostop.lesson import PROMPT

# --- the answer cell ---
first_run = run_agent(PROMPT, model=connect("searcher"),
                      tools=load_level("1-2").tools("search_blocks"))
