"""Helpers of the corruption suite (`test_corruption.py`): a warehouse of healthy tables, the files
each version of a table reads, byte-level damage, and the oracle a damaged read is held to.

The oracle: after damaging one file of one table, `paimon_sql.connect` and ``SHOW TABLES`` still
work, every other table reads its rows, and every read of the damaged table either returns exactly
the healthy rows (damage the read does not depend on) or raises a `paimon_sql.errors` error whose
message names the damaged file. Anything else (a foreign exception, an error naming another file,
different rows) is a failure.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import io
import json
import os
import shutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import fastavro
from pyroaring import BitMap
from sqlglot import exp

import paimon_sql
from paimon_sql.errors import PaimonSqlError
from paimon_sql.plan.scan import data_file_path, plan_scan
from tests.fixtures import FIXTURES

if TYPE_CHECKING:
    from collections.abc import Iterator

    from paimon_sql.catalog import Table

JAVA_DB = FIXTURES / "generated-paimon-java-0.9" / "warehouse" / "db.db"
#: Java-written tables copied into the warehouse as database ``java``: deletion vectors, tags, plain
#: MOR.
JAVA_TABLES = ("pk_dv", "append_tags", "pk_dedup")


def build_warehouse(root: Path) -> Path:
    """A warehouse with tables written by paimon-sql (database ``db``) and by Java 0.9 (database
    ``java``).
    """
    wh = root / "wh"
    session = paimon_sql.connect(wh, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.pk (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')"
    )
    for round_ in range(3):
        rows = [(i, f"r{round_}-{i}") for i in range(round_ * 4, round_ * 4 + 10)]
        session.sql(exp.insert(exp.values(rows), "db.pk").sql("spark"))
    session.sql("DELETE FROM db.pk WHERE id % 3 = 0")
    session.sql("CREATE TABLE db.app (id INT, dt STRING) PARTITIONED BY (dt)")
    session.sql("INSERT INTO db.app VALUES (1, 'a'), (2, 'b')")
    session.sql("CALL sys.create_tag('db.app', 'first')")
    session.sql("INSERT INTO db.app VALUES (3, 'a')")
    session.sql("CREATE TABLE db.healthy (id INT, v STRING)")
    session.sql("INSERT INTO db.healthy VALUES (1, 'x'), (2, 'y')")
    session.close()
    java = wh / "java.db"
    java.mkdir()
    for name in JAVA_TABLES:
        shutil.copytree(JAVA_DB / name, java / name)
    return wh


@dataclass(frozen=True)
class Version:
    """One readable state of a table: the latest, a snapshot id, or a tag."""

    snapshot: int | None = None
    tag: str | None = None

    def query(self, database: str, table: str) -> str:
        """``SELECT * FROM db.t [VERSION AS OF ...]`` built from sqlglot nodes."""
        node = exp.to_table(f"{database}.{table}")
        value = self.tag if self.tag is not None else self.snapshot
        if value is not None:
            literal = (
                exp.Literal.string(value) if isinstance(value, str) else exp.Literal.number(value)
            )
            node.set("version", exp.Version(this="VERSION", kind="AS OF", expression=literal))
        return exp.select("*").from_(node).sql("spark")


@dataclass
class TableFacts:
    """What the healthy table looks like: rows per version and the metadata files each version
    reads.
    """

    database: str
    name: str
    path: Path
    rows: dict[Version, list[tuple[object, ...]]] = field(default_factory=dict)
    files: dict[Version, set[str]] = field(default_factory=dict)

    def versions_reading(self, path: Path) -> list[Version]:
        """The versions whose read touches `path` (the latest always, for hints and listings)."""
        used = [v for v, files in self.files.items() if str(path) in files]
        latest = Version()
        return used if latest in used else [latest, *used]


def read_rows(
    session: paimon_sql.Session, database: str, table: str, version: Version
) -> list[tuple[object, ...]]:
    """The rows of a version, sorted (NULLs and mixed types by their repr)."""
    rows = session.sql(version.query(database, table)).fetchall()
    return sorted(rows, key=repr)


def _files_of(table: Table, snapshot_id: int | None, tag: str | None) -> set[str]:
    snap = table.tag(tag) if tag is not None else table.snapshot(snapshot_id or 0)
    files = {table.meta("schema", f"schema-{snap.schema_id}")}
    files.add(
        table.meta("tag", f"tag-{tag}") if tag else table.meta("snapshot", f"snapshot-{snap.id}")
    )
    for name in (snap.base_manifest_list, snap.delta_manifest_list):
        files.add(table.sub("manifest", name))
        for meta in table.manifest_list(name):
            files.add(table.sub("manifest", meta.file_name))
    if snap.index_manifest:
        files.add(table.sub("manifest", snap.index_manifest))
        for entry in table.index_manifest(snap.index_manifest):
            files.add(table.sub("index", entry.index_file.file_name))
    plan = plan_scan(table, snap, None, table.schema(snap.schema_id))
    files.update(data_file_path(plan, split, f) for split in plan.splits for f in split.files)
    return files


def table_facts(wh: Path, database: str, name: str) -> TableFacts:
    """Rows and files of every snapshot and tag of a healthy table."""
    session = paimon_sql.connect(wh)
    table = session.table(f"{database}.{name}")
    facts = TableFacts(database, name, Path(table.path))
    latest = table.latest_snapshot_id()
    versions = [Version()] + [Version(snapshot=i) for i in table.snapshot_ids()]
    versions += [Version(tag=t) for t in table.tag_names()]
    for version in versions:
        facts.rows[version] = read_rows(session, database, name, version)
        snapshot_id = latest if version == Version() else version.snapshot
        facts.files[version] = _files_of(table, snapshot_id, version.tag)
    session.close()
    return facts


# --- damage ---------------------------------------------------------------------------------------

Damage = Callable[[bytes], bytes | None]  # new content, or None to delete the file


def _flip(at: float) -> Damage:
    def damage(data: bytes) -> bytes:
        if not data:
            return b"\xff"
        i = min(int(len(data) * at), len(data) - 1)
        return data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1 :]

    return damage


BYTE_DAMAGE: dict[str, Damage] = {
    "empty": lambda data: b"",
    "truncate-half": lambda data: data[: len(data) // 2],
    "truncate-last": lambda data: data[:-1],
    "truncate-8": lambda data: data[:8],
    "flip-start": _flip(0.0),
    "flip-quarter": _flip(0.25),
    "flip-middle": _flip(0.5),
    "flip-three-quarters": _flip(0.75),
    "flip-end": _flip(1.0),
    "bad-utf8": lambda data: data[: len(data) // 2] + b"\xff\xfe\xc3" + data[len(data) // 2 :],
    "garbage-appended": lambda data: data + b"\x00garbage\x01",
    "zeroed": lambda data: bytes(len(data)),
    "missing": lambda data: None,
}


def json_damage(edit: Callable[[dict[str, object]], object]) -> Damage:
    """Damage that rewrites a JSON file's parsed object (`edit` returns the new top-level value)."""

    def damage(data: bytes) -> bytes:
        value = json.loads(data)
        result = edit(value)
        return json.dumps(value if result is None else result).encode()

    return damage


def _set(key: str, value: object) -> Callable[[dict[str, object]], None]:
    def edit(obj: dict[str, object]) -> None:
        obj[key] = value

    return edit


def _drop(key: str) -> Callable[[dict[str, object]], None]:
    def edit(obj: dict[str, object]) -> None:
        obj.pop(key, None)

    return edit


def _rename(key: str, new: str) -> Callable[[dict[str, object]], None]:
    def edit(obj: dict[str, object]) -> None:
        if key in obj:
            obj[new] = obj.pop(key)

    return edit


def _shift_id(delta: int) -> Callable[[dict[str, object]], None]:
    def edit(obj: dict[str, object]) -> None:
        obj["id"] = int(obj["id"]) + delta  # type: ignore[call-overload]

    return edit


SNAPSHOT_KEYS = (
    "id",
    "schemaId",
    "baseManifestList",
    "deltaManifestList",
    "commitUser",
    "commitIdentifier",
    "commitKind",
    "timeMillis",
)
SNAPSHOT_DAMAGE: dict[str, Damage] = {
    "id+1": json_damage(_shift_id(1)),
    "id-1": json_damage(_shift_id(-1)),
    "id-string": json_damage(lambda o: o.update(id=str(o["id"]))),
    "id-negative": json_damage(_set("id", -5)),
    "id-float": json_damage(lambda o: o.update(id=float(o["id"]) + 0.5)),  # type: ignore[arg-type]
    "schemaId-missing-schema": json_damage(_set("schemaId", 99)),
    "schemaId-string": json_damage(_set("schemaId", "0")),
    "commitKind-unknown": json_damage(_set("commitKind", "MERGE")),
    "baseManifestList-absent-file": json_damage(_set("baseManifestList", "manifest-list-nope-0")),
    "deltaManifestList-absent-file": json_damage(_set("deltaManifestList", "manifest-list-nope-1")),
    "baseManifestList-int": json_damage(_set("baseManifestList", 7)),
    "indexManifest-absent-file": json_damage(_set("indexManifest", "index-manifest-nope-0")),
    "indexManifest-key-flipped": json_damage(_rename("indexManifest", "indexManifesu")),
    "indexManifest-int": json_damage(_set("indexManifest", 3)),
    "baseManifestListSize-wrong": json_damage(_set("baseManifestListSize", 3)),
    "deltaManifestListSize-string": json_damage(_set("deltaManifestListSize", "big")),
    "properties-list": json_damage(_set("properties", [1, 2])),
    "top-level-array": json_damage(lambda o: [o]),
    "top-level-number": json_damage(lambda o: 42),
    "deep-nesting": lambda data: b"[" * 100_000 + b"]" * 100_000,
    "nan-id": lambda data: data.replace(b'"id"', b'"id" : NaN, "x"', 1),
    **{f"{key}-missing": json_damage(_drop(key)) for key in SNAPSHOT_KEYS},
    **{f"{key}-null": json_damage(_set(key, None)) for key in SNAPSHOT_KEYS},
    **{f"{key}-object": json_damage(_set(key, {"a": 1})) for key in SNAPSHOT_KEYS},
}

TAG_DAMAGE: dict[str, Damage] = {
    k: v for k, v in SNAPSHOT_DAMAGE.items() if not k.startswith(("id+", "id-1"))
} | {
    "tagCreateTime-garbage": json_damage(_set("tagCreateTime", [2024, 99, 1])),
    "tagCreateTime-huge": json_damage(_set("tagCreateTime", [1e308, 1])),
    "tagTimeRetained-string": json_damage(_set("tagTimeRetained", "long")),
}


def _field_edit(edit: Callable[[dict[str, object]], None]) -> Callable[[dict[str, object]], None]:
    def apply(obj: dict[str, object]) -> None:
        fields = obj["fields"]
        assert isinstance(fields, list)
        edit(fields[-1])

    return apply


SCHEMA_KEYS = ("id", "fields", "highestFieldId")
SCHEMA_DAMAGE: dict[str, Damage] = {
    "id+1": json_damage(_shift_id(1)),
    "id-string": json_damage(lambda o: o.update(id=str(o["id"]))),
    "fields-empty": json_damage(_set("fields", [])),
    "fields-object": json_damage(_set("fields", {"id": 0})),
    "field-id-duplicate": json_damage(lambda o: o["fields"][-1].update(id=o["fields"][0]["id"])),
    "field-id-string": json_damage(_field_edit(_set("id", "1"))),
    "field-id-negative": json_damage(_field_edit(_set("id", -1))),
    "field-name-int": json_damage(_field_edit(_set("name", 5))),
    "field-name-empty": json_damage(_field_edit(_set("name", ""))),
    "field-name-duplicate": json_damage(
        lambda o: o["fields"][-1].update(name=o["fields"][0]["name"])
    ),
    "field-type-unknown": json_damage(_field_edit(_set("type", "WIDGET"))),
    "field-type-int": json_damage(_field_edit(_set("type", 12))),
    "field-type-object-bad": json_damage(_field_edit(_set("type", {"type": 3}))),
    "field-type-decimal-99": json_damage(_field_edit(_set("type", "DECIMAL(99, 2)"))),
    "field-type-key-flipped": json_damage(_field_edit(_rename("type", "tzpe"))),
    "field-not-object": json_damage(lambda o: o["fields"].append("x")),
    "highestFieldId-low": json_damage(_set("highestFieldId", -1)),
    "primaryKeys-unknown-column": json_damage(_set("primaryKeys", ["nope"])),
    "primaryKeys-int": json_damage(_set("primaryKeys", 3)),
    "partitionKeys-unknown-column": json_damage(_set("partitionKeys", ["nope"])),
    "options-list": json_damage(_set("options", ["bucket"])),
    "options-value-object": json_damage(lambda o: o["options"].update(bucket={"n": 1})),
    "bucket-not-int": json_damage(lambda o: o["options"].update(bucket="two")),
    "bucket-zero": json_damage(lambda o: o["options"].update(bucket="0")),
    "top-level-array": json_damage(lambda o: [o]),
    "deep-nesting": lambda data: b"[" * 100_000 + b"]" * 100_000,
    **{f"{key}-missing": json_damage(_drop(key)) for key in SCHEMA_KEYS},
    **{f"{key}-null": json_damage(_set(key, None)) for key in SCHEMA_KEYS},
}

HINT_DAMAGE: dict[str, Damage] = {
    "empty": lambda data: b"",
    "not-a-number": lambda data: b"latest",
    "bad-utf8": lambda data: b"\xff\xfe",
    "superscript-digit": lambda data: "²".encode(),
    "negative": lambda data: b"-3",
    "zero": lambda data: b"0",
    "huge": lambda data: b"99999999999999999999999",
    "too-high": lambda data: str(int(data) + 5).encode(),
    "too-low": lambda data: b"1",
    "spaces": lambda data: b"  " + data + b"\n\n",
    "missing": lambda data: None,
}


@dataclass(frozen=True)
class Outcome:
    """What one probe saw."""

    # "equal" (healthy rows), "named" (paimon error naming the file), or a failure description
    kind: str
    detail: str = ""


@contextlib.contextmanager
def damaged(path: Path, damage: Damage) -> Iterator[None]:
    """Context body: `path` damaged, restored afterwards (the warehouse is shared by the probes)."""
    original = path.read_bytes()
    try:
        new = damage(original)
        if new is None:
            path.unlink()
        else:
            path.write_bytes(new)
        yield
    finally:
        path.write_bytes(original)


def judge(
    session: paimon_sql.Session, facts: TableFacts, version: Version, damaged_path: Path
) -> Outcome:
    """Read one version of the damaged table and classify the outcome against the healthy rows."""
    try:
        rows = read_rows(session, facts.database, facts.name, version)
    except PaimonSqlError as err:
        text = str(err)
        if damaged_path.name in text:
            return Outcome("named", text)
        return Outcome("error-not-naming-file", f"{type(err).__name__}: {text}")
    except Exception as err:  # noqa: BLE001 - a foreign exception is exactly what the oracle reports
        return Outcome("foreign-exception", f"{type(err).__module__}.{type(err).__name__}: {err}")
    if rows == facts.rows[version]:
        return Outcome("equal")
    return Outcome("wrong-rows", f"{len(rows)} rows, expected {len(facts.rows[version])}")


def metadata_files(facts: TableFacts, folder: str, prefix: str) -> list[Path]:
    """Files of the table under `folder` whose name starts with `prefix`, sorted."""
    base = facts.path / folder
    return sorted(p for p in base.iterdir() if p.name.startswith(prefix)) if base.is_dir() else []


def all_files(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes (to prove the probes leave the warehouse as they found
    it).
    """
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as fh:
                out[path] = fh.read()
    return out


# --- Avro metadata: records re-encoded with the file's own schema ---------------------------------


def avro_damage(
    edit: Callable[[list[dict[str, object]]], object],
    schema_edit: Callable[[dict], None] | None = None,
) -> Damage:
    """Damage that decodes an Avro metadata file, edits its records (and optionally its schema),
    re-encodes.
    """

    def damage(data: bytes) -> bytes:
        reader = fastavro.reader(io.BytesIO(data))
        schema = copy.deepcopy(reader.writer_schema)
        records = list(reader)
        result = edit(records)
        if result is not None:
            records = result  # type: ignore[assignment]
        if schema_edit is not None:
            schema_edit(schema)
        out = io.BytesIO()
        fastavro.writer(out, fastavro.parse_schema(schema), records, codec="null", validator=False)
        return out.getvalue()

    return damage


def _each(
    key: str, value: object, nested: str | None = None
) -> Callable[[list[dict[str, object]]], None]:
    def edit(records: list[dict[str, object]]) -> None:
        for rec in records:
            target = rec[nested] if nested else rec
            target[key] = value(target[key]) if callable(value) else value  # type: ignore[index]

    return edit


def _each_range(key: str, value: object) -> Callable[[list[dict[str, object]]], None]:
    def edit(records: list[dict[str, object]]) -> None:
        for rec in records:
            for r in rec.get("_DELETIONS_VECTORS_RANGES") or ():  # type: ignore[attr-defined]
                r[key] = value(r[key]) if callable(value) else value

    return edit


def _rename_field(old: str, new: str) -> Callable[[dict], None]:
    def edit(schema: dict) -> None:
        stack = [schema]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if node.get("name") == old:
                    node["name"] = new
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)

    return edit


def _rename_records(
    old: str, new: str
) -> Callable[[list[dict[str, object]]], list[dict[str, object]]]:
    def edit(records: list[dict[str, object]]) -> list[dict[str, object]]:
        out = []
        for rec in records:
            rec = json.loads(json.dumps(rec, default=_jsonable), object_hook=_bytes_back)
            _rename_in(rec, old, new)
            out.append(rec)
        return out

    return edit


def _jsonable(value: object) -> object:
    if isinstance(value, bytes):
        return {"__bytes__": value.hex()}
    if isinstance(value, datetime.datetime):
        return {"__millis__": int(value.timestamp() * 1000)}
    raise TypeError(value)


def _bytes_back(obj: dict[str, object]) -> object:
    if "__bytes__" in obj:
        return bytes.fromhex(str(obj["__bytes__"]))
    if "__millis__" in obj:
        return obj["__millis__"]
    return obj


def _rename_in(node: object, old: str, new: str) -> None:
    if isinstance(node, dict):
        if old in node:
            node[new] = node.pop(old)
        for value in node.values():
            _rename_in(value, old, new)
    elif isinstance(node, list):
        for value in node:
            _rename_in(value, old, new)


def _renamed(old: str, new: str) -> Damage:
    return avro_damage(_rename_records(old, new), _rename_field(old, new))


def _retype(name: str) -> Damage:
    """The field `name` re-declared as a string (a header whose schema was altered)."""

    def schema_edit(schema: dict) -> None:
        for f in schema["fields"]:
            if f["name"] == name:
                f["type"] = "string"

    return avro_damage(_each(name, lambda v: str(v)), schema_edit)


AVRO_COMMON: dict[str, Damage] = {
    "reencoded-unchanged": avro_damage(lambda records: None),
    "version-bumped": avro_damage(_each("_VERSION", 9)),
    "no-records": avro_damage(lambda records: []),
    "records-doubled": avro_damage(lambda records: records + records),
    "file-size-retyped": _retype("_FILE_SIZE"),
    "file-name-renamed": _renamed("_FILE_NAME", "_FILE_NAMF"),
    "file-name-absent": avro_damage(_each("_FILE_NAME", lambda v: str(v) + "-gone")),
    "file-name-with-folder": avro_damage(_each("_FILE_NAME", lambda v: "../" + str(v))),
    "file-size-wrong": avro_damage(_each("_FILE_SIZE", lambda v: int(v) + 1)),  # type: ignore[call-overload]
    "file-size-negative": avro_damage(_each("_FILE_SIZE", -1)),
}
MANIFEST_LIST_DAMAGE: dict[str, Damage] = {
    **AVRO_COMMON,
    "added-negative": avro_damage(_each("_NUM_ADDED_FILES", -3)),
    "schema-id-renamed": _renamed("_SCHEMA_ID", "_SCHEMA_IE"),
}
MANIFEST_DAMAGE: dict[str, Damage] = {
    **{k: v for k, v in AVRO_COMMON.items() if not k.startswith(("file-name", "file-size"))},
    "kind-flipped": avro_damage(_each("_KIND", lambda v: 1 - int(v))),  # type: ignore[call-overload]
    "kind-unknown": avro_damage(_each("_KIND", 5)),
    "bucket-renamed": _renamed("_BUCKET", "_BUCKEU"),
    "data-file-absent": avro_damage(
        _each("_FILE_NAME", lambda v: str(v) + ".gone", nested="_FILE")
    ),
    "data-file-with-folder": avro_damage(
        _each("_FILE_NAME", lambda v: "x/" + str(v), nested="_FILE")
    ),
    "level-negative": avro_damage(_each("_LEVEL", -1, nested="_FILE")),
    "row-count-negative": avro_damage(_each("_ROW_COUNT", -1, nested="_FILE")),
    "file-source-unknown": avro_damage(_each("_FILE_SOURCE", 7, nested="_FILE")),
    "partition-garbage": avro_damage(_each("_PARTITION", b"\x01")),
}
INDEX_MANIFEST_DAMAGE: dict[str, Damage] = {
    **AVRO_COMMON,
    "kind-delete": avro_damage(_each("_KIND", 1)),
    "kind-unknown": avro_damage(_each("_KIND", 3)),
    "type-flipped": avro_damage(_each("_INDEX_TYPE", "DELETION_VECTORZ")),
    "type-hash": avro_damage(_each("_INDEX_TYPE", "HASH")),
    "row-count-wrong": avro_damage(_each("_ROW_COUNT", lambda v: int(v) + 1)),  # type: ignore[call-overload]
    "ranges-null": avro_damage(_each("_DELETIONS_VECTORS_RANGES", None)),
    "ranges-renamed": _renamed("_DELETIONS_VECTORS_RANGES", "_DELETIONS_VECTORS_RANGEZ"),
    "range-file-renamed": avro_damage(_each_range("f0", lambda v: str(v) + ".other")),
    "range-offset-shifted": avro_damage(_each_range("f1", lambda v: int(v) + 1)),  # type: ignore[call-overload]
    "range-length-wrong": avro_damage(_each_range("f2", lambda v: int(v) + 4)),  # type: ignore[call-overload]
    "range-cardinality-wrong": avro_damage(_each_range("_CARDINALITY", lambda v: (v or 0) + 7)),  # type: ignore[operator]
    "range-negative-offset": avro_damage(_each_range("f1", -1)),
}


def _dv_entries(data: bytes) -> list[tuple[int, bytes]]:
    """(offset, body) of each deletion vector of a 32/64-bit index file (paimon-format.md §8)."""
    out, at = [], 1
    while at + 4 <= len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        out.append((at, data[at + 4 : at + 4 + size]))
        at += 8 + size
    return out


def _dv_rewrite(change: Callable[[bytes], bytes]) -> Damage:
    """Each vector's body changed, its size and CRC recomputed: a well-formed file with other
    content.
    """

    def damage(data: bytes) -> bytes:
        parts = [data[:1]]
        for _, body in _dv_entries(data):
            new = change(body)
            parts += [len(new).to_bytes(4, "big"), new, zlib.crc32(new).to_bytes(4, "big")]
        return b"".join(parts)

    return damage


def _plus_one(body: bytes) -> bytes:
    magic, bitmap = body[:4], BitMap.deserialize(body[4:])
    bitmap.add(max(bitmap) + 1 if bitmap else 0)
    return magic + bitmap.serialize()


DV_DAMAGE: dict[str, Damage] = {
    **{k: v for k, v in BYTE_DAMAGE.items() if k != "bad-utf8"},
    "version-2": lambda data: b"\x02" + data[1:],
    "crc-flipped": lambda data: data[:-1] + bytes([data[-1] ^ 1]),
    "magic-unknown": _dv_rewrite(lambda body: b"\x00\x00\x00\x01" + body[4:]),
    "bitmap-garbage": _dv_rewrite(lambda body: body[:4] + b"\x3a\x30\x00\x00\xff\xff"),
    "bitmap-plus-one": _dv_rewrite(_plus_one),
}

DATA_DAMAGE: dict[str, Damage] = {
    k: BYTE_DAMAGE[k]
    for k in (
        "empty",
        "truncate-half",
        "truncate-8",
        "flip-start",
        "flip-end",
        "flip-middle",
        "zeroed",
        "missing",
    )
}
