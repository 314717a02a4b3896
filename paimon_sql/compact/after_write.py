"""Compaction after every write, for the tables whose readers hide level-0 files (as Java's writer).

Batch readers of primary-key tables with ``deletion-vectors.enabled`` or ``merge-engine`` =
first-row skip level-0 files (paimon-format.md §7; seed 001), so a write is visible only once
its level-0 files are compacted. Java's writer of such tables (and of ``changelog-producer`` =
lookup tables) compacts on every write: the write's APPEND (or OVERWRITE) snapshot is followed by
a COMPACT snapshot of the (partition, bucket)s it touched (seed 000; tests/interop/README.md).
`compact_after_write` does the same: deletion-vector, first-row and lookup-changelog tables get
Java's lookup compaction (`paimon_sql.compact.lookup`: the runs Java picks merged one level up,
reading only the keys they hold; deletion-vector tables mark the rows they replace), and a bucket
where Java picks every run is fully compacted (`paimon_sql.compact.full`). The writer
(``paimon_sql.sql``, ``paimon_sql.spark``) passes the bucket reader that runs the merge on
DuckDB.

* ``write-only`` = true: no compaction (Java: a separate job compacts).
* ``changelog-producer`` = lookup: every write is compacted (Java's writer forces level 0 up at each
  commit), and the compaction writes the lookup changelog (`paimon_sql.compact.changelog`).
* ``changelog-producer`` = full-compaction: every ``full-compaction.delta-commits`` writes (default
  1, as Flink's writer) the table is fully compacted, writing the full-compaction changelog.
* A compaction that fails is retried once; then the statement fails with an error naming the
  snapshot that holds the (committed, still invisible) rows and the ``CALL sys.compact`` that
  makes them visible. The committed write is never undone.

>>> needs_compaction({"deletion-vectors.enabled": "true"}, ("id",))
True
>>> needs_compaction({"deletion-vectors.enabled": "true", "write-only": "true"}, ("id",))
False
>>> needs_compaction({"merge-engine": "first-row"}, ())
False
>>> needs_compaction({"changelog-producer": "lookup"}, ("id",))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.commit.retry import FIRST_PAUSE, pause
from paimon_sql.compact.changelog import compact
from paimon_sql.compact.lookup import lookup_rewrite
from paimon_sql.errors import (
    CommitConflictError,
    OptionError,
    PaimonSqlError,
    UnsupportedFeatureError,
)
from paimon_sql.format.option_registry import merge_conflicts, refuse_unwritable_options
from paimon_sql.format.options import ChangelogProducer, CoreOptions, MergeEngine
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.plan.scan import hides_level0
from paimon_sql.types import refuse_case_clashes

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from paimon_sql.catalog import Table
    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.compact.full import BucketReader
    from paimon_sql.format.snapshot import Snapshot

#: Attempts of a compaction after a write that failed other than by a concurrent commit (a
#: conflict is retried as a commit is, up to ``commit.max-retries`` times).
_ATTEMPTS = 2


def _dv(options: Mapping[str, str]) -> bool:
    core = CoreOptions(options)
    return core.deletion_vectors and not core.deletion_vectors_merge_on_read


def _lookup(options: Mapping[str, str]) -> bool:
    return CoreOptions(options).changelog_producer is ChangelogProducer.LOOKUP


def _needs_lookup(options: Mapping[str, str]) -> bool:
    """Java's ``needLookup`` (deletion vectors, first-row, the lookup changelog producer).

    Such a table is compacted after a write by a lookup compaction (`lookup_rewrite`).
    """
    first_row = CoreOptions(options).merge_engine is MergeEngine.FIRST_ROW
    return _dv(options) or first_row or _lookup(options)


def _full(options: Mapping[str, str]) -> bool:
    return CoreOptions(options).changelog_producer is ChangelogProducer.FULL_COMPACTION


def needs_compaction(options: Mapping[str, str], primary_keys: Sequence[str]) -> bool:
    """Whether a write to the table may be followed by a COMPACT snapshot (see the module doc)."""
    if not primary_keys or CoreOptions(options).flag("write-only"):
        return False
    return hides_level0(options, primary_keys) or _lookup(options) or _full(options)


def check_writable(table: Table) -> None:
    """Refuse, before writing, a write paimon-sql cannot follow with its compaction.

    Every table it writes can be compacted now (the lookup and full-compaction changelogs are
    written), so this checks the options the compaction reads, refuses the options of a table
    (one Java made) that paimon-sql's writer would ignore (`refuse_unwritable_options`), and the
    option pairs Java's merge functions refuse (`merge_conflicts`: Java refuses every write).
    """
    schema = table.latest_schema
    refuse_case_clashes(
        schema.field_names,
        f"of table {table.name}",
        "paimon-sql cannot write it until one of them is renamed (RENAME COLUMN)",
    )
    options = schema.options
    keys = {"primary-key": ",".join(schema.primary_keys)}
    refuse_unwritable_options({**options, **keys}, table.name)
    if schema.primary_keys:
        conflicts = merge_conflicts(options, schema.field_names)
        if conflicts:
            raise OptionError(f"{table.name}: " + "; ".join(conflicts))
    if _full(options):
        _delta_commits(options, table.name)


def _delta_commits(options: Mapping[str, str], name: str) -> int:
    value = CoreOptions(options).optional_integer("full-compaction.delta-commits")
    if value is not None and value < 1:
        raise UnsupportedFeatureError(
            f"{name}: 'full-compaction.delta-commits' = {value} must be at least 1"
        )
    return 1 if value is None else value


def _commits_since_compaction(table: Table, written: Snapshot) -> int:
    """APPEND/OVERWRITE snapshots from `written` back to the last COMPACT one (or the first)."""
    count = 0
    snapshot_id = written.id
    earliest = table.earliest_snapshot_id() or 1
    while snapshot_id >= earliest:
        if table.snapshot(snapshot_id).commit_kind is CommitKind.COMPACT:
            break
        count += 1
        snapshot_id -= 1
    return count


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
    buckets: set[tuple[bytes, int]] | None = {
        (m.partition, m.bucket) for m in messages if m.new_files
    }
    if not buckets:
        return None
    if _full(schema.options) and not hides_level0(schema.options, schema.primary_keys):
        every = _delta_commits(schema.options, table.name)
        if _commits_since_compaction(table, written) < every:
            return None
        if every > 1:
            buckets = None  # every bucket written since the last full compaction
    error: Exception | None = None
    retries = CoreOptions(schema.options).integer("commit.max-retries")
    delay = FIRST_PAUSE
    for attempt in range(retries + 1):
        if attempt:
            if not isinstance(error, CommitConflictError) and attempt >= _ATTEMPTS:
                break
            delay = pause(delay, 1.0)
        try:
            rewrite = lookup_rewrite(read) if _needs_lookup(schema.options) else None
            snapshot = compact(table, read, buckets=buckets, rewrite=rewrite)
        except Exception as err:  # noqa: BLE001 -- retried (conflicts as a commit is), then reported
            error = err
            continue
        finally:
            refresh()
        return snapshot
    raise PaimonSqlError(
        f"the rows were committed to {table.name} in snapshot {written.id}, but they are not "
        f"visible until CALL sys.compact(table => '{table.name}') succeeds: the compaction "
        f"after the write failed ({type(error).__name__}: {error})"
    ) from error
