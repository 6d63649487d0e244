"""How the views look, in one place: the colours, the blocks' faces, the charts' titles and
labels, the tick rule that the SVG views (`charts`, for the explorer)
and the matplotlib figures (`plots`, for the notebooks) both draw with.

Words are translated when a view is drawn (`_()`), so a figure follows `set_language`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..i18n import N_, _

# The palette: Okabe & Ito's colours for colour-vision deficiencies, darkened where a colour
# fell below WCAG's 3:1 for graphics on white; each pair of run colours and of stacked segments
# stays apart under protanopia, deuteranopia and tritanopia (tests/test_look.py computes both).
RESENT_COLOUR = "#767676"
"""History sent again: grey, the part of each prompt that was paid for before."""
CACHED_COLOUR = "#332288"
"""The part of the history the server reported as cached (`PromptSplit.cached`): indigo."""
NEW_COLOUR = "#0072B2"
COMPLETION_COLOUR = "#D55E00"
TOKENS_COLOUR = "#0072B2"
USD_COLOUR = "#007A5E"
SEPARATOR_COLOUR = "#FFFFFF"
"""A white line between stacked segments, so neighbours never rely on their contrast."""
RUN_COLOURS = ("#0072B2", "#D55E00", "#000000", "#007A5E", "#A8487F", "#7A5C00")
"""One colour per run in a comparison, in order; `RUN_MARKERS` and `RUN_DASHES` are the
second channel, so runs are told apart without colour too."""
RUN_MARKERS = ("o", "s", "^", "D", "v", "P")
"""Matplotlib's marker codes; the SVG views draw the same shapes (`charts`)."""
DASHED = (3.7, 1.6)
DOTTED = (1.0, 1.65)
"""A line's dashes as on/off lengths in line widths (matplotlib's "--" and ":"); () is solid."""
RUN_DASHES: tuple[tuple[float, ...], ...] = (
    (),
    DASHED,
    DOTTED,
    (6.4, 1.6, 1.0, 1.6),
    (5.0, 1.0, 1.0, 1.0),
    (1.0, 3.0),
)
MARKER_COLOURS = {True: "#2E7D32", False: "#C62828"}
"""A marker's ring: green on the star, red on the wrong block (the caption says it in words)."""
BADGE_COLOURS = {
    "end_turn": "#2E7D32",
    "terminal_tool": "#6A1B9A",
    "max_turns": "#C62828",
    "deadline": "#A84300",
    "budget": "#A84300",
    "broken": "#455A64",
    "not_run": "#616161",
    "text_tool_call": "#7A4F01",
    "wrong": "#B71C1C",
}
"""Each exit's badge background, under white text at 4.5:1 or more (keyed by `Stop` value);
`text_tool_call` and `wrong` mark a flag or a pipe that is not a clean answer: a tool call
written as text, or an answer the level knows is wrong."""
NOTE_COLOUR = "#A84300"
"""Retries, cut-off replies and the wrap-up in the transcript: dark orange text on white."""
ERROR_COLOUR = "#B71C1C"
ERROR_BACKGROUND = "#FFEBEE"
OK_COLOUR = "#2E7D32"
PIPE_COLOUR = "#6A1B9A"
LIMIT_COLOURS = {"max_turns": "#D55E00", "deadline": "#A8487F", "budget": "#007A5E"}
"""The race's limits, each a line on the chart beside the run's curve (`TOKENS_COLOUR`): 3:1 or
more on white and apart from each other under colour-vision deficiencies; each also has its own
line style (`LIMIT_DASHES`) and a label in words."""
LIMIT_DASHES = {"max_turns": "", "deadline": "8 4", "budget": "2 3"}
"""The second channel of each limit's line: solid, dashed, dotted (SVG `stroke-dasharray`)."""
LIMIT_MARKERS = {"max_turns": "s", "deadline": "^", "budget": "D"}
"""Each limit's shape where it falls on the race's track (matplotlib's marker codes)."""
TRACK_COLOUR = "#767676"
"""The rest of the race's track (where the run would have gone on): grey, dashed."""
FOCUS_COLOUR = "#0072B2"
"""The ring every control shows when it has the keyboard focus."""
BORDER_COLOUR = "#767676"
"""Boxes a learner must find (the transcript): 3:1 or more against white."""
CODE_BACKGROUND = "#F5F5F5"
TEXT_COLOUR = "#212121"
MUTED_COLOUR = "#424242"
AXIS_COLOUR = "#616161"
GRID_COLOUR = "#E0E0E0"
"""Grid lines: a faint guide, not needed to read a value (the tick labels are)."""
BACKGROUND = "#FFFFFF"
DISABLED_BACKGROUND = "#EEEEEE"
"""A field that cannot be used yet (the system prompt while giving up is not allowed), under
`MUTED_COLOUR` text and a dashed border."""
PROJECTOR_TEXT_PX = 18
"""The explorer's body text on a projector (`dashboard()`, `explorer(projector=True)`): readable
from the back of a room at 1280×720."""


@dataclass(frozen=True)
class Face:
    """How a block is drawn: fill, edge, the label on it and the label's colour."""

    fill: str
    edge: str
    label: str
    colour: str


def block_face(item: str | None) -> Face:
    """A `?` block still closed (None), the star, or what a searched block hid."""
    if item is None:
        return Face("#f9a825", "#8d5a00", "?", "#5d3b00")
    if item == "star":
        return Face("#ffeb3b", "#e65100", _("STAR"), "#bf360c")
    return Face("#d7ccc8", "#795548", _(ITEM_NAMES.get(item, item)), "#3e2723")


ITEM_NAMES = {
    "coin": N_("coin"),
    "mushroom": N_("mushroom"),
    "flower": N_("flower"),
    "1-up": N_("1-up"),
    "nothing": N_("nothing"),
    "star": N_("star"),
}
"""What a block can hide, as the map shows it (the tools' outputs keep the level's words)."""


def usd_digits(largest: float) -> int:
    """Decimals enough to tell dollar ticks apart up to `largest` (the axis names the currency:
    "cumulative cost (USD)")."""
    return 2 if largest >= 0.1 or largest <= 0 else min(6, 1 - math.floor(math.log10(largest)))


def nice_top(largest: float) -> float:
    """An axis top: 1, 2, 2.5 or 5 times a power of ten, at or above the largest value."""
    if largest <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(largest))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= largest)


def tick_shown(i: int, n: int) -> bool:
    """A tick label for every turn up to 12 turns, every other one beyond (they would collide),
    and always the last."""
    return n <= 12 or i % 2 == 0 or i == n - 1


# -- words of the charts: msgids, translated with `_()` when a view is drawn -------------------

TURN = N_("turn")
CUMULATIVE_TOKENS = N_("cumulative tokens")
CUMULATIVE_USD = N_("cumulative cost (USD)")
NO_TURNS = N_("no turns yet")
BLOCK = N_("block {n}")
MARKED = N_("marked")
WRONG = N_("WRONG")
