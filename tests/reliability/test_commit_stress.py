"""Multi-process stress of the commit protocol: no statement that reported success is ever lost.

Three processes INSERT (3 rows a statement, into an append table and a primary-key table in turn)
while a fourth expires snapshots by hand, compacts, and creates and deletes tags, and every commit
also expires automatically ('snapshot.num-retained.max' = 3, 'snapshot.time-retained' = 1 ms). At
the end (`_commit.audit`, per table): snapshot ids contiguous, every listed snapshot and tag
readable, every statement that reported success there whole and once, nothing there that did not
report success, and after ``remove_orphan_files`` no unreferenced and no temporary file.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import pytest

import paimon_sql
from tests.reliability import _commit

if TYPE_CHECKING:
    from pathlib import Path

WRITERS = 3
STATEMENTS = 16
RUNS = int(os.environ.get("PAIMON_SQL_STRESS_RUNS", "1"))
"""More runs for a soak (the figures in the report came from PAIMON_SQL_STRESS_RUNS=10)."""
TABLES = {"db.a": _commit.APPEND_DDL, "db.p": _commit.PK_DDL}


@pytest.mark.slow
@pytest.mark.parametrize("run", range(RUNS))
def test_concurrent_writers_expiration_compaction_tags_lose_nothing(
    tmp_path: Path, run: int
) -> None:
    warehouse = str(tmp_path / "wh")
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    for name, ddl in TABLES.items():
        session.sql(ddl.format(t=name))
    tables = ",".join(TABLES)
    logs = [tmp_path / f"w{w}.log" for w in range(WRITERS)]
    stop = tmp_path / "stop"
    maintenance_log = tmp_path / "maintain.log"
    started = time.monotonic()
    ctx = _commit.context()
    writers = [
        _commit.start(ctx, _commit.insert_worker, warehouse, tables, STATEMENTS, w, str(logs[w]))
        for w in range(WRITERS)
    ]
    maintainer = _commit.start(
        ctx, _commit.maintain_worker, warehouse, tables, str(stop), str(maintenance_log)
    )
    for p in writers:
        p.join(300)
        assert p.exitcode == 0
    stop.touch()
    maintainer.join(120)
    assert maintainer.exitcode == 0
    maintenance = maintenance_log.read_text().splitlines()
    failures = [line for log in logs for line in _commit.reported(log, "")[2]]
    problems, figures, total_ok = [], [], 0
    for name in TABLES:
        succeeded: set[int] = set()
        for log in logs:
            succeeded |= _commit.reported(log, name)[0]
        found = _commit.audit(warehouse, name, succeeded)
        problems += [f"{name}: {p}" for p in found.problems]
        total_ok += len(succeeded)
        assert found.rows >= len(succeeded) * _commit.ROWS
        figures.append(
            f"{name}: {len(succeeded)} succeeded, snapshots {found.snapshot_ids[:1]}.."
            f"{found.snapshot_ids[-1:]}, {found.orphans_removed} orphans removed"
        )
    print(
        f"\nstress run {run}: {WRITERS * STATEMENTS} statements, {total_ok} succeeded, "
        f"{len(failures)} failed cleanly; {len(maintenance)} maintenance ops "
        f"({sum(x.startswith('ok expire') for x in maintenance)} manual expirations, "
        f"{sum(x.startswith('ok compact') for x in maintenance)} compactions, "
        f"{sum(x.startswith('ok tag') for x in maintenance)} tags, "
        f"{sum(x.startswith('failed') for x in maintenance)} failed cleanly); "
        f"{'; '.join(figures)}; "
        f"{time.monotonic() - started:.1f} s; lost = {sum('LOST' in p for p in problems)}\n"
        + "\n".join(sorted({f[:400] for f in failures + [m for m in maintenance if "failed" in m]}))
    )
    assert not problems, problems
    assert total_ok >= WRITERS * STATEMENTS // 2, failures  # the protocol makes progress
