"""Time travel by timestamp in Flink's spellings, against Apache Paimon 1.3.1 (Flink) itself.

On Flink-written corpus tables with several snapshots (one with a tag, one whose schema changed),
a set of instants (exactly each snapshot's commit time, one millisecond later, after the latest)
is read by Flink with ``/*+ OPTIONS('scan.timestamp-millis' = …) */``, ``'scan.timestamp'`` and
``FOR SYSTEM_TIME AS OF TIMESTAMP '…'``, and by paimon-sql with the same text. Columns and rows
must equal Flink's. (Snapshot ids and tags are compared at every version by
test_flink_writes_we_read.py.) Flink is the only source of truth; the instants are UTC, the zone of
the JVM and of the machine.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import TYPE_CHECKING

import pytest

import paimon_sql
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

#: corpus tables with history: a tag and DML, a schema change (old snapshots in another schema)
TABLES = ("pk_fixed", "schema_evolution")


def _text(millis: int) -> str:
    moment = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=millis)
    return moment.isoformat(sep=" ", timespec="milliseconds")


def _instants(session: paimon_sql.Session, table: str) -> list[tuple[str, int]]:
    t = session.table(f"db.{table}")
    times = [(i, t.snapshot(i).time_millis) for i in t.snapshot_ids()]
    out = [(f"at snapshot {i}", ms) for i, ms in times]
    out += [
        (f"just after snapshot {i}", ms + 1)
        for (i, ms), (_, nxt) in itertools.pairwise(times)
        if ms + 1 < nxt
    ]
    out.append(("after the latest", times[-1][1] + 60_000))
    # a few of them (each is three Flink queries): the first and the middle snapshot, just after
    # the one before the latest, after the latest
    middle = len(times) // 2
    wanted = {"at snapshot 1", f"at snapshot {times[middle][0]}", "after the latest"}
    wanted.add(f"just after snapshot {times[-2][0]}")
    return [(label, ms) for label, ms in out if label in wanted]


def _forms(table: str, millis: int) -> list[tuple[str, str]]:
    """(Flink SQL, paimon-sql SQL) for one instant: the hints alike, FOR SYSTEM_TIME AS OF too."""
    text = _text(millis)
    flink_base, our_base = f"SELECT * FROM `{table}`", f'SELECT * FROM "db"."{table}"'  # noqa: S608
    hints = [
        f" /*+ OPTIONS('scan.timestamp-millis' = '{millis}') */",
        f" /*+ OPTIONS('scan.timestamp' = '{text}') */",
    ]
    forms = [(flink_base + h, our_base + h) for h in hints]
    system_time = f" FOR SYSTEM_TIME AS OF TIMESTAMP '{text}'"
    forms.append((flink_base + system_time, our_base + system_time))
    return forms


@pytest.mark.parametrize("table", TABLES)
def test_timestamps_like_flink(flink: FlinkOracle, flink_corpus, table):
    warehouse = flink_corpus.warehouse
    session = paimon_sql.connect(warehouse)
    failures: list[str] = []
    reads = 0
    try:
        for label, millis in _instants(session, table):
            for flink_sql, our_sql in _forms(table, millis):
                reads += 1
                f_columns, f_rows = flink.query(warehouse, flink_sql)
                try:
                    columns, rows = arrow_rows(session.sql(our_sql).to_arrow_table())
                    assert columns == f_columns, f"columns {columns} != Flink's {f_columns}"
                    assert_same_rows(rows, f_rows, context="rows (paimon-sql vs Flink)")
                except Exception as err:  # noqa: BLE001 - report every instant and spelling
                    failures.append(f"{table} {label}: {our_sql}\n  {err}")
    finally:
        session.close()
    assert reads >= 9, reads
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)
