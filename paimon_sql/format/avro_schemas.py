"""The Avro schemas Java Paimon writes for its metadata files (paimon-format.md §4).

Spelled as Java spells them in its files (checked against the Java-written manifests in
``shared/fixtures``): the top-level record is ``record`` in namespace
``org.apache.paimon.avro.generated``; a nested ROW field ``_X`` of record ``R`` is the record
``R_`` + ``_X`` (hence ``record__FILE__KEY_STATS``); nullable fields are the union ``["null", T]``
with ``"default": null`` (§4.1, §13 item 1: Java reads branch 1 as the value).

The field lists are the newest released layouts found in the fixtures: manifest entries through
``_WRITE_COLS`` (1.3 and 2.0), manifest lists through ``_MAX_ROW_ID`` (2.0), index manifests through
``_GLOBAL_INDEX`` (1.4: a global index file's row-id range, indexed field and index meta; its
``_SOURCE_META``, only in unreleased 2.0 builds, is written when an entry carries one:
`index_manifest_schema`). Every Java reader since 0.9 matches fields by name, so older readers skip
what they do not know.

>>> [f["name"] for f in MANIFEST_FILE_META_SCHEMA["fields"]][:3]
['_VERSION', '_FILE_NAME', '_FILE_SIZE']
>>> MANIFEST_ENTRY_SCHEMA["fields"][5]["type"]["name"]
'record__FILE'
"""

from __future__ import annotations

from typing import Any

NAMESPACE = "org.apache.paimon.avro.generated"
RECORD = "record"

#: ``_VERSION`` of manifest and manifest-list entries (§4.1 item 7).
MANIFEST_VERSION = 2
#: ``_VERSION`` of index-manifest entries.
INDEX_MANIFEST_VERSION = 1


def nullable(avro_type: Any) -> list[Any]:
    """The union Java writes for a nullable type: null first (§4.1 item 2).

    >>> nullable("long")
    ['null', 'long']
    """
    return ["null", avro_type]


def field(name: str, avro_type: Any, *, optional: bool = False) -> dict[str, Any]:
    """An Avro field; an `optional` one is ``["null", T]`` with ``"default": null``.

    >>> field("_LEVEL", "int")
    {'name': '_LEVEL', 'type': 'int'}
    >>> field("_X", "long", optional=True)
    {'name': '_X', 'type': ['null', 'long'], 'default': None}
    """
    if optional:
        return {"name": name, "type": nullable(avro_type), "default": None}
    return {"name": name, "type": avro_type}


def _stats(record_name: str) -> dict[str, Any]:
    """The SimpleStats record (§5.3): two BinaryRows and a nullable array of nullable counts."""
    return {
        "type": "record",
        "name": record_name,
        "fields": [
            field("_MIN_VALUES", "bytes"),
            field("_MAX_VALUES", "bytes"),
            field("_NULL_COUNTS", {"type": "array", "items": nullable("long")}, optional=True),
        ],
    }


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": "string"}


_FILE = RECORD + "__FILE"

#: DataFileMeta as the ``_FILE`` record of a manifest entry (§4.3).
DATA_FILE_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": _FILE,
    "fields": [
        field("_FILE_NAME", "string"),
        field("_FILE_SIZE", "long"),
        field("_ROW_COUNT", "long"),
        field("_MIN_KEY", "bytes"),
        field("_MAX_KEY", "bytes"),
        field("_KEY_STATS", _stats(_FILE + "__KEY_STATS")),
        field("_VALUE_STATS", _stats(_FILE + "__VALUE_STATS")),
        field("_MIN_SEQUENCE_NUMBER", "long"),
        field("_MAX_SEQUENCE_NUMBER", "long"),
        field("_SCHEMA_ID", "long"),
        field("_LEVEL", "int"),
        field("_EXTRA_FILES", _strings()),
        field("_CREATION_TIME", {"type": "long", "logicalType": "timestamp-millis"}, optional=True),
        field("_DELETE_ROW_COUNT", "long", optional=True),
        field("_EMBEDDED_FILE_INDEX", "bytes", optional=True),
        field("_FILE_SOURCE", "int", optional=True),
        field("_VALUE_STATS_COLS", _strings(), optional=True),
        field("_EXTERNAL_PATH", "string", optional=True),
        field("_FIRST_ROW_ID", "long", optional=True),
        field("_WRITE_COLS", _strings(), optional=True),
    ],
}

#: A manifest file's records: ManifestEntry, ``_VERSION`` 2 (§4.3).
MANIFEST_ENTRY_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": RECORD,
    "namespace": NAMESPACE,
    "fields": [
        field("_VERSION", "int"),
        field("_KIND", "int"),
        field("_PARTITION", "bytes"),
        field("_BUCKET", "int"),
        field("_TOTAL_BUCKETS", "int"),
        field("_FILE", DATA_FILE_SCHEMA),
    ],
}

#: A manifest list's records: ManifestFileMeta, ``_VERSION`` 2 (§4.2).
MANIFEST_FILE_META_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": RECORD,
    "namespace": NAMESPACE,
    "fields": [
        field("_VERSION", "int"),
        field("_FILE_NAME", "string"),
        field("_FILE_SIZE", "long"),
        field("_NUM_ADDED_FILES", "long"),
        field("_NUM_DELETED_FILES", "long"),
        field("_PARTITION_STATS", _stats(RECORD + "__PARTITION_STATS")),
        field("_SCHEMA_ID", "long"),
        field("_MIN_BUCKET", "int", optional=True),
        field("_MAX_BUCKET", "int", optional=True),
        field("_MIN_LEVEL", "int", optional=True),
        field("_MAX_LEVEL", "int", optional=True),
        field("_MIN_ROW_ID", "long", optional=True),
        field("_MAX_ROW_ID", "long", optional=True),
    ],
}

_DV_RANGE: dict[str, Any] = {
    "type": "record",
    "name": RECORD + "__DELETIONS_VECTORS_RANGES",
    "fields": [
        field("f0", "string"),
        field("f1", "int"),
        field("f2", "int"),
        field("_CARDINALITY", "long", optional=True),
    ],
}


def _global_index(source_meta: bool) -> dict[str, Any]:
    """Java 1.4's GlobalIndexMeta (a nullable ROW): row-id range, indexed field, index meta."""
    fields = [
        field("_ROW_RANGE_START", "long"),
        field("_ROW_RANGE_END", "long"),
        field("_INDEX_FIELD_ID", "int"),
        field("_EXTRA_FIELD_IDS", {"type": "array", "items": "int"}, optional=True),
        field("_INDEX_META", "bytes", optional=True),
    ]
    if source_meta:  # 2.0 (unreleased) builds
        fields.append(field("_SOURCE_META", "bytes", optional=True))
    return {"type": "record", "name": RECORD + "__GLOBAL_INDEX", "fields": fields}


def _index_manifest_entry(source_meta: bool) -> dict[str, Any]:
    return {
        "type": "record",
        "name": RECORD,
        "namespace": NAMESPACE,
        "fields": [
            field("_VERSION", "int"),
            field("_KIND", "int"),
            field("_PARTITION", "bytes"),
            field("_BUCKET", "int"),
            field("_INDEX_TYPE", "string"),
            field("_FILE_NAME", "string"),
            field("_FILE_SIZE", "long"),
            field("_ROW_COUNT", "long"),
            field(
                "_DELETIONS_VECTORS_RANGES",
                {"type": "array", "items": nullable(_DV_RANGE)},
                optional=True,
            ),
            field("_EXTERNAL_PATH", "string", optional=True),
            field("_GLOBAL_INDEX", _global_index(source_meta), optional=True),
        ],
    }


# : An index manifest's records: IndexManifestEntry, ``_VERSION`` 1 (§4.4), as Java 1.4 writes them.
# The "S" in DELETIONS is real.
INDEX_MANIFEST_ENTRY_SCHEMA: dict[str, Any] = _index_manifest_entry(source_meta=False)
# : The same with the ``_SOURCE_META`` of a global index (2.0 builds; see `index_manifest_schema`).
INDEX_MANIFEST_ENTRY_SCHEMA_2_0: dict[str, Any] = _index_manifest_entry(source_meta=True)


def index_manifest_schema(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The schema for index-manifest `records`: Java 1.4's, or 2.0's when one has ``_SOURCE_META``.

    So a global index written by a 2.0 build keeps its source meta through our commits, and every
    other index manifest is written exactly as Java 1.4 writes it.

    >>> index_manifest_schema([]) is INDEX_MANIFEST_ENTRY_SCHEMA
    True
    >>> rec = {"_GLOBAL_INDEX": {"_SOURCE_META": b"x"}}
    >>> index_manifest_schema([rec]) is INDEX_MANIFEST_ENTRY_SCHEMA_2_0
    True
    """
    for rec in records:
        meta = rec.get("_GLOBAL_INDEX")
        if meta is not None and meta.get("_SOURCE_META") is not None:
            return INDEX_MANIFEST_ENTRY_SCHEMA_2_0
    return INDEX_MANIFEST_ENTRY_SCHEMA
