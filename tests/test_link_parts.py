"""Links built with `urllib.parse` from validated parts (issue 27, class 6): what cannot be a hub's
address is refused with a message that says why, and whatever a repository, a branch or a
notebook is called goes out percent-encoded, so a printed link is one line that opens what it
says — never split by a newline, ended early by a space or a quote, or swallowed by a query."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from whentostop.__main__ import main
from whentostop.lesson.classroom import (
    DEFAULT_REPO,
    binder_link,
    describe_links,
    hub_address,
    lite_link,
    nbgitpuller_link,
)

HUB = "https://hub.example.edu"
SAFE_LINK = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&()*+,;=%]+")
"""What a link may hold as printed: RFC 3986's characters, without quotes or spaces."""

NOT_A_HUB = {
    "a newline": f"{HUB}\n/evil",
    "a newline in the host": "https://hub.exam\nple.edu",
    "a carriage return": f"{HUB}\r",
    "a tab": "https://hub.\texample.edu",
    "an escape": f"{HUB}/\x1b[2J",
    "a C1 control": f"{HUB}/\x85",
    "a bidi override": f"{HUB}/\u202eude.elpmaxe",
    "a space": "https://hub example.edu",
    "a trailing space": f"{HUB}/ ",
    "a double quote": f'{HUB}/"onmouseover=x',
    "a single quote": f"{HUB}/'",
    "an angle bracket": f"{HUB}/<script>",
    "a backtick": f"{HUB}/`",
    "a query": f"{HUB}/?next=/home",
    "an empty query": f"{HUB}?",
    "a fragment": f"{HUB}/#top",
    "an empty fragment": f"{HUB}#",
    "a query after a prefix": "https://example.edu/jupyter?x=1",
    "another scheme": "ftp://hub.example.edu",
    "a script scheme": "javascript:alert(1)",
    "a data scheme": "data:text/html,<b>x</b>",
    "no scheme": "hub.example.edu",
    "no host": "https://",
    "no host but a path": "https:///hub",
    "a port out of range": "https://hub.example.edu:70000",
    "a port that is not a number": "https://hub.example.edu:http",
    "credentials": "https://teacher:secret@hub.example.edu",
    "a user name": "https://teacher@hub.example.edu",
    "nothing": "",
}


@pytest.mark.parametrize("hub", NOT_A_HUB.values(), ids=NOT_A_HUB.keys())
def test_what_cannot_be_a_hub_is_refused_with_a_message_naming_it(hub: str) -> None:
    with pytest.raises(ValueError) as caught:
        nbgitpuller_link(hub)
    message = str(caught.value)
    assert repr(hub) in message or hub == ""
    assert "\n" not in message


@pytest.mark.parametrize("hub", NOT_A_HUB.values(), ids=NOT_A_HUB.keys())
def test_the_cli_refuses_what_cannot_be_a_hub_in_one_line_exit_2(
    hub: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if not hub:
        pytest.skip("no --hub: the Binder links alone")
    assert main(["link", "--hub", hub]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ") and captured.err.count("\n") == 1


HUBS = {
    HUB: (HUB, ""),
    f"{HUB}/": (HUB, ""),
    f"{HUB}/hub": (HUB, ""),
    f"{HUB}/hub/": (HUB, ""),
    "https://example.edu/jupyter/": ("https://example.edu", "/jupyter"),
    "HTTPS://Hub.Example.EDU:8443/x": ("https://hub.example.edu:8443", "/x"),
    "http://127.0.0.1:8000": ("http://127.0.0.1:8000", ""),
    "http://[::1]:8000/": ("http://[::1]:8000", ""),
    "https://hüb.example.edu/café": ("https://xn--hb-xka.example.edu", "/caf%C3%A9"),
}


@pytest.mark.parametrize("hub, expected", HUBS.items(), ids=HUBS.keys())
def test_a_hub_address_keeps_its_host_port_and_path_prefix(
    hub: str, expected: tuple[str, str]
) -> None:
    link = nbgitpuller_link(hub)
    base, prefix = expected
    assert link.startswith(f"{base}{prefix}/hub/user-redirect/git-pull?repo=")
    assert SAFE_LINK.fullmatch(link), link


ODD_PARTS = [
    ("https://git.example.org/a b/lesson", "main"),
    ('https://git.example.org/"quoted"/x', "fix/α"),
    ("https://git.example.org/x?y=1#frag", "a&b=c"),
    ("https://git.example.org/100%/x", "%2F"),
    ("https://github.com/some one/les son", "dev branch"),
    ("https://github.com/o'neil/lesson", "it's"),
    ("https://github.com/a/<b>", "<b>"),
]


@pytest.mark.parametrize("repo, branch", ODD_PARTS)
def test_every_part_of_a_hub_link_is_encoded_and_decodes_back(repo: str, branch: str) -> None:
    link = nbgitpuller_link(f"{HUB}/jupyter", repo=repo, branch=branch, notebook="1-3")
    assert SAFE_LINK.fullmatch(link), link
    parts = urlsplit(link)
    assert (parts.netloc, parts.path, parts.fragment) == (
        "hub.example.edu",
        "/jupyter/hub/user-redirect/git-pull",
        "",
    )
    query = {k: v[0] for k, v in parse_qs(parts.query, strict_parsing=True).items()}
    assert query["repo"] == repo and query["branch"] == branch
    assert query["urlpath"].endswith("/notebooks/1-3_the_warp_pipe.ipynb")


@pytest.mark.parametrize("repo, branch", ODD_PARTS)
def test_every_part_of_a_binder_link_is_encoded_and_decodes_back(repo: str, branch: str) -> None:
    link = binder_link(repo=repo, branch=branch, notebook="1-1")
    assert SAFE_LINK.fullmatch(link), link
    parts = urlsplit(link)
    assert parts.netloc == "mybinder.org" and parts.fragment == ""
    provider, *spec = parts.path.removeprefix("/v2/").split("/")
    decoded = [unquote(s) for s in spec]
    if provider == "gh":
        assert decoded[:2] == urlsplit(repo).path.strip("/").split("/")
    else:
        assert provider == "git" and decoded[0] == repo
    assert decoded[-1] == branch
    assert parse_qs(parts.query) == {"urlpath": ["lab/tree/notebooks/1-1_the_clock.ipynb"]}


def test_a_lite_link_encodes_the_repository_name_and_refuses_an_owner_that_is_no_account() -> None:
    link = lite_link(repo="https://github.com/me/my lesson")
    assert link == "https://me.github.io/my%20lesson/lab/index.html?path=00_start_here.ipynb"
    with pytest.raises(ValueError, match="cannot be a GitHub account"):
        lite_link(repo="https://github.com/evil.example/x")


@pytest.mark.parametrize(
    "part",
    [
        {"repo": "https://github.com/a/b\nhttps://evil.example"},
        {"repo": "https://github.com/a/b\x1b]52;c;x\x07"},
        {"branch": "main\nhttps://evil.example"},
        {"branch": "main\r"},
    ],
)
def test_a_repository_or_branch_with_a_control_character_is_refused(
    part: dict[str, str],
) -> None:
    for build in (
        lambda: nbgitpuller_link(HUB, **part),
        lambda: binder_link(**part),
        lambda: describe_links(hub=HUB, **part),
    ):
        with pytest.raises(ValueError, match="control character"):
            build()


def test_a_binder_address_is_checked_like_a_hub() -> None:
    with pytest.raises(ValueError, match="query"):
        binder_link(binder="https://mybinder.org/?x=1")
    owner_and_name = urlsplit(DEFAULT_REPO).path.strip("/")
    assert binder_link(binder="https://binder.example.edu/").startswith(
        f"https://binder.example.edu/v2/gh/{owner_and_name}/main?"
    )


def test_hub_address_gives_the_parts_a_link_is_built_on() -> None:
    assert hub_address("https://Example.edu:8443/jupyter/") == (
        "https",
        "example.edu:8443",
        "/jupyter/",
    )
