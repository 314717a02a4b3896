"""The interactive shell's dot-commands (``.help``, ``.tables``, ``.mode`` ...), as in sqlite3."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from paimon_sql.cli._shell import MODES

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_sql.cli._shell import Shell

HELP = """\
SQL statements end with ';' and may span lines. Paimon tables are "db"."table".
.help                     this text
.tables [DB]              the Paimon tables of the warehouse (of database DB)
.mode [table|csv|json|parquet]
                          show or set the result format (json: one object per line;
                          parquet needs .output FILE and replaces FILE on every result)
.output [FILE]            write results to FILE (truncated), or back to the screen
.timer on|off             print each statement's run time
.maxrows N                rows a table shows (0: all)
.maxwidth N               characters a table cell shows (0: all)
.read FILE                run the statements of FILE
.quit                     leave (also .exit or Ctrl-D); Ctrl-C drops the statement typed
"""


def dot_command(shell: Shell, line: str) -> bool:
    """Run one dot-command line; False when the shell should end.

    >>> import io
    >>> class Stub:  # only the attributes `.help` uses
    ...     stdout = io.StringIO()
    >>> dot_command(Stub(), ".help"), ".tables" in Stub.stdout.getvalue(), dot_command(Stub(), ".q")
    (True, True, False)
    """
    try:
        name, *args = shlex.split(line.strip())
    except ValueError as err:
        return _error(shell, f"{line.strip()}: {err}")
    if name in (".quit", ".exit", ".q"):
        return False
    handler = _COMMANDS.get(name)
    if handler is None:
        return _error(shell, f"unknown command {name} (.help lists the commands)")
    try:
        message = handler(shell, args)
    except Exception as err:  # noqa: BLE001 - the CLI boundary (a missing database, an unwritable file ...)
        shell.fail(err)
        return True
    if message is not None:
        _error(shell, message)
    return True


def _error(shell: Shell, message: str) -> bool:
    shell.stderr.write(f"Error: {message}\n")
    shell.stderr.flush()
    return True


def _help(shell: Shell, args: list[str]) -> str | None:
    shell.stdout.write(HELP)
    return None


def _tables(shell: Shell, args: list[str]) -> str | None:
    catalog = shell.session.catalog
    databases = args or catalog.databases()
    for database in databases:
        for table in catalog.tables(database):
            shell.stdout.write(f"{database}.{table}\n")
    return None


def _mode(shell: Shell, args: list[str]) -> str | None:
    if not args:
        shell.stdout.write(shell.settings.mode + "\n")
        return None
    if len(args) != 1 or args[0] not in MODES:
        return f"usage: .mode {'|'.join(MODES)}"
    if args[0] == "parquet" and shell.output_path is None:
        return "parquet output needs a file: .output FILE first"
    shell.settings.mode = args[0]
    return None


def _output(shell: Shell, args: list[str]) -> str | None:
    if len(args) > 1:
        return "usage: .output [FILE]"
    if not args and shell.settings.mode == "parquet":
        return "parquet can't go to the screen: .mode table (or csv, json) first"
    shell.set_output(args[0] if args else None)
    return None


def _timer(shell: Shell, args: list[str]) -> str | None:
    if args not in (["on"], ["off"]):
        return "usage: .timer on|off"
    shell.settings.timer = args[0] == "on"
    return None


def _number(shell: Shell, args: list[str], field: str) -> str | None:
    if len(args) != 1 or not args[0].isdigit():
        return f"usage: .{field.replace('_', '')} N (0: no limit)"
    setattr(shell.settings, field, int(args[0]))
    return None


def _read(shell: Shell, args: list[str]) -> str | None:
    if len(args) != 1:
        return "usage: .read FILE"
    shell.run(Path(args[0]).read_text(encoding="utf-8"), origin=args[0])
    return None


_COMMANDS: dict[str, Callable[[Shell, list[str]], str | None]] = {
    ".help": _help,
    ".tables": _tables,
    ".mode": _mode,
    ".output": _output,
    ".timer": _timer,
    ".maxrows": lambda shell, args: _number(shell, args, "max_rows"),
    ".maxwidth": lambda shell, args: _number(shell, args, "max_width"),
    ".read": _read,
}
