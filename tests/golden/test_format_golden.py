"""Codecs against bytes Apache Paimon (Java) wrote."""

from __future__ import annotations

import decimal
import json

import pytest
from pyroaring import BitMap

from paimon_sql.errors import SpecViolationError
from paimon_sql.format.binary_row import decode_row, encode_row
from paimon_sql.format.bucket import bucket_of, hash_row_bytes
from paimon_sql.format.deletion_vector import decode_vector, encode_index_file
from paimon_sql.format.manifest import (
    index_manifest_entry_from_record,
    manifest_entry_from_record,
    manifest_file_meta_from_record,
)
from paimon_sql.format.schema import schema_from_json, schema_to_json
from paimon_sql.format.snapshot import snapshot_from_json, snapshot_to_dict, snapshot_to_json
from paimon_sql.io import read_records
from paimon_sql.io.fileio import file_io
from paimon_sql.types import parse_type
from tests.fixtures import FIXTURES

DV = FIXTURES / "paimon/paimon-core/src/test/resources/compatibility"
TABLE_DIRS = sorted(
    p.parent for p in FIXTURES.rglob("schema") if p.is_dir() and "branch" not in str(p)
)

T = parse_type


@pytest.mark.parametrize(
    ("values", "types", "hexed"),
    [
        (
            ("20240514",),
            ["STRING"],
            "00000001" + "00" * 8 + "0800000010000000" + "3230323430353134",
        ),
        (("2024",), ["STRING"], "00000001" + "00" * 8 + "3230323400000084"),
        ((10,), ["INT"], "00000001" + "00" * 8 + "0a00000000000000"),
        ((None,), ["INT"], "00000001" + "0001000000000000" + "00" * 8),
        (
            ("Alice", 1),
            ["STRING", "INT"],
            "00000002" + "00" * 8 + "416c696365000085" + "0100000000000000",
        ),
    ],
)
def test_binary_row_matches_java_bytes(values, types, hexed):
    parsed = [T(t) for t in types]
    assert encode_row(values, parsed).hex() == hexed
    assert decode_row(bytes.fromhex(hexed), parsed) == values


def test_binary_row_non_compact_decimal_and_timestamp_round_trip():
    types = [T("DECIMAL(38, 5)"), T("TIMESTAMP(9)"), T("DECIMAL(38, 5)")]
    import datetime

    values = (
        decimal.Decimal("-123456789987654321.45678"),
        datetime.datetime(2024, 1, 2, 3, 4, 5, 6),
        None,
    )
    assert decode_row(encode_row(values, types), types) == values


def test_bucket_vectors_from_java():
    ints = [T("INT")] * 3
    assert bucket_of((5,), ints[:1], 100) == 96
    assert bucket_of((5, 6), ints[:2], 100) == 27
    assert bucket_of((5, 6, 7), ints, 100) == 40
    assert (
        hash_row_bytes(bytes.fromhex("00" * 8 + "0800000010000000" + "3230323430353134"))
        == -1422800034
    )


def test_deletion_vector_golden_files():
    blob32 = (DV / "dvindex-32").read_bytes()
    blob64 = (DV / "dvindex-64").read_bytes()
    assert sorted(decode_vector(blob32, 1, "dvindex-32")) == [2, 3]
    assert sorted(decode_vector(blob32, 33, "dvindex-32")) == [1]
    assert sorted(decode_vector(blob64, 1, "dvindex-64")) == [2, 3]
    assert sorted(decode_vector(blob64, 45, "dvindex-64")) == [1]
    assert encode_index_file([BitMap([2, 3]), BitMap([1])]) == blob32


def test_deletion_vector_checksum_is_checked():
    blob = bytearray((DV / "dvindex-32").read_bytes())
    blob[20] ^= 0xFF
    with pytest.raises(SpecViolationError, match="CRC32"):
        decode_vector(bytes(blob), 1, "damaged")


@pytest.mark.parametrize("table_dir", TABLE_DIRS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_schema_and_snapshot_json_round_trip(table_dir):
    for path in sorted((table_dir / "schema").glob("schema-*")):
        schema = schema_from_json(path.read_text())
        assert schema_from_json(schema_to_json(schema)) == schema
        original = json.loads(path.read_text())
        if "version" in original:  # legacy defaults are added only for old versions
            assert json.loads(schema_to_json(schema))["fields"] == original["fields"]
    for path in sorted((table_dir / "snapshot").glob("snapshot-*")):
        snapshot = snapshot_from_json(path.read_text())
        assert snapshot_from_json(snapshot_to_json(snapshot)) == snapshot
        original = {k: v for k, v in json.loads(path.read_text()).items() if v is not None}
        written = snapshot_to_dict(snapshot)
        for key, value in original.items():
            if key != "logOffsets" or value:
                assert written[key] == value, key


@pytest.mark.parametrize("table_dir", TABLE_DIRS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_manifest_decodes(table_dir):
    io = file_io(table_dir)
    kinds = set()
    if not (table_dir / "snapshot").is_dir():
        # paimon-cpp's orc/append_table_with_nested_type: a created table never written
        assert not (table_dir / "manifest").exists()
        return
    for path in sorted((table_dir / "manifest").iterdir()):
        records = read_records(io, str(path))
        name = path.name
        if name.startswith("manifest-list-"):
            [manifest_file_meta_from_record(r) for r in records]
        elif name.startswith("index-manifest-"):
            [index_manifest_entry_from_record(r) for r in records]
        elif name.startswith("manifest-"):
            for r in records:
                entry = manifest_entry_from_record(r)
                kinds.add(entry.file.format)
    # Paimon 1.4+ BLOB tables keep BLOB values in .blob files (read refuses them by name)
    blob_table = "blob" in table_dir.name
    assert kinds <= {"parquet", "orc", "avro"} | ({"blob"} if blob_table else set())


def test_corrupt_manifest_is_a_clear_error(tmp_path):
    bad = tmp_path / "manifest-x"
    bad.write_bytes(b"Obj\x01garbage")
    with pytest.raises(SpecViolationError, match="manifest-x"):
        read_records(file_io(tmp_path), str(bad))
