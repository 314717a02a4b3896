"""Damage at the codec level: every metadata decoder, fed damaged or random input, either decodes or
raises a `paimon_sql.errors` error (no UnicodeDecodeError, KeyError, json, fastavro or pyroaring
errors escape).
"""

from __future__ import annotations

import contextlib
import json
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyroaring import BitMap

from paimon_sql.errors import PaimonSqlError, SpecViolationError
from paimon_sql.format.deletion_vector import decode_vector, encode_index_file
from paimon_sql.format.manifest import (
    index_manifest_entry_from_record,
    manifest_entry_from_record,
    manifest_file_meta_from_record,
)
from paimon_sql.format.schema import schema_from_json
from paimon_sql.format.snapshot import snapshot_from_json
from paimon_sql.io.records import decode_records

SNAPSHOT = {
    "version": 3,
    "id": 2,
    "schemaId": 0,
    "baseManifestList": "manifest-list-a-0",
    "deltaManifestList": "manifest-list-a-1",
    "changelogManifestList": None,
    "indexManifest": "index-manifest-a-0",
    "commitUser": "u",
    "commitIdentifier": 9,
    "commitKind": "APPEND",
    "timeMillis": 5,
    "totalRecordCount": 3,
    "deltaRecordCount": 3,
    "properties": {"k": "v"},
}
SCHEMA = {
    "version": 3,
    "id": 0,
    "highestFieldId": 2,
    "partitionKeys": ["dt"],
    "primaryKeys": ["id", "dt"],
    "fields": [
        {"id": 0, "name": "id", "type": "INT NOT NULL"},
        {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
        {
            "id": 2,
            "name": "r",
            "type": {"type": "ROW", "fields": [{"id": 3, "name": "x", "type": "INT"}]},
        },
    ],
    "options": {"bucket": "2"},
}
SCHEMA["highestFieldId"] = 3
STATS = {"_MIN_VALUES": b"\0" * 12, "_MAX_VALUES": b"\0" * 12, "_NULL_COUNTS": []}
FILE = {
    "_FILE_NAME": "data-a-0.parquet",
    "_FILE_SIZE": 10,
    "_ROW_COUNT": 2,
    "_MIN_KEY": b"",
    "_MAX_KEY": b"",
    "_KEY_STATS": STATS,
    "_VALUE_STATS": STATS,
    "_MIN_SEQUENCE_NUMBER": 0,
    "_MAX_SEQUENCE_NUMBER": 1,
    "_SCHEMA_ID": 0,
    "_LEVEL": 0,
    "_EXTRA_FILES": [],
    "_FILE_SOURCE": 0,
}
ENTRY = {
    "_VERSION": 2,
    "_KIND": 0,
    "_PARTITION": b"\0" * 12,
    "_BUCKET": 0,
    "_TOTAL_BUCKETS": 1,
    "_FILE": FILE,
}
LIST = {
    "_VERSION": 2,
    "_FILE_NAME": "manifest-a-0",
    "_FILE_SIZE": 9,
    "_NUM_ADDED_FILES": 1,
    "_NUM_DELETED_FILES": 0,
    "_PARTITION_STATS": STATS,
    "_SCHEMA_ID": 0,
}
INDEX = {
    "_VERSION": 1,
    "_KIND": 0,
    "_PARTITION": b"\0" * 12,
    "_BUCKET": 0,
    "_INDEX_TYPE": "DELETION_VECTORS",
    "_FILE_NAME": "index-a-0",
    "_FILE_SIZE": 31,
    "_ROW_COUNT": 1,
    "_DELETIONS_VECTORS_RANGES": [{"f0": "data-a-0.parquet", "f1": 1, "f2": 24, "_CARDINALITY": 2}],
}
WRONG = [None, "x", -1, 1.5, True, [], {}, b"\xff", 2**70]


def _mutations(record: dict, nested: str | None = None):
    for key in record:
        if isinstance(record[key], dict) and key in ("_FILE",):
            continue
        for value in WRONG:
            if type(value) is type(record[key]) or (
                type(value) is int and type(record[key]) is int
            ):
                continue  # the same type: a wrong value of the right type is a different probe
            yield key, value


def _decodes_or_names(decode, value) -> None:
    with contextlib.suppress(PaimonSqlError):
        decode(value)


@pytest.mark.parametrize(("key", "value"), list(_mutations(SNAPSHOT)))
def test_snapshot_with_a_wrong_value_decodes_or_is_a_spec_violation(key, value):
    data = dict(SNAPSHOT, **{key: value})
    _decodes_or_names(snapshot_from_json, json.dumps(data, default=repr))


@pytest.mark.parametrize(
    "key", ["id", "schemaId", "baseManifestList", "deltaManifestList", "commitKind"]
)
@pytest.mark.parametrize("value", [None, "a/b", -1, 1.5, True, [1], {"a": 1}])
def test_snapshot_with_a_wrong_required_value_is_refused(key, value):
    with pytest.raises(SpecViolationError):
        snapshot_from_json(json.dumps(dict(SNAPSHOT, **{key: value})))


@pytest.mark.parametrize(("key", "value"), list(_mutations(SCHEMA)))
def test_schema_with_a_wrong_value_decodes_or_is_a_spec_violation(key, value):
    _decodes_or_names(schema_from_json, json.dumps(dict(SCHEMA, **{key: value}), default=repr))


@pytest.mark.parametrize(
    ("record", "decode"),
    [
        (ENTRY, manifest_entry_from_record),
        (FILE, lambda r: manifest_entry_from_record(dict(ENTRY, _FILE=r))),
        (LIST, manifest_file_meta_from_record),
        (INDEX, index_manifest_entry_from_record),
    ],
    ids=["manifest", "data-file", "manifest-list", "index-manifest"],
)
def test_avro_record_with_a_wrong_value_is_refused(record, decode):
    decode(record)  # the healthy record decodes
    tried = 0
    for key, value in _mutations(record):
        tried += 1
        damaged = dict(record, **{key: value})
        if value is None and key in (
            "_NULL_COUNTS",
            "_FILE_SOURCE",
            "_DELETE_ROW_COUNT",
            "_CARDINALITY",
        ):
            continue  # nullable
        with pytest.raises(SpecViolationError):
            decode(damaged)
    assert tried > 10


def test_deletion_vector_checks_the_index_manifest_figures():
    blob = encode_index_file([BitMap([2, 3]), BitMap([1])])
    assert sorted(decode_vector(blob, 1, "f", length=24, cardinality=2)) == [2, 3]
    for kwargs in ({"length": 23}, {"cardinality": 3}):
        with pytest.raises(SpecViolationError):
            decode_vector(blob, 1, "f", **kwargs)
    with pytest.raises(SpecViolationError):
        decode_vector(blob, 0, "f")


_FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_FAST
@given(st.binary(max_size=300))
def test_random_bytes_never_escape_the_json_decoders(data):
    for decode in (snapshot_from_json, schema_from_json):
        _decodes_or_names(decode, data)


@_FAST
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
    )
)
def test_random_json_values_never_escape(value):
    for base in (SNAPSHOT, SCHEMA):
        for key in base:
            _decodes_or_names(
                snapshot_from_json if base is SNAPSHOT else schema_from_json,
                json.dumps(dict(base, **{key: value})),
            )


@_FAST
@given(st.binary(max_size=200), st.integers(min_value=-2, max_value=80))
def test_random_bytes_never_escape_the_deletion_vector_decoder(data, offset):
    _decodes_or_names(lambda d: decode_vector(d, offset, "f"), data)
    blob = encode_index_file([BitMap([2, 3])])
    cut = bytes(blob[: offset % len(blob)]) + data  # a valid start, then garbage
    _decodes_or_names(lambda d: decode_vector(d, 1, "f"), cut)


@_FAST
@given(st.binary(max_size=400))
def test_random_bytes_never_escape_the_metadata_container_decoder(data):
    for magic in (b"", b"Obj\x01", b"ORC", b"PAR1"):
        _decodes_or_names(lambda d: decode_records(d, "f"), magic + data)


def test_struct_size_prefix_overflow_is_named():
    data = b"\x01" + struct.pack(">i", 2**31 - 1) + b"\0" * 8
    with pytest.raises(SpecViolationError):
        decode_vector(data, 1, "f")
