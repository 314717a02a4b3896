"""Values a column's type bounds: CHAR/VARCHAR/BINARY/VARBINARY(n) lengths, DATE/TIMESTAMP years.

How Java stores CHAR(n) and BINARY(n) (padded) is proven against Flink in
``tests/interop/flink/test_char_keys_flink.py``; here: a value that cannot be written stops the
statement with a `SchemaError` naming the column and the table, on every write path (streamed,
staged, dynamic buckets, UPDATE, MERGE, the Spark task's Arrow path), and leaves no data file. The
expected values are written out by hand from the SQL rule (trailing spaces beyond n are dropped).
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest

import paimon_sql
from paimon_sql.errors import SchemaError
from paimon_sql.spark._task import conform

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    yield s
    s.close()


def _files(warehouse: Path, table: str) -> list[str]:
    """Every file of the table outside schema/ (data, manifests, snapshots, indexes)."""
    root = warehouse / "db.db" / table
    return sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.parts[-2] != "schema"
    )


_TABLES = {
    "fixed": "WITH ('bucket' = '2')",  # streamed
    "dynamic": "WITH ('bucket' = '-1')",  # staged, buckets assigned from key hashes
    "partial": "WITH ('bucket' = '2', 'merge-engine' = 'partial-update')",  # staged
}


@pytest.mark.parametrize("options", list(_TABLES.values()), ids=list(_TABLES))
@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("k", "'abcdefg'"),  # CHAR(6) key
        ("k", "'abcdef x'"),
        ("vc", "'vvvvv'"),  # VARCHAR(4)
        ("b", "from_hex('01020304')"),  # BINARY(3)
        ("vb", "from_hex('010203')"),  # VARBINARY(2)
        ("ts", "TIMESTAMP '10000-01-01 00:00:00'"),  # TIMESTAMP(6) key
        ("ts", "TIMESTAMP '0001-01-01 00:00:00' - INTERVAL 1 SECOND"),
        ("d", "DATE '9999-12-31' + 1"),  # DATE value
        ("ltz", "TIMESTAMPTZ '10000-01-01 00:00:00+00'"),  # TIMESTAMP_LTZ(3) value
    ],
)
def test_a_value_that_cannot_be_written_names_its_column_and_writes_nothing(
    session, tmp_path, options, column, value
):
    session.sql(
        "CREATE TABLE db.t (k CHAR(6) NOT NULL, ts TIMESTAMP(6) NOT NULL, vc VARCHAR(4), "
        "b BINARY(3), vb VARBINARY(2), d DATE, ltz TIMESTAMP(3) WITH LOCAL TIME ZONE, "
        f"PRIMARY KEY (k, ts) NOT ENFORCED) {options}"
    )
    good = {
        "k": "'ab'",
        "ts": "TIMESTAMP '2024-01-01 00:00:00'",
        "vc": "'v'",
        "b": "from_hex('01')",
        "vb": "from_hex('01')",
        "d": "DATE '2024-01-01'",
        "ltz": "TIMESTAMPTZ '2024-01-01 00:00:00+00'",
    }
    row = ", ".join(value if c == column else v for c, v in good.items())
    other = ", ".join(v.replace("'ab'", "'cd'") for v in good.values())
    with pytest.raises(SchemaError, match=rf"table db\.t: a value of column '{column}' "):
        session.sql(f"INSERT INTO db.t VALUES ({other}), ({row})")  # noqa: S608
    assert _files(tmp_path / "wh", "t") == []


def test_update_and_merge_are_checked_too(session, tmp_path):
    session.sql(
        "CREATE TABLE db.t (k INT NOT NULL, c CHAR(3), d DATE, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('bucket' = '1')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a', DATE '2024-01-01')")
    before = _files(tmp_path / "wh", "t")
    with pytest.raises(SchemaError, match=r"table db\.t: a value of column 'c' is longer than"):
        session.sql("UPDATE db.t SET c = 'abcd'")
    with pytest.raises(SchemaError, match=r"table db\.t: a value of column 'd' lies outside"):
        session.sql(
            "MERGE INTO db.t USING (SELECT 1 AS k) s ON db.t.k = s.k "
            "WHEN MATCHED THEN UPDATE SET d = DATE '10000-01-01'"
        )
    assert _files(tmp_path / "wh", "t") == before
    assert session.sql("SELECT c, d FROM db.t").fetchall() == [("a  ", datetime.date(2024, 1, 1))]


def test_char_values_are_padded_and_lose_spaces_beyond_their_length(session):
    session.sql(
        "CREATE TABLE db.t (k CHAR(4) NOT NULL, p CHAR(2) NOT NULL, vc VARCHAR(3), b BINARY(2), "
        "PRIMARY KEY (k, p) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '2')"
    )
    session.sql(
        "INSERT INTO db.t VALUES ('ab', 'x', 'ab   ', from_hex('01')), "
        "('abcd   ', 'x', NULL, from_hex('')), ('', 'y', 'é', NULL)"
    )
    # a key spelled with fewer or more trailing spaces is the same key
    session.sql("INSERT INTO db.t VALUES ('ab  ', 'x ', 'new', NULL)")
    assert sorted(session.sql("SELECT * FROM db.t").fetchall()) == [
        ("    ", "y ", "é", None),
        ("ab  ", "x ", "new", None),
        ("abcd", "x ", None, b"\x00\x00"),
    ]


def test_insert_overwrite_of_a_char_partition_replaces_it(session):
    session.sql("CREATE TABLE db.t (p CHAR(3), v INT) PARTITIONED BY (p)")
    session.sql("INSERT INTO db.t VALUES ('x', 1), ('y', 2)")
    session.sql("INSERT OVERWRITE db.t PARTITION (p = 'x') SELECT 3")
    assert sorted(session.sql("SELECT * FROM db.t").fetchall()) == [("x  ", 3), ("y  ", 2)]


def test_the_spark_task_path_pads_and_refuses_alike(session):
    session.sql(
        "CREATE TABLE db.t (k CHAR(4) NOT NULL, b BINARY(2), ts TIMESTAMP(6), "
        "PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1')"
    )
    schema = session.catalog.load_table("db.t").latest_schema
    ts = pa.array([datetime.datetime(2024, 1, 1)] * 2, pa.timestamp("us"))
    batch = pa.RecordBatch.from_pydict({"k": ["ab", "abcd  "], "b": [b"\x01", None], "ts": ts})
    assert conform(batch, schema, {}).to_pydict() == {
        "k": ["ab  ", "abcd"],
        "b": [b"\x01\x00", None],
        "ts": ts.to_pylist(),
    }
    long = pa.RecordBatch.from_pydict({"k": ["abcde"], "b": [None], "ts": ts[:1]})
    with pytest.raises(SchemaError, match=r"column 'k': 'abcde' is longer than CHAR\(4\)"):
        conform(long, schema, {})
    late = pa.array([253402300800 * 10**6], pa.timestamp("us"))  # 10000-01-01
    far = pa.RecordBatch.from_pydict({"k": ["a"], "b": [None], "ts": late})
    with pytest.raises(SchemaError, match=r"column 'ts': a TIMESTAMP\(6\) value in year 10000"):
        conform(far, schema, {})


_NESTED = (
    "CREATE TABLE db.n (id INT, a ARRAY<CHAR(3)>, r ROW<c CHAR(4), v VARCHAR(5), b BINARY(2)>, "
    "m MAP<CHAR(2), CHAR(3)>, aa ARRAY<ARRAY<CHAR(2)>>) {options}"
)


@pytest.mark.parametrize("options", ["", "WITH ('file.format' = 'avro')"], ids=["parquet", "avro"])
def test_nested_char_values_are_padded_and_over_long_ones_refused(session, tmp_path, options):
    """Inside arrays, rows and maps as at the top (Flink: `test_char_keys_flink.py`)."""
    session.sql(_NESTED.format(options=options))
    session.sql(
        "INSERT INTO db.n VALUES (1, ['a', NULL], {'c': 'b', 'v': 'x', 'b': from_hex('01')}, "
        "MAP {'k': 'v'}, [['x'], NULL]), (2, NULL, NULL, NULL, NULL)"
    )
    assert session.sql("SELECT * FROM db.n ORDER BY id").fetchall() == [
        (
            1,
            ["a  ", None],
            {"c": "b   ", "v": "x", "b": b"\x01\x00"},
            {"k ": "v  "},
            [["x "], None],
        ),
        (2, None, None, None, None),
    ]
    before = _files(tmp_path / "wh", "n")
    with pytest.raises(SchemaError, match=r"column 'a' holds a value longer than CHAR\(3\)"):
        session.sql("INSERT INTO db.n (id, a) VALUES (3, ['abcd'])")
    with pytest.raises(SchemaError, match=r"column 'r' holds a value longer than VARCHAR\(5\)"):
        session.sql("INSERT INTO db.n (id, r) VALUES (3, {'c': NULL, 'v': 'vvvvvv', 'b': NULL})")
    with pytest.raises(SchemaError, match=r"column 'aa' holds a value longer than CHAR\(2\)"):
        session.sql("INSERT INTO db.n (id, aa) VALUES (3, [['xyz']])")
    assert _files(tmp_path / "wh", "n") == before


def test_the_spark_task_path_pads_nested_char_values(session):
    session.sql(_NESTED.format(options=""))
    schema = session.catalog.load_table("db.n").latest_schema
    row = pa.struct([("c", pa.string()), ("v", pa.string()), ("b", pa.binary())])
    batch = pa.RecordBatch.from_arrays(
        [
            pa.array([0, 1, 2], pa.int32()),
            pa.array([None, ["a", None], []], pa.list_(pa.string())),
            pa.array([None, {"c": "b", "v": "x", "b": b"\x01"}, None], row),
            pa.array([None, [("k", "v")], None], pa.map_(pa.string(), pa.string())),
            pa.array([None, [["x"], None], None], pa.list_(pa.list_(pa.string()))),
        ],
        names=["id", "a", "r", "m", "aa"],
    ).slice(1)  # a slice: the Arrow arrays are rebuilt from offsets into their parents
    assert conform(batch, schema, {}).to_pylist() == [
        {
            "id": 1,
            "a": ["a  ", None],
            "r": {"c": "b   ", "v": "x", "b": b"\x01\x00"},
            "m": [("k ", "v  ")],
            "aa": [["x "], None],
        },
        {"id": 2, "a": [], "r": None, "m": None, "aa": None},
    ]
    long = pa.RecordBatch.from_pydict(
        {"id": [1], "a": [None], "r": [None], "m": [[("k", "vvvv")]], "aa": [None]},
        schema=batch.schema,
    )
    with pytest.raises(SchemaError, match=r"column 'm': 'vvvv' is longer than CHAR\(3\)"):
        conform(long, schema, {})


def test_on_conflict_returning_and_static_partitions_see_the_padded_key(session):
    session.sql(
        "CREATE TABLE db.t (k CHAR(4) NOT NULL, p CHAR(2) NOT NULL, v INT, "
        "PRIMARY KEY (k, p) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '1')"
    )
    session.sql("INSERT INTO db.t VALUES ('ab', 'x', 1)")
    session.sql("INSERT INTO db.t VALUES ('ab', 'x', 2) ON CONFLICT DO NOTHING")
    session.sql(
        "INSERT INTO db.t VALUES ('ab', 'x', 5) ON CONFLICT DO UPDATE SET v = v + excluded.v"
    )
    assert session.sql("INSERT INTO db.t VALUES ('cd', 'x', 3) RETURNING k, p").fetchall() == [
        ("cd  ", "x ")
    ]
    session.sql("INSERT INTO db.t PARTITION (p = 'x') VALUES ('ef', 'x', 4)")  # rows give p too
    assert sorted(session.sql("SELECT * FROM db.t").fetchall()) == [
        ("ab  ", "x ", 6),
        ("cd  ", "x ", 3),
        ("ef  ", "x ", 4),
    ]


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("a", "[TIMESTAMP '2024-01-01', TIMESTAMP '10000-01-01']"),
        ("m", "MAP {'k': DATE '9999-12-31' + 1}"),
        ("r", "{'d': DATE '0001-01-01' - 1, 's': 'x'}"),
    ],
)
@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_nested_dates_outside_years_1_to_9999_are_refused(session, tmp_path, fmt, column, value):
    session.sql(
        "CREATE TABLE db.t (k INT, a ARRAY<TIMESTAMP(6)>, m MAP<STRING, DATE>, "
        f"r ROW<d DATE, s STRING>) WITH ('file.format' = '{fmt}')"
    )
    good = {"a": "[NULL, TIMESTAMP '2200-12-31 23:59:59']", "m": "MAP {}", "r": "NULL"}
    session.sql(f"INSERT INTO db.t VALUES (1, {', '.join(good.values())})")  # noqa: S608
    before = _files(tmp_path / "wh", "t")
    row = ", ".join(value if c == column else v for c, v in good.items())
    with pytest.raises(SchemaError, match=rf"table db\.t: a value of column '{column}' holds a"):
        session.sql(f"INSERT INTO db.t VALUES (2, {row})")  # noqa: S608
    assert _files(tmp_path / "wh", "t") == before
    assert session.sql("SELECT k, a, r FROM db.t").fetchall() == [
        (1, [None, datetime.datetime(2200, 12, 31, 23, 59, 59)], None)
    ]
