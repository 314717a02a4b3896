"""DDL → Paimon schemas: both spellings, Java's fixture schemas (ids included), ALTER evolution."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from paimon_sql.catalog.schema_change import (
    AddColumn,
    DropColumn,
    MoveColumn,
    RenameColumn,
    RenameTable,
    ResetOptions,
    SetOptions,
    UpdateColumnComment,
    UpdateColumnType,
    UpdateComment,
    apply_alter,
)
from paimon_sql.errors import OptionError, SchemaError, SqlError, UnsupportedFeatureError
from paimon_sql.format.schema import schema_from_json
from paimon_sql.sql.ddl import parse_alter_table, parse_create_table, parse_sql_type
from paimon_sql.types import field_to_json, type_sql
from tests.fixtures import FIXTURES

if TYPE_CHECKING:
    from pathlib import Path

CPP = FIXTURES / "paimon-cpp/test/test_data/parquet"
JAVA09 = FIXTURES / "generated-paimon-java-0.9/warehouse/db.db"
needs_fixtures = pytest.mark.skipif(not FIXTURES.exists(), reason="shared fixtures not present")


def _schema_file(table_dir: Path, n: int = 0) -> dict:
    return json.loads((table_dir / "schema" / f"schema-{n}").read_text())


def _ours(sql: str) -> dict:
    t = parse_create_table(sql)
    return {
        "fields": [field_to_json(f) for f in t.fields],
        "highestFieldId": t.highest_field_id,
        "partitionKeys": list(t.partition_keys),
        "primaryKeys": list(t.primary_keys),
        "options": dict(t.options),
    }


def _java(data: dict) -> dict:
    return {
        k: data[k] for k in ("fields", "highestFieldId", "partitionKeys", "primaryKeys", "options")
    }


# --------------------------------------------------------------------- the two spellings


FLINK = """CREATE TABLE IF NOT EXISTS db.t (
  id BIGINT, dt STRING, v DOUBLE COMMENT 'value', tags ARRAY<STRING>, attrs MAP<STRING, INT>,
  n ROW<a INT, b STRING>,
  PRIMARY KEY (id, dt) NOT ENFORCED
) COMMENT 'a table' PARTITIONED BY (dt) WITH ('bucket' = '4', 'merge-engine' = 'partial-update')"""
SPARK = """CREATE TABLE IF NOT EXISTS db.t (
  id BIGINT, dt STRING, v DOUBLE COMMENT 'value', tags ARRAY<STRING>, attrs MAP<STRING, INT>,
  n STRUCT<a: INT, b: STRING>
) USING paimon PARTITIONED BY (dt) COMMENT 'a table'
TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '4', 'merge-engine' = 'partial-update')"""


def test_flink_and_spark_forms_give_identical_schemas():
    flink, spark = parse_create_table(FLINK), parse_create_table(SPARK)
    assert flink == spark
    assert flink.identifier == ("db", "t")
    assert flink.if_not_exists
    assert flink.comment == "a table"
    assert flink.to_schema() == spark.to_schema()
    assert [(f.id, f.name) for f in flink.fields] == [
        (0, "id"), (1, "dt"), (2, "v"), (3, "tags"), (4, "attrs"), (5, "n")
    ]  # fmt: skip
    assert [(f.id, f.name) for f in flink.fields[5].type.fields] == [(6, "a"), (7, "b")]
    assert flink.highest_field_id == 7
    assert flink.fields[2].description == "value"
    assert dict(flink.options) == {"bucket": "4", "merge-engine": "partial-update"}


def test_column_level_primary_key_and_ctas():
    t = parse_create_table(
        "CREATE TABLE my_table (k INT PRIMARY KEY NOT ENFORCED, f0 INT, f1 STRING)"
    )
    assert t.primary_keys == ("k",)
    assert type_sql(t.fields[0].type) == "INT NOT NULL"
    ctas = parse_create_table("CREATE TABLE t WITH ('primary-key' = 'a') AS SELECT 1 AS a")
    assert ctas.fields == ()
    assert ctas.primary_keys == ("a",)
    assert ctas.as_select is not None
    spark_ctas = parse_create_table(
        "CREATE TABLE t USING paimon TBLPROPERTIES ('bucket' = '-1') AS SELECT 1 AS a"
    )
    assert spark_ctas.as_select is not None
    assert spark_ctas.as_select.sql() == "SELECT 1 AS a"


@pytest.mark.parametrize(
    ("sql_type", "paimon"),
    [("BOOLEAN", "BOOLEAN"), ("TINYINT", "TINYINT"), ("SMALLINT", "SMALLINT"), ("INT", "INT"),
     ("INTEGER", "INT"), ("BIGINT", "BIGINT"), ("FLOAT", "FLOAT"), ("DOUBLE", "DOUBLE"),
     ("DECIMAL(12, 3)", "DECIMAL(12, 3)"), ("DECIMAL", "DECIMAL(10, 0)"), ("CHAR(3)", "CHAR(3)"),
     ("VARCHAR(20)", "VARCHAR(20)"), ("STRING", "STRING"), ("BINARY(4)", "BINARY(4)"),
     ("VARBINARY(5)", "VARBINARY(5)"), ("BYTES", "BYTES"), ("DATE", "DATE"), ("TIME", "TIME(0)"),
     ("TIME(3)", "TIME(3)"), ("TIMESTAMP", "TIMESTAMP(6)"), ("TIMESTAMP(9)", "TIMESTAMP(9)"),
     ("TIMESTAMP_LTZ(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
     ("TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
     ("TIMESTAMP_NTZ", "TIMESTAMP(6)"), ("ARRAY<INT>", "ARRAY<INT>"),
     ("ARRAY<INT NOT NULL>", "ARRAY<INT NOT NULL>"), ("MAP<STRING, BIGINT>", "MAP<STRING, BIGINT>"),
     ("MULTISET<STRING>", "MULTISET<STRING>"), ("ROW<a INT, b STRING>", "ROW<`a` INT, `b` STRING>"),
     ("ROW(a INT NOT NULL)", "ROW<`a` INT NOT NULL>"),
     ("STRUCT<a: INT, b: STRING>", "ROW<`a` INT, `b` STRING>"),
     ("INT NOT NULL", "INT NOT NULL"), ("VARIANT", "VARIANT")],
)  # fmt: skip
def test_every_paimon_type(sql_type, paimon):
    assert type_sql(parse_sql_type(sql_type)) == paimon


@pytest.mark.parametrize(
    ("sql_type", "paimon"),
    [("INT1", "TINYINT"), ("INT2", "SMALLINT"), ("INT4", "INT"), ("INT8", "BIGINT"),
     ("INT16", "SMALLINT"), ("INT32", "INT"), ("INT64", "BIGINT"), ("FLOAT4", "FLOAT"),
     ("FLOAT8", "DOUBLE"), ("REAL", "FLOAT"), ("FLOAT(1)", "FLOAT"), ("FLOAT(24)", "FLOAT"),
     ("FLOAT(25)", "DOUBLE"), ("FLOAT(53)", "DOUBLE"), ("BPCHAR", "STRING"),
     ("NVARCHAR", "STRING"), ("DATETIME", "TIMESTAMP(6)"), ("TIMESTAMP_US", "TIMESTAMP(6)"),
     ("LOGICAL", "BOOLEAN"), ("SIGNED", "INT"), ("INTEGRAL", "INT"), ("OID", "BIGINT"),
     ("INT[]", "ARRAY<INT>"), ("MAP(INT8, VARCHAR)", "MAP<BIGINT, STRING>")],
)  # fmt: skip
def test_duckdb_type_names_mean_what_duckdb_means(sql_type, paimon):
    """DuckDB's aliases (``duckdb_types()``) mean its types: INT8 is 8 bytes, FLOAT(53) DOUBLE."""
    assert type_sql(parse_sql_type(sql_type)) == paimon


@pytest.mark.parametrize(
    ("sql_type", "fragment"),
    [("INT[3]", "no fixed size; write ARRAY<INT>"), ("STRING(10)", "use|write VARCHAR\\(10\\)"),
     ("TEXT(5)", "VARCHAR\\(5\\)"), ("INT(11)", "INT takes no length"),
     ("DOUBLE(5)", "DOUBLE takes no length"), ("FLOAT(54)", "in \\[1, 53\\]"),
     ("INT128", "HUGEINT is not a Paimon type"), ("UINT8", "UINT8 is not a Paimon type"),
     ("GUID", "use STRING"), ("TIMESTAMPTZ_NS", "TIMESTAMP_LTZ\\(9\\)")],
)  # fmt: skip
def test_duckdb_types_paimon_lacks_are_refused_by_name(sql_type, fragment):
    with pytest.raises((SqlError, SchemaError, UnsupportedFeatureError), match=fragment):
        parse_sql_type(sql_type)


def test_nested_field_comments_and_ids():
    t = parse_create_table(
        "CREATE TABLE t (a INT, r ROW<x INT 'doc', y ARRAY<ROW<z INT COMMENT 'zz'>>>, b INT)"
    )
    r = t.fields[1]
    assert [(f.id, f.name, f.description) for f in r.type.fields] == [
        (2, "x", "doc"),
        (3, "y", None),
    ]
    assert r.type.fields[1].type.element.fields[0].id == 4  # type: ignore[union-attr]
    assert r.type.fields[1].type.element.fields[0].description == "zz"  # type: ignore[union-attr]
    assert t.fields[2].id == 5
    assert t.highest_field_id == 5


def test_primary_key_nullable_option():
    t = parse_create_table(
        "CREATE TABLE t (k INT, v INT, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('primary-key.nullable' = 'true')"
    )
    assert t.fields[0].type.nullable


# --------------------------------------------------------------------- errors


def test_parse_error_has_position():
    with pytest.raises(SqlError) as info:
        parse_create_table("CREATE TABLE t (a INT,\n  b STRING c)")
    assert info.value.line == 2
    assert info.value.col is not None


def test_unknown_type_lists_valid_types():
    with pytest.raises(SqlError, match="valid types: BOOLEAN, TINYINT"):
        parse_create_table("CREATE TABLE t (a FOO)")
    # VARCHAR without a length is STRING, as in DuckDB (issue 16)
    assert type_sql(parse_create_table("CREATE TABLE t (a VARCHAR)").fields[0].type) == "STRING"
    with pytest.raises(SchemaError, match="DECIMAL\\(40, 2\\)"):
        parse_create_table("CREATE TABLE t (a DECIMAL(40, 2))")


@pytest.mark.parametrize(
    ("sql", "error", "fragment"),
    [("CREATE TABLE t (a INT, a INT)", SchemaError, "duplicate column"),
     ("CREATE TABLE t (a INT, PRIMARY KEY (b) NOT ENFORCED)", SchemaError, "'b' is not a column"),
     ("CREATE TABLE t (ident INT, PRIMARY KEY (idnet) NOT ENFORCED)", SchemaError,
      "did you mean 'ident'"),
     ("CREATE TABLE t (a INT, b INT) PARTITIONED BY (c)", SchemaError, "'c' is not a column"),
     ("CREATE TABLE t (a ARRAY<INT>, PRIMARY KEY (a) NOT ENFORCED)", SchemaError, "nested type"),
     ("CREATE TABLE t (a INT, b INT, PRIMARY KEY (a) NOT ENFORCED) PARTITIONED BY (a)", SchemaError,
      "only partition"),
     ("CREATE TABLE t (_KEY_a INT)", SchemaError, "reserved"),
     ("CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (a) NOT ENFORCED)", SchemaError,
      "two primary keys"),
     ("CREATE TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED) WITH ('primary-key' = 'b')",
      OptionError, "given twice"),
     ("CREATE TABLE t (a INT) WITH ('buckets' = '2')", OptionError, "did you mean 'bucket'"),
     ("CREATE TABLE t (a INT) USING delta", UnsupportedFeatureError, "USING delta"),
     ("CREATE OR REPLACE TABLE t (a INT)", UnsupportedFeatureError, "OR REPLACE"),
     ("CREATE VIEW v AS SELECT 1", SqlError, "expected CREATE TABLE"),
     ("CREATE TABLE t (a INT); CREATE TABLE u (a INT)", SqlError, "one statement")],
)  # fmt: skip
def test_create_errors(sql, error, fragment):
    with pytest.raises(error, match=fragment):
        parse_create_table(sql)


# --------------------------------------------------------------------- golden: Java's schema-0


_TS = "append_with_multiple_ts_precision_and_timezone"
GOLDEN = {
    JAVA09 / "pk_dedup": (
        "CREATE TABLE t (id INT, name STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1')"
    ),
    JAVA09 / "pk_agg": (
        "CREATE TABLE t (id INT, name STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'fields.name.aggregate-function' = 'listagg', "
        "'fields.v.aggregate-function' = 'sum', 'merge-engine' = 'aggregation')"
    ),
    JAVA09 / "pk_avro": (
        "CREATE TABLE t (id INT, name STRING, v BIGINT) TBLPROPERTIES ('primary-key' = 'id', "
        "'bucket' = '1', 'file.format' = 'avro')"
    ),
    JAVA09 / "pk_changelog_input": (
        "CREATE TABLE t (id INT PRIMARY KEY NOT ENFORCED, name STRING, v BIGINT) "
        "WITH ('bucket' = '1', 'changelog-producer' = 'input')"
    ),
    JAVA09 / "pk_dv": (
        "CREATE TABLE t (id INT, name STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true')"
    ),
    JAVA09 / "pk_dv_rowkind_delete": (
        "CREATE TABLE t (id INT, name STRING, op STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'rowkind.field' = 'op', 'deletion-vectors.enabled' = 'true')"
    ),
    JAVA09 / "pk_first": (
        "CREATE TABLE t (id INT, name STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'changelog-producer' = 'lookup', 'merge-engine' = 'first-row')"
    ),
    JAVA09 / "pk_orc_2b": (
        "CREATE TABLE t (id INT, name STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2', 'file.format' = 'orc')"
    ),
    JAVA09 / "pk_part_dv": (
        "CREATE TABLE t (id INT, name STRING, dt STRING) USING paimon PARTITIONED BY (dt) "
        "TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '2', "
        "'deletion-vectors.enabled' = 'true')"
    ),
    JAVA09 / "pk_pu": (
        "CREATE TABLE t (id INT, name STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'merge-engine' = 'partial-update')"
    ),
    JAVA09 / "pk_seq": (
        "CREATE TABLE t (id INT, name STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'sequence.field' = 'v')"
    ),
    JAVA09 / "append_tags": "CREATE TABLE t (id INT, name STRING, v BIGINT)",
    CPP / "pk_table_nested_type.db/pk_table_nested_type": (
        "CREATE TABLE t (shopId INT, dt STRING, hr INT, col0 INT, "
        "col1 ROW<f0 STRING, f1 INT, f2 ARRAY<INT>>, col2 MAP<INT, INT>, "
        "PRIMARY KEY (shopId, dt, hr) NOT ENFORCED) PARTITIONED BY (dt, hr) WITH ('bucket' = '2', "
        "'bucket-key' = 'shopId', 'manifest.format' = 'orc', 'file.format' = 'parquet')"
    ),
    CPP / "append_complex_data.db/append_complex_data": (
        "CREATE TABLE t (f1 INT, f2 INT, f3 DATE, f4 TIMESTAMP(9), f5 DECIMAL(23, 5), f6 BYTES) "
        "PARTITIONED BY (f1) WITH ('bucket' = '2', 'bucket-key' = 'f2', "
        "'manifest.format' = 'avro', 'parquet.use-native' = 'false', 'file.format' = 'parquet')"
    ),
    CPP / f"{_TS}.db/{_TS}": (
        "CREATE TABLE t (ts_sec TIMESTAMP(0), ts_milli TIMESTAMP(3), ts_micro TIMESTAMP(6), "
        "ts_nano TIMESTAMP(9), ts_tz_sec TIMESTAMP_LTZ(0), "
        "ts_tz_milli TIMESTAMP(3) WITH LOCAL TIME ZONE, ts_tz_micro TIMESTAMP_LTZ(6), "
        "ts_tz_nano TIMESTAMP_LTZ(9)) WITH ('bucket' = '-1', 'manifest.format' = 'avro', "
        "'file.format' = 'parquet')"
    ),
    CPP / "append_table_with_alter_table.db/append_table_with_alter_table": (
        "CREATE TABLE t (key0 INT, key1 INT, a INT, b INT, c INT, d INT, k INT) "
        "PARTITIONED BY (key0, key1) WITH ('manifest.format' = 'avro', 'file.format' = 'parquet')"
    ),
    CPP / "pk_table_with_alter_table.db/pk_table_with_alter_table": (
        "CREATE TABLE t (key0 INT, key1 INT, key2 INT, a INT, b INT, c INT, d INT, k STRING, "
        "PRIMARY KEY (key0, key1, key2) NOT ENFORCED) PARTITIONED BY (key0, key1) "
        "WITH ('bucket' = '1', 'manifest.format' = 'avro', 'file.format' = 'parquet', "
        "'deletion-vectors.enabled' = 'true', 'commit.force-compact' = 'true')"
    ),
    CPP / "pk_table_with_mor.db/pk_table_with_mor": (
        "CREATE TABLE t (k0 INT, k1 INT, p0 INT, p1 INT, s0 STRING, s1 STRING, v0 DOUBLE, "
        "v1 BOOLEAN, PRIMARY KEY (k0, k1, p0, p1) NOT ENFORCED) PARTITIONED BY (p0, p1) "
        "WITH ('bucket' = '1', 'manifest.format' = 'avro', 'file.format' = 'parquet', "
        "'sequence.field' = 's0,s1')"
    ),
    CPP / "pk_table_partial_update.db/pk_table_partial_update": (
        "CREATE TABLE t (k0 INT, k1 INT, v0 DOUBLE, v1 BOOLEAN, v2 STRING, "
        "PRIMARY KEY (k0, k1) NOT ENFORCED) WITH ('bucket' = '1', 'manifest.format' = 'avro', "
        "'file.format' = 'parquet', 'merge-engine' = 'partial-update', 'ignore-delete' = 'true')"
    ),
    CPP / "pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row": (
        "CREATE TABLE t (f0 STRING, f1 INT, f2 INT, f3 DOUBLE, "
        "PRIMARY KEY (f0, f1, f2) NOT ENFORCED) PARTITIONED BY (f1) WITH ('bucket' = '2', "
        "'merge-engine' = 'first-row', 'ignore-delete' = 'true', 'bucket-key' = 'f2', "
        "'manifest.format' = 'avro', 'file.format' = 'parquet')"
    ),
    CPP / "pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality": (
        "CREATE TABLE t (f0 STRING, f1 INT, f2 INT, f3 DOUBLE, "
        "PRIMARY KEY (f0, f1, f2) NOT ENFORCED) PARTITIONED BY (f1) WITH ('bucket' = '2', "
        "'fields.f3.stats-mode' = 'none', 'bucket-key' = 'f2', 'manifest.format' = 'avro', "
        "'file.format' = 'parquet', 'deletion-vectors.enabled' = 'true', "
        "'commit.force-compact' = 'true', 'metadata.stats-dense-store' = 'true')"
    ),
    CPP / "pk_with_bitmap_dv.db/pk_with_bitmap_dv": (
        "CREATE TABLE t (`key` INT, f0 STRING, f1 INT, f2 INT, f3 DOUBLE, "
        "PRIMARY KEY (`key`) NOT ENFORCED) WITH ('bucket' = '1', "
        "'file-index.in-manifest-threshold' = '1B', 'file-index.bitmap.columns' = 'f0,f1,f2', "
        "'manifest.format' = 'avro', 'file-index.read.enabled' = 'true', "
        "'file.format' = 'parquet', 'deletion-vectors.enabled' = 'true', "
        "'commit.force-compact' = 'true')"
    ),
    CPP / "pk_dv_index_in_data_with_external.db/pk_dv_index_in_data_with_external": (
        "CREATE TABLE t (f0 STRING, f1 INT, f2 INT, f3 DOUBLE, "
        "PRIMARY KEY (f0, f1, f2) NOT ENFORCED) PARTITIONED BY (f1) WITH ('bucket' = '2', "
        "'data-file.external-paths' = 'FILE:///tmp/external', 'bucket-key' = 'f2', "
        "'manifest.format' = 'avro', 'file.format' = 'parquet', "
        "'data-file.external-paths.strategy' = 'round-robin', "
        "'index-file-in-data-file-dir' = 'true', 'deletion-vectors.enabled' = 'true', "
        "'commit.force-compact' = 'true')"
    ),
    CPP / "pk_09.db/pk_09": (
        "CREATE TABLE t (f0 STRING, f1 INT, f2 INT, f3 DOUBLE, "
        "PRIMARY KEY (f0, f1, f2) NOT ENFORCED) PARTITIONED BY (f1) WITH ('bucket' = '2', "
        "'bucket-key' = 'f2', 'manifest.format' = 'avro', 'file.format' = 'parquet', "
        "'deletion-vectors.enabled' = 'true', 'commit.force-compact' = 'true')"
    ),
}  # fmt: skip


@needs_fixtures
@pytest.mark.parametrize("table_dir", list(GOLDEN), ids=lambda p: p.name)
def test_ddl_reproduces_java_schema_0(table_dir):
    assert _ours(GOLDEN[table_dir]) == _java(_schema_file(table_dir))


# --------------------------------------------------------------------- ALTER


def test_alter_statements_parse_in_both_spellings():
    cases = {
        "ALTER TABLE t SET ('a' = '1')": SetOptions({"a": "1"}),
        "ALTER TABLE t SET TBLPROPERTIES ('a' = '1')": SetOptions({"a": "1"}),
        "ALTER TABLE t RESET ('a', 'b')": ResetOptions(("a", "b")),
        "ALTER TABLE t UNSET TBLPROPERTIES ('a')": ResetOptions(("a",), must_exist=True),
        "ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('a')": ResetOptions(("a",)),
        "ALTER TABLE t SET ('comment' = 'c')": UpdateComment("c"),
        "ALTER TABLE t SET COMMENT 'c'": UpdateComment("c"),
        "ALTER TABLE t RESET ('comment')": UpdateComment(None),
        "ALTER TABLE t DROP c": DropColumn("c"),
        "ALTER TABLE t DROP COLUMN c": DropColumn("c"),
        "ALTER TABLE t RENAME a TO b": RenameColumn("a", "b"),
        "ALTER TABLE t RENAME COLUMN a TO b": RenameColumn("a", "b"),
        "ALTER TABLE t ALTER COLUMN c COMMENT 'x'": UpdateColumnComment("c", "x"),
        "ALTER TABLE t RENAME TO db.u": RenameTable(("db", "u")),
    }
    for sql, change in cases.items():
        assert parse_alter_table(sql).changes == (change,), sql
    assert len(parse_alter_table("ALTER TABLE t DROP (c, d)").changes) == 2
    assert len(parse_alter_table("ALTER TABLE t DROP COLUMNS (c, d)").changes) == 2
    add = parse_alter_table("ALTER TABLE t ADD (c INT, d STRING FIRST)").changes
    assert [type(c) for c in add] == [AddColumn, AddColumn]
    assert isinstance(add[1], AddColumn)
    assert add[1].position is not None
    assert add[1].position.first
    modify = parse_alter_table("ALTER TABLE t MODIFY c BIGINT COMMENT 'x' AFTER a").changes
    assert [type(c) for c in modify] == [UpdateColumnType, UpdateColumnComment, MoveColumn]
    spark = parse_alter_table("ALTER TABLE t ALTER COLUMN c TYPE BIGINT").changes
    assert spark == (UpdateColumnType("c", parse_sql_type("BIGINT")),)


def test_alter_parse_errors():
    with pytest.raises(SqlError):
        parse_alter_table("ALTER TABLE t FROBNICATE")
    with pytest.raises(SqlError, match="expected ALTER TABLE"):
        parse_alter_table("CREATE TABLE t (a INT)")


def _evolve(table_dir: Path, statements: list[str]):
    schema = schema_from_json((table_dir / "schema" / "schema-0").read_text())
    for sql in statements:
        schema = apply_alter(schema, parse_alter_table(sql))
    return schema


def _same(ours, java: dict) -> None:
    assert [field_to_json(f) for f in ours.fields] == java["fields"]
    assert ours.highest_field_id == java["highestFieldId"]
    assert list(ours.primary_keys) == java["primaryKeys"]
    assert list(ours.partition_keys) == java["partitionKeys"]
    assert dict(ours.options) == java["options"]


@needs_fixtures
def test_append_table_alter_sequence_matches_java_schema_1():
    table = CPP / "append_table_with_alter_table.db/append_table_with_alter_table"
    ours = _evolve(table, ["""ALTER TABLE t DROP a""", "ALTER TABLE t DROP c",
        "ALTER TABLE t RENAME b TO c", "ALTER TABLE t RENAME d TO a",
        "ALTER TABLE t ALTER COLUMN k AFTER key1", "ALTER TABLE t ADD d INT COMMENT '' AFTER c",
        "ALTER TABLE t ADD COLUMN e INT"])  # fmt: skip
    _same(ours, _schema_file(table, 1))


def test_several_changes_of_one_kind_in_one_statement():
    schema = _alter("ALTER TABLE t DROP (f, s)", "ALTER TABLE t ADD (x INT, y INT AFTER id)")
    assert [f.name for f in schema.fields] == ["id", "y", "dt", "v", "d", "ts", "r", "x"]
    with pytest.raises(SqlError, match="cannot parse ALTER"):
        parse_alter_table("ALTER TABLE t DROP (a, c), RENAME b TO c")  # mixed kinds: not supported


@needs_fixtures
def test_pk_table_alter_sequence_matches_java_schema_1():
    table = CPP / "pk_table_with_alter_table.db/pk_table_with_alter_table"
    ours = _evolve(table, ["ALTER TABLE t DROP a", "ALTER TABLE t DROP c",
        "ALTER TABLE t RENAME b TO c", "ALTER TABLE t RENAME d TO a",
        "ALTER TABLE t RENAME COLUMN key2 TO key_2",
        "ALTER TABLE t ALTER COLUMN key0 AFTER a", "ALTER TABLE t ALTER COLUMN k AFTER key1",
        "ALTER TABLE t ADD d INT COMMENT '' AFTER c", "ALTER TABLE t ADD e INT"])  # fmt: skip
    _same(ours, _schema_file(table, 1))


@needs_fixtures
def test_pk_renames_follow_into_keys_and_sequence_field():
    table = CPP / "pk_table_with_mor.db/pk_table_with_mor"
    steps = [
        "ALTER TABLE t RENAME k1 TO tmp",
        "ALTER TABLE t RENAME k0 TO k1",
        "ALTER TABLE t RENAME tmp TO k0",
    ]
    for n in (1, 2, 3):
        _same(_evolve(table, steps[:n]), _schema_file(table, n))
    renamed = _evolve(table, [*steps, "ALTER TABLE t ADD v2 INT", "ALTER TABLE t RENAME s1 TO tmp"])
    assert renamed.options["sequence.field"] == "s0,tmp"
    assert renamed.highest_field_id == 8
    with pytest.raises(SchemaError, match="only widening"):
        _evolve(table, ["ALTER TABLE t MODIFY v0 INT"])  # Java allowed this explicit cast


@needs_fixtures
def test_java_09_add_column():
    table = JAVA09 / "append_tags"
    _same(_evolve(table, ["ALTER TABLE t ADD COLUMNS (extra STRING)"]), _schema_file(table, 1))


def _base():
    sql = ("CREATE TABLE t (id INT, dt STRING, v INT, f FLOAT, d DECIMAL(10, 2), s VARCHAR(10), "
           "ts TIMESTAMP(3), r ROW<a INT>, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) "
           "WITH ('bucket' = '2', 'sequence.field' = 'v')")  # fmt: skip
    return parse_create_table(sql).to_schema()


def _alter(*statements: str):
    schema = _base()
    for sql in statements:
        schema = apply_alter(schema, parse_alter_table(sql))
    return schema


@pytest.mark.parametrize(
    ("column", "new"),
    [("v", "BIGINT"), ("v", "DOUBLE"), ("v", "DECIMAL(12, 0)"), ("f", "DOUBLE"),
     ("d", "DECIMAL(12, 2)"), ("d", "DECIMAL(14, 4)"), ("s", "VARCHAR(20)"), ("s", "STRING"),
     ("ts", "TIMESTAMP(6)"), ("r", "ROW<`a` BIGINT>")],
)  # fmt: skip
def test_widening_type_changes_keep_ids(column, new):
    before = _base()
    after = _alter(f"ALTER TABLE t ALTER COLUMN {column} TYPE {new}")
    assert after.field(column).id == before.field(column).id
    assert type_sql(after.field(column).type) == new


@pytest.mark.parametrize(
    ("column", "new"),
    [("v", "SMALLINT"), ("v", "FLOAT"), ("f", "INT"), ("d", "DECIMAL(9, 2)"),
     ("d", "DECIMAL(10, 3)"), ("s", "VARCHAR(5)"), ("ts", "TIMESTAMP(0)"), ("v", "STRING"),
     ("r", "ARRAY<INT>"), ("r", "ROW<a SMALLINT>")],
)  # fmt: skip
def test_narrowing_type_changes_are_refused(column, new):
    with pytest.raises(SchemaError, match=f"cannot change (field 'a' of )?column '{column}'"):
        _alter(f"ALTER TABLE t ALTER COLUMN {column} TYPE {new}")


@pytest.mark.parametrize(
    ("sql", "fragment"),
    [("ALTER TABLE t DROP dt", "partition column 'dt'"),
     ("ALTER TABLE t DROP id", "primary-key column 'id'"),
     ("ALTER TABLE t RENAME dt TO day", "partition column 'dt'"),
     ("ALTER TABLE t ALTER COLUMN id TYPE BIGINT", "primary-key column 'id'"),
     ("ALTER TABLE t DROP v", "used by options ['sequence.field']"),
     ("ALTER TABLE t DROP nope", "column 'nope' does not exist"),
     ("ALTER TABLE t DROP vv", "did you mean 'v'"),
     ("ALTER TABLE t ADD v INT", "already exists"),
     ("ALTER TABLE t ADD w INT NOT NULL", "cannot be NOT NULL"),
     ("ALTER TABLE t MODIFY v INT NOT NULL", "NOT NULL"),
     ("ALTER TABLE t RENAME v TO f", "that column exists"),
     ("ALTER TABLE t ADD w INT AFTER nope", "'nope' does not exist"),
     ("ALTER TABLE t SET ('merge-engine' = 'first-row')", "fixed when the table is created"),
     ("ALTER TABLE t SET ('bucket' = '-1')", "only a fixed bucket count"),
     ("ALTER TABLE t RESET ('bucket')", "cannot be reset")],
)  # fmt: skip
def test_evolution_errors_name_the_column(sql, fragment):
    with pytest.raises(SchemaError, match=fragment.replace("[", "\\[").replace("]", "\\]")):
        _alter(sql)


def test_ids_are_never_reused_and_nested_columns_get_ids():
    schema = _alter(
        "ALTER TABLE t DROP f",
        "ALTER TABLE t ADD f FLOAT",
        "ALTER TABLE t ADD n ROW<x INT, y INT> FIRST",
    )
    assert schema.field("f").id == 9
    assert schema.fields[0].name == "n"
    assert [f.id for f in schema.fields[0].type.fields] == [11, 12]
    assert schema.fields[0].id == 10
    assert schema.highest_field_id == 12
    assert schema.id == 3


def test_options_are_validated_after_evolution():
    assert _alter("ALTER TABLE t SET ('bucket' = '8')").options["bucket"] == "8"
    with pytest.raises(OptionError, match="did you mean 'write-only'"):
        _alter("ALTER TABLE t SET ('write_only' = 'true')")
    assert (
        "write-only"
        not in _alter(
            "ALTER TABLE t SET ('write-only' = 'true')", "ALTER TABLE t RESET ('write-only')"
        ).options
    )
    renamed = _alter("ALTER TABLE t RENAME v TO w")
    assert renamed.options["sequence.field"] == "w"


def test_rename_table_is_left_to_the_catalog():
    assert _alter("ALTER TABLE t RENAME TO u").fields == _base().fields
