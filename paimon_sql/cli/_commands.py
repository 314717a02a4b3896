"""The shell's dot-commands (``.help``, ``.tables``, ``.mode`` ...), as in sqlite3.

They change the `Settings`, and run at the prompt and in scripts (``-c``, ``-f``, stdin,
``.read``) alike. The shell they act on is described by `Console` (the `Shell` of ``_shell``,
which imports this module).
"""

from __future__ import annotations

import dataclasses
import enum
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from paimon_sql.catalog import Identifier
from paimon_sql.catalog.tree import tree_lines
from paimon_sql.cli.output import MODES
from paimon_sql.commit.check import ERROR, check_table
from paimon_sql.engine.debug import resolve_version
from paimon_sql.sql.statements.catalog_ddl import show_create_table

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

    from paimon_sql import Session


@dataclasses.dataclass(slots=True, kw_only=True)
class Settings:
    """What the dot-commands and options change."""

    mode: str = "table"
    timer: bool = False
    max_rows: int = 1000  # rows a text table shows (0: all)
    max_width: int = 40  # columns a text table cell shows (0: all)
    progress: bool = False  # the elapsed time and percentage done, on stderr
    progress_delay: float = 1.0  # seconds a statement runs before the progress shows
    interactive: bool = False
    debug: bool = False


class Done(enum.Enum):
    """How a dot-command ended."""

    OK = "ok"
    FAILED = "failed"  # reported on stderr; a script stops here
    QUIT = "quit"  # .quit / .exit: the prompt or the script ends


class Console(Protocol):
    """What the dot-commands use of the shell."""

    session: Session
    settings: Settings
    stdout: TextIO
    stderr: TextIO
    output_path: Path | None

    def set_output(self, path: str | None) -> None:
        """Send results to file `path`, or to the screen (None)."""

    def run(self, text: str, *, origin: str | None = None) -> bool:
        """Run a script; False when a statement or command in it failed."""

    def fail(self, error: BaseException, *, where: str | None = None) -> bool:
        """Report `error` on stderr."""


HELP = """\
SQL statements end with ';' and may span lines. Paimon tables are "db"."table".
Dot-commands take one line (or end at ';'), at the prompt and in -c, -f and .read scripts.
.help                     this text
.tables [DB]              the Paimon tables of the warehouse (of database DB)
.schema [DB | DB.TABLE]   the CREATE TABLE statement of each table (of DB, or one)
.mode [table|csv|json|parquet]
                          show or set the result format (json: one object per line;
                          parquet needs .output FILE and replaces FILE on every result)
.output [FILE]            write results to FILE (truncated), or back to the screen
.timer on|off             print each statement's run time
.maxrows N                rows a table shows (0: all)
.maxwidth N               characters a table cell shows (0: all)
.read FILE                run the statements of FILE
.tree DB.TABLE [VERSION]  the snapshot (id or tag; default the latest) as a tree of
                          manifest lists, manifests and files
.check DB.TABLE [deep]    CALL sys.check_table: a line per problem; fails (exit code 1)
                          when the table is damaged
.quit                     leave (also .exit or Ctrl-D); Ctrl-C drops the statement typed
"""


def dot_command(shell: Console, line: str) -> bool:
    """Run one dot-command line; False when the shell should end (see `run_command`).

    >>> import io
    >>> class Stub:  # only the attributes `.help` uses
    ...     stdout = io.StringIO()
    >>> dot_command(Stub(), ".help"), ".tables" in Stub.stdout.getvalue(), dot_command(Stub(), ".q")
    (True, True, False)
    """
    return run_command(shell, line) is not Done.QUIT


def run_command(shell: Console, line: str, *, where: str | None = None) -> Done:
    r"""Run one dot-command line; a failure is reported on stderr (with `where`, a file:line).

    >>> import io
    >>> class Stub:
    ...     stdout, stderr = io.StringIO(), io.StringIO()
    >>> run_command(Stub(), ".nope", where="q.sql:2"), Stub.stderr.getvalue()
    (<Done.FAILED: 'failed'>, 'Error: unknown command .nope (.help lists the commands) (q.sql:2)\n')
    """
    try:
        name, *args = shlex.split(line.strip())
    except ValueError as err:
        return _error(shell, f"{line.strip()}: {err}", where)
    if name in (".quit", ".exit", ".q"):
        return Done.QUIT
    handler = _COMMANDS.get(name)
    if handler is None:
        return _error(shell, f"unknown command {name} (.help lists the commands)", where)
    try:
        message = handler(shell, args)
    except Exception as err:  # noqa: BLE001 - the CLI boundary (a missing database, an unwritable file ...)
        shell.fail(err, where=where)
        return Done.FAILED
    if message is None:
        return Done.OK
    return Done.FAILED if message == _FAILED else _error(shell, message, where)


#: A handler's answer when it failed and said so already (``.read`` of a failing script).
_FAILED = ""


def _error(shell: Console, message: str, where: str | None = None) -> Done:
    location = "" if where is None else f" ({where})"
    shell.stderr.write(f"Error: {message}{location}\n")
    shell.stderr.flush()
    return Done.FAILED


def _help(shell: Console, args: list[str]) -> str | None:
    shell.stdout.write(HELP)
    return None


def _tables(shell: Console, args: list[str]) -> str | None:
    catalog = shell.session.catalog
    databases = args or catalog.databases()
    for database in databases:
        for table in catalog.tables(database):
            shell.stdout.write(f"{database}.{table}\n")
    return None


def _schema(shell: Console, args: list[str]) -> str | None:
    if len(args) > 1:
        return "usage: .schema [DB | DB.TABLE]"
    catalog = shell.session.catalog
    if args and "." in args[0]:  # matched as DuckDB matches names (``Shop.Orders``)
        names = [Identifier.parse(shell.session.table(args[0]).name)]
    else:
        databases = args or catalog.databases()
        names = [Identifier(database=d, table=t) for d in databases for t in catalog.tables(d)]
    for ident in names:
        ((statement,),) = show_create_table(shell.session, ident).fetchall()
        shell.stdout.write(f"{statement};\n")
    return None


def _mode(shell: Console, args: list[str]) -> str | None:
    if not args:
        shell.stdout.write(shell.settings.mode + "\n")
        return None
    if len(args) != 1 or args[0] not in MODES:
        return f"usage: .mode {'|'.join(MODES)}"
    if args[0] == "parquet" and shell.output_path is None:
        return "parquet output needs a file: .output FILE first"
    shell.settings.mode = args[0]
    return None


def _output(shell: Console, args: list[str]) -> str | None:
    if len(args) > 1:
        return "usage: .output [FILE]"
    if not args and shell.settings.mode == "parquet":
        return "parquet can't go to the screen: .mode table (or csv, json) first"
    shell.set_output(args[0] if args else None)
    return None


def _timer(shell: Console, args: list[str]) -> str | None:
    if args not in (["on"], ["off"]):
        return "usage: .timer on|off"
    shell.settings.timer = args[0] == "on"
    return None


def _number(shell: Console, args: list[str], field: str) -> str | None:
    if len(args) != 1 or not args[0].isdigit():
        return f"usage: .{field.replace('_', '')} N (0: no limit)"
    setattr(shell.settings, field, int(args[0]))
    return None


def _read(shell: Console, args: list[str]) -> str | None:
    if len(args) != 1:
        return "usage: .read FILE"
    ok = shell.run(Path(args[0]).read_text(encoding="utf-8"), origin=args[0])
    return None if ok else _FAILED


def _tree(shell: Console, args: list[str]) -> str | None:
    if len(args) not in (1, 2):
        return "usage: .tree DB.TABLE [SNAPSHOT_ID | TAG]"
    table = shell.session.table(args[0])
    snapshot = resolve_version(table, args[1] if len(args) == 2 else None, ".tree")
    for line in tree_lines(table, snapshot):
        shell.stdout.write(line + "\n")
    return None


def _check(shell: Console, args: list[str]) -> str | None:
    if len(args) not in (1, 2) or (len(args) == 2 and args[1] != "deep"):
        return "usage: .check DB.TABLE [deep]"
    table = shell.session.table(args[0])
    problems = check_table(table, deep=len(args) == 2)
    for p in problems:
        version = "" if p.version is None else f" (version {p.version})"
        shell.stdout.write(f"{p.severity}: {p.check}: {p.file}{version}: {p.problem}\n")
    errors = sum(p.severity == ERROR for p in problems)
    if not errors:
        shell.stdout.write(f"{table.name}: intact ({len(problems)} warnings)\n")
        return None
    return f"{table.name} is damaged: {errors} problems (above)"


_COMMANDS: dict[str, Callable[[Console, list[str]], str | None]] = {
    ".help": _help,
    ".tables": _tables,
    ".schema": _schema,
    ".mode": _mode,
    ".output": _output,
    ".timer": _timer,
    ".maxrows": lambda shell, args: _number(shell, args, "max_rows"),
    ".maxwidth": lambda shell, args: _number(shell, args, "max_width"),
    ".read": _read,
    ".tree": _tree,
    ".check": _check,
}
