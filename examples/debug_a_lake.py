"""Debugging a lake: what changed, why is this row here, is this table intact?

Run with `.venv/bin/python examples/debug_a_lake.py`. It builds ./warehouse/debug.db/orders (a
primary-key table with deletion vectors), asks the three questions a person debugging a lake asks,
then copies the table, breaks the copy the way disks and people break things, and lets
``CALL sys.check_table`` find each piece of damage.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import paimon_sql
from paimon_sql.catalog.tree import tree_lines

WAREHOUSE = Path.cwd() / "warehouse"


def show(title: str, relation: paimon_sql.Relation) -> None:
    print(f"\n-- {title}")
    print(relation)


def build(session: paimon_sql.Session) -> None:
    session.sql("DROP DATABASE IF EXISTS debug CASCADE")
    session.sql("CREATE DATABASE debug")
    session.sql(
        "CREATE TABLE debug.orders (id BIGINT, status STRING, amount DECIMAL(10, 2), "
        "PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')"
    )
    session.sql("INSERT INTO debug.orders SELECT i, 'new', i * 1.5 FROM range(1, 1001) AS r(i)")
    session.sql("CALL sys.create_tag(table => 'debug.orders', tag => 'loaded')")
    session.sql("UPDATE debug.orders SET status = 'paid' WHERE id % 10 = 0")
    session.sql("DELETE FROM debug.orders WHERE id BETWEEN 500 AND 504")
    session.sql("INSERT INTO debug.orders VALUES (1001, 'new', 9.99), (42, 'refunded', 0)")


def main() -> None:
    session = paimon_sql.connect(WAREHOUSE, create=True)
    build(session)

    # 1. What changed since the tag? (per key: added, removed, changed and which columns)
    show(
        "what changed since tag 'loaded' (counts)",
        session.sql(
            "SELECT change, count(*) AS keys FROM paimon_diff('debug.orders', 'loaded') "
            "GROUP BY change ORDER BY change"
        ),
    )
    show(
        "what changed for order 42",
        session.sql(
            "SELECT change, changed_columns, before.status AS was, after.status AS now "
            "FROM paimon_diff('debug.orders', 'loaded') WHERE id = 42"
        ),
    )

    # 2. Why does order 42 have this value? Every stored version, and which one wins.
    show(
        "why order 42 reads as it does",
        session.sql(
            "SELECT verdict, row.status, rowkind, sequence_number, level, added_by_snapshot, "
            "deleted_by_dv FROM paimon_explain_key('debug.orders', 42)"
        ),
    )

    # 3. Is the table intact? Then break a copy and look again.
    show(
        "check_table on the intact table (no rows: nothing wrong)",
        session.sql("CALL sys.check_table(table => 'debug.orders')"),
    )
    print("\n-- the latest version as a tree (the shell's .tree debug.orders)")
    print("\n".join(tree_lines(session.table("debug.orders"))))

    source = WAREHOUSE / "debug.db" / "orders"
    broken = WAREHOUSE / "debug.db" / "orders_broken"
    shutil.copytree(source, broken)
    data = sorted(broken.glob("bucket-*/data-*"))
    data[0].unlink()  # a data file deleted by hand
    data[1].write_bytes(data[1].read_bytes()[:-100])  # a data file cut short by a full disk
    snapshots = sorted(broken.glob("snapshot/snapshot-*"), key=lambda p: int(p.name[9:]))
    snapshots[1].unlink()  # a snapshot from the middle of the chain
    session = paimon_sql.connect(WAREHOUSE)
    show(
        "check_table on the broken copy: one row per problem",
        session.sql("CALL sys.check_table(table => 'debug.orders_broken')"),
    )
    print("\ncheck_table found the damage in debug.orders_broken")


if __name__ == "__main__":
    main()
