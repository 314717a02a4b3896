"""Apache Paimon 1.3.1 (Flink) reads what lookup compaction wrote from the kept files' old rows.

The layouts of tests/unit/compact/test_old_rows.py (`tests.old_rows_cases`: a base file of ~20
row groups, then upserts whose lookup compactions read, of the base file, only the row groups
holding the keys): Flink's
read of the table, and for ``changelog-producer`` = lookup its changelog over the upserts
(``incremental-between``, changelog mode), equal a model of the merge engine on dicts, and
paimon-sql's own reads.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

from tests.interop.flink.harness import arrow_rows, assert_same_rows
from tests.old_rows_cases import KINDS, STEPS, apply, base_rows, create

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]


def _digest(s):
    return None if s is None else hashlib.md5(s.encode()).hexdigest()


def _latest(warehouse):
    folder = warehouse / "db.db" / "t" / "snapshot"
    return max(int(p.name.split("-")[1]) for p in folder.glob("snapshot-*"))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_flink_reads_what_old_rows_merged(flink: FlinkOracle, tmp_path: Path, kind: str):
    warehouse = tmp_path / "warehouse"
    session = create(warehouse, kind)
    start = _latest(warehouse)
    rows = base_rows()
    log: list[tuple[Any, ...]] = []
    for statement, change in STEPS[kind]:
        session.sql(statement)
        apply(kind, rows, change, log)
    assert session.engine.key_lookup.stats()["value_row_groups_read"] > 0  # the rows path ran
    digest = "SELECT a, MD5(s) AS s, n FROM {t}"
    expected = pa.table(
        {
            "a": pa.array(list(rows), pa.int32()),
            "s": pa.array([_digest(v[0]) for v in rows.values()], pa.string()),
            "n": pa.array([v[1] for v in rows.values()], pa.int64()),
        }
    )
    _, want = arrow_rows(expected)
    _, ours = arrow_rows(session.sql(digest.format(t="db.t")).to_arrow_table())
    assert_same_rows(ours, want, context=f"{kind}: paimon-sql vs the model")
    _, java = flink.query(warehouse, digest.format(t="t"))
    assert_same_rows(java, want, context=f"{kind}: Flink vs the model")
    if kind != "lookup":
        return
    end = _latest(warehouse)
    hint = (
        f"/*+ OPTIONS('incremental-between' = '{start},{end}', "
        "'incremental-between-scan-mode' = 'changelog') */"
    )
    changes = pa.table(
        {
            "rowkind": pa.array([r[0] for r in log], pa.string()),
            "a": pa.array([r[1] for r in log], pa.int32()),
            "s": pa.array([r[2] for r in log], pa.string()),
            "n": pa.array([r[3] for r in log], pa.int64()),
        }
    )
    _, want_log = arrow_rows(changes)
    _, java_log = flink.query(warehouse, f"SELECT * FROM `t$audit_log` {hint}")  # noqa: S608
    assert_same_rows(java_log, want_log, context="Flink's read of our changelog vs the model")
    ours_sql = f"SELECT * FROM db.t$audit_log {hint}"  # noqa: S608
    _, ours_log = arrow_rows(session.sql(ours_sql).to_arrow_table())
    assert_same_rows(ours_log, want_log, context="paimon-sql's read of its changelog vs the model")
    session.close()
