"""Manifest, manifest-list and index-manifest encoders against every Java-written Avro manifest."""

from __future__ import annotations

import io
from typing import Any

import fastavro
import pytest

from paimon_sql.format.avro_schemas import (
    INDEX_MANIFEST_ENTRY_SCHEMA,
    MANIFEST_ENTRY_SCHEMA,
    MANIFEST_FILE_META_SCHEMA,
)
from paimon_sql.format.manifest import (
    index_manifest_entry_from_record,
    index_manifest_entry_to_record,
    manifest_entry_from_record,
    manifest_entry_to_record,
    manifest_file_meta_from_record,
    manifest_file_meta_to_record,
)
from paimon_sql.io.records import decode_records, encode_avro
from tests.fixtures import FIXTURES

KINDS = {
    "manifest-list": (
        MANIFEST_FILE_META_SCHEMA,
        manifest_file_meta_from_record,
        manifest_file_meta_to_record,
    ),
    "index-manifest": (
        INDEX_MANIFEST_ENTRY_SCHEMA,
        index_manifest_entry_from_record,
        index_manifest_entry_to_record,
    ),
    "manifest": (MANIFEST_ENTRY_SCHEMA, manifest_entry_from_record, manifest_entry_to_record),
}


def _kind(name: str) -> str:
    return next(k for k in KINDS if name.startswith(k + "-"))


def _avro_manifests() -> list[Any]:
    out = []
    for path in sorted(FIXTURES.rglob("manifest/*")):
        with open(path, "rb") as fh:
            if fh.read(4) == b"Obj\x01":
                out.append(path)
    return out


def _global_index(path: Any) -> bool:
    """Paimon 1.4's index manifests of a global index carry ``_GLOBAL_INDEX`` records (row range,
    field id, index meta): paimon-cpp's ``append_with_global_index*`` and our Java 1.4.2 table."""
    schema = fastavro.reader(io.BytesIO(path.read_bytes())).writer_schema
    return isinstance(schema, dict) and any(f["name"] == "_GLOBAL_INDEX" for f in schema["fields"])


MANIFESTS = _avro_manifests()
GLOBAL_INDEX = [p for p in MANIFESTS if _global_index(p)]


def test_global_index_manifests_are_encoded():
    """Every Java-written global-index manifest round-trips (in `test_round_trip`) and is the
    newest index-manifest layout (`test_writer_schema_equals_java`,
    `test_record_bytes_equal_java`)."""
    assert len(GLOBAL_INDEX) >= 4  # paimon-cpp's parquet/ (its orc/ twins keep ORC manifests)
    assert all(_kind(p.name) == "index-manifest" for p in GLOBAL_INDEX)
    assert _global_index(_newest("index-manifest"))
    metas = [
        index_manifest_entry_from_record(r).index_file.global_index
        for p in GLOBAL_INDEX
        for r in decode_records(p.read_bytes(), str(p))
    ]
    assert metas
    assert all(m is not None for m in metas)


def _legacy(path: Any) -> bool:
    """Older writers (pk_09) wrapped the record, and nested records, in ``["null", ...]``."""
    return isinstance(fastavro.reader(io.BytesIO(path.read_bytes())).writer_schema, list)


CURRENT = [p for p in MANIFESTS if not _legacy(p)]


def _writer_schema(data: bytes) -> dict[str, Any]:
    """The record schema of a container; Paimon <= 0.9 wrapped it in ``["null", record]``."""
    schema = fastavro.reader(io.BytesIO(data)).writer_schema
    if isinstance(schema, list):
        schema = next(branch for branch in schema if branch != "null")
    return schema


def _normalized(schema: Any) -> Any:
    """Resolve names to full names, drop fastavro's bookkeeping: two spellings compare equal."""
    parsed = fastavro.parse_schema(schema, _write_hint=False)
    return _strip(parsed)


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if not k.startswith("__") and k != "doc"}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def test_fixtures_have_every_kind():
    kinds = {_kind(p.name) for p in MANIFESTS}
    assert kinds == set(KINDS)
    assert len(MANIFESTS) > 100


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: "/".join(p.parts[-4:]))
def test_round_trip(path):
    schema, decode, encode = KINDS[_kind(path.name)]
    data = path.read_bytes()
    objects = [decode(r) for r in decode_records(data, str(path))]
    records = [encode(o) for o in objects]
    assert [encode(decode(r)) for r in records] == records
    ours = encode_avro(records, schema)
    assert [decode(r) for r in decode_records(ours, "ours")] == objects


@pytest.mark.parametrize("path", CURRENT, ids=lambda p: "/".join(p.parts[-4:]))
def test_java_fields_are_a_prefix_of_ours(path):
    """Older Java releases wrote fewer nullable fields at the end; names, order and types agree."""
    schema = KINDS[_kind(path.name)][0]
    java = _normalized(_writer_schema(path.read_bytes()))
    ours = _normalized(schema)
    assert java["name"] == ours["name"] == "org.apache.paimon.avro.generated.record"
    _assert_prefix(java, ours)


def _assert_prefix(java: Any, ours: Any) -> None:
    """Java's type is ours, except that its records may stop early (later releases add fields)."""
    if isinstance(java, dict) and java.get("type") == "record":
        assert java["name"] == ours["name"]
        assert len(java["fields"]) <= len(ours["fields"])
        for theirs, mine in zip(java["fields"], ours["fields"], strict=False):
            assert theirs["name"] == mine["name"]
            assert theirs.get("default", "-") == mine.get("default", "-")
            _assert_prefix(theirs["type"], mine["type"])
    elif isinstance(java, dict) and java.get("type") == "array":
        _assert_prefix(java["items"], ours["items"])
    elif isinstance(java, list):
        assert len(java) == len(ours)
        for theirs, mine in zip(java, ours, strict=True):
            _assert_prefix(theirs, mine)
    else:
        assert java == ours


def _newest(kind: str) -> Any:
    """A fixture written by the newest Java in the fixtures (the most fields)."""
    paths = [p for p in MANIFESTS if _kind(p.name) == kind]
    return max(paths, key=lambda p: len(_writer_schema(p.read_bytes())["fields"]))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_writer_schema_equals_java(kind):
    """Our container's writer schema equals the newest Java one (names, order, types, defaults)."""
    path = _newest(kind)
    schema, decode, encode = KINDS[kind]
    data = path.read_bytes()
    records = [encode(decode(r)) for r in decode_records(data, str(path))]
    ours = encode_avro(records, schema)
    assert _normalized(_writer_schema(ours)) == _normalized(_writer_schema(data))
    # ... and therefore `_FILE` and its stats records are named exactly as Java names them.
    if kind == "manifest":
        file_type = _writer_schema(ours)["fields"][5]["type"]
        assert file_type["name"] == "org.apache.paimon.avro.generated.record__FILE"
        assert file_type["fields"][5]["type"]["name"].endswith("record__FILE__KEY_STATS")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_record_bytes_equal_java(kind):
    """Our file's decompressed data blocks are byte-identical to Java's for the same records."""
    path = _newest(kind)
    schema, decode, encode = KINDS[kind]
    data = path.read_bytes()
    records = [encode(decode(r)) for r in decode_records(data, str(path))]
    ours = encode_avro(records, schema)

    def blocks(raw: bytes) -> bytes:
        return b"".join(b.bytes_.getvalue() for b in fastavro.block_reader(io.BytesIO(raw)))

    assert blocks(ours) == blocks(data)
    assert fastavro.reader(io.BytesIO(ours)).codec == "zstandard"


def test_creation_time_is_plain_millis():
    path = _newest("manifest")
    raw = decode_records(path.read_bytes(), str(path))[0]
    record = manifest_entry_to_record(manifest_entry_from_record(raw))
    millis = record["_FILE"]["_CREATION_TIME"]
    assert isinstance(millis, int)
    assert millis == int(raw["_FILE"]["_CREATION_TIME"].timestamp() * 1000)


def test_encode_is_deterministic():
    path = _newest("manifest-list")
    records = decode_records(path.read_bytes(), str(path))
    assert encode_avro(records, MANIFEST_FILE_META_SCHEMA) == encode_avro(
        records, MANIFEST_FILE_META_SCHEMA
    )
