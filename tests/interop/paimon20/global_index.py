"""A Java-written table with global indexes (Apache Paimon 1.4.2), and what Java reads of it.

`build` writes ``db.global_index``: a partitioned row-tracking, data-evolution append table; one
write into partitions ``a`` and ``b`` (row ids 0..5), then Java 1.4's global indexes as Spark's
``create_global_index`` procedure builds them (`harness.JavaApiOracle.create_global_index`): a
``bitmap`` on ``name`` and a ``btree`` on ``k`` (one file per partition each, so four
``_GLOBAL_INDEX`` entries), then one more write (row ids 6..7), which Java commits leaving the
indexes as they are. `truth` is Java's answer: every row, the ``$table_indexes`` rows, and the
filtered scans ``QUERIES`` (Java answers them through the global indexes: ``indexed``).

A copy is vendored under ``tests/data/fixtures/generated-paimon-java-1.4.2/`` (warehouse and
``java_truth.json``) for tests without a JVM; ``test_global_index.py`` re-derives it.

Regenerate (JVM): ``python -m tests.interop.paimon20.global_index <out dir>``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.interop.paimon20.harness import JavaApiOracle

TABLE = "global_index"
FIELDS = [("id", "INT"), ("name", "STRING"), ("k", "INT"), ("p", "STRING")]
OPTIONS = {
    "row-tracking.enabled": "true",
    "data-evolution.enabled": "true",
    "bucket": "-1",
}
ROWS_1: list[list[Any]] = [
    [1, "x", 10, "a"],
    [2, "y", 20, "a"],
    [3, "x", None, "a"],
    [4, "z", 10, "b"],
    [5, None, 30, "b"],
    [6, "x", 10, "b"],
]
ROWS_2: list[list[Any]] = [[7, "x", 10, "a"], [8, "y", 40, "b"]]
#: Filtered scans (column, value; None is IS NULL) Java answers through the indexes.
QUERIES = [("name", "x"), ("name", "y"), ("name", None), ("k", 10), ("k", 30), ("k", 99)]
SOURCE = (
    "Apache Paimon 1.4.2 (paimon-bundle, Java API through tests/interop/paimon20/Bridge20.java): "
    "written and read by tests/interop/paimon20/global_index.py"
)


def build(java: JavaApiOracle, warehouse: Path) -> None:
    """Write ``db.global_index`` into `warehouse` (4 snapshots)."""
    java.create(warehouse, TABLE, FIELDS, partition_keys=("p",), options=OPTIONS)
    java.write(warehouse, TABLE, ROWS_1)
    java.create_global_index(warehouse, TABLE, "name", "bitmap")
    java.create_global_index(warehouse, TABLE, "k", "btree")
    java.write(warehouse, TABLE, ROWS_2)


def query_key(column: str, value: Any) -> str:
    """The truth file's key of a query: ``name=x``, ``name IS NULL``."""
    return f"{column} IS NULL" if value is None else f"{column}={value}"


def truth(java: JavaApiOracle, warehouse: Path, table: str = TABLE) -> dict[str, Any]:
    """Java's reads of the table: rows, ``$table_indexes`` and every query of `QUERIES`."""
    _, rows = java.read(warehouse, table)
    columns, indexes = java.read(warehouse, f"{table}$table_indexes")
    queries = {}
    for column, value in QUERIES:
        indexed, hits = java.query(warehouse, table, column, value)
        queries[query_key(column, value)] = {"indexed": indexed, "rows": _sorted(hits)}
    return {
        "rows": _sorted(rows),
        "table_indexes": _sorted(indexes),
        "table_indexes_columns": columns,
        "queries": queries,
    }


def _sorted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))


def main(out: str) -> None:
    """Build the table under ``<out>/warehouse`` and write ``<out>/java_truth.json``."""
    from tests.interop.paimon20.harness import oracle

    root = Path(out)
    warehouse = root / "warehouse"
    java = oracle()
    build(java, warehouse)
    result = {"source": SOURCE, TABLE: truth(java, warehouse)}
    (root / "java_truth.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    java.close()


if __name__ == "__main__":
    main(sys.argv[1])
