"""What a Ctrl-C left behind: whether the interrupted statement had committed its snapshot.

A write commits one snapshot at its end (and, on deletion-vector and first-row tables, a compaction
snapshot after it). Ctrl-C interrupts DuckDB's query; a commit already under way still finishes. So
the shell looks at the statement's table: the latest snapshot before the statement and after the
interrupt tell "nothing written" from "committed snapshot N".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from paimon_sql.catalog import Identifier
from paimon_sql.errors import PaimonSqlError
from paimon_sql.sql.dialect import parse_call, quiet_sqlglot
from paimon_sql.sql.session import DuckDBError

if TYPE_CHECKING:
    from paimon_sql import Session
    from paimon_sql.catalog import Table

#: The first word of a statement that may commit a snapshot.
_WRITES = frozenset({"INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "CREATE", "CALL"})
_FIRST_WORD = re.compile(r"(?:\s+|--[^\n]*|/\*.*?\*/)*(\w+)", re.S)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a statement; `message` says what it left behind."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class WriteWatch:
    """The latest snapshot of the table a statement writes, taken before it runs.

    >>> watch = WriteWatch(paimon_sql.connect(warehouse), "SELECT 1")
    >>> watch.outcome()
    'Interrupted'
    """

    def __init__(self, session: Session, text: str) -> None:
        """Look up the table `text` writes (none for a query) and its latest snapshot."""
        self._ident = _target(session, text)
        self._session = session
        self._before = None if self._ident is None else _latest(session, self._ident)

    def outcome(self) -> str:
        """What the statement left, for the user: nothing written, or the snapshot it committed."""
        if self._ident is None:
            return "Interrupted"
        after = _latest(self._session, self._ident)
        if after == self._before:
            return f"Interrupted before commit: nothing written to {self._ident}"
        return f"Interrupted, but {self._ident} had committed snapshot {after} before the interrupt"


def _latest(session: Session, ident: Identifier) -> int | None:
    try:
        table: Table = session.catalog.load_table(ident)
        return table.latest_snapshot_id()
    except (PaimonSqlError, OSError):
        return None  # not there (yet: CREATE TABLE … AS), or storage failed: nothing to say


def _target(session: Session, text: str) -> Identifier | None:
    """The Paimon table `text` (one statement) writes to, or None."""
    word = _FIRST_WORD.match(text)
    if word is None or word[1].upper() not in _WRITES:
        return None
    default = session.engine.current_schema() or "default"
    try:
        name = _call_table(text) if word[1].upper() == "CALL" else _table_name(text)
        if name is None:
            return None
        ident = Identifier.parse(name, default)
        if not session.catalog.has_database(ident.database):
            return None
    except (PaimonSqlError, sqlglot.errors.SqlglotError, DuckDBError, OSError):
        return None  # not a Paimon table (a DuckDB one), or the statement itself is wrong
    return ident


def _call_table(text: str) -> str | None:
    call = parse_call(text)
    if call is None:
        return None
    for argument in call.expressions:
        named = isinstance(argument, exp.Kwarg)
        if named and argument.name.lower() != "table":
            continue
        value = argument.expression if named else argument
        return value.name if isinstance(value, exp.Literal) and value.is_string else None
    return None


def _table_name(text: str) -> str | None:
    with quiet_sqlglot():
        statement = sqlglot.parse_one(text, read="duckdb")
    target: Any = None
    if isinstance(statement, exp.TruncateTable):
        target = statement.expressions[0] if statement.expressions else None
    elif isinstance(statement, (exp.Insert, exp.Update, exp.Delete, exp.Merge)):
        target = statement.this
    elif isinstance(statement, exp.Create) and statement.expression is not None:
        temporary = statement.find(exp.TemporaryProperty) is not None
        target = None if temporary else statement.this  # CREATE TABLE … AS SELECT
    if isinstance(target, exp.Schema):
        target = target.this
    if not isinstance(target, exp.Table) or target.catalog:
        return None
    return f"{target.db}.{target.name}" if target.db else target.name
