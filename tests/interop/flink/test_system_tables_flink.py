"""System tables: paimon-sql's ``"db"."t$x"`` against Apache Paimon 1.3.1's own, through Flink.

For every per-table system table both have (`COMPARED`), on representative Flink-written corpus
tables (`CORPUS_TABLES`) and on a small table of this test's own with a tag, a branch and a
consumer, the same ``SELECT *`` runs in Flink and in paimon-sql: column names, then each common
column's values (multisets), then whole rows over the columns that agree. ``files``,
``manifests``, ``audit_log`` and ``ro`` are also read at the oldest snapshot and at a tag, in
Flink's spelling (``/*+ OPTIONS('scan.snapshot-id' = …) */``, ``'scan.tag-name'``). Flink is the
only source of truth: nothing here states an expected value.

paimon-sql's system tables have Paimon 0.9's layout (compared with Spark 0.9 in
tests/interop/test_system_tables_spark.py); where 1.3 changed it the difference is listed in
`KNOWN_DIFFERENCES`, keyed by (table or ``*``, system table, column). The list is strict: an entry
no comparison finds any more fails `test_known_differences_still_differ`.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

import pytest

import paimon_sql
from tests.interop.flink.harness import FlinkError, arrow_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

#: Per-table system tables of Paimon 1.3 that paimon-sql has too (1.3 also has file_indexes,
#: file_key_ranges, binlog and row_tracking, which paimon-sql has not).
COMPARED = (
    "snapshots",
    "schemas",
    "options",
    "tags",
    "branches",
    "consumers",
    "files",
    "manifests",
    "partitions",
    "buckets",
    "aggregation_fields",
    "audit_log",
    "ro",
    "table_indexes",
)
PER_SNAPSHOT = ("files", "manifests", "audit_log", "ro")
#: System tables empty on most tables: compared only on the tables that fill them (the CI budget).
SPARSE = {
    "consumers": ("own",),
    "branches": ("own",),
    "table_indexes": ("pk_dv", "own"),
    "aggregation_fields": ("agg_basic", "own"),
}

CORPUS_TABLES = {
    "pk_fixed": "primary key, 2 buckets, a tag, DELETE/UPDATE, compaction",
    "append_unaware": "append, partitioned with a NULL partition, a tag, INSERT OVERWRITE",
    "pk_dv": "deletion vectors (index manifests, $table_indexes)",
    "agg_basic": "aggregation ($aggregation_fields)",
    "schema_evolution": "schema changes ($schemas, stats over old schemas)",
}

_ZERO_OR_ONE = "1.3 renders a partition as {v1, v2} (an unpartitioned table as {}); paimon-sql as "
_ZERO_OR_ONE += "Paimon 0.9 does, [v1, v2]"
_OLD_SCHEMA = (
    "Flink's scan.snapshot-id on $ro reads an older snapshot in the latest schema (as on the table "
    "itself, which paimon-sql follows); paimon-sql's system tables read it in the snapshot's schema"
)
#: (table or "*", system table, column) -> why paimon-sql differs from Paimon 1.3.
#: ``+col``: a column only Flink has; ``<rows>``: rows differ over the columns that agree.
KNOWN_DIFFERENCES: dict[tuple[str, str, str], str] = {
    ("*", "files", "+deleteRowCount"): "a 1.x column ($files keeps 0.9's 16 columns)",
    ("*", "files", "+file_source"): "a 1.x column ($files keeps 0.9's 16 columns)",
    ("*", "manifests", "+min_partition_stats"): "a 1.x column ($manifests keeps 0.9's 5)",
    ("*", "manifests", "+max_partition_stats"): "a 1.x column ($manifests keeps 0.9's 5)",
    ("*", "branches", "-created_from_tag"): "0.9's column, gone in 1.x",
    ("*", "branches", "-created_from_snapshot"): "0.9's column, gone in 1.x",
    ("*", "partitions", "partition"): _ZERO_OR_ONE,
    ("*", "files", "partition"): _ZERO_OR_ONE,
    ("*", "files", "file_path"): (
        "1.3 gives the file's full URI (file:/…/bucket-0/data-….parquet); paimon-sql the file "
        "name, as Paimon 0.9"
    ),
    ("pk_dv", "files", "<row count>"): (
        "1.3's $files of a deletion-vector table lists level-0 files (snapshot 1 has only one); "
        "Paimon 0.9's, and paimon-sql's, plan it as the DV read does, without level 0"
    ),
    ("schema_evolution", "audit_log", "<flink error>"): (
        "Flink fails on $audit_log of a snapshot of an older schema (Failed to fetch next result); "
        "paimon-sql reads it in the snapshot's schema"
    ),
    ("schema_evolution", "ro", "+s2"): _OLD_SCHEMA,
    ("schema_evolution", "ro", "+extra"): _OLD_SCHEMA,
    ("schema_evolution", "ro", "-s"): _OLD_SCHEMA,
    ("*", "buckets", "partition"): _ZERO_OR_ONE,
    ("pk_dv", "ro", "<row count>"): (
        "1.3's $ro of a deletion-vector (and first-row) table reads the top level only; Paimon "
        "0.9 replaced that filter by the DV scan's level > 0 (compared in "
        "test_system_tables_spark.py), which paimon-sql keeps"
    ),
}


def _canonical(rows: list[dict[str, Any]], columns: list[str]) -> Counter[str]:
    return Counter(json.dumps([r[c] for c in columns], sort_keys=True) for r in rows)


def compare(flink_answer: Any, ours: Any) -> dict[str, str]:
    """Per column what differs; pseudo-columns ``+col`` / ``-col`` (only Flink's / only ours),
    ``<flink error>``, ``<error>``, ``<row count>``, ``<rows>``."""
    if isinstance(flink_answer, Exception):
        return {"<flink error>": str(flink_answer).splitlines()[1][:300]}
    if isinstance(ours, Exception):
        return {"<error>": f"{type(ours).__name__}: {ours}"[:300]}
    (f_cols, f_rows), (o_cols, o_rows) = flink_answer, ours
    diffs = {f"+{c}": "only Flink has it" for c in f_cols if c not in o_cols}
    diffs.update({f"-{c}": "only paimon-sql has it" for c in o_cols if c not in f_cols})
    if len(f_rows) != len(o_rows):
        diffs["<row count>"] = f"{len(o_rows)} rows, Flink {len(f_rows)}"
        return diffs
    common = [c for c in f_cols if c in o_cols]
    for column in common:
        got, want = _canonical(o_rows, [column]), _canonical(f_rows, [column])
        if got != want:
            diffs[column] = (
                f"Flink has {list((want - got).elements())[:3]}, "
                f"we have {list((got - want).elements())[:3]}"
            )
    same = [c for c in common if c not in diffs]
    if _canonical(o_rows, same) != _canonical(f_rows, same):
        diffs["<rows>"] = "rows differ over the columns that agree"
    return diffs


def _queries(warehouse: Path, table: str) -> list[tuple[str, str, str, str]]:
    """(label, system table, Flink SQL, paimon-sql SQL) for one table."""
    out = [
        (name, name, f"SELECT * FROM `{table}${name}`", f'SELECT * FROM "db"."{table}${name}"')  # noqa: S608
        for name in COMPARED
        if name not in SPARSE or table in SPARSE[name]
    ]
    root = warehouse / "db.db" / table
    snapshots = sorted(int(p.name.split("-")[1]) for p in (root / "snapshot").glob("snapshot-*"))
    tags = sorted(p.name[4:] for p in (root / "tag").glob("tag-*"))
    hints = [f"/*+ OPTIONS('scan.snapshot-id' = '{snapshots[0]}') */"]
    hints += [f"/*+ OPTIONS('scan.tag-name' = '{t}') */" for t in tags[:1]]
    for hint in hints:
        for name in PER_SNAPSHOT:
            out.append(
                (
                    f"{name} {hint}",
                    name,
                    f"SELECT * FROM `{table}${name}` {hint}",  # noqa: S608
                    f'SELECT * FROM "db"."{table}${name}" {hint}',  # noqa: S608
                )
            )
    return out


def _run(flink: FlinkOracle, warehouse: Path, tables: list[str]) -> dict[tuple[str, str, str], str]:
    found: dict[tuple[str, str, str], str] = {}
    session = paimon_sql.connect(warehouse)
    try:
        for table in tables:
            for label, name, flink_sql, our_sql in _queries(warehouse, table):
                try:
                    answer: Any = flink.query(warehouse, flink_sql)
                except FlinkError as err:
                    answer = err
                try:
                    ours: Any = arrow_rows(session.sql(our_sql).to_arrow_table())
                except Exception as err:  # noqa: BLE001 - our failure is a difference to report
                    ours = err
                for column, text in compare(answer, ours).items():
                    found.setdefault((table, name, column), f"{table} {label}: {column}: {text}")
    finally:
        session.close()
    return found


def _known(key: tuple[str, str, str]) -> bool:
    return key in KNOWN_DIFFERENCES or ("*", key[1], key[2]) in KNOWN_DIFFERENCES


#: A table of this test's own for what the corpus lacks: a branch (from a tag) and a consumer.
_OWN = (
    "CREATE TABLE own (id INT, v STRING, p STRING, PRIMARY KEY (p, id) NOT ENFORCED) "
    "PARTITIONED BY (p) WITH ('bucket' = '1')",
    "INSERT INTO own VALUES (1, 'a', 'x'), (2, CAST(NULL AS STRING), 'y')",
    "CALL sys.create_tag(`table` => 'db.own', tag => 'first')",
    "INSERT INTO own VALUES (1, 'a2', 'x'), (3, 'c', 'x')",
    "CALL sys.create_branch(`table` => 'db.own', branch => 'from_tag', tag => 'first')",
    "CALL sys.reset_consumer(`table` => 'db.own', consumer_id => 'c1', "
    "next_snapshot_id => CAST(2 AS BIGINT))",
)


@pytest.fixture(scope="module")
def own(flink: FlinkOracle, tmp_path_factory) -> Path:
    """The warehouse of the own table, written by Flink."""
    warehouse: Path = tmp_path_factory.mktemp("systables13") / "warehouse"
    flink.run(warehouse, *_OWN)
    return warehouse


@pytest.fixture(scope="module")
def found(flink: FlinkOracle, flink_corpus, own) -> dict[tuple[str, str, str], str]:
    """Every difference of every compared query (corpus tables and the own table)."""
    out = _run(flink, flink_corpus.warehouse, list(CORPUS_TABLES))
    out.update(_run(flink, own, ["own"]))
    return out


@pytest.mark.parametrize("table", [*CORPUS_TABLES, "own"])
def test_system_tables_like_flink(found, table):
    failures = [text for key, text in found.items() if key[0] == table and not _known(key)]
    if failures:
        pytest.fail(f"db.{table}:\n" + "\n".join(failures), pytrace=False)


def test_known_differences_still_differ(found):
    """Strict: every listed difference is still found (else remove it)."""
    seen = {("*", name, column) for _, name, column in found} | set(found)
    stale = [key for key in KNOWN_DIFFERENCES if key not in seen]
    assert not stale, f"no longer differ, remove from KNOWN_DIFFERENCES: {stale}"


def test_own_table_has_what_it_is_for(flink: FlinkOracle, own):
    """The own table's branch and consumer exist in Flink's answers (so they were compared)."""
    assert len(flink.query(own, "SELECT * FROM `own$branches`")[1]) == 1
    assert flink.query(own, "SELECT * FROM `own$consumers`")[1] == [
        {"consumer_id": "c1", "next_snapshot_id": 2}
    ]
