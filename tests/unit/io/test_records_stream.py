"""`stream_records`: Avro files decoded record by record, optionally with an edited writer schema
(the manifests' ``_CREATION_TIME`` as plain millis), and damage still named by file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paimon_sql.errors import CorruptFileError
from paimon_sql.format.manifest_bulk import plain_creation_time
from paimon_sql.format.varint import zigzag_varint
from paimon_sql.io.records import decode_records, stream_records

FIXTURES = Path(__file__).parents[2] / "data" / "fixtures"
# a manifest Apache Paimon 1.4.2 wrote (Java), and one of Paimon 0.9's layout (paimon-cpp corpus)
JAVA_MANIFESTS = [
    next(
        p
        for p in sorted(FIXTURES.glob(pattern))
        if not p.name.startswith(("manifest-list-", "index-manifest-"))
    )
    for pattern in (
        "generated-paimon-java-1.4.2/warehouse/*/*/manifest/manifest-*",
        "paimon-cpp/test/test_data/parquet/pk_09.db/pk_09/manifest/manifest-*",
    )
]


def _times(records: list[dict[str, Any]]) -> list[Any]:
    return [r["_FILE"]["_CREATION_TIME"] for r in records]


@pytest.mark.parametrize("path", JAVA_MANIFESTS, ids=["paimon-1.4.2", "paimon-0.9"])
def test_an_edited_schema_decodes_the_same_bytes_as_plain_millis(path):
    data = path.read_bytes()
    declared = decode_records(data, str(path))
    schema, records = stream_records(data, str(path), schema_edit=plain_creation_time)
    plain = list(records)
    assert plain_creation_time(schema) is None  # decoded with the edited schema
    assert [int(t.timestamp() * 1000) for t in _times(declared)] == _times(plain)
    for rec in (*declared, *plain):
        rec["_FILE"].pop("_CREATION_TIME")
    assert plain == declared  # every other field as before


def _header_with_negative_block_count(data: bytes) -> bytes:
    """The same file with its metadata map written as one block of negative count and a size
    (both allowed by the Avro specification, unlike what Java writes)."""
    from paimon_sql.io import records as r

    meta, end = r._metadata(data)
    body = b"".join(zigzag_varint(len(k)) + k + zigzag_varint(len(v)) + v for k, v in meta.items())
    return (
        data[:4]
        + zigzag_varint(-len(meta))
        + zigzag_varint(len(body))
        + body
        + zigzag_varint(0)
        + data[end:]
    )


def test_a_header_written_as_a_sized_block_is_edited_too():
    path = JAVA_MANIFESTS[0]
    data = _header_with_negative_block_count(path.read_bytes())
    assert data != path.read_bytes()
    schema, records = stream_records(data, "x", schema_edit=plain_creation_time)
    assert plain_creation_time(schema) is None
    assert all(type(t) is int for t in _times(list(records)))


@pytest.mark.parametrize("cut", [5, 40, 200])
def test_a_truncated_header_is_left_to_fastavro_and_named(cut):
    data = JAVA_MANIFESTS[0].read_bytes()[:cut]
    with pytest.raises(CorruptFileError, match="manifest-x"):
        list(stream_records(data, "manifest-x", schema_edit=plain_creation_time)[1])


def test_a_damaged_block_is_named_while_streaming():
    data = bytearray(JAVA_MANIFESTS[0].read_bytes())
    data[-20:] = b"\xff" * 20  # the last block's data and sync marker
    schema, records = stream_records(bytes(data), "manifest-y", schema_edit=plain_creation_time)
    assert schema is not None
    with pytest.raises(CorruptFileError, match="manifest-y"):
        list(records)
