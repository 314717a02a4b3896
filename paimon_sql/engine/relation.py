"""`Relation`: a DuckDB relation whose failures come back as paimon-sql errors.

DuckDB runs a source's stream inside its own executor and re-raises a failure as
``InvalidInputException`` carrying only the text. The sources record the original error
(`ErrorLog`), and `Relation` re-raises it, so callers can catch `TableNotFoundError`,
`DataFileNotFoundError`, `SpecViolationError` ... as documented. Any other DuckDB error becomes an
`ExecutionError` whose message names the user's tables, not the hidden sources. Everything else is
DuckDB's relation API, unchanged.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections import deque
from typing import TYPE_CHECKING, Any

import duckdb

from paimon_sql.engine.damage import data_file_error
from paimon_sql.engine.errors import from_duckdb
from paimon_sql.errors import SqlError

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from paimon_sql.errors import PaimonSqlError
    from paimon_sql.plan.scan import ScanPlan


class ErrorLog:
    """The latest errors raised inside source streams, for `Relation` to re-raise."""

    #: Hidden source names remembered (the oldest are forgotten first).
    NAMES_KEPT = 4096

    def __init__(self) -> None:
        """An empty log."""
        self._errors: deque[PaimonSqlError] = deque(maxlen=16)
        self._plans: deque[ScanPlan] = deque(
            maxlen=8
        )  # the latest reads, to find a damaged data file
        self._lock = threading.Lock()
        self._names: dict[str, str] = {}

    def name(self, hidden: str, shown: str) -> None:
        """Remember that the hidden source `hidden` is the user's table `shown` (for messages)."""
        with self._lock:
            self._names[hidden] = shown
            while len(self._names) > self.NAMES_KEPT:
                del self._names[next(iter(self._names))]

    def reading(self, plan: ScanPlan) -> None:
        """Remember a plan being read.

        A DuckDB error about an unnamed damaged file is traced to its files.
        """
        with self._lock:
            self._plans.append(plan)

    def record(self, error: PaimonSqlError) -> None:
        """Remember an error a stream raised."""
        with self._lock:
            self._errors.append(error)

    def original(self, error: BaseException) -> PaimonSqlError | None:
        """The recorded error whose message DuckDB's error carries."""
        text = str(error)
        with self._lock:
            for candidate in reversed(self._errors):
                if str(candidate) and str(candidate) in text:
                    return candidate
            plans = list(self._plans)
        return data_file_error(error, plans)

    def translate(self, error: duckdb.Error) -> PaimonSqlError:
        """The paimon-sql error for a DuckDB error: the recorded original, else `ExecutionError`."""
        original = self.original(error)
        if original is not None:
            return original
        with self._lock:
            names = dict(self._names)
        return from_duckdb(error, names)


class Relation:
    """Proxy of a `duckdb.DuckDBPyRelation` (every method and attribute) with paimon-sql errors.

    `Session.sql` returns one. A method returning a relation returns a `Relation` again.

    Examples:
        >>> session = paimon_sql.connect(warehouse)
        >>> rel = session.sql("SELECT * FROM db.t")
        >>> rel.columns, rel.filter("id > 1").fetchall()
        (['id', 'name'], [(2, 'B')])
        >>> rel.filter("no_such_column > 1")
        Traceback (most recent call last):
        ...
        paimon_sql.errors.ExecutionError: ...no_such_column...
        >>> import pyarrow as pa
        >>> pa.table(rel).num_rows
        2
    """

    __slots__ = ("_log", "_rel", "_scope")

    def __init__(
        self,
        rel: duckdb.DuckDBPyRelation,
        log: ErrorLog,
        scope: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext,
    ) -> None:
        """Wrap `rel`; `log` holds errors of this session's sources.

        Each call runs inside `scope()` (the warehouse FileIO's `statement`: an object store
        lists a table's metadata once while DuckDB binds and reads it).
        """
        self._rel = rel
        self._log = log
        self._scope = scope

    @property
    def relation(self) -> duckdb.DuckDBPyRelation:
        """The underlying DuckDB relation.

        Examples:
            >>> rel = paimon_sql.connect(warehouse).sql("SELECT 1 AS x")
            >>> type(rel.relation).__name__
            'DuckDBPyRelation'
        """
        return self._rel

    def _translate(self, err: duckdb.Error) -> BaseException:
        return self._log.translate(err)

    def __getattr__(self, name: str) -> Any:
        if self._rel is None:  # text holding no statement (blank, only comments) gives no relation
            raise SqlError(f"the statement returned no rows, so the result has no {name!r}")
        value = getattr(self._rel, name)
        if not callable(value):
            return value

        @functools.wraps(value)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                with self._scope():
                    result = value(*args, **kwargs)
            except duckdb.Error as err:
                raise self._translate(err) from err
            if isinstance(result, duckdb.DuckDBPyRelation):
                return Relation(result, self._log, self._scope)
            return result

        return call

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> Any:
        """Arrow PyCapsule export (so pyarrow/polars can consume the relation)."""
        try:
            return self._rel.__arrow_c_stream__(requested_schema)
        except duckdb.Error as err:
            raise self._translate(err) from err

    def __repr__(self) -> str:
        return repr(self._rel)

    def __str__(self) -> str:
        return str(self._rel)
