"""The palette in `look.py` survives colour-vision deficiencies and meets WCAG AA contrast:
computed here from the colour values themselves (WCAG 2.2 relative luminance; Machado et al.
2009's simulation of protanopia, deuteranopia and tritanopia; CIE76 ΔE in CIELAB)."""

from __future__ import annotations

import itertools
import math

import pytest

from whentostop.views import look

TEXT_AA = 4.5
"""WCAG 1.4.3: normal text against its background."""
GRAPHICS_AA = 3.0
"""WCAG 1.4.11: the parts of a graphic needed to understand it, against what is next to them."""
APART = 10.0
"""ΔE (CIE76) two colours keep under every simulated deficiency: told apart at a glance."""

MACHADO = {  # severity 1.0, applied to linear RGB
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
    "typical": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
}


def linear(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    channels = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return r, g, b


def luminance(hex_colour: str) -> float:
    r, g, b = linear(hex_colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def seen(hex_colour: str, deficiency: str) -> tuple[float, float, float]:
    rgb = linear(hex_colour)
    m = MACHADO[deficiency]
    return tuple(min(1.0, max(0.0, sum(m[i][j] * rgb[j] for j in range(3)))) for i in range(3))


def lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: str, b: str, deficiency: str) -> float:
    return math.dist(lab(seen(a, deficiency)), lab(seen(b, deficiency)))


def test_contrast_formula_matches_wcag_reference_values() -> None:
    assert contrast("#FFFFFF", "#000000") == pytest.approx(21.0)
    assert contrast("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize(
    "name",
    [
        "TEXT_COLOUR",
        "MUTED_COLOUR",
        "NOTE_COLOUR",
        "ERROR_COLOUR",
        "OK_COLOUR",
        "PIPE_COLOUR",
        "USD_COLOUR",
    ],
)
def test_text_colours_reach_aa_on_white(name: str) -> None:
    assert contrast(getattr(look, name), look.BACKGROUND) >= TEXT_AA


def test_error_text_reaches_aa_on_its_own_background() -> None:
    assert contrast(look.ERROR_COLOUR, look.ERROR_BACKGROUND) >= TEXT_AA
    assert contrast(look.TEXT_COLOUR, look.CODE_BACKGROUND) >= TEXT_AA


def test_a_disabled_fields_text_still_reaches_aa_on_its_grey() -> None:
    """The system prompt while giving up is off: unavailable, but its words stay readable."""
    assert contrast(look.MUTED_COLOUR, look.DISABLED_BACKGROUND) >= TEXT_AA


@pytest.mark.parametrize("exit_name", list(look.BADGE_COLOURS))
def test_white_badge_text_reaches_aa_on_every_exits_colour(exit_name: str) -> None:
    assert contrast("#FFFFFF", look.BADGE_COLOURS[exit_name]) >= TEXT_AA


GRAPHICS = [
    "RESENT_COLOUR",
    "CACHED_COLOUR",
    "NEW_COLOUR",
    "COMPLETION_COLOUR",
    "TOKENS_COLOUR",
    "USD_COLOUR",
    "FOCUS_COLOUR",
    "BORDER_COLOUR",
]


@pytest.mark.parametrize("name", GRAPHICS)
def test_graphics_reach_three_to_one_on_white(name: str) -> None:
    assert contrast(getattr(look, name), look.BACKGROUND) >= GRAPHICS_AA


@pytest.mark.parametrize("colour", look.RUN_COLOURS + tuple(look.MARKER_COLOURS.values()))
def test_run_and_marker_colours_reach_three_to_one_on_white(colour: str) -> None:
    assert contrast(colour, look.BACKGROUND) >= GRAPHICS_AA


def test_stacked_segments_are_separated_by_a_line_at_three_to_one() -> None:
    """Neighbouring segments need not contrast with each other: a white line runs between them,
    and each segment reaches 3:1 against it."""
    for name in ("RESENT_COLOUR", "CACHED_COLOUR", "NEW_COLOUR", "COMPLETION_COLOUR"):
        assert contrast(getattr(look, name), look.SEPARATOR_COLOUR) >= GRAPHICS_AA


@pytest.mark.parametrize("deficiency", list(MACHADO))
def test_stacked_segments_stay_apart_under_colour_vision_deficiencies(deficiency: str) -> None:
    segments = [look.CACHED_COLOUR, look.RESENT_COLOUR, look.NEW_COLOUR, look.COMPLETION_COLOUR]
    for a, b in itertools.combinations(segments, 2):
        assert delta_e(a, b, deficiency) >= APART, (a, b, deficiency)


@pytest.mark.parametrize("deficiency", list(MACHADO))
def test_run_colours_stay_apart_under_colour_vision_deficiencies(deficiency: str) -> None:
    for a, b in itertools.combinations(look.RUN_COLOURS, 2):
        assert delta_e(a, b, deficiency) >= APART, (a, b, deficiency)


def test_each_run_also_has_its_own_marker_and_line_style() -> None:
    n = len(look.RUN_COLOURS)
    assert len(set(look.RUN_MARKERS[:n])) == n
    assert len({str(style) for style in look.RUN_DASHES[:n]}) == n


def test_block_labels_reach_aa_on_their_faces() -> None:
    for item in (None, "star", "coin", "nothing"):
        face = look.block_face(item)
        assert contrast(face.colour, face.fill) >= TEXT_AA, item
        assert contrast(face.edge, look.BACKGROUND) >= GRAPHICS_AA, item


@pytest.mark.parametrize("colour", [*look.LIMIT_COLOURS.values(), look.TRACK_COLOUR])
def test_the_races_lines_reach_three_to_one_on_white(colour: str) -> None:
    assert contrast(colour, "#FFFFFF") >= GRAPHICS_AA


@pytest.mark.parametrize("deficiency", ["protanopia", "deuteranopia", "tritanopia", "typical"])
def test_the_races_limits_and_its_run_stay_apart_under_colour_vision_deficiencies(
    deficiency: str,
) -> None:
    for a, b in itertools.combinations([*look.LIMIT_COLOURS.values(), look.TOKENS_COLOUR], 2):
        assert delta_e(a, b, deficiency) >= APART, (a, b, deficiency)


def test_each_limit_also_has_its_own_line_style() -> None:
    assert set(look.LIMIT_DASHES) == set(look.LIMIT_COLOURS)
    assert len(set(look.LIMIT_DASHES.values())) == len(look.LIMIT_DASHES)
