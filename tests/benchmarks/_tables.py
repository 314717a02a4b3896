"""The benchmark tables, written once by *other* implementations and cached.

``<cache>/bench/rows-<n>/warehouse/bench.db/``:

* ``pk8``: primary key ``id``, 8 fixed buckets (`workloads.PK_BUCKETS`; the count is in the name,
  so the 4-bucket ``pk`` of earlier caches is never taken for it), Parquet; base load + upsert, two
  commits, by pypaimon-rust (no compaction, so a read must merge two level-0 files per bucket).
* ``append``: append table (``bucket=-1``), the base load, by pypaimon-rust.
* ``dv8``: like ``pk8`` plus ``deletion-vectors.enabled``, by Apache Paimon (Java) through Spark:
  Java compacts on commit and marks the rows the upsert superseded in deletion vectors.
* ``append_p<N>``: the base load plus ``p = id % N``, partitioned by ``p``, by pypaimon-rust.
* ``dv_p<N>`` (N = 10, 1000; ``dv8`` is the 1-partition case): like ``dv8``, but with
  ``p = id % N`` in the base load and the upsert, partitioned by ``p``, primary key ``(id, p)``
  (Paimon requires the partition columns in it), `DV_PARTITION_BUCKETS` bucket(s) per partition,
  by Apache Paimon (Java) through Spark.

Each table is complete once its ``<table>.json`` marker (writer, versions, seconds) exists; a
table directory without a marker is deleted and written again.
"""

from __future__ import annotations

import json
import shutil
import sys
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq

from tests.benchmarks import _data
from tests.benchmarks._spark import PAIMON_VERSION, run_spark_job
from tests.benchmarks.workloads import DV, DV_PARTITIONED, PK, PK_BUCKETS
from tests.second_opinion import cache_dir, versions, write_with

if TYPE_CHECKING:
    from pathlib import Path

DATABASE = "bench"
PK_OPTIONS = {"bucket": str(PK_BUCKETS), "file.format": "parquet"}
#: Partitioned append tables (issue 18): ``append_p<N>`` has ``N`` partitions.
PARTITIONED = tuple(f"append_p{n}" for n in _data.PARTITION_COUNTS)
#: Buckets per partition of the partitioned DV tables: 1,000 partitions make 1,000 buckets already.
DV_PARTITION_BUCKETS = 1
#: The Java-written deletion-vector tables (they need Spark to build).
DV_TABLES = (DV, *DV_PARTITIONED)
TABLES = (PK, "append", DV, *PARTITIONED, *DV_PARTITIONED)


def bench_root(rows: int) -> Path:
    return cache_dir() / "bench" / f"rows-{rows}"


def warehouse(rows: int) -> Path:
    return bench_root(rows) / "warehouse"


def table_dir(rows: int, table: str) -> Path:
    return warehouse(rows) / f"{DATABASE}.db" / table


def inputs(rows: int, parts: int | None = None) -> tuple[Path, Path]:
    """Parquet files of the base load and the upsert (inputs for Spark and write benchmarks);
    with ``parts``, both with the partition column ``p`` = ``id % parts``
    (`_data.with_partition`)."""
    root = bench_root(rows) / "input"
    suffix = "" if parts is None else f"_p{parts}"
    base, up = root / f"base{suffix}.parquet", root / f"upsert{suffix}.parquet"
    if not (base.exists() and up.exists()):
        root.mkdir(parents=True, exist_ok=True)
        for path, table in ((base, _data.base(rows)), (up, _data.upsert(rows))):
            if parts is not None:
                table = _data.with_partition(table, parts)
            tmp = path.with_name(path.name + ".tmp")
            pq.write_table(table, tmp)
            tmp.rename(path)
    return base, up


def ensure_tables(
    rows: int, *, with_dv: bool = True, only: set[str] | None = None
) -> dict[str, dict[str, Any]]:
    """Write whatever benchmark table is missing (of `only`, when given); return each marker."""
    wanted = [t for t in TABLES if (with_dv or t not in DV_TABLES) and (only is None or t in only)]
    return {t: _ensure(rows, t) for t in wanted}


def _ensure(rows: int, table: str) -> dict[str, Any]:
    marker = warehouse(rows) / f"{table}.json"
    if marker.exists():
        return dict(json.loads(marker.read_text()))
    path = table_dir(rows, table)
    if path.exists():
        shutil.rmtree(path)
    print(f"[bench] writing {DATABASE}.{table} ({rows} rows) ...", file=sys.stderr)
    if table in PARTITIONED:
        info = _write_partitioned(rows, int(table.removeprefix("append_p")))
    elif table in DV_PARTITIONED:
        info = _write_dv(rows, int(table.removeprefix("dv_p")))
    else:
        info = {PK: _write_pk, "append": _write_append, DV: _write_dv}[table](rows)
    marker.write_text(json.dumps(info, indent=1))
    return info


def _write_pk(rows: int) -> dict[str, Any]:
    base, up = (pq.read_table(p) for p in inputs(rows))
    create = {"columns": list(_data.COLUMNS), "primary_keys": ["id"], "options": PK_OPTIONS}
    seconds = write_with(
        "pypaimon-rust", warehouse(rows), f"{DATABASE}.{PK}", [base, up], create=create
    )
    return {
        "writer": "pypaimon-rust",
        "versions": versions("pypaimon-rust"),
        "commits": ["base", "upsert"],
        "seconds": seconds,
        "options": PK_OPTIONS,
    }


def _write_append(rows: int) -> dict[str, Any]:
    base = pq.read_table(inputs(rows)[0])
    options = {"bucket": "-1", "file.format": "parquet"}
    create = {"columns": list(_data.COLUMNS), "primary_keys": [], "options": options}
    seconds = write_with(
        "pypaimon-rust", warehouse(rows), f"{DATABASE}.append", [base], create=create
    )
    return {
        "writer": "pypaimon-rust",
        "versions": versions("pypaimon-rust"),
        "commits": ["base"],
        "seconds": seconds,
        "options": options,
    }


def _write_partitioned(rows: int, parts: int) -> dict[str, Any]:
    """An append table partitioned by ``p`` (``id % parts``), one commit, by pypaimon-rust."""
    options = {"bucket": "-1", "file.format": "parquet"}
    create = {
        "columns": [*_data.COLUMNS, ("p", "INT")],
        "primary_keys": [],
        "partition_keys": ["p"],
        "options": options,
    }
    data = _data.partitioned(rows, parts)
    name = f"append_p{parts}"
    seconds = write_with(
        "pypaimon-rust", warehouse(rows), f"{DATABASE}.{name}", [data], create=create
    )
    return {
        "writer": "pypaimon-rust",
        "versions": versions("pypaimon-rust"),
        "commits": ["base"],
        "seconds": seconds,
        "options": options,
        "partitions": parts,
    }


def _write_dv(rows: int, parts: int | None = None) -> dict[str, Any]:
    """``dv8`` (``parts`` None) or ``dv_p<parts>``: base load + upsert by Java through Spark."""
    options = {**PK_OPTIONS, "deletion-vectors.enabled": "true"}
    columns = list(_data.COLUMNS)
    keys, partition_keys, table = ["id"], [], DV
    if parts is not None:
        options["bucket"] = str(DV_PARTITION_BUCKETS)
        columns.append(("p", "INT"))
        keys, partition_keys, table = ["id", "p"], ["p"], f"dv_p{parts}"
    answer = run_spark_job(
        {
            "warehouse": str(warehouse(rows)),
            "database": DATABASE,
            "table": table,
            "columns": columns,
            "primary_keys": keys,
            "partition_keys": partition_keys,
            "options": options,
            "inputs": [str(p) for p in inputs(rows, parts)],
            # 6g failed at 50M rows (the job died after ~35 min with ~5 GB free)
            "driver_memory": "12g" if rows > 10_000_000 else "6g",
        }
    )
    info = {
        "writer": f"Apache Paimon {PAIMON_VERSION} (Java) via Spark {answer['spark']}",
        "commits": ["base", "upsert"],
        "seconds": answer["seconds"],
        "count": answer["count"],
        "options": options,
        "primary_keys": keys,
    }
    if parts is not None:
        info["partitions"] = parts
    return info
