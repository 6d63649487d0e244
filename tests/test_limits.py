"""Learner code under limits: whatever it does, `run_limited` comes back within its time limit,
with what the code returned or raised, and leaves the interpreter as it found it. Both ways the
deadline can be watched are tried: with a timer signal (CPython in a kernel's main thread) and
polled, as where no timer and no thread exists (Pyodide). On Python 3.12+ the deadline goes
through `sys.monitoring`, on 3.11 through `sys.settrace` (the test matrix runs both)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from whentostop.lesson import limits

CLOCKS = ["alarm", "poll"]
LIMIT = 0.5

LEARNER = """
import sys, time

def forever():
    while True:
        pass

def swallows_everything():
    n = 0
    while True:
        try:
            n += 1
        except:
            pass

def swallows_in_nested_loops():
    while True:
        try:
            while True:
                try:
                    n = 1
                except:
                    continue
        except BaseException:
            pass
        finally:
            pass

def swallows_around_the_loop():
    try:
        while True:
            try:
                x = 1
            except:
                pass
    except:
        pass
    return "given up"

def catches_exception_only():
    while True:
        try:
            sum(range(1000))
        except Exception:
            pass

def calls_what_raises(stop):
    while True:
        try:
            stop()
        except:
            pass

def sleeps():
    time.sleep(60)

def sleeps_and_swallows():
    while True:
        try:
            time.sleep(60)
        except:
            pass

def exits():
    sys.exit(3)

class Boom(BaseException):
    pass

def raises_a_base_exception():
    raise Boom("not an Exception")

def prints_forever():
    while True:
        print("spam " * 20)

def returns_a_huge_list():
    return list(range(3_000_000))

def recurses_and_catches(n=0):
    try:
        return recurses_and_catches(n + 1)
    except BaseException:
        return recurses_and_catches(n + 1)

def recurses_and_swallows(n=0):
    try:
        recurses_and_swallows(n + 1)
    except:
        pass
    recurses_and_swallows(n + 1)

def loops_around_a_recursion():
    while True:
        try:
            loops_around_a_recursion()
        except BaseException:
            pass

def recurses_in_finally():
    try:
        recurses_in_finally()
    finally:
        recurses_in_finally()

def deepest(n=1):
    try:
        return deepest(n + 1)
    except RecursionError:
        return n
"""


def learner(name: str) -> Any:
    """A function as a notebook cell defines it: in the `__main__` namespace."""
    names: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(LEARNER, "<notebook cell>", "exec"), names)
    return names[name]


def limited(fn: Any, clock: str, seconds: float = LIMIT) -> tuple[limits.Ran, float]:
    started = time.monotonic()
    ran = limits.run_limited(fn, seconds=seconds, clock=clock)  # type: ignore[arg-type]
    return ran, time.monotonic() - started


HANGS = [
    "forever",
    "swallows_everything",
    "swallows_in_nested_loops",
    "swallows_around_the_loop",
    "catches_exception_only",
    "prints_forever",
]


@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("name", HANGS)
def test_code_that_never_returns_is_ended_within_the_limit(name, clock):
    ran, seconds = limited(learner(name), clock)
    assert ran.timed_out or ran.value == "given up"
    assert seconds < LIMIT + 1.0


ENDLESS_RECURSION = """
import sys, time
from whentostop.lesson import limits
names = {"__name__": "__main__"}
exec(compile(LEARNER, "<notebook cell>", "exec"), names)
for clock in ("alarm", "poll"):
    for name in RECURSIONS:
        started = time.monotonic()
        ran = limits.run_limited(names[name], seconds=0.5, clock=clock)
        print(clock, name, ran.timed_out, round(time.monotonic() - started, 1))
print("limit", sys.getrecursionlimit(), "trace", sys.gettrace(), "profile", sys.getprofile())
"""


RECURSIONS = (
    "recurses_and_catches",
    "recurses_and_swallows",
    "loops_around_a_recursion",
    "recurses_in_finally",
)


def test_a_recursion_that_catches_its_own_recursion_error_still_ends():
    """It lives at the recursion limit (two calls a level, or a loop around the call: it never
    ends by itself), where the watch's own functions, the alarm's handler and Ctrl-C's need frames
    too. In a child process, so a hang fails the test."""
    ran = subprocess.run(
        [
            sys.executable,
            "-c",
            f"LEARNER = {LEARNER!r}\nRECURSIONS = {RECURSIONS!r}\n{ENDLESS_RECURSION}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    *runs, after = ran.stdout.splitlines()
    assert len(runs) == 2 * len(RECURSIONS)
    for clock, name, timed_out, seconds in (line.split() for line in runs):
        assert timed_out == "True" and float(seconds) < 0.5 + 3.0, (clock, name, seconds)
    assert after == f"limit {sys.getrecursionlimit()} trace None profile None"


@pytest.mark.parametrize("clock", CLOCKS)
def test_the_learners_recursion_limit_is_the_one_it_had(clock):
    """The watch's own frames beyond it are not the learner's: a recursion meets its
    RecursionError where it would without the check, and the limit is as before afterwards."""
    before = sys.getrecursionlimit()
    ran, _ = limited(learner("deepest"), clock)
    assert before - 60 < ran.value <= before and sys.getrecursionlimit() == before


@pytest.mark.parametrize("clock", CLOCKS)
def test_a_bare_except_around_a_call_that_raises_still_ends(clock):
    def stop():
        limits.stop_if_expired()
        raise ValueError("the check's plumbing says no")

    ran, seconds = limited(lambda: learner("calls_what_raises")(stop), clock)
    assert ran.timed_out and seconds < LIMIT + 1.0


@pytest.mark.parametrize("name", ["sleeps", "sleeps_and_swallows"])
def test_the_alarm_wakes_code_blocked_in_c(name):
    ran, seconds = limited(learner(name), "alarm")
    assert ran.timed_out and seconds < LIMIT + 1.0


@pytest.mark.parametrize("clock", CLOCKS)
def test_sys_exit_and_a_base_exception_are_what_the_code_raised_not_escapes(clock):
    ran, _ = limited(learner("exits"), clock)
    assert isinstance(ran.raised, SystemExit) and not ran.timed_out
    ran, _ = limited(learner("raises_a_base_exception"), clock)
    assert type(ran.raised).__name__ == "Boom" and not ran.timed_out


@pytest.mark.parametrize("clock", CLOCKS)
def test_what_the_code_prints_is_kept_bounded(clock):
    ran, _ = limited(learner("prints_forever"), clock)
    assert len(ran.printed) == limits.MAX_PRINTED and ran.unprinted > 0
    assert ran.printed.startswith("spam spam")


def test_a_huge_value_is_shown_in_bounded_time_and_length():
    value = learner("returns_a_huge_list")()
    started = time.process_time()
    text = limits.shown(value)
    assert time.process_time() - started < 0.1
    assert text.startswith("[0, 1, 2") and text.endswith("...]") and len(text) < 120


def test_shown_keeps_a_dicts_order_and_survives_a_repr_that_raises():
    assert limits.shown({"item": "star", "block": 12}) == "{'item': 'star', 'block': 12}"

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert "Broken" in limits.shown(Broken())


@pytest.mark.parametrize("clock", CLOCKS)
def test_afterwards_nothing_is_left_watching(clock):
    before_alarm = signal.getsignal(signal.SIGALRM) if hasattr(signal, "SIGALRM") else None
    before_int = signal.getsignal(signal.SIGINT)
    limited(learner("swallows_everything"), clock)
    assert sys.gettrace() is None and sys.getprofile() is None
    if hasattr(sys, "monitoring"):
        assert all(sys.monitoring.get_tool(i) != "whentostop-limits" for i in range(6))
    if before_alarm is not None:
        assert signal.getsignal(signal.SIGALRM) is before_alarm
    assert signal.getsignal(signal.SIGINT) is before_int
    assert not limits.active()
    assert not [t for t in threading.enumerate() if t.name == "whentostop-limits"]


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timers here")
def test_a_timer_that_was_running_before_is_running_after():
    """pytest-timeout, for one, keeps its own SIGALRM timer: the check lends it back."""
    fired: list[int] = []
    before = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        limited(learner("forever"), "alarm")
        left, _every = signal.getitimer(signal.ITIMER_REAL)
        assert 25.0 < left < 30.0 and not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


@pytest.mark.skipif(hasattr(sys, "monitoring"), reason="3.11's trace: 3.12 watches otherwise")
@pytest.mark.parametrize("clock", CLOCKS)
def test_a_hook_an_earlier_check_left_set_is_not_kept(clock):
    """Under load, CI once saw an earlier check's trace left set: past its deadline it stopped
    every later check's code at its first call. A check never restores a watch's hook."""
    old = limits._Tracer(time.monotonic() - 1.0)  # a watch long past its deadline
    old.expired = True
    deepest = learner("deepest")
    sys.settrace(old._global)  # from here this test calls only the library (not "learner's")
    try:
        ran = limits.run_limited(deepest, seconds=LIMIT, clock=clock)  # type: ignore[arg-type]
        assert sys.gettrace() is None and sys.getprofile() is None
    finally:
        sys.settrace(None)
    assert ran.raised is None and not ran.timed_out, ran


@pytest.mark.parametrize("clock", CLOCKS)
def test_ctrl_c_still_interrupts_a_bare_except(clock):
    """Ctrl-C during a check: KeyboardInterrupt reaches the cell, even past `except:`. (The
    signal goes to the main thread, as a kernel's interrupt does: one raised from another thread
    can wait in CPython 3.11 until the next signal comes.)"""
    main = threading.main_thread().ident
    assert main is not None
    timer = threading.Timer(0.2, signal.pthread_kill, (main, signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            limits.run_limited(learner("swallows_everything"), seconds=20, clock=clock)  # type: ignore[arg-type]
    finally:
        timer.cancel()
    assert time.monotonic() - started < 5


def test_without_threads_the_polled_deadline_still_ends_the_code(monkeypatch):
    """Pyodide cannot start a thread: nothing in the limits needs one."""

    def no_threads(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", no_threads)
    ran, seconds = limited(learner("swallows_around_the_loop"), "poll")
    assert (ran.timed_out or ran.value == "given up") and seconds < LIMIT + 1.0
    ran, seconds = limited(learner("swallows_in_nested_loops"), "poll")
    assert ran.timed_out and seconds < LIMIT + 1.0


def test_library_code_the_learner_calls_is_not_cut_in_half():
    """Past the deadline the line-level stop is raised in the learner's frames only: a context
    manager of the library the learner is inside finishes its cleanup."""
    from whentostop.i18n import language, using

    def inside():
        with using("pt"):
            learner("forever")()

    before = language()
    ran, _ = limited(inside, "alarm")
    assert ran.timed_out and language() == before


def test_a_check_inside_a_check_runs_under_the_outer_limit():
    inner: list[limits.Ran] = []
    ran, seconds = limited(
        lambda: inner.append(limits.run_limited(learner("forever"), seconds=60)), "alarm"
    )
    assert ran.timed_out and seconds < LIMIT + 1.0


@pytest.mark.parametrize("clock", CLOCKS)
def test_once_the_code_is_ended_nothing_raises_on_its_behalf(clock):
    """The timer and the line-level stop end with the check: the code after it runs in peace."""
    ran, _ = limited(learner("swallows_everything"), clock)
    assert ran.timed_out
    deadline = time.monotonic() + 3 * limits.ALARM_EVERY_S + limits.GRACE_S
    spins = 0
    while time.monotonic() < deadline:  # long enough for a left-over alarm to come
        spins += 1
    assert spins > 0 and not limits.expired()


def test_a_check_ended_early_by_its_plumbing_leaves_nothing_behind():
    """`end_now` (a learner that keeps the check's own stop): ended at once, nothing left."""
    names: dict[str, Any] = {"__name__": "__main__", "limits": limits}
    exec(
        "def keeps_going():\n"
        "    while True:\n"
        "        try:\n"
        "            limits.end_now()\n"
        "        except:\n"
        "            pass\n",
        names,
    )
    ran, seconds = limited(names["keeps_going"], "alarm", seconds=20)
    assert ran.timed_out and seconds < 2
    time.sleep(2 * limits.ALARM_EVERY_S)
    assert sys.gettrace() is None and not limits.active()
