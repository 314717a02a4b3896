"""Dynamic-bucket (HASH_DYNAMIC, ``bucket = -1``) assignment of one partition (paimon-format.md §6).

Java's ``PartitionIndex.assign`` works key by key: a hash seen before keeps its bucket; a new hash
goes to the first bucket, in the load map's iteration order, with fewer than
``dynamic-bucket.target-row-num`` hashes; when every bucket is full, the smallest unused bucket id
the assigner owns is opened. Because every bucket is filled to the target before the next one is
used, the k-th new distinct hash (in arrival order) lands in the bucket whose cumulative free
capacity covers k. That turns the loop into one interval join, run here in DuckDB over Arrow.

Buckets past ``dynamic-bucket.max-buckets`` are full: Java then picks an existing bucket at random;
this module picks them round-robin (any choice is valid for readers, the HASH files record it).

>>> import duckdb, pyarrow as pa
>>> from paimon_sql.format.hash_index import encode_hashes
>>> con = duckdb.connect()
>>> options = DynamicBucketOptions(target_row_num=2)
>>> hashes = pa.array([7, 8, 9, 7], pa.int32())
>>> result = assign_buckets(con, hashes, {0: encode_hashes([7])}, options)
>>> sorted(result.assignment.to_pylist(), key=lambda r: r["hash"])
[{'hash': 7, 'bucket': 0}, {'hash': 8, 'bucket': 0}, {'hash': 9, 'bucket': 1}]
>>> sorted(result.index_files)
[0, 1]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp

from paimon_sql.errors import OptionError
from paimon_sql.format.hash_index import hashes_from_arrow, hashes_to_arrow
from paimon_sql.format.options import CoreOptions
from paimon_sql.io.arrays import arange
from paimon_sql.sqlnodes import create_temp_table, drop, table_node

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

_counter = itertools.count()

#: Java's MAX_DYNAMIC_BUCKETS: bucket ids are stored as shorts.
MAX_DYNAMIC_BUCKETS = 32767


@dataclass(frozen=True, slots=True, kw_only=True)
class DynamicBucketOptions:
    """The table options that steer dynamic bucket assignment.

    `num_assigners` mirrors Java's parallel assigners (``dynamic-bucket.initial-buckets`` capped
    by the writer parallelism): assigner ``abs(hash % n)`` owns the hash and opens only buckets
    ``b`` with ``b % n`` equal to its id.
    """

    target_row_num: int = CoreOptions({}).integer("dynamic-bucket.target-row-num")
    max_buckets: int = CoreOptions({}).integer("dynamic-bucket.max-buckets")
    num_assigners: int = CoreOptions({}).dynamic_bucket_initial_buckets

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> DynamicBucketOptions:
        """Read ``dynamic-bucket.*`` from table options.

        >>> DynamicBucketOptions.from_options({"dynamic-bucket.initial-buckets": "4"}).num_assigners
        4
        """
        typed = CoreOptions(options)
        try:
            return cls(
                target_row_num=typed.integer("dynamic-bucket.target-row-num"),
                max_buckets=typed.integer("dynamic-bucket.max-buckets"),
                num_assigners=typed.dynamic_bucket_initial_buckets,
            )
        except ValueError as err:
            raise OptionError(f"bad dynamic-bucket option: {err}") from err


@dataclass(frozen=True, slots=True, kw_only=True)
class DynamicAssignment:
    """`assignment`: one row (hash INT32, bucket INT32) per distinct input hash, to join rows on.

    `index_files`: the complete new HASH file of every bucket that gained hashes.
    """

    assignment: pa.Table
    index_files: Mapping[int, bytes] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Slot:
    bucket: int
    start: int
    stop: int


def _java_map_order(buckets: Sequence[int]) -> list[int]:
    """Iteration order of a Java ``HashMap<Integer, Long>`` filled in `buckets` order."""
    capacity = 16
    while len(buckets) > capacity * 3 // 4:
        capacity *= 2
    return sorted(buckets, key=lambda b: (b ^ (b >> 16)) & (capacity - 1))


def _slots(counts: Mapping[int, int], owned: Iterator[int], fresh: int, target: int) -> list[_Slot]:
    """Free capacity in fill order: non-full buckets, then newly opened ones, until `fresh` fit."""
    slots: list[_Slot] = []
    start = 0
    for bucket in _java_map_order(list(counts)):
        if counts[bucket] < target and start < fresh:
            slots.append(_Slot(bucket=bucket, start=start, stop=start + target - counts[bucket]))
            start = slots[-1].stop
    for bucket in owned:
        if start >= fresh:
            break
        if bucket not in counts:
            slots.append(_Slot(bucket=bucket, start=start, stop=start + target))
            start += target
    return slots


def _owned_ids(options: DynamicBucketOptions, assign_id: int) -> Iterator[int]:
    top = MAX_DYNAMIC_BUCKETS if options.max_buckets == -1 else options.max_buckets
    return (b for b in range(top) if b % options.num_assigners == assign_id)


# The engine of `assign_buckets` and of the SQL writer: everything stays in DuckDB tables (it spills
# past its memory limit), so no step holds a partition's hashes in Python. Inputs: ``new_keys``
# (part, hash, pos) in any order, possibly repeating a hash; ``known_raw`` (part, bucket, hash,
# ord) from the existing HASH files. Outputs: ``known`` and ``fresh``, both (part, hash, bucket).
#
# Only existing hashes the input names matter: a semi-join first, then the last bucket of each (a
# hash listed by two buckets' files belongs to the later one, as Java's loading order decides).
_KNOWN_SQL = sqlglot.parse_one(
    "SELECT part, hash, arg_max(bucket, ord) AS bucket FROM known_raw"
    " SEMI JOIN new_keys USING (part, hash) GROUP BY part, hash",
    dialect="duckdb",
)
# The first arrival of every new distinct hash (a GROUP BY spills; a count(DISTINCT) would not).
_FIRSTS_SQL = sqlglot.parse_one(
    "SELECT part, hash, min(pos) AS pos FROM new_keys ANTI JOIN known USING (part, hash)"
    " GROUP BY part, hash",
    dialect="duckdb",
)
_FRESH_COUNT_SQL = sqlglot.parse_one(
    "SELECT part, abs(hash % :n) AS a, count(*) AS fresh FROM firsts GROUP BY ALL",
    dialect="duckdb",
)
# The k-th new distinct hash of an assigner (by first arrival) goes to the slot covering k; past
# every slot, to the assigner's buckets round-robin (``caps``: capacity and bucket count).
_FRESH_SQL = sqlglot.parse_one(
    """
    WITH ranked AS (
        SELECT f.part, f.hash, abs(f.hash % :n) AS a,
               row_number() OVER (PARTITION BY f.part, abs(f.hash % :n) ORDER BY f.pos) - 1 AS rank
        FROM firsts AS f
    ), placed AS (
        SELECT r.part, r.hash, r.a, r.rank, s.bucket FROM ranked AS r LEFT JOIN slots AS s
        ON r.part = s.part AND r.a = s.a AND r.rank >= s.start AND r.rank < s.stop
    )
    SELECT p.part, p.hash, CAST(coalesce(p.bucket, o.bucket) AS INT) AS bucket
    FROM placed AS p JOIN caps AS c ON p.part = c.part AND p.a = c.a
    LEFT JOIN overflow AS o ON p.bucket IS NULL AND p.part = o.part AND p.a = o.a
        AND (p.rank - c.capacity) % c.overflow_count = o.i
    """,
    dialect="duckdb",
)


def _render(template: exp.Expr, tables: Mapping[str, str], **values: int) -> exp.Expression:
    """`template` with its placeholder values and its fixed table names mapped to `tables`."""
    query = exp.replace_placeholders(template.copy(), **values)
    if not isinstance(query, exp.Expression):
        raise TypeError(f"not a statement: {query!r}")
    for node in query.find_all(exp.Table):
        if node.name in tables:
            node.set("this", exp.to_identifier(tables[node.name], quoted=True))
    return query


@dataclass(frozen=True, slots=True, kw_only=True)
class AssignTables:
    """Names of the DuckDB tables one assignment reads and creates (temporary, on one connection).

    `new_keys` (part BIGINT, hash INT, pos BIGINT) and `known_raw` (part BIGINT, bucket INT, hash
    INT, ord BIGINT) exist before; `known` and `fresh` (part, hash, bucket) are created, and
    `firsts` and the small `slots`, `caps` and `overflow` are made and dropped on the way.
    """

    new_keys: str
    known_raw: str
    known: str
    firsts: str
    fresh: str
    slots: str
    caps: str
    overflow: str

    @classmethod
    def unique(cls, new_keys: str, known_raw: str, prefix: str) -> AssignTables:
        """The created tables named ``<prefix>_known`` etc.

        >>> AssignTables.unique("n", "r", "t").fresh
        't_fresh'
        """
        return cls(
            new_keys=new_keys,
            known_raw=known_raw,
            **{
                k: f"{prefix}_{k}"
                for k in ("known", "firsts", "fresh", "slots", "caps", "overflow")
            },
        )

    def mapping(self) -> dict[str, str]:
        """Template table name -> this assignment's table name."""
        return {
            "new_keys": self.new_keys,
            "known_raw": self.known_raw,
            "known": self.known,
            "firsts": self.firsts,
            "slots": self.slots,
            "caps": self.caps,
            "overflow": self.overflow,
        }


def _capacity(
    owned: Mapping[int, int], a: int, fresh: int, options: DynamicBucketOptions
) -> tuple[list[_Slot], int, list[int]]:
    """Where assigner `a`'s `fresh` new hashes go: slots, capacity, every bucket it has.

    Past the capacity, the hashes go round-robin over every bucket (existing and opened).
    `owned`: the assigner's buckets and their hash counts, in loading order.
    """
    slots = _slots(owned, _owned_ids(options, a), fresh, options.target_row_num)
    capacity = slots[-1].stop if slots else 0
    everyone = list(dict.fromkeys([*owned, *(s.bucket for s in slots)]))
    if fresh > capacity and options.max_buckets == -1:
        raise OptionError(
            f"more than {MAX_DYNAMIC_BUCKETS} buckets needed: raise dynamic-bucket.target-row-num"
        )
    if fresh > capacity and not everyone:
        raise OptionError("dynamic-bucket.max-buckets leaves this assigner no bucket")
    return slots, capacity, everyone


def _owned(counts: Mapping[tuple[int, int], int], part: int, a: int, n: int) -> dict[int, int]:
    """Assigner `a`'s buckets of partition `part` and their counts, in `counts`' order."""
    return {b: c for (p, b), c in counts.items() if p == part and b % n == a}


def _placement(
    fresh_counts: Sequence[tuple[int, int, int]],
    counts: Mapping[tuple[int, int], int],
    options: DynamicBucketOptions,
) -> tuple[pa.Table, pa.Table, pa.Table]:
    """The slots, caps and overflow tables for (part, assigner, fresh count) triples."""
    n = options.num_assigners
    slot_rows: dict[str, list[int]] = {"part": [], "a": [], "bucket": [], "start": [], "stop": []}
    cap_rows: dict[str, list[int]] = {"part": [], "a": [], "capacity": [], "overflow_count": []}
    over_rows: dict[str, list[int]] = {"part": [], "a": [], "i": [], "bucket": []}
    for part, a, fresh in fresh_counts:
        slots, capacity, everyone = _capacity(_owned(counts, part, a, n), a, fresh, options)
        for s in slots:
            for key, value in zip(slot_rows, (part, a, s.bucket, s.start, s.stop), strict=True):
                slot_rows[key].append(value)
        for key, value in zip(cap_rows, (part, a, capacity, max(1, len(everyone))), strict=True):
            cap_rows[key].append(value)
        if fresh > capacity:
            for i, bucket in enumerate(everyone):
                for key, value in zip(over_rows, (part, a, i, bucket), strict=True):
                    over_rows[key].append(value)
    int32 = {"bucket"}

    def table(rows: dict[str, list[int]]) -> pa.Table:
        return pa.table(
            {k: pa.array(v, pa.int32() if k in int32 else pa.int64()) for k, v in rows.items()}
        )

    return table(slot_rows), table(cap_rows), table(over_rows)


@dataclass(frozen=True, slots=True, kw_only=True)
class SmallAssignment:
    """`assign_small`'s answer: ``known`` and ``fresh`` as `assign_in_duckdb` creates them.

    Both (part BIGINT, hash INT, bucket INT); `counts`: (part, bucket) -> hashes in its file.
    """

    known: pa.Table
    fresh: pa.Table
    counts: Mapping[tuple[int, int], int]


def _search(
    keys: Sequence[tuple[int, int]], existing: Iterable[tuple[int, int, bytes]]
) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
    """(part, hash) -> bucket of the `keys` a file of `existing` lists (the last such file).

    And (part, bucket) -> the number of hashes in its file (files with none left out).
    """
    wanted: dict[int, set[int]] = {}
    for part, h in keys:
        wanted.setdefault(part, set()).add(h)
    needles = {part: pa.array(sorted(hs), pa.int32()) for part, hs in wanted.items()}
    found: dict[tuple[int, int], int] = {}
    counts: dict[tuple[int, int], int] = {}
    for part, bucket, data in existing:
        values = hashes_to_arrow(data)
        if not len(values):
            continue
        counts[(part, bucket)] = len(values)
        if part in needles:
            hits = values.filter(pc.is_in(values, value_set=needles[part]))
            for hit in hits.to_pylist():
                if hit is not None:  # the files hold no nulls
                    found[(part, hit)] = bucket
    return found, counts


def _placed(
    fresh: int, slots: Sequence[_Slot], capacity: int, everyone: Sequence[int]
) -> list[int]:
    """The bucket of each of `fresh` new hashes by rank: its slot's, past them round-robin."""
    out: list[int] = []
    at = iter(slots)
    slot = next(at, None)
    for rank in range(fresh):
        while slot is not None and rank >= slot.stop:
            slot = next(at, None)
        out.append(slot.bucket if slot is not None else everyone[(rank - capacity) % len(everyone)])
    return out


def assign_small(
    keys: Sequence[tuple[int, int]],
    existing: Iterable[tuple[int, int, bytes]],
    options: DynamicBucketOptions,
) -> SmallAssignment:
    """`assign_in_duckdb` for a few keys, in Python: no table of the existing hashes is built.

    `keys`: (part, hash) in arrival order, repeats allowed; `existing`: (part, bucket, HASH file
    content) in Java's loading order. Each file is searched for the input's hashes only (a hash
    listed by two files belongs to the later one), so the cost is one pass over the files the
    input's partitions hold, not a load of them; the new hashes are placed by the same slots as
    the SQL path (`_capacity`).

    >>> from paimon_sql.format.hash_index import encode_hashes
    >>> out = assign_small([(0, 7), (0, 8), (0, 9), (0, 8)], [(0, 0, encode_hashes([7]))],
    ...                    DynamicBucketOptions(target_row_num=2))
    >>> out.known.to_pylist()
    [{'part': 0, 'hash': 7, 'bucket': 0}]
    >>> out.fresh.column("bucket").to_pylist(), dict(out.counts)
    ([0, 1], {(0, 0): 1})
    """
    found, counts = _search(keys, existing)
    n = options.num_assigners
    firsts: dict[tuple[int, int], list[int]] = {}  # (part, assigner) -> new hashes by arrival
    seen: set[tuple[int, int]] = set()
    for part, h in keys:
        if (part, h) not in found and (part, h) not in seen:
            seen.add((part, h))
            firsts.setdefault((part, abs(h) % n), []).append(h)
    fresh: list[tuple[int, int, int]] = []
    for (part, a), hashes in firsts.items():
        owned = _owned(counts, part, a, n)
        buckets = _placed(len(hashes), *_capacity(owned, a, len(hashes), options))
        fresh.extend((part, h, bucket) for h, bucket in zip(hashes, buckets, strict=True))

    def table(rows: Sequence[tuple[int, int, int]]) -> pa.Table:
        part, hash_, bucket = zip(*rows, strict=True) if rows else ((), (), ())
        return pa.table(
            {
                "part": pa.array(part, pa.int64()),
                "hash": pa.array(hash_, pa.int32()),
                "bucket": pa.array(bucket, pa.int32()),
            }
        )

    known = [(part, h, bucket) for (part, h), bucket in found.items()]
    return SmallAssignment(known=table(known), fresh=table(fresh), counts=counts)


def assign_in_duckdb(
    con: duckdb.DuckDBPyConnection,
    tables: AssignTables,
    counts: Mapping[tuple[int, int], int],
    options: DynamicBucketOptions,
    heavy: Callable[[Callable[[], Any]], Any] | None = None,
) -> None:
    """Java's HashBucketAssigner for every partition of ``tables.new_keys``, inside DuckDB.

    Creates ``tables.known`` (input hashes found in a HASH file keep its bucket) and
    ``tables.fresh`` (the others, placed as `assign_buckets` explains). `counts`: (part, bucket)
    -> number of hashes in that bucket's current HASH file. `execute` runs the statements over
    every key through `heavy` (a writer's retries them under a larger memory cap).

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE n AS SELECT 0::BIGINT part, 5 hash, 0::BIGINT pos")
    >>> _ = con.execute("CREATE TABLE r (part BIGINT, bucket INT, hash INT, ord BIGINT)")
    >>> t = AssignTables.unique("n", "r", "x")
    >>> assign_in_duckdb(con, t, {}, DynamicBucketOptions())
    >>> con.sql("SELECT * FROM x_fresh").fetchall()
    [(0, 5, 0)]
    """

    def run(statement: Callable[[], Any]) -> Any:
        return heavy(statement) if heavy is not None else statement()

    names = tables.mapping()
    n = options.num_assigners
    known = create_temp_table(tables.known, _render(_KNOWN_SQL, names)).sql("duckdb")
    run(lambda: con.execute(known))
    firsts = create_temp_table(tables.firsts, _render(_FIRSTS_SQL, names)).sql("duckdb")
    run(lambda: con.execute(firsts))
    count_sql = _render(_FRESH_COUNT_SQL, names, n=n).sql("duckdb")
    fresh_counts = run(lambda: con.sql(count_sql).fetchall())
    slots, caps, overflow = _placement(fresh_counts, counts, options)
    for name, data in ((tables.slots, slots), (tables.caps, caps), (tables.overflow, overflow)):
        con.register(name, data)
    try:
        fresh = create_temp_table(tables.fresh, _render(_FRESH_SQL, names, n=n)).sql("duckdb")
        run(lambda: con.execute(fresh))
    finally:
        for name in (tables.slots, tables.caps, tables.overflow):
            con.unregister(name)
        con.execute(drop("TABLE", table_node(tables.firsts)).sql("duckdb"))


def known_hashes(
    existing: Iterable[tuple[int, int, bytes]],
) -> Iterator[tuple[pa.Table, tuple[int, int], int]]:
    """Rows of a ``known_raw`` table, one HASH file at a time: (rows, (part, bucket), count).

    `existing`: (part, bucket, file content) in Java's loading order; `count` is what the bucket
    adds to its load (Java counts a bucket while reading its hashes: an empty file adds none).

    >>> from paimon_sql.format.hash_index import encode_hashes
    >>> [(t.column("ord").to_pylist(), pb, c) for t, pb, c in known_hashes(
    ...     [(0, 1, encode_hashes([4, 5])), (0, 2, encode_hashes([6]))])]
    [([0, 1], (0, 1), 2), ([2], (0, 2), 1)]
    """
    offset = 0
    for part, bucket, data in existing:
        values = hashes_to_arrow(data)
        rows = pa.table(
            {
                "part": pa.repeat(pa.scalar(part, pa.int64()), len(values)),
                "bucket": pa.repeat(pa.scalar(bucket, pa.int32()), len(values)),
                "hash": values,
                "ord": arange(len(values), offset),
            }
        )
        offset += len(values)
        yield rows, (part, bucket), len(values)


def grouped_hashes(batches: Iterable[pa.RecordBatch]) -> Iterator[tuple[int, int, bytes]]:
    """(part, bucket, big-endian int32 hashes) of (part, bucket, hash) batches sorted by group.

    One group's hashes are held at a time.

    >>> b = pa.record_batch({"part": [0, 0, 1], "bucket": [0, 0, 0], "hash": [1, 2, 3]})
    >>> [(p, b_, len(h)) for p, b_, h in grouped_hashes([b])]
    [(0, 0, 8), (1, 0, 4)]
    """
    current: tuple[int, int] | None = None
    pieces: list[bytes] = []
    for batch in batches:
        if batch.num_rows == 0:
            continue
        parts = batch.column("part").cast(pa.int64())
        buckets = batch.column("bucket").cast(pa.int64())
        # (part, bucket) as one int64: buckets are below 2^15
        group = pc.add(pc.multiply(parts, 1 << 16), buckets)
        runs = pc.run_end_encode(group)
        start = 0
        for value, end in zip(runs.values.to_pylist(), runs.run_ends.to_pylist(), strict=True):
            key = (int(value) >> 16, int(value) & 0xFFFF)
            if key != current:
                if current is not None:
                    yield current[0], current[1], b"".join(pieces)
                current, pieces = key, []
            pieces.append(hashes_from_arrow(batch.column("hash").slice(start, end - start)))
            start = end
    if current is not None:
        yield current[0], current[1], b"".join(pieces)


def assign_buckets(
    con: duckdb.DuckDBPyConnection,
    hashes: pa.Array | pa.ChunkedArray,
    existing: Mapping[int, bytes],
    options: DynamicBucketOptions,
    positions: pa.Array | pa.ChunkedArray | None = None,
) -> DynamicAssignment:
    """Assign dynamic buckets to one partition's key hashes, as Java's HashBucketAssigner does.

    Args:
        con: a DuckDB connection (temporary tables named ``__paimon_dyn_*`` come and go on it).
        hashes: the trimmed-PK hashes (`paimon_sql.write.bucket.hash_expression`) in arrival order.
        existing: bucket -> content of its current HASH index file (big-endian int32s).
        options: target row number, max buckets and number of assigners.
        positions: increasing int64 arrival positions of `hashes`, when they are not given in
            arrival order (default: their order).

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> r = assign_buckets(con, pa.array([1, 2], pa.int32()), {}, DynamicBucketOptions())
    >>> r.assignment.column("bucket").to_pylist(), list(r.index_files)
    ([0, 0], [0])
    """
    check(options)
    pos = arange(len(hashes)) if positions is None else positions
    new = pa.table(
        {
            "part": pa.repeat(pa.scalar(0, pa.int64()), len(hashes)),
            "hash": pc.cast(hashes, pa.int32()),
            "pos": pc.cast(pos, pa.int64()),
        }
    )
    prefix = f"__paimon_dyn_{next(_counter)}"
    tables = AssignTables.unique(f"{prefix}_new", f"{prefix}_raw", prefix)
    con.register(tables.new_keys, new)
    counts: dict[tuple[int, int], int] = {}
    known_parts = []
    for rows, key, count in known_hashes((0, b, data) for b, data in existing.items()):
        known_parts.append(rows)
        if count:
            counts[key] = count
    raw = pa.concat_tables(known_parts) if known_parts else next(known_hashes([(0, 0, b"")]))[0]
    con.register(tables.known_raw, raw)
    try:
        assign_in_duckdb(con, tables, counts, options)
        known = con.sql(exp.select("hash", "bucket").from_(table_node(tables.known)).sql("duckdb"))
        ordered = exp.select("hash", "bucket").from_(table_node(tables.fresh)).order_by("bucket")
        fresh = con.sql(ordered.sql("duckdb")).to_arrow_table()
        known = known.to_arrow_table()
    finally:
        for name in (tables.known, tables.fresh):
            con.execute(drop("TABLE", table_node(name)).sql("duckdb"))
        con.unregister(tables.new_keys)
        con.unregister(tables.known_raw)
    batches = fresh.append_column("part", pa.repeat(pa.scalar(0, pa.int64()), fresh.num_rows))
    files = {
        bucket: existing.get(bucket, b"") + data
        for _, bucket, data in grouped_hashes(batches.to_batches())
    }
    return DynamicAssignment(assignment=pa.concat_tables([known, fresh]), index_files=files)


def check(options: DynamicBucketOptions) -> None:
    """Refuse dynamic-bucket options Java refuses.

    >>> check(DynamicBucketOptions(target_row_num=0))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paimon_sql.errors.OptionError: dynamic-bucket target-row-num ... must be positive
    """
    if options.target_row_num <= 0 or options.num_assigners <= 0:
        raise OptionError("dynamic-bucket target-row-num and initial-buckets must be positive")
    if not (options.max_buckets == -1 or 0 < options.max_buckets <= MAX_DYNAMIC_BUCKETS):
        raise OptionError(f"dynamic-bucket.max-buckets must be -1 or 1..{MAX_DYNAMIC_BUCKETS}")


def assign_partitions(
    hashes: Mapping[bytes, Sequence[int]],
    existing: Mapping[tuple[bytes, int], bytes],
    options: DynamicBucketOptions,
) -> Iterator[tuple[bytes, DynamicAssignment]]:
    """`assign_buckets` for each partition's distinct key hashes, on a private DuckDB.

    For callers that run no DuckDB themselves (the Spark driver). `hashes` maps a partition (its
    BinaryRow bytes) to its key hashes, `existing` (partition, bucket) to the bucket's current HASH
    index file; the partitions come out in sorted order, each with its hashes sorted.

    >>> out = dict(assign_partitions({b"p": [2, 1]}, {}, DynamicBucketOptions()))
    >>> out[b"p"].assignment.column("bucket").to_pylist(), list(out[b"p"].index_files)
    ([0, 0], [0])
    """
    con = duckdb.connect()
    try:
        for part, part_hashes in sorted(hashes.items()):
            known = {b: blob for (pb, b), blob in existing.items() if pb == part}
            ordered = pa.array(sorted(part_hashes), pa.int32())
            yield part, assign_buckets(con, ordered, known, options)
    finally:
        con.close()
