"""The Flink-written corpus: Paimon 1.3.1 tables made with Flink SQL only, and Flink's reads of
them.

Each `FlinkTable` is a list of Flink SQL steps (``{t}`` is the table's name in database ``db``,
``{id}`` its ``db.name`` for procedure arguments). `ensure_corpus` builds them all once into
``<cache>/flink-corpus/<hash>/warehouse`` and then asks Flink to read every table at its latest
state, at every snapshot (``/*+ OPTIONS('scan.snapshot-id' = 'N') */``) and at every tag
(``'scan.tag-name'``). ``corpus.json`` keeps those reads (columns and canonical rows), so a later
run compares paimon-sql against them without starting Flink. The hash covers these definitions,
the pinned versions and the bridge's source; ``corpus.json`` is written last, so an interrupted
build is redone.

To stay fast on two cores the builder runs the tables' steps in rounds: the n-th step of every
table in one round, its INSERTs together as one ``EXECUTE STATEMENT SET`` (one Flink job, one
commit per table), every other step (DDL, DELETE, UPDATE, CALL) alone.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from tests.interop.flink import harness
from tests.interop.harness import cache_dir

CORPUS_FORMAT = 1  # bump when the builder or the manifest layout changes


@dataclasses.dataclass(frozen=True)
class FlinkTable:
    name: str
    features: tuple[str, ...]
    steps: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Corpus:
    warehouse: Path
    manifest: dict[str, Any]

    @property
    def tables(self) -> dict[str, dict[str, Any]]:
        return self.manifest["tables"]


def _t(name: str, features: str, *steps: str) -> FlinkTable:
    return FlinkTable(name, tuple(features.split()), tuple(steps))


def _tag(name: str, snapshot: int | None = None) -> str:
    at = f", snapshot_id => CAST({snapshot} AS BIGINT)" if snapshot is not None else ""
    return f"CALL sys.create_tag(`table` => '{{id}}', tag => '{name}'{at})"


COMPACT = "CALL sys.compact(`table` => '{id}')"

# --- types, per file format -------------------------------------------------------------------

_SCALAR_TYPES = (
    "INT",
    "BOOLEAN",
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "DECIMAL(9, 2)",
    "DECIMAL(38, 10)",
    "STRING",
    "VARCHAR(10)",
    "BYTES",
    "VARBINARY(8)",
    "DATE",
    "TIMESTAMP(0)",
    "TIMESTAMP(3)",
    "TIMESTAMP(6)",
    "TIMESTAMP_LTZ(3)",
    "TIMESTAMP_LTZ(6)",
    "ARRAY<INT>",
    "ARRAY<STRING>",
    "MAP<STRING, INT>",
    "MAP<INT, STRING>",
    "ROW<a INT, b STRING>",
    "ROW<x ROW<p DOUBLE, q ARRAY<DATE>>, y ARRAY<ROW<k STRING, v BIGINT>>>",
)
_SCALAR_NAMES = (
    "id",
    "b",
    "ti",
    "si",
    "i",
    "bi",
    "f",
    "d",
    "dec_s",
    "dec_b",
    "s",
    "vc",
    "bin",
    "vb",
    "day",
    "ts0",
    "ts3",
    "ts6",
    "ltz3",
    "ltz6",
    "arr",
    "arr_s",
    "m",
    "m_int",
    "r",
    "deep",
)
_SCALARS = (
    "(" + ", ".join(f"`{n}` {t}" for n, t in zip(_SCALAR_NAMES, _SCALAR_TYPES, strict=True)) + ")"
)
_SCALAR_ROWS = (
    "INSERT INTO {t} VALUES "  # noqa: S608 - a fixed corpus statement
    "(1, TRUE, CAST(127 AS TINYINT), CAST(32767 AS SMALLINT), 2147483647, 9223372036854775807, "
    "CAST(1.1 AS FLOAT), 3.141592653589793, CAST(1234567.89 AS DECIMAL(9, 2)), "
    "CAST('1234567890123456789012345678.0123456789' AS DECIMAL(38, 10)), 'héllo wörld ☃', 'vc', "
    "X'00FF10', X'0102', DATE '2024-02-29', TIMESTAMP '2024-02-29 12:34:56', "
    "TIMESTAMP '2024-02-29 12:34:56.123', TIMESTAMP '2024-02-29 12:34:56.123456', "
    "CAST(TIMESTAMP '2024-02-29 12:34:56.789' AS TIMESTAMP_LTZ(3)), "
    "CAST(TIMESTAMP '1969-12-31 23:59:59.999999' AS TIMESTAMP_LTZ(6)), "
    "ARRAY[1, CAST(NULL AS INT), 3], "
    "ARRAY['a', '', CAST(NULL AS STRING)], MAP['a', 1, 'b', CAST(NULL AS INT)], "
    "MAP[1, 'one', 2, 'two'], "
    "ROW(1, 'why'), ROW(ROW(0.5, ARRAY[DATE '1970-01-01']), ARRAY[ROW('k1', CAST(7 AS BIGINT))])), "
    "(2, FALSE, CAST(-128 AS TINYINT), CAST(-32768 AS SMALLINT), -2147483648, "
    "-9223372036854775807 - 1, CAST(-3.4E38 AS FLOAT), CAST(-1.0E-300 AS DOUBLE), "
    "CAST(-0.01 AS DECIMAL(9, 2)), CAST('-0.0000000001' AS DECIMAL(38, 10)), '', '', X'', X'', "
    "DATE '1969-12-31', TIMESTAMP '1900-01-01 00:00:00', TIMESTAMP '1969-12-31 23:59:59.999', "
    "TIMESTAMP '2262-04-11 23:47:16.854775', "
    "CAST(TIMESTAMP '1970-01-01 00:00:00' AS TIMESTAMP_LTZ(3)), "
    "CAST(TIMESTAMP '2038-01-19 03:14:08' AS TIMESTAMP_LTZ(6)), CAST(ARRAY[0] AS ARRAY<INT>), "
    "CAST(ARRAY['z'] AS ARRAY<STRING>), MAP['k', 7], MAP[-1, 'neg'], "
    "ROW(CAST(NULL AS INT), 'y-only'), "
    "ROW(ROW(-0.5, ARRAY[DATE '2024-01-01', CAST(NULL AS DATE)]), "
    "ARRAY[ROW('a', CAST(NULL AS BIGINT))])), "
    "(3, " + ", ".join(f"CAST(NULL AS {t})" for t in _SCALAR_TYPES[1:]) + ")"
)


# Flink's planner folds constants with BigDecimal: NaN and Infinity literals fail to plan
# ("Infinite or NaN"), so the float extremes here are finite.
def _typed(
    name: str, fmt: str, features: str, columns: str, *rows: str, extra: str = ""
) -> FlinkTable:
    options = f"'file.format' = '{fmt}'" + extra
    return _t(
        f"{name}_{fmt}",
        f"append format-{fmt} {features}",
        f"CREATE TABLE {{t}} {columns} WITH ({options})",
        *rows,
    )


def _format_tables(fmt: str) -> list[FlinkTable]:
    tables = [
        _typed("types", fmt, "types", _SCALARS, _SCALAR_ROWS),
        _typed(
            "ts9",
            fmt,
            "timestamp-9",
            "(id INT, ts7 TIMESTAMP(7), ts9 TIMESTAMP(9))",
            "INSERT INTO {t} VALUES (1, TIMESTAMP '2024-01-01 12:00:00.1234567', "
            "TIMESTAMP '2024-01-01 12:00:00.123456789'), "
            "(2, TIMESTAMP '1969-12-31 23:59:59.9999999', "
            "TIMESTAMP '1900-01-01 00:00:00.000000001'), "
            "(3, CAST(NULL AS TIMESTAMP(7)), CAST(NULL AS TIMESTAMP(9)))",
        ),
        _typed(
            "ltz9",
            fmt,
            "timestamp-ltz-9",
            "(id INT, ltz9 TIMESTAMP_LTZ(9))",
            "INSERT INTO {t} VALUES "
            "(1, CAST(TIMESTAMP '2024-01-01 12:00:00.123456789' AS TIMESTAMP_LTZ(9))), "
            "(2, CAST(TIMESTAMP '1969-12-31 23:59:59.999999999' AS TIMESTAMP_LTZ(9))), "
            "(3, CAST(NULL AS TIMESTAMP_LTZ(9)))",
        ),
        _typed(
            "char",
            fmt,
            "char",
            "(id INT, c CHAR(5), c1 CHAR(1))",
            "INSERT INTO {t} VALUES (1, CAST('ab' AS CHAR(5)), CAST('x' AS CHAR(1))), "
            "(2, CAST('abcde' AS CHAR(5)), CAST('' AS CHAR(1))), "
            "(3, CAST(NULL AS CHAR(5)), CAST(NULL AS CHAR(1)))",
        ),
        _typed(
            "time",
            fmt,
            "time",
            "(id INT, t0 TIME, t3 TIME(3))",
            "INSERT INTO {t} VALUES (1, TIME '12:34:56', TIME '12:34:56.789'), "
            "(2, TIME '00:00:00', TIME '23:59:59.999'), "
            "(3, CAST(NULL AS TIME), CAST(NULL AS TIME(3)))",
        ),
        _typed(
            "nullrow",
            fmt,
            "nested-null-row",
            "(id INT, r ROW<a INT, b STRING>, n ROW<x ROW<p INT, q STRING>, y INT>)",
            "INSERT INTO {t} VALUES (1, ROW(CAST(NULL AS INT), CAST(NULL AS STRING)), "
            "ROW(ROW(CAST(NULL AS INT), CAST(NULL AS STRING)), CAST(NULL AS INT))), "
            "(2, CAST(NULL AS ROW<a INT, b STRING>), "
            "CAST(NULL AS ROW<x ROW<p INT, q STRING>, y INT>)), "
            "(3, ROW(1, 'b'), ROW(CAST(NULL AS ROW<p INT, q STRING>), 5))",
        ),
    ]
    # Paimon 1.3 refuses TIMESTAMP(7..9) and TIMESTAMP_LTZ(7..9) in Avro tables at CREATE TABLE.
    return [t for t in tables if fmt != "avro" or not t.name.startswith(("ts9", "ltz9"))]


TABLES: list[FlinkTable] = [
    *_format_tables("parquet"),
    *_format_tables("orc"),
    *_format_tables("avro"),
    _typed(
        "avro_snappy",
        "avro",
        "avro-snappy",
        "(id INT, s STRING)",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO {t} VALUES (3, 'c')",
        extra=", 'file.compression' = 'snappy'",
    ),
    # --- append ------------------------------------------------------------------------------
    _t(
        "append_unaware",
        "append bucket-unaware partitioned tag insert-overwrite",
        "CREATE TABLE {t} (id INT, v STRING, dt STRING) PARTITIONED BY (dt)",
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')",
        "INSERT INTO {t} VALUES (3, 'c', 'x'), (1, 'a', 'x')",
        _tag("two_inserts"),
        "INSERT OVERWRITE {t} PARTITION (dt = 'y') SELECT 9, 'over'",
        "INSERT INTO {t} VALUES (4, CAST(NULL AS STRING), CAST(NULL AS STRING))",
    ),
    _t(
        "append_fixed",
        "append bucket-fixed compact",
        "CREATE TABLE {t} (id INT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id')",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO {t} VALUES (1, 'a2'), (4, 'd')",
        COMPACT,
        "INSERT INTO {t} VALUES (5, 'e')",
    ),
    # --- primary keys ------------------------------------------------------------------------
    _t(
        "pk_fixed",
        "pk bucket-fixed delete update compact tag",
        "CREATE TABLE {t} (id INT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2')",
        "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
        "INSERT INTO {t} VALUES (2, 'b2', 20), (4, 'd', 4)",
        _tag("before_dml"),
        "DELETE FROM {t} WHERE id = 1",
        "UPDATE {t} SET v = 'upd' WHERE id = 3",
        COMPACT,
        "INSERT INTO {t} VALUES (5, 'e', 5)",
    ),
    _t(
        "pk_dynamic",
        "pk bucket-dynamic partitioned",
        "CREATE TABLE {t} (id INT, dt STRING, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '-1')",
        "INSERT INTO {t} VALUES (1, 'x', 'a'), (2, 'x', 'b'), (1, 'y', 'c')",
        "INSERT INTO {t} VALUES (1, 'x', 'a2'), (3, 'y', 'd')",
    ),
    _t(
        "pk_cross_partition",
        "pk bucket-dynamic cross-partition partitioned",
        "CREATE TABLE {t} (id INT, dt STRING, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '-1')",
        "INSERT INTO {t} VALUES (1, 'x', 'a'), (2, 'x', 'b')",
        "INSERT INTO {t} VALUES (1, 'y', 'moved'), (3, 'y', 'c')",
    ),
    _t(
        "pk_sequence_field",
        "pk deduplicate sequence-field",
        "CREATE TABLE {t} (id INT, v STRING, ver BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'sequence.field' = 'ver')",
        "INSERT INTO {t} VALUES (1, 'new', 5), (2, 'b', 1)",
        "INSERT INTO {t} VALUES (1, 'old', 3), (2, 'b2', 2)",
    ),
    _t(
        "pk_dv",
        "pk deletion-vectors delete",
        "CREATE TABLE {t} (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true')",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO {t} VALUES (2, 'b2'), (4, 'd')",
        "DELETE FROM {t} WHERE id = 3",
        "INSERT INTO {t} VALUES (1, 'a3')",
    ),
    _t(
        "pk_dv_bitmap64",
        "pk deletion-vectors deletion-vectors-bitmap64",
        "CREATE TABLE {t} (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true', "
        "'deletion-vectors.bitmap64' = 'true')",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO {t} VALUES (2, 'b2'), (4, 'd')",
    ),
    _t(
        "append_dv",
        "append deletion-vectors compact",  # Flink cannot DELETE from append tables
        "CREATE TABLE {t} (id INT, v STRING) WITH ('deletion-vectors.enabled' = 'true')",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO {t} VALUES (4, 'd')",
        COMPACT,
    ),
    _t(
        "pk_orc_avro_levels",
        "pk format-orc format-per-level compact",
        "CREATE TABLE {t} (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'file.format' = 'orc', 'file.format.per.level' = '0:avro')",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO {t} VALUES (2, 'b2')",
        COMPACT,
        "INSERT INTO {t} VALUES (3, 'c')",
    ),
    # --- merge engines -----------------------------------------------------------------------
    _t(
        "first_row",
        "pk merge-first-row",
        "CREATE TABLE {t} (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'merge-engine' = 'first-row')",
        "INSERT INTO {t} VALUES (1, 'first'), (2, 'b')",
        "INSERT INTO {t} VALUES (1, 'second'), (3, 'c')",
    ),
    _t(
        "partial_update",
        "pk merge-partial-update",
        "CREATE TABLE {t} (id INT, a STRING, b INT, c STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'merge-engine' = 'partial-update')",
        "INSERT INTO {t} VALUES (1, 'a1', CAST(NULL AS INT), CAST(NULL AS STRING)), "
        "(2, 'only', 2, 'row')",
        "INSERT INTO {t} VALUES (1, CAST(NULL AS STRING), 10, 'c1')",
    ),
    _t(
        "partial_update_seq_groups",
        "pk merge-partial-update sequence-group",
        "CREATE TABLE {t} (id INT, a STRING, b STRING, g1 INT, c STRING, g2 INT, "
        "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'partial-update', "
        "'fields.g1.sequence-group' = 'a,b', 'fields.g2.sequence-group' = 'c')",
        "INSERT INTO {t} VALUES (1, 'a1', 'b1', 1, 'c1', 1), (2, 'single', 'rec', 5, 'x', 7), "
        "(3, 'no', 'seq', CAST(NULL AS INT), 'n', CAST(NULL AS INT))",
        "INSERT INTO {t} VALUES (1, 'a2', CAST(NULL AS STRING), 2, 'c0', 0)",
    ),
    _t(
        "agg_basic",
        "pk merge-aggregation agg-sum agg-max agg-min agg-last_value agg-last_non_null_value "
        "agg-first_value agg-listagg agg-bool_and agg-bool_or agg-product compact",
        "CREATE TABLE {t} (id INT, s BIGINT, mx INT, mn DOUBLE, lv STRING, lnn STRING, fv STRING, "
        "la STRING, band BOOLEAN, bor BOOLEAN, prod DOUBLE, "
        "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'aggregation', "
        "'fields.s.aggregate-function' = 'sum', 'fields.mx.aggregate-function' = 'max', "
        "'fields.mn.aggregate-function' = 'min', 'fields.lv.aggregate-function' = 'last_value', "
        "'fields.lnn.aggregate-function' = 'last_non_null_value', "
        "'fields.fv.aggregate-function' = 'first_value', "
        "'fields.la.aggregate-function' = 'listagg', "
        "'fields.band.aggregate-function' = 'bool_and', "
        "'fields.bor.aggregate-function' = 'bool_or', "
        "'fields.prod.aggregate-function' = 'product')",  # 1.3 has no 'count' function
        "INSERT INTO {t} VALUES (1, 10, 5, 1.5, 'x', 'y', 'first', 'p', TRUE, FALSE, 2.0), "
        "(2, 1, 1, 1.0, 'a', 'b', 'c', 'd', FALSE, TRUE, 3.0)",
        "INSERT INTO {t} VALUES (1, 5, 9, 0.5, CAST(NULL AS STRING), CAST(NULL AS STRING), "
        "'second', "
        "'q', FALSE, TRUE, 4.0)",
        COMPACT,
        "INSERT INTO {t} VALUES (1, 1, 1, 9.0, 'z', 'w', 'third', 'r', TRUE, FALSE, 0.5)",
    ),
    _t(
        "agg_collect_distinct",
        "pk merge-aggregation agg-collect agg-collect-distinct agg-merge_map",
        "CREATE TABLE {t} (id INT, c ARRAY<STRING>, cd ARRAY<STRING>, mm MAP<STRING, INT>, "
        "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'aggregation', "
        "'fields.c.aggregate-function' = 'collect', 'fields.cd.aggregate-function' = 'collect', "
        "'fields.cd.distinct' = 'true', 'fields.mm.aggregate-function' = 'merge_map')",
        "INSERT INTO {t} VALUES (1, ARRAY['a', 'b'], ARRAY['a', 'b', 'a'], MAP['k', 1])",
        "INSERT INTO {t} VALUES (1, ARRAY['b'], ARRAY['b', 'c'], MAP['k', 2, 'j', 3])",
    ),
    _t(
        "agg_nested_update",
        "pk merge-aggregation agg-nested_update",
        "CREATE TABLE {t} (id INT, items ARRAY<ROW<k INT, v STRING>>, "
        "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'aggregation', "
        "'fields.items.aggregate-function' = 'nested_update', 'fields.items.nested-key' = 'k')",
        "INSERT INTO {t} VALUES (1, ARRAY[ROW(1, 'a'), ROW(2, 'b')])",
        "INSERT INTO {t} VALUES (1, ARRAY[ROW(2, 'b2'), ROW(3, 'c')])",
    ),
    # --- schema evolution --------------------------------------------------------------------
    _t(
        "schema_evolution",
        "pk schema-evolution add-column rename-column widen-type",
        "CREATE TABLE {t} (id INT, v INT, s STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '1')",
        "INSERT INTO {t} VALUES (1, 1, 'a'), (2, 2, 'b')",
        "ALTER TABLE {t} ADD (extra STRING)",
        "INSERT INTO {t} VALUES (3, 3, 'c', 'e3')",
        "ALTER TABLE {t} MODIFY v BIGINT",
        "ALTER TABLE {t} RENAME s TO s2",
        "INSERT INTO {t} VALUES (1, 10000000000, 'a2', 'e1')",
    ),
    _t(
        "append_schema_evolution",
        "append schema-evolution add-column drop-column",
        "CREATE TABLE {t} (id INT, v STRING, gone INT)",
        "INSERT INTO {t} VALUES (1, 'a', 1)",
        "ALTER TABLE {t} DROP gone",
        "ALTER TABLE {t} ADD (f FLOAT)",
        "INSERT INTO {t} VALUES (2, 'b', CAST(2.5 AS FLOAT))",
    ),
    # --- file indexes ----------------------------------------------------------------------------
    _t(
        "append_file_index",
        "append file-index bloom-filter bitmap bsi index-file",
        "CREATE TABLE {t} (id INT, s STRING, c INT, v BIGINT, d DATE) WITH ("
        "'file-index.bloom-filter.columns' = 's,v', 'file-index.bloom-filter.s.items' = '100', "
        "'file-index.bitmap.columns' = 'c,s', 'file-index.bsi.columns' = 'v,d', "
        "'file-index.in-manifest-threshold' = '1 b')",
        "INSERT INTO {t} VALUES (1, 'a', 1, 10, DATE '2024-01-01'), "
        "(2, 'b', 2, -5, DATE '2024-01-02')",
        "INSERT INTO {t} VALUES (3, 'c', 1, 7, DATE '2023-12-31'), (4, CAST(NULL AS STRING), "
        "CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS DATE))",
    ),
    _t(
        "pk_dv_file_index",
        "pk deletion-vectors file-index bitmap bloom-filter embedded-index",
        "CREATE TABLE {t} (id INT, s STRING, c INT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
        "'bucket' = '1', 'deletion-vectors.enabled' = 'true', 'file-index.bitmap.columns' = 'c', "
        "'file-index.bloom-filter.columns' = 's', 'file-index.bloom-filter.s.items' = '50')",
        "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
        "INSERT INTO {t} VALUES (2, 'b2', 20), (4, 'd', 4)",
        COMPACT,
        "INSERT INTO {t} VALUES (1, 'a3', 30)",
    ),
    # --- issue 14 (read14): Java's hash orders and retractions into aggregation tables ----------
    _t(
        "agg_hash_orders",
        "pk merge-aggregation agg-collect-distinct agg-nested_update",
        "CREATE TABLE {t} (id INT, s ARRAY<STRING>, i ARRAY<INT>, b ARRAY<BIGINT>, "
        "r ARRAY<ROW<p INT, q STRING>>, nu ARRAY<ROW<k STRING, v INT>>, "
        "nn ARRAY<ROW<k INT, v STRING>>, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', "
        "'merge-engine' = 'aggregation', 'fields.s.aggregate-function' = 'collect', "
        "'fields.s.distinct' = 'true', 'fields.i.aggregate-function' = 'collect', "
        "'fields.i.distinct' = 'true', 'fields.b.aggregate-function' = 'collect', "
        "'fields.b.distinct' = 'true', 'fields.r.aggregate-function' = 'collect', "
        "'fields.r.distinct' = 'true', 'fields.nu.aggregate-function' = 'nested_update', "
        "'fields.nu.nested-key' = 'k', 'fields.nn.aggregate-function' = 'nested_update')",
        "INSERT INTO {t} VALUES (1, ARRAY['q', 'w', 'e', 'q', 'rrrrrrrrrr', 'é', 't', 'y'], "
        "ARRAY[0, 16, 32, 48, 1, 17, -1, 100000, 16], "
        "ARRAY[CAST(1 AS BIGINT), 4294967296, -1, 1], "
        "ARRAY[ROW(1, 'a'), ROW(1, 'a'), ROW(2, CAST(NULL AS STRING))], "
        "ARRAY[ROW('short', 1), ROW('a-much-longer-key', 2), ROW('x', 3)], "
        "ARRAY[ROW(1, 'a')]), "
        "(2, ARRAY['b', 'a', 'b'], ARRAY[3, 3], ARRAY[CAST(5 AS BIGINT)], "
        "ARRAY[ROW(1, 'a'), ROW(1, 'a')], ARRAY[ROW('k', 1), ROW('k', 2)], ARRAY[ROW(1, 'a')])",
        "INSERT INTO {t} VALUES (1, ARRAY['u', 'i', 'o', 'p', 'a', 's', 'd', 'f', 'q', 'g', 'h'], "
        "ARRAY[64, 80, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0], ARRAY[CAST(-4294967296 AS BIGINT)], "
        "ARRAY[ROW(2, CAST(NULL AS STRING)), ROW(3, 'c')], "
        "ARRAY[ROW('x', 30), ROW('new key here!', 4), ROW('short', 10)], "
        "ARRAY[ROW(2, 'b'), ROW(1, 'a')]), "
        "(2, ARRAY['c'], ARRAY[4], CAST(NULL AS ARRAY<BIGINT>), ARRAY[ROW(1, 'a')], "
        "ARRAY[ROW('k', 3)], CAST(NULL AS ARRAY<ROW<k INT, v STRING>>))",
        "INSERT INTO {t} VALUES (1, ARRAY['z', CAST(NULL AS STRING), 'w'], "
        "ARRAY[CAST(NULL AS INT)], ARRAY[CAST(7 AS BIGINT)], "
        "CAST(NULL AS ARRAY<ROW<p INT, q STRING>>), "
        "ARRAY[ROW('short', 11), ROW('y', 5)], ARRAY[ROW(3, 'c')])",
    ),
    _t(
        "agg_retract",
        "pk merge-aggregation rowkind-field agg-retract agg-product agg-collect agg-merge_map "
        "agg-ignore-retract",
        "CREATE TABLE {t} (id INT, op STRING, s BIGINT, p BIGINT, pd DOUBLE, c ARRAY<STRING>, "
        "cd ARRAY<STRING>, mm MAP<STRING, INT>, lv STRING, ir INT, irs BIGINT, "
        "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'aggregation', "
        "'rowkind.field' = 'op', 'fields.s.aggregate-function' = 'sum', "
        "'fields.p.aggregate-function' = 'product', 'fields.pd.aggregate-function' = 'product', "
        "'fields.c.aggregate-function' = 'collect', 'fields.cd.aggregate-function' = 'collect', "
        "'fields.cd.distinct' = 'true', 'fields.mm.aggregate-function' = 'merge_map', "
        "'fields.lv.aggregate-function' = 'last_value', 'fields.ir.aggregate-function' = 'max', "
        "'fields.ir.ignore-retract' = 'true', 'fields.irs.aggregate-function' = 'sum', "
        "'fields.irs.ignore-retract' = 'true')",
        "INSERT INTO {t} VALUES (1, '+I', 10, 6, 2.0, ARRAY['a', 'b', 'a'], ARRAY['a', 'b', 'a'], "
        "MAP['k', 1, 'j', 2], 'x', 5, 100), "
        "(2, '+I', 1, 7, 3.0, ARRAY['p'], ARRAY['p'], MAP['m', 1], 'v', 1, 1), "
        "(3, '+I', 2, 2, 2.0, ARRAY['q'], ARRAY['q'], MAP['n', 1], 'w', 2, 2)",
        "INSERT INTO {t} VALUES (1, '-U', 3, -3, 4.0, ARRAY['a', 'z'], ARRAY['b'], MAP['k', 0], "
        "'x', 7, 50), (2, '-D', 1, 2, 2.0, ARRAY['p'], ARRAY['p'], MAP['m', 1], 'v', 9, 1), "
        "(4, '-D', 5, 5, 5.0, ARRAY['r'], ARRAY['r'], MAP['o', 1], 'u', 3, 3)",
        "INSERT INTO {t} VALUES (1, '+U', 4, 5, 0.5, ARRAY['c', 'a'], ARRAY['c', 'd', 'a'], "
        "MAP['z', 9], 'y', 1, 7), (3, '-U', CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), "
        "CAST(NULL AS DOUBLE), CAST(NULL AS ARRAY<STRING>), ARRAY['q', 'q'], "
        "CAST(NULL AS MAP<STRING, INT>), CAST(NULL AS STRING), 4, 4)",
    ),
    _t(
        "cast_evolution",
        "append schema-evolution alter-column-type java-cast-rules",
        "CREATE TABLE {t} (id INT, ts TIMESTAMP(3), tb TIMESTAMP(6), d DECIMAL(10, 2), "
        "dt TIMESTAMP(3), f INT)",
        "INSERT INTO {t} VALUES (1, TIMESTAMP '2024-01-01 00:00:01.900', "
        "TIMESTAMP '1969-12-31 23:59:58.500001', CAST(-12.75 AS DECIMAL(10, 2)), "
        "TIMESTAMP '1969-12-31 12:00:00', 0), "
        "(2, TIMESTAMP '1900-01-01 00:00:00', TIMESTAMP '2038-01-19 03:14:07', "
        "CAST(12.75 AS DECIMAL(10, 2)), TIMESTAMP '2024-02-29 23:59:59.999', -2)",
        "ALTER TABLE {t} MODIFY ts INT",
        "ALTER TABLE {t} MODIFY tb BIGINT",
        "ALTER TABLE {t} MODIFY d INT",
        "ALTER TABLE {t} MODIFY dt DATE",
        "ALTER TABLE {t} MODIFY f BOOLEAN",
        "INSERT INTO {t} VALUES (3, 7, 8, 9, DATE '2024-01-02', TRUE)",
    ),
    _t(
        "agg_nested_retract",
        "pk merge-aggregation rowkind-field agg-nested_update agg-retract count-limit",
        "CREATE TABLE {t} (id INT, op STRING, nk ARRAY<ROW<k INT, v STRING>>, "
        "nn ARRAY<ROW<k INT, v STRING>>, lim ARRAY<ROW<k INT, v STRING>>, "
        "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'merge-engine' = 'aggregation', "
        "'rowkind.field' = 'op', 'fields.nk.aggregate-function' = 'nested_update', "
        "'fields.nk.nested-key' = 'k', 'fields.nn.aggregate-function' = 'nested_update', "
        "'fields.lim.aggregate-function' = 'nested_update', 'fields.lim.nested-key' = 'k', "
        "'fields.lim.count-limit' = '3')",
        "INSERT INTO {t} VALUES (1, '+I', ARRAY[ROW(1, 'a'), ROW(2, 'b'), ROW(3, 'c')], "
        "ARRAY[ROW(1, 'a'), ROW(2, 'b'), ROW(1, 'a')], ARRAY[ROW(1, 'a'), ROW(2, 'b')]), "
        "(2, '+I', ARRAY[ROW(7, 'g')], ARRAY[ROW(7, 'g')], ARRAY[ROW(1, 'a'), ROW(2, 'b')])",
        "INSERT INTO {t} VALUES (1, '-U', ARRAY[ROW(2, 'zzz')], ARRAY[ROW(1, 'a')], "
        "ARRAY[ROW(9, 'x')]), "
        "(2, '+I', ARRAY[ROW(8, 'h'), ROW(7, 'g2')], ARRAY[ROW(8, 'h')], "
        "ARRAY[ROW(3, 'c'), ROW(4, 'd'), ROW(5, 'e')])",
        "INSERT INTO {t} VALUES (1, '+U', ARRAY[ROW(4, 'd'), ROW(1, 'a2')], ARRAY[ROW(3, 'c')], "
        "ARRAY[ROW(3, 'c'), ROW(4, 'd')]), "
        "(2, '-D', ARRAY[ROW(8, 'h')], ARRAY[ROW(7, 'g')], ARRAY[ROW(1, 'a')])",
    ),
    _t(
        "cast_to_string",
        "append schema-evolution alter-column-type java-cast-rules",
        "CREATE TABLE {t} (id INT, t0 TIMESTAMP(0), t3 TIMESTAMP(3), t6 TIMESTAMP(6), "
        "t9 TIMESTAMP(9), i INT, d DECIMAL(10, 2), b BOOLEAN, dt DATE)",
        "INSERT INTO {t} VALUES (1, TIMESTAMP '2024-01-01 00:00:01', "
        "TIMESTAMP '2024-01-01 00:00:01.900', TIMESTAMP '1969-12-31 23:59:58.500001', "
        "TIMESTAMP '2024-01-01 00:00:01.000000001', -7, CAST(12.50 AS DECIMAL(10, 2)), TRUE, "
        "DATE '1900-01-01'), (2, TIMESTAMP '1900-01-01 00:00:00', "
        "TIMESTAMP '2024-01-01 00:00:01', TIMESTAMP '2024-01-01 00:00:00', "
        "TIMESTAMP '2024-01-01 00:00:00.123', 0, CAST(-0.01 AS DECIMAL(10, 2)), FALSE, "
        "DATE '2024-02-29')",
        "ALTER TABLE {t} MODIFY t0 STRING",
        "ALTER TABLE {t} MODIFY t3 STRING",
        "ALTER TABLE {t} MODIFY t6 STRING",
        "ALTER TABLE {t} MODIFY t9 STRING",
        "ALTER TABLE {t} MODIFY i STRING",
        "ALTER TABLE {t} MODIFY d STRING",
        "ALTER TABLE {t} MODIFY b STRING",
        "ALTER TABLE {t} MODIFY dt STRING",
        "INSERT INTO {t} VALUES (3, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h')",
    ),
    # --- issue 14 (oracle14): 1.x table features written by plain INSERTs ----------------------
    _t(
        "row_tracking",
        "append row-tracking",
        "CREATE TABLE {t} (id INT, v STRING) WITH ('row-tracking.enabled' = 'true')",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO {t} VALUES (3, 'c')",
    ),
    _t(
        "data_evolution",
        "append row-tracking data-evolution",
        "CREATE TABLE {t} (id INT, v STRING) WITH ('row-tracking.enabled' = 'true', "
        "'data-evolution.enabled' = 'true')",
        "INSERT INTO {t} VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO {t} VALUES (3, CAST(NULL AS STRING))",
    ),
    _t(
        "blob_field",
        "append row-tracking data-evolution blob",
        "CREATE TABLE {t} (id INT, b BYTES) WITH ('row-tracking.enabled' = 'true', "
        "'data-evolution.enabled' = 'true', 'blob-field' = 'b')",
        "INSERT INTO {t} VALUES (1, X'0102'), (2, CAST(NULL AS BYTES))",
        "INSERT INTO {t} VALUES (3, X'')",
    ),
    _t(
        "agg_rbm32",
        "pk merge-aggregation agg-rbm32",
        "CREATE TABLE {t} (id INT, r VARBINARY, PRIMARY KEY (id) NOT ENFORCED) WITH ("
        "'bucket' = '1', 'merge-engine' = 'aggregation', 'fields.r.aggregate-function' = 'rbm32')",
        "INSERT INTO {t} VALUES (1, CAST(NULL AS VARBINARY)), (2, CAST(NULL AS VARBINARY))",
        "INSERT INTO {t} VALUES (1, CAST(NULL AS VARBINARY))",
    ),
    _t(
        "cast_double_to_string",
        "append schema-evolution alter-column-type java-cast-rules",
        "CREATE TABLE {t} (id INT, f DOUBLE, g FLOAT)",
        "INSERT INTO {t} VALUES (1, 1.0E10, CAST(1.0E10 AS FLOAT)), (2, 1.0E-4, "
        "CAST(1.0E-4 AS FLOAT)), (3, 123.456, CAST(123.456 AS FLOAT)), (4, -2.5E-7, "
        "CAST(0.1 AS FLOAT)), (5, 9999999.0, CAST(1.0E7 AS FLOAT))",
        "ALTER TABLE {t} MODIFY f STRING",
        "ALTER TABLE {t} MODIFY g STRING",
        "INSERT INTO {t} VALUES (6, 'x', 'y')",
    ),
]


# --- building ---------------------------------------------------------------------------------


def _digest() -> str:
    payload = {
        "format": CORPUS_FORMAT,
        "versions": [harness.PYFLINK, *harness.FLINK_ARTIFACTS],
        "bridge": (Path(harness.__file__).parent / "Bridge.java").read_text(),
        "tables": [dataclasses.asdict(t) for t in TABLES],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _fill(step: str, table: FlinkTable) -> str:
    return step.replace("{t}", f"`{table.name}`").replace("{id}", f"db.{table.name}")


def _is_insert(step: str) -> bool:
    return step.lstrip().upper().startswith("INSERT")


def _run_rounds(flink: harness.FlinkOracle, warehouse: Path) -> None:
    for index in range(max(len(t.steps) for t in TABLES)):
        inserts = []
        for table in TABLES:
            if index < len(table.steps):
                step = _fill(table.steps[index], table)
                if _is_insert(step):
                    inserts.append(step)
                else:
                    flink.run(warehouse, step)
        if len(inserts) == 1:
            flink.run(warehouse, inserts[0])
        elif inserts:
            flink.run(warehouse, "EXECUTE STATEMENT SET BEGIN " + "; ".join(inserts) + "; END")


def _ids(folder: Path, prefix: str) -> list[str]:
    if not folder.is_dir():
        return []
    return [p.name[len(prefix) :] for p in folder.iterdir() if p.name.startswith(prefix)]


def _reads(flink: harness.FlinkOracle, warehouse: Path, table: FlinkTable) -> dict[str, Any]:
    folder = warehouse / "db.db" / table.name
    snapshots = sorted(int(s) for s in _ids(folder / "snapshot", "snapshot-"))
    tags = sorted(_ids(folder / "tag", "tag-"))
    reads = []
    versions: list[tuple[str, int | None, str | None]] = [("latest", None, None)]
    versions += [(f"snapshot {s}", s, None) for s in snapshots]
    versions += [(f"tag {t!r}", None, t) for t in tags]
    for label, snapshot, tag in versions:
        columns, rows = flink.read(warehouse, table.name, snapshot=snapshot, tag=tag)
        reads.append(
            {"label": label, "snapshot": snapshot, "tag": tag, "columns": columns, "rows": rows}
        )
    return {"identifier": f"db.{table.name}", "features": list(table.features), "reads": reads}


def ensure_corpus() -> Corpus:
    """The corpus for the current definitions: loaded from the cache, or built (several minutes)."""
    root = cache_dir() / "flink-corpus"
    root.mkdir(parents=True, exist_ok=True)
    folder = root / _digest()
    manifest_path = folder / "corpus.json"
    with open(root / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not manifest_path.exists():
            if folder.exists():
                shutil.rmtree(folder)
            warehouse = folder / "warehouse"
            warehouse.mkdir(parents=True)
            flink = harness.oracle()
            _run_rounds(flink, warehouse)
            tables = {t.name: _reads(flink, warehouse, t) for t in TABLES}
            manifest = {"paimon": harness.PAIMON, "pyflink": harness.PYFLINK, "tables": tables}
            tmp = folder / "corpus.json.tmp"
            tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
            tmp.rename(manifest_path)
    return Corpus(folder / "warehouse", json.loads(manifest_path.read_text()))
