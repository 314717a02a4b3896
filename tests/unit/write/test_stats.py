"""Statistics of Arrow data.

Hand-computed cases, truncation edges, and Java's bytes for the fixture data files.
"""

from __future__ import annotations

import datetime
import decimal
import glob
import os

import fastavro
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from paimon_sql.errors import OptionError
from paimon_sql.format.binary_row import EMPTY_ROW, decode_row
from paimon_sql.format.manifest import EMPTY_STATS, manifest_entry_from_record
from paimon_sql.format.schema import schema_from_json
from paimon_sql.io.records import decode_records
from paimon_sql.types import DataField, parse_type
from paimon_sql.write.data_file import KEY_PREFIX, data_file_meta, key_fields
from paimon_sql.write.stats import (
    ColumnStats,
    StatsMode,
    column_modes,
    column_stats,
    key_stats,
    parse_stats_mode,
    row_stats,
    truncate_max,
    truncate_min,
    value_stats,
)
from tests.fixtures import FIXTURES

T = parse_type


def _fields(**types: str) -> list[DataField]:
    return [DataField(id=i, name=n, type=T(t)) for i, (n, t) in enumerate(types.items())]


def _decode(stats, fields):
    types = [f.type for f in fields]
    return decode_row(stats.min_values, types), decode_row(stats.max_values, types)


# --- modes -------------------------------------------------------------------------------------


def test_parse_modes():
    assert parse_stats_mode("none") == StatsMode("none")
    assert parse_stats_mode(" Counts ") == StatsMode("counts")
    assert parse_stats_mode("truncate(32)") == StatsMode("truncate", 32)
    for bad in ("truncate(0)", "truncate", "all", "truncate(-1)"):
        with pytest.raises(OptionError):
            parse_stats_mode(bad)


def test_column_modes_default_and_override():
    modes = column_modes(
        {"metadata.stats-mode": "full", "fields.b.stats-mode": "counts"}, ["a", "b"]
    )
    assert modes == (StatsMode("full"), StatsMode("counts"))
    assert column_modes({}, ["a"]) == (StatsMode("truncate", 16),)


def test_every_mode_on_one_column():
    col = pa.array(["abcdef", None, "abc"])
    t = T("STRING")
    assert column_stats(col, t, StatsMode("none")) == ColumnStats(None, None, None)
    assert column_stats(col, t, StatsMode("counts")) == ColumnStats(None, None, 1)
    assert column_stats(col, t, StatsMode("full")) == ColumnStats("abc", "abcdef", 1)
    assert column_stats(col, t, StatsMode("truncate", 4)) == ColumnStats("abc", "abce", 1)


# --- hand-computed stats ----------------------------------------------------------------------


def test_value_stats_of_every_ordered_type():
    fields = _fields(
        b="BOOLEAN",
        i8="TINYINT",
        i16="SMALLINT",
        i="INT",
        l="BIGINT",
        f="FLOAT",
        d="DOUBLE",
        dt="DATE",
        tm="TIME(0)",
        dec="DECIMAL(10, 2)",
        big="DECIMAL(30, 3)",
        ts3="TIMESTAMP(3)",
        ts6="TIMESTAMP(6)",
        ltz="TIMESTAMP(6) WITH LOCAL TIME ZONE",
        s="STRING",
    )
    utc = datetime.UTC
    table = pa.table(
        {
            "b": [True, False, None],
            "i8": pa.array([-3, 7, None], pa.int8()),
            "i16": pa.array([300, -300, None], pa.int16()),
            "i": pa.array([5, None, -1], pa.int32()),
            "l": [2**40, 1, None],
            "f": pa.array([1.5, -2.25, None], pa.float32()),
            "d": [0.1, None, -7.5],
            "dt": [datetime.date(2024, 5, 14), datetime.date(1969, 12, 31), None],
            "tm": [datetime.time(10, 0), None, datetime.time(0, 0, 1)],
            "dec": pa.array(
                [decimal.Decimal("1.10"), decimal.Decimal("-3.25"), None], pa.decimal128(10, 2)
            ),
            "big": pa.array(
                [decimal.Decimal("12345678901234567890.123"), None, None], pa.decimal128(30, 3)
            ),
            "ts3": pa.array(
                [datetime.datetime(2024, 1, 1, 0, 0, 0, 123000), None, None], pa.timestamp("ms")
            ),
            "ts6": pa.array(
                [datetime.datetime(2024, 1, 1, 0, 0, 0, 123456), datetime.datetime(1970, 1, 1)],
                pa.timestamp("us"),
            ).take([0, 1, 1]),
            "ltz": pa.array(
                [datetime.datetime(2024, 1, 1, tzinfo=utc)] * 3, pa.timestamp("us", "UTC")
            ),
            "s": ["b", "a", "c"],
        }
    )
    stats, cols = value_stats(table, fields, {"metadata.stats-mode": "full"})
    low, high = _decode(stats, fields)
    assert cols is None
    assert stats.null_counts == (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 0, 0, 0)
    assert low[:5] == (False, -3, -300, -1, 1)
    assert high[:5] == (True, 7, 300, 5, 2**40)
    assert (low[5], high[5], low[6], high[6]) == (-2.25, 1.5, -7.5, 0.1)
    assert (low[7], high[7]) == (datetime.date(1969, 12, 31), datetime.date(2024, 5, 14))
    assert (low[8], high[8]) == (datetime.time(0, 0, 1), datetime.time(10, 0))
    assert (low[9], high[9]) == (decimal.Decimal("-3.25"), decimal.Decimal("1.10"))
    assert low[10] == high[10] == decimal.Decimal("12345678901234567890.123")
    assert low[11] == datetime.datetime(2024, 1, 1, 0, 0, 0, 123000)
    assert (low[12], high[12]) == (
        datetime.datetime(1970, 1, 1),
        datetime.datetime(2024, 1, 1, 0, 0, 0, 123456),
    )
    assert low[13] == datetime.datetime(2024, 1, 1, tzinfo=utc)
    assert (low[14], high[14]) == ("a", "c")


def test_unordered_types_get_counts_only_and_nested_none():
    fields = _fields(bin="BYTES", ts9="TIMESTAMP(9)", f="DOUBLE", i="INT")
    fields.append(DataField(id=9, name="arr", type=T({"type": "ARRAY", "element": "INT"})))
    table = pa.table(
        {
            "bin": [b"\x01", None],
            "ts9": pa.array([1, 2], pa.timestamp("ns")),
            "f": [float("nan"), 1.0],
            "i": pa.array([None, None], pa.int32()),
            "arr": [[1], None],
        }
    )
    stats, cols = value_stats(table, fields, {})
    assert cols == ("bin", "ts9", "f", "i")  # dense: the nested column is left out
    assert stats.null_counts == (1, 0, 0, 2)
    low, high = _decode(stats, fields[:4])
    assert low == high == (None, None, None, None)
    stats, cols = value_stats(table, fields, {"metadata.stats-dense-store": "false"})
    assert cols is None
    assert stats.null_counts == (1, 0, 0, 2, None)


def test_dense_store_leaves_out_none_columns():
    fields = _fields(a="INT", b="INT", c="STRING")
    table = pa.table({"a": [1], "b": [2], "c": ["x"]})
    stats, cols = value_stats(table, fields, {"fields.b.stats-mode": "none"})
    assert cols == ("a", "c")
    assert _decode(stats, [fields[0], fields[2]]) == ((1, "x"), (1, "x"))
    stats, cols = value_stats(table, fields, {"metadata.stats-mode": "none"})
    assert (stats, cols) == (EMPTY_STATS, ())
    stats, cols = value_stats(
        table, fields, {"fields.b.stats-mode": "none", "metadata.stats-dense-store": "false"}
    )
    assert cols is None
    assert stats.null_counts == (0, None, 0)
    assert _decode(stats, fields)[0] == (1, None, "x")


def test_key_stats_keep_128_chars_and_append_tables_are_empty():
    long = "k" * 200
    fields = _fields(k="STRING")
    stats = key_stats(pa.table({"_KEY_k": [long]}), fields, ["_KEY_k"])
    low, high = _decode(stats, fields)
    assert low == ("k" * 128,)
    assert high == ("k" * 127 + "l",)
    assert key_stats(pa.table({"x": [1]}), []) == EMPTY_STATS
    assert EMPTY_STATS.min_values == EMPTY_ROW


def test_row_stats_for_partitions():
    types = [T("STRING"), T("INT")]
    stats = row_stats([("2024", 3), ("2023", None), ("2025", 1)], types)
    assert decode_row(stats.min_values, types) == ("2023", 1)
    assert decode_row(stats.max_values, types) == ("2025", 3)
    assert stats.null_counts == (0, 1)


# --- truncation edges ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "n", "low", "high"),
    [
        ("abc", 3, "abc", "abc"),  # not longer than N: unchanged
        ("abcd", 3, "abc", "abd"),
        ("ab\U0010ffffz", 3, "ab\U0010ffff", "ac"),  # max code point cannot grow: previous one does
        ("\U0010ffff\U0010ffffz", 2, "\U0010ffff\U0010ffff", None),  # no upper bound at all
        ("añbc", 2, "añ", "añ"[:1] + chr(ord("ñ") + 1)),  # code points, not bytes
        ("a\ud7ffb", 2, "a\ud7ff", "a\ue000"),  # skip the surrogate range
        ("😀😀😀", 2, "😀😀", "😀😁"),  # astral characters count as one
    ],
)
def test_truncation(value, n, low, high):
    assert truncate_min(value, n) == low
    assert truncate_max(value, n) == high


def test_impossible_max_nulls_min_too():
    col = pa.array(["a", "\U0010ffff\U0010ffffz"])
    assert column_stats(col, T("STRING"), StatsMode("truncate", 2)) == ColumnStats(None, None, 0)


def test_truncation_bytes_equal_java():
    """The 16-character truncated max Java wrote in the fixtures: 'Two roads diverh'."""
    fields = _fields(f0="STRING")
    text = (
        "Two roads diverged in a wood, and I took the one less traveled by, "
        "And that has made all the difference."
    )
    stats, _ = value_stats(pa.table({"f0": ["Alice", text]}), fields, {})
    assert stats.max_values.hex() == (
        "00000001" + "00" * 8 + "1000000010000000" + b"Two roads diverh".hex()
    )


# --- against Java: recompute the stats of every fixture data file from its rows ----------------


def _read(path: str, fmt: str) -> pa.Table:
    if fmt == "parquet":
        return pq.read_table(path)
    if fmt == "orc":
        return orc.ORCFile(path).read()
    with open(path, "rb") as fh:
        return pa.Table.from_pylist(list(fastavro.reader(fh)))


def _fixture_files():
    out = []
    for manifest in sorted(FIXTURES.rglob("manifest/manifest-*")):
        if manifest.name.startswith("manifest-list") or manifest.read_bytes()[:4] != b"Obj\x01":
            continue
        table_dir = manifest.parent.parent
        if (table_dir / "branch").exists():
            continue  # branches share manifest/ but have their own schemas
        for raw in decode_records(manifest.read_bytes(), str(manifest)):
            entry = manifest_entry_from_record(raw)
            found = glob.glob(os.path.join(table_dir, "**", entry.file.file_name), recursive=True)
            if entry.file.write_cols is not None:
                # a file of some columns only (data evolution, or a row-tracking compaction that
                # stores _ROW_ID): its stats cover those columns; paimon-sql writes no such file
                continue
            if entry.kind == 0 and found and not entry.file.file_name.startswith("changelog"):
                modern = "_VALUE_STATS_COLS" in raw["_FILE"]  # Paimon >= 1.0
                out.append((table_dir, found[0], entry.file, modern))
    return out


FILES = _fixture_files()


def test_fixture_files_cover_every_format():
    assert {f.format for _, _, f, _ in FILES} == {"parquet", "orc", "avro"}
    assert len(FILES) > 150


@pytest.mark.parametrize(
    ("table_dir", "path", "meta", "modern"), FILES, ids=lambda v: getattr(v, "file_name", "")
)
def test_stats_bytes_equal_java(table_dir, path, meta, modern):
    schema = schema_from_json((table_dir / "schema" / f"schema-{meta.schema_id}").read_text())
    table = _read(path, meta.format)
    ours = data_file_meta(
        table,
        schema,
        file_name=meta.file_name,
        file_size=meta.file_size,
        level=meta.level,
        first_sequence_number=meta.min_sequence_number,
        creation_time=0,
    )
    assert (ours.value_stats, ours.value_stats_cols) == (meta.value_stats, meta.value_stats_cols)
    assert (ours.min_key, ours.max_key, ours.row_count) == (
        meta.min_key,
        meta.max_key,
        meta.row_count,
    )
    if schema.options.get("row-tracking.enabled") == "true":
        # a row-tracking commit gives every new file the snapshot id as its sequence numbers
        # (commit.plan.assign_row_ids, checked against Java in the Flink row-tracking tests)
        assert meta.min_sequence_number == meta.max_sequence_number
    else:
        assert (ours.min_sequence_number, ours.max_sequence_number) == (
            meta.min_sequence_number,
            meta.max_sequence_number,
        )
    if meta.delete_row_count is not None:
        assert ours.delete_row_count == meta.delete_row_count
    if modern or not schema.primary_keys:
        # Paimon 0.9 cut key stats at the table's truncate(16); 1.x keeps keys whole (up to 128)
        assert ours.key_stats == meta.key_stats
    if schema.primary_keys:
        names = [KEY_PREFIX + f.name for f in key_fields(schema)]
        assert key_stats(table, key_fields(schema), names) == ours.key_stats
