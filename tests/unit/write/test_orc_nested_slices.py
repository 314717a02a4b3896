"""ORC data files written from sliced Arrow data keep each row's nested values.

(pyarrow's ORC writer alone shifts a sliced struct's fields onto other rows; the writer's pieces
are slices of DuckDB's batches.)
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.orc as po
import pytest

from paimon_sql.write.data_file import _orc_bytes

ROWS = {
    "rw": pa.array(
        [{"a": 1, "b": "x"}, None, {"a": 3, "b": "z"}, {"a": None, "b": None}, {"a": 5, "b": "v"}]
    ),
    "nest": pa.array([[{"x": 1}], None, [{"x": 3}, None], [], [{"x": None}]]),
    "mp": pa.array(
        [[("k", 1)], None, [("k", 3)], [], [("z", None)]], pa.map_(pa.string(), pa.int32())
    ),
}


@pytest.mark.parametrize("column", sorted(ROWS))
@pytest.mark.parametrize("offset", [1, 2, 3])
def test_sliced_nested_columns_round_trip(column, offset):
    table = pa.table({"id": pa.array(range(5), pa.int64()), column: ROWS[column]}).slice(offset)
    back = po.read_table(pa.BufferReader(_orc_bytes(table, {})))
    assert back.column(column).to_pylist() == table.column(column).to_pylist()
    assert back.column("id").to_pylist() == list(range(offset, 5))
