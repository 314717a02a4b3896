"""`paimon_sql.spark.register` on PySpark 4: ``df.write.format("paimon")`` writes without a Paimon
jar.

Needs PySpark >= 4.0 (its Python Data Source API); the project's venv has 3.5, where `register` must
refuse with `UnsupportedFeatureError` (checked here too). Run it in a PySpark 4 virtualenv with
paimon-sql installed: ``python -m pytest tests/spark/test_datasource.py``.
"""

from __future__ import annotations

import os
import sys

import pytest

import paimon_sql
from paimon_sql.errors import SchemaError, UnsupportedFeatureError
from tests.interop.harness import canonical_rows

pytestmark = [pytest.mark.interop, pytest.mark.slow]
pyspark = pytest.importorskip("pyspark")
SPARK4 = int(pyspark.__version__.split(".")[0]) >= 4


@pytest.mark.skipif(SPARK4, reason="the PySpark 3.5 refusal")
def test_register_refuses_on_pyspark_3():
    from paimon_sql.spark import register

    with pytest.raises(UnsupportedFeatureError, match="PySpark 4"):
        register(None)


@pytest.fixture(scope="module")
def spark():
    if not SPARK4:
        pytest.skip(
            f"the Python Data Source writer needs PySpark 4 (this venv has {pyspark.__version__})"
        )
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    from paimon_sql.spark import register

    register(session)
    yield session
    session.stop()


def _read(warehouse, name):
    rel = paimon_sql.connect(warehouse).sql(f"SELECT * FROM {name}")  # noqa: S608 - test SQL, our names
    return [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]


def test_format_paimon_appends_upserts_and_overwrites(spark, tmp_path):
    wh = tmp_path / "wh"
    session = paimon_sql.connect(wh, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.pk (id BIGINT NOT NULL, dt STRING NOT NULL, v STRING, "
        "PRIMARY KEY (id, dt) NOT ENFORCED)"
        " PARTITIONED BY (dt) WITH ('bucket' = '2')"
    )
    session.sql("CREATE TABLE db.log (id BIGINT, v STRING)")
    rows = [(i, f"d{i % 2}", f"v{i}") for i in range(100)]
    df = spark.createDataFrame(rows, "id bigint, dt string, v string")
    df.write.format("paimon").option("warehouse", str(wh)).mode("append").save("db.pk")
    df.select("id", "v").write.format("paimon").option("warehouse", str(wh)).mode("append").save(
        "db.log"
    )
    state = {(r[0], r[1]): r for r in rows}
    upsert = [(i, f"d{i % 2}", f"w{i}") for i in range(50, 150)]
    spark.createDataFrame(upsert, "id bigint, dt string, v string").repartition("id").write.format(
        "paimon"
    ).option("warehouse", str(wh)).mode("append").save("db.pk")
    state.update({(r[0], r[1]): r for r in upsert})
    expected = [dict(zip(("id", "dt", "v"), r, strict=True)) for r in state.values()]
    assert canonical_rows(_read(wh, "db.pk")) == canonical_rows(expected)
    assert canonical_rows(_read(wh, "db.log")) == canonical_rows(
        [{"id": i, "v": v} for i, _, v in rows]
    )
    d1 = [(i, "d1", "o") for i in range(1000, 1010)]
    spark.createDataFrame(d1, "id bigint, dt string, v string").write.format("paimon").option(
        "warehouse", str(wh)
    ).option("partitionOverwriteMode", "dynamic").mode("overwrite").save("db.pk")
    expected = [e for e in expected if e["dt"] != "d1"] + [
        dict(zip(("id", "dt", "v"), r, strict=True)) for r in d1
    ]
    assert canonical_rows(_read(wh, "db.pk")) == canonical_rows(expected)
    kinds = [
        r[0]
        for r in session.sql(
            'SELECT commit_kind FROM "db"."pk$snapshots" ORDER BY snapshot_id'
        ).fetchall()
    ]
    assert kinds == ["APPEND", "APPEND", "OVERWRITE"]


def test_format_paimon_checks_the_schema_before_writing(spark, tmp_path):
    wh = tmp_path / "wh"
    session = paimon_sql.connect(wh, create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.t (id INT, v STRING)")
    df = spark.createDataFrame([(1, "a")], "id bigint, v string")
    with pytest.raises(Exception, match="column 'id'") as info:
        df.write.format("paimon").option("warehouse", str(wh)).mode("append").save("db.t")
    assert "SchemaError" in str(info.value) or isinstance(info.value, SchemaError)
    assert session.sql('SELECT count(*) FROM "db"."t$snapshots"').fetchall() == [(0,)]


def test_format_paimon_task_larger_than_the_write_buffer(spark, tmp_path):
    """One task with more rows than ``write-buffer-size`` writes several sorted runs (level 0) per
    bucket, and the last arrival of each key wins (see `tests/spark/test_write_buffer.py`)."""
    from paimon_sql.catalog import Catalog
    from paimon_sql.commit.plan import fold

    wh = tmp_path / "wh"
    session = paimon_sql.connect(wh, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2', 'write-buffer-size' = '64 kb')"
    )
    rows = [(i % 3000, f"arrival-{i}") for i in range(12000)]  # every key arrives four times
    df = spark.createDataFrame(rows, "id bigint, v string").coalesce(1)
    df.write.format("paimon").option("warehouse", str(wh)).mode("append").save("db.t")
    last = dict(rows)
    assert canonical_rows(_read(wh, "db.t")) == canonical_rows(
        [{"id": k, "v": v} for k, v in last.items()]
    )
    table = Catalog(wh).load_table("db.t")
    entries = fold(
        e
        for m in table.data_manifests(table.latest_snapshot())
        for e in table.manifest(m.file_name)
    ).values()
    assert {e.file.level for e in entries} == {0}
    per_bucket = {b: sum(1 for e in entries if e.bucket == b) for b in (0, 1)}
    assert min(per_bucket.values()) >= 3, per_bucket
