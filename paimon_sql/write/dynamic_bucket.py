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

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import sqlglot

from paimon_sql.errors import OptionError
from paimon_sql.format.hash_index import hashes_from_arrow, hashes_to_arrow
from paimon_sql.format.options import CoreOptions
from paimon_sql.io.arrays import arange

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

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


_ASSIGN_SQL = sqlglot.parse_one(
    """
    WITH firsts AS (
        SELECT hash, min(pos) AS pos FROM new_keys GROUP BY hash
    ), fresh AS (
        SELECT f.hash, row_number() OVER (ORDER BY f.pos) - 1 AS rank
        FROM firsts AS f ANTI JOIN known AS k ON f.hash = k.hash
    ), placed AS (
        SELECT fresh.hash, fresh.rank, s.bucket FROM fresh LEFT JOIN slots AS s
        ON fresh.rank >= s.start AND fresh.rank < s.stop
    )
    SELECT placed.hash, coalesce(placed.bucket, o.bucket) AS bucket, placed.rank
    FROM placed LEFT JOIN overflow AS o
    ON placed.bucket IS NULL AND (placed.rank - :capacity) % :overflow_count = o.i
    """,
    dialect="duckdb",
)


def _fresh_count(con: duckdb.DuckDBPyConnection) -> int:
    query = "SELECT count(DISTINCT hash) FROM new_keys ANTI JOIN known USING (hash)"
    return int(con.sql(query).fetchall()[0][0])


def _owned_ids(options: DynamicBucketOptions, assign_id: int) -> Iterator[int]:
    top = MAX_DYNAMIC_BUCKETS if options.max_buckets == -1 else options.max_buckets
    return (b for b in range(top) if b % options.num_assigners == assign_id)


def _assign_one(
    con: duckdb.DuckDBPyConnection,
    counts: Mapping[int, int],
    options: DynamicBucketOptions,
    assign_id: int,
) -> pa.Table:
    """Place the new hashes of one assigner; `new_keys` and `known` are already filtered."""
    fresh = _fresh_count(con)
    slots = _slots(counts, _owned_ids(options, assign_id), fresh, options.target_row_num)
    capacity = slots[-1].stop if slots else 0
    everyone = list(dict.fromkeys([*counts, *(s.bucket for s in slots)]))
    if fresh > capacity and options.max_buckets == -1:
        raise OptionError(
            f"more than {MAX_DYNAMIC_BUCKETS} buckets needed: raise dynamic-bucket.target-row-num"
        )
    if fresh > capacity and not everyone:
        raise OptionError("dynamic-bucket.max-buckets leaves this assigner no bucket")
    slot_table = pa.table(
        {
            "bucket": pa.array([s.bucket for s in slots], pa.int32()),
            "start": pa.array([s.start for s in slots], pa.int64()),
            "stop": pa.array([s.stop for s in slots], pa.int64()),
        }
    )
    overflow = pa.table(
        {"i": pa.array(range(len(everyone)), pa.int64()), "bucket": pa.array(everyone, pa.int32())}
    )
    con.register("slots", slot_table)
    con.register("overflow", overflow)
    query = sqlglot.exp.replace_placeholders(
        _ASSIGN_SQL.copy(), capacity=capacity, overflow_count=max(1, len(everyone))
    )
    return con.sql(query.sql("duckdb")).to_arrow_table()


# Only existing hashes the input names matter: a semi-join first, then the last bucket of each (a
# hash listed by two buckets' files belongs to the later one, as Java's loading order decides).
_KNOWN_SQL = sqlglot.parse_one(
    "SELECT hash, arg_max(bucket, ord) AS bucket FROM known_raw"
    " WHERE hash IN (SELECT hash FROM all_new) GROUP BY hash",
    dialect="duckdb",
)
_FILTER_SQL = sqlglot.parse_one(
    "SELECT * FROM all_new WHERE abs(hash % :n) = :id", dialect="duckdb"
)
_FILTER_KNOWN_SQL = sqlglot.parse_one(
    "SELECT * FROM all_known WHERE abs(hash % :n) = :id", dialect="duckdb"
)


def _known_table(existing: Mapping[int, bytes]) -> tuple[pa.Table, dict[int, int]]:
    """(hash, bucket, ord) of the existing HASH files, and each bucket's hash count."""
    hashes, buckets, counts = [], [], {}
    for bucket, data in existing.items():
        values = hashes_to_arrow(data)
        hashes.append(values)
        buckets.append(pa.repeat(pa.scalar(bucket, pa.int32()), len(values)))
        if len(values):  # Java counts a bucket while reading its hashes: an empty file adds none
            counts[bucket] = len(values)
    hash_col = pa.concat_arrays(hashes) if hashes else pa.array([], pa.int32())
    bucket_col = pa.concat_arrays(buckets) if buckets else pa.array([], pa.int32())
    order = arange(len(hash_col))
    return pa.table({"hash": hash_col, "bucket": bucket_col, "ord": order}), counts


def _run(
    con: duckdb.DuckDBPyConnection, template: sqlglot.exp.Expression, **values: int
) -> pa.Table:
    query = sqlglot.exp.replace_placeholders(template.copy(), **values)
    return con.sql(query.sql("duckdb")).to_arrow_table()


def _new_files(existing: Mapping[int, bytes], fresh: pa.Table) -> dict[int, bytes]:
    """Old HASH file content plus the bucket's new hashes.

    Java writes a bucket's hashes in the iteration order of its hash set, so readers take no order
    from the file; the new ones are grouped by a stable counting sort on the bucket (fast: few
    distinct values) and keep the query's order within it.
    """
    if fresh.num_rows == 0:
        return {}
    buckets = fresh.column("bucket").combine_chunks()
    order = pc.sort_indices(buckets)
    # Big-endian int32s (format/hash_index.py), one slice of the sorted hashes per bucket.
    data = hashes_from_arrow(fresh.column("hash").combine_chunks().take(order))
    runs = pc.run_end_encode(buckets.take(order))
    files: dict[int, bytes] = {}
    start = 0
    for bucket, end in zip(runs.values.to_pylist(), runs.run_ends.to_pylist(), strict=True):
        files[int(bucket)] = existing.get(int(bucket), b"") + data[4 * start : 4 * end]
        start = end
    return files


def assign_buckets(
    con: duckdb.DuckDBPyConnection,
    hashes: pa.Array | pa.ChunkedArray,
    existing: Mapping[int, bytes],
    options: DynamicBucketOptions,
    positions: pa.Array | pa.ChunkedArray | None = None,
) -> DynamicAssignment:
    """Assign dynamic buckets to one partition's key hashes, as Java's HashBucketAssigner does.

    Args:
        con: a DuckDB connection (tables named ``all_new``, ``new_keys``, ``known*``, ``slots``,
            ``overflow`` are registered on it).
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
    if options.target_row_num <= 0 or options.num_assigners <= 0:
        raise OptionError("dynamic-bucket target-row-num and initial-buckets must be positive")
    if not (options.max_buckets == -1 or 0 < options.max_buckets <= MAX_DYNAMIC_BUCKETS):
        raise OptionError(f"dynamic-bucket.max-buckets must be -1 or 1..{MAX_DYNAMIC_BUCKETS}")
    known_raw, counts = _known_table(existing)
    pos = arange(len(hashes)) if positions is None else positions
    new = pa.table({"pos": pc.cast(pos, pa.int64()), "hash": hashes})
    con.register("known_raw", known_raw)
    con.register("all_new", new)
    kept = _run(con, _KNOWN_SQL)  # (hash, bucket) of every known input hash: they keep their bucket
    con.register("all_known", kept)
    parts = [kept]
    fresh_parts = []
    n = options.num_assigners
    for assign_id in range(n):
        if n == 1:  # the filters would copy everything
            con.register("new_keys", new)
            con.register("known", kept)
        else:
            con.register("new_keys", _run(con, _FILTER_SQL, n=n, id=assign_id))
            con.register("known", _run(con, _FILTER_KNOWN_SQL, n=n, id=assign_id))
        owned = {b: c for b, c in counts.items() if b % n == assign_id}
        fresh_parts.append(_assign_one(con, owned, options, assign_id))
    fresh = pa.concat_tables(fresh_parts)
    parts.append(fresh.select(["hash", "bucket"]))
    assignment = pa.concat_tables([p.cast(parts[0].schema) for p in parts])
    return DynamicAssignment(assignment=assignment, index_files=_new_files(existing, fresh))


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
