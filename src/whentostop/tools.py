"""Tools: a Python function (or a pydantic model) becomes an OpenAI `tools` entry.

Everything that can go wrong with a tool call — broken JSON, a wrong type, a missing field, an
unknown tool, an exception in the body, a hang, a huge output — becomes one readable error line
that goes back to the model as the call's result. Nothing here raises into the loop.
"""

from __future__ import annotations

import copy
import functools
import inspect
import json
import threading
import time
import typing
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError, create_model

from ._json import NotJSON, read_json
from ._numbers import seconds
from ._text import json_text
from .i18n import _, told

MAX_OUTPUT_CHARS = 16_000
"""A tool's output longer than this is cut, with a note saying so (about 4,000 tokens)."""

DEFAULT_TOOL_TIMEOUT_S = 30.0
"""A tool body still running after this long is abandoned; the timeout goes back to the model."""

MAX_ABANDONED_CALLS = 4
"""Calls of one tool that timed out and still run (Python cannot stop a thread) before the next
call of it fails at once: a tool that always hangs cannot pile up threads in a long session."""


@dataclass(frozen=True)
class ToolResult:
    """What one call produced: the text for the model, and whether it succeeded."""

    ok: bool
    output: str
    input: dict[str, Any] | None = None
    latency_s: float = 0.0


@dataclass
class Tool:
    """A function the model may call, with the pydantic model its input must validate against."""

    name: str
    description: str
    input_model: type[BaseModel]
    fn: Callable[..., Any]
    timeout_s: float | None = DEFAULT_TOOL_TIMEOUT_S
    takes_model: bool = False
    """True when `fn` takes the validated model instance as its one argument."""

    @property
    def schema(self) -> dict[str, Any]:
        """The OpenAI `tools` entry: name, description, and the input's JSON Schema."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(_parameters(self.input_model)),
            },
        }

    def validate(self, arguments: str | dict[str, Any] | None) -> BaseModel:
        """Parse and validate the model's arguments; raise `ToolInputError` with one clear line."""
        if arguments is None or arguments == "":
            arguments = "{}"
        if isinstance(arguments, str):
            sent = arguments
            try:
                arguments = read_json(sent)
            except NotJSON as exc:
                problem = f"arguments_{exc.kind}"
                said = told(problem, name=self.name, sent=_excerpt(sent), **vars(exc))
                raise ToolInputError(said) from None
        if not isinstance(arguments, dict):
            sent, kind = _excerpt(json_text(arguments)), type(arguments).__name__
            raise ToolInputError(told("arguments_not_object", name=self.name, kind=kind, sent=sent))
        try:
            return self.input_model.model_validate(arguments)
        except ValidationError as exc:
            raise ToolInputError(f"invalid input for {self.name}: {_describe(exc)}") from None

    def __call__(
        self, arguments: str | dict[str, Any] | None, *, deadline: float | None = None
    ) -> ToolResult:
        """Validate, run, and return the output as text. Never raises.

        `deadline` (a `time.monotonic()` value: the run's) cuts a slow body short too.
        """
        start = time.perf_counter()
        try:
            validated = self.validate(arguments)
        except ToolInputError as exc:
            return ToolResult(False, f"Error: {exc}", None, time.perf_counter() - start)
        data = validated.model_dump()
        limit, by_deadline = _time_limit(self.timeout_s, deadline)
        args = (validated,) if self.takes_model else ()
        kwargs = {} if self.takes_model else {name: getattr(validated, name) for name in data}
        try:
            # the result is made into text inside the limit too: a slow __str__ is part of the call
            text = _run_with_timeout(self.fn, lambda: as_text(self.fn(*args, **kwargs)), limit)
        except _StillRunning as exc:
            text = told("still_running", name=self.name, n=exc.args[0], most=MAX_ABANDONED_CALLS)
        except TimeoutError:
            when = "before the run's deadline" if by_deadline else f"within {self.timeout_s:g} s"
            text = f"Error: {self.name} did not finish {when} and was abandoned"
        except ToolError as exc:
            text = f"Error: {exc}"
        except Exception as exc:  # noqa: BLE001 — a tool's bug must not crash the loop
            message = str(exc) or type(exc).__name__
            text = f"Error: {self.name} failed: {type(exc).__name__}: {message}"
        else:
            return ToolResult(True, text, data, time.perf_counter() - start)
        return ToolResult(False, text, data, time.perf_counter() - start)


class ToolError(Exception):
    """Raise this in a tool body for an error meant for the model: sent back as `Error: <message>`."""


class ToolInputError(ValueError):
    """The model's arguments for a tool did not parse or validate."""


class _StillRunning(Exception):
    """The tool's earlier calls that timed out still run: `MAX_ABANDONED_CALLS` of them (its one
    argument, how many)."""


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    input_model: type[BaseModel] | None = None,
    timeout_s: float | None = DEFAULT_TOOL_TIMEOUT_S,
) -> Any:
    """Turn a typed function into a `Tool`. Works bare (`@tool`), with options, or as a call.

    The input schema comes from `input_model`, or from a single pydantic-model parameter, or
    from the function's type hints (`Annotated[int, Field(gt=0)]` works). The description is
    `description` or the docstring.
    """

    limit = None if timeout_s is None else seconds(timeout_s, "timeout_s")

    def build(f: Callable[..., Any]) -> Tool:
        model, takes_model = _input_model_of(f, input_model)
        text = description if description is not None else inspect.getdoc(f) or ""
        return Tool(name or f.__name__, text.strip(), model, f, limit, takes_model)

    return build(fn) if fn is not None else build


def call_tool(
    tools: dict[str, Tool], name: str, arguments: str | None, *, deadline: float | None = None
) -> ToolResult:
    """Run one call by name; an unknown name is an error result listing the tools there are."""
    if name not in tools:
        known = ", ".join(tools) or "none"
        said = f"Error: there is no tool named {_excerpt(repr(name), 60)}. Tools: {known}."
        return ToolResult(False, said)
    return tools[name](arguments, deadline=deadline)


def as_tools(tools: Iterable[Tool | Callable[..., Any]]) -> dict[str, Tool]:
    """Index tools by name, wrapping plain functions; two tools with one name is a mistake."""
    indexed: dict[str, Tool] = {}
    for item in tools:
        t = item if isinstance(item, Tool) else tool(item)
        if t.name in indexed:
            twice = _("two tools are named {name!r}; tool names must be unique")
            raise ValueError(twice.format(name=t.name))
        indexed[t.name] = t
    return indexed


def as_text(value: Any, limit: int = MAX_OUTPUT_CHARS) -> str:
    """A tool's output as the text the model will read, cut to `limit` with a note."""
    whole = True
    if isinstance(value, str):
        text = value
    elif isinstance(value, BaseModel):
        text = value.model_dump_json()
    elif value is None:
        text = ""
    elif isinstance(value, (dict, list, tuple, int, float, bool)):
        try:  # only the start is written out: a huge list costs no more than that
            text, whole = _json_head(value, limit)
        except (TypeError, ValueError, RecursionError):
            text = str(value)
    else:
        text = str(value)  # any other object: what print() would show
    if len(text) <= limit:
        return text
    size = f"{len(text):,}" if whole else f"more than {limit:,}"
    return text[:limit] + f"\n[output cut: {size} characters, only the first {limit:,} are shown]"


def _json_head(value: Any, limit: int) -> tuple[str, bool]:
    """`value` as JSON text, written out only until it passes `limit` characters; whether the
    text is whole. (json's incremental encoder: one-shot `dumps` writes everything first.)"""
    parts, size = [], 0
    for part in json.JSONEncoder(ensure_ascii=False, default=str).iterencode(value):
        parts.append(part)
        size += len(part)
        if size > limit:
            return "".join(parts), False
    return "".join(parts), True


@functools.cache
def _parameters(input_model: type[BaseModel]) -> dict[str, Any]:
    """The input's JSON Schema, built once per model (pydantic rebuilds it on every call)."""
    parameters = input_model.model_json_schema()
    parameters.pop("title", None)
    return parameters


_MODELS: weakref.WeakKeyDictionary[Any, tuple[type[BaseModel], bool]] = weakref.WeakKeyDictionary()


def _input_model_of(
    fn: Callable[..., Any], input_model: type[BaseModel] | None
) -> tuple[type[BaseModel], bool]:
    """The input model for `fn`, built once per function: `level.tools()` is called every run,
    and building a pydantic model costs about half a millisecond."""
    if input_model is not None:
        return _build_input_model(fn, input_model)
    key = getattr(fn, "__func__", fn)  # a bound method: one model for every instance
    try:
        return _MODELS[key]
    except KeyError:
        return _MODELS.setdefault(key, _build_input_model(fn, None))
    except TypeError:  # not weak-referenceable (a builtin): built each time, not cached
        return _build_input_model(fn, None)


def _build_input_model(
    fn: Callable[..., Any], input_model: type[BaseModel] | None
) -> tuple[type[BaseModel], bool]:
    hints = typing.get_type_hints(fn, include_extras=True)
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    one = hints.get(params[0].name) if len(params) == 1 else None  # a model, taken whole?
    if input_model is not None:
        return input_model, one is input_model
    if isinstance(one, type) and issubclass(one, BaseModel):
        return one, True
    if unhinted := next((p.name for p in params if p.name not in hints), None):
        said = _("tool {tool}: parameter {name!r} needs a type hint")
        raise TypeError(said.format(tool=fn.__name__, name=unhinted))
    fields: dict[str, Any] = {
        p.name: (hints[p.name], ... if p.default is p.empty else p.default) for p in params
    }
    return create_model(f"{fn.__name__}_input", **fields), False


_ABANDONED: dict[Any, list[threading.Thread]] = {}
"""The threads of timed-out calls that still run, by where the tool's function was defined."""
_ABANDONED_LOCK = threading.Lock()


def _run_with_timeout(
    fn: Callable[..., Any], call: Callable[[], str], timeout_s: float | None
) -> str:
    """`call()` (the tool's function `fn`, its result as text) within `timeout_s` seconds."""
    if timeout_s is None:
        return call()
    key = _defined_as(fn)  # the tool's own function
    with _ABANDONED_LOCK:
        for name, threads in list(_ABANDONED.items()):  # forget the calls that have finished
            _ABANDONED[name] = [t for t in threads if t.is_alive()]
            if not _ABANDONED[name]:
                del _ABANDONED[name]
        running = len(_ABANDONED.get(key, ()))
        if running >= MAX_ABANDONED_CALLS:
            raise _StillRunning(running)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 — re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target, name="whentostop-tool", daemon=True)
    try:
        worker.start()
    except RuntimeError:  # "can't start new thread": Pyodide (JupyterLite) has no threads
        return _run_inline(call, timeout_s)
    worker.join(timeout_s)
    if worker.is_alive():
        with _ABANDONED_LOCK:
            _ABANDONED.setdefault(key, []).append(worker)
        raise TimeoutError
    if "error" in box:
        raise box["error"]
    return str(box["value"])


def _run_inline(call: Callable[[], str], timeout_s: float) -> str:
    """The body in the caller's thread, held to the same limit afterwards: where no thread can
    start (Python in the browser, Pyodide), a timeout would otherwise fail every call. A body that
    took too long ends as the thread's would (`TimeoutError`, the same message, its late result or
    error dropped); what no thread means is that a body that never returns holds the run."""
    started = time.monotonic()
    try:
        value = call()
    except Exception:
        if time.monotonic() - started > timeout_s:
            raise TimeoutError from None
        raise
    if time.monotonic() - started > timeout_s:
        raise TimeoutError
    return value


def _defined_as(fn: Callable[..., Any]) -> Any:
    """Where `fn` was defined (module and qualified name): a notebook cell run again makes a new
    function object, but it is the same tool. Identity for a callable without a name."""
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if isinstance(module, str) and isinstance(name, str):
        return module, name
    return fn if getattr(type(fn), "__hash__", None) else id(fn)


def _time_limit(timeout_s: float | None, deadline: float | None) -> tuple[float | None, bool]:
    """The seconds a tool body may take: its own limit or what is left of the run, if less."""
    if deadline is None:
        return timeout_s, False
    left = max(deadline - time.monotonic(), 0.0)
    if timeout_s is None or left < timeout_s:
        return left, True
    return timeout_s, False


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(x) for x in err["loc"]) or "input"
        got = err.get("input")
        shown = "" if err["type"] == "missing" else f" (got {_excerpt(json_text(got), 40)})"
        parts.append(f"{where}: {err['msg']}{shown}")
    return "; ".join(parts)


def _excerpt(text: str, limit: int = 120) -> str:
    """The model's own text, kept as sent but on one line (so an error stays one line)."""
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"
