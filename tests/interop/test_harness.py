"""The oracle harness itself: jar, sessions, row normalisation and `assert_spark_reads` can fail."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import zipfile

import pytest

from tests.interop import _versions
from tests.interop.corpus import TABLES
from tests.interop.harness import (
    assert_rows_equal,
    assert_spark_reads,
    canonical_rows,
    paimon_jar,
    spark_rows,
    spark_session,
    spark_sql,
)

UTC = dt.UTC


def test_paimon_jar_is_the_pinned_runtime():
    jar = paimon_jar()
    assert jar.name == _versions.PAIMON_SPARK_JAR
    with zipfile.ZipFile(jar) as archive:
        assert "org/apache/paimon/spark/SparkCatalog.class" in archive.namelist()


def test_canonical_rows_normalise_types_and_order():
    spark_like = [
        {
            "d": decimal.Decimal("-1.00E-10"),
            "ts": dt.datetime(2024, 1, 1, 12, tzinfo=UTC),
            "f": 1.1,
        },
        {"d": None, "ts": None, "f": None},
    ]
    ours = [
        {"f": None, "d": None, "ts": None},
        {
            "f": 1.100000023841858,
            "ts": dt.datetime(2024, 1, 1, 13, tzinfo=dt.timezone(dt.timedelta(hours=1))),
            "d": decimal.Decimal("-0.0000000001"),
        },
    ]
    assert canonical_rows(spark_like) == canonical_rows(ours)
    nested = [{"m": {"b": [1, None], "a": {"x": b"\x00\xff"}}, "day": dt.date(1969, 12, 31)}]
    assert json.loads(canonical_rows(nested)[0])["m"] == [
        "map",
        [["a", ["map", [["x", ["binary", "00ff"]]]]], ["b", [1, None]]],
    ]


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ({"v": 1}, {"v": 2}),
        ({"v": 1}, {"v": 1.0}),
        ({"v": 0.1}, {"v": 0.10000001}),
        ({"v": decimal.Decimal("1.5")}, {"v": decimal.Decimal("1.05")}),
        ({"v": dt.datetime(2024, 1, 1)}, {"v": dt.datetime(2024, 1, 1, 0, 0, 0, 1)}),
        ({"v": dt.date(2024, 1, 1)}, {"v": "2024-01-01"}),
        ({"v": b"a"}, {"v": "a"}),
        ({"v": [1, 2]}, {"v": [2, 1]}),
        ({"v": None}, {"w": None}),
    ],
)
def test_assert_rows_equal_sees_differences(left, right):
    with pytest.raises(AssertionError, match="rows differ"):
        assert_rows_equal([left], [right])


def test_assert_rows_equal_counts_duplicates():
    assert_rows_equal([{"v": 1}, {"v": 2}], [{"v": 2}, {"v": 1}])
    with pytest.raises(AssertionError, match="missing"):
        assert_rows_equal([{"v": 1}], [{"v": 1}, {"v": 1}])


@pytest.mark.interop
def test_assert_spark_reads_on_a_spark_written_table(tmp_path):
    spark = spark_session(tmp_path)
    spark_sql(spark, "CREATE DATABASE db")
    spark_sql(
        spark,
        "CREATE TABLE db.t (id INT, amount DECIMAL(20, 2), ts TIMESTAMP, tags MAP<STRING, INT>) "
        "USING paimon TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')",
    )
    spark_sql(
        spark,
        "INSERT INTO db.t VALUES (1, 1.5, TIMESTAMP'2024-01-01 00:00:00', map('a', 1)), "
        "(2, NULL, NULL, NULL)",
    )
    spark_sql(
        spark, "INSERT INTO db.t VALUES (1, 2.25, TIMESTAMP'2024-01-02 00:00:00', map('b', 2))"
    )
    expected = [
        {"id": 2, "amount": None, "ts": None, "tags": None},
        {
            "id": 1,
            "amount": decimal.Decimal("2.25"),
            "ts": dt.datetime(2024, 1, 2, tzinfo=UTC),
            "tags": {"b": 2},
        },
    ]
    assert_spark_reads(tmp_path, "db.t", expected)
    with pytest.raises(AssertionError, match="rows differ"):
        assert_spark_reads(
            tmp_path, "db.t", [{**expected[0]}, {**expected[1], "amount": decimal.Decimal("1.5")}]
        )
    with pytest.raises(AssertionError, match="rows differ"):
        assert_spark_reads(tmp_path, "db.t", expected[:1])
    # time travel: snapshot 1 holds the first insert, by id
    assert [r["amount"] for r in spark_rows(spark, "db.t", version=1) if r["id"] == 1] == [
        decimal.Decimal("1.50")
    ]


@pytest.mark.interop
def test_sessions_per_warehouse_share_one_jvm(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    a, b = spark_session(first), spark_session(second)
    assert a is spark_session(first)
    assert a.sparkContext is b.sparkContext
    spark_sql(a, "CREATE DATABASE only_in_one")
    assert (first / "only_in_one.db").is_dir()
    assert "only_in_one" not in [r[0] for r in spark_sql(b, "SHOW DATABASES")]


@pytest.mark.interop
def test_corpus_manifest_matches_the_definitions(corpus):
    assert set(corpus.tables) == {t.name for t in TABLES}
    for name, entry in corpus.tables.items():
        assert entry["snapshots"], f"{name} has no live snapshot"
    expired = [n for n, e in corpus.tables.items() if e["expired_snapshots"]]
    tagged = [n for n, e in corpus.tables.items() if e["tags"]]
    assert len(expired) >= 2, (expired, tagged)
    assert len(tagged) >= 3, (expired, tagged)
    kinds = {s["commit_kind"] for e in corpus.tables.values() for s in e["snapshots"]}
    assert {"APPEND", "COMPACT", "OVERWRITE"} <= kinds
    evolved = corpus.tables["schema_evolution_pk"]["snapshots"]
    assert len({s["schema_id"] for s in evolved}) >= 3
