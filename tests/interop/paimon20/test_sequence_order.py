"""``sequence.field`` in either ``sequence.field.sort-order``, with NULL values, against Java.

Paimon's merge sorts a key's records by the sequence fields in the table's order with a NULL
first in either order (the generated comparator has ``nullIsLast = false``), then by sequence
number, and keeps the last. Paimon 1.3's comparator cache ignored the order (one JVM could read a
descending table ascending; fixed in 1.4), and 1.x's write buffer sorted one write ascending
whatever the option (fixed in 2.0, #7684), so this oracle is 1.4.2 and every row is its own write
on the Java side. For each merge engine and order: Java writes one table row by row, paimon-sql a
twin row by row and another in one statement; Java reads all three alike, and so does paimon-sql.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

import paimon_sql
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.paimon20.harness import JavaApiOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

#: (k, v, n, s): key 1 has distinct values, key 2 a NULL and a value, key 3 a tie on s, key 4
#: only NULL sequence values; the order of the list is the write order
_ROWS: list[list[Any]] = [
    [1, "a", 1, 5], [1, "b", 2, 3], [1, None, 4, 7], [1, "c", 8, 4],
    [2, "x", 1, None], [2, "y", 2, 1], [2, None, 4, None],
    [3, "p", 1, 2], [3, "q", None, 2],
    [4, "m", 1, None], [4, None, 2, None],
]  # fmt: skip

_ENGINES = {
    "deduplicate": {},
    # compacted at every write: the lookup merge keeps the same record
    "deduplicate_dv": {"deletion-vectors.enabled": "true"},
    "partial_update": {"merge-engine": "partial-update"},
    "aggregation": {
        "merge-engine": "aggregation",
        "fields.v.aggregate-function": "last_non_null_value",
        "fields.n.aggregate-function": "sum",
    },
}


def _sql_row(row: list[Any]) -> str:
    return "(" + ", ".join("NULL" if v is None else repr(v) for v in row) + ")"


@pytest.mark.parametrize("order", ["ascending", "descending"])
@pytest.mark.parametrize("engine", list(_ENGINES))
def test_sequence_order_and_nulls_merge_as_java(
    java_api: JavaApiOracle, tmp_path: Path, engine: str, order: str
) -> None:
    options = {"bucket": "1", "sequence.field": "s", "sequence.field.sort-order": order}
    options |= _ENGINES[engine]
    warehouse = tmp_path / "warehouse"
    fields = [("k", "INT NOT NULL"), ("v", "STRING"), ("n", "INT"), ("s", "INT")]
    java_api.create(warehouse, "java_t", fields, primary_keys=("k",), options=options)
    for row in _ROWS:
        java_api.write(warehouse, "java_t", [row])
    session = paimon_sql.connect(warehouse)
    with_ = ", ".join(f"'{k}' = '{v}'" for k, v in options.items())
    try:
        for name in ("row_by_row", "one_write"):
            session.sql(
                f"CREATE TABLE db.{name} (k INT NOT NULL, v STRING, n INT, s INT, "
                f"PRIMARY KEY (k) NOT ENFORCED) WITH ({with_})"
            )
        for row in _ROWS:
            session.sql(f"INSERT INTO db.row_by_row VALUES {_sql_row(row)}")  # noqa: S608
        session.sql(f"INSERT INTO db.one_write VALUES {', '.join(map(_sql_row, _ROWS))}")  # noqa: S608
        _, truth = java_api.read(warehouse, "java_t")
        context = f"{engine}, {order}"
        for name in ("java_t", "row_by_row", "one_write"):
            assert_same_rows(
                java_api.read(warehouse, name)[1], truth, context=f"{context}: Java on {name}"
            )
            _, ours = arrow_rows(session.sql(f"SELECT * FROM db.{name}").to_arrow_table())  # noqa: S608
            assert_same_rows(ours, truth, context=f"{context}: paimon-sql on {name}")
    finally:
        session.close()
