"""What a room sees of the explorers on a projector, measured in the page (issue 28): the text's
computed sizes, the charts' words as rendered (an SVG drawn into an `<img>` scaled to its box: the
SVG's font size times the image's scale), anything cut off by its box, and whether the badge is
on screen, uncovered. Shared by the Voila and JupyterLab tests."""

from __future__ import annotations

from dataclasses import dataclass

_TEXT_SIZES = """(root) => {
    const shown = el => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && !el.closest('.wts-live');
    };
    const out = [];
    for (const el of root.querySelectorAll('*')) {
        const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
        if (own && shown(el)) {
            out.push([parseFloat(getComputedStyle(el).fontSize),
                      el.textContent.trim().slice(0, 40)]);
        }
    }
    return out;
}"""

_CLIPPED = """(root) => {
    // a scroll region a learner scrolls on purpose (the transcript) may be taller than its box;
    // the live region is visually hidden on purpose; a text field scrolls its own value
    const scrolls = el => el.matches('[role=region][tabindex]');
    const out = [];
    for (const el of [root, ...root.querySelectorAll('*')]) {
        if (el.closest('.wts-live') || el.matches('input, select, option')) continue;
        const s = getComputedStyle(el);
        const what = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}` +
            ` “${(el.textContent || '').trim().slice(0, 40)}”`;
        if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
            out.push(`${what}: content ${el.scrollWidth} px wide in a box of ${el.clientWidth}`);
        }
        if (!scrolls(el) && el.clientHeight > 0 && el.scrollHeight > el.clientHeight + 1) {
            out.push(`${what}: content ${el.scrollHeight} px tall in a box of ${el.clientHeight}`);
        }
        if (s.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth) {
            out.push(`${what}: cut off with an ellipsis`);
        }
    }
    return out;
}"""

_SVG_WORDS = """(root) => {
    const out = [];
    const stage = document.createElement('div');
    stage.style.cssText = 'position:absolute;left:-20000px;top:0;visibility:hidden';
    document.body.appendChild(stage);
    for (const img of root.querySelectorAll('img[src^="data:image/svg+xml;base64,"]')) {
        const doc = new DOMParser().parseFromString(
            new TextDecoder().decode(Uint8Array.from(atob(img.src.split(',')[1]),
                                                     c => c.charCodeAt(0))),
            'image/svg+xml');
        const svg = document.importNode(doc.documentElement, true);
        stage.replaceChildren(svg);
        const box = svg.getBoundingClientRect();
        const scale = img.getBoundingClientRect().width / box.width;
        const pane = img.closest('[class*=wts-plot], [class*=wts-map]');
        const view = pane && pane.className.includes('wts-map') ? 'map' : 'chart';
        for (const el of svg.querySelectorAll('text, tspan')) {
            const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
            if (!own) continue;
            const r = el.getBoundingClientRect();
            const text = el.closest('text');
            out.push({
                view,
                kind: (text.getAttribute('class') || '').split(' ')[0],
                text: el.textContent.trim().slice(0, 40),
                px: parseFloat(getComputedStyle(el).fontSize) * scale,
                inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 &&
                        r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5,
            });
        }
    }
    stage.remove();
    return out;
}"""

_IN_VIEW = """(el) => {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const top = document.elementFromPoint(x, y);
    return {top: r.top, bottom: r.bottom, height: innerHeight,
            uncovered: top !== null && el.contains(top)};
}"""


@dataclass(frozen=True)
class SvgWord:
    """One word or line of an SVG view, as the page draws it."""

    view: str
    """"chart" or "map"."""
    kind: str
    """Its `<text>`'s first class: "tick", "area", "map-title", ... ("" for none)."""
    text: str
    px: float
    """Its font size on the screen: the SVG's size times the image's scale."""
    inside: bool
    """Whether it lies inside the drawing (not cut off at an edge)."""


def text_sizes(element) -> list[tuple[float, str]]:
    """(computed font size in px, text) of every shown element with text of its own inside."""
    return [(px, text) for px, text in element.evaluate(_TEXT_SIZES)]


def clipped(element) -> list[str]:
    """Everything inside `element` (and itself) whose content is wider or taller than its box,
    or cut off with an ellipsis."""
    return list(element.evaluate(_CLIPPED))


def svg_words(element) -> list[SvgWord]:
    """Every word of every SVG view (`<img>` of an SVG) inside `element`, measured as drawn."""
    return [SvgWord(**word) for word in element.evaluate(_SVG_WORDS)]


def in_view(element) -> bool:
    """Whether `element` is wholly on the screen and nothing covers its middle."""
    seen = element.evaluate(_IN_VIEW)
    return seen["uncovered"] and seen["top"] >= 0 and seen["bottom"] <= seen["height"]
