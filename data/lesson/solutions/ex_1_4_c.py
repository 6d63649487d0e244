"""Exercise 1-4.c, solved. `q3.solution()` shows the code below the marker line."""

# --- the answer cell ---
import json

def exit_by_last_message(messages, stop_on=("mark_star",)):
    """The recipe: guess how a run ended from its last assistant message alone."""
    last = [m for m in messages if m["role"] == "assistant"][-1]
    calls = last.get("tool_calls") or []
    if not calls:                                   # no tool call: the flag
        return "end_turn", last["content"]
    if calls[0]["function"]["name"] in stop_on:     # a terminal call: the pipe
        return "terminal_tool", json.loads(calls[0]["function"]["arguments"])
    return "max_turns", None                        # anything else: the clock
