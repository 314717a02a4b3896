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
    """An `ExecutionError` carrying DuckDB's message, cleaned (the caller chains ``from err``)."""
    return ExecutionError(clean(str(err), names))


def from_sqlglot(
    err: sqlglot.errors.SqlglotError, what: str = "cannot read the statement", shift: int = 0
) -> SqlError:
    """A `SqlError` ``<what>: <sqlglot's first message>`` with its line and column when known.

    `shift` corrects the column when sqlglot read a rewritten text (``SELECT `` + the user's).

    >>> import sqlglot
    >>> try:
    ...     sqlglot.parse_one("SELECT 'open", read="duckdb")
    ... except sqlglot.errors.SqlglotError as err:
    ...     print(from_sqlglot(err))
    cannot read the statement: an unterminated string, quoted name or comment
    """
    details = getattr(err, "errors", None) or [{}]
    first = details[0]
    text = first.get("description") or _ANSI.sub("", str(err)).split("\n", 1)[0]
    if isinstance(err, TokenError):  # its text echoes what sqlglot read, maybe rewritten
        text = "an unterminated string, quoted name or comment"
    elif text.startswith("Required keyword"):  # names sqlglot's classes
        text = "the statement is incomplete"
    col = first.get("col")
    return SqlError(
        f"{what}: {text}", line=first.get("line"), col=None if col is None else max(1, col - shift)
    )


__all__ = ["clean", "from_duckdb", "from_sqlglot"]
