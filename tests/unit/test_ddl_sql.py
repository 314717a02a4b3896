"""Catalog statements through session.sql.

Both CREATE TABLE forms, CTAS, ALTER, SHOW CREATE, DROP, TRUNCATE.
"""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.errors import AlreadyExistsError, OptionError, PaimonSqlError


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE shop")
    return s


def test_flink_and_spark_forms_make_the_same_schema(session):
    session.sql(
        "CREATE TABLE shop.a (id BIGINT, dt STRING, v INT, PRIMARY KEY (id, dt) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '2')"
    )
    session.sql(
        "CREATE TABLE shop.b (id BIGINT, dt STRING, v INT) USING paimon PARTITIONED BY (dt) "
        "TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '2')"
    )
    a, b = session.table("shop.a").latest_schema, session.table("shop.b").latest_schema
    assert (a.fields, a.primary_keys, a.partition_keys, dict(a.options)) == (
        b.fields,
        b.primary_keys,
        b.partition_keys,
        dict(b.options),
    )
    assert a.field("id").type.nullable is False  # primary keys are NOT NULL


def test_ctas_alter_show_truncate_drop(session):
    session.sql("CREATE TABLE shop.src (id BIGINT, v INT) WITH ('bucket' = '-1')")
    session.sql("INSERT INTO shop.src VALUES (1, 10), (2, 20)")
    assert session.sql(
        "CREATE TABLE shop.copy AS SELECT id, v * 2 AS w FROM shop.src"
    ).fetchall() == [(2,)]
    assert session.sql("SELECT * FROM shop.copy ORDER BY id").fetchall() == [(1, 20), (2, 40)]
    session.sql("ALTER TABLE shop.src ADD COLUMN note STRING")
    assert session.sql("SELECT * FROM shop.src ORDER BY id").fetchall() == [
        (1, 10, None),
        (2, 20, None),
    ]
    assert session.table("shop.src").latest_schema.id == 1
    assert "`note` STRING" in session.sql("SHOW CREATE TABLE shop.src").fetchall()[0][0]
    session.sql("TRUNCATE TABLE shop.src")
    assert session.sql("SELECT count(*) FROM shop.src").fetchall() == [(0,)]
    session.sql("DROP TABLE shop.copy")
    assert session.sql("SHOW TABLES FROM shop").fetchall() == [("src",)]


def test_ctas_reads_its_query_as_duckdb_does(session):
    """A map literal is a MAP (not a ROW), ``INT[2]`` a type (not an index): DuckDB's types."""
    session.sql("CREATE TABLE shop.m WITH ('bucket' = '-1') AS SELECT MAP {'k': 1, 'j': 2} AS m")
    session.sql("CREATE TABLE shop.a AS SELECT [1, 2]::INT[2] AS arr")
    schema = session.sql("SHOW CREATE TABLE shop.m").fetchall()[0][0]
    assert "`m` MAP<STRING, INT>" in schema
    assert "`arr` ARRAY<INT>" in session.sql("SHOW CREATE TABLE shop.a").fetchall()[0][0]
    assert session.sql("SELECT m FROM shop.m").fetchall() == [({"k": 1, "j": 2},)]
    assert session.sql("SELECT arr FROM shop.a").fetchall() == [([1, 2],)]


def test_errors(session):
    with pytest.raises(OptionError, match="did you mean 'bucket'"):
        session.sql("CREATE TABLE shop.bad (id INT) WITH ('buckett' = '2')")
    assert session.sql("SHOW TABLES FROM shop").fetchall() == []
    session.sql("CREATE TABLE shop.t (id INT) WITH ('bucket' = '-1')")
    with pytest.raises(AlreadyExistsError):
        session.sql("CREATE TABLE shop.t (id INT) WITH ('bucket' = '-1')")
    session.sql("CREATE TABLE IF NOT EXISTS shop.t (id INT) WITH ('bucket' = '-1')")
    with pytest.raises(PaimonSqlError, match="CASCADE"):
        session.sql("DROP DATABASE shop")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("'bucket' = 'many'", "invalid value 'many' for table option 'bucket'"),
        ("'buckets' = '4'", "did you mean 'bucket'"),
    ],
)
def test_alter_set_checks_each_value_and_writes_no_schema(session, value, message):
    session.sql(
        "CREATE TABLE shop.alter_bad (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')"
    )
    with pytest.raises(OptionError, match=message):
        session.sql("ALTER TABLE shop.alter_bad SET (" + value + ")")
    assert session.sql('SELECT count(*) FROM "shop"."alter_bad$schemas"').fetchall() == [(1,)]
    session.sql("DROP TABLE shop.alter_bad")
