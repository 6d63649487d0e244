"""The links an instructor hands out: nbgitpuller links for a JupyterHub, Binder links, the CLI
that prints them, and the README's Binder links (which must match what the code builds)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from conftest import NOTEBOOKS, ROOT

from whentostop.__main__ import main
from whentostop.lesson.classroom import (
    DEFAULT_REPO,
    EDITIONS,
    binder_link,
    colab_link,
    lite_link,
    nbgitpuller_link,
    notebook_file,
    repo_folder,
)
from whentostop.lesson.classroom import (
    NOTEBOOKS as SHORT_NAMES,
)

HUB = "https://hub.example.edu"


def query(link: str) -> dict[str, str]:
    """The decoded query of a link, one value per key (a repeated key fails the test)."""
    values = parse_qs(urlsplit(link).query, strict_parsing=True)
    assert all(len(v) == 1 for v in values.values()), values
    return {k: v[0] for k, v in values.items()}


@pytest.mark.parametrize(
    "short, file",
    [
        ("00", "00_start_here.ipynb"),
        ("1-1", "1-1_the_clock.ipynb"),
        ("1-2", "1-2_the_flag.ipynb"),
        ("1-3", "1-3_the_warp_pipe.ipynb"),
        ("1-4", "1-4_the_castle.ipynb"),
        ("explorer", "explorer.ipynb"),
    ],
)
def test_nbgitpuller_link_opens_each_notebook_in_jupyterlab(short: str, file: str) -> None:
    link = nbgitpuller_link(HUB, notebook=short)
    assert link.startswith(f"{HUB}/hub/user-redirect/git-pull?")
    assert query(link) == {
        "repo": DEFAULT_REPO,
        "branch": "main",
        "urlpath": f"lab/tree/when-to-stop/notebooks/{file}",
    }


def test_nbgitpuller_link_percent_encodes_every_query_value() -> None:
    link = nbgitpuller_link(
        HUB, repo="https://git.example.org/a b/lesson&co", branch="fix/α", notebook="1-3"
    )
    raw = urlsplit(link).query
    assert raw.startswith(
        "repo=https%3A%2F%2Fgit.example.org%2Fa%20b%2Flesson%26co&branch=fix%2F%CE%B1&"
    )
    assert query(link) == {
        "repo": "https://git.example.org/a b/lesson&co",
        "branch": "fix/α",
        "urlpath": "lab/tree/lesson&co/notebooks/1-3_the_warp_pipe.ipynb",
    }


def test_nbgitpuller_link_tolerates_a_pasted_hub_path_and_keeps_a_prefix() -> None:
    assert nbgitpuller_link(f"{HUB}/hub/").startswith(f"{HUB}/hub/user-redirect/git-pull?")
    prefixed = nbgitpuller_link("https://example.edu/jupyter/")
    assert prefixed.startswith("https://example.edu/jupyter/hub/user-redirect/git-pull?")


def test_pulled_folder_is_the_repository_urls_last_segment_as_nbgitpuller_names_it() -> None:
    assert repo_folder("https://github.com/whentostop/when-to-stop/") == "when-to-stop"
    assert repo_folder("https://gitlab.example.org/course/agents.git") == "agents.git"
    assert repo_folder("file:///srv/lessons/whentostop") == "whentostop"
    assert query(nbgitpuller_link(HUB, repo="file:///srv/x/lesson"))["urlpath"].startswith(
        "lab/tree/lesson/"
    )


def test_binder_link_for_github_uses_the_gh_provider_and_opens_jupyterlab() -> None:
    link = binder_link(notebook="1-2")
    assert link == (
        "https://mybinder.org/v2/gh/whentostop/when-to-stop/main"
        "?urlpath=lab%2Ftree%2Fnotebooks%2F1-2_the_flag.ipynb"
    )
    assert binder_link(repo="https://github.com/me/fork.git", branch="dev").startswith(
        "https://mybinder.org/v2/gh/me/fork/dev?"
    )


def test_binder_link_for_another_git_host_uses_the_git_provider() -> None:
    link = binder_link(repo="https://gitlab.example.org/course/agents", notebook="1-1")
    assert link.startswith(
        "https://mybinder.org/v2/git/https%3A%2F%2Fgitlab.example.org%2Fcourse%2Fagents/main?"
    )
    assert query(link) == {"urlpath": "lab/tree/notebooks/1-1_the_clock.ipynb"}


@pytest.mark.parametrize("bad", ["9-9", "1-5", "the_clock", "", "1-1_the_clock"])
def test_unknown_notebook_is_an_error_naming_the_choices(bad: str) -> None:
    with pytest.raises(ValueError, match="00, 1-1, 1-2, 1-3, 1-4, explorer"):
        nbgitpuller_link(HUB, notebook=bad)
    with pytest.raises(ValueError, match="Unknown notebook"):
        binder_link(notebook=bad)


def test_a_notebook_file_name_is_accepted_as_well_as_its_short_name() -> None:
    assert notebook_file("1-3_the_warp_pipe.ipynb") == notebook_file("1-3")


@pytest.mark.parametrize("hub", ["hub.example.edu", "ftp://hub.example.edu", "https://", "/hub"])
def test_hub_that_is_not_a_full_http_url_is_an_error(hub: str) -> None:
    with pytest.raises(ValueError, match="full http"):
        nbgitpuller_link(hub)


def test_every_short_name_names_a_notebook_that_exists() -> None:
    missing = [f for f in SHORT_NAMES.values() if not (NOTEBOOKS / f).exists()]
    assert not missing, f"classroom.NOTEBOOKS names notebooks that are not in notebooks/: {missing}"


def test_cli_link_prints_the_hub_binder_and_browser_links(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["link", "--hub", HUB, "--notebook", "1-1", "--branch", "main"]) == 0
    out = capsys.readouterr().out
    links = re.findall(r"^https?://\S+$", out, flags=re.MULTILINE)
    assert links == [
        nbgitpuller_link(HUB, notebook="1-1"),
        binder_link(notebook="1-1"),
        lite_link(notebook="1-1"),
        colab_link(notebook="1-1"),
    ]


def test_cli_link_without_a_hub_prints_the_binder_and_browser_links(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["link", "--repo", "https://github.com/me/fork"]) == 0
    out = capsys.readouterr().out
    assert re.findall(r"^https?://\S+$", out, flags=re.MULTILINE) == [
        binder_link(repo="https://github.com/me/fork"),
        lite_link(repo="https://github.com/me/fork"),
        colab_link(repo="https://github.com/me/fork"),
    ]


@pytest.mark.parametrize("short", sorted(EDITIONS["pt"]))
def test_cli_link_lang_pt_links_the_portuguese_notebook_that_exists(
    short: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "--lang", "pt", "--hub", HUB, "--notebook", short]) == 0
    out = capsys.readouterr().out
    path = f"notebooks/pt/{EDITIONS['pt'][short]}"
    assert (NOTEBOOKS.parent / path).exists(), path
    links = re.findall(r"^https?://\S+$", out, flags=re.MULTILINE)
    assert links == [
        nbgitpuller_link(HUB, notebook=short, lang="pt"),
        binder_link(notebook=short, lang="pt"),
        lite_link(notebook=short, lang="pt"),
        colab_link(notebook=short, lang="pt"),
    ]
    assert all(
        quote(path.removeprefix("notebooks/"), safe="") in link
        or quote(path, safe="") in link
        or link.endswith(f"/{path}")  # Colab's, a plain path
        for link in links
    )
    assert "Link do Binder" in out  # the words are Portuguese too


def test_cli_link_with_an_unknown_notebook_exits_2_with_a_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["link", "--hub", HUB, "--notebook", "2-1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Unknown notebook '2-1'" in captured.err


def english(readme: str) -> str:
    """The README without its Portuguese section (tested on its own)."""
    return readme[: readme.index("## Em português")] + readme[readme.index("## Two commands") :]


def test_readme_binder_badge_and_level_links_are_the_ones_the_code_builds() -> None:
    readme = english((ROOT / "README.md").read_text())
    found = re.findall(r"\]\((https://mybinder\.org/v2/[^)\s]+)\)", readme)
    assert found, "the README has no Binder link"
    badge = re.search(r"\[!\[Launch on Binder\]\([^)]+\)\]\(([^)]+)\)", readme)
    assert badge and badge.group(1) == binder_link(notebook="00")
    expected = {binder_link(notebook=n) for n in SHORT_NAMES}
    assert set(found) <= expected, set(found) - expected
    for level in ("1-1", "1-2", "1-3", "1-4"):
        assert binder_link(notebook=level) in found


def test_readme_portuguese_section_links_the_portuguese_notebooks_the_code_builds() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Em português") : readme.index("## Two commands")]
    badge = re.search(r"\[!\[Abrir no Binder\]\([^)]+\)\]\(([^)]+)\)", section)
    assert badge and badge.group(1) == binder_link(notebook="00", lang="pt")
    binder = set(re.findall(r"\]\((https://mybinder\.org/v2/[^)\s]+)\)", section))
    browser = set(re.findall(r"\]\((https://[^)\s]*\.github\.io/[^)\s]*)\)", section))
    assert binder == {binder_link(notebook=n, lang="pt") for n in EDITIONS["pt"]}
    assert browser == {lite_link(notebook=n, lang="pt") for n in EDITIONS["pt"]}
    for target in re.findall(r"\]\((docs/[^)]+)\)", section):
        assert (ROOT / target).exists(), target
    for name in EDITIONS["pt"].values():
        assert (NOTEBOOKS / "pt" / name).exists(), name


def test_no_binder_folder_hides_the_root_pyproject() -> None:
    assert not (ROOT / "binder").exists()
    assert not (ROOT / ".binder").exists()


# --- the instructor's guide: its plans are built from the notebooks' own minutes ----------------

GUIDE = ROOT / "docs" / "workshop.md"
PLANS = {"### 100 minutes": 100, "### 3 hours": 180}
LEVELS = ("00", "1-1", "1-2", "1-3", "1-4")
"""Every lesson notebook: each plan gives each of them its teaching minutes."""


def notebook_minutes(short: str) -> tuple[int, int]:
    """(teaching, exercises) minutes as the notebook's first cell states them."""
    import nbformat

    first = nbformat.read(NOTEBOOKS / notebook_file(short), as_version=4).cells[0].source
    found = re.search(r"Teaching:\**\s*(\d+) min.*?Exercises:\**\s*(\d+) min", first, re.DOTALL)
    assert found, f"{short}: no 'Teaching: N min' / 'Exercises: N min' in the first cell"
    return int(found.group(1)), int(found.group(2))


def plan_rows(heading: str) -> list[list[str]]:
    """The cells of each row of the first table after `heading` in the guide."""
    text = GUIDE.read_text().split(heading, 1)[1]
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            rows.append([c.strip().strip("*") for c in line.strip("|").split("|")])
        elif rows:
            break
    return [r for r in rows[1:] if not set("".join(r)) <= set("-: ")]


def as_int(cell: str) -> int:
    return int(cell) if cell else 0


@pytest.mark.parametrize("heading, length", PLANS.items())
def test_each_plan_adds_up_to_its_length_and_its_clock_times_follow(
    heading: str, length: int
) -> None:
    rows = plan_rows(heading)
    parts, total = rows[:-1], rows[-1]
    assert total[1] == "total"
    assert sum(as_int(r[4]) for r in parts) == as_int(total[4]) == length
    assert sum(as_int(r[2]) for r in parts) == as_int(total[2])
    assert sum(as_int(r[3]) for r in parts) == as_int(total[3])
    elapsed = 0
    for start, *_, minutes in parts:
        assert start == f"{elapsed // 60}:{elapsed % 60:02d}", (start, elapsed)
        elapsed += as_int(minutes)


@pytest.mark.parametrize("heading", PLANS)
def test_each_plan_gives_every_level_the_notebooks_teaching_minutes(heading: str) -> None:
    rows = {r[1].split(" ")[0]: r for r in plan_rows(heading)}
    for short in LEVELS:
        teaching, exercises = notebook_minutes(short)
        row = rows[short]
        assert as_int(row[2]) == teaching, (heading, short)
        assert as_int(row[3]) <= exercises, (heading, short)
        assert as_int(row[2]) + as_int(row[3]) <= as_int(row[4])


def test_the_guides_minutes_table_is_the_notebooks_and_exercises_take_five_minutes_each() -> None:
    from whentostop.lesson.checks import exercises

    table = {r[0].split(" ")[0]: r for r in plan_rows("## Two plans")}
    for short in LEVELS:
        teaching, exercise_min = notebook_minutes(short)
        row = table[short]
        assert (as_int(row[1]), as_int(row[2].split(" ")[0])) == (teaching, exercise_min), short
        assert exercise_min == 5 * len(exercises(short)), short
    assert "3 hours" in GUIDE.read_text() and "100 minutes" in GUIDE.read_text()


def test_every_exercise_the_guide_names_exists() -> None:
    from whentostop.lesson.checks import by_tag

    named = set(re.findall(r"\b(00|1-[1234])\.([a-z])\b", GUIDE.read_text()))
    assert len(named) >= 9
    for notebook, letter in named:
        by_tag(f"exercise-{notebook}-{letter}")


def test_the_readme_links_the_guide() -> None:
    assert "(docs/workshop.md)" in (ROOT / "README.md").read_text()


# --- the lesson in the browser: the JupyterLite site on GitHub Pages -----------------------------


def test_lite_link_opens_the_notebook_on_the_repositorys_github_pages_site() -> None:
    from whentostop.lesson.classroom import lite_link

    assert lite_link() == (
        "https://whentostop.github.io/when-to-stop/lab/index.html?path=00_start_here.ipynb"
    )
    assert lite_link(repo="https://github.com/Me/fork.git", notebook="1-2") == (
        "https://me.github.io/fork/lab/index.html?path=1-2_the_flag.ipynb"
    )
    assert lite_link(repo="https://github.com/me/me.github.io").startswith(
        "https://me.github.io/lab/index.html?"
    )


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_colab_link_opens_each_editions_notebook_from_github(lang: str) -> None:
    for short in EDITIONS[lang]:
        folder = "notebooks" if lang == "en" else "notebooks/pt"
        assert colab_link(notebook=short, lang=lang) == (
            "https://colab.research.google.com/github/whentostop/when-to-stop/blob/main/"
            f"{folder}/{EDITIONS[lang][short]}"
        )
        assert (NOTEBOOKS.parent / folder / EDITIONS[lang][short]).exists()
    assert colab_link(repo="https://github.com/me/fork.git", branch="dev").startswith(
        "https://colab.research.google.com/github/me/fork/blob/dev/notebooks/"
    )


def test_colab_link_for_a_repository_not_on_github_is_an_error() -> None:
    with pytest.raises(ValueError, match="Colab opens notebooks from GitHub"):
        colab_link(repo="https://gitlab.example.org/course/agents")


def test_lite_link_for_a_repository_not_on_github_is_an_error() -> None:
    from whentostop.lesson.classroom import lite_link

    with pytest.raises(ValueError, match="GitHub Pages"):
        lite_link(repo="https://gitlab.example.org/course/agents")


def test_readme_browser_links_are_the_ones_the_code_builds() -> None:
    readme = english((ROOT / "README.md").read_text())
    found = re.findall(r"\]\((https://[^)\s]*\.github\.io/[^)\s]*lab/index\.html[^)\s]*)\)", readme)
    first = re.search(r"\[Try it in your browser\]\(([^)]+)\)", readme)
    assert first and first.group(1) == lite_link(notebook="00")
    assert set(found) <= {lite_link(notebook=n) for n in SHORT_NAMES}, found
    for level in ("1-1", "1-2", "1-3", "1-4", "explorer"):  # every level, as the pt section
        assert lite_link(notebook=level) in found, level


def test_the_pages_workflow_publishes_what_make_lite_builds() -> None:
    workflow = (ROOT / ".github" / "workflows" / "pages.yml").read_text()
    assert "run: make lite" in workflow
    assert "path: build/lite" in workflow
    assert "LITE_OUT ?= build/lite" in (ROOT / "Makefile").read_text()
