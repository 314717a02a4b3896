"""Runs inside a second-opinion virtualenv (pypaimon or pypaimon-rust), never imported by tests.

Usage: ``python _worker.py <request.json>``. The request names an operation:

* ``read``:  one table (optionally a snapshot, columns, a SQL ``where``) → Arrow IPC file ``out``.
* ``write``: optionally create the table, then one commit per Arrow IPC file in ``inputs``;
  prints per-commit seconds as JSON on stdout.
* ``bench``: run one workload ``reps`` times; prints seconds per repetition and peak RSS as JSON.

This file imports nothing from the repository: it runs under another interpreter with other
package versions (pyarrow 19 for pypaimon). Errors go to stderr with a non-zero exit code.
"""

# DataFusion SQL for pypaimon-rust, built from test-supplied names and conditions; runs in a venv
# without sqlglot.
# ruff: noqa: S608
from __future__ import annotations

import contextlib
import hashlib
import json
import resource
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc


def _quote(name):
    return '"' + name.replace('"', '""') + '"'


# ---------------------------------------------------------------- pypaimon-rust (DataFusion SQL)
class RustReader:
    def __init__(self, warehouse):
        from pypaimon_rust.datafusion import PaimonCatalog, SQLContext

        self.warehouse = warehouse
        self.ctx = SQLContext()
        self.ctx.register_catalog("paimon", {"warehouse": warehouse})
        self.catalog = PaimonCatalog({"warehouse": warehouse})

    def table_ref(self, table):
        db, name = table.split(".", 1)
        return f"paimon.{_quote(db)}.{_quote(name)}"

    def query(self, sql):
        return self.ctx.sql(sql)

    def read(self, table, snapshot=None, columns=None, where=None, limit=None):
        cols = ", ".join(_quote(c) for c in columns) if columns else "*"
        sql = f"SELECT {cols} FROM {self.table_ref(table)}"
        if snapshot is not None:
            sql += f" VERSION AS OF {int(snapshot)}"
        if where:
            sql += f" WHERE {where}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return self._to_table(sql)

    def _to_table(self, sql):
        batches = self.ctx.sql(sql)
        if batches:
            return pa.Table.from_batches(batches)
        # DataFusion returns no batch (so no schema) for an empty result: get the schema from
        # a one-row outer join, then keep zero rows.
        probe = self.ctx.sql(f"SELECT q.* FROM (SELECT 1 AS one__) d LEFT JOIN ({sql}) q ON true")
        return pa.Table.from_batches(probe).slice(0, 0)

    def write(self, table, create, inputs):
        db, name = table.split(".", 1)
        if create is not None:
            self.ctx.sql(f"CREATE SCHEMA IF NOT EXISTS paimon.{_quote(db)}")
            self.ctx.sql(_create_table_sql(self.table_ref(table), create))
        tbl = self.catalog.get_table(f"{db}.{name}")
        seconds = []
        for path in inputs:
            data = _read_ipc(path)
            start = time.perf_counter()
            builder = tbl.new_batch_write_builder()
            writer = builder.new_write()
            for batch in data.to_batches(max_chunksize=65536):
                writer.write_arrow(batch)
            messages = writer.prepare_commit()
            builder.new_commit().commit(messages)
            writer.close()
            seconds.append(time.perf_counter() - start)
        return seconds


def _create_table_sql(ref, create):
    cols = [f"{_quote(c)} {t}" for c, t in create["columns"]]
    if create.get("primary_keys"):
        cols.append("PRIMARY KEY (" + ", ".join(_quote(k) for k in create["primary_keys"]) + ")")
    sql = f"CREATE TABLE IF NOT EXISTS {ref} ({', '.join(cols)})"
    if create.get("partition_keys"):
        sql += " PARTITIONED BY (" + ", ".join(_quote(k) for k in create["partition_keys"]) + ")"
    options = create.get("options") or {}
    if options:
        sql += " WITH (" + ", ".join(f"'{k}' = '{v}'" for k, v in options.items()) + ")"
    return sql


# ---------------------------------------------------------------- pypaimon (pure Python)
class PyReader:
    def __init__(self, warehouse):
        from pypaimon import CatalogFactory

        self.warehouse = warehouse
        self.catalog = CatalogFactory.create({"warehouse": warehouse})

    def read(self, table, snapshot=None, columns=None, where=None, limit=None):
        from pypaimon.common.where_parser import parse_where_clause

        tbl = self.catalog.get_table(table)
        if snapshot is not None:
            tbl = tbl.copy({"scan.snapshot-id": str(int(snapshot))})
        builder = tbl.new_read_builder()
        if columns:
            builder = builder.with_projection(list(columns))
        if where:
            predicate = parse_where_clause(where, tbl.table_schema.fields)
            if predicate is not None:
                builder = builder.with_filter(predicate)
        if limit is not None and not where:
            builder = builder.with_limit(int(limit))
        splits = builder.new_scan().plan().splits()
        result = builder.new_read().to_arrow(splits)
        if limit is not None:
            result = result.slice(0, int(limit))
        return result

    def write(self, table, create, inputs):
        from pypaimon import Schema

        db, _ = table.split(".", 1)
        if create is not None:
            self.catalog.create_database(db, True)
            fields = [
                pa.field(c, _arrow_type(t), nullable="NOT NULL" not in t)
                for c, t in create["columns"]
            ]
            schema = Schema.from_pyarrow_schema(
                pa.schema(fields),
                partition_keys=create.get("partition_keys") or None,
                primary_keys=create.get("primary_keys") or None,
                options=create.get("options") or None,
            )
            self.catalog.create_table(table, schema, True)
        tbl = self.catalog.get_table(table)
        seconds = []
        for path in inputs:
            data = _read_ipc(path)
            start = time.perf_counter()
            builder = tbl.new_batch_write_builder()
            writer = builder.new_write()
            writer.write_arrow(data)
            commit = builder.new_commit()
            commit.commit(writer.prepare_commit())
            writer.close()
            commit.close()
            seconds.append(time.perf_counter() - start)
        return seconds


_ARROW_TYPES = {
    "BIGINT": pa.int64(),
    "INT": pa.int32(),
    "DOUBLE": pa.float64(),
    "STRING": pa.string(),
    "SMALLINT": pa.int16(),
    "TINYINT": pa.int8(),
    "FLOAT": pa.float32(),
    "BOOLEAN": pa.bool_(),
}


def _arrow_type(sql_type):
    return _ARROW_TYPES[sql_type.replace("NOT NULL", "").strip().upper()]


def _read_ipc(path):
    with pa.memory_map(path) as source:
        return ipc.open_file(source).read_all()


def _write_ipc(table, path):
    with ipc.new_file(path, table.schema) as sink:
        sink.write_table(table)


# ---------------------------------------------------------------- benchmark workloads
def _aggregate(table):
    """count + a sum per column (strings: sum of lengths), computed with pyarrow."""
    out = {"rows": table.num_rows}
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            col = pc.utf8_length(col)
        out[name] = pc.sum(col).as_py()
    return out


def _bench_once(engine, workload):
    """One timed repetition: the workload's result, fully materialized."""
    if isinstance(engine, RustReader):
        sql = workload["sql"].replace("{table}", engine.table_ref(workload["table"]))
        return pa.Table.from_batches(engine.query(sql))
    read = workload["read"]
    table = engine.read(
        workload["table"],
        columns=read.get("columns"),
        where=read.get("where"),
        limit=read.get("limit"),
    )
    return (
        pa.table({k: [v] for k, v in _aggregate(table).items()})
        if workload.get("aggregate")
        else table
    )


def _number(value):
    """Engines differ in sum types (int64, int128/decimal, double) and summation order."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if value is not None and not isinstance(value, int):
        value = float(value)
        return int(value) if value.is_integer() else float(f"{value:.9g}")
    return value


def fingerprint(table, aggregate):
    """What engines must agree on: the aggregate row, or the row count and a digest of every row.

    The digest (`rows_digest`) sees every value of every row, so a stale version of a row (right
    key, old values) differs even where the count and ``sum(id)`` agree.
    """
    if aggregate:
        return {k: _number(v) for k, v in table.to_pylist()[0].items()}
    return {"count": table.num_rows, "rows_sha256": rows_digest(table)}


def rows_digest(table):
    """SHA-256 of a table's rows as a multiset: independent of row order, chunking, column order and
    type width (int32 = int64, string = large_string), sensitive to every value and every NULL.

    Rows are sorted by every column (names in sorted order), each column is brought to a canonical
    type and hashed as its null mask and its values (integers as int64, floats as float64,
    everything else as the bytes of its string form with their lengths). Needs only pyarrow (it
    runs in the second-opinion virtualenvs too).
    """
    names = sorted(table.column_names)
    table = pa.table({n: _canonical(table.column(n)) for n in names})
    if table.num_rows:
        table = _sorted_rows(table)
    digest = hashlib.sha256(f"{table.num_rows} rows\n".encode())
    for name in names:
        digest.update(f"\n{name}\n".encode())
        for part in _column_bytes(table.column(name)):
            digest.update(part)
    return digest.hexdigest()


def _sorted_rows(table):
    """`table` (canonical columns: all sortable), its rows in ascending order of every column."""
    order = pc.sort_indices(table, sort_keys=[(n, "ascending") for n in table.column_names])
    return table.take(order)


def _canonical(column):
    """One column in the type every engine agrees on (see `rows_digest`)."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    t = column.type
    if pa.types.is_integer(t):
        return column.cast(pa.int64())
    if pa.types.is_floating(t):
        return column.cast(pa.float64())
    if pa.types.is_boolean(t):
        return column.cast(pa.int8())
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t):
        return column.cast(pa.large_binary())
    if pa.types.is_large_binary(t):
        return column
    try:  # dates, timestamps, decimals: their text
        return column.cast(pa.large_string()).cast(pa.large_binary())
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # nested types: their Python repr
        values = [None if v is None else repr(v).encode() for v in column.to_pylist()]
        return pa.array(values, pa.large_binary())


def _column_bytes(column):
    """A canonical column (see `_canonical`) as bytes: its null mask, then its values."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    yield _slice(pc.is_null(column).cast(pa.int8()), 1)
    if pa.types.is_large_binary(column.type):
        filled = column.fill_null(b"")
        yield _slice(pc.binary_length(filled).cast(pa.int64()), 8)
        offsets, data = filled.buffers()[1], filled.buffers()[2]
        if len(filled) and data is not None:
            end = filled.offset + len(filled)
            positions = memoryview(offsets)[: (end + 1) * 8].cast("q")
            first, last = positions[filled.offset], positions[end]
            yield memoryview(data)[first:last].tobytes()
        return
    filled = column.fill_null(0) if column.null_count else column
    yield _slice(filled, column.type.bit_width // 8)


def _slice(array, width):
    """The value bytes of a fixed-width array (its slice of the data buffer)."""
    if not len(array):
        return b""
    data = array.buffers()[1]
    return memoryview(data)[array.offset * width : (array.offset + len(array)) * width].tobytes()


def _bench(request):
    start = time.perf_counter()
    engine = _engine(request)
    setup = time.perf_counter() - start
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    seconds, result = [], None
    for _ in range(request["reps"]):
        t0 = time.perf_counter()
        result = _bench_once(engine, request["workload"])
        seconds.append(time.perf_counter() - t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    check = fingerprint(result, request["workload"].get("aggregate", False))
    return {
        "seconds": seconds,
        "check": check,
        "setup_seconds": setup,
        "rss_before_mb": rss_before / 1024,
        "peak_rss_mb": peak / 1024,
    }


def _engine(request):
    return {"pypaimon-rust": RustReader, "pypaimon": PyReader}[request["reader"]](
        request["warehouse"]
    )


def _versions():
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": sys.version.split()[0]}
    for dist in ("pypaimon", "pypaimon-rust", "pyarrow"):
        with contextlib.suppress(PackageNotFoundError):
            out[dist] = version(dist)
    return out


def main(argv):
    with open(argv[1]) as fh:
        request = json.load(fh)
    op = request["op"]
    if op == "read":
        table = _engine(request).read(
            request["table"],
            snapshot=request.get("snapshot"),
            columns=request.get("columns"),
            where=request.get("where"),
        )
        _write_ipc(table, request["out"])
        result = {"rows": table.num_rows}
    elif op == "write":
        result = {
            "seconds": _engine(request).write(
                request["table"], request.get("create"), request["inputs"]
            )
        }
    elif op == "bench":
        result = _bench(request)
    elif op == "versions":
        result = _versions()
    else:
        raise SystemExit(f"unknown op {op!r}")
    result["versions"] = _versions()
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv)
