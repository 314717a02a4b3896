"""Cross-partition primary-key tables written from Spark (bucket -1, key without a partition key).

The driver plans, the executors route (as for dynamic buckets, `writer._assign`):

1. Driver (`plan`): one Spark job collects each distinct (key, partition) of the DataFrame with its
   last arrival (deduplicate) or first arrival (the other engines); the SQL writer's routing
   (`paimon_sql.write.global_index`, the key index bootstrapped from the table on the driver's
   paimon-sql session) runs over those groups and decides, per group, whether its rows are written,
   to which partition (partial-update and aggregation: the one the key lives in) and bucket, and
   where a moved key's retraction goes (deduplicate: a ``-D`` in its old partition and bucket).
2. Executors (`route`): each row looks its (key, partition) up in that plan (shipped in the
   `WriteJob`), and is dropped, or written with its partition columns set, its bucket and its
   ``_VALUE_KIND``; a moved key's row also yields its retraction.

The plan holds one entry per distinct (key, partition) of the input, like the dynamic-bucket
assignment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa
from sqlglot import exp

from paimon_sql.errors import PaimonSqlError
from paimon_sql.format.binary_row import encode_row
from paimon_sql.format.options import CoreOptions, MergeEngine
from paimon_sql.spark._task import conform, table_arrow_schema
from paimon_sql.types import RowKind, duckdb_type_node
from paimon_sql.write.data_file import VALUE_KIND
from paimon_sql.write.global_index import MOVED
from paimon_sql.write.writer import BUCKET, ORD, TableWriter

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

    from pyspark.sql import DataFrame

    from paimon_sql.catalog import Table
    from paimon_sql.commit.plan import AssignedOn
    from paimon_sql.spark._task import WriteJob

#: (key values, source partition bytes) -> None (the group's rows are not written) or
#: (target partition values, bucket, retraction partition values or None, retraction bucket).
Plan = dict[tuple[tuple[Any, ...], bytes], tuple[tuple[Any, ...], int, tuple[Any, ...] | None, int]]


def plan(
    df: DataFrame, warehouse: str, table: Table
) -> tuple[Mapping[Any, Any], AssignedOn | None]:
    """The driver's routing of every (key, partition) group of `df` (which carries ``ORD``).

    With the key index it was routed by, for the commit's check (`Committer.commit`).
    """
    from pyspark.sql import functions as F

    from paimon_sql.sql.session import connect
    from paimon_sql.sql.statements.dml import key_reader

    schema = table.latest_schema
    engine = CoreOptions(schema.options).merge_engine
    pk, parts = list(schema.primary_keys), list(schema.partition_keys)
    cols = list(dict.fromkeys([*pk, *parts]))
    pick = F.max if engine is MergeEngine.DEDUPLICATE else F.min
    quoted = ["`" + c.replace("`", "``") + "`" for c in cols]
    grouped = df.groupBy(*quoted).agg(pick(F.col(ORD)).alias(ORD)).collect()
    types = table_arrow_schema(schema)
    grouped.sort(key=lambda r: r[ORD])
    groups = pa.table(
        {c: pa.array([r[c] for r in grouped]).cast(types.field(c).type) for c in cols}
    )
    part_types = [schema.field(p).type for p in parts]
    keys = list(zip(*[groups.column(k).to_pylist() for k in pk], strict=True))
    sources = [
        encode_row(values, part_types)
        for values in zip(*[groups.column(p).to_pylist() for p in parts], strict=True)
    ]
    session = connect(warehouse)
    try:
        con = session.engine.con
        writer = TableWriter(con, table, key_reader=key_reader(session))
        name = f"__paimon_groups_{id(groups)}"
        con.register(name, groups)
        try:
            select = exp.select(
                *[
                    exp.column(f.name, quoted=True)
                    if f.name in cols
                    else exp.alias_(exp.cast(exp.null(), duckdb_type_node(f.type)), f.name)
                    for f in schema.fields
                ]
            ).from_(exp.to_identifier(name, quoted=True))
            staged = writer.stage(select)
            try:
                out = exp.select(
                    exp.column(ORD, quoted=True),
                    exp.column(BUCKET, quoted=True),
                    exp.column(MOVED, quoted=True),
                    *[exp.column(p, quoted=True) for p in parts],
                ).from_(exp.to_identifier(staged, quoted=True))
                routed = con.sql(out.sql("duckdb")).to_arrow_table()
            finally:
                writer.drop(staged)
        finally:
            con.unregister(name)
    finally:
        session.close()
    main: dict[int, tuple[tuple[Any, ...], int]] = {}
    retract: dict[int, tuple[tuple[Any, ...], int]] = {}
    values = zip(*[routed.column(p).to_pylist() for p in parts], strict=True)
    for ord_, bucket, moved, target in zip(
        routed.column(ORD).to_pylist(),
        routed.column(BUCKET).to_pylist(),
        routed.column(MOVED).to_pylist(),
        values,
        strict=True,
    ):
        (retract if moved else main)[ord_ - 1] = (tuple(target), int(bucket))
    result: dict[Any, Any] = {}
    for g, key in enumerate(keys):
        if g not in main:
            result[(key, sources[g])] = None
            continue
        target, bucket = main[g]
        old = retract.get(g)
        result[(key, sources[g])] = (target, bucket, *(old if old else (None, -1)))
    return result, writer.assigned_on


def route(job: WriteJob, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Each row routed by the driver's plan (`job.cross`), with ``__paimon_bucket`` and the kind.

    A row of a group the plan does not know means the DataFrame changed between the two jobs.
    """
    table = job.load()
    schema = table.latest_schema
    pk, parts = list(schema.primary_keys), list(schema.partition_keys)
    part_types = [schema.field(p).type for p in parts]
    decisions = job.cross or {}
    for batch in batches:
        rows = conform(batch, schema, job.static)
        keys = zip(*[rows.column(k).to_pylist() for k in pk], strict=True)
        sources = zip(*[rows.column(p).to_pylist() for p in parts], strict=True)
        take: list[int] = []
        targets: list[tuple[Any, ...]] = []
        buckets: list[int] = []
        kinds: list[int] = []
        for i, (key, source) in enumerate(zip(keys, sources, strict=True)):
            group = (tuple(key), encode_row(tuple(source), part_types))
            if group not in decisions:
                raise PaimonSqlError(
                    "a row's key was not seen by the planning job: the DataFrame gave other rows "
                    "the second time Spark computed it (nondeterministic input); cache() or "
                    "checkpoint() it first"
                )
            decision = decisions[group]
            if decision is None:
                continue
            target, bucket, old, old_bucket = decision
            take.append(i)
            targets.append(target)
            buckets.append(bucket)
            kinds.append(int(RowKind.INSERT))
            if old is not None:
                take.append(i)
                targets.append(old)
                buckets.append(old_bucket)
                kinds.append(int(RowKind.DELETE))
        out = batch.take(pa.array(take, pa.int64()))
        for j, p in enumerate(parts):
            index = out.schema.get_field_index(p)
            column = pa.array([t[j] for t in targets]).cast(out.schema.field(p).type)
            out = out.set_column(index, out.schema.field(p), column)
        out = out.append_column(BUCKET, pa.array(buckets, pa.int32()))
        yield out.append_column(VALUE_KIND, pa.array(kinds, pa.int8()))
