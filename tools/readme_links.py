"""The README's links, written from the one repository address (`classroom.DEFAULT_REPO`).

    python tools/readme_links.py          # rewrite the README's marked regions (make readme-links)
    python tools/readme_links.py check    # exit 1 and name the regions that are stale

A region is the text between `<!-- links: NAME -->` and `<!-- /links -->`; everything outside the
regions is the README's own prose. A fork changes `DEFAULT_REPO` (and `DEFAULT_BRANCH`), runs this,
and every Binder, Colab and browser link follows; `tests/test_readme_links.py` fails while they
are stale.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from whentostop.lesson import classroom

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
REGION = re.compile(r"(<!-- links: ([\w-]+) -->\n)(.*?)(<!-- /links -->)", re.DOTALL)

BINDER_BADGE = "https://mybinder.org/badge_logo.svg"
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"

LEVELS = {
    "en": {
        "1-1": "1-1 the clock",
        "1-2": "1-2 the flag",
        "1-3": "1-3 the warp pipe",
        "1-4": "1-4 the castle",
        "explorer": "the explorer dashboard",
    },
    "pt": {
        "1-1": "1-1 o relógio",
        "1-2": "1-2 a bandeira",
        "1-3": "1-3 o cano de atalho",
        "1-4": "1-4 o castelo",
        "explorer": "o painel do projetor",
    },
}
"""Each level's name in a link, by edition (00 is the badges' own link)."""

# Each link is built from `classroom.DEFAULT_REPO` as it is when called (the functions' own
# defaults were fixed when the module was imported).


def binder_link(notebook: str, lang: str = "en") -> str:
    return classroom.binder_link(repo=classroom.DEFAULT_REPO, notebook=notebook, lang=lang)


def colab_link(notebook: str, lang: str = "en") -> str:
    return classroom.colab_link(repo=classroom.DEFAULT_REPO, notebook=notebook, lang=lang)


def lite_link(notebook: str, lang: str = "en") -> str:
    return classroom.lite_link(repo=classroom.DEFAULT_REPO, notebook=notebook, lang=lang)


def levels(link: Callable[..., str], lang: str) -> str:
    """One line per level, `·` between them, each a link built by `link`."""
    items = [
        f"[{label}]({link(notebook=short, lang=lang)})" for short, label in LEVELS[lang].items()
    ]
    return " ·\n".join(items) + ".\n"


def badges_en() -> str:
    return (
        f"[![Launch on Binder]({BINDER_BADGE})]({binder_link(notebook='00')})\n"
        f"[![Open in Colab]({COLAB_BADGE})]({colab_link(notebook='00')})\n"
        f"· [Try it in your browser]({lite_link(notebook='00')}) (nothing to install)\n"
        "· [Em português](#em-português)\n"
    )


def badges_pt() -> str:
    return (
        f"[![Abrir no Binder]({BINDER_BADGE})]({binder_link(notebook='00', lang='pt')})\n"
        f"[![Abrir no Colab]({COLAB_BADGE})]({colab_link(notebook='00', lang='pt')})\n"
        f"· [Experimente no navegador]({lite_link(notebook='00', lang='pt')}) (sem instalar nada)\n"
    )


REGIONS: dict[str, Callable[[], str]] = {
    "badges-en": badges_en,
    "badges-pt": badges_pt,
    "binder-en": lambda: levels(binder_link, "en"),
    "binder-pt": lambda: levels(binder_link, "pt"),
    "lite-en": lambda: levels(lite_link, "en"),
    "lite-pt": lambda: levels(lite_link, "pt"),
    "colab-en": lambda: levels(colab_link, "en"),
    "colab-pt": lambda: levels(colab_link, "pt"),
}
"""Each region's name -> its text, built from the repository's address."""


def rewritten(text: str) -> str:
    """The README with every marked region as the code builds it; an unknown region name is an
    error (a typo would otherwise leave a region that is never rewritten)."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in REGIONS:
            raise ValueError(
                f"README.md: unknown links region {name!r}: one of {', '.join(REGIONS)}"
            )
        return match.group(1) + REGIONS[name]() + match.group(4)

    return REGION.sub(fill, text)


def stale(text: str) -> list[str]:
    """The names of the regions whose text is not what the code builds, and of those missing."""
    found = {m.group(2): m.group(3) for m in REGION.finditer(text)}
    missing = [f"{name} (missing)" for name in REGIONS if name not in found]
    return missing + [name for name, body in found.items() if body != REGIONS[name]()]


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    if argv[1:] == ["check"]:
        names = stale(text)
        if names:
            print(f"README.md: stale links in {', '.join(names)}: run `make readme-links`")
            return 1
        print("README.md: every link is the one the code builds")
        return 0
    if argv[1:]:
        print(__doc__)
        return 2
    README.write_text(rewritten(text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
