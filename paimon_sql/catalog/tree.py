"""A table version as a tree: snapshot → manifest lists → manifests → files (the shell's ``.tree``).

>>> session = paimon_sql.connect(tmp_warehouse)
>>> for statement in (
...     "CREATE DATABASE db",
...     "CREATE TABLE db.t (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
...     " WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true')",
...     "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')",
...     "INSERT INTO db.t VALUES (2, 'B')",
... ):
...     _ = session.sql(statement)
>>> import re
>>> for line in tree_lines(session.table("db.t")):
...     print(re.sub(r"-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "-…", line))
... # doctest: +NORMALIZE_WHITESPACE
snapshot 4 (COMPACT, schema 0, 3 records, +0 in this commit)
├── base manifest list manifest-list-…-0
│   ├── manifest manifest-…-1 (1 added, 0 deleted)
│   │   └── + bucket-0/data-…-0.parquet (level 0, 2 rows, seq 0..1)
│   ├── manifest manifest-…-1 (1 added, 1 deleted)
│   │   ├── - bucket-0/data-…-0.parquet (level 0, 2 rows, seq 0..1)
│   │   └── + bucket-0/data-…-0.parquet (level 5, 2 rows, seq 0..1)
│   └── manifest manifest-…-1 (1 added, 0 deleted)
│       └── + bucket-0/data-…-0.parquet (level 0, 1 row, seq 2..2)
├── delta manifest list manifest-list-…-2
│   └── manifest manifest-…-1 (1 added, 1 deleted)
│       ├── - bucket-0/data-…-0.parquet (level 0, 1 row, seq 2..2)
│       └── + bucket-0/data-…-0.parquet (level 4, 1 row, seq 2..2)
└── index manifest index-manifest-…-3
    └── bucket-0 DELETION_VECTORS index-…-0 (1 vectors)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.errors import PaimonSqlError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.manifest import FileKind
from paimon_sql.format.partition import PartitionLayout

if TYPE_CHECKING:
    from paimon_sql.catalog.table import Table
    from paimon_sql.format.manifest import ManifestEntry
    from paimon_sql.format.snapshot import Snapshot

__all__ = ["tree_lines"]

_MID, _LAST, _BAR, _GAP = "├── ", "└── ", "│   ", "    "


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _where(table: Table, entry: ManifestEntry) -> str:
    schema = table.latest_schema
    parts = []
    if schema.partition_keys:
        layout = PartitionLayout.of(schema)
        parts.append(layout.path(decode_row(entry.partition, layout.types)))
    parts.append(f"bucket-{entry.bucket}")
    return "/".join(parts)


def _entry(table: Table, entry: ManifestEntry) -> str:
    f = entry.file
    sign = "+" if entry.kind is FileKind.ADD else "-"
    seq = f"seq {f.min_sequence_number}..{f.max_sequence_number}"
    return (
        f"{sign} {_where(table, entry)}/{f.file_name} "
        f"(level {f.level}, {_count(f.row_count, 'row')}, {seq})"
    )


def _children(lines: list[str], prefix: str, items: list[tuple[str, list[str]]]) -> None:
    """Append `items` (a label and its already-rendered sub-lines) as children under `prefix`."""
    for i, (label, sub) in enumerate(items):
        last = i == len(items) - 1
        lines.append(prefix + (_LAST if last else _MID) + label)
        extend = prefix + (_GAP if last else _BAR)
        lines.extend(extend + line for line in sub)


def tree_lines(table: Table, snapshot: Snapshot | None = None, *, limit: int = 3) -> list[str]:
    """The lines of `snapshot`'s (default: the latest) tree.

    At most `limit` files per manifest are listed (then ``...``); a file that cannot be read is
    shown with its error instead of its children.
    """
    snapshot = table.latest_snapshot() if snapshot is None else snapshot
    if snapshot is None:
        return [f"{table.name} has no snapshot"]
    head = (
        f"snapshot {snapshot.id} ({snapshot.commit_kind.value}, schema {snapshot.schema_id}, "
        f"{_count(snapshot.total_record_count or 0, 'record')}, "
        f"+{snapshot.delta_record_count or 0} in this commit)"
    )
    items: list[tuple[str, list[str]]] = []
    lists = [
        ("base manifest list", snapshot.base_manifest_list),
        ("delta manifest list", snapshot.delta_manifest_list),
        ("changelog manifest list", snapshot.changelog_manifest_list),
    ]
    for what, name in lists:
        if name:
            items.append((f"{what} {name}", _manifest_list(table, name, limit)))
    if snapshot.index_manifest:
        items.append((f"index manifest {snapshot.index_manifest}", _index(table, snapshot)))
    lines = [head]
    _children(lines, "", items)
    return lines


def _manifest_list(table: Table, name: str, limit: int) -> list[str]:
    try:
        metas = table.manifest_list(name)
    except PaimonSqlError as err:
        return [f"{_LAST}unreadable: {err}"]
    items: list[tuple[str, list[str]]] = []
    for meta in metas:
        label = (
            f"manifest {meta.file_name} "
            f"({meta.num_added_files} added, {meta.num_deleted_files} deleted)"
        )
        try:
            entries = table.manifest(meta.file_name)
        except PaimonSqlError as err:
            items.append((label, [f"{_LAST}unreadable: {err}"]))
            continue
        files: list[tuple[str, list[str]]] = [(_entry(table, e), []) for e in entries[:limit]]
        if len(entries) > limit:
            files.append(("...", []))
        sub: list[str] = []
        _children(sub, "", files)
        items.append((label, sub))
    lines: list[str] = []
    _children(lines, "", items)
    return lines


def _index(table: Table, snapshot: Snapshot) -> list[str]:
    assert snapshot.index_manifest is not None
    try:
        entries = table.index_manifest(snapshot.index_manifest)
    except PaimonSqlError as err:
        return [f"{_LAST}unreadable: {err}"]
    items: list[tuple[str, list[str]]] = []
    for e in entries:
        meta = e.index_file
        count = len(meta.dv_ranges or ())
        detail = f"{count} vectors" if meta.dv_ranges is not None else f"{meta.row_count} rows"
        if meta.global_index is not None:
            g = meta.global_index
            detail += (
                f", global index of field {g.index_field_id} over row ids "
                f"{g.row_range_start}..{g.row_range_end}"
            )
        items.append((f"bucket-{e.bucket} {meta.index_type} {meta.file_name} ({detail})", []))
    lines: list[str] = []
    _children(lines, "", items)
    return lines
