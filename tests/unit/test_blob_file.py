"""The ``.blob`` codec on the ``.blob`` file Paimon's Java writer left in paimon-cpp's fixture
(values from its README), and damage to it: each an error naming the file, never other bytes."""

from __future__ import annotations

import pytest

from paimon_sql.errors import CorruptFileError, UnsupportedFeatureError
from paimon_sql.format.blob_file import decode_blob_file, decode_lengths, encode_lengths
from paimon_sql.format.schema import TableSchema
from paimon_sql.plan.scan import refuse_blobs
from paimon_sql.types import DataField, DataType
from tests.fixtures import FIXTURES

TABLE = "blob_data_evolution_with_dense_stats"
FOLDER = FIXTURES / "paimon-cpp/test/test_data/parquet" / f"{TABLE}.db" / TABLE / "bucket-0"
(JAVA_FILE,) = FOLDER.glob("*.blob")


def test_javas_file_holds_the_readme_values():
    assert decode_blob_file(JAVA_FILE.read_bytes(), JAVA_FILE.name) == [b"Lily", b"Alice"]


def test_javas_index_round_trips():
    data = JAVA_FILE.read_bytes()
    size = int.from_bytes(data[-5:-1], "little")
    index = data[-5 - size : -5]
    # a record is magic (4) + value + length (8) + CRC32 (4)
    assert decode_lengths(index, "f") == [4 + 16, 5 + 16]
    assert encode_lengths([4 + 16, 5 + 16]) == index


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda d: d[:3], CorruptFileError),  # shorter than the tail
        (lambda d: d[:4] + b"X" + d[5:], CorruptFileError),  # the first value's byte: CRC32
        (lambda d: b"\x00" + d[1:], CorruptFileError),  # the magic
        (lambda d: d[:-5] + (1000).to_bytes(4, "little") + d[-1:], CorruptFileError),  # index
        (lambda d: d[:-1] + b"\x02", UnsupportedFeatureError),  # a newer version
        (lambda d: d[:10] + d[11:], CorruptFileError),  # a byte lost inside a record
    ],
    ids=["truncated", "value", "magic", "index-length", "version", "shifted"],
)
def test_damage_is_named(change, error):
    data = change(JAVA_FILE.read_bytes())
    with pytest.raises(error) as err:
        decode_blob_file(data, JAVA_FILE.name)
    assert JAVA_FILE.name in str(err.value)


def _schema(options: dict[str, str]) -> TableSchema:
    fields = (
        DataField(id=0, name="id", type=DataType(root="INT")),
        DataField(id=1, name="pic", type=DataType(root="BLOB")),
    )
    return TableSchema(id=0, fields=fields, highest_field_id=1, options=options)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({}, "data-evolution.enabled"),
        ({"blob.stored-descriptor-fields": "pic"}, "blob.stored-descriptor-fields"),
        ({"blob-external-storage-field": "pic"}, "blob-external-storage-field"),
        ({"blob-as-descriptor": "TRUE"}, "blob-as-descriptor"),
    ],
)
def test_unread_blob_layouts_are_refused_by_name(options, named):
    if options:
        options = {"row-tracking.enabled": "true", "data-evolution.enabled": "true", **options}
    with pytest.raises(UnsupportedFeatureError, match=named):
        refuse_blobs("db.t", _schema(options))
