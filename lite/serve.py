"""Serve the built JupyterLite site on 127.0.0.1: `python lite/serve.py build/lite --port 8000`.

Any static web server can host the site (GitHub Pages does); this one is for trying a build on
this machine. It sends the MIME types Pyodide needs (`application/wasm` for the interpreter,
JavaScript for the `.mjs` modules), and asks the browser to revalidate every file, so a rebuilt
wheel is not hidden behind a cached one.
"""

from __future__ import annotations

import argparse
import functools
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".json": "application/json",
    ".ipynb": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",
}


class SiteHandler(SimpleHTTPRequestHandler):
    """Static files with the site's MIME types; `quiet` leaves out the line per request."""

    extensions_map: ClassVar[dict[str, str]] = {**SimpleHTTPRequestHandler.extensions_map, **TYPES}
    quiet = False

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def serve(site: Path, port: int, *, quiet: bool = False) -> None:
    """Serve `site` until interrupted."""
    if not (site / "index.html").is_file():
        sys.exit(f"{site} is not a built site (no index.html): run `make lite` first")
    handler = functools.partial(SiteHandler, directory=str(site))
    SiteHandler.quiet = quiet
    with ThreadingHTTPServer(("127.0.0.1", port), handler) as httpd:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/lab/index.html?path=00_start_here.ipynb"
        print(f"Serving {site} at {url}  (Ctrl+C stops it)", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path, nargs="?", default=Path("build/lite"))
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--quiet", action="store_true", help="no line per request")
    args = parser.parse_args(argv)
    serve(args.site.resolve(), args.port, quiet=args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
