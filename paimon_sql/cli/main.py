"""``paimon-sql``: a SQL shell on a Paimon warehouse.

Usage::

    paimon-sql [WAREHOUSE]                 interactive prompt (.help lists the dot-commands)
    paimon-sql WAREHOUSE -c "SELECT ..."   run the statements and exit
    paimon-sql WAREHOUSE -f script.sql     run a script, stop at the first failing statement
    paimon-sql WAREHOUSE --format csv|json|table -c ...
    paimon-sql WAREHOUSE --format parquet --output out.parquet -c "SELECT ..."
    paimon-sql --version

Scripts (``-c``, ``-f``, stdin) may hold dot-commands (``.tables``, ``.mode csv`` ...) between
statements, one a line. A statement that runs longer than a second shows its elapsed time and, when
DuckDB can tell, its percentage done on stderr; by default only when stderr is a terminal
(``--progress on|off``, or ``$PAIMON_SQL_PROGRESS``; ``$PAIMON_SQL_PROGRESS_DELAY`` changes the
second). Ctrl-C stops the statement and says whether it
had committed a snapshot (exit code 130).

Without WAREHOUSE the shell opens ``./warehouse``, creating it when absent; a named warehouse
must exist unless ``--create`` is given (a typo should not make an empty warehouse). With
neither ``-c`` nor ``-f`` and input that is not a terminal, the statements come from stdin.
Exit codes: 0 success, 1 a statement or file failed, 2 bad options.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from paimon_sql import connect
from paimon_sql.cli._interrupt import Interrupted
from paimon_sql.cli._shell import MODES, Settings, Shell, report
from paimon_sql.cli.repl import repl
from paimon_sql.errors import ArgumentError, WarehouseNotFoundError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_sql import Session

DEFAULT_WAREHOUSE = "warehouse"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the shell with command-line arguments `argv` (default: ``sys.argv[1:]``); the exit code.

    >>> import tempfile
    >>> main([tempfile.mkdtemp(), "-c", "SELECT 42 AS answer", "--format", "csv"])
    answer
    42
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if args.format == "parquet" and args.output is None:
        parser.error("--format parquet needs --output FILE")
    try:
        return _run(args)
    except Interrupted as err:
        sys.stderr.write(f"{err.message}\n")
        return 130
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader (head, less) left: stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as err:  # noqa: BLE001 - the CLI boundary: one line, traceback with --debug
        report(err, sys.stderr, debug=args.debug)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paimon-sql",
        description='SQL on Apache Paimon tables with DuckDB; tables are "db"."table".',
        epilog="Interactive mode: .help lists the dot-commands. History: $PAIMON_SQL_HISTORY "
        "or ~/.paimon_sql_history.",
    )
    parser.add_argument(
        "warehouse",
        nargs="?",
        help=f"warehouse folder (default: ./{DEFAULT_WAREHOUSE}, created if absent)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "-c",
        "--command",
        metavar="SQL",
        action="append",
        help="run these statements and exit (several -c run in order, as in DuckDB's CLI)",
    )
    source.add_argument("-f", "--file", metavar="FILE", help="run the statements of FILE and exit")
    parser.add_argument(
        "--format", choices=MODES, default="table", help="result format (default: table)"
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write results to FILE instead of stdout"
    )
    parser.add_argument(
        "--timer", action="store_true", help="print each statement's run time (stderr)"
    )
    parser.add_argument(
        "--create", action="store_true", help="create WAREHOUSE when it does not exist"
    )
    parser.add_argument(
        "--max-rows", type=int, default=1000, metavar="N", help="rows a table shows (0: all)"
    )
    parser.add_argument(
        "--max-width", type=int, default=40, metavar="N", help="cell width in a table (0: all)"
    )
    parser.add_argument(
        "--progress",
        choices=("auto", "on", "off"),
        default=os.environ.get("PAIMON_SQL_PROGRESS") or "auto",
        help="elapsed time and percentage done of long statements on stderr (default: auto, "
        "when stderr is a terminal; $PAIMON_SQL_PROGRESS sets the default)",
    )
    parser.add_argument("--debug", action="store_true", help="print tracebacks of errors")
    parser.add_argument("--version", action="version", version=version())
    return parser


def version() -> str:
    """``paimon-sql X (duckdb Y, python Z)``: what ``--version`` prints.

    >>> version().startswith("paimon-sql ")
    True
    """
    python = ".".join(map(str, sys.version_info[:3]))
    return f"paimon-sql {_installed('paimon-sql')} (duckdb {_installed('duckdb')}, python {python})"


def _installed(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(source)"


def _run(args: argparse.Namespace) -> int:
    session = _connect(args.warehouse, create=args.create)
    interactive = args.command is None and args.file is None and sys.stdin.isatty()
    settings = Settings(
        mode=args.format,
        timer=args.timer,
        max_rows=args.max_rows,
        max_width=args.max_width,
        progress=_progress(args.progress),
        progress_delay=_delay(os.environ.get("PAIMON_SQL_PROGRESS_DELAY")),
        interactive=interactive,
        debug=args.debug,
    )
    shell = Shell(session, settings)
    try:
        if args.output is not None:
            shell.set_output(args.output)
        if interactive:
            return repl(shell, _banner(session))
        if args.command is not None:
            return 0 if _run_commands(shell, args.command) else 1
        if args.file is not None:
            text = Path(args.file).read_text(encoding="utf-8")
            return 0 if shell.run(text, origin=args.file) else 1
        return 0 if shell.run(sys.stdin.read(), origin="<stdin>") else 1
    finally:
        shell.close()
        session.close()


def _run_commands(shell: Shell, commands: Sequence[str]) -> bool:
    """Each ``-c`` in the order given; the first failure (or ``.quit``) ends the run."""
    for command in commands:
        if not shell.run(command):
            return False
        if shell.quit:
            break
    return True


def _progress(choice: str) -> bool:
    if choice not in ("auto", "on", "off"):
        raise ArgumentError(
            f"--progress / $PAIMON_SQL_PROGRESS: expected auto, on or off, got {choice!r}"
        )
    return sys.stderr.isatty() if choice == "auto" else choice == "on"


def _delay(text: str | None) -> float:
    if not text:
        return 1.0
    try:
        return max(0.0, float(text))
    except ValueError as err:
        raise ArgumentError(f"$PAIMON_SQL_PROGRESS_DELAY: expected seconds, got {text!r}") from err


def _connect(warehouse: str | None, *, create: bool) -> Session:
    if warehouse is None:
        return connect(DEFAULT_WAREHOUSE, create=True)
    try:
        return connect(warehouse, create=create)
    except WarehouseNotFoundError as err:
        raise WarehouseNotFoundError(
            f"warehouse not found: {warehouse} (--create makes a new one)"
        ) from err


def _banner(session: Session) -> str:
    return (
        f"paimon-sql {_installed('paimon-sql')} on warehouse {session.catalog.warehouse}\n"
        'Tables are "db"."table"; end statements with ";". Enter .help for the commands.\n'
    )


__all__ = ["main"]
