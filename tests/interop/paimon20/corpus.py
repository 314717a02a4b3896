"""Tables written through Paimon's Java API (the oracle of this folder), one per table kind.

Each `JavaTable` is a list of steps run in order by `build`: ``write`` (one batch commit, rows
in the bridge's JSON form, optional row kinds, static-partition overwrite, full compaction),
``alter`` (one schema change) and ``tag``. Values are given as the bridge reads them: decimals
as text, binaries as hex, DATE/TIME/TIMESTAMP as ISO text with up to nine fraction digits, ARRAY
as a list, MAP as ``[[key, value], ...]``, ROW as a list of its fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.paimon20.harness import JavaApiOracle

ROW_AB = {
    "type": "ROW",
    "fields": [{"id": 100, "name": "a", "type": "INT"}, {"id": 101, "name": "b", "type": "STRING"}],
}
ARRAY_S = {"type": "ARRAY", "element": "STRING"}
MAP_SI = {"type": "MAP", "key": "STRING NOT NULL", "value": "INT"}

_WIDE = [
    ("id", "INT NOT NULL"),
    ("b", "BOOLEAN"),
    ("ti", "TINYINT"),
    ("si", "SMALLINT"),
    ("bi", "BIGINT"),
    ("f", "FLOAT"),
    ("d", "DOUBLE"),
    ("dec", "DECIMAL(20, 4)"),
    ("s", "STRING"),
    ("ch", "CHAR(4)"),
    ("vb", "VARBINARY(8)"),
    ("dt", "DATE"),
    ("tm", "TIME(3)"),
    ("ts3", "TIMESTAMP(3)"),
    ("ts9", "TIMESTAMP(9)"),
    ("ltz9", "TIMESTAMP_LTZ(9)"),
    ("arr", ARRAY_S),
    ("m", MAP_SI),
    ("r", ROW_AB),
]
_ROWS_1: list[list[Any]] = [
    [
        1,
        True,
        1,
        2,
        3,
        1.5,
        2.25,
        "12.3456",
        "h\u00e9llo",
        "ab  ",
        "00ff",
        "2024-02-29",
        "12:34:56.789",
        "2024-02-29T12:34:56.789",
        "2024-01-01T00:00:00.123456789",
        "1969-12-31T23:59:59.999999999",
        ["x", None],
        [["k", 1]],
        [1, "r"],
    ],
    [2] + [None] * 18,
]
_ROWS_2: list[list[Any]] = [
    [
        3,
        False,
        -1,
        -2,
        -3,
        -0.5,
        1e300,
        "-0.0001",
        "",
        "abcd",
        "",
        "1900-01-01",
        "00:00:00",
        "2000-01-01T00:00:00",
        "1900-01-01T00:00:00.000000001",
        "2262-04-11T23:47:16.854775807",
        [],
        [],
        [None, None],
    ],
]
# Avro has no TIMESTAMP(7..9) in Paimon: the wide Avro table leaves ts9/ltz9 out
_NO_NANOS = {"ts9", "ltz9"}


def _narrow(rows: list[list[Any]]) -> list[list[Any]]:
    keep = [i for i, (n, _) in enumerate(_WIDE) if n not in _NO_NANOS]
    return [[r[i] for i in keep] for r in rows]


@dataclass(frozen=True)
class JavaTable:
    name: str
    fields: list[tuple[str, Any]]
    steps: list[tuple[str, dict[str, Any]]]
    features: tuple[str, ...]
    partition_keys: tuple[str, ...] = ()
    primary_keys: tuple[str, ...] = ()
    options: dict[str, str] = field(default_factory=dict)


def _w(rows: list[list[Any]], **extra: Any) -> tuple[str, dict[str, Any]]:
    return ("write", {"rows": rows, **extra})


_KV = [("id", "INT NOT NULL"), ("v", "STRING"), ("n", "BIGINT")]

TABLES = [
    JavaTable(
        "append_parquet",
        _WIDE,
        [_w(_ROWS_1), ("tag", {"tag": "first", "snapshot": 1}), _w(_ROWS_2)],
        ("append", "parquet", "types", "timestamp-9", "ltz-9", "nested", "tag"),
        options={"file.format": "parquet"},
    ),
    JavaTable(
        "append_orc_fixed",
        _WIDE,
        # Java's full compaction of an append bucket needs at least three files
        [
            _w(_ROWS_1),
            _w(_ROWS_2),
            _w([[4, *_ROWS_2[0][1:]], [5] + [None] * 18]),
            _w([], compact=True),
        ],
        ("append", "orc", "fixed-bucket", "types", "timestamp-9", "compaction"),
        options={"file.format": "orc", "bucket": "1", "bucket-key": "id"},
    ),
    JavaTable(
        "pk_avro",
        [f for f in _WIDE if f[0] not in _NO_NANOS],
        [
            _w(_narrow(_ROWS_1)),
            _w(_narrow(_ROWS_2)),
            _w(_narrow([_ROWS_1[1]]), kinds=["-D"]),
            _w(_narrow([[1, *_ROWS_2[0][1:]]]), kinds=["+U"]),
        ],
        ("pk", "deduplicate", "avro", "types", "delete"),
        primary_keys=("id",),
        options={"file.format": "avro", "bucket": "2"},
    ),
    JavaTable(
        "pk_partitioned",
        [
            ("id", "INT NOT NULL"),
            ("dt", "STRING NOT NULL"),
            ("v", "STRING"),
            ("ts", "TIMESTAMP(9)"),
        ],
        [
            _w([[1, "a", "x", "2024-01-01T00:00:00.000000001"], [2, "b", "y", None]]),
            _w([[1, "a", "x2", None], [3, "b", "z", "2024-01-01T00:00:00.5"]]),
            _w([[9, "a", "over", None]], overwrite={"dt": "a"}),
        ],
        ("pk", "partitioned", "overwrite-partition", "timestamp-9"),
        partition_keys=("dt",),
        primary_keys=("id", "dt"),
        options={"bucket": "2"},
    ),
    JavaTable(
        "partial_update",
        [("id", "INT NOT NULL"), ("a", "STRING"), ("b", "INT"), ("c", "STRING")],
        [
            _w([[1, "a1", None, None], [2, "only", 2, "c2"]]),
            _w([[1, None, 10, None]]),
            _w([[1, None, None, "c1"], [3, None, 3, None]]),
        ],
        ("pk", "partial-update"),
        primary_keys=("id",),
        options={"merge-engine": "partial-update", "bucket": "1"},
    ),
    JavaTable(
        "aggregation",
        [("id", "INT NOT NULL"), ("total", "BIGINT"), ("top", "INT"), ("names", "STRING")],
        [
            _w([[1, 5, 3, "a"], [2, 1, 1, "x"]]),
            _w([[1, 7, 9, "b"], [1, None, 2, None]]),
            _w([[1, 2, 1, "c"]], kinds=["-U"]),
        ],
        ("pk", "aggregation", "retract"),
        primary_keys=("id",),
        options={
            "merge-engine": "aggregation",
            "bucket": "1",
            "fields.total.aggregate-function": "sum",
            "fields.top.aggregate-function": "max",
            "fields.top.ignore-retract": "true",
            "fields.names.aggregate-function": "listagg",
            "fields.names.ignore-retract": "true",
        },
    ),
    JavaTable(
        "first_row",
        _KV,
        [_w([[1, "first", 1], [2, "b", 2]]), _w([[1, "second", 9], [3, "c", 3]])],
        ("pk", "first-row"),
        primary_keys=("id",),
        options={"merge-engine": "first-row", "bucket": "1"},
    ),
    JavaTable(
        "dv",
        _KV,
        [
            _w([[i, f"v{i}", i] for i in range(20)]),
            _w([[i, f"w{i}", -i] for i in range(0, 20, 3)]),
            _w([[5, None, None]], kinds=["-D"]),
        ],
        ("pk", "deletion-vectors"),
        primary_keys=("id",),
        options={"bucket": "1", "deletion-vectors.enabled": "true", "file.format": "parquet"},
    ),
    JavaTable(
        "dv_bitmap64",
        _KV,
        [
            _w([[i, f"v{i}", i] for i in range(20)]),
            _w([[i, f"w{i}", -i] for i in range(0, 20, 3)]),
            _w([[5, None, None]], kinds=["-D"]),
        ],
        ("pk", "deletion-vectors", "bitmap64"),
        primary_keys=("id",),
        options={
            "bucket": "1",
            "deletion-vectors.enabled": "true",
            "deletion-vectors.bitmap64": "true",
            "file.format": "parquet",
        },
    ),
    JavaTable(
        "dynamic_bucket",
        [("id", "INT NOT NULL"), ("dt", "STRING NOT NULL"), ("v", "STRING")],
        [
            _w([[i, "a" if i % 2 else "b", f"v{i}"] for i in range(12)]),
            _w([[i, "a" if i % 2 else "b", f"w{i}"] for i in range(0, 12, 4)]),
        ],
        ("pk", "dynamic-bucket", "partitioned"),
        partition_keys=("dt",),
        primary_keys=("id", "dt"),
        options={"bucket": "-1", "dynamic-bucket.target-row-num": "3"},
    ),
    JavaTable(
        "sequence_field",
        _KV,
        [_w([[1, "new", 10], [2, "b", 5]]), _w([[1, "older", 3], [2, "newer", 6]])],
        ("pk", "sequence-field"),
        primary_keys=("id",),
        options={"bucket": "1", "sequence.field": "n"},
    ),
    JavaTable(
        "row_tracking",
        _KV,
        [_w([[1, "a", 1], [2, "b", 2]]), _w([[3, "c", 3]])],
        ("append", "row-tracking"),
        options={"row-tracking.enabled": "true"},
    ),
    JavaTable(
        "evolution",
        [("id", "INT NOT NULL"), ("a", "INT"), ("b", "STRING")],
        [
            _w([[1, 10, "x"], [2, 20, "y"]]),
            ("alter", {"changes": [{"add": "c", "type": "DOUBLE"}, {"rename": ["b", "bb"]}]}),
            ("alter", {"changes": [{"retype": "a", "type": "BIGINT"}]}),
            _w([[1, 11, "x2", 1.5], [3, 3000000000, None, None]]),
            ("alter", {"changes": [{"drop": "bb"}]}),
            _w([[4, 4, 4.5]]),
        ],
        ("pk", "schema-evolution"),
        primary_keys=("id",),
        options={"bucket": "1"},
    ),
]


def build(java: JavaApiOracle, warehouse: Path, table: JavaTable) -> None:
    """Create `table` in `warehouse` and run its steps through the Java API."""
    java.create(
        warehouse,
        table.name,
        table.fields,
        partition_keys=table.partition_keys,
        primary_keys=table.primary_keys,
        options=table.options,
    )
    for op, args in table.steps:
        if op == "write":
            java.write(warehouse, table.name, **args)
        elif op == "alter":
            java.alter(warehouse, table.name, **args)
        else:
            java.tag(warehouse, table.name, **args)
