"""Learner code under limits: whatever an answer does, the check that calls it ends, in time.

    ran = run_limited(lambda: learners_function(case), seconds=6.0)
    ran.value, ran.raised, ran.timed_out, ran.printed

An answer may never return, swallow every exception with a bare `except:`, call `sys.exit()`,
raise a `BaseException`, print forever or return three million items; the check still gives its
verdict within its time limit and the kernel stays usable. No thread is needed (Pyodide has
none): past the deadline, `OutOfTime` is raised in the learner's code at every line and every
loop jump (`sys.monitoring`, Python 3.12+) until it leaves the learner's frames; Python 3.11 has no
`sys.monitoring` and unsets a trace function that raises, so there `sys.settrace` raises only at a
line from which the exception cannot be caught again (the frames' exception tables say so) and
where a function of the learner's starts. The watch keeps `HEADROOM` frames beyond the learner's
recursion limit for itself (a recursion that catches its own `RecursionError` leaves none below
it), given at the deadline by a thread where one can start, so that the alarm's handler can run
at all. Where
the platform has interval timers (Unix, the main thread), a `SIGALRM` at the deadline also wakes
a learner blocked in C (`time.sleep`, a socket read) and starts the line-level deadline, so
nothing is traced before it; elsewhere the deadline is polled on every call and loop jump.
Library code the learner calls is never interrupted by the line-level deadline (a cleanup must
not be cut in half): the check's own plumbing checks `expired()` where it is called.

Ctrl-C still interrupts: during a check, SIGINT also ends the learner's code the same way, and
`KeyboardInterrupt` goes on to the cell.
"""

from __future__ import annotations

import contextlib
import dis
import functools
import io
import os
import reprlib
import signal
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any, Literal

MAX_PRINTED = 4_000
"""The characters of what the learner's code printed that a check keeps (and shows)."""
GRACE_S = 1.0
"""How long past the deadline library code the learner called may finish before the alarm cuts
it short too (a learner's `connect("slow:600")`)."""
ALARM_EVERY_S = 0.05
"""Past the deadline, how often the alarm wakes a learner blocked in C again."""
HEADROOM = 100
"""Frames the watch may use beyond the recursion limit the learner's code had: a recursion that
catches `RecursionError` and recurses again lives at the limit, where the watch's own functions
could not even be called. Given back when the check ends."""

Clock = Literal["alarm", "poll"]


class OutOfTime(BaseException):
    """The learner's code ran past the check's time limit. A BaseException, so that `except
    Exception` lets it through; raised again until it leaves the learner's code."""


@dataclass
class Ran:
    """What one call of learner code came to."""

    value: Any = None
    raised: BaseException | None = None
    """What the learner's code raised, `SystemExit` and other BaseExceptions included."""
    timed_out: bool = False
    printed: str = ""
    """The first `MAX_PRINTED` characters it printed (stdout and stderr)."""
    unprinted: int = 0
    """How many more characters it printed, not kept."""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.raised is None and not self.timed_out


_active: _Watch | None = None


def active() -> bool:
    """Whether learner code is running under limits now (in this thread)."""
    return _active is not None and _active.thread == threading.get_ident()


def expired() -> bool:
    """Whether the limit of the learner code running now has passed: the check's own plumbing
    (a `post`, a tool) calls this, and raises `OutOfTime`, where the learner's code calls it."""
    watch = _active
    return watch is not None and watch._due()


def end_now() -> None:
    """End the learner's code now, as if its time were up: the check's plumbing calls this when
    the code goes on after being told to stop (a bare `except:` that keeps everything)."""
    watch = _active
    if watch is None or watch.thread != threading.get_ident():
        return
    watch.deadline = min(watch.deadline, time.monotonic())
    expired()  # noted: from now on the watch raises in the learner's code
    raise _stop_error()


def stop_if_expired() -> None:
    """Raise `OutOfTime` (or `KeyboardInterrupt` after Ctrl-C) when the limit has passed."""
    if expired():
        raise _stop_error()


def _stop_error() -> BaseException:
    watch = _active
    return KeyboardInterrupt() if watch is not None and watch.interrupted else OutOfTime()


def run_limited(fn: Callable[[], Any], *, seconds: float, clock: Clock | None = None) -> Ran:
    """Call `fn()` (learner code, or a check that calls it) with at most `seconds` of wall time
    and `MAX_PRINTED` characters of output kept; never raises, except `KeyboardInterrupt` when
    the learner pressed Ctrl-C. `clock` forces how the deadline is watched ("alarm": a timer
    signal; "poll": checked on every call and jump, as where no timer exists); None chooses."""
    global _active
    if _active is not None:  # a check inside a check: the outer one holds the limit
        return attempt(fn)
    watch = (_Monitor if hasattr(sys, "monitoring") else _Tracer)(time.monotonic() + seconds)
    chosen = clock or ("alarm" if _can_alarm() else "poll")
    out = _Capped()
    ran = Ran()
    started = time.monotonic()
    _active = watch
    _unhook()
    try:
        watching = _alarm(watch) if chosen == "alarm" else _interrupts(watch)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), watching:
            _harness(fn, watch, ran, poll=chosen == "poll")
    finally:
        _active = None
        if sys.getrecursionlimit() == watch.limit + HEADROOM:  # the watch's headroom, given back
            sys.setrecursionlimit(watch.limit)
        _unhook()
        ran.seconds = time.monotonic() - started
        ran.printed, ran.unprinted = out.getvalue(), out.dropped
    if watch.interrupted:
        raise KeyboardInterrupt
    return ran


def _unhook() -> None:
    """A watch's trace or profile is never kept, not even one an earlier check left set (CI saw
    it once, under load): past its deadline it would stop every cell the learner runs after."""
    for get, put in ((sys.gettrace, sys.settrace), (sys.getprofile, sys.setprofile)):
        if isinstance(getattr(get(), "__self__", None), _Watch):
            put(None)


def _harness(fn: Callable[[], Any], watch: _Watch, ran: Ran, poll: bool) -> None:
    """Call `fn()` watched, into `ran`: the frame that catches what the learner's code raises
    (the watch raises nothing here, and walks the frames only up to here)."""
    watch.start(poll=poll)
    try:
        ran.value = fn()
    except OutOfTime:
        ran.timed_out = True
    except KeyboardInterrupt as exc:
        if watch.interrupted:  # Ctrl-C: it goes on to the cell
            raise
        ran.raised = exc
    except BaseException as exc:  # noqa: BLE001 — SystemExit too: a verdict, not an exit
        ran.raised = exc
    finally:
        watch.done = True  # first: an alarm from now on raises nothing
        watch.stop()


_HARNESS = _harness.__code__
"""The code of the frame the watch walks the learner's frames up to."""


def attempt(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Ran:
    """Call learner code: what it returned or raised (SystemExit and other BaseExceptions too),
    never raised on. The limit's own stop (`OutOfTime`) and Ctrl-C go on."""
    try:
        return Ran(value=fn(*args, **kwargs))
    except (OutOfTime, KeyboardInterrupt):
        raise
    except BaseException as exc:  # noqa: BLE001 — what the learner's code raised is data here
        return Ran(raised=exc)


# -- which code is the learner's ------------------------------------------------------------------

_NOT_LEARNERS = tuple(
    os.path.normcase(os.path.realpath(p)) + os.sep
    for p in {
        *(sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")),
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # the whentostop package
    }
    if p
)


def _is_learners(watch: _Watch, code: CodeType, names: dict[str, Any]) -> bool:
    """Whether `code` (run with the globals `names`) is the learner's: code run in the
    notebook's own namespace (`__main__`: its cells, and what they define), or a module of the
    learner's own (a file outside the standard library, the installed packages and this one).
    Code that libraries generate (a dataclass's `__init__`, pydantic's) is theirs."""
    known = watch.learner.get(code)
    if known is None:
        name = code.co_filename
        known = watch.learner[code] = names.get("__name__") == "__main__" or (
            not name.startswith("<")
            and os.path.isabs(name)
            and not os.path.normcase(os.path.realpath(name)).startswith(_NOT_LEARNERS)
        )
    return known


# -- watching the deadline ------------------------------------------------------------------------


@dataclass(eq=False)
class _Watch:
    """How the deadline reaches the learner's code: `start`, `expire` (from then on, raise in
    the learner's code until it leaves it), `stop`; and what it knows of the code it watches."""

    deadline: float = 0.0
    thread: int = field(default_factory=threading.get_ident)
    expired: bool = False
    interrupted: bool = False
    done: bool = False
    """The learner's code has returned or raised: nothing raises on its behalf any more."""
    learner: dict[CodeType, bool] = field(default_factory=dict)
    limit: int = field(default_factory=sys.getrecursionlimit)
    """The recursion limit the learner's code runs under."""

    def start(self, poll: bool) -> None: ...

    def expire(self, frame: FrameType | None) -> None: ...

    def stop(self) -> None: ...

    def _due(self) -> bool:
        """Whether the deadline has passed (noting it the first time), in the checked thread."""
        if self.done or self.thread != threading.get_ident():
            return False
        if not self.expired and time.monotonic() >= self.deadline:
            self.expire(None)
        return self.expired


class _Monitor(_Watch):
    """Python 3.12+: `sys.monitoring` callbacks, which stay registered when they raise, so
    `OutOfTime` comes again at every line and jump of the learner's code until it has left it."""

    def start(self, poll: bool) -> None:
        mon = sys.monitoring  # type: ignore[attr-defined,unused-ignore]
        # a free tool id: a debugger or coverage may hold some
        self.tool = next((i for i in (4, 3, 5, 2, 1, 0) if mon.get_tool(i) is None), None)
        if self.tool is None:  # pragma: no cover - six tools at once
            self.mon = None
            return
        self.mon = mon
        events = mon.events
        mon.use_tool_id(self.tool, "whentostop-limits")
        for event in (events.LINE, events.JUMP, events.PY_START):
            mon.register_callback(self.tool, event, self._event)
        if poll:
            mon.set_events(self.tool, events.JUMP | events.PY_START)

    def expire(self, frame: FrameType | None) -> None:
        self.expired = True
        if self.mon is not None:
            events = self.mon.events
            self.mon.set_events(self.tool, events.LINE | events.JUMP | events.PY_START)

    def stop(self) -> None:
        if self.mon is None:
            return
        events = self.mon.events
        self.mon.set_events(self.tool, 0)
        for event in (events.LINE, events.JUMP, events.PY_START):
            self.mon.register_callback(self.tool, event, None)
        self.mon.free_tool_id(self.tool)

    def _event(self, code: CodeType, *where: int) -> None:
        """A line, a jump or a call in `code` (the frame above this one runs it)."""
        if self._due() and _is_learners(self, code, sys._getframe(1).f_globals):
            raise _stop_error()


class _Tracer(_Watch):
    """Python 3.11: `sys.settrace`. A trace function that raises is unset, so it raises only at
    a line from which the exception leaves every frame up to the check (no handler on the way
    could catch it), or where a frame of the learner's starts past the deadline; the profile sets
    it again at the next call or return, the alarm at its next tick. Polled, the trace runs from
    the start, with `HEADROOM` frames of its own: the learner's code meets its recursion limit
    in the trace (which the profile then sets again), not in the trace's own call."""

    def start(self, poll: bool) -> None:
        self.before = sys.gettrace()
        self.poll = poll
        if poll:
            sys.setrecursionlimit(self.limit + HEADROOM)
            sys.setprofile(self._profile)
            sys.settrace(self._global)

    def expire(self, frame: FrameType | None) -> None:
        self.expired = True
        sys.setprofile(self._profile)  # it sets the trace again, once a raise has unset it
        sys.settrace(self._global)
        here: FrameType | None = frame or sys._getframe(1)
        while here is not None and here.f_code is not _HARNESS:
            if _is_learners(self, here.f_code, here.f_globals):
                if here.f_trace == self._local:
                    break  # the frames further out kept theirs (a raise clears only its own)
                here.f_trace = self._local
                here.f_trace_opcodes = True  # a one-line loop has no line events to stop at
            here = here.f_back

    def stop(self) -> None:
        sys.setprofile(None)
        sys.settrace(self.before)

    def _global(self, frame: FrameType, event: str, arg: Any) -> Any:
        if not _is_learners(self, frame.f_code, frame.f_globals):
            return None
        frame.f_trace_opcodes = True
        if self._due():  # past the deadline, the learner's code starts nothing new
            raise _stop_error()
        if self.poll and sys.getrecursionlimit() == self.limit + HEADROOM:  # not the learner's
            try:  # fails where this frame is past the learner's limit
                sys.setrecursionlimit(self.limit)
            except RecursionError:
                raise RecursionError("maximum recursion depth exceeded") from None
            finally:
                sys.setrecursionlimit(self.limit + HEADROOM)
        return self._local

    def _local(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event in ("line", "opcode") and self._due():
            if _escapes(frame, self):
                raise _stop_error()
            if time.monotonic() >= self.deadline + GRACE_S:
                # Every handler on the way keeps it (a recursion that catches BaseException):
                # raise anyway; the trace is unset by it, and the profile sets it again at the
                # next call or return, the alarm at its next tick.
                raise _stop_error()
        return self._local

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if sys.gettrace() is None:  # a raise unset it (one call: this runs at every call)
            if self.expired:
                self.expire(frame)
            else:  # polled: the trace met the learner's recursion limit
                sys.settrace(self._global)


def _escapes(frame: FrameType, watch: _Watch) -> bool:
    """Whether an exception raised at `frame`'s current instruction would leave the learner's
    frames, with no handler of theirs on the way that could keep it. (The check's own code, and
    the library's, let `OutOfTime` through: they are not asked.)"""
    here: FrameType | None = frame
    while here is not None and _is_learners(watch, here.f_code, here.f_globals):
        if _kept_in(here.f_code, here.f_lasti, here.f_globals):
            return False
        here = here.f_back
    return True


_KEPT: dict[tuple[CodeType, int], bool] = {}


def _kept_in(code: CodeType, offset: int, names: dict[str, Any]) -> bool:
    """`_keeps`, remembered per instruction (a deep recursion asks for the same ones often)."""
    key = (code, offset)
    found = _KEPT.get(key)
    if found is None:
        if len(_KEPT) > 65536:
            _KEPT.clear()
        found = _KEPT[key] = _keeps(code, offset, names)
    return found


def _keeps(code: CodeType, offset: int, names: dict[str, Any]) -> bool:
    """Whether an `OutOfTime` raised at `offset` could be kept by a handler of `code`: its
    exception table leads to an `except` that matches it (bare, `BaseException`, a name that
    cannot be resolved) or a `with` (whose `__exit__` may swallow it). A cleanup that re-raises
    or an `except Exception` passes it on."""
    table = _parsed(code)[0]
    seen: set[int] = set()
    while True:
        target = next((t for start, end, t in table if start <= offset < end), None)
        if target is None:
            return False
        if target in seen:
            return True
        seen.add(target)
        if _handler_keeps(code, target, names):
            return True
        offset = target  # the handler passes it on from inside its own range


@functools.lru_cache(maxsize=4096)
def _parsed(code: CodeType) -> tuple[list[tuple[int, int, int]], list[dis.Instruction]]:
    """A code object's exception table, and its instructions in order."""
    bytecode = dis.Bytecode(code)
    entries = getattr(bytecode, "exception_entries", ())  # not in typeshed
    return [(e.start, e.end, e.target) for e in entries], list(bytecode)


_STRAIGHT = {"NOP", "CACHE", "EXTENDED_ARG", "COPY", "POP_EXCEPT", "SWAP", "POP_TOP"}


def _handler_keeps(code: CodeType, target: int, names: dict[str, Any]) -> bool:
    """Whether the handler at `target` may keep the exception (conservative: when unsure, yes)."""
    following = [i for i in _parsed(code)[1] if i.offset >= target][:40]
    if not following:
        return True
    if following[0].opname != "PUSH_EXC_INFO":
        return _cleanup_keeps(following)
    rest = following[1:]
    if rest and rest[0].opname == "POP_TOP":  # a bare `except:`
        return True
    for index, step in enumerate(rest):
        if step.opname in ("WITH_EXCEPT_START", "CHECK_EG_MATCH"):
            return True
        if step.opname == "CHECK_EXC_MATCH":
            caught = _resolved(rest[index - 1] if index else None, names)
            return caught is None or _matches(caught)
        if step.opname == "RERAISE":  # a `finally` on the way out: it goes on
            return False
        if step.opname.startswith(("JUMP", "POP_JUMP", "RETURN", "YIELD", "SEND")):
            return True  # a `finally` that may return or loop: assume it keeps it
    return True


def _cleanup_keeps(following: list[dis.Instruction]) -> bool:
    """A cleanup (COPY, POP_EXCEPT, RERAISE) passes the exception on; anything else in it may
    keep it."""
    step = next((s for s in following if s.opname not in _STRAIGHT), None)
    return step is None or step.opname != "RERAISE"


def _resolved(instruction: dis.Instruction | None, names: dict[str, Any]) -> Any:
    """The class an `except X:` names, when it is a plain global or builtin name."""
    if instruction is None or instruction.opname not in ("LOAD_GLOBAL", "LOAD_NAME"):
        return None
    name = str(instruction.argval).removeprefix("NULL + ")
    if name in names:
        return names[name]
    builtins = names.get("__builtins__")
    space = builtins if isinstance(builtins, dict) else getattr(builtins, "__dict__", {})
    return space.get(name)


def _matches(caught: Any) -> bool:
    kinds = caught if isinstance(caught, tuple) else (caught,)
    return any(
        not isinstance(kind, type) or issubclass(OutOfTime, kind) or issubclass(kind, OutOfTime)
        for kind in kinds
    ) or any(isinstance(kind, type) and issubclass(KeyboardInterrupt, kind) for kind in kinds)


# -- the alarm and Ctrl-C --------------------------------------------------------------------------


def _can_alarm() -> bool:
    """Whether a timer signal can wake this thread: Unix, the main thread (never Pyodide)."""
    timer = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")
    main = threading.current_thread() is threading.main_thread()
    return timer and main and sys.platform not in ("emscripten", "wasi")


@contextlib.contextmanager
def _alarm(watch: _Watch) -> Iterator[None]:
    """A `SIGALRM` at the deadline, then every `ALARM_EVERY_S`: it starts the line-level
    deadline, and raises where the learner's code is blocked (in C, or in library code for longer
    than `GRACE_S`). Whatever timer and handler were there before (pytest-timeout's) come back."""

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        if watch.done:  # the check is tidying up: the code it watched has finished
            return
        # before any call: room for the watch's own frames
        sys.setrecursionlimit(max(sys.getrecursionlimit(), watch.limit + HEADROOM))
        watch.expire(frame)  # again at every tick: a trace that raised was unset
        if frame is None or frame.f_code is _HARNESS or frame.f_code.co_filename == __file__:
            return
        late = time.monotonic() >= watch.deadline + GRACE_S
        if _is_learners(watch, frame.f_code, frame.f_globals) or late:
            raise _stop_error()

    before = signal.signal(signal.SIGALRM, on_alarm)
    left = max(watch.deadline - time.monotonic(), 0.001)
    old_delay, old_every = signal.setitimer(signal.ITIMER_REAL, left, ALARM_EVERY_S)
    started = time.monotonic()
    try:
        with _interrupts(watch), _room(watch, left):
            yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        if old_delay > 0:  # someone else's timer (pytest-timeout's): what was left of it
            spent = time.monotonic() - started
            signal.setitimer(signal.ITIMER_REAL, max(old_delay - spent, 0.001), old_every)


@contextlib.contextmanager
def _room(watch: _Watch, left: float) -> Iterator[None]:
    """Where a thread can start: from the deadline, every `ALARM_EVERY_S`, room beyond the
    learner's recursion limit and a `SIGALRM` at once. A learner's code that lives at its limit
    (a loop that calls a recursion that catches `RecursionError`) leaves no frame for the alarm's
    handler to run in, nor for Ctrl-C's; the thread gives them one before the code can take it."""
    ended, main = threading.Event(), threading.get_ident()

    def give() -> None:
        wait = left
        while not ended.wait(wait):
            sys.setrecursionlimit(max(sys.getrecursionlimit(), watch.limit + HEADROOM))
            signal.pthread_kill(main, signal.SIGALRM)
            wait = ALARM_EVERY_S

    helper = threading.Thread(target=give, name="whentostop-limits", daemon=True)
    try:
        helper.start()
    except RuntimeError:  # no threads: the timer alone
        yield
        return
    try:
        yield
    finally:
        ended.set()
        helper.join()


@contextlib.contextmanager
def _interrupts(watch: _Watch) -> Iterator[None]:
    """Ctrl-C during a check: `KeyboardInterrupt` now, and again at every line of the learner's
    code until it leaves (a bare `except:` cannot keep the learner from stopping the cell)."""

    def on_interrupt(signum: int, frame: FrameType | None) -> None:
        if watch.done:  # Ctrl-C while the check tidies up: as usual
            raise KeyboardInterrupt
        watch.interrupted = True
        watch.deadline = time.monotonic()
        if not watch.expired:
            watch.expire(frame)
        if frame is not None and frame.f_code.co_filename == __file__:
            return  # inside the deadline's own trace function: raising there would unset it;
            # the trace raises KeyboardInterrupt itself at the learner's next line
        raise KeyboardInterrupt

    with contextlib.ExitStack() as restore:
        # not the main thread, or no signals (Pyodide): no handler, nothing to restore
        with contextlib.suppress(ValueError, OSError, AttributeError):
            before = signal.signal(signal.SIGINT, on_interrupt)
            restore.callback(signal.signal, signal.SIGINT, before)
        yield


# -- output and values, bounded --------------------------------------------------------------------


class _Capped(io.StringIO):
    """A text stream that keeps the first `MAX_PRINTED` characters written to it and counts the
    rest (`dropped`)."""

    dropped = 0

    def write(self, text: str) -> int:
        text = str(text)
        room = max(MAX_PRINTED - self.tell(), 0)
        super().write(text[:room])
        self.dropped += max(len(text) - room, 0)
        return len(text)


class _Repr(reprlib.Repr):
    """reprlib's bounded repr, with a dict's keys in their own order (reprlib sorts them)."""

    def repr_dict(self, x: dict[Any, Any], level: int) -> str:
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        items = [
            f"{self.repr1(key, level - 1)}: {self.repr1(x[key], level - 1)}"
            for key in list(x)[: self.maxdict]
        ]
        return "{" + ", ".join(items) + (", ...}" if len(x) > self.maxdict else "}")


_REPR = _Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 3, 120, 120, 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = 6


def shown(value: Any, limit: int = 120) -> str:
    """`repr(value)`, bounded: a long list shows its first items, a long text its start, and
    the whole is at most `limit` characters on one line (whatever the value's size)."""
    try:
        text = _REPR.repr(value)
    except Exception:  # noqa: BLE001 — a learner's __repr__ may raise anything
        text = f"<{type(value).__name__}>"
    text = " ".join(text[: limit * 2].split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
