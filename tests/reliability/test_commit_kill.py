"""SIGKILL at random points of INSERT, compaction, tagging and expiration (manual and automatic).

A child process (`_commit.kill_worker`) runs a seeded mix of inserts, compactions, tag creations and
expirations on a table that also expires on every commit. It is killed either after a random delay,
or by itself just before a random one of its metadata mutations (a snapshot or tag link, a manifest
or hint write, a delete), which reaches every step of the commit and expiration protocols. After
each kill (`_commit.audit`): snapshot ids contiguous, every listed snapshot and tag readable (the
table is at the previous or the new snapshot, never between), each statement whole or absent,
every reported one present, and after ``remove_orphan_files`` no unreferenced or temporary file.
"""

from __future__ import annotations

import os
import random
import signal
import time
from typing import TYPE_CHECKING

import pytest

import paimon_sql
from tests.reliability import _commit

if TYPE_CHECKING:
    from pathlib import Path

RUNS = 8
TABLES = {"db.a": _commit.APPEND_DDL, "db.p": _commit.PK_DDL}


@pytest.mark.slow
def test_sigkill_at_random_points_leaves_a_readable_table(tmp_path: Path) -> None:
    warehouse = str(tmp_path / "wh")
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    for name, ddl in TABLES.items():
        session.sql(ddl.format(t=name))
    seed = int(os.environ.get("PAIMON_SQL_KILL_SEED", "0")) or random.randrange(1, 10**6)
    rng = random.Random(seed)
    kills = statements = 0
    points: list[str] = []
    succeeded: dict[str, set[int]] = {name: set() for name in TABLES}
    uncertain: dict[str, set[int]] = {name: set() for name in TABLES}
    started = time.monotonic()
    plan = [(rng.randint(1, 60) if run % 4 < 2 else 0) for run in range(RUNS)]
    ctx = _commit.context()
    for run, at in enumerate(plan):
        name, log = list(TABLES)[run % len(TABLES)], tmp_path / f"run{run}.log"
        ready, go = ctx.Event(), ctx.Event()
        child = _commit.start(
            ctx, _commit.kill_worker, warehouse, name, run, str(log), at, ready, go
        )
        assert ready.wait(120)
        go.set()
        if at == 0:
            time.sleep(rng.uniform(0.3, 2.5))
            child.kill()
        child.join(120)
        assert child.exitcode == -signal.SIGKILL, (
            f"run {run} (seed {seed}) ended with {child.exitcode}"
        )
        kills += 1
        lines = log.read_text().splitlines() if log.exists() else []
        points += [x for x in lines if x.startswith("killed")] or ["delay"]
        ok, tried, _failed = _commit.reported(log, name)
        statements += len(ok) + len(tried)
        succeeded[name] |= ok
        uncertain[name] |= tried
        found = _commit.audit(warehouse, name, succeeded[name], uncertain[name])
        assert not found.problems, (
            f"run {run}, seed {seed}, kill at {at or 'a delay'}: {found.problems}"
        )
    print(
        f"\nkill: {RUNS} runs, {kills} SIGKILLs, {statements} INSERT statements "
        f"({sum(map(len, succeeded.values()))} reported), seed {seed}, "
        f"{time.monotonic() - started:.1f} s; lost = 0; killed: {', '.join(points)}"
    )
