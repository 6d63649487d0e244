"""The same level run by the OpenAI Agents SDK and PydanticAI, each in its own process.

Each framework is set up the way its documentation says for an OpenAI-compatible server that
speaks chat completions: a custom base URL, a chat-completions model, the level's two tools as
function tools, and its own turn budget (`max_turns=25`, `UsageLimits(request_limit=25)`).
They run against the same loopback `python -m whentostop serve`, as does the library.

A worker process per framework keeps their imports and memory apart; the parent (`Worker`)
sends `run` / `memory` / `quit` lines to each in turn, so their runs interleave in time.

    python bench/peers.py FRAMEWORK BASE_URL      # a worker: one JSON line per command
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import Any

FRAMEWORKS = {
    "whentostop": "when-to-stop",
    "openai-agents": "openai-agents",
    "pydantic-ai": "pydantic-ai-slim",
}
"""Framework -> its distribution on PyPI."""
MODULES = {"whentostop": "whentostop", "openai-agents": "agents", "pydantic-ai": "pydantic_ai"}
TURNS = 25
PROMPT = "Find the star in this level."


def available(framework: str) -> bool:
    return find_spec(MODULES[framework]) is not None


# ---- inside a worker -------------------------------------------------------------------------

Counter = dict[str, int]


def setup_whentostop(base_url: str, level: Any, count: Counter) -> Callable[[], dict[str, Any]]:
    from whentostop import NoAnswer, connect, run_agent

    model = connect("loopboros", base_url=base_url, api_key="")
    tools = level.tools()

    def run() -> dict[str, Any]:
        result = run_agent(PROMPT, model=model, tools=tools, max_turns=TURNS)
        count["requests"] += len(result.all_turns)
        try:
            result.answer
        except NoAnswer as exc:
            return _told(
                "result field + exception on .answer",
                f"run.stop == {str(result.stop)!r}; run.answer raises {_name(exc)}: {exc}",
            )
        return _told("result", f"run.stop == {str(result.stop)!r}, answer {result.answer!r}")

    return run


def setup_openai_agents(base_url: str, level: Any, count: Counter) -> Callable[[], dict[str, Any]]:
    from agents import (
        Agent,
        MaxTurnsExceeded,
        OpenAIChatCompletionsModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI, DefaultAsyncHttpxClient

    set_tracing_disabled(True)  # the docs' advice for a non-OpenAI endpoint: nothing to export to
    client = AsyncOpenAI(
        base_url=base_url,
        api_key="unused",
        http_client=DefaultAsyncHttpxClient(event_hooks={"request": [_counter(count)]}),
    )
    search, mark = _level_tools(level)
    agent = Agent(
        name="star finder",
        model=OpenAIChatCompletionsModel(model="loopboros", openai_client=client),
        tools=[
            function_tool(
                level.search_blocks, name_override="search_blocks", description_override=search
            ),
            function_tool(level.mark_star, name_override="mark_star", description_override=mark),
        ],
    )

    def run() -> dict[str, Any]:
        try:
            result = Runner.run_sync(agent, PROMPT, max_turns=TURNS)
        except MaxTurnsExceeded as exc:
            return _told("exception", f"{_name(exc)}: {exc}")
        return _told("result", f"final_output = {result.final_output!r}")

    return run


def setup_pydantic_ai(base_url: str, level: Any, count: Counter) -> Callable[[], dict[str, Any]]:
    from openai import AsyncOpenAI, DefaultAsyncHttpxClient
    from pydantic_ai import Agent, ModelRetry, Tool, UsageLimitExceeded
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.usage import UsageLimits

    client = AsyncOpenAI(
        base_url=base_url,
        api_key="unused",
        http_client=DefaultAsyncHttpxClient(event_hooks={"request": [_counter(count)]}),
    )
    model = OpenAIChatModel("loopboros", provider=OpenAIProvider(openai_client=client))
    search, mark = _level_tools(level)

    def search_blocks(area: str) -> str:
        # PydanticAI sends a tool's error to the model only as ModelRetry; anything else
        # raised by a tool ends the run.
        try:
            return level.search_blocks(area)
        except Exception as exc:
            raise ModelRetry(str(exc)) from None

    # max_retries: the default (1) ends this run at its 2nd wrong spelling in a row with
    # UnexpectedModelBehavior; raised so the turn budget is what stops it, as for the others.
    agent = Agent(
        model,
        tools=[
            Tool(search_blocks, name="search_blocks", description=search, max_retries=TURNS),
            Tool(level.mark_star, name="mark_star", description=mark),
        ],
    )

    def run() -> dict[str, Any]:
        try:
            result = agent.run_sync(PROMPT, usage_limits=UsageLimits(request_limit=TURNS))
        except UsageLimitExceeded as exc:
            return _told("exception", f"{_name(exc)}: {exc}")
        return _told("result", f"output = {result.output!r}")

    return run


SETUPS = {
    "whentostop": setup_whentostop,
    "openai-agents": setup_openai_agents,
    "pydantic-ai": setup_pydantic_ai,
}


def _level_tools(level: Any) -> tuple[str, str]:
    """The descriptions the library gives the two tools, so every framework offers the same."""
    by_name = {t.name: t.description for t in level.tools()}
    return by_name["search_blocks"], by_name["mark_star"]


def _counter(count: Counter) -> Callable[[Any], Any]:
    async def on_request(request: Any) -> None:
        count["requests"] += 1

    return on_request


def _told(how: str, what: str) -> dict[str, Any]:
    return {"how": how, "what": what}


def _name(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__name__}"


def worker(framework: str, base_url: str) -> None:
    """Answer commands on stdin with one JSON line each on stdout."""
    from whentostop import load_level

    level = load_level("1-1")
    count: Counter = {"requests": 0}
    run = SETUPS[framework](base_url, level, count)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command = line.strip()
        count["requests"] = 0
        if command == "run":
            start, cpu = time.perf_counter(), time.process_time()
            told = run()
            answer = {
                "seconds": time.perf_counter() - start,
                "cpu": time.process_time() - cpu,
                **told,
                "requests": count["requests"],
            }
        elif command == "memory":
            tracemalloc.start()
            run()
            answer = {"peak_bytes": tracemalloc.get_traced_memory()[1]}
            tracemalloc.stop()
        else:
            answer = {"maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
            print(json.dumps(answer), flush=True)
            return
        print(json.dumps(answer), flush=True)


# ---- in the parent ---------------------------------------------------------------------------


class Worker:
    """One framework's worker process, driven a command at a time."""

    def __init__(self, framework: str, base_url: str) -> None:
        self.framework = framework
        self.log = tempfile.TemporaryFile("w+")  # its warnings; a pipe could fill up and block it
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), framework, base_url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )

    def wait_ready(self) -> None:
        """Block until it has imported and set up (start all workers first: they load in parallel)."""
        self._read()

    def ask(self, command: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._read()

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(10)
            self.log.seek(0)
            err = self.log.read()
            raise RuntimeError(f"{self.framework} worker died: {err.strip()[-1500:]}")
        return json.loads(line)

    def close(self) -> dict[str, Any]:
        """Ask for its peak RSS and let it exit; kill it if it does not."""
        try:
            return self.ask("quit")
        except (OSError, RuntimeError, ValueError):
            return {}  # it died: its error was already reported by the call that found out
        finally:
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.close()


if __name__ == "__main__":
    worker(sys.argv[1], sys.argv[2])
