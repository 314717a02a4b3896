"""The interactive prompt: readline editing, persistent history, statements over several lines.

A statement runs once a line ends it with ``;`` (outside strings and comments); until then the
prompt is ``   ...> ``. A multi-line statement goes into the history as one entry, so up-arrow
brings it back whole. The history file is ``$PAIMON_SQL_HISTORY`` (empty: none), else
``~/.paimon_sql_history``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paimon_sql.cli._commands import dot_command
from paimon_sql.cli._interrupt import Interrupted
from paimon_sql.cli._statements import is_complete

if TYPE_CHECKING:
    from paimon_sql.cli._shell import Shell

PROMPT = "paimon> "
CONTINUATION = "   ...> "
HISTORY_LENGTH = 1000


def history_path() -> Path | None:
    """Where the history lives: ``$PAIMON_SQL_HISTORY`` (empty: nowhere), else the home folder.

    >>> default = Path(os.environ.get("PAIMON_SQL_HISTORY") or "~/.paimon_sql_history")
    >>> history_path() == default.expanduser()
    True
    """
    configured = os.environ.get("PAIMON_SQL_HISTORY")
    if configured == "":
        return None
    return Path(configured or "~/.paimon_sql_history").expanduser()


def repl(shell: Shell, banner: str) -> int:
    """Read statements and dot-commands until ``.quit`` or end of input; returns the exit code 0."""
    history = _History(history_path())
    shell.stdout.write(banner)
    buffer: list[str] = []
    start = history.length()
    while True:
        try:
            line = input(CONTINUATION if buffer else PROMPT)
        except EOFError:
            shell.stdout.write("\n")
            break
        except KeyboardInterrupt:
            shell.stdout.write("^C\n")
            buffer.clear()
            start = history.length()  # the dropped lines stay separate entries
            continue
        if not buffer and line.lstrip().startswith("."):
            if not dot_command(shell, line):
                break
            start = history.length()
            continue
        buffer.append(line)
        text = "\n".join(buffer)
        if not is_complete(text):
            continue
        buffer.clear()
        history.squash(start)
        _run(shell, text)
        start = history.length()
    history.save()
    return 0


def _run(shell: Shell, text: str) -> None:
    try:
        shell.run(text)
    except Interrupted as err:
        shell.stderr.write(f"{err.message}\n")
    except KeyboardInterrupt:
        shell.stderr.write("Interrupted\n")


class _History:
    """The readline history, when readline is there (not on Windows), kept in a file."""

    def __init__(self, path: Path | None) -> None:
        try:
            import readline  # an optional stdlib module: missing on Windows
        except ImportError:
            readline = None
        self._readline: Any = readline
        self._path = path
        if readline is None or path is None:
            return
        readline.set_history_length(HISTORY_LENGTH)
        if path.exists():
            with contextlib.suppress(OSError):  # an unreadable history should not stop a prompt
                readline.read_history_file(path)

    def length(self) -> int:
        return 0 if self._readline is None else int(self._readline.get_current_history_length())

    def squash(self, start: int) -> None:
        """Replace the lines entered since history position `start` by one entry."""
        if self._readline is None:
            return
        end = self.length()
        if end - start < 2:
            return
        lines = [self._readline.get_history_item(i) for i in range(start + 1, end + 1)]
        for position in range(end - 1, start - 1, -1):
            self._readline.remove_history_item(position)
        # Line comments would swallow what follows them on one line: keep those lines apart.
        joiner = "\n" if any("--" in line for line in lines) else " "
        self._readline.add_history(joiner.join(line.strip() for line in lines))

    def save(self) -> None:
        if self._readline is None or self._path is None:
            return
        with contextlib.suppress(OSError):  # e.g. a read-only home: history is a nicety
            self._readline.write_history_file(self._path)
