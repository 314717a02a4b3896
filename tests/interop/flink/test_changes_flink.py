"""Change data against Apache Paimon 1.3.1 (Flink): changelog files and incremental reads.

Each case is a twin: the same table created and written by paimon-sql (``ours``) and by Flink
(``java_t``) with the same statements. Then:

1. Flink reads OUR changelog (``incremental-between`` over every snapshot, in the scan modes the
   table has) and gets exactly what it reads from ITS OWN twin: the changelog files we write hold
   what Java's hold, row kinds included;
2. paimon-sql's incremental reads of Flink's twin (``t$audit_log`` with the same hint) equal
   Flink's reads of it, mode by mode;
3. Flink's incremental reads of our twin equal ours.

Expected rows are never written down: they are Flink's reads.
"""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

import paimon_sql
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]


@dataclass(frozen=True)
class Twin:
    name: str
    options: str
    statements: tuple[str, ...]  # {t}: the table (both dialects read these the same)
    modes: tuple[str, ...] = ("auto", "delta", "changelog", "diff")


_DDL = (
    "CREATE TABLE {t} (id INT NOT NULL, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
    "WITH ('bucket' = '1'{options})"
)
_UPSERTS = (
    "INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 2), (4, 'd', 4)",
    "INSERT INTO {t} VALUES (2, 'B', 20), (3, 'c', 3)",
)
_DML = (*_UPSERTS, "DELETE FROM {t} WHERE id = 1", "UPDATE {t} SET v = 'cc' WHERE id = 3")

_BASE = "INSERT INTO {t} VALUES " + ", ".join(f"({i}, 'b{i}', {i})" for i in range(0, 3000, 2))  # noqa: S608
_BASE_UPSERTS = (
    "INSERT INTO {t} VALUES (10, 'u1', 1), (700, 'u1', 1), (3001, 'new1', 1)",
    "INSERT INTO {t} VALUES (10, 'u2', 2), (1500, 'u2', 2), (11, 'new2', 2)",
    "INSERT INTO {t} VALUES (11, 'u3', 3), (2998, 'u3', 3), (0, 'u3', 3)",
)

TWINS = [
    Twin("input_dedup", ", 'changelog-producer' = 'input'", _DML),
    Twin(
        "input_partial",
        ", 'changelog-producer' = 'input', 'merge-engine' = 'partial-update'",
        (
            "INSERT INTO {t} VALUES (1, 'a', CAST(NULL AS BIGINT)), (2, 'b', 2)",
            "INSERT INTO {t} VALUES (1, CAST(NULL AS STRING), 10), (3, 'c', 3)",
        ),
    ),
    Twin(
        "input_agg",
        ", 'changelog-producer' = 'input', 'merge-engine' = 'aggregation', "
        "'fields.n.aggregate-function' = 'sum'",
        _UPSERTS,
    ),
    Twin("lookup_dedup", ", 'changelog-producer' = 'lookup'", _DML),
    Twin(
        "lookup_dedup_rowdedup",
        ", 'changelog-producer' = 'lookup', 'changelog-producer.row-deduplicate' = 'true'",
        (*_DML, "INSERT INTO {t} VALUES (2, 'B', 20)"),
    ),
    Twin(
        "lookup_dv", ", 'changelog-producer' = 'lookup', 'deletion-vectors.enabled' = 'true'", _DML
    ),
    Twin(
        "lookup_partial",
        ", 'changelog-producer' = 'lookup', 'merge-engine' = 'partial-update'",
        (
            "INSERT INTO {t} VALUES (1, 'a', CAST(NULL AS BIGINT)), (2, 'b', 2)",
            "INSERT INTO {t} VALUES (1, CAST(NULL AS STRING), 10), (3, 'c', 3)",
        ),
    ),
    Twin(
        "lookup_agg",
        ", 'changelog-producer' = 'lookup', 'merge-engine' = 'aggregation', "
        "'fields.n.aggregate-function' = 'sum'",
        _UPSERTS,
    ),
    # remove-record-on-delete: the lookup compaction of the DELETE writes the key's -D (it was
    # left out, and the kept file's older row showed again)
    Twin(
        "lookup_partial_remove_on_delete",
        ", 'changelog-producer' = 'lookup', 'merge-engine' = 'partial-update', "
        "'partial-update.remove-record-on-delete' = 'true'",
        _DML,
    ),
    Twin(
        "lookup_agg_remove_on_delete",
        ", 'changelog-producer' = 'lookup', 'merge-engine' = 'aggregation', "
        "'fields.n.aggregate-function' = 'sum', 'aggregation.remove-record-on-delete' = 'true'",
        (*_UPSERTS, "DELETE FROM {t} WHERE id = 1", "INSERT INTO {t} VALUES (3, 'c', 5)"),
    ),
    Twin(
        "lookup_first",
        ", 'changelog-producer' = 'lookup', 'merge-engine' = 'first-row'",
        (*_UPSERTS, "INSERT INTO {t} VALUES (5, 'e', 5), (1, 'z', 9)"),
    ),
    # a base large enough that the later writes are compacted by a lookup over the kept base
    # file, not fully
    Twin(
        "lookup_first_large_base",
        ", 'changelog-producer' = 'lookup', 'merge-engine' = 'first-row'",
        (_BASE, *_BASE_UPSERTS),
    ),
    Twin(
        "lookup_dv_large_base",
        ", 'changelog-producer' = 'lookup', 'deletion-vectors.enabled' = 'true'",
        (_BASE, *_BASE_UPSERTS, "DELETE FROM {t} WHERE id = 700"),
    ),
    Twin("full_dedup", ", 'changelog-producer' = 'full-compaction'", _DML),
    Twin(
        "full_agg",
        ", 'changelog-producer' = 'full-compaction', 'merge-engine' = 'aggregation', "
        "'fields.n.aggregate-function' = 'sum'",
        _UPSERTS,
    ),
    Twin("none_dedup", "", _DML, modes=("auto", "delta", "diff")),
    Twin("none_dv", ", 'deletion-vectors.enabled' = 'true'", _DML, modes=("auto", "delta", "diff")),
]


def _hint(start: int, end: int, mode: str) -> str:
    return (
        f"/*+ OPTIONS('incremental-between' = '{start},{end}', "
        f"'incremental-between-scan-mode' = '{mode}') */"
    )


def _java_diff(start: list[dict[str, Any]], end: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A diff in the form of Paimon's audit log, from Flink's own audit-log reads of two states.

    Per key: the new row of a new or changed key with its merged kind, ``-D`` and the old row
    for a removed key. (Paimon's own diff merges only the files the two snapshots do not share,
    which gives partial rows for partial-update and aggregation tables; the states do not.)
    """
    values = lambda r: {k: v for k, v in r.items() if k != "rowkind"}  # noqa: E731
    before = {r["id"]: values(r) for r in start if r["rowkind"] in ("+I", "+U")}
    after = {r["id"]: r for r in end if r["rowkind"] in ("+I", "+U")}
    out = [r for key, r in after.items() if before.get(key) != values(r)]
    out += [{"rowkind": "-D", **r} for key, r in before.items() if key not in after]
    return out


def _states(
    flink: FlinkOracle, warehouse: Path, name: str, start: int, end: int
) -> list[dict[str, Any]]:
    reads = [
        flink.query(
            warehouse,
            f"SELECT * FROM `{name}$audit_log` /*+ OPTIONS('scan.snapshot-id' = '{s}') */",  # noqa: S608
        )[1]
        for s in (start, end)
    ]
    return _java_diff(*reads)


def _latest(warehouse: Path, name: str) -> int:
    folder = warehouse / "db.db" / name / "snapshot"
    return max(int(p.name.split("-")[1]) for p in folder.glob("snapshot-*"))


@pytest.mark.parametrize("twin", TWINS, ids=lambda t: t.name)
def test_changes_like_flink(flink: FlinkOracle, tmp_path: Path, twin: Twin):
    warehouse = tmp_path / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(_DDL.format(t="db.ours", options=twin.options))
    for statement in twin.statements:
        session.sql(statement.format(t="db.ours"))
    session.close()
    flink.run(warehouse, _DDL.format(t="java_t", options=twin.options))
    for statement in twin.statements:
        flink.run(warehouse, statement.format(t="java_t"))
    ours_end, java_end = _latest(warehouse, "ours"), _latest(warehouse, "java_t")

    session = paimon_sql.connect(warehouse)
    try:
        for mode in twin.modes:
            start = 1 if mode == "diff" else 0  # Java's diff needs an existing start snapshot
            hint, our_hint = _hint(start, java_end, mode), _hint(start, ours_end, mode)
            what = f"{twin.name} {mode}"
            _, java_own = flink.query(warehouse, f"SELECT * FROM `java_t$audit_log` {hint}")  # noqa: S608
            _, java_ours = flink.query(warehouse, f"SELECT * FROM `ours$audit_log` {our_hint}")  # noqa: S608
            # 1. Flink reads our changes as its own
            assert_same_rows(java_ours, java_own, context=f"{what}: Flink on ours vs its twin")
            if mode == "diff":  # the exact diff, from Flink's reads of both states
                java_own = _states(flink, warehouse, "java_t", start, java_end)
                java_ours = _states(flink, warehouse, "ours", start, ours_end)
            # 2. we read Flink's twin as Flink does
            _, we_java = arrow_rows(
                session.sql(f"SELECT * FROM db.java_t$audit_log {hint}").to_arrow_table()  # noqa: S608
            )
            assert_same_rows(we_java, java_own, context=f"{what}: paimon-sql on Flink's twin")
            # 3. we read our own as Flink reads it
            ours_sql = f"SELECT * FROM db.ours$audit_log {our_hint}"  # noqa: S608
            _, we_ours = arrow_rows(session.sql(ours_sql).to_arrow_table())
            assert_same_rows(we_ours, java_ours, context=f"{what}: paimon-sql on ours")
    finally:
        session.close()


def _layout(warehouse: Path, name: str) -> tuple[list[str], list[str], int]:
    table = warehouse / "db.db" / name
    snapshots = sorted(p.name for p in (table / "snapshot").glob("snapshot-*"))
    changelogs = sorted(p.name for p in (table / "changelog").glob("*"))
    files = len(list((table / "bucket-0").glob("changelog-*")))
    return snapshots, changelogs, files


def test_decoupled_changelog_expires_like_flink(flink: FlinkOracle, tmp_path: Path):
    """changelog.num-retained.* above snapshot.num-retained.*: expired snapshots leave long-lived
    ``changelog/changelog-<id>`` files and keep their changelog files until the changelog
    retention drops them; the twins end with the same snapshots, changelogs and files."""
    options = (
        ", 'changelog-producer' = 'input', 'snapshot.num-retained.min' = '1', "
        "'snapshot.num-retained.max' = '2', 'changelog.num-retained.max' = '4', "
        # no compaction by Flink's writer (paimon-sql's does not trigger one on plain tables)
        "'num-sorted-run.compaction-trigger' = '10'"
    )
    warehouse = tmp_path / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(_DDL.format(t="db.ours", options=options))
    flink.run(warehouse, _DDL.format(t="java_t", options=options))
    for i in range(6):
        insert = f"INSERT INTO {{t}} VALUES ({i}, 'v{i}', {i})"  # noqa: S608
        session.sql(insert.format(t="db.ours"))
        flink.run(warehouse, insert.format(t="java_t"))
    session.close()
    assert _layout(warehouse, "ours") == _layout(warehouse, "java_t")
    # Java's orphan clean-up finds every file our long-lived changelogs use
    time.sleep(2)  # every file is older than "a second ago" (Java's limit: before now)
    cutoff = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)).strftime(
        "%Y-%m-%d %H:%M:%S"
    )
    flink.run(
        warehouse,
        f"CALL sys.remove_orphan_files(`table` => 'db.ours', older_than => '{cutoff}')",
    )
    assert _layout(warehouse, "ours") == _layout(warehouse, "java_t")
    _, rows = flink.query(warehouse, "SELECT * FROM ours")
    assert sorted(r["id"] for r in rows) == list(range(6))


def test_conflicting_merge_options_refused_like_flink(flink: FlinkOracle, tmp_path: Path):
    """'aggregation.remove-record-on-delete' with 'fields.<c>.ignore-retract': Flink creates the
    table but refuses every write and read (``FieldAggregatorFactory``); paimon-sql refuses the
    CREATE, and the writes and reads of Flink's table, with the same reason."""
    from paimon_sql.errors import OptionError
    from tests.interop.flink.harness import FlinkError

    options = (
        ", 'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'max', "
        "'fields.n.ignore-retract' = 'true', 'aggregation.remove-record-on-delete' = 'true'"
    )
    warehouse = tmp_path / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    reason = "'aggregation.remove-record-on-delete' and 'fields.n.ignore-retract'"
    with pytest.raises(OptionError, match=reason):
        session.sql(_DDL.format(t="db.ours", options=options))
    flink.run(warehouse, _DDL.format(t="java_t", options=options))
    with pytest.raises(FlinkError, match="conflicting behavior"):
        flink.run(warehouse, "INSERT INTO java_t VALUES (1, 'a', 1)")
    with pytest.raises(OptionError, match=reason):
        session.sql("INSERT INTO db.java_t VALUES (1, 'a', 1)")
    # a table with rows that gets the option later (Flink's ALTER does not check the pair)
    flink.run(warehouse, _DDL.format(t="later", options=options.replace("'true',", "'false',")))
    flink.run(warehouse, "INSERT INTO later VALUES (1, 'a', 1)")
    flink.run(warehouse, "INSERT INTO later VALUES (1, 'b', 2)")  # two records to merge
    flink.run(warehouse, "ALTER TABLE later SET ('fields.n.ignore-retract' = 'true')")
    with pytest.raises(FlinkError, match="conflicting behavior"):
        flink.query(warehouse, "SELECT * FROM later")
    with pytest.raises(OptionError, match=reason):
        session.sql("SELECT * FROM db.later").fetchall()
    session.close()
