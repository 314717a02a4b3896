"""The Spark-written corpus: Paimon tables made only with Spark SQL, the way users write them.

Each `CorpusTable` is a list of Spark SQL statements (``{t}`` is the table, ``{id}`` its
``db.name`` for procedure arguments) and the features it exercises. `ensure_corpus` builds them
all once into ``<cache>/corpus/<hash>/warehouse``, where the hash covers these definitions and the
pinned versions, and writes ``corpus.json``: per table its features, live snapshot ids (with
commit kinds and schema ids), expired snapshot ids and tags. ``corpus.json`` is written last, so a
folder without it is an interrupted build and is rebuilt.

To add a table: append a `CorpusTable` to `TABLES`; the next run rebuilds the corpus and the
interop tests pick it up (see README.md).
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import shutil
import time
from typing import TYPE_CHECKING, Any

from tests.interop import _versions
from tests.interop.harness import cache_dir, spark_session, spark_sql

if TYPE_CHECKING:
    from pathlib import Path

DATABASE = "db"
CORPUS_FORMAT = 1  # bump when the builder or the manifest layout changes


@dataclasses.dataclass(frozen=True)
class CorpusTable:
    name: str
    features: tuple[str, ...]
    statements: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Corpus:
    warehouse: Path
    manifest: dict[str, Any]

    @property
    def tables(self) -> dict[str, dict[str, Any]]:
        return self.manifest["tables"]


def _t(name: str, features: str, *statements: str) -> CorpusTable:
    return CorpusTable(name, tuple(features.split()), tuple(statements))


# --- all types --------------------------------------------------------------------------------

_TYPES_COLUMNS = """(
  id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE,
  dec_small DECIMAL(9, 2), dec_18 DECIMAL(18, 4), dec_big DECIMAL(38, 10), s STRING, bin BINARY,
  day DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ,
  arr ARRAY<INT>, arr_s ARRAY<STRING>, m MAP<STRING, INT>, m_int MAP<INT, STRING>,
  st STRUCT<x: INT, y: STRING>,
  nested ARRAY<STRUCT<k: STRING, v: MAP<STRING, ARRAY<BIGINT>>>>,
  st_nested STRUCT<inner: STRUCT<a: DOUBLE, b: ARRAY<DATE>>, tags: MAP<STRING, STRING>>
)"""

_TYPES_ROWS = """VALUES
 (1, true, CAST(127 AS TINYINT), CAST(32767 AS SMALLINT), 2147483647, 9223372036854775807,
  CAST(1.1 AS FLOAT), 3.141592653589793D, CAST('1234567.89' AS DECIMAL(9, 2)),
  CAST('99999999999999.9999' AS DECIMAL(18, 4)),
  CAST('1234567890123456789012345678.0123456789' AS DECIMAL(38, 10)),
  'héllo wörld ☃', X'00FF10', DATE'2024-02-29', TIMESTAMP'2024-02-29 12:34:56.123456',
  TIMESTAMP_NTZ'2024-02-29 12:34:56.123456',
  array(1, NULL, 3), array('a', '', NULL), map('a', 1, 'b', NULL), map(1, 'one', 2, 'two'),
  named_struct('x', 1, 'y', 'why'),
  array(named_struct('k', 'k1', 'v', map('m', array(CAST(1 AS BIGINT), NULL)))),
  named_struct('inner', named_struct('a', 0.5D, 'b', array(DATE'1970-01-01')),
               'tags', map('t', 'v'))),
 (2, false, CAST(-128 AS TINYINT), CAST(-32768 AS SMALLINT), -2147483648,
  CAST('-9223372036854775808' AS BIGINT), CAST('-Infinity' AS FLOAT), CAST('NaN' AS DOUBLE),
  CAST('-0.01' AS DECIMAL(9, 2)), CAST('-12345678901234.5678' AS DECIMAL(18, 4)),
  CAST('-0.0000000001' AS DECIMAL(38, 10)), '', X'', DATE'1969-12-31',
  TIMESTAMP'1969-12-31 23:59:59.999999', TIMESTAMP_NTZ'1900-01-01 00:00:00',
  CAST(array() AS ARRAY<INT>), CAST(array() AS ARRAY<STRING>), CAST(map() AS MAP<STRING, INT>),
  CAST(map() AS MAP<INT, STRING>), named_struct('x', CAST(NULL AS INT), 'y', CAST(NULL AS STRING)),
  CAST(array() AS ARRAY<STRUCT<k: STRING, v: MAP<STRING, ARRAY<BIGINT>>>>),
  CAST(NULL AS STRUCT<inner: STRUCT<a: DOUBLE, b: ARRAY<DATE>>, tags: MAP<STRING, STRING>>)),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL)"""

_TYPES_UPSERT = """VALUES
 (1, false, CAST(1 AS TINYINT), CAST(2 AS SMALLINT), 3, 4, CAST(0.25 AS FLOAT), -1.5D,
  CAST('0.00' AS DECIMAL(9, 2)), CAST('1.0001' AS DECIMAL(18, 4)),
  CAST('-99999999999999999999999999.9999999999' AS DECIMAL(38, 10)), 'updated', X'DEADBEEF',
  DATE'2000-01-01', TIMESTAMP'2000-01-01 00:00:00', TIMESTAMP_NTZ'2000-01-01 00:00:00.000001',
  array(7), array('z'), map('k', 7), map(-1, 'neg'), named_struct('x', -1, 'y', ''),
  array(named_struct('k', CAST(NULL AS STRING), 'v', CAST(NULL AS MAP<STRING, ARRAY<BIGINT>>))),
  named_struct('inner', CAST(NULL AS STRUCT<a: DOUBLE, b: ARRAY<DATE>>), 'tags', map('a', NULL))),
 (4, true, CAST(0 AS TINYINT), CAST(0 AS SMALLINT), 0, 0, CAST(0.0 AS FLOAT), 0.0D,
  CAST('0.01' AS DECIMAL(9, 2)), CAST('0.0001' AS DECIMAL(18, 4)),
  CAST('0.0000000001' AS DECIMAL(38, 10)), 'four', X'04', DATE'9999-12-31',
  TIMESTAMP'2038-01-19 03:14:08', TIMESTAMP_NTZ'2262-04-11 23:47:16.854775',
  array(NULL), array(NULL), map('n', NULL), map(0, NULL), named_struct('x', 4, 'y', 'four'),
  array(named_struct('k', 'a', 'v', map('x', CAST(array() AS ARRAY<BIGINT>)))),
  named_struct('inner',
               named_struct('a', CAST('Infinity' AS DOUBLE), 'b', array(DATE'2024-01-01', NULL)),
               'tags', CAST(map() AS MAP<STRING, STRING>)))"""


# Paimon 0.9's Parquet code is lossy for structs, so the types tables keep such values out of
# Parquet and `parquet_null_structs` holds them alone: a NULL struct that holds a struct makes its
# reader fail (ArrayIndexOutOfBoundsException in HeapDoubleVector); a NULL struct inside a struct is
# written as a struct of NULLs, and so is a top-level NULL struct next to a non-null one in the same
# file; and a struct whose fields are all NULL is read back as NULL.
# ORC and Avro round-trip all of these, so their types tables keep them.
_PARQUET_SAFE = {
    "named_struct('x', CAST(NULL AS INT), 'y', CAST(NULL AS STRING))": (
        "named_struct('x', CAST(NULL AS INT), 'y', 'y-only')"
    ),
    "array(named_struct('k', CAST(NULL AS STRING), "
    "'v', CAST(NULL AS MAP<STRING, ARRAY<BIGINT>>)))": (
        "array(named_struct('k', CAST(NULL AS STRING), 'v', map('e', CAST(NULL AS ARRAY<BIGINT>))))"
    ),
    "named_struct('inner', CAST(NULL AS STRUCT<a: DOUBLE, b: ARRAY<DATE>>), "
    "'tags', map('a', NULL))": (
        "named_struct('inner', "
        "named_struct('a', CAST(NULL AS DOUBLE), 'b', array(DATE'2001-01-01')), "
        "'tags', map('a', NULL))"
    ),
    "CAST(NULL AS STRUCT<inner: STRUCT<a: DOUBLE, b: ARRAY<DATE>>, tags: MAP<STRING, STRING>>)": (
        "named_struct('inner', named_struct('a', -0.5D, 'b', CAST(array() AS ARRAY<DATE>)), "
        "'tags', map('p', 'q'))"
    ),
}
_ALL_NULL_TAIL = "NULL, NULL, NULL, NULL, NULL, NULL, NULL)"


def _types_rows(fmt: str, rows: str) -> str:
    if fmt != "parquet":
        return rows
    for value, safe in _PARQUET_SAFE.items():
        rows = rows.replace(value, safe)
    nested = _PARQUET_SAFE[
        next(k for k in _PARQUET_SAFE if k.startswith("CAST(NULL AS STRUCT<inner"))
    ]
    tail = (
        "NULL, NULL, NULL, NULL, named_struct('x', CAST(NULL AS INT), 'y', 'y3'), NULL, "
        + nested
        + ")"
    )
    return rows.replace(_ALL_NULL_TAIL, tail)


def _types_table(fmt: str) -> CorpusTable:
    return _t(
        f"types_{fmt}",
        f"primary-key bucket-fixed format-{fmt} all-primitive-types nested-types upsert",
        f"CREATE TABLE {{t}} {_TYPES_COLUMNS} USING paimon TBLPROPERTIES "
        f"('primary-key' = 'id', 'bucket' = '1', 'file.format' = '{fmt}')",
        f"INSERT INTO {{t}} {_types_rows(fmt, _TYPES_ROWS)}",
        f"INSERT INTO {{t}} {_types_rows(fmt, _TYPES_UPSERT)}",
    )


def _changelog_table(producer: str) -> CorpusTable:
    extra = ", 'full-compaction.delta-commits' = '1'" if producer == "full-compaction" else ""
    return _t(
        f"pk_changelog_{producer.replace('-', '_')}",
        f"primary-key bucket-fixed changelog-{producer} upsert delete compact",
        "CREATE TABLE {t} (id INT, v STRING, n BIGINT) USING paimon TBLPROPERTIES "
        f"('primary-key' = 'id', 'bucket' = '2', 'changelog-producer' = '{producer}'{extra})",
        "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
        "INSERT INTO {t} VALUES (2, 'b2', 20), (4, 'd', 4)",
        "DELETE FROM {t} WHERE id = 3",
        "INSERT INTO {t} VALUES (1, 'a3', 100)",
        "CALL sys.compact(table => '{id}')",
    )


TABLES: tuple[CorpusTable, ...] = (
    # --- append tables ------------------------------------------------------------------------
    _t(
        "append_basic",
        "append bucket-unaware unpartitioned format-parquet delete update insert-overwrite tag",
        "CREATE TABLE {t} (id INT, name STRING, score DOUBLE) USING paimon",
        "INSERT INTO {t} VALUES (1, 'a', 1.0), (2, 'b', 2.0), (3, 'c', NULL)",
        "INSERT INTO {t} VALUES (1, 'a', 1.0), (4, 'd', 4.0)",
        "CALL sys.create_tag(table => '{id}', tag => 'two_inserts', snapshot => 2)",
        "DELETE FROM {t} WHERE id = 2",
        "UPDATE {t} SET score = score * 10 WHERE id = 4",
        "INSERT OVERWRITE {t} VALUES (7, 'g', 7.0), (8, 'h', 8.0)",
        "INSERT INTO {t} VALUES (9, 'i', 9.0)",
    ),
    _t(
        "append_partitioned",
        "append bucket-unaware partitioned null-partition empty-string-partition date-partition "
        "escaped-partition insert-overwrite-static insert-overwrite-dynamic delete",
        "CREATE TABLE {t} (id INT, v STRING, dt STRING, day DATE, hr INT) USING paimon "
        "PARTITIONED BY (dt, day, hr)",
        "INSERT INTO {t} VALUES (1, 'a', '2024-01-01', DATE'2024-01-01', 1), "
        "(2, 'b', '2024-01-01', DATE'2024-01-01', NULL), (3, 'c', NULL, NULL, NULL), "
        "(4, 'd', '', DATE'1970-01-01', 2), (5, 'e', 'x/y=z:%', DATE'2000-02-29', 3)",
        "INSERT INTO {t} VALUES (6, 'f', '2024-01-01', DATE'2024-01-01', 1), "
        "(7, 'g', NULL, NULL, 4)",
        "INSERT OVERWRITE {t} PARTITION (dt = '2024-01-01', day = DATE'2024-01-01', hr = 1) "
        "VALUES (10, 'over')",
        "SET spark.sql.sources.partitionOverwriteMode = dynamic",
        "INSERT OVERWRITE {t} VALUES (11, 'dyn', 'x/y=z:%', DATE'2000-02-29', 3)",
        "SET spark.sql.sources.partitionOverwriteMode = static",
        "DELETE FROM {t} WHERE hr = 4",
    ),
    _t(
        "append_bucketed",
        "append bucket-fixed bucket-key partitioned delete",
        "CREATE TABLE {t} (k INT, v STRING, p STRING) USING paimon PARTITIONED BY (p) "
        "TBLPROPERTIES ('bucket' = '3', 'bucket-key' = 'k')",
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y'), (4, 'd', 'y'), "
        "(5, 'e', 'x')",
        "INSERT INTO {t} VALUES (1, 'a2', 'x'), (6, 'f', 'y')",
        "DELETE FROM {t} WHERE k = 2",
    ),
    _t(
        "append_dv",
        "append bucket-unaware deletion-vectors delete update compact",
        "CREATE TABLE {t} (id INT, v STRING) USING paimon "
        "TBLPROPERTIES ('deletion-vectors.enabled' = 'true')",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')",
        "INSERT INTO {t} VALUES (5, 'e'), (6, 'f')",
        "DELETE FROM {t} WHERE id IN (2, 5)",
        "UPDATE {t} SET v = 'c2' WHERE id = 3",
        "CALL sys.compact(table => '{id}')",
        "DELETE FROM {t} WHERE id = 1",
    ),
    _t(
        "append_orc",
        "append bucket-unaware partitioned format-orc delete",
        "CREATE TABLE {t} (id BIGINT, v STRING, amount DECIMAL(20, 3), ts TIMESTAMP, p INT) "
        "USING paimon PARTITIONED BY (p) TBLPROPERTIES ('file.format' = 'orc')",
        "INSERT INTO {t} VALUES (1, 'a', 1.5, TIMESTAMP'2024-01-01 00:00:00', 1), "
        "(2, NULL, NULL, NULL, 2), (3, 'c', -3.25, TIMESTAMP'1999-12-31 23:59:59.5', NULL)",
        "INSERT INTO {t} VALUES (4, 'd', 99999999999999999.999, TIMESTAMP'2024-06-01 10:00:00', 1)",
        "DELETE FROM {t} WHERE id = 2",
    ),
    _t(
        "append_avro",
        "append bucket-unaware partitioned format-avro delete",
        "CREATE TABLE {t} (id BIGINT, v STRING, amount DECIMAL(20, 3), ts TIMESTAMP, p INT) "
        "USING paimon PARTITIONED BY (p) TBLPROPERTIES ('file.format' = 'avro')",
        "INSERT INTO {t} VALUES (1, 'a', 1.5, TIMESTAMP'2024-01-01 00:00:00', 1), "
        "(2, NULL, NULL, NULL, 2), (3, 'c', -3.25, TIMESTAMP'1999-12-31 23:59:59.5', NULL)",
        "INSERT INTO {t} VALUES (4, 'd', 99999999999999999.999, TIMESTAMP'2024-06-01 10:00:00', 1)",
        "DELETE FROM {t} WHERE id = 2",
    ),
    _t(
        "append_types",
        "append bucket-unaware format-parquet all-primitive-types nested-types",
        f"CREATE TABLE {{t}} {_TYPES_COLUMNS} USING paimon",
        f"INSERT INTO {{t}} {_types_rows('parquet', _TYPES_ROWS)}",
        f"INSERT INTO {{t}} {_types_rows('parquet', _TYPES_UPSERT)}",
    ),
    _t(
        "parquet_null_structs",
        "append bucket-unaware format-parquet nested-types null-struct",
        "CREATE TABLE {t} (id INT, st STRUCT<x: INT, y: STRING>, "
        "arr ARRAY<STRUCT<k: STRING, v: INT>>, "
        "outer STRUCT<inner: STRUCT<a: DOUBLE>, n: INT>) USING paimon",
        "INSERT INTO {t} VALUES "
        "(1, named_struct('x', CAST(NULL AS INT), 'y', CAST(NULL AS STRING)), "
        "array(named_struct('k', CAST(NULL AS STRING), 'v', CAST(NULL AS INT))), "
        "named_struct('inner', CAST(NULL AS STRUCT<a: DOUBLE>), 'n', 1)), "
        "(2, NULL, NULL, named_struct('inner', named_struct('a', 1.0D), 'n', CAST(NULL AS INT))), "
        "(3, named_struct('x', 3, 'y', CAST(NULL AS STRING)), "
        "array(named_struct('k', 'k', 'v', 3)), "
        "named_struct('inner', named_struct('a', 3.0D), 'n', 3))",
    ),
    # --- primary-key tables: buckets ----------------------------------------------------------
    _t(
        "pk_fixed",
        "primary-key bucket-fixed partitioned merge-deduplicate upsert delete update merge-into "
        "insert-overwrite-static tag",
        "CREATE TABLE {t} (id INT, v STRING, n BIGINT, dt STRING) USING paimon "
        "PARTITIONED BY (dt) TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '2')",
        "INSERT INTO {t} VALUES (1, 'a', 1, 'x'), (2, 'b', 2, 'x'), (3, 'c', 3, 'y'), "
        "(4, 'd', 4, 'y'), (1, 'a-y', 5, 'y')",
        "INSERT INTO {t} VALUES (1, 'a2', 10, 'x'), (5, 'e', 5, 'x'), (5, 'e-dup', 6, 'x')",
        "CALL sys.create_tag(table => '{id}', tag => 'before_dml', snapshot => 2)",
        "DELETE FROM {t} WHERE id = 3",
        "UPDATE {t} SET v = 'upd', n = n + 100 WHERE id = 4",
        "MERGE INTO {t} AS tgt USING (SELECT * FROM VALUES (2, 'x', 'm2', 0, 'u'), "
        "(4, 'y', 'm4', 0, 'd'), (6, 'x', 'm6', 60, 'i') AS src(id, dt, v, n, op)) AS src "
        "ON tgt.id = src.id AND tgt.dt = src.dt "
        "WHEN MATCHED AND src.op = 'd' THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET v = src.v "
        "WHEN NOT MATCHED THEN INSERT (id, v, n, dt) VALUES (src.id, src.v, src.n, src.dt)",
        "CALL sys.create_tag(table => '{id}', tag => 'after_merge')",
        "INSERT OVERWRITE {t} PARTITION (dt = 'y') VALUES (9, 'over', 9)",
    ),
    _t(
        "pk_fixed_unpartitioned",
        "primary-key bucket-fixed unpartitioned merge-deduplicate upsert delete compact",
        "CREATE TABLE {t} (id BIGINT, v STRING) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '4')",
        "INSERT INTO {t} SELECT id, concat('v', id) FROM range(0, 40)",
        "INSERT INTO {t} SELECT id, concat('w', id) FROM range(30, 50)",
        "DELETE FROM {t} WHERE id % 7 = 0",
        "CALL sys.compact(table => '{id}')",
        "INSERT INTO {t} VALUES (0, 'back')",
    ),
    _t(
        "pk_bucket_key",
        "primary-key bucket-fixed bucket-key upsert",
        "CREATE TABLE {t} (id INT, sub INT, v STRING) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'id,sub', 'bucket' = '3', 'bucket-key' = 'id')",
        "INSERT INTO {t} VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 1, 'c'), (3, 1, 'd')",
        "INSERT INTO {t} VALUES (1, 2, 'b2'), (4, 4, 'e')",
    ),
    _t(
        "pk_dynamic_bucket",
        "primary-key bucket-dynamic partitioned upsert delete",
        "CREATE TABLE {t} (id INT, v STRING, dt STRING) USING paimon PARTITIONED BY (dt) "
        "TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '-1', "
        "'dynamic-bucket.target-row-num' = '3')",
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'x'), (4, 'd', 'x'), "
        "(5, 'e', 'x'), (1, 'a', 'y'), (2, 'b', 'y')",
        "INSERT INTO {t} VALUES (1, 'a2', 'x'), (6, 'f', 'x'), (7, 'g', 'x'), (2, 'b2', 'y')",
        "DELETE FROM {t} WHERE id = 3",
    ),
    _t(
        "pk_cross_partition",
        "primary-key bucket-dynamic cross-partition partitioned upsert delete",
        "CREATE TABLE {t} (id INT, v STRING, dt STRING) USING paimon PARTITIONED BY (dt) "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '-1')",
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')",
        "INSERT INTO {t} VALUES (1, 'moved', 'y'), (4, 'd', 'x')",
        "DELETE FROM {t} WHERE id = 2",
        "INSERT INTO {t} VALUES (3, 'c2', 'y')",
    ),
    # --- merge engines --------------------------------------------------------------------------
    _t(
        "pk_first_row",
        "primary-key bucket-fixed merge-first-row",
        "CREATE TABLE {t} (id INT, v STRING, n INT) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'merge-engine' = 'first-row')",
        "INSERT INTO {t} VALUES (1, 'first', 1), (2, 'b', 2), (1, 'second-in-batch', 3)",
        "INSERT INTO {t} VALUES (1, 'later', 4), (3, 'c', 5)",
        "CALL sys.compact(table => '{id}')",
        "INSERT INTO {t} VALUES (2, 'later', 6), (4, 'd', 7)",
    ),
    _t(
        "pk_aggregation",
        "primary-key bucket-fixed merge-aggregation agg-sum agg-product agg-max agg-min "
        "agg-first_value agg-last_value agg-first_non_null_value agg-last_non_null_value "
        "agg-listagg agg-bool_and agg-bool_or agg-default compact",
        "CREATE TABLE {t} (id INT, s_sum BIGINT, s_dec DECIMAL(12, 2), s_prod DOUBLE, "
        "s_max INT, s_min STRING, s_first STRING, s_last STRING, s_fnn STRING, s_lnn STRING, "
        "s_listagg STRING, s_and BOOLEAN, s_or BOOLEAN, s_default STRING) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'aggregation', "
        "'fields.s_sum.aggregate-function' = 'sum', 'fields.s_dec.aggregate-function' = 'sum', "
        "'fields.s_prod.aggregate-function' = 'product', "
        "'fields.s_max.aggregate-function' = 'max', "
        "'fields.s_min.aggregate-function' = 'min', "
        "'fields.s_first.aggregate-function' = 'first_value', "
        "'fields.s_last.aggregate-function' = 'last_value', "
        "'fields.s_fnn.aggregate-function' = 'first_non_null_value', "
        "'fields.s_lnn.aggregate-function' = 'last_non_null_value', "
        "'fields.s_listagg.aggregate-function' = 'listagg', "
        "'fields.s_and.aggregate-function' = 'bool_and', "
        "'fields.s_or.aggregate-function' = 'bool_or')",
        "INSERT INTO {t} VALUES "
        "(1, 10, 1.25, 2.0, 5, 'm', NULL, 'l1', NULL, 'n1', 'a', true, false, 'd1'), "
        "(2, 1, 0.01, 3.0, -1, 'z', 'f2', 'l2', 'f2', NULL, 'x', false, false, NULL), "
        "(1, 5, 2.50, 0.5, 7, 'b', 'f1b', NULL, 'f1', NULL, 'b', true, true, NULL)",
        "INSERT INTO {t} VALUES "
        "(1, NULL, NULL, NULL, NULL, NULL, 'late', 'l3', 'f9', 'n3', NULL, NULL, NULL, 'd3'), "
        "(3, 7, 7.00, 7.0, 7, 'c', 'f3', 'l3', NULL, NULL, 'c', NULL, NULL, NULL)",
        "INSERT INTO {t} VALUES "
        "(2, 100, 100.00, 10.0, 50, 'a', 'no', 'l2b', 'no', 'n2', 'y', true, true, 'd2')",
        "CALL sys.compact(table => '{id}')",
        "INSERT INTO {t} VALUES "
        "(3, 1, 1.00, 2.0, 8, 'a', 'x', NULL, 'x', 'y', 'd', false, true, 'd4')",
    ),
    _t(
        "pk_aggregation_ignore_retract",
        "primary-key bucket-fixed merge-aggregation agg-sum agg-max ignore-retract delete compact",
        "CREATE TABLE {t} (id INT, total BIGINT, top INT, note STRING) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'aggregation', "
        "'fields.total.aggregate-function' = 'sum', 'fields.top.aggregate-function' = 'max', "
        "'fields.top.ignore-retract' = 'true', 'fields.note.ignore-retract' = 'true')",
        "INSERT INTO {t} VALUES (1, 10, 1, 'a'), (2, 20, 2, 'b')",
        "INSERT INTO {t} VALUES (1, 5, 9, NULL), (3, 1, 3, 'c')",
        # Spark's DELETE on an aggregation table needs a compacted table ("touched files")
        "CALL sys.compact(table => '{id}')",
        "DELETE FROM {t} WHERE id = 2",
        "DELETE FROM {t} WHERE id = 3",
        "INSERT INTO {t} VALUES (2, 7, 1, 'again'), (1, 1, 1, 'more')",
    ),
    _t(
        "pk_partial_update",
        "primary-key bucket-fixed merge-partial-update upsert compact",
        "CREATE TABLE {t} (id INT, a STRING, b INT, c DOUBLE) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'merge-engine' = 'partial-update')",
        "INSERT INTO {t} VALUES (1, 'x', NULL, NULL), (2, NULL, 2, NULL), (3, 'c', 3, 3.0)",
        "INSERT INTO {t} VALUES (1, NULL, 5, NULL), (2, 'y', NULL, NULL)",
        "INSERT INTO {t} VALUES (1, NULL, NULL, 2.5), (3, 'c2', NULL, NULL), (1, 'x2', NULL, NULL)",
        "CALL sys.compact(table => '{id}')",
        "INSERT INTO {t} VALUES (4, 'd', NULL, 4.0), (2, NULL, NULL, 0.5)",
    ),
    _t(
        "pk_partial_update_sequence_groups",
        "primary-key bucket-fixed merge-partial-update sequence-group agg-max agg-sum",
        "CREATE TABLE {t} (k INT, a STRING, b INT, g1 INT, c STRING, d INT, g2 INT) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', 'merge-engine' = 'partial-update', "
        "'fields.g1.sequence-group' = 'a,b', 'fields.b.aggregate-function' = 'max', "
        "'fields.g2.sequence-group' = 'c,d', 'fields.d.aggregate-function' = 'sum')",
        "INSERT INTO {t} VALUES (1, 'a1', 1, 1, 'c1', 1, 1), (2, 'a', 5, 1, NULL, NULL, NULL)",
        "INSERT INTO {t} VALUES (1, 'a0-old', 9, 0, 'c2', 2, 2), (2, NULL, NULL, NULL, 'c', 3, 1)",
        "INSERT INTO {t} VALUES (1, 'a3', 2, 3, 'c-old', 10, 1), (3, 'n', 1, 1, 'n', 1, 1)",
    ),
    _t(
        "pk_sequence_field",
        "primary-key bucket-fixed merge-deduplicate sequence-field",
        "CREATE TABLE {t} (id INT, v STRING, seq BIGINT) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'sequence.field' = 'seq')",
        "INSERT INTO {t} VALUES (1, 'new', 10), (2, 'b', 5), (1, 'older-same-batch', 3)",
        "INSERT INTO {t} VALUES (1, 'old', 5), (2, 'b2', 6), (3, 'c', 1)",
        "INSERT INTO {t} VALUES (3, 'c-equal-seq', 1)",
    ),
    # --- deletion vectors -----------------------------------------------------------------------
    _t(
        "pk_deletion_vectors",
        "primary-key bucket-fixed deletion-vectors upsert delete update compact level0-invisible",
        "CREATE TABLE {t} (id INT, v STRING, dt STRING) USING paimon PARTITIONED BY (dt) "
        "TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '2', "
        "'deletion-vectors.enabled' = 'true')",
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y'), (4, 'd', 'y')",
        "INSERT INTO {t} VALUES (1, 'a2', 'x'), (5, 'e', 'y')",
        "DELETE FROM {t} WHERE id = 3",
        "UPDATE {t} SET v = 'upd' WHERE id = 4",
        "CALL sys.compact(table => '{id}')",
        "INSERT INTO {t} VALUES (2, 'b3', 'x')",
    ),
    _t(
        "pk_deletion_vectors_orc",
        "primary-key bucket-fixed deletion-vectors format-orc upsert delete compact",
        "CREATE TABLE {t} (id INT, v STRING) USING paimon TBLPROPERTIES ('primary-key' = 'id', "
        "'bucket' = '1', 'deletion-vectors.enabled' = 'true', 'file.format' = 'orc')",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO {t} VALUES (2, 'b2')",
        "DELETE FROM {t} WHERE id = 1",
        "CALL sys.compact(table => '{id}')",
    ),
    # --- changelog producers --------------------------------------------------------------------
    _changelog_table("none"),
    _changelog_table("input"),
    _changelog_table("lookup"),
    _changelog_table("full-compaction"),
    # --- file formats ---------------------------------------------------------------------------
    _types_table("parquet"),
    _types_table("orc"),
    _types_table("avro"),
    # --- schema evolution -----------------------------------------------------------------------
    _t(
        "schema_evolution_pk",
        "primary-key bucket-fixed schema-evolution add-column drop-column rename-column "
        "type-widening upsert compact",
        "CREATE TABLE {t} (id INT, a INT, b STRING, c FLOAT, d STRING) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')",
        "INSERT INTO {t} VALUES (1, 1, 'b1', 1.5, 'd1'), (2, 2, 'b2', 2.5, 'd2')",
        "ALTER TABLE {t} ADD COLUMNS (e STRING)",
        "INSERT INTO {t} VALUES (3, 3, 'b3', 3.5, 'd3', 'e3'), (1, 10, 'b1x', 1.25, 'd1x', 'e1')",
        "ALTER TABLE {t} DROP COLUMN d",
        "INSERT INTO {t} VALUES (4, 4, 'b4', 4.5, 'e4')",
        "ALTER TABLE {t} RENAME COLUMN b TO b_renamed",
        "ALTER TABLE {t} ALTER COLUMN a TYPE BIGINT",
        "ALTER TABLE {t} ALTER COLUMN c TYPE DOUBLE",
        "INSERT INTO {t} VALUES (2, 9999999999, 'b2x', 0.1, 'e2')",
        "CALL sys.compact(table => '{id}')",
        "INSERT INTO {t} VALUES (5, 5, 'b5', 5.5, NULL)",
    ),
    _t(
        "schema_evolution_append",
        "append bucket-unaware partitioned schema-evolution add-column drop-column rename-column "
        "type-widening",
        "CREATE TABLE {t} (id INT, a SMALLINT, b STRING, p STRING) USING paimon PARTITIONED BY (p)",
        "INSERT INTO {t} VALUES (1, 1, 'b1', 'x'), (2, 2, 'b2', 'y')",
        "ALTER TABLE {t} ADD COLUMNS (n DOUBLE, tags ARRAY<STRING>)",
        "INSERT INTO {t} VALUES (3, 3, 'b3', 'x', 3.0, array('t'))",
        "ALTER TABLE {t} RENAME COLUMN b TO b2",
        "ALTER TABLE {t} DROP COLUMN n",
        "ALTER TABLE {t} ALTER COLUMN a TYPE INT",
        "INSERT INTO {t} VALUES (4, 40000, 'b4', 'y', array())",
    ),
    # --- history: snapshots, tags, rollback, expiration -----------------------------------------
    _t(
        "history_pk",
        "primary-key bucket-fixed snapshots tag rollback-to-snapshot expire-snapshots",
        "CREATE TABLE {t} (id INT, v STRING) USING paimon "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')",
        "INSERT INTO {t} VALUES (1, 's1')",
        "INSERT INTO {t} VALUES (2, 's2'), (1, 's2')",
        "CALL sys.create_tag(table => '{id}', tag => 'tag_s2', snapshot => 2)",
        "INSERT INTO {t} VALUES (3, 's3')",
        "INSERT INTO {t} VALUES (4, 's4'), (1, 's4')",
        "INSERT INTO {t} VALUES (5, 'rolled-back')",
        "CALL sys.rollback(table => '{id}', version => '4')",
        "INSERT INTO {t} VALUES (6, 's5'), (2, 's5')",
        "INSERT INTO {t} VALUES (7, 's6')",
        "CALL sys.create_tag(table => '{id}', tag => 'tag_s6', snapshot => 6)",
        "CALL sys.expire_snapshots(table => '{id}', retain_max => 2, retain_min => 1)",
    ),
    _t(
        "history_append",
        "append bucket-unaware snapshots tag rollback-to-tag expire-snapshots",
        "CREATE TABLE {t} (id INT, v STRING) USING paimon",
        "INSERT INTO {t} VALUES (1, 's1')",
        "INSERT INTO {t} VALUES (2, 's2')",
        "CALL sys.create_tag(table => '{id}', tag => 'keep', snapshot => 2)",
        "INSERT INTO {t} VALUES (3, 's3')",
        "CALL sys.rollback(table => '{id}', version => 'keep')",
        "INSERT INTO {t} VALUES (4, 's3b')",
        "INSERT INTO {t} VALUES (5, 's4b')",
        "CALL sys.expire_snapshots(table => '{id}', retain_max => 1, retain_min => 1)",
    ),
    _t(
        "pk_orc",
        "primary-key bucket-fixed partitioned format-orc upsert delete",
        "CREATE TABLE {t} (id INT, v STRING, n DECIMAL(20, 2), p STRING) USING paimon "
        "PARTITIONED BY (p) TBLPROPERTIES ('primary-key' = 'p,id', 'bucket' = '2', "
        "'file.format' = 'orc')",
        "INSERT INTO {t} VALUES (1, 'a', 1.00, 'x'), (2, 'b', 2.00, 'x'), (1, 'a', 3.00, '')",
        "INSERT INTO {t} VALUES (1, 'a2', 10.50, 'x'), (3, 'c', NULL, 'y')",
        "DELETE FROM {t} WHERE id = 2",
    ),
    _t(
        "pk_avro",
        "primary-key bucket-fixed partitioned format-avro upsert delete",
        "CREATE TABLE {t} (id INT, v STRING, n DECIMAL(20, 2), p STRING) USING paimon "
        "PARTITIONED BY (p) TBLPROPERTIES ('primary-key' = 'p,id', 'bucket' = '2', "
        "'file.format' = 'avro')",
        "INSERT INTO {t} VALUES (1, 'a', 1.00, 'x'), (2, 'b', 2.00, 'x'), (1, 'a', 3.00, '')",
        "INSERT INTO {t} VALUES (1, 'a2', 10.50, 'x'), (3, 'c', NULL, 'y')",
        "DELETE FROM {t} WHERE id = 2",
    ),
)


# --- building ---------------------------------------------------------------------------------


def corpus_key() -> str:
    """A hash of the table definitions, the builder format and the pinned versions."""
    import pyspark

    payload = {
        "format": CORPUS_FORMAT,
        "paimon": _versions.PAIMON_SPARK_ARTIFACT,
        "pyspark": pyspark.__version__,
        "database": DATABASE,
        "tables": [dataclasses.asdict(t) for t in TABLES],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _statement(table: CorpusTable, template: str) -> str:
    ident = f"{DATABASE}.{table.name}"
    return template.replace("{t}", ident).replace("{id}", ident)


def _history(spark: Any, table: CorpusTable) -> dict[str, Any]:
    """Live snapshots, expired ids and tags, from Paimon's own system tables (Spark SQL)."""
    system = f"{DATABASE}.`{table.name}$%s`"
    query = "SELECT snapshot_id, schema_id, commit_kind FROM %s ORDER BY snapshot_id"
    snapshots = spark_sql(spark, query % (system % "snapshots"))
    tags = spark_sql(spark, "SELECT tag_name, snapshot_id FROM %s" % (system % "tags"))  # noqa: S608
    ids = [int(r["snapshot_id"]) for r in snapshots]
    return {
        "snapshots": [
            {"id": int(r[0]), "schema_id": int(r[1]), "commit_kind": r[2]} for r in snapshots
        ],
        "expired_snapshots": list(range(1, min(ids))) if ids else [],
        "tags": {r["tag_name"]: int(r["snapshot_id"]) for r in tags},
    }


def build_corpus(root: Path) -> dict[str, Any]:
    """Run every table's statements with Spark into ``root/warehouse``; return the manifest."""
    warehouse = root / "warehouse"
    spark = spark_session(warehouse)
    spark_sql(spark, f"CREATE DATABASE IF NOT EXISTS {DATABASE}")
    tables: dict[str, Any] = {}
    started = time.monotonic()
    for table in TABLES:
        t0 = time.monotonic()
        for template in table.statements:
            sql = _statement(table, template)
            try:
                spark_sql(spark, sql)
            except Exception as err:
                raise RuntimeError(
                    f"corpus table {table.name}: Spark failed on\n  {sql}\n{err}"
                ) from err
        tables[table.name] = {
            "identifier": f"{DATABASE}.{table.name}",
            "features": list(table.features),
            "statements": [_statement(table, s) for s in table.statements],
            **_history(spark, table),
            "build_seconds": round(time.monotonic() - t0, 2),
        }
    return {
        "key": corpus_key(),
        "paimon": _versions.PAIMON,
        "pyspark": _versions.PYSPARK,
        "database": DATABASE,
        "build_seconds": round(time.monotonic() - started, 1),
        "tables": tables,
    }


def ensure_corpus() -> Corpus:
    """The corpus for the current definitions, built on first use and cached."""
    base = cache_dir() / "corpus"
    base.mkdir(parents=True, exist_ok=True)
    root = base / corpus_key()
    manifest_path = root / "corpus.json"
    with open(base / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not manifest_path.exists():
            if root.exists():
                shutil.rmtree(root)  # an interrupted build
            root.mkdir()
            manifest = build_corpus(root)
            tmp = root / "corpus.json.tmp"
            tmp.write_text(json.dumps(manifest, indent=1))
            tmp.replace(manifest_path)
    return Corpus(warehouse=root / "warehouse", manifest=json.loads(manifest_path.read_text()))
