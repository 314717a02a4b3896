"""Changelog files written by compaction: ``changelog-producer`` = lookup and full-compaction.

Paimon 1.3 produces these changelogs while it compacts (``LookupChangelogMergeFunctionWrapper``,
``FullChangelogMergeFunctionWrapper``), with one rule for both. Per key, *before* is the key's
state the compaction starts from and *after* the merged result:

* before absent (or a retraction), after present: ``+I`` after;
* before present, after absent (deleted): ``-D`` before;
* both present: ``-U`` before then ``+U`` after -- unless ``changelog-producer.row-deduplicate``
  is true and the values are equal (ignoring ``changelog-producer.row-deduplicate-ignore-fields``),
  then nothing.

What *before* is, and which keys get a changelog:

* **lookup** (every compaction that takes level-0 files): the keys of the level-0 files; before is
  the key's merged state in the files above level 0 (what Java finds at the high levels, or looks
  up further up). First-row tables (``FirstRowMergeFunctionWrapper``) only produce ``+I`` for a
  key seen for the first time.
* **full-compaction** (every full compaction): the keys of the files below the top level; before
  is the key's record in the top-level files (the last full compaction's output).

The -U/-D rows carry the before record's sequence number, the +I/+U rows the after record's. The
rows are written sorted by key (``-U`` before ``+U``) as ``changelog-<uuid>-<n>.<format>`` files
in the bucket, in the data file layout, at the compaction's output level with file source APPEND
(Java's ``createRollingChangelogFileWriter``); the COMPACT commit lists them in its changelog
manifest list.

>>> _equal({"a": 1, "b": 2}, {"a": 1, "b": 3}, ignore=("b",))
True
"""

from __future__ import annotations

import itertools
import uuid
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_sql.catalog import names
from paimon_sql.compact.full import compact as full_compact
from paimon_sql.compact.lookup import (
    _distinct,
    _key_lookup,
    _keys,
    _look_up,
    _only_files,
    _sortable,
)
from paimon_sql.format.options import ChangelogProducer, CoreOptions, MergeEngine
from paimon_sql.types import RowKind, arrow_type
from paimon_sql.write.data_file import data_file_name, write_data_file

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from paimon_sql.catalog import Table
    from paimon_sql.compact.full import BucketReader, ChangelogMaker, CompactUnit, Rewriter
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.scan import ScanPlan

SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"


def produces_changelog(schema: TableSchema) -> bool:
    """Whether compacting the table writes changelog files (lookup, full-compaction producers)."""
    producer = CoreOptions(schema.options).changelog_producer
    return bool(schema.primary_keys) and producer in (
        ChangelogProducer.LOOKUP,
        ChangelogProducer.FULL_COMPACTION,
    )


def _equal(before: dict[str, Any], after: dict[str, Any], ignore: Sequence[str]) -> bool:
    return all(before[k] == after[k] for k in before if k not in ignore and k in after)


def _by_key(
    batches: Iterable[pa.RecordBatch], keys: Sequence[str]
) -> dict[tuple[Any, ...], dict[str, Any]]:
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for batch in batches:
        for row in batch.to_pylist():
            out[tuple(row[k] for k in keys)] = row
    return out


def changelog_rows(
    plan: ScanPlan, files: Sequence[DataFileMeta], read: BucketReader
) -> list[dict[str, Any]]:
    """The changelog records of compacting `files` (every file of one bucket), sorted by key.

    Only the keys that get a changelog are read (a semi-join below the merge), from the files
    whose key ranges and row groups may hold them (`paimon_sql.compact.lookup`).
    """
    schema = plan.schema
    options = CoreOptions(schema.options)
    producer = options.changelog_producer
    keys = list(schema.trimmed_primary_keys)
    top = options.top_level
    if producer is ChangelogProducer.LOOKUP:
        fresh = [f for f in files if f.level == 0]
        older = [f for f in files if f.level > 0]
    else:  # a key only in the top level has one record: no change (Java's single-kv case)
        fresh = [f for f in files if f.level != top]
        older = [f for f in files if f.level == top]
    if not fresh:
        return []
    touched = _distinct(pa.concat_tables([_keys(plan, f) for f in fresh]))
    if touched.num_rows == 0:
        return []
    hits = _look_up(plan, older, touched, _key_lookup(read))
    found = [f for f in older if f.file_name in hits]
    after = _by_key(read(_only_files(plan, [*fresh, *found]), touched), keys)
    before = _by_key(read(_only_files(plan, found), touched), keys) if found else {}
    dedup = options.flag("changelog-producer.row-deduplicate")
    ignore = {SEQ, KIND}
    ignored = options.options.get("changelog-producer.row-deduplicate-ignore-fields", "")
    ignore |= {f.strip() for f in ignored.split(",") if f.strip()}
    first_row = options.merge_engine is MergeEngine.FIRST_ROW
    out: list[dict[str, Any]] = []
    for key in sorted((tuple(row[k] for k in keys) for row in touched.to_pylist()), key=_sortable):
        old, new = before.get(key), after.get(key)
        if old is None:
            if new is not None:
                out.append({**new, KIND: RowKind.INSERT.value})
        elif first_row:
            continue
        elif new is None:
            out.append({**old, KIND: RowKind.DELETE.value})
        elif not (dedup and _equal(old, new, tuple(ignore))):
            out.append({**old, KIND: RowKind.UPDATE_BEFORE.value})
            out.append({**new, KIND: RowKind.UPDATE_AFTER.value})
    return out


def changelog_maker(read: BucketReader) -> ChangelogMaker:
    """The changelog files of one compaction unit, written before the unit is rewritten."""
    counter = itertools.count()
    prefix = str(uuid.uuid4())

    def make(unit: CompactUnit, rewriter: Rewriter, plan: ScanPlan) -> tuple[DataFileMeta, ...]:
        rows = changelog_rows(plan, unit.files, read)
        if not rows:
            return ()
        schema = plan.schema
        options = CoreOptions(schema.options)
        fields = [pa.field(f.name, arrow_type(f.type)) for f in schema.fields]
        arrow = pa.schema([*fields, pa.field(SEQ, pa.int64()), pa.field(KIND, pa.int8())])
        table = pa.Table.from_pylist(rows, schema=arrow)
        name = data_file_name(
            prefix,
            next(counter),
            options.file_format,
            names.file_prefix(options.options, "changelog-file.prefix"),
        )
        path = rewriter.table.fileio.join(plan.splits[0].bucket_path, name)
        rewriter.written.append(path)
        meta = write_data_file(
            rewriter.table.fileio, path, table, schema=schema, level=options.top_level
        )
        return (meta,)

    return make


def compact(table: Table, read: BucketReader, **kwargs: Any) -> Snapshot | None:
    """`paimon_sql.compact.full.compact`, writing changelog files where the table produces them.

    The keyword arguments are `full_compact`'s (``partition_ok``, ``buckets``, ``rewrite``).
    """
    maker = changelog_maker(read) if produces_changelog(table.latest_schema) else None
    return full_compact(table, read, changelog=maker, **kwargs)
