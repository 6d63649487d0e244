"""Exercise 1-4.d, solved. `q4.solution()` shows the code below the marker line; the lines above
it are the notebook's context, so that ruff and mypy check the solution like any code."""

from whentostop import connect, load_level, run_agent
from whentostop.lesson import PROMPT

# --- the answer cell ---
lying_run = run_agent(PROMPT, model=connect("sloppy"),
                      tools=load_level("1-3").tools(), stop_on=["mark_star"], max_turns=5)
