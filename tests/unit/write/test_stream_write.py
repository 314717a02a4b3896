# ruff: noqa: S608 - the statements are test inputs built from our own names and values
"""Fixed-bucket primary-key writes stream straight from the query; a key written twice in one
statement falls back to staging, which knows the arrival order. Both must keep the right version."""

from __future__ import annotations

import decimal
import itertools

import pytest

import paimon_sql


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    return s


def _create(session, engine, extra=""):
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING, s INT, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '2', 'merge-engine' = '{engine}'{extra})"
    )


@pytest.mark.parametrize(
    ("engine", "extra", "expected"),
    [
        ("deduplicate", "", "c"),
        ("first-row", "", "a"),
        ("deduplicate", ", 'sequence.field' = 's'", "b"),
    ],
)
def test_a_key_twice_in_one_statement_keeps_the_engines_version(session, engine, extra, expected):
    _create(session, engine, extra)
    session.sql("INSERT INTO db.t VALUES (0, 'x', 0)")
    count = session.sql(
        "INSERT INTO db.t VALUES (1, 'a', 1), (1, 'b', 9), (2, 'z', 0), (1, 'c', 5)"
    )
    assert count.fetchall() == [(2,)]  # rows written: each key once
    assert session.sql("SELECT v FROM db.t WHERE id = 1").fetchall() == [(expected,)]
    assert sorted(session.sql("SELECT id FROM db.t").fetchall()) == [(0,), (1,), (2,)]


def test_streamed_write_numbers_above_earlier_writes_and_later_statements_win(session):
    """Each bucket numbers on from its own live files (§7: consecutive per (partition, bucket))."""
    _create(session, "deduplicate")
    query = (
        "SELECT bucket, file_path, min_sequence_number, max_sequence_number, record_count "
        "FROM db.`t$files`"
    )
    session.sql("INSERT INTO db.t SELECT i, 'old', 0 FROM range(100) t(i)")
    first = session.sql(query).fetchall()
    session.sql("INSERT INTO db.t SELECT i, 'new', 0 FROM range(0, 100, 2) t(i)")
    second = [f for f in session.sql(query).fetchall() if f not in first]
    assert sum(f[4] for f in first) == 100
    assert sum(f[4] for f in second) == 50
    for bucket in (0, 1):
        old = [f for f in first if f[0] == bucket]
        new = [f for f in second if f[0] == bucket]
        assert old
        assert new
        assert min(f[2] for f in old) == 0  # an empty bucket starts at 0
        assert max(f[3] for f in old) == sum(f[4] for f in old) - 1  # consecutive
        assert min(f[2] for f in new) == max(f[3] for f in old) + 1  # on from the bucket's max
    rows = dict(session.sql("SELECT id, v FROM db.t").fetchall())
    assert rows == {i: ("new" if i % 2 == 0 else "old") for i in range(100)}


def test_null_key_in_a_streamed_write_is_an_error_and_leaves_nothing(session, tmp_path):
    _create(session, "deduplicate")
    session.sql("INSERT INTO db.t VALUES (1, 'a', 0)")
    before = sorted(p.name for p in (tmp_path / "wh" / "db.db" / "t").rglob("*") if p.is_file())
    with pytest.raises(paimon_sql.errors.SchemaError, match="id"):
        session.sql(
            "INSERT INTO db.t SELECT CASE WHEN i = 500 THEN NULL ELSE i END, 'b', 0 "
            "FROM range(1000) t(i)"
        )
    after = sorted(p.name for p in (tmp_path / "wh" / "db.db" / "t").rglob("*") if p.is_file())
    assert after == before
    assert session.sql("SELECT * FROM db.t").fetchall() == [(1, "a", 0)]


@pytest.mark.parametrize("engine", ["deduplicate", "first-row"])
def test_an_input_beyond_the_write_buffer_is_written_as_several_sorted_runs(session, engine):
    """Issue 18: a streamed write is sorted in runs of ``write-buffer-size`` / 24 rows (43,690 at
    1 mb), each its own level-0 files, as Java flushes a full write buffer; later runs carry higher
    sequence numbers. Keys 0..59,999 arrive once, then 0..39,999 again (each in a later run than its
    first arrival): deduplicate keeps the later arrival, first-row the first."""
    session.sql(
        "CREATE TABLE db.t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '2', 'merge-engine' = '{engine}', 'write-buffer-size' = '1 mb')"
    )
    session.sql("INSERT INTO db.t SELECT i % 60000, i FROM range(100000) t(i)")
    later = engine == "deduplicate"
    expected = {k: (k + 60000 if later and k < 40000 else k) for k in range(60000)}
    assert dict(session.sql("SELECT id, v FROM db.t").fetchall()) == expected
    files = session.sql(
        "SELECT bucket, level, min_key, max_key, min_sequence_number, max_sequence_number, "
        "record_count FROM db.`t$files` ORDER BY bucket, min_sequence_number"
    ).fetchall()
    if engine == "first-row":  # compacted after the write (readers skip level 0)
        assert {f[1] for f in files} == {5}
        return
    assert {f[1] for f in files} == {0}
    for bucket in (0, 1):
        runs = [f for f in files if f[0] == bucket]
        # 100,000 rows in runs of 43,690 rows or one input batch (a quarter run) more: 2 runs
        assert len(runs) == 2
        # the runs overlap in keys, and each run's numbers lie above the previous run's
        for a, b in itertools.pairwise(runs):
            assert a[5] < b[4]
    assert sum(f[6] for f in files) == 100000  # each arrival written once (a key in two runs twice)


# --- fixed buckets of small inputs from Python, of large ones from SQL --------------------------

#: (key columns and types, the table's options (None: an append table with that bucket key), the
#: key of row i as DuckDB SQL, the same in Python). Keys of 0 to 40 bytes, multi-byte characters;
#: NULL keys where the table allows them (an append table's bucket key); each key twice in a
#: statement ("repeated": the streamed write falls back to staging), and the merge engines that
#: always stage.
_KEYED = {
    "string": (
        [("id", "STRING")],
        "",
        ["'k' || i || repeat('é', (i % 19)::INT)"],
        lambda i: (f"k{i}" + "é" * (i % 19),),
    ),
    "composite": (
        [("a", "STRING"), ("b", "INT")],
        "",
        ["repeat('x', (i % 11)::INT) || (i // 3)", "(i % 3 - 1)::INT"],
        lambda i: ("x" * (i % 11) + str(i // 3), i % 3 - 1),
    ),
    "string_repeated": (
        [("id", "STRING")],
        "",
        ["'k' || (i // 2)"],
        lambda i: (f"k{i // 2}",),
    ),
    "string_partial_update": (
        [("id", "STRING")],
        "'merge-engine' = 'partial-update', ",
        ["'k' || i || repeat('é', (i % 19)::INT)"],
        lambda i: (f"k{i}" + "é" * (i % 19),),
    ),
    "composite_aggregation": (
        [("a", "STRING"), ("b", "INT")],
        "'merge-engine' = 'aggregation', ",
        ["repeat('x', (i % 11)::INT) || (i // 3)", "(i % 3 - 1)::INT"],
        lambda i: ("x" * (i % 11) + str(i // 3), i % 3 - 1),
    ),
    "append_nullable": (
        [("a", "STRING"), ("d", "DECIMAL(20, 3)")],
        None,
        [
            "CASE WHEN i % 7 = 0 THEN NULL ELSE 'a' || i END",
            "CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 1001 - 300000) / 1000 END",
        ],
        lambda i: (
            None if i % 7 == 0 else f"a{i}",
            None if i % 5 == 0 else decimal.Decimal(i * 1001 - 300_000).scaleb(-3),
        ),
    ),
}


def _bucket_files(root, names) -> dict[tuple[object, ...], int]:
    """Every written row's key (columns `names`) → the bucket folder of its data file."""
    import pyarrow.parquet as pq

    out: dict[tuple[object, ...], int] = {}
    for path in sorted(root.glob("bucket-*/data-*.parquet")):
        bucket = int(path.parent.name.removeprefix("bucket-"))
        for row in pq.read_table(path, columns=names).to_pylist():
            key = tuple(row.values())
            assert out.setdefault(key, bucket) == bucket, f"{key} in two buckets"
    return out


@pytest.mark.parametrize("shape", sorted(_KEYED))
def test_small_and_large_inputs_land_in_javas_buckets(session, tmp_path, monkeypatch, shape):
    """A statement of at most SMALL_INPUT_ROWS rows gets its buckets from Python, a larger one from
    DuckDB's SQL hash, streamed or staged; the same keys land in the same bucket either way, the one
    Java's hash gives (`bucket_of`: checked against Java's vectors and BinaryRow bytes;
    tests/interop/flink/test_bucket_keys_flink.py checks such tables against Apache Paimon 1.3.1
    itself), and read back.
    """
    from paimon_sql.format.bucket import bucket_of
    from paimon_sql.types import parse_type
    from paimon_sql.write import bucket as bucket_module
    from paimon_sql.write import writer

    key, options, sql_key, py_key = _KEYED[shape]
    calls: list[int] = []
    real = bucket_module.python_buckets

    def counted(columns, types, num_buckets):
        calls.append(len(columns[0]))
        return real(columns, types, num_buckets)

    monkeypatch.setattr(writer, "python_buckets", counted)
    small, large = (
        300,
        2 * bucket_module.SMALL_INPUT_ROWS + 700,
    )  # repeated: over the limit once staged
    names = [n for n, _ in key]
    columns = ", ".join(f"{n} {t}" for n, t in key)
    if options is None:
        ddl = f"({columns}, v BIGINT) WITH ('bucket-key' = '{','.join(names)}', "
    else:
        ddl = (
            f"({columns}, v BIGINT, PRIMARY KEY ({', '.join(names)}) NOT ENFORCED) WITH ({options}"
        )
    for name in ("by_small", "by_large"):
        session.sql(f"CREATE TABLE db.{name} {ddl}'bucket' = '8')")
    select = ", ".join(sql_key)
    for lo in range(0, large, small):  # the same keys in statements of 300 rows
        stop = min(lo + small, large)
        session.sql(f"INSERT INTO db.by_small SELECT {select}, i FROM range({lo}, {stop}) r(i)")
    # each statement's rows hashed once in Python (a key twice: the staged retry hashes its rows)
    written = [min(small, large - lo) for lo in range(0, large, small)]
    if shape == "string_repeated":
        written = [n for rows in written for n in (rows, rows // 2)]
    assert calls == written
    session.sql(f"INSERT INTO db.by_large SELECT {select}, i FROM range({large}) r(i)")
    assert len(calls) == len(written)  # the large statement: no Python buckets

    types = [parse_type(t) for _, t in key]
    expected = {py_key(i): bucket_of(py_key(i), types, 8) for i in range(large)}
    assert len(set(expected.values())) == 8
    rows = [(*py_key(i), i) for i in range(large)]
    if options is not None:  # a key keeps its last version
        rows = sorted({py_key(i): (*py_key(i), i) for i in range(large)}.values())
    for name in ("by_small", "by_large"):
        assert _bucket_files(tmp_path / "wh" / "db.db" / name, names) == expected, name
        read = session.sql(f"SELECT {', '.join(names)}, v FROM db.{name}").fetchall()
        assert sorted(read, key=lambda r: r[-1]) == sorted(rows, key=lambda r: r[-1])


@pytest.mark.parametrize("rows", [3_000, 300_000])
def test_an_input_error_read_from_the_stream_is_duckdbs_error(session, tmp_path, rows):
    """A value of the input query that fails after its first rows came out (DuckDB's Arrow stream
    raises it as an OSError) is raised as DuckDB's conversion error, whether the rows were few
    (read before their buckets are computed in Python) or many (read by the sort): the statement
    fails naming the value and leaves no file. (Before, the large input's error read "reading the
    stream registered as '__paimon_run_1' failed: IOError: …".)
    """
    session.sql(
        "CREATE TABLE db.t (id STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4')"
    )
    session.sql("INSERT INTO db.t VALUES ('a', 1)")
    table = tmp_path / "wh" / "db.db" / "t"
    before = sorted(p.name for p in table.rglob("*") if p.is_file())
    bad = rows - 100
    with pytest.raises(paimon_sql.errors.SchemaError) as caught:
        session.sql(
            f"INSERT INTO db.t SELECT 'k' || i, CASE WHEN i = {bad} THEN ('x' || i)::INT ELSE i "
            f"END FROM range({rows}) r(i)"
        )
    assert f"Conversion Error: Could not convert string 'x{bad}' to INT32" in str(caught.value)
    assert "IOError" not in str(caught.value)
    assert sorted(p.name for p in table.rglob("*") if p.is_file()) == before
    assert session.sql("SELECT * FROM db.t").fetchall() == [("a", 1)]


@pytest.mark.parametrize("engine", ["deduplicate", "partial-update"])
def test_a_small_input_python_cannot_hash_is_hashed_in_sql(session, tmp_path, monkeypatch, engine):
    """When `python_buckets` has no answer (a value without a Python form: a timestamp beyond year
    9999, which later steps of the writer cannot convert either today), a small input's buckets
    come from SQL, streamed or staged, and land where Java's hash puts them."""
    from paimon_sql.format.bucket import bucket_of
    from paimon_sql.types import parse_type
    from paimon_sql.write import writer

    monkeypatch.setattr(writer, "python_buckets", lambda *a: None)
    session.sql(
        "CREATE TABLE db.t (id STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '8', 'merge-engine' = '{engine}')"
    )
    session.sql("INSERT INTO db.t SELECT 'k' || i, i FROM range(200) r(i)")
    types = [parse_type("STRING")]
    expected = {(f"k{i}",): bucket_of((f"k{i}",), types, 8) for i in range(200)}
    assert _bucket_files(tmp_path / "wh" / "db.db" / "t", ["id"]) == expected
    assert sorted(session.sql("SELECT v FROM db.t").fetchall()) == [(i,) for i in range(200)]
