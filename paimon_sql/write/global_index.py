"""Cross-partition upserts: the global key → (partition, bucket) index (Java's ``KEY_DYNAMIC``).

A table with ``bucket = -1`` whose primary key leaves out a partition column (paimon-format.md §6).
A key of such a table lives in exactly one (partition, bucket), and a write may name it in another
partition. Java's ``GlobalIndexAssigner`` keeps a key → (partition, bucket) index, bootstrapped by
``IndexBootstrap`` from the table's live keys (a batch read of the latest snapshot, each split
tagged with its partition and bucket), and routes every input record by its merge engine
(``ExistingProcessor.create``):

* deduplicate (``DeleteExistingProcessor``): a key found in another partition gets a ``-D`` record
  there (the new row with the old partition's values, into the old bucket) and the new row goes to
  the new partition; the latest record of a key wins;
* partial-update and aggregation (``UseOldExistingProcessor``): the record goes to the partition
  and bucket the key already has, its partition columns set to that partition's values (a new key
  stays in the partition of its first record in the statement);
* first-row (``SkipNewExistingProcessor``): a record of a key that lives in another partition is
  dropped (a new key keeps the partition of its first record).

A key new to a partition gets a bucket as Java's cross-partition ``BucketAssigner`` gives one: the
lowest-numbered bucket of the partition holding fewer than ``dynamic-bucket.target-row-num`` keys,
else the lowest bucket id not used yet (``dynamic-bucket.max-buckets`` does not apply, as in Java).
With ``dynamic-bucket.initial-buckets`` / ``dynamic-bucket.assigner-parallelism`` = n > 1 Java
runs n assigners, each owning the keys whose full-key hash is ``i`` modulo n and the buckets ``i``
modulo n; the counts are per assigner, as Java's are. Java writes no HASH index files for these
tables (``KeyValueFileStore.newWrite`` keeps them for ``HASH_DYNAMIC`` only: the index is rebuilt
from the data by every job), and neither does this writer.

Here the index is a temporary DuckDB table (the key columns, a partition id and the bucket: a few
bytes per key beside the key itself) read once per statement, appended batch by batch so that
DuckDB spills it under the writer's memory limit (``write-buffer-size``) and Python never holds
more than a few batches of keys (Java's assigner keeps its index in a local key-value store on
disk, in its temporary folders, with a bounded cache). The routing is DuckDB joins over the
statement's staged rows (spilling too), run as a whole batch: for a key written several times in
one statement the net result equals Java's record-by-record processing (intermediate partitions
Java would write and then retract are skipped).

``cross-partition-upsert.index-ttl`` filters the bootstrap as Java does: a bucket none of whose
files was created within the TTL contributes no keys (so a key there may be written again
elsewhere).

A statement reads only the part of the index its routing can see (`Scope`): every key of the
partitions its rows name (the only partitions where a key may get a new bucket, so their counts
per bucket must be whole) and, in the other partitions, only its own keys: a file whose key range
holds none of them is not read (the planner's key statistics), and in the others the reader pushes
the key filter into each file's scan (a row group whose key range holds none is skipped).
The routing and the buckets are those of the whole index: every key the statement names is found
where it lives, and every bucket count it uses is complete. Java reads every key; a 1-row upsert
here reads one partition and a row group or so per file.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import pyarrow as pa
from sqlglot import exp

from paimon_sql.commit.plan import AssignedOn
from paimon_sql.commit.retry import on_latest
from paimon_sql.format.manifest import creation_time_millis
from paimon_sql.format.options import CoreOptions, MergeEngine
from paimon_sql.plan.predicate import And, Compare, InList, Or
from paimon_sql.plan.scan import ReadMode, plan_scan
from paimon_sql.sqlnodes import create_temp_table, drop, select_all, table_node
from paimon_sql.types import RowKind, arrow_type, duckdb_type_node
from paimon_sql.write.bucket import hash_expression

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    import duckdb

    from paimon_sql.catalog import Table
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.plan.scan import ScanPlan, Split

    class KeyReader(Protocol):
        """Reads the merged rows of a plan: the named columns, filtered exactly by `filters`."""

        def __call__(  # noqa: D102
            self, plan: ScanPlan, columns: Sequence[str], filters: Sequence[Predicate] = ()
        ) -> Iterable[pa.RecordBatch]: ...

        def holding(self, plan: ScanPlan, predicate: Predicate) -> frozenset[str]:
            """The data files of `plan` that may hold a row matching `predicate` (a superset)."""


OLD_PART = "__paimon_old_part"
OLD_BUCKET = "__paimon_old_bucket"
MOVED = "__paimon_moved"
ASSIGNER = "__paimon_assigner"
_FIRST = "__paimon_first"
_LAST = "__paimon_last"

#: The keys the bootstrap holds in Python before appending them to the index table (a DuckDB
#: statement each time: about 2 ms, so the reader's small batches are gathered first).
APPEND_BYTES = 4 << 20


def is_cross_partition(schema: TableSchema) -> bool:
    """A primary-key table with dynamic buckets whose key leaves out a partition column.

    >>> from paimon_sql.format.schema import TableSchema
    >>> from paimon_sql.types import DataField, parse_type
    >>> fields = (DataField(id=0, name="id", type=parse_type("INT NOT NULL")),
    ...           DataField(id=1, name="dt", type=parse_type("STRING")))
    >>> s = TableSchema(id=0, fields=fields, highest_field_id=1, partition_keys=("dt",),
    ...                 primary_keys=("id",), options={"bucket": "-1"})
    >>> is_cross_partition(s)
    True
    """
    return (
        bool(schema.primary_keys)
        and schema.bucket == -1
        and not set(schema.partition_keys) <= set(schema.primary_keys)
    )


def old_partition_column(i: int) -> str:
    """The name of the i-th partition column of the index's partition table.

    >>> old_partition_column(0)
    '__paimon_op_0'
    """
    return f"__paimon_op_{i}"


def num_assigners(options: CoreOptions) -> int:
    """How many assigners Java's cross-partition sink runs (a batch job of parallelism 1: 1).

    ``max(dynamic-bucket.initial-buckets, dynamic-bucket.assigner-parallelism)`` when either is set.

    >>> num_assigners(CoreOptions({}))
    1
    >>> num_assigners(CoreOptions({"dynamic-bucket.initial-buckets": "3"}))
    3
    """
    values = [
        options.optional_integer(k)
        for k in ("dynamic-bucket.initial-buckets", "dynamic-bucket.assigner-parallelism")
    ]
    given = [v for v in values if v is not None]
    return max(given) if given else 1


@dataclass(frozen=True, slots=True)
class KeyIndex:
    """The bootstrapped index.

    `keys`: the name of a temporary DuckDB table (dropped by the writer) of the full primary-key
    columns, `OLD_PART` (an id into `partitions`) and `OLD_BUCKET`, one row per live key (both
    ids of the narrowest type holding them: `id_type`); `count`: its rows. `partitions`:
    `OLD_PART` (int32) and the partition values as ``__paimon_op_<i>`` columns, one row per
    partition holding keys. `assigned_on`: the snapshot the keys were read at, for the commit's
    check that no other writer changed them since.
    """

    keys: str
    count: int
    partitions: pa.Table
    assigned_on: AssignedOn


def _within_ttl(split: Split, ttl_ms: float, now_ms: int) -> bool:
    """Java's ``IndexBootstrap.filterSplit``: a file of the split created within the TTL."""
    for f in split.files:
        created = creation_time_millis(f.creation_time)
        if created is None or now_ms <= created + ttl_ms:
            return True
    return False


@dataclass(frozen=True, slots=True)
class Scope:
    """The part of the index a statement needs (module docstring).

    `partitions`: the serialized partitions its rows name, read whole; `elsewhere`: the predicate
    on the key columns selecting its keys, read in every other partition (None: every key).
    """

    partitions: frozenset[bytes]
    elsewhere: Predicate | None


#: Keys of a statement above which the bootstrap reads every key (`scoped_keys`): a longer IN
#: list costs DuckDB more to bind and test than the row groups it skips.
SCOPED_KEYS = 1_000
#: The same for keys of several columns (an OR of ANDs).
SCOPED_COMPOSITE_KEYS = 64


def scoped_keys(pk: Sequence[str]) -> int:
    """The most keys `key_filter` selects for a primary key of these columns.

    >>> scoped_keys(["id"]), scoped_keys(["a", "b"])
    (1000, 64)
    """
    return SCOPED_KEYS if len(pk) == 1 else SCOPED_COMPOSITE_KEYS


def key_filter(pk: Sequence[str], keys: Sequence[tuple[Any, ...]]) -> Predicate | None:
    """A predicate selecting exactly the rows whose key is one of `keys` (None: too many).

    >>> key_filter(["id"], [(1,), (2,)])
    InList(path=('id',), values=(1, 2))
    >>> key_filter(["a", "b"], [(1, "x")]).children[0].children[1]
    Compare(path=('b',), op='=', value='x')
    """
    if len(keys) > scoped_keys(pk):
        return None
    if len(pk) == 1:
        return InList((pk[0],), tuple(k[0] for k in keys))
    return Or(
        tuple(
            And(tuple(Compare((c,), "=", v) for c, v in zip(pk, key, strict=True))) for key in keys
        )
    )


def bootstrap(
    table: Table,
    read: KeyReader,
    con: duckdb.DuckDBPyConnection,
    name: str,
    scope: Scope | None = None,
) -> KeyIndex:
    """The live keys of the latest snapshot with their partition and bucket (Java's IndexBootstrap).

    All files are merged, level 0 included (the keys a later compaction would show count too);
    `read(plan, columns, filters)` reads a one-split plan's merged rows. Every key, or those
    `scope` selects. The keys are appended batch by batch to the temporary table `name` on `con`
    (created here, replaced if it exists), which DuckDB spills under its memory limit: Python holds
    one batch at a time. A failure drops it.
    """
    schema = table.latest_schema
    part_fields = [
        pa.field(old_partition_column(i), _arrow_type(schema, p))
        for i, p in enumerate(schema.partition_keys)
    ]
    batch_name = f"{name}_batch"
    insert = exp.insert(select_all(table_node(batch_name)), table_node(name)).sql("duckdb")

    def append(rows: pa.Table) -> None:
        con.register(batch_name, rows)
        try:
            con.execute(insert)
        finally:
            con.unregister(batch_name)

    def load(latest: Snapshot | None) -> KeyIndex:
        plan = None
        if latest is not None:
            plan = plan_scan(table, latest, mode=ReadMode.MERGE, include_level0=True)
            ttl = _index_ttl(schema)
            plan = dataclasses.replace(plan, splits=_live_splits(plan.splits, ttl))
            if scope is not None and scope.elsewhere is not None and ttl is None:
                plan = _scoped(table, latest, plan, scope.elsewhere, scope.partitions)
                plan = _holding(plan, read, scope.elsewhere, scope.partitions)
        key_schema = _key_schema(schema, plan.splits if plan is not None else ())
        con.register(batch_name, key_schema.empty_table())
        create = create_temp_table(name, select_all(table_node(batch_name)))
        create.set("replace", True)
        try:
            con.execute(create.sql("duckdb"))
        finally:
            con.unregister(batch_name)
        count, part_rows = 0, list[pa.Table]()
        if plan is not None:
            count, part_rows = _read_keys(
                schema, plan, read, key_schema, part_fields, append, scope
            )
        part_schema = pa.schema([pa.field(OLD_PART, pa.int32()), *part_fields])
        partitions = pa.concat_tables(part_rows) if part_rows else part_schema.empty_table()
        return KeyIndex(
            keys=name,
            count=count,
            partitions=partitions,
            assigned_on=AssignedOn.of(latest),
        )

    try:
        return on_latest(table, load)
    except BaseException:
        con.execute(drop("TABLE", table_node(name)).sql("duckdb"))
        raise


def _scoped(
    table: Table, latest: Snapshot, plan: ScanPlan, keys: Predicate, whole: frozenset[bytes]
) -> ScanPlan:
    """`plan` without the files outside the partitions `whole` whose key range holds none of `keys`.

    The planner prunes them by their key statistics, as for any read filtered by key (a file
    without the keys adds nothing to their merge). Not with an index TTL (the caller's check):
    whether a bucket counts depends on all its files (`_within_ttl`).
    """
    pruned = plan_scan(table, latest, keys, mode=ReadMode.MERGE, include_level0=True)
    inside = [s for s in plan.splits if s.partition_bytes in whole]
    outside = [s for s in pruned.splits if s.partition_bytes not in whole]
    return dataclasses.replace(plan, splits=(*inside, *outside))


def _holding(plan: ScanPlan, read: KeyReader, keys: Predicate, whole: frozenset[bytes]) -> ScanPlan:
    """`plan` without the splits outside the partitions `whole` none of whose files holds a key.

    One search of their files for `keys` (`KeyReader.holding`), where each split would otherwise
    be merged by a query of its own only to find none: a split's merged rows come from its files'
    rows, so a split without a file holding one of the keys yields none of them.
    """
    outside = dataclasses.replace(
        plan, splits=tuple(s for s in plan.splits if s.partition_bytes not in whole)
    )
    if len(outside.splits) < 2:  # no query saved
        return plan
    found = read.holding(outside, keys)
    return dataclasses.replace(
        plan,
        splits=tuple(
            s
            for s in plan.splits
            if s.partition_bytes in whole or any(f.file_name in found for f in s.files)
        ),
    )


def _index_ttl(schema: TableSchema) -> float | None:
    """``cross-partition-upsert.index-ttl`` in milliseconds (None: unset)."""
    return CoreOptions(schema.options).optional_duration_ms("cross-partition-upsert.index-ttl")


def _live_splits(splits: Sequence[Split], ttl: float | None) -> tuple[Split, ...]:
    """The splits whose keys the index holds: all, or those within the index TTL (ms)."""
    if ttl is None:
        return tuple(splits)
    now = int(time.time() * 1000)
    return tuple(s for s in splits if _within_ttl(s, ttl, now))


def _key_schema(schema: TableSchema, splits: Sequence[Split]) -> pa.Schema:
    """The index table's columns: the key, `OLD_PART` and `OLD_BUCKET` as narrow as they fit.

    A key of 8 bytes takes 10 in the index for up to 256 partitions and buckets instead of 16,
    which DuckDB then spills less (the routing casts both back to INT).
    """
    parts = len({s.partition_bytes for s in splits})
    top_bucket = max((s.bucket for s in splits), default=0)
    return pa.schema(
        [
            *[pa.field(k, _arrow_type(schema, k)) for k in schema.primary_keys],
            pa.field(OLD_PART, id_type(parts - 1)),
            pa.field(OLD_BUCKET, id_type(top_bucket)),
        ]
    )


def id_type(top: int) -> pa.DataType:
    """The narrowest Arrow integer type holding 0..`top`.

    >>> id_type(255), id_type(256), id_type(70_000)
    (DataType(uint8), DataType(uint16), DataType(int32))
    """
    if top < 1 << 8:
        return pa.uint8()
    if top < 1 << 16:
        return pa.uint16()
    return pa.int32()


def _read_keys(
    schema: TableSchema,
    plan: ScanPlan,
    read: KeyReader,
    key_schema: pa.Schema,
    part_fields: Sequence[pa.Field[Any]],
    append: Callable[[pa.Table], None],
    scope: Scope | None = None,
) -> tuple[int, list[pa.Table]]:
    """Append the live keys of `plan`'s splits (`key_schema`'s rows), a few batches at a time.

    Every key of a split, or, for a split outside `scope`'s partitions, those it selects. Returns
    the number of keys and the rows of the partition table (`KeyIndex.partitions`).
    """
    pk = list(schema.primary_keys)
    parts = list(schema.partition_keys)
    extra = [p for p in parts if p not in pk]
    key_fields = [key_schema.field(k) for k in pk]
    part_type, bucket_type = key_schema.field(OLD_PART).type, key_schema.field(OLD_BUCKET).type
    part_rows: list[pa.Table] = []
    ids: dict[bytes, int] = {}
    pending: list[pa.Table] = []  # appended together: one statement per APPEND_BYTES of keys
    held = count = 0
    for split in plan.splits:
        one = dataclasses.replace(plan, splits=(split,))
        filters: tuple[Predicate, ...] = ()
        if scope is not None and split.partition_bytes not in scope.partitions:
            filters = () if scope.elsewhere is None else (scope.elsewhere,)
        for batch in read(one, [*pk, *extra], filters):
            if batch.num_rows == 0:
                continue
            part_id = ids.get(split.partition_bytes)
            if part_id is None:
                part_id = ids[split.partition_bytes] = len(ids)
                first = pa.Table.from_batches([batch.slice(0, 1)])
                values = [
                    first.column(p).cast(f.type) for p, f in zip(parts, part_fields, strict=True)
                ]
                part_rows.append(
                    pa.table(
                        [pa.array([part_id], pa.int32()), *values],
                        names=[OLD_PART, *(f.name for f in part_fields)],
                    )
                )
            n = batch.num_rows
            columns = [batch.column(k).cast(f.type) for k, f in zip(pk, key_fields, strict=True)]
            pending.append(
                rows := pa.table(
                    [
                        *columns,
                        pa.repeat(pa.scalar(part_id, part_type), n),
                        pa.repeat(pa.scalar(split.bucket, bucket_type), n),
                    ],
                    schema=key_schema,
                )
            )
            count += n
            held += rows.nbytes
            if held >= APPEND_BYTES:
                append(pa.concat_tables(pending))
                pending.clear()
                held = 0
    if pending:
        append(pa.concat_tables(pending))
    return count, part_rows


def _arrow_type(schema: TableSchema, name: str) -> pa.DataType:
    return arrow_type(schema.field(name).type)


# --- routing ------------------------------------------------------------------------------------


def _q(name: str, table: str | None = None) -> exp.Column:
    return exp.column(name, table=table, quoted=True)


def all_null_safe_equal(pairs: Iterable[tuple[exp.Expression, exp.Expression]]) -> exp.Expr:
    """Every pair ``IS NOT DISTINCT FROM`` (partition values may be NULL); TRUE for none.

    >>> all_null_safe_equal([(exp.column("a"), exp.column("b"))]).sql("duckdb")
    'a IS NOT DISTINCT FROM b'
    """
    conditions = [exp.NullSafeEQ(this=a, expression=b) for a, b in pairs]
    if not conditions:
        return exp.true()
    return exp.and_(*conditions)


@dataclass(frozen=True, slots=True, kw_only=True)
class Columns:
    """The writer's staging column names the routing reads and writes."""

    ord: str
    bucket: str
    kind: str
    part: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RouteTables:
    """The tables `route_queries` joins, registered or created by the writer.

    `staged`: the statement's rows; `keys` / `partitions`: the `KeyIndex`; `ranked`: every
    partition of the statement or of the index with its group number (`cols.part`), the partition
    values as ``__paimon_op_<i>``; `repeated`: the keys the statement names more than once with
    their first and last arrival (``__paimon_first``, ``__paimon_last``), or None when there are
    none.
    """

    staged: str
    keys: str
    partitions: str
    ranked: str
    repeated: str | None


def ranked_partitions_query(
    schema: TableSchema, staged: str, partitions: str, part: str
) -> exp.Select:
    """Every partition the statement or the index names, numbered in partition order (`part`)."""
    parts = list(schema.partition_keys)
    olds = [old_partition_column(i) for i in range(len(parts))]
    mine = exp.select(
        *[exp.alias_(_q(p), o, quoted=True) for p, o in zip(parts, olds, strict=True)]
    )
    theirs = exp.select(*[_q(o) for o in olds]).from_(table_node(partitions))
    union = exp.union(mine.from_(table_node(staged)), theirs, distinct=True)
    rank: exp.Expression = exp.Literal.number(0)
    if parts:
        rank = exp.Window(
            this=exp.func("DENSE_RANK"),
            order=exp.Order(expressions=[exp.Ordered(this=_q(o)) for o in olds]),
        )
    return exp.select("*", exp.alias_(rank, part, quoted=True)).from_(
        exp.Subquery(this=union, alias=exp.TableAlias(this=exp.to_identifier("u")))
    )


def repeated_keys_query(schema: TableSchema, staged: str, cols: Columns) -> exp.Select:
    """The keys named more than once, with their first and last arrival."""
    pk = [_q(k) for k in schema.primary_keys]
    return (
        exp.select(
            *pk,
            exp.alias_(exp.Min(this=_q(cols.ord)), _FIRST, quoted=True),
            exp.alias_(exp.Max(this=_q(cols.ord)), _LAST, quoted=True),
        )
        .from_(table_node(staged))
        .group_by(*[k.copy() for k in pk])
        .having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)))
    )


def route_queries(
    schema: TableSchema, tables: RouteTables, cols: Columns
) -> tuple[exp.Select, exp.Select | None]:
    """The staged rows routed by the key index, per merge engine (see the module docstring).

    Returns the rows to write and (deduplicate) the retractions of moved keys. Both have the
    table's columns (partition columns possibly replaced), `cols.ord`, `cols.bucket` (the old bucket
    where the row goes where its key already lives, else NULL: assigned by the writer),
    `cols.kind`, `MOVED` (a retraction), `OLD_PART` (the key's partition id in the index, NULL for
    a new key) and `cols.part`. Hash joins and aggregates only (DuckDB runs them in parallel; a
    window over every row would not).
    """
    engine = CoreOptions(schema.options).merge_engine
    pk = list(schema.primary_keys)
    parts = list(schema.partition_keys)
    n = len(parts)
    olds = [old_partition_column(i) for i in range(n)]
    on_key = exp.and_(*[exp.EQ(this=_q(k, "s"), expression=_q(k, "i")) for k in pk])
    known = exp.not_(exp.Is(this=_q(OLD_PART, "i"), expression=exp.null()))
    # the partition a key goes to: deduplicate, the row's own; the others, where the key lives,
    # else where its first row in the statement goes
    first_part: list[exp.Expression] = [_q(p, "s") for p in parts]
    keep: exp.Expr = exp.true()
    joined = (
        exp.select()
        .from_(table_node(tables.staged, alias="s"))
        .join(table_node(tables.keys, alias="i"), on=on_key, join_type="left")
        .join(
            table_node(tables.partitions, alias="p"),
            on=exp.EQ(this=_q(OLD_PART, "i"), expression=_q(OLD_PART, "p")),
            join_type="left",
        )
    )
    if tables.repeated is not None:
        joined = joined.join(
            table_node(tables.repeated, alias="k"),
            on=exp.and_(*[exp.EQ(this=_q(k, "s"), expression=_q(k, "k")) for k in pk]),
            join_type="left",
        )
        if engine is MergeEngine.DEDUPLICATE:  # the latest row of a key wins
            keep = exp.or_(
                exp.Is(this=_q(_LAST, "k"), expression=exp.null()),
                exp.EQ(this=_q(cols.ord, "s"), expression=_q(_LAST, "k")),
            )
        else:
            joined = joined.join(
                table_node(tables.staged, alias="f"),
                on=exp.EQ(this=_q(cols.ord, "f"), expression=_q(_FIRST, "k")),
                join_type="left",
            )
            first_part = [
                exp.If(
                    this=exp.Is(this=_q(_FIRST, "k"), expression=exp.null()),
                    true=_q(p, "s"),
                    false=_q(p, "f"),
                )
                for p in parts
            ]
    targets: list[exp.Expression]
    if engine is MergeEngine.DEDUPLICATE:
        targets = [_q(p, "s") for p in parts]
    else:
        targets = [
            exp.If(this=known.copy(), true=_q(o, "p"), false=f)
            for o, f in zip(olds, first_part, strict=True)
        ]
    same = exp.and_(
        known.copy(),
        all_null_safe_equal((t.copy(), _q(o, "p")) for t, o in zip(targets, olds, strict=True)),
    )
    if engine is MergeEngine.FIRST_ROW:  # a row of a key living elsewhere is dropped
        keep = all_null_safe_equal(
            (t.copy(), _q(p, "s")) for t, p in zip(targets, parts, strict=True)
        )
    types = {p: duckdb_type_node(schema.field(p).type) for p in parts}

    def output(values: Sequence[exp.Expression], retract: bool) -> exp.Select:
        by_name = dict(zip(parts, values, strict=True))
        fields = [
            exp.alias_(exp.cast(by_name[f.name].copy(), types[f.name]), f.name, quoted=True)
            if f.name in by_name
            else _q(f.name, "s")
            for f in schema.fields
        ]
        old_bucket = exp.cast(_q(OLD_BUCKET, "i"), "INT")  # (the index's narrow type)
        bucket = (
            old_bucket
            if retract
            else exp.Case(ifs=[exp.If(this=same.copy(), true=old_bucket.copy())])
        )
        kind = exp.Literal.number(int(RowKind.DELETE)) if retract else _q(cols.kind, "s")
        where = exp.and_(keep.copy(), known.copy(), exp.not_(same.copy())) if retract else keep
        inner = joined.copy().select(
            *fields,
            _q(cols.ord, "s"),
            exp.alias_(bucket, cols.bucket, quoted=True),
            exp.alias_(kind, cols.kind, quoted=True),
            exp.alias_(exp.true() if retract else exp.false(), MOVED, quoted=True),
            exp.alias_(exp.cast(_q(OLD_PART, "i"), "INT"), OLD_PART, quoted=True),
        )
        inner = inner.where(where.copy())
        on = all_null_safe_equal((_q(p, "j"), _q(o, "r")) for p, o in zip(parts, olds, strict=True))
        return (
            exp.select(
                *[_q(f.name, "j") for f in schema.fields],
                *[_q(c, "j") for c in (cols.ord, cols.bucket, cols.kind, MOVED, OLD_PART)],
                _q(cols.part, "r"),
            )
            .from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("j"))))
            .join(table_node(tables.ranked, alias="r"), on=on, join_type="inner")
        )

    main = output(targets, retract=False)
    if engine is not MergeEngine.DEDUPLICATE:
        return main, None
    return main, output([_q(o, "p") for o in olds], retract=True)


def assigner_expression(schema: TableSchema, n: int, table: str | None = None) -> exp.Expression:
    """The assigner of a key: ``abs(hash(full primary key) % n)``.

    As Java's ``KeyPartRowChannelComputer`` shuffles keys to the assigners.

    >>> assigner_expression(None, 1).sql("duckdb")
    '0'
    """
    if n == 1:
        return exp.Literal.number(0)
    key = [(_q(k, table), schema.field(k).type) for k in schema.primary_keys]
    return exp.Abs(this=exp.Mod(this=hash_expression(key), expression=exp.Literal.number(n)))


def slots(
    counts: Mapping[int, int], assign_id: int, n: int, fresh: int, target: int
) -> list[tuple[int, int, int]]:
    """(bucket, start, stop): which of `fresh` new keys (ranked 0..) go to which bucket.

    Java's cross-partition ``BucketAssigner.assignBucket``: the buckets of the assigner's map in
    ascending order, the first with fewer than `target` keys (and owned: ``b % n`` = `assign_id`);
    when all are full, the lowest owned id not in the map.

    >>> slots({0: 2, 1: 1}, 0, 1, 3, 2)
    [(1, 0, 1), (2, 1, 3)]
    """
    out: list[tuple[int, int, int]] = []
    start = 0
    for bucket in sorted(counts):
        if start >= fresh:
            break
        if bucket % n == assign_id and counts[bucket] < target:
            out.append((bucket, start, start + target - counts[bucket]))
            start = out[-1][2]
    candidate = assign_id
    while start < fresh:
        if candidate not in counts:
            out.append((candidate, start, start + target))
            start += target
        candidate += n
    return out
