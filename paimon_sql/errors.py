"""Every exception paimon-sql raises; `Error` (also named `PaimonSqlError`) is the one root.

A caller catches ``paimon_sql.errors.Error`` once. Where a builtin fits, the error subclasses it
too, so ``except LookupError`` keeps working.

DuckDB's and sqlglot's errors do not escape a `Session`: ``Session.sql`` and the relations it
returns raise `ExecutionError` with DuckDB's message (internal names replaced by the user's, a
syntax error's line and column appended), and sqlglot's become `SqlError`. On a plain DuckDB
connection that `paimon_sql.install` set up, DuckDB is the API: its statements raise
``duckdb.Error`` as always, with the paimon-sql message inside.

>>> issubclass(TableNotFoundError, (Error, LookupError)), Error is PaimonSqlError
(True, True)
"""

from __future__ import annotations


class PaimonSqlError(Exception):
    """The root of every paimon-sql error.

    Examples:
        >>> try:
        ...     paimon_sql.connect(warehouse).sql("SELECT * FROM db.missing")
        ... except PaimonSqlError as err:
        ...     print(type(err).__name__, isinstance(err, LookupError))
        TableNotFoundError True
    """


#: The root under its short name: ``except paimon_sql.errors.Error`` catches every paimon-sql error.
Error = PaimonSqlError


class NotFoundError(PaimonSqlError, LookupError):
    """Something named by the user does not exist."""


class WarehouseNotFoundError(NotFoundError):
    """The warehouse folder does not exist."""


class DatabaseNotFoundError(NotFoundError):
    """No `<db>.db` folder in the warehouse."""


class TableNotFoundError(NotFoundError):
    """No table of that name in the database."""


class SnapshotNotFoundError(NotFoundError):
    """The snapshot id, tag or timestamp selects nothing."""


class AlreadyExistsError(PaimonSqlError):
    """A database, table or tag of that name exists already."""


class SpecViolationError(PaimonSqlError, ValueError):
    """Bytes or JSON on disk break the Paimon format: corrupt, truncated or unknown."""


class DataFileNotFoundError(PaimonSqlError, FileNotFoundError):
    """A file that metadata references is missing from storage."""


class UnsupportedFeatureError(PaimonSqlError, NotImplementedError):
    """A valid Paimon feature paimon-sql does not implement (yet)."""


class OptionError(PaimonSqlError, ValueError):
    """An unknown table option, or a value or combination of options that is not allowed."""


class SchemaError(PaimonSqlError, ValueError):
    """A column, type or key does not fit the table schema."""


class CommitConflictError(PaimonSqlError):
    """A concurrent commit conflicts with this one; the statement made no snapshot."""


class CommitStateUnknownError(PaimonSqlError):
    """The commit may or may not have landed (storage failed mid-way)."""


class SqlError(PaimonSqlError):
    """A statement that does not parse or cannot be executed, with its position when known.

    The message ends with the position (1-based), which `line` and `col` also hold:

    >>> err = SqlError("syntax error at or near '+'", line=2, col=5)
    >>> str(err), err.line, err.col
    ("syntax error at or near '+' (line 2, column 5)", 2, 5)
    """

    def __init__(self, message: str, *, line: int | None = None, col: int | None = None) -> None:
        """Keep the position sqlglot or DuckDB reported."""
        self.problem = message
        if line is not None:
            message += f" (line {line})" if col is None else f" (line {line}, column {col})"
        super().__init__(message)
        self.line = line
        self.col = col

    def shifted(self, lines: int, columns: int = 0) -> SqlError:
        """This error where it is in a script that the statement was cut from.

        The statement began `columns` characters into line ``lines + 1`` of the script.

        >>> str(SqlError("syntax error", line=1, col=5).shifted(3, 10))
        'syntax error (line 4, column 15)'
        >>> str(SqlError("syntax error", line=2, col=5).shifted(3, 10))
        'syntax error (line 5, column 5)'
        """
        if self.line is None or (lines, columns) == (0, 0):
            return self
        col = self.col
        if col is not None and self.line == 1:
            col += columns
        moved = type(self).__new__(type(self))
        moved.__dict__.update(self.__dict__)
        SqlError.__init__(moved, self.problem, line=self.line + lines, col=col)
        return moved


class ArgumentError(PaimonSqlError, ValueError):
    """A value the user gave (procedure argument, time-travel value, name) is not valid."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An API argument of the wrong type (``snapshot="1"`` or ``True`` for a snapshot id)."""


class ExecutionError(SqlError):
    """DuckDB could not run a statement: its message, internal names replaced by the user's."""


class MissingDependencyError(PaimonSqlError, ImportError):
    """An optional extra is needed, e.g. ``pip install 'paimon-sql[spark]'``."""


class InvalidNameError(ArgumentError):
    """A database, table, branch or tag name that is not an identifier (a path, empty, too long)."""


class PathEscapeError(PaimonSqlError):
    """A path from an option or metadata leads out of where it belongs: refused, never followed.

    It would leave the table folder (or a configured external root), or leads out of the
    warehouse through a symbolic link.
    """


class CorruptFileError(SpecViolationError):
    """A metadata or data file is damaged.

    Truncated, altered, inconsistent with what references it.

    `path` names the file. The message says what is wrong and how to get past it.

    >>> err = CorruptFileError("/wh/db.db/t/snapshot/snapshot-3", "id is 2, the file name says 3")
    >>> err.path, isinstance(err, SpecViolationError)
    ('/wh/db.db/t/snapshot/snapshot-3', True)
    """

    def __init__(self, path: str, problem: str = "") -> None:
        """`problem` says what is wrong with the file at `path`."""
        super().__init__(f"damaged file {path}: {problem}" if problem else path)
        self.path = path
        self.problem = problem


class StorageError(PaimonSqlError, OSError):
    """An object store (or remote filesystem) request failed.

    Unreachable endpoint, a store that cannot do what a write needs (conditional puts) ... The
    message names the URI.
    """


class StorageAccessError(StorageError, PermissionError):
    """The object store refused the credentials (missing, wrong or without the permission)."""
