"""Compaction after every write, for the tables whose readers hide level-0 files (as Java's writer).

Batch readers of primary-key tables with ``deletion-vectors.enabled`` or ``merge-engine`` =
first-row skip level-0 files (paimon-format.md §7; seed 001), so a write is visible only once
its level-0 files are compacted. Java's writer of such tables (and of ``changelog-producer`` =
lookup tables) compacts on every write: the write's APPEND (or OVERWRITE) snapshot is followed by
a COMPACT snapshot of the (partition, bucket)s it touched (seed 000; tests/interop/README.md).
`compact_after_write` does the same: deletion-vector tables get Java's lookup compaction
(`paimon_sql.compact.lookup`: the runs Java picks merged one level up, the rows they replace
marked in deletion vectors), first-row tables the full compaction of `paimon_sql.compact.full`
(every file of a touched bucket merged to the top level). The writer (``paimon_sql.sql``,
``paimon_sql.spark``) passes the bucket reader that runs the merge on DuckDB.

* ``write-only`` = true: no compaction (Java: a separate job compacts).
* ``changelog-producer`` = lookup: the compaction must write changelog files, which paimon-sql
  does not do. Where level 0 is visible anyway (no deletion vectors, not first-row) the write is
  left as its APPEND snapshot; where it would be invisible, `check_writable` refuses the statement
  before anything is written.
* A compaction that fails is retried once; then the statement fails with an error naming the
  snapshot that holds the (committed, still invisible) rows and the ``CALL sys.compact`` that
  makes them visible. The committed write is never undone.

>>> needs_compaction({"deletion-vectors.enabled": "true"}, ("id",))
True
>>> needs_compaction({"deletion-vectors.enabled": "true", "write-only": "true"}, ("id",))
False
>>> needs_compaction({"merge-engine": "first-row"}, ())
False
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.compact.full import compact
from paimon_sql.compact.lookup import lookup_rewrite
from paimon_sql.errors import PaimonSqlError, UnsupportedFeatureError
from paimon_sql.format.options import ChangelogProducer, CoreOptions, MergeEngine

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from paimon_sql.catalog import Table
    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.compact.full import BucketReader
    from paimon_sql.format.snapshot import Snapshot

_ATTEMPTS = 2


def _dv(options: Mapping[str, str]) -> bool:
    core = CoreOptions(options)
    return core.deletion_vectors and not core.deletion_vectors_merge_on_read


def hides_level0(options: Mapping[str, str], primary_keys: Sequence[str]) -> bool:
    """Whether batch reads of the table skip level-0 files (deletion vectors, first-row)."""
    if not primary_keys:
        return False
    return _dv(options) or CoreOptions(options).merge_engine is MergeEngine.FIRST_ROW


def _lookup(options: Mapping[str, str]) -> bool:
    return CoreOptions(options).changelog_producer is ChangelogProducer.LOOKUP


def needs_compaction(options: Mapping[str, str], primary_keys: Sequence[str]) -> bool:
    """Whether a write to the table is followed by a COMPACT snapshot (see the module doc)."""
    if not primary_keys or CoreOptions(options).flag("write-only"):
        return False
    return hides_level0(options, primary_keys) and not _lookup(options)


def check_writable(table: Table) -> None:
    """Refuse, before writing, a write whose rows would stay invisible.

    That is: level 0 is hidden, and the compaction that would show it needs the lookup changelog
    paimon-sql cannot write.
    """
    schema = table.latest_schema
    options = schema.options
    if CoreOptions(options).flag("write-only") or not _lookup(options):
        return
    if hides_level0(options, schema.primary_keys):
        raise UnsupportedFeatureError(
            f"writing to {table.name}: its readers see a write only after a lookup compaction, "
            "and with 'changelog-producer' = 'lookup' that compaction must write changelog "
            "files, which paimon-sql does not do yet; write with Spark or Flink, or set "
            "'write-only' = 'true' and let a Flink/Spark job compact"
        )


def _nothing() -> None:
    pass


def compact_after_write(
    table: Table,
    messages: Sequence[CommitMessage],
    written: Snapshot,
    read: BucketReader,
    *,
    refresh: Callable[[], None] = _nothing,
) -> Snapshot | None:
    """After the write committed as `written`, compact the buckets `messages` touched.

    One COMPACT snapshot of the (partition, bucket)s the write added files to, reading merged rows
    with `read`; None when the table needs none.

    `refresh` runs after each attempt, failed or not (the SQL session re-binds its views of the
    table there).
    """
    schema = table.latest_schema
    if not needs_compaction(schema.options, schema.primary_keys):
        return None
    buckets = {(m.partition, m.bucket) for m in messages if m.new_files}
    if not buckets:
        return None
    error: Exception | None = None
    for _ in range(_ATTEMPTS):
        try:
            rewrite = lookup_rewrite(read) if _dv(schema.options) else None
            snapshot = compact(table, read, buckets=buckets, rewrite=rewrite)
        except Exception as err:  # noqa: BLE001 -- any failure is retried once, then reported
            error = err
            continue
        finally:
            refresh()
        return snapshot
    raise PaimonSqlError(
        f"the rows were committed to {table.name} in snapshot {written.id}, but they are not "
        f"visible until CALL sys.compact(table => '{table.name}') succeeds: the compaction "
        f"after the write failed twice ({type(error).__name__}: {error})"
    ) from error
