"""The README's links are the ones the code builds from the one repository address
(`classroom.DEFAULT_REPO`): `make readme-links` (tools/readme_links.py) rewrites them, and this
fails while they are stale. Moving the repository is one edit and one command."""

from __future__ import annotations

import re
import sys

import pytest
from conftest import ROOT

from whentostop.lesson import classroom

sys.path.insert(0, str(ROOT / "tools"))
import readme_links  # tools/ is not a package: its folder is on the path

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_readme_link_region_is_what_make_readme_links_writes() -> None:
    assert readme_links.stale(README) == [], "run `make readme-links`"
    assert readme_links.rewritten(README) == README


def test_a_fork_changes_the_one_constant_and_every_region_follows(monkeypatch) -> None:
    monkeypatch.setattr(classroom, "DEFAULT_REPO", "https://github.com/me/fork")
    assert sorted(readme_links.stale(README)) == sorted(readme_links.REGIONS)
    moved = readme_links.rewritten(README)
    links = re.findall(r"\]\((https://[^)\s]+)\)", moved)
    assert not [link for link in links if "when-to-stop" in link and "pypi" not in link]
    assert "https://mybinder.org/v2/gh/me/fork/main?" in moved
    assert "https://colab.research.google.com/github/me/fork/blob/main/notebooks/" in moved
    assert "https://me.github.io/fork/lab/index.html?path=" in moved
    assert readme_links.stale(moved) == []


def test_a_region_with_an_unknown_name_is_an_error_not_left_alone() -> None:
    with pytest.raises(ValueError, match="unknown links region 'colab-fr'"):
        readme_links.rewritten("<!-- links: colab-fr -->\nx\n<!-- /links -->")


def test_a_missing_region_is_reported() -> None:
    assert "colab-en (missing)" in readme_links.stale(README.replace("links: colab-en", "x"))


def test_the_readme_opens_with_binder_colab_and_browser_badges_in_both_languages() -> None:
    assert f"[![Open in Colab]({readme_links.COLAB_BADGE})]({classroom.colab_link()})" in README
    pt = classroom.colab_link(notebook="00", lang="pt")
    assert f"[![Abrir no Colab]({readme_links.COLAB_BADGE})]({pt})" in README
    for lang in ("en", "pt"):
        for short in classroom.EDITIONS[lang]:
            if short != "00":
                assert f"({classroom.colab_link(notebook=short, lang=lang)})" in README
