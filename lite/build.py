"""Build the lesson as a static JupyterLite site: `python lite/build.py --out build/lite`.

A learner opens the site and runs the notebooks in the browser (Python is Pyodide, compiled to
WebAssembly); nothing is installed and, on the lesson's offline mock, nothing is downloaded after
the page. What goes into the site, and where the build takes it from:

- Pyodide's core (interpreter, standard library, `pyodide-lock.json`): the npm package `pyodide`;
- every pure-Python wheel the lesson needs, at the Pyodide lock's versions: PyPI;
- pydantic_core's Pyodide wheel (pydantic's only compiled part): PyPI;
- this package's wheel, built here and preloaded when the kernel starts (no install cell);
- the notebooks of `notebooks/`, without outputs, each with a first cell that says Python is
  starting and about how long it takes (in the notebook's language), and with the kernel's
  metadata as JupyterLite writes it, so that opening a notebook does not mark it changed.

The lesson needs nothing else: no cell imports numpy or matplotlib, and the figures are drawn as
SVG where matplotlib cannot be loaded (`whentostop.views.plots`), so the site never asks a CDN for
anything. The lock is rewritten to match: the wheels above by their local file names and new
hashes; every other entry — numpy, matplotlib and their compiled dependencies, which have no
Pyodide wheels on PyPI — by its absolute URL on Pyodide's CDN, for a learner online who imports
one of them in a cell of their own.

Downloads are cached in `--downloads` (the user's cache folder, `~/.cache/whentostop/lite`, as
pip's, uv's and npm's are: a new clone builds without fetching them again), what is built from
them in `--cache` (build/lite-cache); `jupyter lite build` redoes only what changed, so a second
build takes seconds. Only the package registries are used (npm, PyPI).
"""

from __future__ import annotations

import argparse
import email.parser
import filecmp
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# ---- the versions, in one place (the JupyterLite packages themselves: pyproject.toml's `lite`) --

PYODIDE_VERSION = "314.0.6"
"""What jupyterlite-pyodide-kernel 0.8.6 runs (Python 3.14); checked against the installed kernel."""
NOT_THE_LOCKS = {
    # Pyodide's lock has pydantic 2.12.5, whose pydantic_core (2.41.5) has no Pyodide wheel on
    # PyPI: those start at 2.47. pydantic 2.14.4 pins pydantic_core 2.50.5 (served as pinned).
    "pydantic": "2.14.4",
}
"""Versions served instead of the lock's. Any other package of the lock comes at the lock's
version, unless a wheel of the site needs a newer one: then at the version installed here."""
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
"""Where the lock entries that are not in the site point (numpy, matplotlib, ...)."""

KERNEL_NEEDS = ["micropip", "ipython", "jedi", "comm"]
"""What the Pyodide kernel installs when it starts (besides its own wheels, which the kernel
extension serves): offline, each must be in the site. This package is preloaded as well
(`loadPyodideOptions.packages` in lite/jupyter-lite.json), so no notebook needs an install cell."""
KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "python", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": "3.8",
}
"""The notebook metadata JupyterLite writes when the Pyodide kernel starts (read off a page of
this site): a notebook that already has it is not marked changed on open. `version` is what the
kernel reports, whatever Python Pyodide runs."""
KERNEL_READY_S = {"first": 30.0, "again": 27.0}
"""Page load to kernel ready, first and later visit, as bench/RESULTS.md section 8 measured
it: the first cell of each notebook tells the learner (`classroom.lite_starting_notice`)."""
FRONTEND_ONLY = {"widgetsnbextension"}
"""Required by ipywidgets for the classic notebook's frontend; the kernel serves a stub of it."""
PYODIDE_CORE = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
"""The files of the npm package the site needs (not its type stubs, source maps, consoles)."""
LAB_EXTENSIONS = (
    "@jupyterlite/pyodide-kernel-extension",
    "@jupyter-widgets/jupyterlab-manager",
    "anywidget",
)
"""The only JupyterLab extensions in the site, whatever else this environment has installed
(anywidget: the explorer's accessible controls, `whentostop.views.controls`)."""


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "build" / "lite", help="the site's folder"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=ROOT / "build" / "lite-cache",
        help="intermediate files, kept between builds",
    )
    parser.add_argument(
        "--downloads",
        type=Path,
        default=user_cache() / "lite",
        help="Pyodide's core and the wheels as downloaded, kept between builds and clones",
    )
    args = parser.parse_args(None if argv is None else list(argv))
    started = time.perf_counter()
    out, cache, downloads = args.out.resolve(), args.cache.resolve(), args.downloads.resolve()
    check_kernel_version()
    core = pyodide_core(downloads)
    lock = json.loads((core / "pyodide-lock.json").read_text(encoding="utf-8"))
    ours = package_wheel(cache)
    wheels = resolve(lock, ours, downloads / "wheels")
    # jupyter lite build keeps what it did in the folder it builds from: one per output folder.
    stage = cache / "stage" / hashlib.sha256(str(out).encode()).hexdigest()[:12]
    stage_site(stage, core, rewrite_lock(lock, wheels), wheels)
    notebooks = stage_notebooks(stage / "notebooks")
    jupyter_lite_build(stage, out)
    check_site(out)
    print(
        f"JupyterLite site: {out} ({size_mb(out):.1f} MB; {len(notebooks)} notebooks; {len(wheels)} "
        f"wheels in the site, {len(lock['packages']) - sum(w.in_lock for w in wheels.values())} "
        f"lock entries on the CDN) in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return 0


def user_cache() -> Path:
    """Where downloads are kept for this user: $XDG_CACHE_HOME/whentostop, else
    ~/.cache/whentostop (the folder pip, uv and npm keep theirs beside)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "whentostop"


def check_kernel_version() -> None:
    """The site's Pyodide must be the one the installed kernel was built for."""
    from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION as kernels

    if kernels != PYODIDE_VERSION:
        sys.exit(
            f"jupyterlite-pyodide-kernel runs Pyodide {kernels}, but lite/build.py pins "
            f"{PYODIDE_VERSION}: change PYODIDE_VERSION (and check NOT_THE_LOCKS) together."
        )


# ---- Pyodide's core, from npm ----------------------------------------------------------------


def pyodide_core(cache: Path) -> Path:
    """The folder with Pyodide's core files, unpacked from `npm pack pyodide@VERSION` once."""
    core = cache / f"pyodide-{PYODIDE_VERSION}"
    if all((core / name).is_file() for name in PYODIDE_CORE):
        return core
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is needed once, to fetch Pyodide's core (apt-get install npm)")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        print(f"fetching pyodide@{PYODIDE_VERSION} from npm", flush=True)
        # npm checks the tarball against the registry's integrity hash; its cache stays in ours.
        packed = subprocess.run(
            [
                npm,
                "pack",
                f"pyodide@{PYODIDE_VERSION}",
                "--pack-destination",
                tmp,
                "--cache",
                str(cache / "npm"),
                "--silent",
                "--no-fund",
                "--no-audit",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-1]
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(Path(tmp) / packed) as tar:
            tar.extractall(
                unpacked,
                members=[
                    m for m in tar.getmembers() if m.name.removeprefix("package/") in PYODIDE_CORE
                ],
                **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}),
            )
        shutil.rmtree(core, ignore_errors=True)
        (unpacked / "package").rename(core)
    missing = [name for name in PYODIDE_CORE if not (core / name).is_file()]
    if missing:
        sys.exit(f"pyodide@{PYODIDE_VERSION} from npm lacks {', '.join(missing)}")
    return core


# ---- the wheels -------------------------------------------------------------------------------


@dataclass
class Wheel:
    """One wheel in the site and the lock entry it gets."""

    name: str
    """The canonical name (the lock's key)."""
    version: str
    path: Path
    requires: list[Requirement] = field(default_factory=list)
    in_lock: bool = False
    """True when it replaces an entry of Pyodide's own lock."""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def package_wheel(cache: Path) -> Path:
    """This package's wheel, rebuilt only when its sources changed."""
    sources = [
        ROOT / "pyproject.toml",
        ROOT / "README.md",
        *sorted(
            p
            for d in ("src", "data")
            for p in (ROOT / d).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        ),
    ]
    digest = hashlib.sha256()
    for path in sources:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    folder = cache / "dist" / digest.hexdigest()[:16]
    built = sorted(folder.glob("when_to_stop-*.whl"))
    if not built:
        print("building the when-to-stop wheel", flush=True)
        shutil.rmtree(cache / "dist", ignore_errors=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--quiet",
                "--disable-pip-version-check",
                "-w",
                str(folder),
                str(ROOT),
            ],
            check=True,
        )
        built = sorted(folder.glob("when_to_stop-*.whl"))
    return built[-1]


def pyodide_environment(lock: dict) -> dict[str, str]:
    """PEP 508 marker values inside Pyodide, to read the wheels' requirements as it would."""
    python = lock["info"]["python"]
    return {
        "python_version": ".".join(python.split(".")[:2]),
        "python_full_version": python,
        "sys_platform": "emscripten",
        "platform_system": "Emscripten",
        "platform_machine": "wasm32",
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "implementation_version": python,
        "platform_release": "",
        "platform_version": "",
        "extra": "",
    }


def resolve(lock: dict, ours: Path, folder: Path) -> dict[str, Wheel]:
    """Every wheel the site serves: what the kernel and this package need, and what that needs.

    A package in Pyodide's lock comes at the lock's version (or NOT_THE_LOCKS's); one the lock
    lacks (ipywidgets, comm, ...), or whose lock version a served wheel cannot use, at the version
    installed here, which is what the tests run and matches the widget extension copied into the
    site. A compiled package other than pydantic_core stays on the CDN: no one preloads it.
    """
    pinned = {**NOT_THE_LOCKS, **_exact_pins(NOT_THE_LOCKS["pydantic"], folder, lock)}
    while True:
        wheels = _closure(lock, ours, folder, pinned)
        conflicts = [
            (wheel, req)
            for wheel in wheels.values()
            for req in wheel.requires
            if (dep := wheels.get(canonicalize_name(req.name)))
            and not req.specifier.contains(dep.version, prereleases=True)
        ]
        if not conflicts:
            return wheels
        fixed = dict(pinned)
        for wheel, req in conflicts:
            name, have = canonicalize_name(req.name), wheels[canonicalize_name(req.name)].version
            if name in fixed and name not in pinned:
                continue  # already moved to the installed version this round; checked next round
            here = _installed_version(name)
            if name in pinned or not req.specifier.contains(here, prereleases=True):
                sys.exit(
                    f"{wheel.name} {wheel.version} needs {req}, but the site would serve "
                    f"{name} {have}: adjust NOT_THE_LOCKS in lite/build.py"
                )
            print(
                f"{name}: {here} (installed here) instead of the lock's {have}, "
                f"since {wheel.name} {wheel.version} needs {req.specifier}",
                flush=True,
            )
            fixed[name] = here
        pinned = fixed


def _closure(lock: dict, ours: Path, folder: Path, pinned: dict[str, str]) -> dict[str, Wheel]:
    """Our wheel and everything it and the kernel need, layer by layer (one pip call a layer)."""
    in_lock = {canonicalize_name(key): entry for key, entry in lock["packages"].items()}
    env = pyodide_environment(lock)

    def served(name: str) -> bool:
        return name not in FRONTEND_ONLY and not _on_cdn(in_lock.get(name))

    wheels = {
        "when-to-stop": Wheel("when-to-stop", _wheel_version(ours), ours, _requires(ours, env))
    }
    wanted = {canonicalize_name(n) for n in KERNEL_NEEDS} | {
        canonicalize_name(r.name) for r in wheels["when-to-stop"].requires
    }
    while wanted := {n for n in wanted - wheels.keys() if served(n)}:
        layer = {
            name: pinned.get(name)
            or (in_lock[name]["version"] if name in in_lock else _installed_version(name))
            for name in sorted(wanted)
        }
        for name, path in download(layer, folder, lock).items():
            wheels[name] = Wheel(name, layer[name], path, _requires(path, env), name in in_lock)
        wanted = {canonicalize_name(r.name) for w in wheels.values() for r in w.requires}
    return wheels


def _on_cdn(entry: dict | None) -> bool:
    """A lock entry whose wheel is compiled for Pyodide: PyPI has no copy (pydantic_core aside)."""
    return (
        entry is not None
        and not entry["file_name"].endswith("-none-any.whl")
        and canonicalize_name(entry["name"]) != "pydantic-core"
    )


def _installed_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        sys.exit(
            f"{name} is needed in the browser and is not in Pyodide's lock; install it here "
            "(pip install -e '.[lite]') so the build knows which version to serve"
        )


def _exact_pins(pydantic: str, folder: Path, lock: dict) -> dict[str, str]:
    """pydantic pins its pydantic_core exactly: serve that one."""
    path = download({"pydantic": pydantic}, folder, lock)["pydantic"]
    pins = {
        canonicalize_name(r.name): str(r.specifier).removeprefix("==")
        for r in _requires(path, {"extra": ""})
        if str(r.specifier).startswith("==")
    }
    if "pydantic-core" not in pins:
        sys.exit(f"pydantic {pydantic} does not pin pydantic_core exactly; pick another version")
    return pins


def download(versions: dict[str, str], folder: Path, lock: dict) -> dict[str, Path]:
    """Each `name==version` from PyPI (pure-Python wheels; pydantic_core's Pyodide wheel), cached.

    pip downloads for Pyodide's Python, not this one: `--python-version` and the wheel tags come
    from the lock's `info` (Python 3.14, ABI `pyemscripten_2026_0_wasm32` for Pyodide 314)."""
    python = "".join(lock["info"]["python"].split(".")[:2])  # "314"
    platform = f"pyemscripten_{lock['info']['abi_version']}_{lock['info']['arch']}"
    folder.mkdir(parents=True, exist_ok=True)
    found: dict[str, Path] = {}
    missing: dict[str, str] = {}
    for name, version in versions.items():
        path = _cached(folder, name, version)
        if path:
            found[name] = path
        else:
            missing[name] = version
    pure = [f"{n}=={v}" for n, v in missing.items() if n != "pydantic-core"]
    pip = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--quiet",
        "--dest",
        str(folder),
    ]
    if pure:
        print(f"downloading from PyPI: {' '.join(pure)}", flush=True)
        subprocess.run(
            [
                *pip,
                "--python-version",
                python,
                "--platform",
                "any",
                "--implementation",
                "py",
                "--abi",
                "none",
                *pure,
            ],
            check=True,
        )
    if "pydantic-core" in missing:
        # Never the `pydantic_core-0.0.1-py3-none-any` placeholder: only the Pyodide build.
        spec = f"pydantic-core=={missing['pydantic-core']}"
        print(f"downloading from PyPI: {spec} ({platform})", flush=True)
        subprocess.run(
            [
                *pip,
                "--python-version",
                python,
                "--implementation",
                "cp",
                "--abi",
                f"cp{python}",
                "--platform",
                platform,
                spec,
            ],
            check=True,
        )
    for name, version in missing.items():
        path = _cached(folder, name, version)
        if path is None:
            sys.exit(f"pip did not bring a wheel of {name} {version}")
        found[name] = path
    return found


def _cached(folder: Path, name: str, version: str) -> Path | None:
    for path in folder.glob("*.whl"):
        dist, ver = path.name.split("-")[:2]
        if canonicalize_name(dist) == name and Version(ver) == Version(version):
            if name == "pydantic-core" and "pyemscripten" not in path.name:
                continue
            return path
    return None


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(zf.read(name).decode("utf-8"))


def _wheel_version(wheel: Path) -> str:
    return str(_metadata(wheel)["Version"])


def _requires(wheel: Path, env: dict[str, str]) -> list[Requirement]:
    """The wheel's requirements that hold in `env` (no extras)."""
    reqs = [Requirement(line) for line in _metadata(wheel).get_all("Requires-Dist") or []]
    return [r for r in reqs if r.marker is None or Marker(str(r.marker)).evaluate(env)]


def _imports(wheel: Path) -> list[str]:
    """The top-level import names a wheel installs (for a lock entry Pyodide lacks)."""
    with zipfile.ZipFile(wheel) as zf:
        tops = {
            n.split("/")[0].removesuffix(".py")
            for n in zf.namelist()
            if not n.split("/")[0].endswith((".dist-info", ".data", ".pth"))
        }
    return sorted(t for t in tops if t.isidentifier())


# ---- the lock and the site --------------------------------------------------------------------


def rewrite_lock(lock: dict, wheels: dict[str, Wheel]) -> dict:
    """Pyodide's lock with the site's wheels by local file name and hash; all else on the CDN."""
    packages: dict[str, dict] = {}
    by_name = {canonicalize_name(key): key for key in lock["packages"]}
    for key, entry in lock["packages"].items():
        if canonicalize_name(key) not in wheels:
            packages[key] = {**entry, "file_name": PYODIDE_CDN + entry["file_name"]}
    for name, wheel in sorted(wheels.items()):
        key = by_name.get(name, name)
        old = lock["packages"].get(key, {})
        depends = sorted({canonicalize_name(r.name) for r in wheel.requires} & wheels.keys())
        packages[key] = {
            "name": old.get("name", name),
            "version": wheel.version,
            "file_name": wheel.path.name,
            "install_dir": "site",
            "sha256": wheel.sha256,
            "package_type": "package",
            "imports": old.get("imports") or _imports(wheel.path),
            "depends": [by_name.get(d, d) for d in depends],
            "unvendored_tests": False,
        }
    return {**lock, "packages": dict(sorted(packages.items()))}


def stage_site(stage: Path, core: Path, lock: dict, wheels: dict[str, Wheel]) -> None:
    """The folder `jupyter lite build` reads: our settings and the Pyodide it serves."""
    pyodide = stage / "static" / "pyodide"
    pyodide.mkdir(parents=True, exist_ok=True)
    files = {name: core / name for name in PYODIDE_CORE if name != "pyodide-lock.json"}
    files.update({w.path.name: w.path for w in wheels.values()})
    for old in pyodide.iterdir():
        if old.name not in files and old.name != "pyodide-lock.json":
            old.unlink()  # a wheel of an earlier build
    for name, source in files.items():
        _link(source, pyodide / name)
    _write_if_changed(pyodide / "pyodide-lock.json", json.dumps(lock, indent=1, sort_keys=True))
    shutil.copy2(HERE / "jupyter-lite.json", stage / "jupyter-lite.json")
    config = json.loads((HERE / "jupyter_lite_config.json").read_text(encoding="utf-8"))
    labextensions = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
    extensions = [labextensions / name for name in LAB_EXTENSIONS]
    missing = [str(p) for p in extensions if not (p / "package.json").is_file()]
    if missing:
        sys.exit(f"missing JupyterLab extensions: {', '.join(missing)} (pip install -e '.[lite]')")
    config["LiteBuildConfig"]["federated_extensions"] = [str(p) for p in extensions]
    _write_if_changed(stage / "jupyter_lite_config.json", json.dumps(config, indent=2))


def stage_notebooks(folder: Path) -> list[Path]:
    """A copy of notebooks/ with every output, execution count and widget state removed, the
    kernel's metadata as JupyterLite writes it, and the notice that Python is starting first."""
    source = ROOT / "notebooks"
    wanted = {
        p.relative_to(source)
        for p in source.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    }
    if folder.exists():
        for old in folder.rglob("*.ipynb"):
            if old.relative_to(folder) not in wanted:
                old.unlink()
    for rel in sorted(wanted):
        nb = json.loads((source / rel).read_text(encoding="utf-8"))
        nb.get("metadata", {}).pop("widgets", None)
        nb["metadata"] = {
            **nb.get("metadata", {}),
            "kernelspec": KERNELSPEC,
            "language_info": LANGUAGE_INFO,
        }
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"], cell["execution_count"] = [], None
        nb["cells"].insert(0, starting_cell(edition_language(rel)))
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        _write_if_changed(folder / rel, json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return sorted(wanted)


def edition_language(rel: Path) -> str:
    """The language of a notebook by its folder: notebooks/<lang>/ is an edition, the top is
    English (`whentostop.lesson.classroom.EDITIONS`)."""
    from whentostop.lesson.classroom import EDITIONS

    return rel.parts[0] if len(rel.parts) > 1 and rel.parts[0] in EDITIONS else "en"


def starting_cell(lang: str) -> dict:
    """The markdown cell that says Python is starting in the page, and about how long it takes."""
    from whentostop.lesson.classroom import lite_starting_notice

    text = lite_starting_notice(
        lang, first_s=KERNEL_READY_S["first"], again_s=KERNEL_READY_S["again"]
    )
    return {
        "cell_type": "markdown",
        "id": "wts-lite-starting",
        "metadata": {"tags": ["lite-starting"]},
        "source": [f"> {text}"],
    }


def jupyter_lite_build(stage: Path, out: Path) -> None:
    """`jupyter lite build`, which copies only what changed since the last build into `out`."""
    cmd = [
        sys.executable,
        "-m",
        "jupyterlite_core",
        "build",
        "--lite-dir",
        str(stage),
        "--output-dir",
        str(out),
        "--contents",
        str(stage / "notebooks"),
    ]
    print(f"jupyter lite build -> {out}", flush=True)
    proc = subprocess.run(cmd, cwd=stage, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"jupyter lite build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")


def check_site(out: Path) -> None:
    """What a learner's browser will ask for is there: Pyodide, the lock, every local wheel."""
    pyodide = out / "static" / "pyodide"
    lock = json.loads((pyodide / "pyodide-lock.json").read_text(encoding="utf-8"))
    for entry in lock["packages"].values():
        name = entry["file_name"]
        if name.startswith("https://"):
            continue
        if not (pyodide / name).is_file():
            sys.exit(f"the site's lock names {name}, which is not in {pyodide}")
        if hashlib.sha256((pyodide / name).read_bytes()).hexdigest() != entry["sha256"]:
            sys.exit(f"{name} in the site is not the file the lock describes (sha256 differs)")
        if "pydantic_core-0.0.1" in name:
            sys.exit("pydantic_core's placeholder wheel got into the site")
    config = json.loads((out / "jupyter-lite.json").read_text(encoding="utf-8"))
    kernel = config["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"
    ]
    if kernel.get("pyodideUrl") != "./static/pyodide/pyodide.mjs":
        sys.exit(f"the site loads Pyodide from {kernel.get('pyodideUrl')!r}, not from itself")
    for name in kernel["loadPyodideOptions"]["packages"]:
        if canonicalize_name(name) not in {canonicalize_name(k) for k in lock["packages"]}:
            sys.exit(f"{name} is preloaded but not in the site's lock")


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def _link(source: Path, dest: Path) -> None:
    """`dest` with `source`'s content: a hard link where the file system allows it (no copy of
    10 MB of wasm), else a copy. An unchanged file is left alone; a changed one (this package's
    wheel keeps its name across rebuilds) is replaced."""
    if dest.exists():
        if os.path.samefile(source, dest) or filecmp.cmp(source, dest, shallow=False):
            return
        dest.unlink()
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)


def _write_if_changed(path: Path, text: str) -> None:
    """Leave an unchanged file alone, so the build's up-to-date checks see nothing to redo."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
