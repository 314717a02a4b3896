"""paimon-sql writes, Apache Paimon 1.3.1 (Flink) reads and writes on top.

Each case creates a table with paimon-sql (Flink's ``CREATE TABLE ... WITH`` form), commits its
statements with paimon-sql's SQL writer, then:

1. Flink reads every snapshot paimon-sql committed, and gets exactly what paimon-sql reads there;
2. Flink commits one more ``INSERT`` on top;
3. Flink and paimon-sql both read the new latest snapshot, identically, and the Flink-inserted
   row is there.

The expected values are never written down here: paimon-sql's read and Flink's read must agree,
and both must contain the rows the statements meant (checked by row counts and the marker row).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb
import pytest
from sqlglot import exp

import paimon_sql
from tests.interop import cross_partition as cross
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]


@dataclass(frozen=True)
class Case:
    name: str
    ddl: str  # paimon-sql, Flink's WITH form; {t} is "db"."name"
    ours: tuple[str, ...]  # paimon-sql statements (DuckDB dialect)
    flink: str | tuple[str, ...]  # Flink's statements on top; {t}: the table name in database db
    rows: int  # rows the table holds after our statements
    xfail: str | None = None
    # what the known failure raises: paimon-sql refusing or reading differently; FlinkError only
    # where Flink failing on our files is the known failure
    raises: tuple[type[BaseException], ...] | None = None
    after: int | None = None  # rows after Flink's INSERT (default: one more)
    # id -> canonical values (some or all columns) the statements spell after Flink's write (where
    # both readers could agree on a wrong one); computed by hand from the statements
    meant: tuple[tuple[int, dict[str, Any]], ...] = ()
    # Flink's list of snapshot commit kinds at the end (where a writer's kinds are the point)
    kinds: tuple[str, ...] | None = None


_TYPES = (
    "(id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, f FLOAT, d DOUBLE, "
    "dec DECIMAL(20, 4), s STRING, ch CHAR(4), vb VARBINARY(8), dt DATE, ts3 TIMESTAMP(3), "
    "ts6 TIMESTAMP(6), ltz6 TIMESTAMP_LTZ(6), arr ARRAY<STRING>, m MAP<STRING, INT>, "
    "r ROW<a INT, b STRING>{pk})"
)
_TYPED_ROWS = (
    "INSERT INTO {t} VALUES "
    "(1, true, 1, 2, 3, 1.5, 2.25, 12.3456, 'héllo', 'ab  ', from_hex('00ff'), DATE '2024-02-29', "
    "TIMESTAMP '2024-02-29 12:34:56.789', TIMESTAMP '1970-01-01 00:00:00.000001', "
    "TIMESTAMPTZ '2024-01-01 00:00:00.000001+00', ['x', NULL], MAP {'k': 1}, {'a': 1, 'b': 'r'}), "
    "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
    "NULL, NULL)"
)
_TYPED_MORE = (
    "INSERT INTO {t} VALUES (3, false, -1, -2, -3, -0.5, 1e300, -0.0001, '', 'abcd', from_hex(''), "
    "DATE '1900-01-01', TIMESTAMP '2000-01-01 00:00:00', TIMESTAMP '2262-04-11 23:47:16.854775', "
    "TIMESTAMPTZ '1970-01-01 00:00:00+00', [], MAP {}, {'a': NULL, 'b': 'only-b'})"
)
_FLINK_TYPED = (
    "INSERT INTO {t} (id, s, ts6, r) VALUES (100, 'flink', TIMESTAMP '2030-01-01 00:00:00.5', "
    "ROW(7, 'f'))"
)


def _typed(name: str, fmt: str, options: str, pk: bool, *extra: str) -> Case:
    columns = _TYPES.replace("{pk}", ", PRIMARY KEY (id) NOT ENFORCED" if pk else "")
    return Case(
        name=f"{name}_{fmt}",
        ddl=f"CREATE TABLE {{t}} {columns} WITH ('file.format' = '{fmt}'{options})",
        ours=(_TYPED_ROWS, _TYPED_MORE, *extra),
        flink=_FLINK_TYPED,
        rows=3 - sum("DELETE" in e for e in extra),
    )


def _many_commits() -> Case:
    """A partitioned primary-key table after 18 upsert statements (issue 18: each bucket numbers
    on from its own live files, read from the written partitions' manifests only, merged every 5).

    Every 6th statement writes a key twice (the staged path, input order kept); the others stream.
    What each key holds is worked out here from the statements, not read back.
    """
    statements, meant = [], {}
    for i in range(18):
        keys = [(i * 7) % 15, (i * 7 + 3) % 15]
        rows = [(k, f"p{k % 3}", f"s{i}-{k}") for k in keys]
        if i % 6 == 5:
            rows.insert(0, (keys[0], f"p{keys[0] % 3}", "overwritten"))
        statements.append(
            "INSERT INTO {t} VALUES " + ", ".join(f"({k}, '{d}', '{v}')" for k, d, v in rows)  # noqa: S608
        )
        for k, _, v in rows:
            meant[k] = v
    meant[3] = "flink-upsert"
    return Case(
        "pk_many_commits",
        "CREATE TABLE {t} (id INT, dt STRING, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '2', 'manifest.merge-min-count' = '5')",
        tuple(statements),
        "INSERT INTO {t} VALUES (100, 'p1', 'flink'), (3, 'p0', 'flink-upsert')",
        15,
        after=16,
        meant=tuple((k, {"dt": f"p{k % 3}", "v": v}) for k, v in sorted(meant.items())),
    )


CASES = [
    _typed("append_unaware", "parquet", "", False),
    # compressions native to their format, written since the writable pairs got one table
    _typed("zlib", "orc", ", 'file.compression' = 'zlib'", False),
    _typed("deflate", "avro", ", 'file.compression' = 'deflate'", False),
    _typed("no_dictionary", "parquet", ", 'parquet.enable.dictionary' = 'false'", False),
    _typed("append_fixed", "orc", ", 'bucket' = '2', 'bucket-key' = 'id'", False),
    _typed("pk_fixed", "avro", ", 'bucket' = '2'", True, "UPDATE {t} SET s = 'upd' WHERE id = 1"),
    _typed("pk_dynamic", "parquet", ", 'bucket' = '-1'", True, "DELETE FROM {t} WHERE id = 2"),
    _typed(
        "pk_dv",
        "parquet",
        ", 'bucket' = '1', 'deletion-vectors.enabled' = 'true'",
        True,
        "INSERT INTO {t} (id, s) VALUES (1, 'again')",
    ),
    Case(
        "pk_partitioned",
        "CREATE TABLE {t} (id INT, dt STRING, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '2')",
        (
            "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')",
            "INSERT INTO {t} VALUES (1, 'a', 'x2')",
        ),
        "INSERT INTO {t} VALUES (3, 'a', 'flink'), (1, 'a', 'flink-upsert')",
        2,
        after=3,
    ),
    Case(
        "overwrite_dynamic",
        "CREATE TABLE {t} (id INT, v STRING, dt STRING) PARTITIONED BY (dt)",
        (
            "INSERT INTO {t} VALUES (1, 'x', 'a'), (2, 'y', 'b')",
            "INSERT OVERWRITE {t} SELECT 3, 'z', 'a'",
        ),
        "INSERT INTO {t} VALUES (4, 'flink', 'b')",
        2,
    ),
    Case(
        "overwrite_static_partition",
        "CREATE TABLE {t} (id INT, v STRING, dt STRING) PARTITIONED BY (dt)",
        (
            "INSERT INTO {t} VALUES (1, 'x', 'a'), (2, 'y', 'b')",
            "INSERT OVERWRITE {t} PARTITION (dt = 'a') SELECT 3, 'z'",
        ),
        "INSERT INTO {t} VALUES (4, 'flink', 'b')",
        2,
    ),
    Case(
        "truncate_partition",  # TRUNCATE TABLE … PARTITION: an OVERWRITE of that partition only
        "CREATE TABLE {t} (id INT, v STRING, dt STRING) PARTITIONED BY (dt)",
        (
            "INSERT INTO {t} VALUES (1, 'x', 'a'), (2, 'y', 'b')",
            "TRUNCATE TABLE {t} PARTITION (dt = 'a')",
        ),
        "INSERT INTO {t} VALUES (4, 'flink', 'a')",
        1,
        kinds=("APPEND", "OVERWRITE", "APPEND"),
    ),
    Case(
        "overwrite_typed_partition",  # PARTITION (k = 1) names the DOUBLE partition 1.0
        "CREATE TABLE {t} (id INT, k DOUBLE) PARTITIONED BY (k)",
        (
            "INSERT INTO {t} VALUES (1, 1.0), (2, 2.5)",
            "INSERT OVERWRITE {t} PARTITION (k = 1) SELECT 3",
        ),
        "INSERT INTO {t} VALUES (4, 2.5)",
        2,
    ),
    Case(
        "cross_partition_pk",
        "CREATE TABLE {t} (id INT, dt STRING, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '-1')",
        ("INSERT INTO {t} VALUES (1, 'a', 'x')", "INSERT INTO {t} VALUES (1, 'b', 'moved')"),
        "INSERT INTO {t} VALUES (2, 'a', 'flink')",
        1,
        after=2,
        meant=((1, {"id": 1, "dt": "b", "v": "moved"}),),
    ),
    Case(
        "timestamp_9",
        "CREATE TABLE {t} (id INT, ts9 TIMESTAMP(9)) WITH ('file.format' = 'parquet')",
        ("INSERT INTO {t} VALUES (1, TIMESTAMP_NS '2024-01-01 12:00:00.123456789')",),
        "INSERT INTO {t} VALUES (2, TIMESTAMP '2024-01-01 12:00:00.000000001')",
        1,
    ),
    Case(
        "orc_before_1970_millis",
        "CREATE TABLE {t} (id INT, ts6 TIMESTAMP(6), ts3 TIMESTAMP(3)) "
        "WITH ('file.format' = 'orc')",
        (
            "INSERT INTO {t} VALUES (1, TIMESTAMP '1969-12-31 23:59:59.5', "
            "TIMESTAMP '1969-12-31 23:59:59.999'), (2, TIMESTAMP '1969-12-31 23:59:58.5', "
            "TIMESTAMP '1900-01-01 00:00:00.001'), (3, TIMESTAMP '1969-12-31 23:59:59', NULL)",
        ),
        "INSERT INTO {t} VALUES (4, TIMESTAMP '1969-12-31 23:59:59.25', "
        "TIMESTAMP '1969-12-31 23:59:59.75')",
        3,
        meant=((1, {"ts6": ["timestamp", "1969-12-31T23:59:59.500000000"]}),),
    ),
    Case(
        "ltz_9",
        "CREATE TABLE {t} (id INT, ltz9 TIMESTAMP_LTZ(9)) WITH ('file.format' = 'parquet')",
        # DuckDB's TIMESTAMPTZ holds microseconds: an LTZ(9) instant is given as TIMESTAMP_NS in UTC
        (
            "INSERT INTO {t} VALUES (1, TIMESTAMP_NS '2024-01-01 12:00:00.123456789'), "
            "(2, TIMESTAMP_NS '1969-12-31 23:59:59.999999999')",
        ),
        "INSERT INTO {t} VALUES "
        "(3, CAST(TIMESTAMP '2024-01-01 12:00:00.000000001' AS TIMESTAMP_LTZ(9)))",
        2,
    ),
    Case(
        "all_null_row",
        "CREATE TABLE {t} (id INT, r ROW<a INT, b STRING>) WITH ('file.format' = 'parquet')",
        (
            "INSERT INTO {t} VALUES (1, {'a': NULL, 'b': NULL}), (2, NULL), "
            "(3, {'a': 1, 'b': NULL})",
        ),
        "INSERT INTO {t} VALUES (4, ROW(CAST(NULL AS INT), CAST(NULL AS STRING)))",
        3,
        meant=(
            (1, {"id": 1, "r": ["row", [None, None]]}),
            (2, {"id": 2, "r": None}),
            (4, {"id": 4, "r": ["row", [None, None]]}),
        ),
    ),
]


def _string_key_buckets() -> Case:
    """A composite STRING/DATE/DECIMAL key in 5 buckets: ``INSERT … VALUES`` hashes its few rows in
    Python (`write.bucket.python_buckets`), the 2,000-row INSERT in DuckDB (issue 18). Both must
    pick Java's buckets, or the later upserts (ours by VALUES of rows DuckDB placed, then Flink's)
    would leave a key twice.
    """
    key_rows = (
        (1, "a", "2020-02-29", "-1.50"),
        (2, "abcdefg", "1969-12-31", "0.00"),
        (3, "abcdefgh", "1900-01-01", "12345678901234.56"),
        (4, "ключ-unicode-€", "2024-06-01", "-0.01"),
        (5, "", "2000-01-01", "99.99"),
        (6, "a", "2020-02-29", "-1.49"),
        (7, "a-much-longer-key-of-forty-bytes-or-so!!", "2024-01-01", "1.00"),
        (8, "z", "1970-01-01", "-12345678901234.56"),
    )
    values = ", ".join(f"({i}, '{k}', DATE '{d}', {n}, 'x')" for i, k, d, n in key_rows)
    return Case(
        "pk_string_key_buckets",
        "CREATE TABLE {t} (id INT NOT NULL, k STRING NOT NULL, d DATE NOT NULL, "
        "n DECIMAL(20, 2) NOT NULL, v STRING, PRIMARY KEY (k, d, n) NOT ENFORCED) "
        "WITH ('bucket' = '5')",
        (
            "INSERT INTO {t} VALUES " + values,  # noqa: S608 - fixed test rows
            "INSERT INTO {t} SELECT 100 + i, 'r-' || i, DATE '2024-01-01' + i::INT, "
            "(i / 100)::DECIMAL(20, 2), 'range' FROM range(2000) r(i)",
            "INSERT INTO {t} VALUES (105, 'r-5', DATE '2024-01-06', 0.05, 'ours-upd'), "
            "(1600, 'r-1500', DATE '2028-02-09', 15.00, 'ours-upd')",
        ),
        "INSERT INTO {t} VALUES (3, 'abcdefgh', DATE '1900-01-01', 12345678901234.56, "
        "'flink-upd'), (105, 'r-5', DATE '2024-01-06', 0.05, 'flink-upd'), "
        "(9999, 'new-key-from-flink', DATE '2030-01-01', 1.00, 'flink')",
        2008,
        after=2009,
        meant=(
            (3, {"v": "flink-upd"}),
            (105, {"v": "flink-upd"}),
            (1600, {"v": "ours-upd"}),
            (9999, {"v": "flink"}),
        ),
    )


CASES.append(_string_key_buckets())


# --- issue 14 (oracle14): merge engines, sequence fields, compaction, schema evolution ---------

_PK = "CREATE TABLE {t} (%s, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1'%s)"
_AGG_FUNCTIONS = (
    ("s", "BIGINT", "sum"),
    ("mx", "INT", "max"),
    ("mn", "DOUBLE", "min"),
    ("lv", "STRING", "last_value"),
    ("lnn", "STRING", "last_non_null_value"),
    ("fv", "STRING", "first_value"),
    ("fnn", "STRING", "first_non_null_value"),
    ("la", "STRING", "listagg"),
    ("band", "BOOLEAN", "bool_and"),
    ("bor", "BOOLEAN", "bool_or"),
    ("prod", "BIGINT", "product"),
    ("c", "ARRAY<STRING>", "collect"),
    ("cd", "ARRAY<STRING>", "collect"),
    ("mm", "MAP<STRING, INT>", "merge_map"),
    ("nu", "ARRAY<ROW<k INT, v STRING>>", "nested_update"),
)
_AGG_DDL = _PK % (
    "id INT NOT NULL, " + ", ".join(f"{n} {t}" for n, t, _ in _AGG_FUNCTIONS),
    ", 'merge-engine' = 'aggregation', "
    + ", ".join(f"'fields.{n}.aggregate-function' = '{f}'" for n, _, f in _AGG_FUNCTIONS)
    + ", 'fields.cd.distinct' = 'true', 'fields.nu.nested-key' = 'k', "
    "'fields.nu.count-limit' = '2'",
)
_AGG_OURS = (
    "INSERT INTO {t} VALUES (1, 10, 5, 1.5, 'x', 'y', 'first', NULL, 'p', true, false, 2, "
    "['a', 'b'], ['a', 'b', 'a'], MAP {'k': 1}, [{'k': 1, 'v': 'a'}, {'k': 2, 'v': 'b'}]), "
    "(2, 1, 1, 1.0, 'one', 'one', 'one', 'one', 'one', true, true, 7, ['z'], ['z'], MAP {'z': 1}, "
    "[{'k': 9, 'v': 'z'}])",
    "INSERT INTO {t} VALUES (1, 5, 9, 0.5, NULL, NULL, NULL, 'fnn', 'q', false, false, 3, ['b'], "
    "['b', 'c'], MAP {'k': 2, 'j': 3}, [{'k': 2, 'v': 'b2'}])",
)
_AGG_FLINK = (
    "INSERT INTO {t} VALUES (1, CAST(1 AS BIGINT), 1, 9.5, 'z', CAST(NULL AS STRING), 'late', "
    "'late', 'r', TRUE, TRUE, CAST(4 AS BIGINT), ARRAY['c'], ARRAY['d'], MAP['j', 30], "
    "ARRAY[ROW(3, 'c')])"
)
#: key 1 after our two statements and Flink's: each function folded by hand
_AGG_MEANT = {
    "s": 16,
    "mx": 9,
    "mn": ["double", "0.5"],
    "lv": "z",
    "lnn": "y",
    "fv": "first",
    "fnn": "fnn",
    "la": "p,q,r",
    "band": False,
    "bor": True,
    "prod": 24,
    "c": ["array", ["a", "b", "b", "c"]],
    "mm": ["map", [["j", 30], ["k", 2]]],
}
_DV = ", 'deletion-vectors.enabled' = 'true'"

CASES += [
    Case(
        "sequence_field",
        _PK % ("id INT NOT NULL, v STRING, ver BIGINT", ", 'sequence.field' = 'ver'"),
        (
            "INSERT INTO {t} VALUES (1, 'new', 5), (2, 'b', 1), (3, 'c', NULL)",
            "INSERT INTO {t} VALUES (1, 'old', 3), (2, 'b2', 2), (3, 'c2', NULL)",
        ),
        "INSERT INTO {t} VALUES (1, 'flink-old', CAST(4 AS BIGINT)), (2, 'flink', 9)",
        3,
        after=3,
        meant=(
            (1, {"v": "new", "ver": 5}),
            (2, {"v": "flink", "ver": 9}),
            (3, {"v": "c2", "ver": None}),
        ),
    ),
    Case(
        "first_row",
        _PK % ("id INT NOT NULL, v STRING", ", 'merge-engine' = 'first-row'"),
        (
            "INSERT INTO {t} VALUES (1, 'first'), (2, 'b')",
            "INSERT INTO {t} VALUES (1, 'no'), (3, 'c')",
        ),
        "INSERT INTO {t} VALUES (1, 'flink'), (3, 'flink'), (4, 'd')",
        3,
        after=4,
        meant=((1, {"v": "first"}), (3, {"v": "c"}), (4, {"v": "d"})),
    ),
    Case(
        "partial_update",
        _PK % ("id INT NOT NULL, a STRING, b INT, c STRING", ", 'merge-engine' = 'partial-update'"),
        (
            "INSERT INTO {t} VALUES (1, 'a1', NULL, NULL), (2, 'only', 2, 'row')",
            "INSERT INTO {t} VALUES (1, NULL, 10, 'c1')",
        ),
        "INSERT INTO {t} VALUES (1, CAST(NULL AS STRING), CAST(NULL AS INT), 'flink')",
        2,
        after=2,
        meant=(
            (1, {"a": "a1", "b": 10, "c": "flink"}),
            (2, {"a": "only", "b": 2, "c": "row"}),
        ),
    ),
    Case(
        "partial_update_seq_groups",
        _PK
        % (
            "id INT NOT NULL, a STRING, b STRING, g1 INT, c STRING, g2 INT",
            ", 'merge-engine' = 'partial-update', 'fields.g1.sequence-group' = 'a,b', "
            "'fields.g2.sequence-group' = 'c'",
        ),
        (
            "INSERT INTO {t} VALUES (1, 'a1', 'b1', 1, 'c1', 1), (2, 'single', 'rec', 5, 'x', 7), "
            "(3, 'no', 'seq', NULL, 'n', NULL)",
            "INSERT INTO {t} VALUES (1, 'a2', NULL, 2, 'c0', 0)",
        ),
        "INSERT INTO {t} VALUES (1, 'a3', 'b3', 3, CAST(NULL AS STRING), CAST(NULL AS INT))",
        3,
        after=3,
        meant=(
            (1, {"a": "a3", "b": "b3", "g1": 3, "c": "c1", "g2": 1}),
            (2, {"a": "single", "b": "rec", "g1": 5, "c": "x", "g2": 7}),
            (3, {"a": "no", "b": "seq", "g1": None, "c": "n", "g2": None}),
        ),
    ),
    Case("aggregation", _AGG_DDL, _AGG_OURS, _AGG_FLINK, 2, after=2, meant=((1, _AGG_MEANT),)),
    Case(
        "aggregation_compacted",
        _AGG_DDL,
        (*_AGG_OURS, "CALL sys.compact(table => 'db.aggregation_compacted')"),
        (_AGG_FLINK, "CALL sys.compact(`table` => 'db.aggregation_compacted')"),
        2,
        after=2,
        meant=((1, _AGG_MEANT),),
        kinds=("APPEND", "APPEND", "COMPACT", "APPEND", "COMPACT"),
    ),
    Case(
        "aggregation_rowkind",
        _PK
        % (
            "id INT NOT NULL, op STRING, s BIGINT, c ARRAY<STRING>",
            ", 'merge-engine' = 'aggregation', 'rowkind.field' = 'op', "
            "'fields.s.aggregate-function' = 'sum', 'fields.c.aggregate-function' = 'collect'",
        ),
        (
            "INSERT INTO {t} VALUES (1, '+I', 10, ['a', 'b']), (2, '+I', 1, ['x'])",
            "INSERT INTO {t} VALUES (1, '-U', 3, ['a']), (2, '-D', 1, ['x'])",
        ),
        "INSERT INTO {t} VALUES (1, '+U', CAST(4 AS BIGINT), ARRAY['c'])",
        2,
        after=2,
        meant=((1, {"s": 11, "c": ["array", ["b", "c"]]}),),
    ),
    Case(
        "pk_compacted",
        (_PK % ("id INT NOT NULL, v STRING", "")).replace("'1'", "'2'", 1),
        (
            "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            "INSERT INTO {t} VALUES (2, 'b2'), (4, 'd')",
            "DELETE FROM {t} WHERE id = 1",
            "CALL sys.compact(table => 'db.pk_compacted')",
            "INSERT INTO {t} VALUES (5, 'e')",
        ),
        ("INSERT INTO {t} VALUES (3, 'flink')", "CALL sys.compact(`table` => 'db.pk_compacted')"),
        4,
        after=4,
        meant=((2, {"v": "b2"}), (3, {"v": "flink"})),
        kinds=("APPEND", "APPEND", "APPEND", "COMPACT", "APPEND", "APPEND", "COMPACT"),
    ),
    Case(
        "dv_compacted",
        _PK % ("id INT NOT NULL, v STRING", _DV),
        (
            "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            "INSERT INTO {t} VALUES (2, 'b2'), (4, 'd')",
            "CALL sys.compact(table => 'db.dv_compacted')",
            "DELETE FROM {t} WHERE id = 3",
        ),
        ("INSERT INTO {t} VALUES (1, 'flink')", "CALL sys.compact(`table` => 'db.dv_compacted')"),
        3,
        after=3,
        meant=((1, {"v": "flink"}), (2, {"v": "b2"})),
    ),
    Case(
        "dv_bitmap64",
        _PK % ("id INT NOT NULL, v STRING", _DV + ", 'deletion-vectors.bitmap64' = 'true'"),
        (
            "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            "INSERT INTO {t} VALUES (2, 'b2'), (4, 'd')",
            "DELETE FROM {t} WHERE id = 3",
        ),
        ("INSERT INTO {t} VALUES (1, 'flink')", "CALL sys.compact(`table` => 'db.dv_bitmap64')"),
        3,
        after=3,
        meant=((1, {"v": "flink"}), (2, {"v": "b2"})),
    ),
    # append tables with deletion vectors: DELETE/UPDATE mark rows (OVERWRITE snapshots, as
    # Java 1.x's Spark writer commits them); the second DELETE hits a file that has a vector
    # already, and one whose index file holds another file's vector (kept, rewritten)
    Case(
        "append_dv_unaware",
        "CREATE TABLE {t} (id INT, v STRING, dt STRING) PARTITIONED BY (dt) "
        "WITH ('deletion-vectors.enabled' = 'true')",
        (
            "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y'), (4, 'd', 'x')",
            "INSERT INTO {t} VALUES (5, 'e', 'x'), (6, 'f', 'y')",
            "DELETE FROM {t} WHERE id IN (2, 5)",
            "UPDATE {t} SET v = 'u' WHERE id IN (3, 4)",
            "DELETE FROM {t} WHERE id = 1",
            "MERGE INTO {t} AS t USING (SELECT * FROM (VALUES (6, 'mm'), (8, 'h')) v(id, v)) AS s "
            "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v "
            "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, 'y')",
        ),
        (
            "INSERT INTO {t} VALUES (7, 'flink', 'x')",
            "CALL sys.compact(`table` => 'db.append_dv_unaware')",
        ),
        4,
        after=5,
        meant=((3, {"v": "u"}), (4, {"v": "u", "dt": "x"}), (6, {"v": "mm"}), (8, {"dt": "y"})),
        kinds=(
            *("APPEND", "APPEND", "OVERWRITE", "OVERWRITE", "OVERWRITE", "OVERWRITE"),
            *("APPEND", "COMPACT"),
        ),
    ),
    Case(
        "append_dv_bucketed",
        "CREATE TABLE {t} (id INT, v STRING) "
        "WITH ('bucket' = '2', 'bucket-key' = 'id', 'deletion-vectors.enabled' = 'true')",
        (
            "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')",
            "INSERT INTO {t} VALUES (5, 'e'), (6, 'f')",
            "DELETE FROM {t} WHERE id IN (2, 5)",
            "UPDATE {t} SET v = 'u' WHERE id IN (3, 4)",
            "DELETE FROM {t} WHERE id = 1",
            "MERGE INTO {t} AS t USING (SELECT * FROM (VALUES (6, 'mm'), (8, 'h')) v(id, v)) AS s "
            "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v "
            "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)",
        ),
        (
            "INSERT INTO {t} VALUES (7, 'flink')",
            "CALL sys.compact(`table` => 'db.append_dv_bucketed')",
        ),
        4,
        after=5,
        meant=((3, {"v": "u"}), (4, {"v": "u"}), (6, {"v": "mm"}), (8, {"v": "h"})),
        kinds=(
            *("APPEND", "APPEND", "OVERWRITE", "OVERWRITE", "OVERWRITE", "OVERWRITE"),
            *("APPEND", "COMPACT"),
        ),
    ),
    Case(
        "append_compacted",
        "CREATE TABLE {t} (id INT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id')",
        (
            "INSERT INTO {t} VALUES (1, 'a'), (2, 'b')",
            "INSERT INTO {t} VALUES (3, 'c'), (1, 'a')",
            "CALL sys.compact(table => 'db.append_compacted')",
        ),
        (
            "INSERT INTO {t} VALUES (5, 'flink')",
            "CALL sys.compact(`table` => 'db.append_compacted')",
        ),
        4,
    ),
    Case(
        "path_directory",
        "CREATE TABLE {t} (id INT, dt STRING, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '2', 'data-file.path-directory' = 'data', "
        "'changelog-producer' = 'lookup', 'deletion-vectors.enabled' = 'true')",
        (
            "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'a', 'z')",
            "INSERT INTO {t} VALUES (1, 'a', 'x2')",
            "DELETE FROM {t} WHERE id = 3",
            "CALL sys.compact(table => 'db.path_directory')",
        ),
        (
            "INSERT INTO {t} VALUES (4, 'b', 'flink'), (2, 'b', 'flink-upsert')",
            "CALL sys.compact(`table` => 'db.path_directory')",
        ),
        2,
        after=3,
        meant=((1, {"v": "x2"}), (2, {"v": "flink-upsert"})),
    ),
    Case(
        "schema_evolution",
        _PK % ("id INT NOT NULL, v INT, s STRING, gone INT", ""),
        (
            "INSERT INTO {t} VALUES (1, 1, 'a', 1), (2, 2, 'b', 2)",
            "ALTER TABLE {t} ADD extra STRING",
            "INSERT INTO {t} VALUES (3, 3, 'c', 3, 'e3')",
            "ALTER TABLE {t} MODIFY v BIGINT",
            "ALTER TABLE {t} RENAME s TO s2",
            "ALTER TABLE {t} DROP gone",
            "INSERT INTO {t} VALUES (1, 10000000000, 'a2', 'e1')",
        ),
        "INSERT INTO {t} VALUES (4, CAST(4 AS BIGINT), 'flink', 'e4'), (2, 20, 'b2', 'e2')",
        3,
        after=4,
        meant=(
            (1, {"v": 10000000000, "s2": "a2", "extra": "e1"}),
            (2, {"v": 20, "s2": "b2", "extra": "e2"}),
            (3, {"v": 3, "s2": "c", "extra": "e3"}),
        ),
    ),
    Case(
        "time_avro_snappy",
        "CREATE TABLE {t} (id INT, t0 TIME, t3 TIME(3), s STRING) "
        "WITH ('file.format' = 'avro', 'file.compression' = 'snappy')",
        (
            "INSERT INTO {t} VALUES (1, TIME '12:34:56', TIME '23:59:59.999', 'a'), "
            "(2, NULL, NULL, NULL)",
        ),
        "INSERT INTO {t} VALUES (3, TIME '00:00:01', TIME '00:00:00.001', 'flink')",
        2,
        meant=((1, {"t0": ["time", "12:34:56.000000000"], "t3": ["time", "23:59:59.999000000"]}),),
    ),
    Case(
        "time_parquet",
        "CREATE TABLE {t} (id INT, t0 TIME, t3 TIME(3)) WITH ('file.format' = 'parquet')",
        ("INSERT INTO {t} VALUES (1, TIME '12:34:56', TIME '23:59:59.999'), (2, NULL, NULL)",),
        "INSERT INTO {t} VALUES (3, TIME '00:00:01', TIME '00:00:00.001')",
        2,
        meant=((1, {"t0": ["time", "12:34:56.000000000"], "t3": ["time", "23:59:59.999000000"]}),),
    ),
    Case(
        # our ALTER widens only (Java's other cast rules are refused by name: SchemaError)
        "widen_evolution",
        "CREATE TABLE {t} (id INT, f FLOAT, d DECIMAL(10, 2), v VARCHAR(5), s SMALLINT, "
        "b TINYINT) WITH ('file.format' = 'orc')",
        (
            "INSERT INTO {t} VALUES (1, 1.5, -12.75, 'abc', -3, 7), (2, NULL, 0.01, '', 300, -8)",
            "ALTER TABLE {t} MODIFY f DOUBLE",
            "ALTER TABLE {t} MODIFY d DECIMAL(12, 2)",
            "ALTER TABLE {t} MODIFY v VARCHAR(10)",
            "ALTER TABLE {t} MODIFY s INT",
            "ALTER TABLE {t} MODIFY b BIGINT",
            "INSERT INTO {t} VALUES (3, 1e300, 1234567890.12, 'abcdefghij', 100000, 5000000000)",
        ),
        "INSERT INTO {t} VALUES (4, 2.5, 1.25, 'flink', 7, CAST(8 AS BIGINT))",
        3,
        meant=((1, {"f": ["double", "1.5"], "d": ["decimal", "-12.75"], "s": -3, "b": 7}),),
    ),
    Case(
        "time_orc",
        "CREATE TABLE {t} (id INT, t0 TIME, t3 TIME(3)) WITH ('file.format' = 'orc')",
        ("INSERT INTO {t} VALUES (1, TIME '12:34:56', TIME '23:59:59.999'), (2, NULL, NULL)",),
        "INSERT INTO {t} VALUES (3, TIME '00:00:01', TIME '00:00:00.001')",
        2,
        meant=((1, {"t0": ["time", "12:34:56.000000000"], "t3": ["time", "23:59:59.999000000"]}),),
    ),
    _many_commits(),
]

_OURS = (AssertionError, paimon_sql.errors.PaimonSqlError, duckdb.Error)


def _params() -> list[Any]:
    return [
        pytest.param(
            c,
            id=c.name,
            # raises=: paimon-sql refusing (PaimonSqlError, DuckDB's error) or a mismatch, never
            # a Flink failure (FlinkError is a RuntimeError)
            marks=[pytest.mark.xfail(reason=c.xfail, strict=True, raises=c.raises or _OURS)]
            if c.xfail
            else [],
        )
        for c in CASES
    ]


def _ours(session: paimon_sql.Session, name: str, snapshot: int | None = None):
    """paimon-sql's read; a snapshot in Flink's spelling (``scan.snapshot-id``, which reads an
    old snapshot in the table's latest schema, as Flink does)."""
    query = exp.select("*").from_(exp.table_(name, db="db", quoted=True)).sql("duckdb")
    if snapshot is not None:
        query += f" /*+ OPTIONS('scan.snapshot-id' = '{int(snapshot)}') */"
    return arrow_rows(session.sql(query).to_arrow_table())


def _snapshots(warehouse: Path, name: str) -> list[int]:
    folder = warehouse / "db.db" / name / "snapshot"
    return sorted(int(p.name.split("-")[1]) for p in folder.glob("snapshot-*"))


@pytest.mark.parametrize("case", _params())
def test_flink_reads_and_extends_what_we_wrote(flink: FlinkOracle, tmp_path: Path, case: Case):
    warehouse = tmp_path / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    try:
        qualified = f'"db"."{case.name}"'
        session.sql("CREATE DATABASE IF NOT EXISTS db")
        session.sql(case.ddl.replace("{t}", qualified))
        for statement in case.ours:
            session.sql(statement.replace("{t}", qualified))
        ours_latest = _ours(session, case.name)
        assert len(ours_latest[1]) == case.rows, f"paimon-sql reads {len(ours_latest[1])} rows"
        ours_by_snapshot = {
            s: _ours(session, case.name, s) for s in _snapshots(warehouse, case.name)
        }
    finally:
        session.close()

    # 1. Flink reads every snapshot we committed exactly as we do.
    for snapshot, (columns, rows) in ours_by_snapshot.items():
        flink_columns, flink_rows = flink.read(warehouse, case.name, snapshot=snapshot)
        assert flink_columns == columns
        assert_same_rows(
            flink_rows, rows, context=f"{case.name} snapshot {snapshot} (Flink vs paimon-sql)"
        )

    # 2. Flink commits on top; 3. both read the result alike.
    steps = (case.flink,) if isinstance(case.flink, str) else case.flink
    flink.run(warehouse, *(s.replace("{t}", f"`{case.name}`") for s in steps))
    session = paimon_sql.connect(warehouse)
    try:
        columns, rows = _ours(session, case.name)
    finally:
        session.close()
    flink_columns, flink_rows = flink.read(warehouse, case.name)
    assert flink_columns == columns
    assert_same_rows(
        rows, flink_rows, context=f"{case.name} after Flink's INSERT (paimon-sql vs Flink)"
    )
    after = case.rows + 1 if case.after is None else case.after
    assert len(rows) == after, f"{len(rows)} rows after Flink's INSERT, expected {after}"
    by_id = {r["id"]: r for r in rows}
    for key, row in case.meant:
        got = {c: by_id[key].get(c) for c in row} if key in by_id else None
        assert got == row, f"row {key}: read {by_id.get(key)}, the statements meant {row}"
    if case.kinds is not None:
        _, snaps = flink.query(
            warehouse,
            f"SELECT commit_kind FROM `{case.name}$snapshots` ORDER BY snapshot_id",  # noqa: S608
        )
        assert tuple(r["commit_kind"] for r in snaps) == case.kinds


def _avro_schema(folder: Path) -> Any:
    import fastavro

    (path,) = sorted(folder.glob("bucket-0/data-*.avro"))
    with path.open("rb") as fh:
        reader = fastavro.reader(fh)
        return reader.writer_schema, reader.codec


def test_our_avro_data_files_are_laid_out_like_java_13(flink: FlinkOracle, tmp_path: Path):
    """The Avro schema of a data file we write equals the one Java 1.3 writes for the same table:
    a plain top-level record (not 0.9's ["null", record]), the same names, nullability, codec."""
    ddl = (
        "CREATE TABLE {t} (id INT, s STRING, r ROW<a INT, b STRING>, arr ARRAY<BIGINT>, "
        "m MAP<STRING, DOUBLE>) WITH ('file.format' = 'avro')"
    )
    warehouse = tmp_path / "warehouse"
    flink.run(
        warehouse,
        ddl.replace("{t}", "java_t"),
        "INSERT INTO java_t VALUES (1, 'a', ROW(1, 'b'), ARRAY[CAST(2 AS BIGINT)], MAP['k', 1.5])",
    )
    session = paimon_sql.connect(warehouse)
    try:
        session.sql(ddl.replace("{t}", '"db"."our_t"'))
        session.sql(
            """INSERT INTO "db"."our_t" VALUES (1, 'a', {'a': 1, 'b': 'b'}, [2], MAP {'k': 1.5})"""
        )
    finally:
        session.close()
    ours = _avro_schema(warehouse / "db.db" / "our_t")
    java = _avro_schema(warehouse / "db.db" / "java_t")
    assert ours == java


# --- cross-partition primary keys: keys move between partitions, both writers in turn -----------


def _our_sql(warehouse: Path, statement: str, *, create: bool = False) -> None:
    session = paimon_sql.connect(warehouse, create=create)
    try:
        session.sql(statement)
    finally:
        session.close()


@pytest.mark.parametrize(
    ("engine", "creator"),
    [
        ("deduplicate", "ours"),
        ("deduplicate", "java"),
        ("partial-update", "java"),
        ("aggregation", "ours"),
        ("first-row", "java"),
    ],
)
def test_cross_partition_keys_move_between_partitions(
    flink: FlinkOracle, tmp_path: Path, engine: str, creator: str
):
    """A cross-partition primary-key table (bucket -1, key without the partition column) written
    in turn by Flink (Paimon 1.3.1) and paimon-sql: after every statement both read the rows of
    the dict model of Java's rules (`tests.interop.cross_partition`), so each writer's key index
    is bootstrapped from the other's files."""
    warehouse = tmp_path / "warehouse"
    name = f"cross_{engine.replace('-', '_')}"
    ours_t, flink_t = f'"db"."{name}"', f"`{name}`"
    _our_sql(warehouse, "CREATE DATABASE IF NOT EXISTS db", create=True)
    if creator == "ours":
        _our_sql(warehouse, cross.ddl(engine).replace("{t}", ours_t))
    else:
        flink.run(warehouse, cross.ddl(engine).replace("{t}", flink_t))
    done: list[Any] = []
    for who, step in cross.STEPS:
        if not cross.applies(engine, step):
            continue
        if (creator if who == "creator" else who) == "java":
            flink.run(warehouse, cross.statement(step, flink_t, typed_null=True))
        else:
            _our_sql(warehouse, cross.statement(step, ours_t))
        done.append(step)
        expected = cross.model(engine, done)
        session = paimon_sql.connect(warehouse)
        try:
            _, ours = _ours(session, name)
        finally:
            session.close()
        _, java = flink.read(warehouse, name)
        context = f"{engine} after {who}: {step}"
        assert_same_rows(ours, expected, context=f"{context} (paimon-sql vs model)")
        assert_same_rows(java, expected, context=f"{context} (Flink vs model)")


@pytest.mark.parametrize(
    "overwrite",
    [
        "INSERT OVERWRITE {t} VALUES (1, 'b', 11, 'moved'), (9, 'c', 90, 'new')",
        "INSERT OVERWRITE {t} PARTITION (dt = 'c') SELECT 2, 21, 'moved'",
    ],
    ids=["dynamic", "static"],
)
def test_cross_partition_overwrite_like_flink(flink: FlinkOracle, tmp_path: Path, overwrite: str):
    """INSERT OVERWRITE of a cross-partition table that moves keys: paimon-sql's twin ends with
    the rows Flink's twin does (a moved key's retraction lands in its old partition, which a
    dynamic overwrite then replaces too, as Java's commit does)."""
    warehouse = tmp_path / "warehouse"
    _our_sql(warehouse, "CREATE DATABASE IF NOT EXISTS db", create=True)
    first = cross.statement(cross.STEPS[0][1], "{t}", typed_null=True)
    for name in ("java_t", "our_t"):
        t = f"`{name}`"
        flink.run(warehouse, cross.ddl("deduplicate").replace("{t}", t), first.replace("{t}", t))
    flink.run(warehouse, overwrite.replace("{t}", "`java_t`"))
    _our_sql(warehouse, overwrite.replace("{t}", '"db"."our_t"'))
    session = paimon_sql.connect(warehouse)
    try:
        _, ours = _ours(session, "our_t")
    finally:
        session.close()
    _, java = flink.read(warehouse, "java_t")
    assert_same_rows(ours, java, context=f"{overwrite} (paimon-sql vs Flink)")
    _, java_reads_ours = flink.read(warehouse, "our_t")
    assert_same_rows(java_reads_ours, java, context="Flink reads our table")
