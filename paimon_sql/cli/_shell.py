"""`Shell`: runs SQL text through a `Session` and writes each result in the chosen format.

The one place the CLI meets failures: user errors (`PaimonSqlError`, DuckDB's and sqlglot's
errors, files that cannot be read) become one line, ``Error: <message>``, on stderr; anything
else is a bug and says so (with the traceback under ``--debug``).
"""

from __future__ import annotations

import gc
import re
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import sqlglot.errors

from paimon_sql.cli import output
from paimon_sql.cli._commands import Done, Settings, run_command
from paimon_sql.cli._interrupt import Interrupted, WriteWatch
from paimon_sql.cli._spinner import Spinner
from paimon_sql.cli._statements import split_script
from paimon_sql.cli.output import MODES
from paimon_sql.engine.errors import from_sqlglot
from paimon_sql.errors import PaimonSqlError, SqlError
from paimon_sql.sql.session import DuckDBError

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

    from paimon_sql import Relation, Session

# Plain SQL fails with DuckDB's error (duckdb.Error, re-exported by the sql layer).
USER_ERRORS = (PaimonSqlError, DuckDBError, sqlglot.errors.SqlglotError, OSError)
_BATCH_ROWS = 10_000
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Shell:
    """SQL text in, rendered results out; `run` never raises for a failing statement."""

    def __init__(
        self,
        session: Session,
        settings: Settings,
        *,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        """Run statements on `session`, writing results to `stdout` and messages to `stderr`."""
        self.session = session
        self.settings = settings
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self.output_path: Path | None = None
        self._file: TextIO | None = None
        self._tables = 0  # text tables written so far
        self.quit = False  # a script ran ``.quit`` / ``.exit``: nothing after it runs
        # This shell draws its own progress (the spinner, with DuckDB's percentage done when it
        # knows one); DuckDB's own bar would overwrite it.
        if settings.progress:
            session.sql("SET enable_progress_bar = true")
            session.sql("SET enable_progress_bar_print = false")
            session.sql("SET progress_bar_time = 0")
        else:
            session.sql("SET enable_progress_bar = false")

    # --- running ----------------------------------------------------------------------------------

    def run(self, text: str, *, origin: str | None = None) -> bool:
        """Run the statements and dot-commands of `text` in order; True when all ran.

        It stops at the first failure (reported on stderr) or at ``.quit``. `origin` (a file
        name) is added to error messages with the statement's line.
        """
        self._tables = 0
        try:
            items = split_script(text)
        except sqlglot.errors.TokenError as err:
            return self.fail(from_sqlglot(err, text=text))
        failed = False
        for item in items:
            where = None if origin is None else f"{origin}:{item.line}"
            if item.command:
                done = run_command(self, item.text, where=where)
                if done is Done.OK:
                    continue
                failed = done is Done.FAILED
                self.quit = done is Done.QUIT
                break
            try:
                self.execute(item.text)
            except (BrokenPipeError, KeyboardInterrupt):
                raise  # the reader of our output left (head, less), or Ctrl-C: main ends
            except Exception as err:  # noqa: BLE001 - the CLI boundary: report, keep the shell alive
                if isinstance(err, SqlError):  # its position in the script, not in the statement
                    err = err.shifted(item.shift, item.indent)
                failed = not self.fail(err, where=where)
                break
        if failed:
            # A failure's traceback holds the statement's DuckDB objects in reference cycles;
            # collect them now, between statements, not on some thread while the next one runs
            # (DuckDB then finds the connection busy).
            gc.collect()
        return not failed

    def execute(self, text: str) -> None:
        """Run one statement and write its result (raises what the statement raises).

        The statement runs in a worker thread, so that Ctrl-C (KeyboardInterrupt, which reaches
        only the main thread) can interrupt DuckDB's query and come back at once.
        """
        started = time.perf_counter()
        watch = WriteWatch(self.session, text)
        with Spinner(
            self.stderr,
            enabled=self.settings.progress,
            delay=self.settings.progress_delay,
            progress=self._progress,
        ) as spinner:
            self._interruptible(lambda: self._show(self.session.sql(text), spinner), watch)
        if self.settings.timer:
            self.stderr.write(f"Run Time: {time.perf_counter() - started:.3f} s\n")
            self.stderr.flush()

    def fail(self, error: BaseException, *, where: str | None = None) -> bool:
        """Report `error` on stderr (see `report`) and return False."""
        report(error, self.stderr, debug=self.settings.debug, where=where)
        return False

    def _progress(self) -> float:
        """DuckDB's percentage done of the query running now (-1: unknown)."""
        return float(self.session.con.query_progress())

    def _interruptible(self, work: Callable[[], None], watch: WriteWatch) -> None:
        failure: list[BaseException] = []
        # Its own event, not Thread.join: on Python 3.11 a Ctrl-C inside join() can mark a thread
        # that still runs as stopped (CPython gh-90882), and the shell would go on while the
        # statement still holds the connection.
        done = threading.Event()

        def run() -> None:
            try:
                work()
            except BaseException as err:  # noqa: BLE001 - handed to the main thread, which raises it
                failure.append(err)
            finally:
                done.set()

        threading.Thread(target=run, name="paimon-sql-statement", daemon=True).start()
        interrupted = False
        try:
            while not done.wait(0.1):
                pass
        except KeyboardInterrupt:
            interrupted = True
        if interrupted:  # out of the except block: no traceback of it keeps DuckDB objects alive
            self.session.con.interrupt()  # a Paimon commit in progress still finishes
            _finish(done, self.session.con.interrupt)
            failure.clear()  # nothing to report; its DuckDB objects are collected right away
            gc.collect()
            raise Interrupted(watch.outcome())
        if failure:
            raise failure[0]

    # --- output -----------------------------------------------------------------------------------

    def set_output(self, path: str | None) -> None:
        """Send results to file `path` (truncated), or back to stdout when None.

        A file that cannot be opened raises, and the output stays where it was.
        """
        target = None if path is None else Path(path)
        opened = None
        if target is not None and self.settings.mode != "parquet":
            opened = target.open("w", encoding="utf-8", newline="")
        self.close()
        self.output_path, self._file = target, opened

    def close(self) -> None:
        """Close the output file, if any."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def _sink(self) -> TextIO:
        if self.output_path is None:
            return self.stdout
        if self._file is None:
            self._file = self.output_path.open("w", encoding="utf-8", newline="")
        return self._file

    def _write(self, text: str) -> None:
        sink = self._sink()
        sink.write(text)
        sink.flush()

    def _show(self, relation: Relation | None, spinner: Spinner) -> None:
        if relation is None or relation.relation is None:
            return
        reader = relation.to_arrow_reader(_BATCH_ROWS)
        if self.settings.mode == "table":
            self._show_table(reader, spinner)
        elif self.settings.mode == "parquet":
            self._write_parquet(reader.read_all(), spinner)
        else:
            self._stream(reader, spinner)

    def _show_table(self, reader: pa.RecordBatchReader, spinner: Spinner) -> None:
        limit = self.settings.max_rows
        head: list[pa.RecordBatch] = []
        shown = total = 0
        for batch in reader:
            keep = batch.num_rows if limit <= 0 else min(batch.num_rows, limit - shown)
            if keep > 0:
                head.append(batch.slice(0, keep))
                shown += keep
            total += batch.num_rows
        table = pa.Table.from_batches(head, schema=reader.schema)
        text = output.render_table(table, total_rows=total, max_width=self.settings.max_width)
        spinner.stop()
        self._write(("\n" if self._tables else "") + text)  # a blank line between two tables
        self._tables += 1

    def _stream(self, reader: pa.RecordBatchReader, spinner: Spinner) -> None:
        first = True
        for batch in reader:
            spinner.stop()
            self._write(self._render_text(pa.Table.from_batches([batch]), header=first))
            first = False
        if first:
            spinner.stop()
            self._write(self._render_text(reader.schema.empty_table(), header=True))

    def _render_text(self, table: pa.Table, *, header: bool) -> str:
        if self.settings.mode == "csv":
            return output.render_csv(table, header=header)
        return output.render_json_lines(table)

    def _write_parquet(self, table: pa.Table, spinner: Spinner) -> None:
        assert self.output_path is not None, "parquet mode needs an output file"
        data = output.render_parquet(table)
        spinner.stop()
        self.close()  # a text output open on the same file (an earlier .mode) would write over it
        self.output_path.write_bytes(data)
        if self.settings.interactive:
            rows = "1 row" if table.num_rows == 1 else f"{table.num_rows} rows"
            self.stderr.write(f"({rows} written to {self.output_path})\n")


def _finish(done: threading.Event, interrupt: Callable[[], None]) -> None:
    """Wait for the statement: leaving while it commits would not stop the commit, only hide it."""
    while not done.is_set():
        try:
            done.wait(0.1)
        except KeyboardInterrupt:
            interrupt()


def report(error: BaseException, stream: TextIO, *, debug: bool, where: str | None = None) -> None:
    r"""Write ``Error: <message>`` to `stream`; a bug says so, with its traceback when `debug`.

    >>> import io
    >>> stream = io.StringIO()
    >>> report(KeyError("k"), stream, debug=False, where="q.sql:3")
    >>> stream.getvalue()
    "Error: internal error: KeyError: 'k' (q.sql:3) (run with --debug for the traceback)\n"
    """
    if debug:
        traceback.print_exception(error, file=stream)
    message = describe(error)
    location = "" if where is None else f" ({where})"
    if message is None:
        hint = "" if debug else " (run with --debug for the traceback)"
        message = f"internal error: {type(error).__name__}: {_one_line(str(error))}{location}{hint}"
    else:
        message += location
    stream.write(f"Error: {message}\n")
    stream.flush()


def describe(error: BaseException) -> str | None:
    """The one-line message of a user error, or None for anything else (a bug).

    >>> describe(FileNotFoundError(2, "No such file or directory", "q.sql"))
    'No such file or directory: q.sql'
    >>> describe(SqlError("unknown procedure sys.x", line=1, col=6))
    'unknown procedure sys.x (line 1, column 6)'
    >>> describe(KeyError("oops")) is None
    True
    """
    if not isinstance(error, USER_ERRORS):
        return None
    if isinstance(error, OSError) and error.strerror and error.filename:
        return f"{error.strerror}: {error.filename}"
    text = str(error)
    if isinstance(error, sqlglot.errors.SqlglotError):
        text = text.split("\n", 1)[0]  # the rest echoes the query, underlined with colour codes
    message = _one_line(text)
    if isinstance(error, SqlError) and error.line is not None and "line" not in message.lower():
        column = "" if error.col is None else f", column {error.col}"
        message += f" (line {error.line}{column})"
    return message


def _one_line(message: str) -> str:
    r"""`message` on one line, without colour codes and DuckDB's echo of the query (``LINE 1:``).

    >>> _one_line('Parser Error: syntax error at or near "+"\n\nLINE 1: select 1 +\n        ^')
    'Parser Error: syntax error at or near "+"'
    """
    lines = []
    for line in _ANSI.sub("", message).splitlines():
        if line.startswith(("LINE ", "Detail: Python exception")):
            break
        if line.strip():
            lines.append(line.strip())
    return " ".join(lines) or message.strip()


__all__ = ["MODES", "USER_ERRORS", "Settings", "Shell", "describe", "report"]
