"""Issue 18: files that need no merge are read by one multi-file ``read_parquet`` per column layout.

Append tables, deletion-vector tables and PK files without overlap, across every partition and
bucket: the partition columns come from the files (Java writes whole rows), the deleted rows are
anti-joined on the scan's ``(file_index, file_row_number)``. Checked on the Java-written fixtures
against the streamed read (which fills partition columns from the manifest's partition values, a
separate code path) and Java's own answers, and on partitioned DV tables against rows computed in
Python. The Spark corpus (NULL, '', date and escaped partition values, schema changes) is checked
at every snapshot in ``tests/interop/test_spark_writes_we_read.py``.
"""

from __future__ import annotations

import json
from contextlib import closing
from typing import Any

import duckdb
import pytest

import paimon_sql
from tests.fixtures import FIXTURES

# Queries here are fixed test input (fixture table names and constants), not built from data.
# ruff: noqa: S608

JAVA09 = FIXTURES / "generated-paimon-java-0.9" / "warehouse"
CPP = FIXTURES / "paimon-cpp" / "test" / "test_data" / "parquet"


def _explain(session: paimon_sql.Session, table: str) -> dict[str, Any]:
    rows = session.sql(f"EXPLAIN SELECT * FROM {table}").fetchall()
    info: dict[str, Any] = {k: v for scope, k, v in rows if scope != "duckdb"}
    info["physical"] = "\n".join(v for scope, _, v in rows if scope == "duckdb")
    return info


def _sorted(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return sorted(rows, key=lambda r: tuple((v is None, str(v)) for v in r))


# (warehouse, table, multi-file scans expected: one per column layout)
JAVA_TABLES = [
    (CPP, "append_10.append_10", 1),  # 2 partitions, 3 files
    (CPP, "append_table_with_alter_table.append_table_with_alter_table", 2),  # 2 layouts
    (CPP, "pk_table_with_alter_table.pk_table_with_alter_table", 2),  # DV, 2 partitions, 2 layouts
    (JAVA09, "db.pk_part_dv", 1),
    # NULL partition values (Java's __DEFAULT_PARTITION__ folder), '' and ' ' beside NULL, and a
    # renamed default partition
    (CPP, "append_with_empty_partition.append_with_empty_partition", 1),
    (
        CPP,
        "append_with_empty_partition_with_empty_value.append_with_empty_partition_with_empty_value",
        1,
    ),
    (
        CPP,
        "append_with_empty_partition_with_specific_name.append_with_empty_partition_with_specific_name",
        1,
    ),
]


@pytest.mark.parametrize(
    ("warehouse", "table", "scans"), JAVA_TABLES, ids=[t for _, t, _ in JAVA_TABLES]
)
def test_java_partitioned_tables_read_as_one_scan_per_layout(warehouse, table, scans):
    with closing(paimon_sql.connect(str(warehouse))) as session:
        info = _explain(session, table)
        assert info["reader"] == "inlined SQL"
        assert int(info["partitions"].split()[0]) >= 2
        assert info["physical"].count("READ_PARQUET") == scans, info["physical"]
        assert "UNION" not in info["physical"]
        inlined = session.sql(f"SELECT * FROM {table}").fetchall()
        streamed = session.scan(table).fetchall()  # partition values from the manifest
        assert _sorted(inlined) == _sorted(streamed)
        assert len(inlined) > 0


def test_java_partitioned_dv_table_matches_java_truth():
    truth = json.loads((JAVA09.parent / "java_truth.json").read_text())["pk_part_dv"]
    with closing(paimon_sql.connect(str(JAVA09))) as session:
        rel = session.sql("SELECT * FROM db.pk_part_dv")
        columns = list(rel.columns)
        got = [dict(zip(columns, r, strict=True)) for r in rel.fetchall()]
    key = lambda r: (r["id"], r["dt"])  # noqa: E731
    assert sorted(got, key=key) == sorted(truth, key=key)


def test_deletions_in_several_partitions_in_one_scan(tmp_path):
    """A partitioned deletion-vector table (our writer; rows computed in Python), '' and date
    partition values, rows updated and deleted in several partitions: one scan of the files with
    a vector, their bitmaps filtering it (no join), one of the files without; filters on
    partition and value columns applied."""
    with closing(paimon_sql.connect(str(tmp_path))) as session:
        session.sql("CREATE DATABASE d")
        session.sql(
            "CREATE TABLE d.t (id INT NOT NULL, v VARCHAR, p VARCHAR NOT NULL, day DATE NOT NULL, "
            "PRIMARY KEY (id, p, day)) PARTITIONED BY (p, day) "
            "WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')"
        )
        parts = [("a", "2024-01-01"), ("b", "2024-01-02"), ("", "1970-01-01")]
        model: dict[tuple[int, str, str], str] = {}
        values = []
        for i in range(60):
            p, day = parts[i % 3]
            values.append(f"({i}, 'v{i}', '{p}', DATE '{day}')")
            model[(i, p, day)] = f"v{i}"
        session.sql("INSERT INTO d.t VALUES " + ", ".join(values))
        session.sql("UPDATE d.t SET v = v || '!' WHERE id % 5 = 0")
        for k in model:
            if k[0] % 5 == 0:
                model[k] += "!"
        session.sql("DELETE FROM d.t WHERE id % 7 = 0")
        model = {k: v for k, v in model.items() if k[0] % 7}
        info = _explain(session, "d.t")
        dv_files = int(info["deletion vectors"].split()[0])
        assert dv_files >= 3, info["deletion vectors"]
        assert info["physical"].count("READ_PARQUET") <= 2, info["physical"]
        assert "GET_BIT" in info["physical"].upper(), info["physical"]
        assert "ANTI" not in info["physical"], info["physical"]
        got = session.sql("SELECT id, v, p, CAST(day AS VARCHAR) FROM d.t").fetchall()
        assert _sorted(got) == _sorted([(i, v, p, day) for (i, p, day), v in model.items()])
        got = session.sql("SELECT id FROM d.t WHERE p = '' AND v LIKE '%!'").fetchall()
        assert sorted(r[0] for r in got) == sorted(
            i for (i, p, _), v in model.items() if p == "" and v.endswith("!")
        )


def test_null_empty_and_date_partitions_of_an_append_table(tmp_path):
    """NULL, '' and date partition values read from the files equal what was inserted (a plain
    DuckDB table holding the same rows is the oracle)."""
    rows = "(1, 'a', DATE '2024-01-01'), (2, NULL, NULL), (3, '', DATE '1970-01-01'), " + (
        "(4, 'x/y=z:%', DATE '2000-02-29'), (5, NULL, DATE '2024-01-01'), (6, '', NULL)"
    )
    with closing(paimon_sql.connect(str(tmp_path))) as session:
        session.sql("CREATE DATABASE d")
        session.sql("CREATE TABLE d.t (id INT, p VARCHAR, day DATE) PARTITIONED BY (p, day)")
        session.sql(f"INSERT INTO d.t VALUES {rows}")
        session.sql(f"INSERT INTO d.t VALUES {rows}")
        info = _explain(session, "d.t")
        assert int(info["partitions"].split()[0]) == 6
        assert info["physical"].count("READ_PARQUET") == 1, info["physical"]
        got = session.sql("SELECT * FROM d.t").fetchall()
        nulls = session.sql("SELECT id FROM d.t WHERE p IS NULL OR day IS NULL").fetchall()
    oracle = duckdb.connect()
    oracle.sql("CREATE TABLE t (id INT, p VARCHAR, day DATE)")
    oracle.sql(f"INSERT INTO t VALUES {rows}")
    oracle.sql(f"INSERT INTO t VALUES {rows}")
    assert _sorted(got) == _sorted(oracle.sql("SELECT * FROM t").fetchall())
    assert sorted(nulls) == sorted(
        oracle.sql("SELECT id FROM t WHERE p IS NULL OR day IS NULL").fetchall()
    )


def test_a_column_named_file_index_falls_back_to_per_file_masks(tmp_path):
    """DuckDB's virtual ``file_index`` is hidden by a column of that name: files with deletion
    vectors are then joined with their keep-flags one by one, across partitions too."""
    with closing(paimon_sql.connect(str(tmp_path))) as session:
        session.sql("CREATE DATABASE d")
        session.sql(
            "CREATE TABLE d.t (id INT NOT NULL, file_index INT, p INT, PRIMARY KEY (id, p)) "
            "PARTITIONED BY (p) WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true')"
        )
        session.sql("INSERT INTO d.t SELECT range, range * 10, range % 3 FROM range(30)")
        session.sql("DELETE FROM d.t WHERE id % 7 = 0")
        got = session.sql("SELECT id, file_index, p FROM d.t").fetchall()
        info = _explain(session, "d.t")
    assert int(info["deletion vectors"].split()[0]) >= 2
    expected = [(i, i * 10, i % 3) for i in range(30) if i % 7]
    assert _sorted(got) == _sorted(expected)


EMPTY = "append_with_empty_partition_with_empty_value.append_with_empty_partition_with_empty_value"


def test_file_lists_are_statement_parameters(tmp_path):
    """A query's multi-file scan takes its file list as a parameter of the statement (DuckDB parses
    a thousand path literals in milliseconds): every statement kind that takes parameters reads
    the same rows as the streamed read (Java-written table: NULL, '' and ' ' partitions); a view
    and a PIVOT, which cannot hold parameters, keep literals; the relation keeps its parameters
    when it runs again later."""
    with closing(paimon_sql.connect(str(CPP))) as session:
        expected = _sorted(session.scan(EMPTY).fetchall())
        assert len(expected) == 7
        assert any(r[0] is None for r in expected)
        assert any(r[0] == "" for r in expected)
        rel = session.sql(f"SELECT * FROM {EMPTY}")
        text = rel.sql_query()
        assert "$__paimon_files_" in text, text
        assert ".parquet" not in text, text
        session.sql("SELECT count(*) FROM append_10.append_10").fetchall()  # another statement
        assert _sorted(rel.fetchall()) == expected
        assert _sorted(rel.fetchall()) == expected
        session.sql(f"CREATE TEMP TABLE copied AS SELECT * FROM {EMPTY}")
        session.sql(f"INSERT INTO copied SELECT * FROM {EMPTY} WHERE f0 IS NULL OR f0 = ''")
        blank = [r for r in expected if r[0] is None or r[0] == ""]
        assert _sorted(session.sql("SELECT * FROM copied").fetchall()) == _sorted(expected + blank)
        out = tmp_path / "out.parquet"
        session.sql(f"COPY (SELECT * FROM {EMPTY}) TO '{out}'")
        assert _sorted(duckdb.connect().sql(f"SELECT * FROM '{out}'").fetchall()) == expected
        joined = session.sql(
            f"SELECT count(*) FROM {EMPTY} a JOIN {EMPTY} b ON a.f0 IS NOT DISTINCT FROM b.f0"
        ).fetchall()
        counts: dict[Any, int] = {}
        for r in expected:
            counts[r[0]] = counts.get(r[0], 0) + 1
        assert joined == [(sum(n * n for n in counts.values()),)]
        pivot = session.sql(f"PIVOT {EMPTY} ON f1 USING count(*) GROUP BY f0").fetchall()
        oracle = duckdb.connect()
        oracle.sql("CREATE TABLE t (f0 VARCHAR, f1 INT, f2 INT, f3 DOUBLE)")
        oracle.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", expected)
        assert _sorted(pivot) == _sorted(
            oracle.sql("PIVOT t ON f1 USING count(*) GROUP BY f0").fetchall()
        )
        session.sql(f"CREATE VIEW v AS SELECT f0, f3 FROM {EMPTY}")
        assert _sorted(session.sql("SELECT * FROM v").fetchall()) == _sorted(
            [(r[0], r[3]) for r in expected]
        )
