"""A table's history: create, write, tag, time travel, roll back, expire, compact, inspect.

Run with `.venv/bin/python examples/history.py` (`make demo` runs it after the demo). It works in
./warehouse/history.db, which it recreates each time, and prints what a person debugging a
lake asks: which snapshot, which tag, which files, what did the table hold then.
"""

from __future__ import annotations

from pathlib import Path

import paimon_sql

WAREHOUSE = Path.cwd() / "warehouse"


def show(title: str, relation: paimon_sql.Relation) -> None:
    print(f"\n-- {title}")
    print(relation)


def build(session: paimon_sql.Session) -> None:
    """Five commits on a partitioned primary-key table, with a tag after the second."""
    session.sql("DROP DATABASE IF EXISTS history CASCADE")
    session.sql("CREATE DATABASE history")
    session.sql(
        "CREATE TABLE history.accounts (id BIGINT, region STRING, balance DECIMAL(12, 2), "
        "PRIMARY KEY (id, region) NOT ENFORCED) PARTITIONED BY (region) "
        "WITH ('bucket' = '2', 'snapshot.num-retained.min' = '1', "
        "'snapshot.num-retained.max' = '100')"
    )
    session.sql("INSERT INTO history.accounts VALUES (1, 'eu', 100), (2, 'eu', 250), (3, 'us', 75)")
    session.sql("INSERT INTO history.accounts VALUES (4, 'us', 10), (2, 'eu', 300)")
    session.sql("CALL sys.create_tag(table => 'history.accounts', tag => 'month_end')")
    session.sql("UPDATE history.accounts SET balance = balance - 50 WHERE region = 'eu'")
    session.sql("DELETE FROM history.accounts WHERE id = 3")
    session.sql("INSERT INTO history.accounts VALUES (5, 'eu', 1)")


def main() -> None:
    session = paimon_sql.connect(WAREHOUSE, create=True)
    build(session)
    show("today", session.sql("SELECT * FROM history.accounts ORDER BY id"))
    show(
        "every commit",
        session.sql(
            "SELECT snapshot_id, commit_kind, total_record_count, delta_record_count "
            'FROM "history"."accounts$snapshots" ORDER BY snapshot_id'
        ),
    )
    show(
        "the tag",
        session.sql('SELECT tag_name, snapshot_id, record_count FROM "history"."accounts$tags"'),
    )
    show(
        "time travel to the tag (Spark's form)",
        session.sql("SELECT * FROM history.accounts VERSION AS OF 'month_end' ORDER BY id"),
    )
    show(
        "time travel to snapshot 1 (DuckDB's form)",
        session.sql("SELECT * FROM history.accounts AT (VERSION => 1) ORDER BY id"),
    )
    show(
        "which rows changed between snapshot 2 and today",
        session.sql(
            "SELECT 'gone' AS change, * FROM (SELECT * FROM history.accounts VERSION AS OF 2 "
            "EXCEPT SELECT * FROM history.accounts) UNION ALL "
            "SELECT 'new', * FROM (SELECT * FROM history.accounts "
            "EXCEPT SELECT * FROM history.accounts VERSION AS OF 2) ORDER BY id, change"
        ),
    )
    show(
        "the files of partition eu today (level 0: not compacted yet)",
        session.sql(
            "SELECT partition, bucket, file_path, level, record_count "
            'FROM "history"."accounts$files" '
            "WHERE partition = '[eu]' ORDER BY level, file_path"
        ),
    )
    show(
        "roll back the last commit",
        session.sql("CALL sys.rollback(table => 'history.accounts', version => '4')"),
    )
    show(
        "after the rollback: id 5 is gone",
        session.sql("SELECT * FROM history.accounts ORDER BY id"),
    )
    show(
        "compact every bucket into one sorted run",
        session.sql("CALL sys.compact(table => 'history.accounts')"),
    )
    show(
        "expire all snapshots but the last (the tag keeps its files alive)",
        session.sql("CALL sys.expire_snapshots(table => 'history.accounts', retain_max => 1)"),
    )
    show(
        "one sorted run per bucket, at the top level",
        session.sql(
            "SELECT partition, bucket, level, record_count "
            'FROM "history"."accounts$files" ORDER BY partition'
        ),
    )
    show(
        "what remains",
        session.sql(
            'SELECT snapshot_id, commit_kind FROM "history"."accounts$snapshots" '
            "ORDER BY snapshot_id"
        ),
    )
    show(
        "the tag still reads as it did",
        session.sql("SELECT * FROM history.accounts VERSION AS OF 'month_end' ORDER BY id"),
    )
    show(
        "the plan of a pruned query",
        session.sql("EXPLAIN SELECT * FROM history.accounts WHERE region = 'us'").filter(
            "scope <> 'duckdb'"
        ),
    )


if __name__ == "__main__":
    main()
