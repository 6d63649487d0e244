"""Where does the time go? pyinstrument over the runs the benchmarks time.

    python bench/profiling.py loop        # 20 runs of run_agent, 25 turns, in-process mock
    python bench/profiling.py socket      # 10 runs against `python -m whentostop serve`
    python bench/profiling.py widget      # the explorer's slider 1 -> 25
    python bench/profiling.py connect     # 10 x connect() to a real URL

Read the frames under whentostop/: those are ours. The mock's (whentostop/mock/) are the
model's time, which a real endpoint would spend too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loops import PERSONA, connect, library_run, serving


def loop() -> None:
    for _ in range(20):
        with connect(PERSONA) as model:
            library_run(model)


def socket() -> None:
    with serving() as url:
        for _ in range(10):
            with connect(PERSONA, base_url=url, api_key="") as model:
                library_run(model)


def widget() -> None:
    from whentostop.views.widgets import explorer

    slider = explorer("1-1").max_turns
    for value in range(1, 26):
        slider.value = value


def connect_only() -> None:
    for _ in range(10):
        connect(PERSONA, base_url="http://127.0.0.1:9/v1", api_key="").close()


TARGETS: dict[str, Callable[[], None]] = {
    "loop": loop,
    "socket": socket,
    "widget": widget,
    "connect": connect_only,
}


def main() -> int:
    from pyinstrument import Profiler

    name = sys.argv[1] if len(sys.argv) > 1 else "loop"
    target = TARGETS[name]
    profiler = Profiler(interval=0.0005)
    with profiler:
        target()
    print(profiler.output_text(unicode=True, color=False, show_all=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
