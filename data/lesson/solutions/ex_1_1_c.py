"""Exercise 1-1.c, solved. `q3.solution()` shows the code below the marker line."""

# --- the answer cell ---
budget_c = 6   # the searcher's longest run (5 turns) plus one
