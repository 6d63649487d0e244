"""Exercise 1-3.c, solved. `q3.solution()` shows the code below the marker line; the lines above
it are the notebook's context, so that ruff and mypy check the solution like any code."""

from whentostop import connect, load_level, run_agent
from whentostop.lesson import PROMPT

# --- the answer cell ---
level = load_level("1-3")
flag = run_agent(PROMPT, model=connect("searcher"), tools=level.tools("search_blocks"))
pipe = run_agent(PROMPT, model=connect("searcher"), tools=level.tools(),
                 stop_on=["mark_star"])
turns_saved = len(flag.turns) - len(pipe.turns)
