"""Catalog statements through session.sql.

Both CREATE TABLE forms, CTAS, ALTER, SHOW CREATE, DROP, TRUNCATE.
"""

from __future__ import annotations

import pytest

import paimon_sql
from paimon_sql.errors import (
    AlreadyExistsError,
    OptionError,
    PaimonSqlError,
    SqlError,
    TableNotFoundError,
    UnsupportedFeatureError,
)


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


def _snapshots(session, table):
    return session.sql(f'SELECT count(*) FROM "shop"."{table}$snapshots"').fetchall()[0][0]  # noqa: S608 - fixed test SQL


def test_truncate_partition_empties_only_that_partition(session):
    session.sql("CREATE TABLE shop.p (id INT, k STRING) PARTITIONED BY (k)")
    session.sql("INSERT INTO shop.p VALUES (1, 'a'), (2, 'b')")
    assert (
        "1 partition(s)"
        in session.sql("TRUNCATE TABLE shop.p PARTITION (k = 'a')").fetchall()[0][0]
    )
    assert session.sql("SELECT * FROM shop.p").fetchall() == [(2, "b")]
    (status,) = session.sql("TRUNCATE TABLE shop.p PARTITION (k = 'zz')").fetchall()[0]
    assert "nothing truncated" in status
    assert _snapshots(session, "p") == 2  # no snapshot for a spec naming no partition
    with pytest.raises(SqlError, match=r"non-partition column\(s\) \['zz'\]"):
        session.sql("TRUNCATE TABLE shop.p PARTITION (zz = 'b')")
    session.sql("CREATE TABLE shop.flat (id INT)")
    session.sql("INSERT INTO shop.flat VALUES (1)")
    with pytest.raises(SqlError, match="no partition keys"):
        session.sql("TRUNCATE TABLE shop.flat PARTITION (x = 1)")
    assert session.sql("SELECT * FROM shop.p").fetchall() == [(2, "b")]
    assert session.sql("SELECT * FROM shop.flat").fetchall() == [(1,)]


@pytest.mark.parametrize(
    ("column", "stored", "spec"),
    [
        ("DOUBLE", "1.0", "1"),
        ("DATE", "DATE '2024-01-01'", "'2024-1-1'"),
        ("BOOLEAN", "true", "'true'"),
    ],
)
def test_truncate_partition_compares_typed_values(session, column, stored, spec):
    session.sql(f"CREATE TABLE shop.p (id INT, k {column}) PARTITIONED BY (k)")
    session.sql(f"INSERT INTO shop.p VALUES (1, {stored}), (2, NULL)")  # noqa: S608 - fixed test SQL
    session.sql(f"TRUNCATE TABLE shop.p PARTITION (k = {spec})")
    assert session.sql("SELECT id FROM shop.p").fetchall() == [(2,)]


def test_truncate_several_tables_if_exists_and_refused_clauses(session):
    for name in ("a", "b"):
        session.sql(f"CREATE TABLE shop.{name} (id INT)")
        session.sql(f"INSERT INTO shop.{name} VALUES (1)")  # noqa: S608 - fixed test SQL
    for clause in ("CASCADE", "RESTART IDENTITY"):
        with pytest.raises(UnsupportedFeatureError, match=clause):
            session.sql(f"TRUNCATE TABLE shop.a {clause}")
    with pytest.raises(TableNotFoundError, match="nope"):
        session.sql("TRUNCATE TABLE shop.a, shop.nope")
    with pytest.raises(SqlError, match="system tables are read-only"):
        session.sql('TRUNCATE TABLE shop."a$snapshots"')
    assert session.sql("SELECT count(*) FROM shop.a").fetchall() == [(1,)]
    (status,) = session.sql("TRUNCATE TABLE IF EXISTS shop.a, shop.b, shop.nope").fetchall()[0]
    assert status == (
        "truncated table shop.a; truncated table shop.b; table shop.nope does not exist; "
        "nothing truncated"
    )
    assert session.sql("SELECT count(*) FROM shop.b").fetchall() == [(0,)]
