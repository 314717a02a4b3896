"""Manifests decoded in bulk (`entries_from_records`, what `Table.manifest` uses) give exactly
what the per-record decoder gives, on every Avro and ORC manifest written by Java (Paimon 0.9
through 1.4.2 and paimon-cpp fixtures), and a damaged record raises the same error."""

from __future__ import annotations

import copy
import dataclasses
import gc
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from paimon_sql.catalog.gc_pause import gc_paused
from paimon_sql.errors import SpecViolationError
from paimon_sql.format.manifest import creation_time_millis, manifest_entry_from_record
from paimon_sql.format.manifest_bulk import (
    avro_schema_proves,
    entries_from_records,
    plain_creation_time,
)
from paimon_sql.io.records import decode_records, stream_records

if TYPE_CHECKING:
    from paimon_sql.format.manifest import ManifestEntry

FIXTURES = Path(__file__).parents[2] / "data" / "fixtures"
MANIFESTS = sorted(
    p
    for p in FIXTURES.glob("**/manifest/manifest-*")
    if not p.name.startswith(("manifest-list-", "index-manifest-"))
)
# one of each layout: Paimon 0.9 (nullable records throughout), 1.x (16-20 fields), ORC
PK_09 = next(p for p in MANIFESTS if "parquet/pk_09.db/" in str(p))
JAVA_14 = next(p for p in MANIFESTS if "generated-paimon-java-1.4.2" in str(p))


def _bulk(path: Path) -> list[ManifestEntry]:
    """As `Table.manifest` decodes a manifest."""
    data = path.read_bytes()
    schema, records = stream_records(data, str(path), schema_edit=plain_creation_time)
    return entries_from_records(records, schema)


def _one_by_one(path: Path) -> list[ManifestEntry]:
    return [manifest_entry_from_record(r) for r in decode_records(path.read_bytes(), str(path))]


def _millis(entry: ManifestEntry) -> ManifestEntry:
    created = creation_time_millis(entry.file.creation_time)
    return dataclasses.replace(entry, file=dataclasses.replace(entry.file, creation_time=created))


def test_every_fixture_manifest_decodes_as_record_by_record():
    assert len(MANIFESTS) > 50
    layouts = {"proved": 0, "checked": 0, "datetimes": 0}
    for path in MANIFESTS:
        schema, _ = stream_records(path.read_bytes(), str(path))
        layouts["proved" if schema and avro_schema_proves(schema) else "checked"] += 1
        bulk, expected = _bulk(path), _one_by_one(path)
        assert [_millis(e) for e in bulk] == [_millis(e) for e in expected], path
        for got, want in zip(bulk, expected, strict=True):  # the same types, not just equal
            for name in want.file.__slots__:
                if (
                    schema
                    and name == "creation_time"
                    and isinstance(want.file.creation_time, datetime)
                ):
                    # Avro's timestamp-millis read as the plain millis Java stores (§4.3)
                    assert type(got.file.creation_time) is int
                    layouts["datetimes"] += 1
                    continue
                assert type(getattr(got.file, name)) is type(getattr(want.file, name)), name
            assert type(got.kind) is type(want.kind)
    assert layouts["proved"] > 40
    assert layouts["checked"] > 5  # ORC manifests take the checked way
    assert layouts["datetimes"] > 100


def _records(path: Path) -> tuple[Any, list[dict[str, Any]]]:
    schema, records = stream_records(path.read_bytes(), str(path))
    return schema, list(records)


def _damage(rec: dict[str, Any], where: str, key: str, value: object) -> dict[str, Any]:
    rec = copy.deepcopy(rec)
    target = rec if where == "entry" else rec["_FILE"]
    if value is KeyError:
        del target[key]
    else:
        target[key] = value
    return rec


@pytest.mark.parametrize(
    ("where", "key", "value"),
    [
        ("entry", "_VERSION", 3),
        ("entry", "_KIND", 2),
        ("entry", "_FILE", None),
        ("entry", "_BUCKET", KeyError),
        ("file", "_FILE_SIZE", -1),
        ("file", "_ROW_COUNT", -5),
        ("file", "_LEVEL", -1),
        ("file", "_SCHEMA_ID", -1),
        ("file", "_FILE_NAME", "../../etc/passwd"),
        ("file", "_FILE_NAME", ""),
        ("file", "_FILE_NAME", ".."),
        ("file", "_FILE_SOURCE", 7),
        ("file", "_KEY_STATS", None),
        ("file", "_VALUE_STATS", {"_MIN_VALUES": b""}),
        ("file", "_MIN_KEY", KeyError),
    ],
)
@pytest.mark.parametrize("path", [PK_09, JAVA_14], ids=["paimon-0.9", "paimon-1.4.2"])
def test_a_damaged_record_raises_what_the_record_decoder_raises(path, where, key, value):
    schema, records = _records(path)
    assert avro_schema_proves(schema)
    assert isinstance(schema, list) == (path == PK_09)  # 0.9: ["null", record], nullable records
    bad = _damage(records[-1], where, key, value)
    with pytest.raises(SpecViolationError) as expected:
        manifest_entry_from_record(bad)
    with pytest.raises(SpecViolationError) as got:
        entries_from_records([*records[:-1], bad], schema)
    assert str(got.value) == str(expected.value)


def _with_field_type(schema: Any, name: str, avro_type: object) -> Any:
    schema = copy.deepcopy(schema)
    file_fields = next(f for f in schema["fields"] if f["name"] == "_FILE")["type"]["fields"]
    next(f for f in file_fields if f["name"] == name)["type"] = avro_type
    return schema


@pytest.mark.parametrize(
    ("name", "avro_type"),
    [
        ("_FILE_SIZE", "string"),  # a type the spec does not allow
        ("_FILE_SIZE", ["null", "long"]),  # null where the spec requires a value
        ("_FILE_NAME", {"type": "string", "logicalType": "uuid"}),  # decoded as a UUID
        ("_EXTRA_FILES", {"type": "array", "items": "long"}),  # items are checked one by one
        ("_CREATION_TIME", ["null", {"type": "int", "logicalType": "date"}]),
        ("_KEY_STATS", "org.apache.paimon.avro.generated.record__FILE__VALUE_STATS"),  # by name
        ("_DELETE_ROW_COUNT", ["null", "long", "string"]),
    ],
)
def test_a_schema_that_does_not_fix_the_types_leaves_every_record_to_the_checks(name, avro_type):
    schema, _ = _records(JAVA_14)
    assert avro_schema_proves(schema)
    assert not avro_schema_proves(_with_field_type(schema, name, avro_type))


def test_values_the_schema_does_not_promise_are_caught_by_the_record_checks():
    # a schema that does not prove the types: each record is checked field by field
    schema, records = _records(JAVA_14)
    loose = _with_field_type(schema, "_FILE_SIZE", ["null", "long", "string"])
    bad = _damage(records[0], "file", "_FILE_SIZE", "12")
    with pytest.raises(SpecViolationError, match="_FILE_SIZE holds str"):
        entries_from_records([bad], loose)
    assert entries_from_records(records, loose) == _one_by_one(JAVA_14)


def test_orc_records_without_a_schema_are_checked_one_by_one():
    _, records = _records(JAVA_14)
    bad = _damage(records[0], "file", "_ROW_COUNT", "3")
    with pytest.raises(SpecViolationError, match="_ROW_COUNT holds str"):
        entries_from_records([bad], None)


def test_the_collector_resumes_after_paused_blocks_in_two_threads():
    assert gc.isenabled()
    inside = threading.Event()
    leave = threading.Event()

    def paused() -> None:
        with gc_paused():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=paused)
    thread.start()
    inside.wait(10)
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's block is still under way
    leave.set()
    thread.join(10)
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError), gc_paused():
        _ = 1 / 0
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # it was off before: left off
    finally:
        gc.enable()
