"""The scenario of the old-rows read of lookup compaction, shared by its two checks.

`tests/unit/compact/test_old_rows.py` (only the needed row groups are read, the result equals
reading the kept files whole) and `tests/interop/flink/test_old_rows_flink.py` (Apache Paimon
1.3.1 reads the result and the lookup changelog): a one-bucket table whose base file holds ~20
row groups, then upserts and a delete of keys in far-apart row groups, new keys, and a key
written twice; and a model of each merge engine on dicts, independent of paimon-sql.
"""

from __future__ import annotations

from typing import Any

import paimon_sql

KINDS = {
    "lookup": "'changelog-producer' = 'lookup'",
    "dv_partial": "'deletion-vectors.enabled' = 'true', 'merge-engine' = 'partial-update'",
}
#: Rows of the base load: of ~1 KB each, so paimon-sql's ~1 MiB row groups make ~20 of them.
BASE_ROWS = 20000
#: (statement, [(key, s, n)] it upserts or [(key,)] it deletes).
STEPS: dict[str, list[tuple[str, list[tuple[Any, ...]]]]] = {
    "lookup": [
        ("INSERT INTO db.t VALUES (100, 'u1', -1), (9000, 'u1', -1), (30001, 'new', 1)",
         [(100, "u1", -1), (9000, "u1", -1), (30001, "new", 1)]),
        ("INSERT INTO db.t VALUES (9000, 'u2', -2), (19990, 'u2', -2)",
         [(9000, "u2", -2), (19990, "u2", -2)]),
        ("DELETE FROM db.t WHERE a = 100", [(100,)]),
        ("INSERT INTO db.t VALUES (100, 'back', 5), (12345, 'u3', -3)",
         [(100, "back", 5), (12345, "u3", -3)]),
    ],
    "dv_partial": [
        ("INSERT INTO db.t VALUES (100, CAST(NULL AS STRING), -1), (9000, 'u1', NULL), "
         "(30001, 'new', 1)",
         [(100, None, -1), (9000, "u1", None), (30001, "new", 1)]),
        ("INSERT INTO db.t VALUES (9000, NULL, -2), (19990, 'u2', NULL)",
         [(9000, None, -2), (19990, "u2", None)]),
        ("INSERT INTO db.t VALUES (100, 'back', NULL), (12345, NULL, -3)",
         [(100, "back", None), (12345, None, -3)]),
    ],
}  # fmt: skip


def base_rows() -> dict[int, tuple[str, int]]:
    """The model of the base load: key -> (s, n)."""
    return {i: (f"{'x' * 1000}{i}", i) for i in range(BASE_ROWS)}


def create(path: Any, kind: str) -> paimon_sql.Session:
    """A session on a new warehouse at `path` holding ``db.t`` of `kind` with its base load."""
    session = paimon_sql.connect(path, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (a INT NOT NULL, s STRING, n BIGINT, PRIMARY KEY (a) NOT ENFORCED) "
        f"WITH ('bucket' = '1', {KINDS[kind]})"
    )
    session.sql(
        f"INSERT INTO db.t SELECT i, repeat('x', 1000) || i, i FROM range({BASE_ROWS}) r(i)"  # noqa: S608
    )
    return session


def apply(
    kind: str,
    rows: dict[Any, tuple[Any, ...]],
    change: list[tuple[Any, ...]],
    log: list[tuple[Any, ...]] | None = None,
) -> None:
    """`change` applied to the model `rows`; its changelog rows appended to `log`, if given."""
    out: list[tuple[Any, ...]] = [] if log is None else log
    for a, *values in change:
        old = rows.get(a)
        if not values:
            if old is not None:
                out.append(("-D", a, *old))
            rows.pop(a, None)
            continue
        new = tuple(values)
        if kind == "dv_partial" and old is not None:
            new = tuple(v if v is not None else o for v, o in zip(values, old, strict=True))
        if old is None:
            out.append(("+I", a, *new))
        else:
            out += [("-U", a, *old), ("+U", a, *new)]
        rows[a] = new
