r"""DuckDB's and sqlglot's exceptions as paimon-sql errors, in the user's words.

A statement over Paimon tables runs as rewritten SQL: tables become hidden sources (``__paimon_3``)
or inlined merge queries, an INSERT's rows a subquery ``__paimon_src`` with columns ``__c_<name>``.
DuckDB's messages name those and echo the rewritten text (``LINE 1: MERGE INTO (SELECT CAST(NULL
…``); `clean` puts the user's table and column names back and drops the echo.

>>> clean('Binder Error: table "__paimon_src" has 1 columns available but 3 columns specified')
'Binder Error: the statement gives 1 values per row but the table takes 3 columns'
>>> clean('Catalog Error: Table "__paimon_7" has no column "x"\n\nLINE 1: SELECT x FROM …',
...       {"__paimon_7": "db.t"})
'Catalog Error: Table "db.t" has no column "x"'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot.errors import TokenError

from paimon_sql.errors import ExecutionError, SqlError

if TYPE_CHECKING:
    from collections.abc import Mapping

    import duckdb
    import sqlglot

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_WIDTH = re.compile(
    r'table "__paimon_src" has (\d+) columns available but (\d+) columns specified', re.I
)
_COLUMN = re.compile(r"__c_(\w+)")
_HIDDEN = re.compile(r"__paimon_\w+")
#: DuckDB's echo of the statement it ran: ``LINE 1: <sql>`` then a caret line.
_ECHO = re.compile(r"^LINE \d+:")


def clean(message: str, names: Mapping[str, str] | None = None) -> str:
    """`message` with hidden relation names mapped to `names` (else a neutral word), no SQL echo."""
    names = names or {}
    lines: list[str] = []
    for line in _ANSI.sub("", message).splitlines():
        if _ECHO.match(line):
            break  # the echo and its caret show the rewritten statement, not the user's
        lines.append(line)
    text = "\n".join(lines).strip() or message.strip()
    text = _WIDTH.sub(r"the statement gives \1 values per row but the table takes \2 columns", text)
    text = _COLUMN.sub(r"\1", text)
    return _HIDDEN.sub(lambda m: names.get(m[0], "a Paimon table"), text)


def from_duckdb(err: duckdb.Error, names: Mapping[str, str] | None = None) -> ExecutionError:
    r"""An `ExecutionError` carrying DuckDB's message, cleaned (the caller chains ``from err``).

    A syntax error keeps its position, read from DuckDB's echo of the statement (a parse error is
    reported on the user's own text: nothing was rewritten yet).

    >>> import duckdb
    >>> try:
    ...     duckdb.sql("SELECT 1,\n  2 +")
    ... except duckdb.Error as err:
    ...     error = from_duckdb(err)
    >>> str(error), error.line, error.col
    ('Parser Error: syntax error at or near "+" (line 2, column 5)', 2, 5)
    """
    line, col = _echo_position(str(err)) if str(err).startswith("Parser Error") else (None, None)
    return ExecutionError(clean(str(err), names), line=line, col=col)


#: DuckDB's echo of the failing line (``LINE 2: <text>``) and the caret line under it.
_ECHO_AT = re.compile(r"^(LINE (\d+): )(.*)\n( *)\^", re.M)


def _echo_position(message: str) -> tuple[int | None, int | None]:
    """Line and column of DuckDB's caret; no column when the echo shows a cut line (``...``)."""
    match = _ECHO_AT.search(_ANSI.sub("", message))
    if match is None:
        return None, None
    column = len(match[4]) - len(match[1]) + 1
    return int(match[2]), None if match[3].startswith("...") or column < 1 else column


def from_sqlglot(
    err: sqlglot.errors.SqlglotError,
    what: str = "cannot read the statement",
    shift: int = 0,
    text: str | None = None,
) -> SqlError:
    """A `SqlError` ``<what>: <sqlglot's first message>`` with its line and column when known.

    `shift` corrects the column when sqlglot read a rewritten text (``SELECT `` + the user's).
    An unterminated string has its line; its column too when `text` (what sqlglot read) is given.

    >>> import sqlglot
    >>> try:
    ...     sqlglot.parse_one("SELECT 'open", read="duckdb")
    ... except sqlglot.errors.SqlglotError as err:
    ...     print(from_sqlglot(err))
    cannot read the statement: an unterminated string, quoted name or comment (line 1)
    """
    details = getattr(err, "errors", None) or [{}]
    first = details[0]
    message = first.get("description") or _ANSI.sub("", str(err)).split("\n", 1)[0]
    line, col = first.get("line"), first.get("col")
    if isinstance(err, TokenError):  # its text echoes what sqlglot read, maybe rewritten
        message = "an unterminated string, quoted name or comment"
        line, col = _token_position(err, text)
    elif message.startswith("Required keyword"):  # names sqlglot's classes
        message = "the statement is incomplete"
    return SqlError(
        f"{what}: {message}", line=line, col=None if col is None else max(1, col - shift)
    )


#: The tokenizer's own words under its TokenError: ``Missing ' from <line>:<offset>``.
_MISSING = re.compile(r"Missing .* from (\d+):(\d+)$")


def _token_position(err: TokenError, text: str | None) -> tuple[int | None, int | None]:
    match = _MISSING.search(str(err.__cause__ or ""))
    if match is None:
        return None, None
    offset = int(match[2])
    if text is None or offset > len(text):
        return int(match[1]), None
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


__all__ = ["clean", "from_duckdb", "from_sqlglot"]
