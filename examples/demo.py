"""paimon-sql demo: query Java-written Apache Paimon tables with DuckDB SQL, no JVM.

Run with `make demo`. It copies examples/sample_warehouse (written by Apache Paimon Java) to
./warehouse, opens it in an in-process DuckDB, and runs a few queries.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import paimon_sql

HERE = Path(__file__).resolve().parent
WAREHOUSE = Path.cwd() / "warehouse"


def show(title: str, relation: paimon_sql.Relation) -> None:
    print(f"\n-- {title}")
    print(relation)


def main() -> None:
    if not WAREHOUSE.exists():
        shutil.copytree(
            HERE / "sample_warehouse", WAREHOUSE, ignore=shutil.ignore_patterns("README.md")
        )
    session = paimon_sql.connect(WAREHOUSE)
    print(f"warehouse: {WAREHOUSE}")
    show(
        "tables",
        session.sql(
            "SELECT schema_name AS db, view_name AS tbl FROM duckdb_views() "
            "WHERE NOT internal AND schema_name = 'db' ORDER BY 1, 2"
        ),
    )
    show(
        "a primary-key table, merged on read (3 commits: inserts, updates, nulls)",
        session.sql("SELECT * FROM db.pk_dedup ORDER BY id"),
    )
    show("deletion vectors applied, no merge", session.sql("SELECT * FROM db.pk_dv ORDER BY id"))
    show(
        "partition pruning: only dt='2024-01-02' files are opened",
        session.sql("SELECT * FROM db.pk_part_dv WHERE dt = '2024-01-02' ORDER BY id"),
    )
    show("sequence.field decides which version wins", session.sql("SELECT * FROM db.pk_seq"))
    show(
        "ORC and Avro data files joined in plain DuckDB SQL",
        session.sql(
            "SELECT o.id, o.name, a.v FROM db.pk_orc_2b o JOIN db.pk_avro a USING (id) ORDER BY id"
        ),
    )
    show(
        "time travel to tag 'tag1' (before ADD COLUMN)",
        session.scan("db.append_tags", tag="tag1").order("id"),
    )
    show(
        "the latest snapshot of the same table",
        session.sql("SELECT * FROM db.append_tags ORDER BY id, name"),
    )
    show(
        "aggregates over Paimon tables",
        session.sql("SELECT count(*) AS rows, sum(v) AS total FROM db.append_tags"),
    )

    # Writing: a table of our own, in the format Spark and Flink read.
    session.sql("CREATE DATABASE IF NOT EXISTS mine")
    session.sql("DROP TABLE IF EXISTS mine.orders")
    session.sql(
        "CREATE TABLE mine.orders (id BIGINT, dt STRING, amount DECIMAL(10, 2), "
        "PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')"
    )
    session.sql(
        "INSERT INTO mine.orders VALUES "
        "(1, '2024-05-14', 9.99), (2, '2024-05-14', 5), (3, '2024-05-15', 7)"
    )
    session.sql("UPDATE mine.orders SET amount = amount * 2 WHERE id = 2")
    session.sql("DELETE FROM mine.orders WHERE id = 3")
    show(
        "a table we wrote: upserted, updated, deleted",
        session.sql("SELECT * FROM mine.orders ORDER BY id"),
    )
    show(
        "its history",
        session.sql(
            "SELECT snapshot_id, commit_kind, total_record_count "
            'FROM "mine"."orders$snapshots" ORDER BY 1'
        ),
    )
    show(
        "before the UPDATE and DELETE",
        session.sql("SELECT * FROM mine.orders VERSION AS OF 1 ORDER BY id"),
    )
    show(
        "what planning did for a partition filter",
        session.sql("EXPLAIN SELECT * FROM mine.orders WHERE dt = '2024-05-14'").filter(
            "scope <> 'duckdb'"
        ),
    )


if __name__ == "__main__":
    main()
