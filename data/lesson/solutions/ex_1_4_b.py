"""Exercise 1-4.b, solved. `q2.solution()` shows the code below the marker line; the lines above
it stand for notebook 1-4's cells the loop builds on (`Outcome`, `ask`, and `run_call` from
exercise 1-4.a), so that ruff and mypy check the solution like any code. They are signatures
only: the cells themselves are in the notebook (tagged `scratch-1-4-outcome`, `scratch-1-4-ask`)."""

from typing import Any, NamedTuple


class Outcome(NamedTuple):
    stop: str
    answer: object
    messages: list[Any]


def ask(post: Any, messages: list[Any], tools: list[Any]) -> dict[str, Any]:
    raise NotImplementedError  # notebook 1-4's cell scratch-1-4-ask


def run_call(call: dict[str, Any], tools: list[Any]) -> tuple[bool, Any, str]:
    raise NotImplementedError  # exercise 1-4.a


# --- the answer cell ---
def my_loop(post, prompt, tools, max_turns=10, stop_on=()):
    messages = [{"role": "user", "content": prompt}]
    for turn in range(max_turns):
        message = ask(post, messages, tools)
        if not message.get("tool_calls"):             # exit: the flag
            return Outcome("end_turn", message["content"], messages)
        for call in message["tool_calls"]:
            ok, data, output = run_call(call, tools)     # never raises
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
            if ok and call["function"]["name"] in stop_on:   # exit: the warp pipe
                return Outcome("terminal_tool", data, messages)
    return Outcome("max_turns", None, messages)      # exit: the clock
