"""Exercise 1-4.a, solved. `q1.solution()` shows the code below the marker line."""

# --- the answer cell ---
def run_call(call, tools):
    """One tool call -> (ok, data, output): a failure becomes an output, never an exception."""
    by_name = {tool.name: tool for tool in tools}
    name = call["function"]["name"]
    if name not in by_name:                          # the model asked for a tool we lack
        return False, None, f"Error: there is no tool {name!r}. Tools: {', '.join(by_name)}."
    try:
        data = dict(by_name[name].validate(call["function"]["arguments"]))   # check the input
        output = by_name[name].fn(**data)                                    # run the tool
    except Exception as exc:                         # bad input, or the tool raised
        return False, None, f"Error: {exc}"
    return True, data, str(output)
