"""``CALL sys.check_table(table => 'db.t' [, deep => true])``: is the table intact?

paimon-sql's own procedure (Java has none): a result row per problem, naming the file (relative to
the table folder), the version that holds it and what is wrong; no rows when every snapshot and tag
reads completely. `paimon_sql.commit.check` does the walk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_sql.commit.check import COLUMNS, check_table
from paimon_sql.errors import SqlError
from paimon_sql.sql.procedures._procedure import Param, Procedure, table_arg

if TYPE_CHECKING:
    from collections.abc import Mapping

    from paimon_sql.sql._context import Context

SCHEMA = pa.schema([(name, pa.string()) for name in COLUMNS])


def _deep(args: Mapping[str, Any]) -> bool:
    value = args.get("deep", False)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise SqlError(f"CALL sys.check_table: deep must be true or false, got {value!r}")
    return text == "true"


def _check(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    problems = check_table(table, deep=_deep(args))
    return pa.Table.from_pylist([p.as_row() for p in problems], schema=SCHEMA)


PROCEDURES: tuple[Procedure, ...] = (
    Procedure(
        name="check_table",
        params=(
            Param(name="table", required=True, doc="'db.table'"),
            Param(name="deep", doc="also decode every data file and verify page checksums"),
        ),
        run=_check,
        doc="Check every snapshot, tag, manifest, index and data file of the table; a row per "
        "problem (severity, check, file, version, problem), none when the table is intact.",
    ),
)
