"""The read workloads, each written once per engine family.

* ``sql``: generic SQL run by paimon-sql (DuckDB) and pypaimon-rust (DataFusion); ``{table}``
  becomes the engine's table reference.
* ``read``: the same request through a read API (pypaimon): projection, a where string for its
  ``where_parser``, a limit; ``aggregate`` results are then computed with pyarrow.
* ``floor``: hand-written DuckDB SQL over the live files, no planning. ``{merged}`` is the
  deduplicating merge of ``$files``; parameters ``$files`` (live files; level > 0 only for the
  DV table, as Java reads it), ``$bucket0`` (bucket 0's files) and ``$key``.
"""

# SQL text here is fixed benchmark input for several engines (DuckDB, DataFusion), composed from
# constants only; the package's sqlglot-builder rule does not apply to it.
# ruff: noqa: S608
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

VALUES = "id, i1, i2, d1, d2, s1, s2"
AGG = (
    'count(*) AS "rows", sum(id) AS id, sum(i1) AS i1, sum(i2) AS i2, sum(d1) AS d1, '
    "sum(d2) AS d2, sum(length(s1)) AS s1, sum(length(s2)) AS s2"
)
NONKEY = "i1 BETWEEN 1000 AND 10999"

# Deduplicate: per key the row with the highest _SEQUENCE_NUMBER, dropped if it is a retraction
# (-U = 1, -D = 3), paimon-format.md §9.
_MERGE = (
    "SELECT " + VALUES + " FROM read_parquet({src}) {pre}"
    " QUALIFY row_number() OVER (PARTITION BY id ORDER BY _SEQUENCE_NUMBER DESC) = 1"
    " AND _VALUE_KIND IN (0, 2)"
)
MERGED = _MERGE.format(src="$files", pre="")
MERGED_BUCKET0 = _MERGE.format(src="$bucket0", pre="")
MERGED_KEY = _MERGE.format(src="$files", pre="WHERE id = $key")
# DV table: level > 0 files read as they are, minus the positions in their deletion vectors.
_DV_SCAN = (
    "SELECT {values} FROM read_parquet($files, {hive}filename = true, file_row_number = true)"
    " ANTI JOIN deleted USING (filename, file_row_number) WHERE _VALUE_KIND IN (0, 2)"
)
DV_SCAN = _DV_SCAN.format(values=VALUES, hive="")
PLAIN = f"SELECT {VALUES} FROM read_parquet($files)"
# Partitioned append tables (issue 18): the partition column ``p`` is stored in the files too, and
# read from them (DuckDB would take it from the ``p=<n>`` folder names otherwise).
PARTITIONED_VALUES = VALUES + ", p"
PARTITIONED_AGG = AGG + ", sum(p) AS p"
_FILES = "read_parquet($files, hive_partitioning = false)"
PARTITIONED_PLAIN = f"SELECT {PARTITIONED_VALUES} FROM {_FILES}"
PARTITIONED_PLAIN_AGG = f"SELECT {PARTITIONED_AGG} FROM {_FILES}"
# Partitioned DV tables: the same, ``p`` read from the files.
DV_PARTITIONED_SCAN = _DV_SCAN.format(values=PARTITIONED_VALUES, hive="hive_partitioning = false, ")
#: Buckets of the ``pk`` and ``dv`` tables (issue 18: PK with 8 buckets). The count is part of the
#: table names (``pk8``, ``dv8``), so cached tables of another layout are never reused.
PK_BUCKETS = 8
PK = f"pk{PK_BUCKETS}"
DV = f"dv{PK_BUCKETS}"
#: Java-written partitioned DV tables (issue 18: 10 and 1,000 partitions; ``dv8`` is the 1-partition
#: case): ``dv_p<N>``, ``p`` = ``id % N``, built by `_tables.py`.
DV_PARTITION_COUNTS = (10, 1000)
DV_PARTITIONED = tuple(f"dv_p{n}" for n in DV_PARTITION_COUNTS)


@dataclass(frozen=True, slots=True, kw_only=True)
class Workload:
    name: str
    table: str
    description: str
    sql: str
    floor: str
    read: dict[str, Any] = field(default_factory=dict)
    aggregate: bool = False
    #: The issue-2 scan reference: a plain ``read_parquet`` of the same live files (no deletion
    #: vectors, no row-kind filter), timed as the ``read_parquet`` column; empty where not a scan.
    plain: str = ""

    def as_request(self, key: int) -> dict[str, Any]:
        """JSON-able form with ``{key}`` substituted (for the subprocess engines)."""
        read = {
            k: (v.replace("{key}", str(key)) if isinstance(v, str) else v)
            for k, v in self.read.items()
        }
        return {
            "name": self.name,
            "table": f"bench.{self.table}",
            "sql": self.sql.replace("{key}", str(key)),
            "floor": self.floor,
            "plain": self.plain,
            "read": read,
            "aggregate": self.aggregate,
            "key": key,
        }


WORKLOADS: tuple[Workload, ...] = (
    Workload(
        name="pk_full_arrow",
        table=PK,
        description="PK table, full merged read, all columns to Arrow",
        sql="SELECT * FROM {table}",
        floor=MERGED,
    ),
    Workload(
        name="pk_full_agg",
        table=PK,
        aggregate=True,
        description="PK table, full merged read, count + sum of every column",
        sql=f"SELECT {AGG} FROM {{table}}",
        floor=f"SELECT {AGG} FROM ({MERGED})",
    ),
    Workload(
        name="pk_point",
        table=PK,
        description="PK table, WHERE id = <an updated key>",
        sql="SELECT * FROM {table} WHERE id = {key}",
        floor=MERGED_KEY,
        read={"where": "id = {key}"},
    ),
    Workload(
        name="pk_nonkey",
        table=PK,
        description=f"PK table, non-key predicate {NONKEY} (~1%), after the merge",
        sql=f"SELECT * FROM {{table}} WHERE {NONKEY}",
        floor=f"SELECT * FROM ({MERGED}) WHERE {NONKEY}",
        read={"where": NONKEY},
    ),
    Workload(
        name="pk_limit10",
        table=PK,
        description="PK table, SELECT * LIMIT 10 (floor merges bucket 0 only)",
        sql="SELECT * FROM {table} LIMIT 10",
        floor=f"SELECT * FROM ({MERGED_BUCKET0}) LIMIT 10",
        read={"limit": 10},
    ),
    Workload(
        name="dv_full_arrow",
        table=DV,
        description="deletion-vector PK table (Java-written), full scan to Arrow",
        sql="SELECT * FROM {table}",
        floor=DV_SCAN,
        plain=PLAIN,
    ),
    Workload(
        name="append_full_arrow",
        table="append",
        description="append table, full scan to Arrow",
        sql="SELECT * FROM {table}",
        floor=PLAIN,
        plain=PLAIN,
    ),
)


def _scan_pair(table: str, what: str, floor: str, full: str) -> tuple[Workload, ...]:
    """A partitioned table's full scan to Arrow and aggregate of every column.

    `what` starts the aggregate's description, `full` is the full scan's; `floor` is the exact
    answer of the full scan (the aggregate's is over it), the plain reference reads the files.
    """
    plain = floor == PARTITIONED_PLAIN  # an append table: the files are the answer
    agg_floor = PARTITIONED_PLAIN_AGG if plain else f"SELECT {PARTITIONED_AGG} FROM ({floor})"
    return (
        Workload(
            name=f"{table}_full_arrow",
            table=table,
            description=full,
            sql="SELECT * FROM {table}",
            floor=floor,
            plain=PARTITIONED_PLAIN,
        ),
        Workload(
            name=f"{table}_agg",
            table=table,
            aggregate=True,
            description=f"{what}, count + sum of every column",
            sql=f"SELECT {PARTITIONED_AGG} FROM {{table}}",
            floor=agg_floor,
            plain=PARTITIONED_PLAIN_AGG,
        ),
    )


def _partitioned(parts: int) -> tuple[Workload, ...]:
    what = f"append table with {parts} partition(s)"
    return _scan_pair(f"append_p{parts}", what, PARTITIONED_PLAIN, f"{what}, full scan to Arrow")


#: Issue 18's partitioned scans: ``--only append_p1000_full_arrow`` etc.; the ``partitions``
#: suite runs them all.
PARTITIONED_WORKLOADS: tuple[Workload, ...] = tuple(
    w for n in (1, 10, 1000) for w in _partitioned(n)
)


def _dv_partitioned(parts: int) -> tuple[Workload, ...]:
    return _scan_pair(
        f"dv_p{parts}",
        f"deletion-vector table, {parts} partitions",
        DV_PARTITIONED_SCAN,
        f"deletion-vector table with {parts} partitions (Java-written), full scan",
    )


#: The deletion-vector tables' scans of ``partitions_ab --dv`` (``dv8``, ``dv_p10``,
#: ``dv_p1000``): ``floor`` is the exact answer, ``plain`` the timed reference (the same files,
#: deleted rows included).
DV_WORKLOADS = (
    Workload(
        name="dv_full_arrow",
        table=DV,
        description="deletion-vector table (Java-written), full scan to Arrow",
        sql="SELECT * FROM {table}",
        floor=DV_SCAN,
        plain=PLAIN,
    ),
    Workload(
        name="dv_agg",
        table=DV,
        aggregate=True,
        description="deletion-vector table, count + sum of every column",
        sql=f"SELECT {AGG} FROM {{table}}",
        floor=f"SELECT {AGG} FROM ({DV_SCAN})",
        plain=f"SELECT {AGG} FROM read_parquet($files)",
    ),
    *(w for n in DV_PARTITION_COUNTS for w in _dv_partitioned(n)),
)

#: The scale suite (issue 18, item 5: PK with 8 buckets, DV, append partitioned): the read suite
#: plus the 10-partition append table.
SCALE_WORKLOADS: tuple[Workload, ...] = WORKLOADS + _partitioned(10)
