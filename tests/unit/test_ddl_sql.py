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
    DatabaseNotFoundError,
    OptionError,
    PaimonSqlError,
    SchemaError,
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
    # Java's format writers read these; pyarrow / fastavro cannot do what they ask
    ("parquet.statistics.truncate.length", "16"),
    ("parquet.bloom.filter.max.bytes", "1024"),
    ("parquet.crypto.factory.class", "com.example.Crypto"),
    ("orc.stripe.row.count", "100"),
    ("orc.column.encoding.direct", "v"),
    ("orc.compression.zstd.level", "3"),
    ("avro.row-name-mapping", "r:n"),
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
        # the format writers' options: values as Java reads them (plain numbers, Java's names)
        ({"parquet.block.size": "128 mb"}, "'parquet.block.size' = '128 mb' is not valid", None),
        ({"parquet.writer.version": "V2"}, "expected v1 or PARQUET_1_0 or v2", OptionError),
        ({"parquet.compression": "lzo"}, "'parquet.compression' = 'lzo' cannot be written", None),
        ({"parquet.bloom.filter.enabled#w": "true"}, "names 'w', which is not a Parquet", None),
        ({"parquet.bloom.filter.fpp#v": "1.5"}, "expected a number between 0 and 1", None),
        ({"parquet.enable.dictionary": "yes"}, "expected true or false", OptionError),
        ({"orc.bloom.filter.columns": "id,w"}, "names 'w', which is not a column", None),
        ({"orc.bloom.filter.columns": "id, v"}, "does not trim the names", OptionError),
        ({"orc.write.format": "2.0"}, "expected 0.11 or 0.12", OptionError),
        (
            {"orc.write.format": "0.11", "orc.bloom.filter.columns": "v"},
            "writes no bloom filters into 0.11 files",
            None,
        ),
        ({"orc.compress.size": "4096"}, "a multiple of 65536 bytes", None),
        ({"orc.compress": "gzip"}, "'orc.compress' = 'gzip' cannot be written", None),
        ({"avro.codec": "zstd"}, "expected an Avro codec", OptionError),
        ({"file.format": "orc", "file.compression.zstd-level": "9"}, "no zstd level", None),
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


def _schema_count(session, table):
    return session.sql(f'SELECT count(*) FROM "shop"."{table}$schemas"').fetchall()[0][0]  # noqa: S608 - fixed test SQL


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("ALTER TABLE shop.a SET LOCATION '/tmp/elsewhere'", "SET LOCATION is not supported"),
        ("ALTER TABLE shop.a ALTER COLUMN w TYPE BIGINT USING w * 2", "USING w \\* 2"),
        ("ALTER TABLE shop.a ADD CONSTRAINT c CHECK (id > 0)", "ADD CONSTRAINT c"),
        ("ALTER TABLE shop.a UNSET TBLPROPERTIES ('nope')", "option 'nope' is not set"),
        ('ALTER TABLE shop."a$options" ADD COLUMN z INT', "system tables are read-only"),
        ('DROP TABLE shop."a$options"', "system tables are read-only"),
        ("DROP TABLE shop.a CASCADE", "CASCADE is not supported"),
        ('INSERT INTO shop."a$snapshots" VALUES (1)', "system tables are read-only"),
        ('DELETE FROM shop."a$files"', "system tables are read-only"),
    ],
)
def test_alter_clauses_without_a_paimon_meaning_are_refused(session, statement, message):
    session.sql("CREATE TABLE shop.a (id INT, w INT)")
    with pytest.raises(PaimonSqlError, match=message):
        session.sql(statement)
    assert _schema_count(session, "a") == 1
    assert session.sql("SHOW TABLES FROM shop").fetchall() == [("a",)]


@pytest.mark.parametrize(
    "change",
    [
        "SET ('partition.default-name' = 'NONE')",
        "SET TBLPROPERTIES ('partition.legacy-name' = 'false')",
        "RESET ('partition.default-name')",
    ],
)
def test_partition_folder_naming_options_are_fixed_once_there_is_data(session, change):
    """They name the folders already written: changing them would hide those partitions
    (Java accepts it and then fails to find the files)."""
    session.sql(
        "CREATE TABLE shop.p (id INT, p STRING, d DOUBLE) PARTITIONED BY (p, d) "
        "WITH ('partition.default-name' = 'EMPTY')"
    )
    session.sql(f"ALTER TABLE shop.p {change}")  # no data yet: allowed
    session.sql("CREATE TABLE shop.q (id INT, p STRING, d DOUBLE) PARTITIONED BY (p, d) "
                "WITH ('partition.default-name' = 'EMPTY')")  # fmt: skip
    session.sql("INSERT INTO shop.q VALUES (1, NULL, 1.5), (2, 'a', 1E10)")
    with pytest.raises(OptionError, match="cannot change once the table has data"):
        session.sql(f"ALTER TABLE shop.q {change}")
    assert _schema_count(session, "q") == 1
    rows = session.sql("SELECT id, p FROM shop.q ORDER BY id").fetchall()
    assert rows == [(1, None), (2, "a")]


@pytest.mark.parametrize(
    "change",
    ["ADD COLUMN r.c INT", "ALTER COLUMN r.a TYPE BIGINT", "RENAME COLUMN r.a TO aa",
     "DROP COLUMN `r`.`b`"],
)  # fmt: skip
def test_nested_field_paths_are_refused_by_name(session, change):
    session.sql("CREATE TABLE shop.n (id INT, r ROW<a INT, b STRING>)")
    with pytest.raises(UnsupportedFeatureError, match="changes by nested field path"):
        session.sql(f"ALTER TABLE shop.n {change}")
    session.sql("ALTER TABLE shop.n MODIFY r ROW<a BIGINT, b STRING, c INT>")  # the whole column
    assert _schema_count(session, "n") == 2


def test_unset_if_exists_of_nothing_writes_no_schema(session):
    session.sql("CREATE TABLE shop.a (id INT)")
    (status,) = session.sql("ALTER TABLE shop.a UNSET TBLPROPERTIES IF EXISTS ('nope')").fetchall()[
        0
    ]
    assert status == "table shop.a is unchanged; no new schema (schema 0)"
    assert _schema_count(session, "a") == 1


def test_comments_of_table_and_columns_are_stored_in_the_schema(session):
    session.sql("CREATE TABLE shop.c (id INT COMMENT 'the id', v STRING) COMMENT 'first'")
    session.sql("COMMENT ON COLUMN shop.c.v IS 'the value'")
    session.sql("COMMENT ON TABLE shop.c IS 'second'")
    schema = session.table("shop.c").latest_schema
    assert (schema.comment, [f.description for f in schema.fields]) == (
        "second",
        ["the id", "the value"],
    )
    ddl = session.sql("SHOW CREATE TABLE shop.c").fetchall()[0][0]
    assert "`v` STRING COMMENT 'the value'" in ddl
    assert ddl.endswith("COMMENT 'second'")
    assert session.sql("DESCRIBE shop.c").fetchall()[1][-1] == "the value"
    session.sql("ALTER TABLE shop.c SET TBLPROPERTIES ('comment' = 'third')")  # Spark's way
    assert session.table("shop.c").latest_schema.comment == "third"
    session.sql("ALTER TABLE shop.c RESET ('comment')")  # Flink's way
    schema = session.table("shop.c").latest_schema
    assert (schema.comment, dict(schema.options)) == (None, {})
    session.sql("COMMENT ON COLUMN shop.c.v IS NULL")  # once DuckDB's, on the view: lost
    assert session.table("shop.c").latest_schema.fields[1].description is None


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("CREATE DATABASE d2 LOCATION '/tmp/d2'", "LOCATION"),
        ("CREATE DATABASE d2 COMMENT 'hello'", "cannot store a database comment"),
        ("CREATE DATABASE d2 WITH ('k' = 'v')", "cannot store database properties"),
        ("CREATE DATABASE d2 WITH DBPROPERTIES ('k' = 'v')", "cannot store database properties"),
    ],
)
def test_create_database_clauses_are_refused(session, statement, message):
    with pytest.raises(UnsupportedFeatureError, match=message):
        session.sql(statement)
    assert session.sql("SHOW DATABASES").fetchall() == [("shop",)]


def test_if_exists_statements_say_what_happened(session):
    session.sql("CREATE TABLE shop.u (id INT)")
    session.sql("INSERT INTO shop.u VALUES (1)")
    statuses = {
        "CREATE TABLE IF NOT EXISTS shop.u (x INT)": "table shop.u already exists; nothing created",
        "CREATE TABLE IF NOT EXISTS shop.u AS SELECT 2 AS x": (
            "table shop.u already exists; nothing written"
        ),
        "CREATE DATABASE IF NOT EXISTS shop": "database shop already exists; nothing created",
        "DROP TABLE IF EXISTS shop.nope": "table shop.nope does not exist; nothing dropped",
        "DROP DATABASE IF EXISTS nope": "database nope does not exist; nothing dropped",
        "ALTER TABLE IF EXISTS shop.nope ADD COLUMN z INT": (
            "table shop.nope does not exist; nothing altered"
        ),
    }
    for statement, status in statuses.items():
        assert session.sql(statement).fetchall() == [(status,)], statement
    assert session.sql("SELECT * FROM shop.u").fetchall() == [(1,)]
    assert session.table("shop.u").latest_schema.field_names == ("id",)


def test_create_and_drop_schema_act_on_the_warehouse(session):
    assert session.sql("CREATE SCHEMA s2").fetchall() == [("created database s2",)]
    assert ("s2",) in session.sql("SHOW DATABASES").fetchall()
    assert session.sql("DROP SCHEMA s2").fetchall() == [("dropped database s2",)]


def test_spark_options_clause_and_partition_transforms(session):
    session.sql(
        "CREATE TABLE shop.o (id INT, v STRING) USING paimon "
        "OPTIONS ('bucket' = '2', 'bucket-key' = 'id')"
    )
    assert dict(session.table("shop.o").latest_schema.options) == {
        "bucket": "2",
        "bucket-key": "id",
    }
    for transform in ("days(id)", "bucket(4, id)"):
        with pytest.raises(UnsupportedFeatureError, match="partition transforms"):
            session.sql(f"CREATE TABLE shop.p (id INT) USING paimon PARTITIONED BY ({transform})")


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE TABLE nope.t (id INT)",
        "CREATE TABLE nope.t (id INT) WITH ('bucket' = '1')",
        "CREATE TABLE nope.t AS SELECT 1 AS id",
        "INSERT INTO nope.t VALUES (1)",
    ],
)
def test_a_missing_database_is_named(session, statement):
    with pytest.raises(DatabaseNotFoundError, match="CREATE DATABASE nope first"):
        session.sql(statement)


@pytest.mark.parametrize("word", ["TEMPORARY", "EXTERNAL"])
def test_temporary_and_external_tables_in_a_paimon_database_are_refused(session, word):
    with pytest.raises(UnsupportedFeatureError, match=f"CREATE {word} TABLE shop.t"):
        session.sql(f"CREATE {word} TABLE shop.t (id INT)")
    session.sql("CREATE TEMP TABLE scratch (id INT)")  # DuckDB's own TEMP table still works
    assert session.sql("SHOW TABLES FROM shop").fetchall() == []


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE TABLE shop.k (id INT, ID INT)",
        "CREATE TABLE shop.k AS SELECT 1 AS id, 2 AS ID",
        "ALTER TABLE shop.a ADD COLUMN Id INT",
        "ALTER TABLE shop.a RENAME COLUMN v TO ID",
    ],
)
def test_column_names_differing_only_in_case_are_refused(session, statement):
    session.sql("CREATE TABLE shop.a (id INT, v INT)")
    with pytest.raises(SchemaError, match="differ only in case"):
        session.sql(statement)
    assert session.sql("SHOW TABLES FROM shop").fetchall() == [("a",)]
    assert _schema_count(session, "a") == 1


def test_a_table_with_names_differing_only_in_case_is_refused_by_name(session, tmp_path):
    """As Java may write one (its names are case-sensitive): reads and writes name the columns.

    Once DuckDB read column ``ID`` as ``id`` (wrong values); INSERT failed with a raw KeyError.
    """
    session.sql("CREATE TABLE shop.j (id INT, x INT)")
    session.sql("INSERT INTO shop.j VALUES (1, 2)")
    table = session.table("shop.j")
    schema = table.latest_schema
    renamed = (schema.fields[0], dataclasses.replace(schema.fields[1], name="ID"))
    assert table.commit_schema(dataclasses.replace(schema, id=1, fields=renamed))
    java = paimon_sql.connect(tmp_path / "wh")
    for statement in ("SELECT * FROM shop.j", "INSERT INTO shop.j VALUES (3, 4)"):
        with pytest.raises(SchemaError, match=r"columns 'id' and 'ID' of table shop\.j differ"):
            java.sql(statement)
    java.sql("ALTER TABLE shop.j RENAME COLUMN ID TO id2")  # the way out
    assert java.sql("SELECT * FROM shop.j").fetchall() == [(1, 2)]


def test_a_bare_name_of_a_temp_table_after_use_stays_duckdbs(session):
    session.sql("CREATE TABLE shop.t (id INT)")
    session.sql("INSERT INTO shop.t VALUES (1)")
    session.sql("USE shop")
    session.sql("CREATE TEMP TABLE scratch (id INT)")
    session.sql("INSERT INTO scratch VALUES (1)")
    session.sql("TRUNCATE scratch")  # once: table shop.scratch not found
    assert session.sql("SELECT count(*) FROM scratch").fetchall() == [(0,)]
    session.sql("DROP TABLE scratch")
    assert session.sql("TRUNCATE t").fetchall() == [("truncated table shop.t",)]
    assert session.sql("SELECT count(*) FROM shop.t").fetchall() == [(0,)]


def test_partition_specs_match_as_java_compares_partition_values(session):
    """A NaN partition is named by 'NaN', 0.0 is not -0.0 (Java's Double.compareTo), and the
    default partition name names the NULL partition (Java's convertSpecToInternal)."""
    session.sql("CREATE TABLE shop.d (v INT, p DOUBLE) PARTITIONED BY (p)")
    session.sql("INSERT INTO shop.d VALUES (1, 'NaN'::DOUBLE), (2, 1.5), (3, NULL)")
    session.sql("INSERT OVERWRITE shop.d PARTITION (p = 'NaN') SELECT 10")
    assert session.sql("SELECT v FROM shop.d ORDER BY v").fetchall() == [(2,), (3,), (10,)]
    session.sql("TRUNCATE TABLE shop.d PARTITION (p = 'NaN')")
    session.sql("TRUNCATE TABLE shop.d PARTITION (p = '__DEFAULT_PARTITION__')")
    assert session.sql("SELECT v FROM shop.d").fetchall() == [(2,)]
    session.sql("CREATE TABLE shop.s (v INT, p STRING) PARTITIONED BY (p) "
                "WITH ('partition.default-name' = 'none')")  # fmt: skip
    session.sql("INSERT INTO shop.s VALUES (1, NULL), (2, 'a')")
    session.sql("TRUNCATE TABLE shop.s PARTITION (p = 'none')")
    assert session.sql("SELECT v FROM shop.s").fetchall() == [(2,)]
