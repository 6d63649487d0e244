"""The command line.

    python -m whentostop run --level 1-1 --model loopboros --max-turns 5 [--stop-on mark_star]
                             [--system TEXT] [--deadline-s S] [--wrap-up] [--json]
                             [--max-tokens-total N] [--max-cost-usd USD [--price MODEL]]
                             [--max-tokens N] [--temperature T] [--seed N] [--timeout-s S]
                             [--text-tool-calls note|accept] [--tool-choice CHOICE]
                             [--parallel-tool-calls | --no-parallel-tool-calls]
    python -m whentostop serve [--host 127.0.0.1] [--port 8765]
    python -m whentostop link [--hub URL] [--repo URL] [--branch main] [--notebook 1-1]
    python -m whentostop lesson [DIR] [--lang pt]     # the notebooks, into DIR
    python -m whentostop lab [DIR] [--lang pt] [--port N] [--no-browser]        # ... in JupyterLab
    python -m whentostop dashboard [DIR] [--lang pt] [--port N] [--no-browser]  # ... with Voila

`run` exits with a status that says how the run ended (`EXIT_CODES`, the table `run --help`
prints): 0 only for an answer the level judged right, or one it cannot judge that is none of the
known non-answers. `--model` is a mock persona unless OPENAI_BASE_URL (or --base-url) is set.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import asdict
from functools import cache, partial
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from ._data import data_file
from ._options import on_the_command_line
from ._text import terminal_text
from .errors import EndpointError
from .i18n import LANGUAGES, _, language, ngettext, say, using
from .lesson import prompt
from .lesson.classroom import EDITIONS
from .level import SHIPPED, Judgement, load_level
from .loop import run_agent
from .models import connect
from .outcome import Run, Stop
from .usage import DEFAULT_PRICE_MODEL

if TYPE_CHECKING:
    from pathlib import Path

    from .lesson.folder import Copied

EXIT_ANSWER, EXIT_NO_ANSWER, EXIT_ERROR, EXIT_WRONG = 0, 1, 2, 3
EXIT_TEXT_TOOL_CALL, EXIT_UNSURE = 4, 5


@cache
def _cli() -> dict[str, Any]:
    """The command line's table, `data/cli.toml`: its commands and options, its words, and the
    exit statuses of `run`."""
    import tomllib

    return tomllib.loads(data_file("cli.toml").read_text(encoding="utf-8"))


EXIT_CODES: dict[int, str] = {int(code): what for code, what in _cli()["exit_status"].items()}
"""`python -m whentostop run`'s exit status: how the run ended, for a script or a CI job (English
msgids, from `data/cli.toml`)."""


def exit_table() -> str:
    """The exit statuses as the table `run --help` ends with."""
    rows = [
        textwrap.fill(_(what), 78, initial_indent=f"  {code}  ", subsequent_indent="     ")
        for code, what in EXIT_CODES.items()
    ]
    return "\n".join([_("exit status:"), *rows])


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error said in one line (and where to read more), exit 2."""

    def error(self, message: str) -> NoReturn:
        error = after_error(terminal_text(message))
        said = _("error: {error} (see {prog} --help)").format(error=error, prog=self.prog)
        self.exit(EXIT_ERROR, said + "\n")


_CAPITALISED = re.compile(r"[A-ZÀ-Ý][a-zà-ÿ]*(?=[\s,:;.!?]|$)")


def after_error(message: str) -> str:
    """A message as it reads after "error:"/"erro:", in mid-sentence: its first word in lower
    case ("The endpoint…" -> "the endpoint…", "Tempo esgotado…" -> "tempo esgotado…"); a name
    written in capitals or with code in it (HTTP, OPENAI_BASE_URL, LevelFileError) as it is."""
    return message[:1].lower() + message[1:] if _CAPITALISED.match(message) else message


def port(text: str, lowest: int = 0) -> int:
    """An argparse type: a TCP port, a whole number from `lowest` to 65535 (0: any free one)."""
    number = -1  # what is not a whole number is refused as one out of range
    with suppress(ValueError):
        number = int(text)
    if not lowest <= number <= 65535:
        said = _("{text!r} is not a port: use a whole number from {lowest} to 65535")
        raise argparse.ArgumentTypeError(said.format(text=text, lowest=lowest))
    return number


def _warn(message: Warning | str, *_args: object, **_kwargs: object) -> None:
    """A warning while a command runs (a key trimmed, a catalogue missing): one line on stderr."""
    print(_("warning: {text}").format(text=terminal_text(str(message))), file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    with warnings.catch_warnings(action="default"):
        # what the interpreter says of its own housekeeping (an unclosed socket collected, a
        # dependency's deprecation) is not the command's to report
        warnings.simplefilter("ignore", ResourceWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.showwarning = _warn
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:2] == ["lesson", "check"]:  # the lesson's data checked (a folder is ./check)
        from .lesson.validate import main as check_lesson

        return check_lesson(args_list[2:])
    with using(_asked_language(args_list) or language()), argparse_words():
        # for this command only (main() is called in tests too): the help, argparse's own
        # errors and everything the command prints, in the language asked for
        args = _parser().parse_args(args_list)
        if args.command == "serve":
            return _serve(args.host, args.port)
        if args.command == "link":
            return _link(args)
        if args.command in ("lesson", "lab", "dashboard"):
            return _lesson(args)
        with on_the_command_line():  # an error names --max-turns, not max_turns
            return _run(args)


def _asked_language(argv: list[str]) -> str | None:
    """The language `--lang` asks for, wherever it stands (before or after the command; the
    last one wins, as argparse reads them; abbreviated too, as argparse takes it), read before
    the parser is built so that its help is in that language; one the lesson lacks is left for
    the parser to refuse."""
    asked = None
    for arg, after in zip(argv, [*argv[1:], None]):
        if arg == "--":
            break
        flag, equals, value = arg.partition("=")  # --lang=pt, or --lang and then pt
        given = value if equals else after
        if len(flag) > 2 and "--lang".startswith(flag) and given in LANGUAGES:  # or --la, …
            asked = given
    return asked


@contextmanager
def argparse_words() -> Iterator[None]:
    """argparse's own words ("usage:", "invalid choice", "the following arguments are
    required") through our catalogue while the command line is read: argparse looks them up
    with its module's gettext functions (`data/cli.toml`'s `[argparse]` lists the msgids)."""
    before = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = _, ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = before  # type: ignore[attr-defined]


def _parser() -> argparse.ArgumentParser:
    """The command line `data/cli.toml` describes, its help in the language in effect."""
    from .lesson.folder import DEFAULT_FOLDER

    cli = _cli()
    parser = _Parser(prog="python -m whentostop", description=_(cli["description"]))
    lang: dict[str, Any] = {"choices": sorted(LANGUAGES), "help": _(cli["lang_help"])}
    parser.add_argument("--lang", **lang)
    common = _Parser(add_help=False)
    # SUPPRESS: given after the command it sets args.lang, else it leaves the one before alone
    common.add_argument("--lang", default=argparse.SUPPRESS, **lang)
    commands = parser.add_subparsers(dest="command", required=True)
    fields = {
        "levels": ", ".join(SHIPPED),
        "model": DEFAULT_PRICE_MODEL,
        "names": ", ".join(EDITIONS["en"]),
        "folder": DEFAULT_FOLDER,
    }
    for name, command in cli["commands"].items():
        sub = commands.add_parser(name, parents=[common], help=_(command["help"]))
        if name == "run":  # its --help ends with the table of its exit statuses, as laid out
            sub.epilog, sub.formatter_class = exit_table(), argparse.RawDescriptionHelpFormatter
        for option in command["options"]:
            keywords = copy.deepcopy(option)  # a default list is the parse's own, not the table's
            sub.add_argument(keywords.pop("flag"), **_keywords(keywords, fields))
    return parser


READERS: dict[str, Callable[[str], Any]] = {
    "int": int,
    "float": float,
    "port": port,
    "server_port": partial(port, lowest=1),
}
"""What an option of `data/cli.toml` may name as its `type`: how its value is read."""


def _keywords(option: dict[str, Any], fields: dict[str, str]) -> dict[str, Any]:
    """An option of `data/cli.toml` as `add_argument`'s keywords: its reader and its action
    named, its help translated, and the `{fields}` of its help and default filled in."""
    if "type" in option:
        option["type"] = READERS[option["type"]]
    if option.get("action") == "boolean_optional":
        option["action"] = argparse.BooleanOptionalAction
    if "help" in option:
        option["help"] = _(option["help"]).format(**fields)
    if isinstance(option.get("default"), str):
        option["default"] = option["default"].format(**fields)
    return option


def _run(args: argparse.Namespace) -> int:
    try:
        level = load_level(args.level)  # a missing file is an OSError, a broken one a ValueError
        names = [n.strip() for n in args.tools.split(",")] if args.tools else []
        # a --model on the command line is meant as given, whatever WHENTOSTOP_MODEL says
        endpoint = args.base_url or (os.environ.get("OPENAI_BASE_URL") if args.model else None)
        max_tokens: int | Literal["default"] | None = (
            "default" if args.max_tokens is None else (args.max_tokens or None)
        )
        settings = _given(args, "temperature", "seed", "timeout_s")
        model = connect(args.model, base_url=endpoint or None, max_tokens=max_tokens, **settings)
        run = run_agent(
            args.prompt or prompt(),
            model=model,
            tools=level.tools(*names),
            on_max_turns="wrap_up" if args.wrap_up else "stop",
            **_given(args, *_LIMITS, *_OFFER),
        )
    except EndpointError as exc:
        return _failed(args, str(exc), exc.run)
    except (OSError, ValueError) as exc:
        return _failed(args, str(exc))
    except KeyboardInterrupt as exc:  # Ctrl-C: the run so far, one line, and the shell's 130
        partial: Run | None = getattr(exc, "run", None)
        _failed(args, partial.error if partial and partial.error else _("interrupted"), partial)
        return 130
    judgement = level.judge(run)
    status = exit_status(run, judgement)
    if args.json:
        print(json.dumps({**as_json(run), "judgement": asdict(judgement), "exit_status": status}))
    else:
        print(transcript(run, judgement))
    return status


_LIMITS = ("max_turns", "deadline_s", "max_tokens_total", "max_cost_usd", "price")
_OFFER = ("system", "stop_on", "text_tool_calls", "tool_choice", "parallel_tool_calls")
"""With `_LIMITS`: the options `run` hands to `run_agent` as given (same name, same value)."""


def _given(thing: object, *names: str) -> dict[str, Any]:
    """`thing`'s attributes `names`, by name: options handed on as given, fields of --json."""
    return {name: getattr(thing, name) for name in names}


def exit_status(run: Run, judgement: Judgement | None = None) -> int:
    """How the run ended, as `EXIT_CODES` says: a tool call written as text, no answer, a wrong
    answer, a right one; an answer the level cannot judge is 0 unless it follows a cut-off
    reply. Without a judgement every answer counts as one the level cannot judge."""
    if run.answer_is_text_tool_call:
        return EXIT_TEXT_TOOL_CALL
    if not run.has_answer:
        return EXIT_NO_ANSWER
    if judgement is not None and judgement.correct is not None:
        return EXIT_ANSWER if judgement.correct else EXIT_WRONG
    return EXIT_UNSURE if run.ended_on_reply_noted("after_cut_off") else EXIT_ANSWER


def _failed(args: argparse.Namespace, error: str, partial: Run | None = None) -> int:
    """A usage error or a broken run: the run so far, then one `error: …` line; exit 2.
    With --json, stdout holds one JSON object with the error (the line still goes to stderr)."""
    error = " ".join(error.split())  # one line, whatever the endpoint said
    if args.json:
        turns = _turns(partial) if partial else []
        print(json.dumps({"stop": None, "error": error, "answer": None, "turns": turns}))
    elif partial and partial.turns:
        print(transcript(partial))
    return _error(error)


def _error(message: str) -> int:
    """One `error: …` line on stderr, in mid-sentence case; the exit status of a failure."""
    print(_("error: {error}").format(error=after_error(terminal_text(message))), file=sys.stderr)
    return EXIT_ERROR


def as_json(run: Run) -> dict[str, Any]:
    return {
        "stop": str(run.stop) if run.stop else None,
        "answer": run.answer if run.has_answer else None,
        "no_answer": None if run.has_answer else run.no_answer_reason,
        **_given(run, "wrap_up", *_TOKENS, "warnings"),
        "turns": _turns(run),
    }


_TOKENS = ("prompt_tokens", "completion_tokens", "cached_tokens")


def _turns(run: Run) -> list[dict[str, Any]]:
    return [
        {
            "turn": t.index,
            **_given(t, *_TOKENS),
            "latency_s": round(t.latency_s, 4),
            "text": t.text,
            "tool_calls": [
                _given(c, "name", "arguments", "output", "ok", "ran") for c in t.tool_calls
            ],
            "wrap_up": t.wrap_up,
            "notes": [asdict(n) for n in t.notes],
        }
        for t in run.all_turns
    ]


def transcript(run: Run, judgement: Judgement | None = None) -> str:
    """The run turn by turn, then how it ended (and whether the answer is right, when the
    level could tell): what a learner reads in a terminal. Whatever the model, a tool or the
    endpoint wrote goes through `terminal_text`: no control character acts, and each of its
    lines is indented under the line it belongs to."""
    shown = partial(terminal_text, indent=_TEXT_INDENT)  # a second line under its first
    lines = []
    for t in run.all_turns:
        label = (
            _("wrap-up (after the clock, not an answer)")
            if t.wrap_up
            else _("turn {n}/{max_turns}").format(n=t.index, max_turns=run.max_turns)
        )
        tokens = _("{label} · {prompt} prompt + {completion} completion tokens").format(
            label=label, prompt=t.prompt_tokens, completion=t.completion_tokens
        )
        if t.cached_tokens:
            tokens += " " + _("({cached} of them cached)").format(cached=t.cached_tokens)
        lines.append(f"── {tokens}")
        if t.text:
            lines.append("   " + _("model: {text}").format(text=shown(t.text.rstrip("\n"))))
        for c in t.tool_calls:
            mark = "✓" if c.ok else ("·" if not c.ran else "✗")
            lines.append(f"   {mark} {terminal_text(c.name)}({shown(c.arguments)})")
            if c.output:
                lines.append(_OUTPUT_INDENT + terminal_text(c.output.rstrip("\n"), _OUTPUT_INDENT))
        lines.extend(f"   ⚠ {shown(note.text)}" for note in t.notes)
    if run.stop is None:
        ended = _("broken: {error}").format(error=run.error)
    elif run.has_answer:  # a repr is one line: only its controls to show
        ended = ngettext(
            "{stop} ({exit}) after {n} turn. Answer: {answer!r}",
            "{stop} ({exit}) after {n} turns. Answer: {answer!r}",
            len(run.turns),
        ).format(stop=run.stop, exit=run.exit_name, n=len(run.turns), answer=run.answer)
    else:
        ended = f"{run.stop} ({run.exit_name}). {run.no_answer_reason}"
    lines.append("== " + shown(ended))
    if run.stop == Stop.MAX_TURNS and run.wrap_up:
        lines.append(
            "   " + _("(the wrap-up above is a best effort after the clock, not an answer)")
        )
    lines.extend("⚠ " + _("warning: {text}").format(text=shown(w)) for w in run.warnings)
    if judgement is not None and (run.has_answer or run.not_an_answer):
        mark = {True: "✓", False: "✗", None: "?"}[judgement.correct]
        said = shown(judgement.text)
        lines.append(f"{mark} " + _("judged on the level: {text}").format(text=said))
    return "\n".join(lines)


_TEXT_INDENT = " " * 6
"""Where a second line of a model's (or a tool's, an endpoint's) words starts: deeper than the
transcript's own lines (0 and 3 spaces), so it cannot pass for one."""
_OUTPUT_INDENT = " " * 7


def _link(args: argparse.Namespace) -> int:
    from .lesson.classroom import DEFAULT_REPO, describe_links

    try:
        given = _given(args, "hub", "branch", "notebook")
        links = describe_links(repo=args.repo or DEFAULT_REPO, lang=language(), **given)
    except ValueError as exc:
        return _error(str(exc))
    print(terminal_text(links))
    return 0


# --- the lesson in a folder: lesson, lab, dashboard --------------------------------------------


def _lesson(args: argparse.Namespace) -> int:
    """Copy the edition of the language in effect, say what was done; for `lab` and `dashboard`,
    then start the server when its extra is installed, else say the one command that installs
    it (exit status 1)."""
    from pathlib import Path

    from .lesson.folder import copy_lesson

    try:
        copied = copy_lesson(Path(args.folder), language())
    except OSError as exc:
        return _error(str(exc))
    print(copied_report(copied))
    if args.command == "lesson":
        return 0
    server = _cli()["servers"][args.command]  # the module it starts, its extra, its name
    import importlib.util

    if importlib.util.find_spec(server["module"]) is None:
        missing = _("{server} is not installed in this Python. Install it with:")
        again = _("then run this command again.")
        said = missing.format(server=server["name"])
        print(f"{said}\n\n    {install_command(server['extra'])}\n\n{again}", file=sys.stderr)
        return 1
    return _start(server_command(args, copied), copied.folder)


def copied_report(copied: Copied) -> str:
    """What `lesson` prints: where the lesson is, each notebook and what happened to it."""
    what = {
        **dict.fromkeys(copied.new, _("copied")),
        **dict.fromkeys(copied.refreshed, _("updated (you had not edited it)")),
        **dict.fromkeys(copied.same, _("already there, unchanged")),
        **dict.fromkeys(copied.kept, _("kept: your edited copy")),
    }
    names = [name for name in EDITIONS[copied.lang].values() if name in what]
    width = max(map(len, names), default=0)
    lines = [_("The lesson is in {folder}:").format(folder=copied.folder.resolve())]
    lines.extend(f"  {name:<{width}}  {what[name]}" for name in names)
    if copied.kept:
        lines.append(say("copies_kept"))
    lines.append(_("Start with {notebook}.").format(notebook=copied.first))
    return "\n".join(lines)


def install_command(extra: str) -> str:
    """The one command that installs an extra into the Python running this: `python -m pip` when
    `python` on PATH is this Python, else this Python's full path."""
    import shlex
    import shutil
    from pathlib import Path

    from . import __version__

    on_path = shutil.which("python")
    this = on_path is not None and Path(on_path).resolve() == Path(sys.executable).resolve()
    python = "python" if this else shlex.quote(sys.executable)
    return f'{python} -m pip install "when-to-stop[{extra}]=={__version__}"'


def server_command(args: argparse.Namespace, copied: Copied) -> list[str]:
    """JupyterLab on the folder, opening 00; or Voila on the folder's dashboard, on 127.0.0.1:
    the arguments of `data/cli.toml`'s servers, then those of the command line."""
    server = _cli()["servers"][args.command]
    fields = {"root": copied.folder.resolve(), "first": copied.first}
    command = [sys.executable, "-m", server["module"]]
    command += [argument.format(**fields) for argument in server["arguments"]]
    if args.command == "lab" and hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # Jupyter refuses root without it
    command += [f"--port={args.port}"] if args.port else []
    command += ["--no-browser"] if args.no_browser else []
    if args.command == "dashboard":
        command.append(str((copied.folder / copied.explorer).resolve()))
    return command


def _start(command: list[str], folder: Path) -> int:
    """Run the server in the lesson's folder until it stops (Ctrl-C stops it as in a shell)."""
    import shlex
    import subprocess

    print(shlex.join(command), flush=True)
    try:
        return subprocess.call(command, cwd=folder)
    except KeyboardInterrupt:
        return 130


def _serve(host: str, port: int) -> int:
    from .mock.endpoint import MockServer
    from .mock.personas import PERSONAS

    shown = terminal_text(host)
    try:
        server = MockServer(host, port)
    except OSError as exc:
        said = _("error: cannot listen on {host}:{port}: {reason}")
        print(said.format(host=shown, port=port, reason=exc.strerror), file=sys.stderr)
        return EXIT_ERROR
    said = _("whentostop mock endpoint at {url} (models: {models})")
    print(said.format(url=server.base_url, models=", ".join(PERSONAS)), flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        said = _("warning: listening on {host}, not only on this machine")
        print(said.format(host=shown), file=sys.stderr, flush=True)
    try:
        with suppress(KeyboardInterrupt):  # Ctrl-C stops it, as in a shell
            server.serve_forever()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
