"""Catalog statements through session.sql.

Both CREATE TABLE forms, CTAS, ALTER, SHOW CREATE, DROP, TRUNCATE.
"""

from __future__ import annotations

import dataclasses
import re
from types import MappingProxyType

import pytest

import paimon_sql
from paimon_sql.errors import (
    AlreadyExistsError,
    OptionError,
    PaimonSqlError,
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


_NOT_HONOURED = [
    ("manifest.format", "orc"),
    ("fields.v.default-value", "zz"),
    ("file.format.per.level", "0:avro"),
    ("file.compression.per.level", "0:lz4"),
    ("file.block-size", "64 mb"),
    ("file.suffix.include.compression", "true"),
    ("changelog-file.format", "orc"),
    ("changelog.precommit-compact", "true"),
    ("metadata.stats-keep-first-n-columns", "2"),
    ("data-file.external-paths.strategy", "round-robin"),
    ("snapshot.clean-empty-directories", "true"),
    ("sequence.auto-padding", "row-kind-flag"),
    ("ignore-update-before", "true"),
    ("record-level.expire-time", "1 d"),
    ("commit.callbacks", "com.example.Callback"),
]


@pytest.mark.parametrize(("key", "value"), _NOT_HONOURED)
def test_options_paimon_sql_does_not_honour_are_refused_by_name(session, key, value):
    """Accepted options must do what they say; those paimon-sql does not implement are refused at
    CREATE TABLE and ALTER TABLE … SET, naming the option (the table is not created/changed)."""
    with pytest.raises(UnsupportedFeatureError, match=re.escape(repr(key))):
        session.sql(f"CREATE TABLE shop.n (id INT, v STRING) WITH ('{key}' = '{value}')")
    assert session.sql("SHOW TABLES FROM shop").fetchall() == []
    session.sql("CREATE TABLE shop.n (id INT, v STRING)")
    before = session.table("shop.n").latest_schema.id
    with pytest.raises(UnsupportedFeatureError, match=re.escape(repr(key))):
        session.sql(f"ALTER TABLE shop.n SET ('{key}' = '{value}')")
    assert session.table("shop.n").latest_schema.id == before


def test_partition_expiration_is_refused_by_name(session):
    with pytest.raises(UnsupportedFeatureError, match=r"'partition\.expiration-time'"):
        session.sql(
            "CREATE TABLE shop.p (id INT, dt STRING) PARTITIONED BY (dt) "
            "WITH ('partition.expiration-time' = '7 d', 'partition.timestamp-formatter' = "
            "'yyyy-MM-dd')"
        )


@pytest.mark.parametrize(
    ("options", "match", "error"),
    [
        (
            {"file.format": "avro", "file.compression": "lz4"},
            "'lz4' cannot be written to avro",
            None,
        ),
        (
            {"file.format": "orc", "file.compression": "gzip"},
            "'gzip' cannot be written to orc",
            None,
        ),
        ({"file.format": "orc", "file.compression": "brotli"}, "'brotli' cannot be written", None),
        ({"file.format": "avro", "file.compression": "brotli"}, "'brotli' cannot be written", None),
        ({"file.compression": "lzo"}, "'lzo' cannot be written to parquet", None),
        ({"file.compression": "zlib"}, "'zlib' cannot be written to parquet", None),
        ({"file-index.bloom-filter.columns": "zz"}, "names 'zz', which is not a column", None),
        (
            {"file-index.bloomfilter.columns": "v"},
            "'bloomfilter' file index is not supported",
            None,
        ),
        ({"file-index.range-bitmap.columns": "v"}, "'range-bitmap' file index", None),
        ({"file-index.nonsense.columns": "v"}, "'nonsense' file index", None),
        (
            {"file-index.bloom-filter.columns": "v", "file-index.bloom-filter.v.fpp": "abc"},
            "fpp = 'abc' is not valid",
            OptionError,
        ),
    ],
)
def test_unwritable_file_options_are_refused_at_create_and_alter(session, options, match, error):
    """The writer's own check runs at CREATE / ALTER TABLE: no table that no INSERT can write."""
    error = error or PaimonSqlError
    pairs = ", ".join(f"'{k}' = '{v}'" for k, v in options.items())
    with pytest.raises(error, match=match):
        session.sql(f"CREATE TABLE shop.f (id INT, v STRING) WITH ({pairs})")
    assert session.sql("SHOW TABLES FROM shop").fetchall() == []
    session.sql("CREATE TABLE shop.f (id INT, v STRING)")
    with pytest.raises(error, match=match):
        session.sql(f"ALTER TABLE shop.f SET ({pairs})")
    assert "file.compression" not in session.table("shop.f").latest_schema.options
    session.sql("INSERT INTO shop.f VALUES (1, 'a')")


@pytest.mark.parametrize(
    ("fmt", "compression"), [("orc", "zlib"), ("avro", "deflate"), ("parquet", "gzip")]
)
def test_native_compressions_are_written(session, fmt, compression):
    session.sql(
        f"CREATE TABLE shop.z (id INT, v STRING) WITH ('file.format' = '{fmt}', "
        f"'file.compression' = '{compression}')"
    )
    session.sql("INSERT INTO shop.z VALUES (1, 'a'), (2, NULL)")
    assert session.sql("SELECT * FROM shop.z ORDER BY id").fetchall() == [(1, "a"), (2, None)]


def test_a_java_table_with_options_our_writer_ignores_is_read_but_not_written(session):
    """A table Java made with 'manifest.format' = 'orc' (written here through the catalog, as
    the DDL refuses it): reads work, every write is refused by name before any file."""
    session.sql("CREATE TABLE shop.j (id INT, v STRING)")
    session.sql("INSERT INTO shop.j VALUES (1, 'a')")
    table = session.table("shop.j")
    schema = table.latest_schema
    options = {**schema.options, "manifest.format": "orc", "fields.v.default-value": "d"}
    assert table.commit_schema(
        dataclasses.replace(schema, id=schema.id + 1, options=MappingProxyType(options))
    )
    assert session.sql("SELECT * FROM shop.j").fetchall() == [(1, "a")]
    for statement in (
        "INSERT INTO shop.j VALUES (2, 'b')",
        "DELETE FROM shop.j WHERE id = 1",
        "CALL sys.compact(table => 'shop.j')",
    ):
        with pytest.raises(
            UnsupportedFeatureError, match=r"writing shop\.j: option 'manifest\.format'"
        ):
            session.sql(statement)
    assert session.sql("SELECT * FROM shop.j").fetchall() == [(1, "a")]
    assert len(session.table("shop.j").snapshot_ids()) == 1


def test_index_files_in_data_dir_refused_only_where_hash_index_files_are_written(session):
    """'index-file-in-data-file-dir': deletion-vector files honour it; the HASH index files of a
    dynamic-bucket primary-key table do not, so only that combination is refused."""
    session.sql(
        "CREATE TABLE shop.dv (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
        "'bucket' = '1', 'deletion-vectors.enabled' = 'true', "
        "'index-file-in-data-file-dir' = 'true')"
    )
    session.sql("CREATE TABLE shop.ap (id INT) WITH ('index-file-in-data-file-dir' = 'true')")
    with pytest.raises(UnsupportedFeatureError, match="'index-file-in-data-file-dir'"):
        session.sql(
            "CREATE TABLE shop.dyn (id INT, PRIMARY KEY (id) NOT ENFORCED) "
            "WITH ('index-file-in-data-file-dir' = 'true')"
        )
