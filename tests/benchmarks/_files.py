"""Live data files and deletion vectors of a table's latest snapshot, for the DuckDB floor.

Deliberately independent of paimon_sql (it is what paimon_sql is measured against): a direct
reading of paimon-format.md §4.5 (fold base + delta manifests), §4.4 (index manifest) and §8
(32/64-bit DV blobs) with fastavro and pyroaring. Unpartitioned tables, and tables partitioned by
INT columns (the benchmark's ``append_p<N>`` and ``dv_p<N>``): a partition's folder is
``<key>=<value>/...``, the values decoded from the manifest's ``_PARTITION`` (a 4-byte arity, then a
BinaryRow: null bits padded to 8 bytes, one 8-byte little-endian slot per field; paimon-format.md
§3); a deletion vector's data file is found in the folder of its index entry's ``_PARTITION``.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

import fastavro
import pyarrow as pa
from pyroaring import BitMap, BitMap64

if TYPE_CHECKING:
    from pathlib import Path

_DV_MAGIC_32 = 1581511376
_DV_MAGIC_64 = 1681511377


@dataclass(frozen=True, slots=True, kw_only=True)
class LiveFile:
    path: str
    bucket: int
    level: int
    row_count: int
    min_sequence_number: int
    max_sequence_number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TableFiles:
    snapshot_id: int
    files: tuple[LiveFile, ...]
    # (data file path, deleted row position) for every deletion vector of the snapshot
    deleted: pa.Table


def _avro(path: Path) -> list[dict[str, object]]:
    with path.open("rb") as fh:
        return list(fastavro.reader(fh))


def _latest_snapshot(table: Path) -> dict[str, object]:
    ids = [int(p.name.split("-")[1]) for p in (table / "snapshot").glob("snapshot-*")]
    return dict(json.loads((table / "snapshot" / f"snapshot-{max(ids)}").read_text()))


def live_files(table: Path) -> TableFiles:
    """Fold the latest snapshot's manifests (§4.5) and decode its deletion vectors (§8)."""
    snap = _latest_snapshot(table)
    manifest_dir = table / "manifest"
    live: dict[tuple[object, ...], dict[str, object]] = {}
    for list_name in (snap["baseManifestList"], snap["deltaManifestList"]):
        for meta in _avro(manifest_dir / str(list_name)):
            for entry in _avro(manifest_dir / str(meta["_FILE_NAME"])):
                f = entry["_FILE"]
                assert isinstance(f, dict)
                key = (entry["_PARTITION"], entry["_BUCKET"], f["_LEVEL"], f["_FILE_NAME"])
                if entry["_KIND"] == 0:
                    live[key] = entry
                else:
                    live.pop(key, None)
    keys = _partition_keys(table, snap)
    files = []
    for (partition, bucket, level, name), _entry in sorted(live.items(), key=lambda kv: str(kv[0])):
        f = _entry["_FILE"]
        assert isinstance(f, dict)
        folder = _partition_folder(table, keys, partition)  # type: ignore[arg-type]
        files.append(
            LiveFile(
                path=str(folder / f"bucket-{bucket}" / str(name)),
                bucket=int(bucket),  # type: ignore[call-overload]
                level=int(level),
                row_count=int(f["_ROW_COUNT"]),  # type: ignore[call-overload]
                min_sequence_number=int(f["_MIN_SEQUENCE_NUMBER"]),  # type: ignore[call-overload]
                max_sequence_number=int(f["_MAX_SEQUENCE_NUMBER"]),  # type: ignore[call-overload]
            )
        )
    return TableFiles(
        snapshot_id=int(snap["id"]),
        files=tuple(files),  # type: ignore[call-overload]
        deleted=_deleted_positions(table, snap, keys),
    )


def _partition_keys(table: Path, snap: dict[str, object]) -> list[tuple[str, str]]:
    """(name, type) of the partition columns of the snapshot's schema."""
    schema = json.loads((table / "schema" / f"schema-{snap['schemaId']}").read_text())
    types = {fld["name"]: str(fld["type"]) for fld in schema["fields"]}
    return [(k, types[k]) for k in schema["partitionKeys"]]


def _partition_folder(table: Path, keys: list[tuple[str, str]], partition: bytes) -> Path:
    """``table/<k1>=<v1>/...`` for INT partition columns (no NULLs); the table for none."""
    folder = table
    null_bytes = ((len(keys) + 8 + 63) // 64) * 8
    for i, (name, type_) in enumerate(keys):
        if type_.removesuffix(" NOT NULL") != "INT":
            raise NotImplementedError(f"benchmark floor: partition column {name} {type_}")
        if (partition[4 + (i + 8) // 8] >> ((i + 8) % 8)) & 1:  # the header byte comes first
            raise NotImplementedError(f"benchmark floor: NULL partition value of {name}")
        start = 4 + null_bytes + 8 * i
        (value,) = struct.unpack("<i", partition[start : start + 4])
        folder = folder / f"{name}={value}"
    return folder


def _deleted_positions(
    table: Path, snap: dict[str, object], keys: list[tuple[str, str]]
) -> pa.Table:
    paths: list[str] = []
    positions: list[int] = []
    index_manifest = snap.get("indexManifest")
    if index_manifest:
        for entry in _avro(table / "manifest" / str(index_manifest)):
            if entry["_INDEX_TYPE"] != "DELETION_VECTORS" or entry["_KIND"] != 0:
                continue
            blob = (table / "index" / str(entry["_FILE_NAME"])).read_bytes()
            for rng in entry["_DELETIONS_VECTORS_RANGES"] or []:  # type: ignore[attr-defined]
                deleted = _decode_dv(blob, int(rng["f1"]))
                folder = _partition_folder(table, keys, entry["_PARTITION"])  # type: ignore[arg-type]
                path = folder / f"bucket-{entry['_BUCKET']}" / rng["f0"]
                paths.extend([str(path)] * len(deleted))
                positions.extend(deleted)
    return pa.table(
        {
            "filename": pa.array(paths, pa.string()),
            "file_row_number": pa.array(positions, pa.int64()),
        }
    )


def _decode_dv(blob: bytes, offset: int) -> list[int]:
    """One DV at ``offset``: BE size, then a magic telling 32-bit (BE) from 64-bit (LE)."""
    (size,) = struct.unpack_from(">i", blob, offset)
    body = blob[offset + 4 : offset + 4 + size]
    if struct.unpack_from(">i", body)[0] == _DV_MAGIC_32:
        return list(BitMap.deserialize(body[4:]))
    if struct.unpack_from("<i", body)[0] == _DV_MAGIC_64:
        return list(BitMap64.deserialize(body[4:]))
    raise ValueError(f"unknown deletion-vector magic at offset {offset}")
