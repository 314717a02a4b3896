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

>>> old, new = pa.table({"a": [1, None], "b": [2, 2]}), pa.table({"a": [1, None], "b": [2, 3]})
>>> _same(old, new, ["a"]).to_pylist(), _same(old, new, ["a", "b"]).to_pylist()
([True, True], [True, False])
"""

from __future__ import annotations

import itertools
import uuid
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.catalog import names
from paimon_sql.compact.full import compact as full_compact
from paimon_sql.compact.lookup import _distinct, _key_lookup, _keys, _look_up, _only_files
from paimon_sql.format.options import ChangelogProducer, CoreOptions, MergeEngine
from paimon_sql.io.arrays import arange
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


def changelog_table(
    plan: ScanPlan, files: Sequence[DataFileMeta], read: BucketReader
) -> pa.Table | None:
    """The changelog records of compacting `files` (every file of one bucket), sorted by key.

    The table's columns, then ``_SEQUENCE_NUMBER`` and ``_VALUE_KIND``; None when there are none.
    Only the keys that get a changelog are read (a semi-join below the merge), from the files
    whose key ranges and row groups may hold them (`paimon_sql.compact.lookup`), and paired
    with Arrow joins on the key columns (no Python row objects).
    """
    schema = plan.schema
    options = CoreOptions(schema.options)
    keys = list(schema.trimmed_primary_keys)
    top = options.top_level
    if options.changelog_producer is ChangelogProducer.LOOKUP:
        fresh = [f for f in files if f.level == 0]
        older = [f for f in files if f.level > 0]
    else:  # a key only in the top level has one record: no change (Java's single-kv case)
        fresh = [f for f in files if f.level != top]
        older = [f for f in files if f.level == top]
    if not fresh:
        return None
    touched = _distinct(pa.concat_tables([_keys(plan, f) for f in fresh]))
    if touched.num_rows == 0:
        return None
    hits = _look_up(plan, older, touched, _key_lookup(read))
    found = [f for f in older if f.file_name in hits]
    fields = [pa.field(f.name, arrow_type(f.type)) for f in schema.fields]
    arrow = pa.schema([*fields, pa.field(SEQ, pa.int64()), pa.field(KIND, pa.int8())])
    # of the older files, only the rows of the touched keys are read (`hits`: their positions)
    after = _rows(read(_only_files(plan, [*fresh, *found]), touched, rows=hits), arrow)
    before = (
        _rows(read(_only_files(plan, found), touched, rows=hits), arrow)
        if found
        else arrow.empty_table()
    )
    pairs = (
        after.select(keys)
        .append_column(_AFTER, arange(after.num_rows))
        .join(
            before.select(keys).append_column(_BEFORE, arange(before.num_rows)),
            keys=keys,
            join_type="full outer",
        )
    )
    ia, ib = pairs.column(_AFTER), pairs.column(_BEFORE)
    has_a, has_b = pc.is_valid(ia), pc.is_valid(ib)
    pieces = [_kind(after.take(ia.filter(pc.invert(has_b))), RowKind.INSERT, 0)]
    if options.merge_engine is not MergeEngine.FIRST_ROW:  # first-row: only new keys, +I
        pieces.append(_kind(before.take(ib.filter(pc.invert(has_a))), RowKind.DELETE, 0))
        both = pc.and_(has_a, has_b)
        pa_, pb_ = ia.filter(both), ib.filter(both)
        old, new = before.take(pb_), after.take(pa_)
        if options.flag("changelog-producer.row-deduplicate"):
            ignored = options.options.get("changelog-producer.row-deduplicate-ignore-fields", "")
            ignore = {SEQ, KIND} | {f.strip() for f in ignored.split(",") if f.strip()}
            changed = pc.invert(_same(old, new, [n for n in arrow.names if n not in ignore]))
            old, new = old.filter(changed), new.filter(changed)
        pieces.append(_kind(old, RowKind.UPDATE_BEFORE, 0))
        pieces.append(_kind(new, RowKind.UPDATE_AFTER, 1))
    out = pa.concat_tables(pieces)
    if out.num_rows == 0:
        return None
    order = out.sort_by([*((k, "ascending") for k in keys), (_ORDER, "ascending")])
    return order.drop_columns([_ORDER])


_AFTER, _BEFORE, _ORDER = "__paimon_after", "__paimon_before", "__paimon_order"


def _rows(batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> pa.Table:
    kept = [b for b in batches if b.num_rows]
    if not kept:
        return schema.empty_table()
    return pa.Table.from_batches(kept).select(schema.names).cast(schema)


def _kind(rows: pa.Table, kind: RowKind, order: int) -> pa.Table:
    """`rows` with ``_VALUE_KIND`` = `kind` and a sort tag (-U before +U of a key)."""
    n = rows.num_rows
    at = rows.schema.get_field_index(KIND)
    rows = rows.set_column(at, KIND, pa.array([kind.value] * n, pa.int8()))
    return rows.append_column(_ORDER, pa.array([order] * n, pa.int8()))


def _same(old: pa.Table, new: pa.Table, columns: Sequence[str]) -> pa.Array[Any]:
    """Per row pair: whether every column of `columns` holds equal values (NULL equals NULL)."""
    same: Any = pa.array([True] * old.num_rows, pa.bool_())
    for name in columns:
        a: Any = old.column(name)
        b: Any = new.column(name)
        try:
            equal = pc.fill_null(pc.equal(a, b), False)
            column: Any = pc.or_(equal, pc.and_(pc.is_null(a), pc.is_null(b)))
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # nested types: compare in Python
            column = pa.array(
                [x == y for x, y in zip(a.to_pylist(), b.to_pylist(), strict=True)], pa.bool_()
            )
        same = pc.and_(same, column)
    result: pa.Array[Any] = same.combine_chunks() if hasattr(same, "combine_chunks") else same
    return result


def changelog_maker(read: BucketReader) -> ChangelogMaker:
    """The changelog files of one compaction unit, written before the unit is rewritten."""
    counter = itertools.count()
    prefix = str(uuid.uuid4())

    def make(unit: CompactUnit, rewriter: Rewriter, plan: ScanPlan) -> tuple[DataFileMeta, ...]:
        table = changelog_table(plan, unit.files, read)
        if table is None:
            return ()
        schema = plan.schema
        options = CoreOptions(schema.options)
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
