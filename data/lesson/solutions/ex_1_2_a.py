"""Exercise 1-2.a, solved. `q1.solution()` shows the code below the marker line."""

# --- the answer cell ---
give_up_prompt = "If every search comes back empty, say that you could not find the star."
