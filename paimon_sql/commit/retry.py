"""Work planned on the latest snapshot, done again when expiration removes that snapshot meanwhile.

Listing the snapshot folder and reading the latest snapshot's files are separate steps: between
them other writers may commit and expire the snapshot just listed (with
``snapshot.num-retained.min`` = 1 that takes one commit). A file that vanishes then is no damage:
a newer snapshot exists and the work is simply planned again on it. A file missing from a snapshot
that is still the latest is damage, and its error is raised.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, TypeVar

from paimon_sql.errors import DataFileNotFoundError, SnapshotNotFoundError

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_sql.catalog import Table
    from paimon_sql.format.snapshot import Snapshot

T = TypeVar("T")

ATTEMPTS = 20
"""How often a plan is redone before the error is raised (each retry needs another commit)."""


def on_latest(table: Table, plan: Callable[[Snapshot | None], T]) -> T:
    """`plan(latest snapshot)`, again on the new latest while the one it read was expired meanwhile.

    `plan` must be safe to run again (it cleans up after itself when it raises).
    """
    for attempt in range(ATTEMPTS):
        base_id = table.latest_snapshot_id()
        try:
            return plan(None if base_id is None else table.snapshot(base_id))
        except (DataFileNotFoundError, SnapshotNotFoundError):
            if attempt == ATTEMPTS - 1 or table.latest_snapshot_id() == base_id:
                raise
    raise AssertionError("unreachable")


FIRST_PAUSE = 0.01
"""Seconds before the first retry of a commit (or of a compaction that lost to one)."""


def pause(delay: float, cap: float) -> float:
    """Sleep `delay` seconds, jittered up to twice that (writers that collided spread out).

    Returns the next delay: doubled, at most `cap`.
    """
    time.sleep(delay * (1 + random.random()))
    return min(delay * 2, cap)
