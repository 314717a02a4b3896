"""Metadata as Apache Paimon 2.0 writes it (key names and fields from its Java source,
``Snapshot``, ``ManifestFileMeta``, ``IndexFileMeta``, ``DataFileMeta`` at release-2.0.0) decodes;
what Java ignores we ignore, what changes meaning is refused by name. Paimon 1.4.2-written files
with the same fields are read in ``tests/interop/paimon20``."""

from __future__ import annotations

import json

import pytest

from paimon_sql.errors import SpecViolationError
from paimon_sql.format.manifest import (
    data_file_from_record,
    index_manifest_entry_from_record,
    manifest_file_meta_from_record,
)
from paimon_sql.format.snapshot import snapshot_from_json, snapshot_to_dict

# Paimon 2.0's snapshot: "uuid" and "operation" added, "logOffsets" no longer written
SNAPSHOT_20 = {
    "version": 3,
    "uuid": "6f1e0c1e-7d0b-4b43-9a39-3a4c1b0b5e11",
    "id": 4,
    "schemaId": 1,
    "baseManifestList": "manifest-list-a-0",
    "baseManifestListSize": 1110,
    "deltaManifestList": "manifest-list-a-1",
    "deltaManifestListSize": 1115,
    "changelogManifestList": None,
    "commitUser": "u",
    "commitIdentifier": 9223372036854775807,
    "commitKind": "APPEND",
    "timeMillis": 1795813161217,
    "totalRecordCount": 3,
    "deltaRecordCount": 1,
    "nextRowId": 3,
    "operation": "MERGE",
}
_STATS = {"_MIN_VALUES": b"", "_MAX_VALUES": b"", "_NULL_COUNTS": []}


def test_snapshot_of_paimon_20_decodes_and_keeps_its_new_keys():
    snap = snapshot_from_json(json.dumps(SNAPSHOT_20))
    assert (snap.uuid, snap.operation, snap.log_offsets) == (SNAPSHOT_20["uuid"], "MERGE", None)
    out = snapshot_to_dict(snap)
    assert out["uuid"] == SNAPSHOT_20["uuid"]
    assert out["operation"] == "MERGE"
    assert "logOffsets" not in out


def test_snapshot_unknown_future_key_is_ignored_but_a_damaged_known_key_is_not():
    assert snapshot_from_json(json.dumps({**SNAPSHOT_20, "someFutureField": [1]})).id == 4
    damaged = {k: v for k, v in SNAPSHOT_20.items() if k != "operation"} | {"operatiom": "X"}
    with pytest.raises(SpecViolationError, match="operatiom"):
        snapshot_from_json(json.dumps(damaged))


def test_manifest_list_row_id_range():
    rec = {
        "_VERSION": 2,
        "_FILE_NAME": "manifest-x-0",
        "_FILE_SIZE": 10,
        "_NUM_ADDED_FILES": 1,
        "_NUM_DELETED_FILES": 0,
        "_PARTITION_STATS": _STATS,
        "_SCHEMA_ID": 0,
        "_MIN_BUCKET": 0,
        "_MAX_BUCKET": 0,
        "_MIN_LEVEL": 0,
        "_MAX_LEVEL": 0,
        "_MIN_ROW_ID": 0,
        "_MAX_ROW_ID": 41,
    }
    meta = manifest_file_meta_from_record(rec)
    assert (meta.min_row_id, meta.max_row_id) == (0, 41)


def _index(index_type: str, global_index: object) -> dict[str, object]:
    return {
        "_VERSION": 1,
        "_KIND": 0,
        "_PARTITION": b"\x00" * 4,
        "_BUCKET": 0,
        "_INDEX_TYPE": index_type,
        "_FILE_NAME": "index-x-0",
        "_FILE_SIZE": 10,
        "_ROW_COUNT": 5,
        "_DELETIONS_VECTORS_RANGES": None,
        "_EXTERNAL_PATH": None,
        "_GLOBAL_INDEX": global_index,
    }


def test_global_index_entries_decode_and_unknown_plain_types_are_refused():
    meta = {
        "_ROW_RANGE_START": 0,
        "_ROW_RANGE_END": 4,
        "_INDEX_FIELD_ID": 1,
        "_EXTRA_FIELD_IDS": None,
        "_INDEX_META": None,
        "_SOURCE_META": None,
    }
    assert index_manifest_entry_from_record(_index("btree", meta)).index_file.index_type == "btree"
    assert index_manifest_entry_from_record(_index("HASH", None)).index_file.index_type == "HASH"
    with pytest.raises(SpecViolationError, match="btree"):
        index_manifest_entry_from_record(_index("btree", None))


def test_data_file_row_id_and_write_cols():
    rec = {
        "_FILE_NAME": "data-x-0.parquet",
        "_FILE_SIZE": 1,
        "_ROW_COUNT": 2,
        "_MIN_KEY": b"",
        "_MAX_KEY": b"",
        "_KEY_STATS": _STATS,
        "_VALUE_STATS": _STATS,
        "_MIN_SEQUENCE_NUMBER": 0,
        "_MAX_SEQUENCE_NUMBER": 1,
        "_SCHEMA_ID": 0,
        "_LEVEL": 0,
        "_EXTRA_FILES": [],
        "_CREATION_TIME": 0,
        "_DELETE_ROW_COUNT": 0,
        "_EMBEDDED_FILE_INDEX": None,
        "_FILE_SOURCE": 0,
        "_VALUE_STATS_COLS": None,
        "_EXTERNAL_PATH": None,
        "_FIRST_ROW_ID": 7,
        "_WRITE_COLS": [],
    }
    f = data_file_from_record(rec)
    # kept as written: 2.0 reads an empty list as "no columns" (1.3: "all"); the scan refuses it
    assert (f.first_row_id, f.write_cols) == (7, ())


def test_data_file_with_a_21st_field_decodes():
    """Paimon after 2.0 (master, DataFileMeta field 20 ``_WRITE_COLS_SEQUENCES``) appends a field
    to every manifest entry's file record; Java's older readers ignore trailing fields, so do we.
    It only has meaning beside ``_WRITE_COLS``, whose files the scan refuses."""
    rec = {
        "_FILE_NAME": "data-x-0.parquet",
        "_FILE_SIZE": 1,
        "_ROW_COUNT": 2,
        "_MIN_KEY": b"",
        "_MAX_KEY": b"",
        "_KEY_STATS": _STATS,
        "_VALUE_STATS": _STATS,
        "_MIN_SEQUENCE_NUMBER": 0,
        "_MAX_SEQUENCE_NUMBER": 1,
        "_SCHEMA_ID": 0,
        "_LEVEL": 0,
        "_EXTRA_FILES": [],
        "_CREATION_TIME": 0,
        "_FIRST_ROW_ID": None,
        "_WRITE_COLS": None,
        "_WRITE_COLS_SEQUENCES": None,
    }
    f = data_file_from_record(rec)
    assert (f.file_name, f.row_count, f.write_cols) == ("data-x-0.parquet", 2, None)
