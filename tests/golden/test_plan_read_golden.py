"""Scan plans and read SQL of Java-written tables, pinned as files.

Files: ``plan/<case>.txt`` and ``read/<case>.sql``. Each case is a query on a table in
``tests/data/fixtures``. The query's WHERE becomes the pushed predicate (as the binder derives it),
``plan_scan`` plans the read, and ``read.build`` turns the plan into SQL: one query per split (the
stream of the split reader) and, for local Parquet tables, the whole scan as one query
(``plan_query``, the inlined read). A change to either shows as a diff against the pinned files.

Regenerate after an intended change: ``PAIMON_SQL_UPDATE_GOLDEN=1`` (see ``README.md``), then review
the diff with ``git diff tests/golden``.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
import pytest
import sqlglot
from sqlglot import exp

import paimon_sql
from paimon_sql.catalog import Catalog

# The binder's WHERE -> Predicate translation (engine slice: moves to paimon_sql.engine.binder).
from paimon_sql.engine.pushdown import table_predicate
from paimon_sql.format.binary_row import decode_row
from paimon_sql.plan.explain import explain_rows
from paimon_sql.plan.scan import ReadMode, plan_scan, read_vector
from paimon_sql.read.build import (
    DV_BITS,
    POS,
    ReadRequest,
    parquet_source,
    physical_columns,
    plan_query,
    split_query,
    table_source,
)
from tests.fixtures import FIXTURES

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.plan.scan import ScanPlan, Split
    from paimon_sql.read.build import (
        FileSource,
    )

HERE = Path(__file__).resolve().parent
UPDATE = os.environ.get("PAIMON_SQL_UPDATE_GOLDEN") == "1"
ROOT = "<fixtures>"  # stands for the fixture folder in pinned paths
SEQ, KIND = "_SEQUENCE_NUMBER", "_VALUE_KIND"

CPP_PARQUET = "paimon-cpp/test/test_data/parquet"
CPP_ORC = "paimon-cpp/test/test_data/orc"
JAVA = "generated-paimon-java-0.9/warehouse"
DUCKDB = "duckdb-paimon/data"


@dataclass(frozen=True)
class Case:
    """One query on one fixture table; `snapshot` reads that snapshot with its own schema."""

    id: str
    title: str
    warehouse: str
    query: str
    snapshot: int | None = None


CASES = [
    Case(
        "pk_mor_overlap",
        "MOR, two partition keys, overlapping sequence ranges: window merge per section",
        CPP_PARQUET,
        "SELECT * FROM pk_table_with_mor.pk_table_with_mor",
    ),
    Case(
        "pk_mor_partition_filter",
        "partition filter prunes partitions; the key filter goes below the merge",
        CPP_PARQUET,
        "SELECT * FROM pk_table_with_mor.pk_table_with_mor WHERE p0 = 0 AND p1 = 1 AND k0 >= 0",
    ),
    Case(
        "pk_mor_anti_join",
        "MOR with disjoint sequence ranges: the anti-join chain",
        CPP_PARQUET,
        "SELECT * FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor",
    ),
    Case(
        "pk_mor_point_lookup",
        "every key column pinned: window merge instead of the chain, value filter above the merge",
        CPP_PARQUET,
        "SELECT f0, f3 FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor "
        "WHERE f0 = 'Alex' AND f1 = 10 AND f2 = 0 AND f3 > 0",
    ),
    Case(
        "pk_mor_key_stats",
        "key statistics prune files of a merge-on-read table",
        CPP_PARQUET,
        "SELECT * FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor WHERE f0 < 'B'",
    ),
    Case(
        "pk_mor_snapshot_1",
        "time travel to snapshot 1 (its own schema)",
        CPP_PARQUET,
        "SELECT * FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor",
        snapshot=1,
    ),
    Case(
        "pk_mor_orc",
        "ORC data files: registered Arrow tables instead of read_parquet",
        CPP_ORC,
        "SELECT * FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor",
    ),
    Case(
        "pk_first_row",
        "first-row: level-0 files hidden, value statistics may prune",
        CPP_PARQUET,
        "SELECT * FROM pk_table_scan_and_read_first_row.pk_table_scan_and_read_first_row "
        "WHERE f3 > 15",
    ),
    Case(
        "pk_dv",
        "deletion vectors: level-0 hidden, DV refs anti-joined on the row position",
        CPP_PARQUET,
        "SELECT * FROM pk_table_scan_and_read_dv.pk_table_scan_and_read_dv",
    ),
    Case(
        "pk_dv_value_filter",
        "deletion vectors: a value filter (planning keeps every file here; the SQL applies it)",
        CPP_PARQUET,
        "SELECT * FROM pk_table_scan_and_read_dv.pk_table_scan_and_read_dv WHERE f3 < 12",
    ),
    Case(
        "pk_09_bucket_filter",
        "Paimon 0.9 layout, DV, 2 buckets: the bucket-key filter prunes a bucket",
        CPP_PARQUET,
        "SELECT * FROM pk_09.pk_09 WHERE f2 = 0",
    ),
    Case(
        "pk_alter_table_dv",
        "schema evolution (rename, reorder, add, type change) with deletion vectors",
        CPP_PARQUET,
        "SELECT * FROM pk_table_with_alter_table.pk_table_with_alter_table",
    ),
    Case(
        "pk_nested",
        "nested types (struct, list, map) in a MOR merge",
        CPP_PARQUET,
        "SELECT * FROM pk_table_nested_type.pk_table_nested_type",
    ),
    Case(
        "append_alter_table",
        "append table with schema evolution: files read under their own schema",
        CPP_PARQUET,
        "SELECT * FROM append_table_with_alter_table.append_table_with_alter_table",
    ),
    Case(
        "append_complex",
        "append table with complex types and a filter above the scan",
        CPP_PARQUET,
        "SELECT * FROM append_complex_data.append_complex_data WHERE f1 IS NOT NULL",
    ),
    Case(
        "java_partial_update",
        "partial-update merge engine (grouped merge)",
        JAVA,
        "SELECT * FROM db.pk_pu",
    ),
    Case(
        "java_aggregation",
        "aggregation merge engine (sum, listagg)",
        JAVA,
        "SELECT * FROM db.pk_agg",
    ),
    Case(
        "java_sequence_field",
        "sequence.field orders the merge",
        JAVA,
        "SELECT * FROM db.pk_seq",
    ),
    Case(
        "java_avro",
        "Avro data files",
        JAVA,
        "SELECT * FROM db.pk_avro WHERE id IN (1, 2)",
    ),
    Case(
        "java_partitioned_dv",
        "partitioned primary-key table with deletion vectors",
        JAVA,
        "SELECT * FROM db.pk_part_dv",
    ),
    Case(
        "duckdb_append_orc_manifests",
        "append table with ORC manifests (written by paimon-cpp)",
        DUCKDB,
        "SELECT * FROM testdb.testtbl",
    ),
]


# --- the plan ---------------------------------------------------------------------------------


def _relative(path: str) -> str:
    return path.replace(str(FIXTURES), ROOT)


@functools.cache
def _load(case: Case) -> tuple[ScanPlan, Predicate | None, tuple[str, ...]]:
    statement = sqlglot.parse_one(case.query, read="duckdb")
    node = next(statement.find_all(exp.Table))
    table = Catalog(FIXTURES / case.warehouse).load_table(f"{node.db}.{node.name}")
    if case.snapshot is None:
        snapshot, schema = table.latest_snapshot(), table.latest_schema
    else:
        snapshot = table.snapshot(case.snapshot)
        schema = table.schema(snapshot.schema_id)
    predicate = table_predicate(node, set(schema.field_names))
    plan = plan_scan(table, snapshot, predicate, schema)
    star = any(isinstance(c, exp.Star) for c in statement.expressions)
    columns = schema.field_names if star else [c.name for c in statement.expressions]
    return plan, predicate, tuple(columns)


def _key_range(plan: ScanPlan, f: DataFileMeta) -> str:
    keys = plan.schema.trimmed_primary_keys
    if not keys or not f.min_key:
        return ""
    types = [plan.schema.field(k).type for k in keys]
    return f" keys {decode_row(f.min_key, types)!r}..{decode_row(f.max_key, types)!r}"


def _file_line(plan: ScanPlan, f: DataFileMeta) -> str:
    deletes = f" deletes={f.delete_row_count}" if f.delete_row_count else ""
    return (
        f"{f.file_name} level={f.level} schema={f.schema_id} rows={f.row_count}{deletes} "
        f"seq=[{f.min_sequence_number}, {f.max_sequence_number}]{_key_range(plan, f)}"
    )


def _split_lines(plan: ScanPlan, i: int, split: Split) -> list[str]:
    lines = [
        f"split {i}: partition={split.partition!r} bucket={split.bucket} rows={split.row_count}",
        f"  path {_relative(split.bucket_path)}",
    ]
    for j, section in enumerate(split.sections):
        lines.append(f"  section {j}: {'merge' if section.merge else 'as is'}")
        lines.extend(f"    {_file_line(plan, f)}" for f in section.files)
    for name, ref in split.deletion_vectors:
        m = ref.meta
        lines.append(
            f"  dv {name} -> {ref.index_file} offset={m.offset} length={m.length} "
            f"cardinality={m.cardinality} ({_relative(ref.index_path)})"
        )
    return lines


def render_plan(
    case: Case, plan: ScanPlan, predicate: Predicate | None, columns: Sequence[str]
) -> str:
    """The plan as stable text: header, pushed predicate, EXPLAIN lines, then every split."""
    lines = _header(case, "--")
    lines.append(f"columns: {', '.join(columns)}")
    lines.append(f"pushed predicate: {predicate!r}")
    lines.append(f"mode: {plan.mode.value}")
    if plan.schema.primary_keys:
        lines.append(f"merge engine: {plan.options.merge_engine.value}")
    lines.extend(f"{key}: {value}" for key, value in explain_rows(plan))
    for i, split in enumerate(plan.splits):
        lines.extend(_split_lines(plan, i, split))
    return "\n".join(lines) + "\n"


# --- the read SQL -----------------------------------------------------------------------------


def _data_path(split: Split, f: DataFileMeta) -> str:
    return f.external_path or f"{split.bucket_path}/{f.file_name}"


def _stream_sources(
    plan: ScanPlan, split: Split, request: ReadRequest, dv_tables: Mapping[str, str]
) -> dict[str, FileSource]:
    """As the split reader makes them: Parquet read by DuckDB, ORC and Avro registered as Arrow
    tables (named here by position, where the reader uses a counter)."""
    sources = {}
    for n, f in enumerate(split.files):
        with_position = f.file_name in dv_tables
        if f.format == "parquet":
            names = [*plan.table.schema(f.schema_id).field_names, SEQ, KIND]
            sources[f.file_name] = parquet_source(_data_path(split, f), names, with_position)
        else:
            columns = physical_columns(plan, f, request) + ([POS] if with_position else [])
            sources[f.file_name] = table_source(f"__paimon_file_{n}", columns)
    return sources


class _Deletions:
    """`read.build.Deletions` naming the tables the inlined read would register (one per group)."""

    def __init__(self, plan: ScanPlan) -> None:
        self.refs = {name for split in plan.splits for name, _ in split.deletion_vectors}
        self.count = 0

    def _name(self) -> str:
        self.count += 1
        return f"__paimon_deleted_{self.count}"

    def vectors(self, files: Sequence[DataFileMeta]) -> exp.Select | None:
        """The registered table's one-row query, as the engine builds it without parameters."""
        if not any(f.file_name in self.refs for f in files):
            return None
        bits = exp.cast(exp.column(DV_BITS, quoted=True), "BIT[]")
        query = exp.select(exp.alias_(bits, DV_BITS, quoted=True))
        return query.from_(exp.Table(this=exp.to_identifier(self._name(), quoted=True)))

    def mask(self, f: DataFileMeta) -> str | None:
        return self._name() if f.file_name in self.refs else None

    def file_list(self, paths: Sequence[str]) -> exp.Expression:
        """Literal paths, as an inlined read without statement parameters writes them."""
        return exp.Array(expressions=[exp.Literal.string(p) for p in paths])


def _pretty(query: exp.Expression) -> str:
    return _relative(query.sql(dialect="duckdb", pretty=True))


def _inlined(plan: ScanPlan, predicate: Predicate | None) -> exp.Select | None:
    """`plan_query` as the inlined read builds it (local Parquet only; every column, the statement's
    own projection and WHERE stay around it)."""
    files = [(split, f) for split in plan.splits for f in split.files]
    if any(f.format != "parquet" for _, f in files):
        return None
    dv_tables: dict[str, str] = {}
    for split in plan.splits:
        if any(section.merge for section in split.sections):
            for name, _ in split.deletion_vectors:
                dv_tables[name] = f"__paimon_dv_{len(dv_tables)}"
    sources, paths = {}, {}
    for split, f in files:
        paths[f.file_name] = _data_path(split, f)
        names = [*plan.table.schema(f.schema_id).field_names, SEQ, KIND]
        sources[f.file_name] = parquet_source(paths[f.file_name], names, f.file_name in dv_tables)
    filters = (predicate,) if predicate is not None else ()
    return plan_query(plan, sources, dv_tables, paths, _Deletions(plan), filters=filters)


def render_sql(
    case: Case, plan: ScanPlan, predicate: Predicate | None, columns: Sequence[str]
) -> str:
    """Each split's query (the stream), then the inlined query, pretty-printed for DuckDB."""
    request = ReadRequest(columns=tuple(columns), filters=(predicate,) if predicate else ())
    parts = ["\n".join(_header(case, "--"))]
    for i, split in enumerate(plan.splits):
        dv_tables = {name: f"__paimon_dv_{n}" for n, (name, _) in enumerate(split.deletion_vectors)}
        sources = _stream_sources(plan, split, request, dv_tables)
        query = split_query(plan, split, request, sources, dv_tables)
        parts.append(f"-- split {i} (stream)\n{_pretty(query)};")
    inlined = _inlined(plan, predicate)
    if inlined is not None:
        parts.append(f"-- inlined (plan_query)\n{_pretty(inlined)};")
    return "\n\n".join(parts) + "\n"


# --- the tests --------------------------------------------------------------------------------


def _header(case: Case, mark: str) -> list[str]:
    lines = [f"{mark} title: {case.title}", f"{mark} warehouse: {ROOT}/{case.warehouse}"]
    lines.append(f"{mark} query: {case.query}")
    if case.snapshot is not None:
        lines.append(f"{mark} snapshot: {case.snapshot}")
    lines.append(
        f"{mark} made by: tests/golden/test_plan_read_golden.py (PAIMON_SQL_UPDATE_GOLDEN=1)"
    )
    return lines


def _check(path: Path, text: str) -> None:
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        return
    if not path.exists():
        pytest.fail(f"{path} is missing: run with PAIMON_SQL_UPDATE_GOLDEN=1 to write it")
    pinned = path.read_text()
    if text != pinned:
        diff = difflib.unified_diff(
            pinned.splitlines(), text.splitlines(), "pinned", "now", lineterm="", n=2
        )
        shown = "\n".join(itertools.islice(diff, 60))
        pytest.fail(
            f"{path.relative_to(HERE)} no longer matches (if the change is intended, regenerate "
            f"with PAIMON_SQL_UPDATE_GOLDEN=1 and review `git diff tests/golden`):\n{shown}"
        )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_plan_golden(case):
    plan, predicate, columns = _load(case)
    _check(HERE / "plan" / f"{case.id}.txt", render_plan(case, plan, predicate, columns))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_read_sql_golden(case):
    plan, predicate, columns = _load(case)
    _check(HERE / "read" / f"{case.id}.sql", render_sql(case, plan, predicate, columns))


def test_every_golden_file_has_a_case():
    ids = {c.id for c in CASES}
    assert len(ids) == len(CASES), "duplicate case ids"
    for kind, suffix in (("plan", ".txt"), ("read", ".sql")):
        stale = sorted(p.name for p in (HERE / kind).glob(f"*{suffix}") if p.stem not in ids)
        assert not stale, f"golden files without a case in CASES (delete them): {stale}"


def test_cases_cover_every_read_mode():
    modes = {_load(c)[0].mode for c in CASES}
    assert modes == set(ReadMode)


def _pinned_queries(case: Case) -> dict[str, str]:
    """The pinned read SQL of `case` by label (``split i (stream)``, ``inlined (plan_query)``),
    with the real fixture folder in its paths."""
    text = (HERE / "read" / f"{case.id}.sql").read_text().replace(ROOT, str(FIXTURES))
    out = {}
    for block in text.split("\n\n")[1:]:
        label, _, sql = block.partition("\n")
        out[label.removeprefix("-- ")] = sql.rstrip().removesuffix(";")
    return out


def _runnable(case: Case) -> bool:
    plan = _load(case)[0]
    return case.snapshot is None and all(
        f.format == "parquet" for s in plan.splits for f in s.files
    )


@pytest.mark.parametrize("case", [c for c in CASES if _runnable(c)], ids=lambda c: c.id)
def test_pinned_sql_reads_what_the_session_reads(case):
    """The pinned SQL is what production runs: on DuckDB it returns the session's rows for the
    query (the splits' queries together; and, when the plan has no deletion vector, the query with
    the inlined read in place of the table)."""
    plan = _load(case)[0]
    session = paimon_sql.connect(FIXTURES / case.warehouse)
    try:
        want = sorted(map(repr, session.sql(case.query).fetchall()))
    finally:
        session.close()
    queries = _pinned_queries(case)
    with duckdb.connect() as con:
        _check_runs(case, plan, queries, con, want)


def _check_runs(
    case: Case,
    plan: ScanPlan,
    queries: Mapping[str, str],
    con: duckdb.DuckDBPyConnection,
    want: list[str],
) -> None:
    streamed = []
    for i, split in enumerate(plan.splits):
        blobs: dict[str, bytes] = {}
        for n, (_, ref) in enumerate(split.deletion_vectors):
            deleted = sorted(read_vector(plan.table, ref, blobs))
            con.register(f"__paimon_dv_{n}", pa.table({"pos": pa.array(deleted, pa.int64())}))
        streamed += con.sql(queries[f"split {i} (stream)"]).fetchall()
    assert sorted(map(repr, streamed)) == want
    if not any(split.deletion_vectors for split in plan.splits):
        # the session puts the inlined query in place of the table; DuckDB applies the WHERE itself
        statement = sqlglot.parse_one(case.query, read="duckdb")
        node = next(statement.find_all(exp.Table))
        inlined = sqlglot.parse_one(queries["inlined (plan_query)"], read="duckdb")
        node.replace(inlined.subquery(node.name))
        assert sorted(map(repr, con.sql(statement.sql("duckdb")).fetchall())) == want
