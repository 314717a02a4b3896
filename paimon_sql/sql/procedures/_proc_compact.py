"""Compaction procedures: compact (seed 000: full compaction of primary-key and append tables).

``CALL sys.compact(table => 'db.t' [, partitions => 'p=1,q=a;p=2'] [, where => 'p > 1'])``, with
Spark's parameters and output (one row, ``result`` = true). The rewrite itself is
`paimon_sql.compact.full`; this module selects the partitions and reads each bucket's merged
rows with the reader's SQL on DuckDB (`bucket_reader`, also what the writers pass to
`paimon_sql.compact.after_write`).

>>> parse_partitions("dt=2024-01-01,hr=3;dt=2024-01-02")
[{'dt': '2024-01-01', 'hr': '3'}, {'dt': '2024-01-02'}]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from paimon_sql.compact.after_write import check_writable
from paimon_sql.compact.changelog import compact as compact_table
from paimon_sql.engine.errors import from_sqlglot
from paimon_sql.errors import SqlError, UnsupportedFeatureError
from paimon_sql.read.build import cast, literal
from paimon_sql.sql.procedures._procedure import Param, Procedure, done, table_arg

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import pyarrow as pa

    from paimon_sql.catalog import Table
    from paimon_sql.engine.reader import BucketRead
    from paimon_sql.sql._context import Context

_NO_ORDER = ("", "none")


def parse_partitions(text: str) -> list[dict[str, str]]:
    """Spark's ``partitions`` argument: ``k=v[,k=v]`` specs separated by ``;``."""
    specs = []
    for spec in text.split(";"):
        if not spec.strip():
            continue
        values = {}
        for pair in spec.split(","):
            name, sep, value = pair.partition("=")
            if not sep or not name.strip():
                raise SqlError(
                    f"CALL sys.compact: partition spec {spec.strip()!r} is not "
                    "'key=value[,key=value]'"
                )
            values[name.strip()] = value.strip()
        specs.append(values)
    return specs


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _spec_filter(table: Table, specs: list[dict[str, str]]) -> Callable[[tuple[Any, ...]], bool]:
    keys = table.latest_schema.partition_keys
    for spec in specs:
        unknown = sorted(set(spec) - set(keys))
        if unknown:
            raise SqlError(
                f"CALL sys.compact: {', '.join(unknown)} is not a partition key of {table.name} "
                f"(partition keys: {', '.join(keys) or 'none'})"
            )

    def ok(values: tuple[Any, ...]) -> bool:
        named = {k: "" if v is None else _text(v) for k, v in zip(keys, values, strict=True)}
        return any(all(named[k] == v for k, v in spec.items()) for spec in specs)

    return ok


def _where_filter(ctx: Context, table: Table, where: str) -> Callable[[tuple[Any, ...]], bool]:
    """A filter on partition values: DuckDB evaluates the condition on each partition's values."""
    schema = table.latest_schema
    keys = schema.partition_keys
    try:
        condition = sqlglot.parse_one(where, read="spark")
    except sqlglot.errors.SqlglotError as err:
        raise from_sqlglot(err, f"CALL sys.compact: cannot parse where {where!r}") from err
    if not isinstance(condition, exp.Condition) or condition.find(exp.Query) is not None:
        raise SqlError(
            f"CALL sys.compact: where {where!r} is not one condition on partition columns "
            "(no statements, no subqueries)"
        )
    others = sorted({c.name for c in condition.find_all(exp.Column)} - set(keys))
    if others:
        raise SqlError(
            f"CALL sys.compact: where may only use partition columns of {table.name} "
            f"({', '.join(keys) or 'none'}); it uses {', '.join(others)}"
        )
    cache: dict[tuple[Any, ...], bool] = {}

    def ok(values: tuple[Any, ...]) -> bool:
        if values not in cache:
            constants = [
                exp.alias_(
                    literal(v, schema.field(k).type)
                    if v is not None
                    else cast(exp.null(), schema.field(k).type),
                    k,
                    quoted=True,
                )
                for k, v in zip(keys, values, strict=True)
            ]
            probe = exp.select(exp.func("COALESCE", condition.copy(), exp.false())).from_(
                exp.select(*constants).subquery("p")
            )
            cache[values] = bool(ctx.engine.con.sql(probe.sql("duckdb")).fetchall()[0][0])
        return cache[values]

    return ok


def _reader(ctx: Context) -> BucketRead:
    return ctx.engine.bucket_reader()


def _check_options(args: Mapping[str, Any], table: Table) -> None:
    strategy = str(args.get("order_strategy", "") or "").strip().lower()
    if strategy not in _NO_ORDER or args.get("order_by"):
        raise UnsupportedFeatureError(
            f"CALL sys.compact: order_strategy={args.get('order_strategy')!r} / order_by (sort "
            "compaction of append tables) is not supported by paimon-sql yet; compact "
            f"{table.name} without them"
        )
    if args.get("options"):
        raise UnsupportedFeatureError(
            "CALL sys.compact: the 'options' parameter is not supported yet"
        )
    if args.get("partitions") and args.get("where"):
        raise SqlError("CALL sys.compact: partitions and where cannot be used together")


def run_compact(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    """Full compaction of the table (or its selected partitions).

    One COMPACT snapshot, or none if nothing needs it.
    """
    table = table_arg(ctx, args)
    _check_options(args, table)
    check_writable(table)
    partition_ok = None
    if args.get("partitions"):
        partition_ok = _spec_filter(table, parse_partitions(str(args["partitions"])))
    elif args.get("where"):
        partition_ok = _where_filter(ctx, table, str(args["where"]))
    compact_table(table, _reader(ctx), partition_ok=partition_ok)
    return done(ctx, table)


PROCEDURES: tuple[Procedure, ...] = (
    Procedure(
        name="compact",
        params=(
            Param(name="table", required=True, doc="the table, 'db.t'"),
            Param(name="partitions", doc="partitions to compact: 'k=v[,k=v];k=v'"),
            Param(
                name="order_strategy", doc="sort compaction (zorder, hilbert, order): not supported"
            ),
            Param(name="order_by", doc="columns of the sort compaction: not supported"),
            Param(name="where", doc="a condition on partition columns selecting the partitions"),
            Param(name="options", doc="dynamic table options for the compaction: not supported"),
        ),
        run=run_compact,
        doc="Full compaction: each bucket becomes one sorted run at the top level (append tables: "
        "small files merged); one COMPACT snapshot.",
    ),
)
