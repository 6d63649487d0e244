"""Links that put the lesson in front of a class: a Binder link, a JupyterHub nbgitpuller link,
a link to the lesson in the browser (the JupyterLite site on GitHub Pages) and an "Open in Colab"
link.

    nbgitpuller_link("https://hub.example.edu", notebook="1-1")
    binder_link(notebook="00")
    lite_link(notebook="1-2")
    colab_link(notebook="1-3", lang="pt")

An nbgitpuller link makes each learner's hub server clone (or update) the repository into their
home folder, then opens the notebook in JupyterLab; a Binder link builds the repository into a
throw-away server (repo2docker runs `pip install .` on the root pyproject.toml). Both are plain
URLs an instructor can paste into a chat or a slide.
"""

from __future__ import annotations

import contextlib
import unicodedata
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from ..i18n import _, normalize, using
from .content import SHARED, notebook_data, said

DEFAULT_REPO = "https://github.com/whentostop/when-to-stop"
"""The repository's public URL: the one place it is written. The README's links are built from it
(`make readme-links`), so a fork changes this line, runs that, and every link follows."""
DEFAULT_BRANCH = "main"
BINDER_URL = "https://mybinder.org"

EDITIONS: dict[str, dict[str, str]] = notebook_data(SHARED)["editions"]
"""Each edition's notebooks by short name (`data/lesson/shared.toml`'s `[editions]`): English in
`notebooks/`, another language in `notebooks/<lang>/` (built from the English ones by
tools/lesson_i18n.py)."""
NOTEBOOKS = EDITIONS["en"]
"""Short names a class uses for the notebooks in `notebooks/`."""


def notebook_file(notebook: str, lang: str = "en") -> str:
    """The file name of a notebook in an edition, given its short name ("1-1") or the file name
    of either edition, with or without `.ipynb` ("painel", "1-1_o_relogio")."""
    files = EDITIONS[normalize(lang)]
    if notebook in files:
        return files[notebook]
    for edition in EDITIONS.values():  # a file name of either edition, with or without .ipynb
        for short, name in edition.items():
            if notebook in (name, name.removesuffix(".ipynb")):
                return files[short]
    what = _("Unknown notebook {notebook!r}: use one of {names}")
    raise ValueError(what.format(notebook=notebook, names=", ".join(files)))


def notebook_path(notebook: str, lang: str = "en") -> str:
    """The notebook's path inside the repository, as JupyterLab's tree URLs want it."""
    code = normalize(lang)
    folder = "notebooks" if code == "en" else f"notebooks/{code}"
    return f"{folder}/{notebook_file(notebook, code)}"


def repo_folder(repo: str) -> str:
    """The folder nbgitpuller clones `repo` into: the URL's last segment, exactly as it does."""
    name = repo.rstrip("/").split("/")[-1]
    if not name:
        raise ValueError(_("Cannot tell the repository's name from {repo!r}").format(repo=repo))
    return name


def nbgitpuller_link(
    hub: str,
    *,
    repo: str = DEFAULT_REPO,
    branch: str = DEFAULT_BRANCH,
    notebook: str = "00",
    lang: str = "en",
) -> str:
    """The link a learner clicks on a JupyterHub with nbgitpuller: log in, pull, open the notebook.

    `hub` is the hub's address as learners type it (`https://hub.example.edu`, or with a path
    prefix); a trailing `/hub` is tolerated. What cannot be a hub's address is refused
    (`hub_address`); every query value is percent-encoded.
    """
    scheme, host, prefix = hub_address(hub)
    prefix = prefix.rstrip("/").removesuffix("/hub")
    folder = repo_folder(_plain(repo, _("repository")))
    urlpath = f"lab/tree/{folder}/{notebook_path(notebook, lang)}"
    fields = {"repo": repo, "branch": _plain(branch, _("branch")), "urlpath": urlpath}
    query = urlencode(fields, safe="", quote_via=quote)
    return urlunsplit((scheme, host, f"{prefix}/hub/user-redirect/git-pull", query, ""))


def binder_link(
    *,
    repo: str = DEFAULT_REPO,
    branch: str = DEFAULT_BRANCH,
    notebook: str = "00",
    binder: str = BINDER_URL,
    lang: str = "en",
) -> str:
    """The mybinder.org link that builds `repo` at `branch` and opens the notebook in JupyterLab.

    GitHub repositories use Binder's `gh` provider; any other git URL its generic `git` one.
    """
    repo_url = _web_url(repo, _("repository for Binder"))
    branch = _plain(branch, _("branch"))
    parts = urlsplit(repo_url)
    segments = [s for s in parts.path.split("/") if s]
    if parts.hostname in ("github.com", "www.github.com") and len(segments) == 2:
        owner, name = segments[0], segments[1].removesuffix(".git")
        spec = f"gh/{_encode(owner)}/{_encode(name)}/{_encode(branch)}"
    else:
        spec = f"git/{_encode(repo_url)}/{_encode(branch)}"
    scheme, host, prefix = hub_address(binder, _("Binder"))
    query = "urlpath=" + _encode(f"lab/tree/{notebook_path(notebook, lang)}")
    return urlunsplit((scheme, host, f"{prefix.rstrip('/')}/v2/{spec}", query, ""))


def lite_starting_notice(lang: str, *, first_s: float, again_s: float) -> str:
    """The first cell of every notebook in the browser edition (`lite/build.py` puts it there:
    the page shows it while the kernel starts, which JupyterLite itself only shows as a status),
    in `lang`, with the kernel's start measured on a first and a later visit (bench/RESULTS.md,
    section 8)."""
    with using(lang):
        starting = _(said("shared", "lite_starting")).format(first=first_s, again=again_s)
        return starting + " " + _(said("shared", "lite_when_idle"))


def lite_link(*, repo: str = DEFAULT_REPO, notebook: str = "00", lang: str = "en") -> str:
    """The link that opens the notebook in the browser, on the JupyterLite site `make lite`
    builds and the GitHub Pages workflow publishes (nothing to install, no server).

    GitHub Pages serves repository OWNER/NAME at https://OWNER.github.io/NAME/ (a repository
    named OWNER.github.io at the host's root); the site's notebooks are at its top level.
    """
    owner, name = _github(repo, _("The JupyterLite site is published with GitHub Pages"))
    host = f"{owner.lower()}.github.io"
    # the repository OWNER.github.io: the site at the host's root
    path = "/" if name.lower() == host else f"/{_encode(name)}/"
    query = "path=" + _encode(notebook_path(notebook, lang).removeprefix("notebooks/"))
    return urlunsplit(("https", host, f"{path}lab/index.html", query, ""))


COLAB_URL = "https://colab.research.google.com"


def colab_link(
    *,
    repo: str = DEFAULT_REPO,
    branch: str = DEFAULT_BRANCH,
    notebook: str = "00",
    lang: str = "en",
) -> str:
    """The link that opens the notebook from GitHub in Google Colab (its first cell installs the
    package there). Colab opens notebooks from GitHub only: https://github.com/OWNER/NAME."""
    owner, name = _github(repo, _("Colab opens notebooks from GitHub"))
    path = quote(notebook_path(notebook, lang))
    return f"{COLAB_URL}/github/{_encode(owner)}/{_encode(name)}/blob/{_encode(branch)}/{path}"


def describe_links(
    *,
    hub: str | None,
    repo: str = DEFAULT_REPO,
    branch: str = DEFAULT_BRANCH,
    notebook: str = "00",
    lang: str = "en",
) -> str:
    """What `python -m whentostop link` prints: each link on its own line under a label, for
    the notebook of the edition `lang`, in the language in effect."""
    where = {"repo": repo, "notebook": notebook, "lang": lang}
    lines = []
    if hub:
        label = _(said("shared", "hub_link_label")).format(path=notebook_path(notebook, lang))
        lines += [label, nbgitpuller_link(hub, branch=branch, **where), ""]
    if urlsplit(repo).scheme in ("http", "https"):
        lines += [
            _("Binder link: no hub needed; a public repository builds on mybinder.org:"),
            binder_link(branch=branch, **where),
        ]
        # GitHub Pages and Colab know GitHub only: no such links for another host
        with contextlib.suppress(ValueError):
            lines += [
                "",
                _("In the browser, nothing to install (the JupyterLite site):"),
                lite_link(**where),
                "",
                _("Google Colab (its first cell installs the package):"),
                colab_link(branch=branch, **where),
            ]
    else:
        what = _("(No Binder link: Binder needs a public http(s) repository, not {repo!r}.)")
        lines.append(what.format(repo=repo))
    return "\n".join(lines).rstrip()


def hub_address(url: str, what: str | None = None) -> tuple[str, str, str]:
    """The parts of a server's address a link is built on — (scheme, host[:port], path prefix)
    — from what an instructor typed. Refused, each with a message that says why: anything
    `urlsplit` would silently drop or a link cannot carry (a space, a newline or any control
    character, a quote or an angle bracket), a scheme other than http or https, no host, a port
    that is not one, credentials (`user:password@`), and a query (`?…`) or a fragment (`#…`),
    which would swallow the path the link adds."""
    what = what or _("hub")
    url = _web_url(url, what)

    def refused(name: str) -> ValueError:
        """The error for this address: what `data/lesson/shared.toml` says under `name` (a
        sentence about the {what}'s address {url!r})."""
        return ValueError(_(said("shared", name)).format(what=what, url=url))

    if any(c.isspace() or c in _NOT_IN_AN_ADDRESS for c in url):
        raise refused("address_not_plain")
    parts = urlsplit(url)
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise refused("address_with_a_query")
    if "@" in parts.netloc:
        raise refused("address_with_credentials")
    port: int | None = -1  # a port that is not one
    with contextlib.suppress(ValueError):
        port = parts.port
    if port == -1 or not parts.hostname:
        raise refused("address_without_a_host")
    try:
        host = parts.hostname.encode("idna").decode("ascii")
    except UnicodeError:
        raise refused("address_with_a_bad_host") from None
    if ":" in host:  # an IPv6 address, written in brackets
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    return parts.scheme.lower(), netloc, quote(parts.path, safe="/%:@!$&()*+,;=~")


_NOT_IN_AN_ADDRESS = "\"'<>`{}|^"
"""Characters no address carries as they are (RFC 3986 leaves them out; `urlsplit` does not
mind them): in a printed link they end it, or quote it, early."""


def page_address(url: str) -> str:
    """A public page's address as a Markdown link carries it whole (a facts table's source):
    https, a host with a dot in it, a port if any that is one, no credentials, nothing that ends
    a link early or that `urlsplit` drops (a space, a quote, a bracket, a backslash, a control
    character), `(` and `)` percent-encoded; else a ValueError that says why."""
    parts = urlsplit(_web_url(url, _("source")))
    host = ""  # a port that is none (ValueError, or 0) leaves no host
    with contextlib.suppress(ValueError):
        host = (parts.hostname or "") if parts.port != 0 else ""
    unsafe = any(c.isspace() or c in _NOT_IN_AN_ADDRESS + "\\" for c in url)
    if parts.scheme != "https" or "." not in host or "@" in parts.netloc or unsafe:
        raise ValueError(_(said("shared", "source_not_public")).format(url=url))
    return url.replace("(", "%28").replace(")", "%29")


def _github(repo: str, why: str) -> tuple[str, str]:
    """(owner, name) of a https://github.com/OWNER/NAME repository whose owner can be a GitHub
    account, else an error that says `why` GitHub is needed."""
    parts = urlsplit(_web_url(repo, _("repository")))
    segments = [s for s in parts.path.split("/") if s]
    if parts.hostname not in ("github.com", "www.github.com") or len(segments) != 2:
        what = _("{why}: the repository must be https://github.com/OWNER/NAME, not {repo!r}")
        raise ValueError(what.format(why=why, repo=repo))
    owner = segments[0]
    if not owner.isascii() or not owner.replace("-", "").isalnum():
        raise ValueError(_(said("shared", "not_a_github_account")).format(owner=owner))
    return owner, segments[1].removesuffix(".git")


def _web_url(url: str, what: str) -> str:
    """`url` if it is an absolute http(s) address with no control character in it (`urlsplit`
    would drop some), else an error that shows the expected form."""
    url = _plain(url, what)
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        form = _("The {what} must be a full http(s) URL such as https://example.org, not {url!r}")
        raise ValueError(form.format(what=what, url=url))
    return url


def _plain(text: str, what: str) -> str:
    """`text` if it has no control character (a newline, a tab, an escape…: `urlsplit` drops
    some and a printed link breaks on others); else an error naming `what`."""
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in text):
        raise ValueError(_(said("shared", "control_character")).format(what=what, text=text))
    return text


def _encode(value: str) -> str:
    """Percent-encode a value for a query string or path segment (`/`, `:` and `&` included)."""
    return quote(value, safe="")
