"""The table options a user may set, with their types, defaults and ranges, and `validate_options`.

Every key here is an Apache Paimon table option (``CoreOptions``; defaults as in paimon-format.md §11).
`validate_options` checks one options map against a table's columns and keys: each value against its
option's type, then the combinations Paimon refuses (``SchemaValidation``, seeds 000 and 001).

>>> OPTIONS["bucket"].default, OPTIONS["merge-engine"].values
('-1', ('deduplicate', 'partial-update', 'aggregation', 'first-row'))
>>> validate_options({"bucket": " 4 ", "Merge-Engine": "first-row"}, fields=None,
...                  primary_keys=("id",), partition_keys=())
Traceback (most recent call last):
...
paimon_sql.errors.OptionError: unknown table option 'Merge-Engine'; did you mean 'merge-engine'?

**Unknown keys: a deliberate decision.** Paimon itself stores any key it is given, so a typo such as
``'buckets' = '4'`` silently does nothing there. paimon-sql refuses a key it does not know and suggests
the nearest valid ones, except:

* keys under a namespace owned by an engine, a connector or a file format (`PASSTHROUGH_PREFIXES`:
  ``sink.``, ``lookup.``, ``parquet.``, ``orc.``, ``fs.``, ...) and a few Flink/Spark connector keys
  (`PASSTHROUGH_KEYS`). They are kept verbatim, unvalidated, because Paimon keeps them too and the
  engines that read them need them;
* ``connector`` (Flink's WITH clause) must be ``paimon`` and is dropped, ``type`` must be ``table`` and
  is dropped (format/object tables are not supported), ``path`` is refused: the catalog decides where
  a table lives, as Paimon's filesystem catalog does;
* ``primary-key`` and ``partition`` (Spark's TBLPROPERTIES form) are keys of the schema, not options:
  `split_key_options` moves them out, and they may not contradict keys given in the DDL.
"""

from __future__ import annotations

import difflib
import enum
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_sql.errors import OptionError, UnsupportedFeatureError

if TYPE_CHECKING:
    from paimon_sql.types import DataField, DataType

INT_MAX = 2147483647
LONG_MAX = 9223372036854775807


class OptionKind(enum.Enum):
    """How an option's value is written."""

    INT = "int"
    BOOL = "bool"
    STRING = "string"
    ENUM = "enum"
    MEMORY = "memory size"  # "256 mb", "64kb", "1048576"
    DURATION = "duration"  # "1 h", "30 min", "500 ms"; a bare number is milliseconds
    COLUMNS = "column list"  # "a,b"
    LIST = "list"  # comma separated values
    STATS_MODE = "stats mode"  # none, counts, full, truncate(N)
    DOUBLE = "double"


@dataclass(frozen=True, slots=True, kw_only=True)
class OptionSpec:
    """One table option: its key (``fields.<column>.…`` for per-column keys), type, default and doc."""

    key: str
    kind: OptionKind
    default: str | None
    doc: str
    values: tuple[str, ...] = ()
    min: int | None = None
    max: int | None = None

    def describe(self) -> str:
        """What a valid value looks like, for error messages."""
        if self.kind is OptionKind.ENUM:
            return "one of " + ", ".join(self.values)
        if self.kind is OptionKind.INT:
            hi = "" if self.max in (None, INT_MAX, LONG_MAX) else str(self.max)
            lo = "" if self.min is None else str(self.min)
            return f"an integer in [{lo or '-inf'}, {hi or 'inf'}]"
        hints = {
            OptionKind.BOOL: "true or false",
            OptionKind.MEMORY: "a memory size such as '256 mb', '64 kb' or '1048576' (bytes)",
            OptionKind.DURATION: "a duration such as '1 h', '30 min', '10 s' or '500 ms'",
            OptionKind.STATS_MODE: "none, counts, full or truncate(N)",
            OptionKind.COLUMNS: "a comma-separated list of column names",
            OptionKind.DOUBLE: "a number",
        }
        return hints.get(self.kind, "a string")


def _o(key: str, kind: OptionKind, default: str | None, doc: str, **kw: object) -> OptionSpec:
    return OptionSpec(key=key, kind=kind, default=default, doc=doc, **kw)  # type: ignore[arg-type]


def _int(
    key: str, default: str | None, doc: str, lo: int | None = 1, hi: int = INT_MAX
) -> OptionSpec:
    return _o(key, OptionKind.INT, default, doc, min=lo, max=hi)


def _enum(key: str, default: str | None, doc: str, *values: str) -> OptionSpec:
    return _o(key, OptionKind.ENUM, default, doc, values=values)


_B, _S, _M, _D, _C, _L = (
    OptionKind.BOOL,
    OptionKind.STRING,
    OptionKind.MEMORY,
    OptionKind.DURATION,
    OptionKind.COLUMNS,
    OptionKind.LIST,
)
MERGE_ENGINES = ("deduplicate", "partial-update", "aggregation", "first-row")
CHANGELOG_PRODUCERS = ("none", "input", "lookup", "full-compaction")
FILE_FORMATS = ("parquet", "orc", "avro")
COMPRESSIONS = (
    "zstd",
    "lz4",
    "snappy",
    "gzip",
    "zlib",
    "lzo",
    "brotli",
    "deflate",
    "none",
    "uncompressed",
)
SCAN_MODES = (
    "default", "latest-full", "full", "latest", "compacted-full", "from-timestamp",
    "from-file-creation-time", "from-snapshot", "from-snapshot-full", "incremental",
)  # fmt: skip

AGG_FUNCTION_NAMES = (
    "sum", "product", "count", "max", "min", "last_value", "last_non_null_value", "first_value",
    "first_non_null_value", "first_not_null_value", "listagg", "bool_and", "bool_or", "collect",
    "merge_map", "nested_update", "nested_partial_update", "rbm32", "rbm64", "hll_sketch", "theta_sketch",
)  # fmt: skip

_SPECS: tuple[OptionSpec, ...] = (
    # --- keys and buckets (seed 000) ---
    _o(
        "primary-key",
        _C,
        None,
        "Primary key columns (Spark TBLPROPERTIES form; moved into the schema).",
    ),
    _o("partition", _C, None, "Partition columns (TBLPROPERTIES form; moved into the schema)."),
    _int(
        "bucket",
        "-1",
        "Buckets per partition: N > 0 fixed, -1 dynamic (PK) or unaware (append), -2 postpone.",
        -2,
    ),
    _o(
        "bucket-key",
        _C,
        None,
        "Columns hashed to pick the bucket; default the trimmed primary key.",
    ),
    _o(
        "primary-key.nullable",
        _B,
        "false",
        "Keep primary-key columns nullable instead of forcing NOT NULL.",
    ),
    _int(
        "dynamic-bucket.target-row-num",
        "2000000",
        "Rows per bucket before dynamic mode opens a new one.",
        1,
        LONG_MAX,
    ),
    _int(
        "dynamic-bucket.initial-buckets", None, "Buckets a partition starts with in dynamic mode."
    ),
    _int(
        "dynamic-bucket.max-buckets",
        "-1",
        "Most buckets per partition in dynamic mode; -1 unlimited.",
        -1,
    ),
    _int(
        "dynamic-bucket.assigner-parallelism", None, "Parallelism of the dynamic bucket assigner."
    ),
    _o(
        "cross-partition-upsert.index-ttl",
        _D,
        None,
        "TTL of the key index for cross-partition upserts.",
    ),
    _int(
        "cross-partition-upsert.bootstrap-parallelism",
        "10",
        "Parallelism bootstrapping that index.",
    ),
    # --- merging (seed 000) ---
    _enum("merge-engine", "deduplicate", "How rows with one primary key combine.", *MERGE_ENGINES),
    _o("sequence.field", _C, None, "Columns ordering rows of one key instead of input order."),
    _enum(
        "sequence.field.sort-order",
        "ascending",
        "Which sequence value wins.",
        "ascending",
        "descending",
    ),
    _o(
        "sequence.auto-padding",
        _L,
        None,
        "Pad the sequence field: row-kind-flag, second-to-micro, millis-to-micro.",
    ),
    _o("rowkind.field", _S, None, "A column whose value (+I, -U, +U, -D) is the row kind."),
    _o("ignore-delete", _B, "false", "Drop DELETE and UPDATE_BEFORE rows on write."),
    _o("first-row.ignore-delete", _B, "false", "Old spelling of ignore-delete for first-row."),
    _o("deduplicate.ignore-delete", _B, "false", "Old spelling of ignore-delete for deduplicate."),
    _o(
        "partial-update.ignore-delete",
        _B,
        "false",
        "Old spelling of ignore-delete for partial-update.",
    ),
    _o("ignore-update-before", _B, "false", "Drop UPDATE_BEFORE rows on write."),
    _o(
        "partial-update.remove-record-on-delete",
        _B,
        "false",
        "A DELETE removes the whole partial-update row.",
    ),
    _o(
        "partial-update.remove-record-on-sequence-group",
        _C,
        None,
        "Sequence groups whose DELETE removes the row.",
    ),
    _o(
        "aggregation.remove-record-on-delete",
        _B,
        "false",
        "A DELETE removes the whole aggregated row.",
    ),
    _o(
        "fields.default-aggregate-function",
        OptionKind.ENUM,
        None,
        "Aggregate function of columns without their own.",
        values=AGG_FUNCTION_NAMES,
    ),
    # --- changelog (seed 000) ---
    _enum(
        "changelog-producer",
        "none",
        "How a primary-key table produces its changelog.",
        *CHANGELOG_PRODUCERS,
    ),
    _o(
        "changelog-producer.row-deduplicate",
        _B,
        "false",
        "Skip changelog rows equal to the previous value.",
    ),
    _o(
        "changelog-producer.row-deduplicate-ignore-fields",
        _C,
        None,
        "Columns ignored by that comparison.",
    ),
    _o("changelog-producer.lookup-wait", _B, "true", "Commit waits for lookup compaction."),
    _int("full-compaction.delta-commits", None, "Full compaction every N commits."),
    _o("changelog.precommit-compact", _B, "false", "Compact changelog files before commit."),
    _int(
        "changelog.num-retained.min",
        None,
        "Fewest changelogs kept (default snapshot.num-retained.min).",
    ),
    _int(
        "changelog.num-retained.max",
        None,
        "Most changelogs kept (default snapshot.num-retained.max).",
    ),
    _o(
        "changelog.time-retained",
        _D,
        None,
        "Longest a changelog is kept (default snapshot.time-retained).",
    ),
    _o("changelog-file.prefix", _S, "changelog-", "File name prefix of changelog files."),
    _enum("changelog-file.format", None, "File format of changelog files.", *FILE_FORMATS),
    _enum("changelog-file.compression", None, "Compression of changelog files.", *COMPRESSIONS),
    _o("changelog-file.stats-mode", OptionKind.STATS_MODE, None, "Stats mode of changelog files."),
    # --- deletion vectors (seed 001) ---
    _o("deletion-vectors.enabled", _B, "false", "Write deletion vectors so reads need no merge."),
    _o("deletion-vectors.bitmap64", _B, "false", "Use 64-bit Roaring bitmaps in deletion vectors."),
    _o("deletion-vectors.merge-on-read", _B, "false", "Read level-0 files too, merging them."),
    _o(
        "deletion-vector.index-file.target-size",
        _M,
        "2 mb",
        "Target size of a deletion-vector index file.",
    ),
    # --- files ---
    _enum("file.format", "parquet", "Data file format.", *FILE_FORMATS),
    _enum("file.compression", "zstd", "Data file compression.", *COMPRESSIONS),
    _int("file.compression.zstd-level", "1", "zstd level of data files.", 1, 22),
    _o("file.compression.per.level", _L, None, "Compression per LSM level, e.g. '0:lz4,1:zstd'."),
    _o("file.format.per.level", _L, None, "File format per LSM level, e.g. '0:avro,3:parquet'."),
    _o("file.block-size", _M, None, "Block (row group / stripe) size of data files."),
    _o(
        "file.suffix.include.compression", _B, "false", "Put the compression in file name suffixes."
    ),
    _o("file-index.read.enabled", _B, "true", "Use file indexes when reading."),
    _o(
        "file-index.in-manifest-threshold",
        _M,
        "500 b",
        "File indexes this small go into the manifest.",
    ),
    _o("data-file.prefix", _S, "data-", "File name prefix of data files."),
    _o("data-file.path-directory", _S, None, "Subdirectory of the table holding data files."),
    _o("data-file.external-paths", _L, None, "External root paths for data files."),
    _enum(
        "data-file.external-paths.strategy",
        "none",
        "Choosing an external path.",
        "none",
        "specific-fs",
        "round-robin",
    ),
    _o(
        "data-file.external-paths.specific-fs",
        _S,
        None,
        "File system for the specific-fs strategy.",
    ),
    _o("data-file.thin-mode", _B, "false", "Leave key columns out of PK data files."),
    _o("index-file-in-data-file-dir", _B, "false", "Write index files next to data files."),
    _o("target-file-size", _M, None, "Target data file size (PK 128 mb, append 256 mb)."),
    _o("write-buffer-size", _M, "256 mb", "In-memory sort buffer before spilling."),
    _o("write-buffer-spillable", _B, None, "Let the write buffer spill to disk."),
    _o("write-buffer-spill.max-disk-size", _M, None, "Most disk the buffer may spill to."),
    _o("page-size", _M, "64 kb", "Memory page size."),
    _o("write-only", _B, "false", "Writers neither compact nor expire; a separate job does."),
    _o(
        "metadata.stats-mode",
        OptionKind.STATS_MODE,
        "truncate(16)",
        "Column statistics kept in manifests.",
    ),
    _o("metadata.stats-dense-store", _B, "true", "Store stats only of the columns that have them."),
    _int(
        "metadata.stats-keep-first-n-columns",
        "-1",
        "Keep stats of the first N columns; -1 all.",
        -1,
    ),
    _o(
        "partition.default-name",
        _S,
        "__DEFAULT_PARTITION__",
        "Partition value written for null or ''.",
    ),
    _o(
        "partition.legacy-name",
        _B,
        "true",
        "Partition directory names from the internal value (DATE as days).",
    ),
    _o("partition.expiration-time", _D, None, "Drop partitions older than this."),
    _o("partition.expiration-check-interval", _D, "1 h", "How often partitions expire."),
    _o(
        "partition.timestamp-formatter", _S, None, "Formatter reading a time from partition values."
    ),
    _o(
        "partition.timestamp-pattern",
        _S,
        None,
        "Pattern building that time from partition columns.",
    ),
    _o("partition.mark-done-action", _L, "success-file", "What marks a partition done."),
    # --- manifests ---
    _enum("manifest.format", "avro", "Manifest file format.", "avro", "orc", "parquet"),
    _enum(
        "manifest.compression",
        "zstd",
        "Manifest compression.",
        "zstd",
        "snappy",
        "deflate",
        "bzip2",
        "xz",
        "null",
        "none",
    ),
    _o("manifest.target-file-size", _M, "8 mb", "Target manifest file size."),
    _o(
        "manifest.full-compaction-threshold-size",
        _M,
        "16 mb",
        "Delta size triggering a full manifest merge.",
    ),
    _int("manifest.merge-min-count", "30", "Manifests merged at least at once."),
    # --- compaction ---
    _int("num-sorted-run.compaction-trigger", "5", "Sorted runs triggering compaction."),
    _int("num-sorted-run.stop-trigger", None, "Sorted runs stopping writes (default trigger + 3)."),
    _int("num-levels", None, "LSM levels (default trigger + 1).", 2),
    _int(
        "compaction.max-size-amplification-percent",
        "200",
        "Size amplification triggering full compaction.",
        0,
    ),
    _int("compaction.size-ratio", "1", "Size ratio (percent) grouping sorted runs.", 0),
    _int("compaction.min.file-num", "5", "Fewest files an append compaction picks."),
    _int("compaction.max.file-num", None, "Most files an append compaction picks."),
    _o(
        "compaction.optimization-interval", _D, None, "How often a full compaction optimizes reads."
    ),
    _o(
        "compaction.total-size-threshold",
        _M,
        None,
        "Full-compact when the total size is below this.",
    ),
    _o(
        "compaction.incremental-size-threshold",
        _M,
        None,
        "Compact when the level-0 size exceeds this.",
    ),
    _o("compaction.force-up-level-0", _B, "false", "Always compact level-0 files."),
    _o(
        "compaction.delete-ratio-threshold",
        OptionKind.DOUBLE,
        "0.2",
        "Deleted-row ratio making a file compact.",
    ),
    _o("commit.force-compact", _B, "false", "Compact on every commit."),
    _enum("lookup-compact", None, "Lookup compaction mode.", "radical", "gentle"),
    _int("lookup-compact.max-interval", None, "Most commits between gentle lookup compactions."),
    _o("lookup-wait", _B, "true", "Commit waits for lookup compaction."),
    # --- commit, snapshots, tags (seed 003) ---
    _int("commit.max-retries", "10", "Commit attempts after a conflict.", 0),
    _o("commit.timeout", _D, None, "Give up committing after this."),
    _o("commit.min-retry-wait", _D, "10 ms", "Shortest wait between commit retries."),
    _o("commit.max-retry-wait", _D, "10 s", "Longest wait between commit retries."),
    _o("commit.force-create-snapshot", _B, "false", "Commit a snapshot even with no changes."),
    _o("commit.user-prefix", _S, None, "Prefix of the commit user."),
    _o("commit.callbacks", _L, None, "Commit callback classes."),
    _int("snapshot.num-retained.min", "10", "Fewest snapshots kept."),
    _int("snapshot.num-retained.max", str(INT_MAX), "Most snapshots kept."),
    _o("snapshot.time-retained", _D, "1 h", "Longest a snapshot is kept."),
    _int("snapshot.expire.limit", "50", "Most snapshots expired at once."),
    _enum(
        "snapshot.expire.execution-mode",
        "sync",
        "Expire in the commit or asynchronously.",
        "sync",
        "async",
    ),
    _o(
        "snapshot.clean-empty-directories",
        _B,
        "false",
        "Delete directories left empty by expiration.",
    ),
    _enum(
        "tag.automatic-creation",
        "none",
        "Create tags automatically.",
        "none",
        "process-time",
        "watermark",
        "batch",
    ),
    _enum(
        "tag.creation-period", "daily", "Period of automatic tags.", "daily", "hourly", "two-hours"
    ),
    _o("tag.creation-delay", _D, "0 ms", "Delay after a period ends before its tag."),
    _enum(
        "tag.period-formatter", "with_dashes", "Tag name format.", "with_dashes", "without_dashes"
    ),
    _int("tag.num-retained-max", None, "Most automatic tags kept."),
    _o("tag.default-time-retained", _D, None, "Default lifetime of created tags."),
    _o("tag.automatic-completion", _B, "false", "Create missing automatic tags."),
    _o("tag.create-success-file", _B, "false", "Write a _SUCCESS file per automatic tag."),
    # --- reading, time travel, consumers ---
    _enum("scan.mode", "default", "Where a scan starts.", *SCAN_MODES),
    _int("scan.snapshot-id", None, "Read this snapshot.", 1, LONG_MAX),
    _int(
        "scan.timestamp-millis",
        None,
        "Read the snapshot current at this epoch millisecond.",
        0,
        LONG_MAX,
    ),
    _o("scan.timestamp", _S, None, "Read the snapshot current at this local time."),
    _o("scan.tag-name", _S, None, "Read this tag."),
    _o("scan.version", _S, None, "Read this snapshot id, tag or timestamp."),
    _int(
        "scan.watermark", None, "Read the first snapshot reaching this watermark.", None, LONG_MAX
    ),
    _int(
        "scan.file-creation-time-millis", None, "Read files created after this time.", 0, LONG_MAX
    ),
    _o("scan.plan-sort-partition", _B, "false", "Read older partitions first in streaming."),
    _int("scan.manifest.parallelism", None, "Threads reading manifests."),
    _o("scan.fallback-branch", _S, None, "Branch read for partitions missing here."),
    _o("incremental-between", _S, None, "Read changes between two snapshots or tags, 'a,b'."),
    _o("incremental-between-timestamp", _S, None, "Read changes between two timestamps, 'a,b'."),
    _enum(
        "incremental-between-scan-mode",
        "auto",
        "What an incremental read returns.",
        "auto",
        "delta",
        "changelog",
        "diff",
    ),
    _o("consumer-id", _S, None, "Consumer recording streaming progress."),
    _o("consumer.expiration-time", _D, None, "Drop idle consumers after this."),
    _o("consumer.ignore-progress", _B, "false", "Start over, ignoring recorded progress."),
    _enum("consumer.mode", "exactly-once", "Consumer guarantee.", "exactly-once", "at-least-once"),
    _o("streaming-read-overwrite", _B, "false", "Stream the changes of INSERT OVERWRITE."),
    _int("read.batch-size", "1024", "Rows per read batch."),
    _o("source.split.target-size", _M, "128 mb", "Target split size."),
    _o("source.split.open-file-cost", _M, "4 mb", "Cost of opening a file when splitting."),
    _o(
        "continuous.discovery-interval", _D, "10 s", "How often streaming reads look for snapshots."
    ),
    # --- lookup, sorting, misc ---
    _o("lookup.cache-max-disk-size", _M, None, "Most disk of the lookup cache."),
    _o("lookup.cache-max-memory-size", _M, "256 mb", "Most memory of the lookup cache."),
    _o("lookup.cache-file-retention", _D, "1 h", "Lifetime of lookup cache files."),
    _int("local-sort.max-num-file-handles", "128", "Most files a local merge sort opens.", 2),
    _enum("sort-engine", "loser-tree", "Sort engine of merges.", "min-heap", "loser-tree"),
    _int("sort-spill-threshold", None, "Sorted runs before spilling."),
    _o("sort-spill-buffer-size", _M, "64 mb", "Spill buffer of sorting."),
    _enum("spill-compression", "zstd", "Compression of spill files.", "zstd", "lz4", "lzo", "none"),
    _o("local-merge-buffer-size", _M, None, "Buffer merging rows before the writer."),
    _o(
        "dynamic-partition-overwrite",
        _B,
        "true",
        "INSERT OVERWRITE replaces only the partitions written.",
    ),
    _o("record-level.expire-time", _D, None, "Drop rows older than this in compaction."),
    _o("record-level.time-field", _S, None, "Column holding the row time for record expiry."),
    _o("row-tracking.enabled", _B, "false", "Give every row a stable row id."),
    _o("data-evolution.enabled", _B, "false", "Allow column updates by row id."),
    _o("auto-create", _B, "false", "Create the table if it does not exist on read."),
    _o("owner", _S, None, "Table owner."),
    _o("comment", _S, None, "Table comment (kept in the schema, not the options)."),
)
OPTIONS: Mapping[str, OptionSpec] = {s.key: s for s in _SPECS}


#: Per-column options, ``fields.<column>.<suffix>``.
FIELD_OPTIONS: Mapping[str, OptionSpec] = {
    s.key: s
    for s in (
        _enum(
            "aggregate-function", None, "Aggregate function of this column.", *AGG_FUNCTION_NAMES
        ),
        _o(
            "ignore-retract",
            _B,
            "false",
            "Ignore retractions (UPDATE_BEFORE/DELETE) for this column.",
        ),
        _o("sequence-group", _C, None, "Columns updated in the order of this sequence column."),
        _o("stats-mode", OptionKind.STATS_MODE, None, "Statistics of this column."),
        _o("list-agg-delimiter", _S, ",", "Delimiter of listagg."),
        _o("distinct", _B, "false", "collect keeps distinct elements."),
        _o("nested-key", _C, None, "Key columns of nested_update rows."),
        _o("default-value", _S, None, "Value read for rows written before the column existed."),
    )
}

#: Namespaces owned by engines, connectors or file formats: kept verbatim, not validated.
PASSTHROUGH_PREFIXES = (
    "sink.", "lookup.", "spark.", "flink.", "hive.", "fs.", "hadoop.", "s3.", "oss.", "orc.",
    "parquet.", "avro.", "csv.", "json.", "file-index.", "scan.infer-", "scan.split-", "scan.watermark.",
    "source.", "changelog.mode", "streaming-read.", "dlf.", "metastore.", "client.",
)  # fmt: skip
PASSTHROUGH_KEYS = frozenset({"scan.parallelism", "scan.bounded.watermark", "streaming-read-mode"})

_DROPPED = {"connector": "paimon", "type": "table"}

NUMERIC_ROOTS = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL"})
_COMPARABLE = NUMERIC_ROOTS | {"CHAR", "VARCHAR", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"}
_BINARY = frozenset({"BINARY", "VARBINARY"})
#: The column types each aggregate function accepts (None: any type). Seed 000 "aggregation".
AGG_FUNCTION_TYPES: Mapping[str, frozenset[str] | None] = {
    "sum": NUMERIC_ROOTS,
    "product": NUMERIC_ROOTS,
    "count": frozenset({"INT", "BIGINT"}),
    "max": _COMPARABLE,
    "min": _COMPARABLE,
    "listagg": frozenset({"CHAR", "VARCHAR"}),
    "bool_and": frozenset({"BOOLEAN"}),
    "bool_or": frozenset({"BOOLEAN"}),
    "collect": frozenset({"ARRAY"}),
    "merge_map": frozenset({"MAP"}),
    "nested_update": frozenset({"ARRAY"}),
    "nested_partial_update": frozenset({"ARRAY"}),
    "rbm32": _BINARY,
    "rbm64": _BINARY,
    "hll_sketch": _BINARY,
    "theta_sketch": _BINARY,
}

_MEMORY = re.compile(
    r"^(\d+)\s*(b|bytes?|k|kb|kibibytes?|m|mb|mebibytes?|g|gb|gibibytes?|t|tb|tebibytes?)?$", re.I
)
_DURATION = re.compile(r"^(\d+)\s*([a-zµ]*)$", re.I)
_DURATION_UNITS = {
    **dict.fromkeys(("ns", "nano", "nanos", "nanosecond", "nanoseconds"), 1e-6),
    **dict.fromkeys(("us", "µs", "micro", "micros", "microsecond", "microseconds"), 1e-3),
    **dict.fromkeys(("", "ms", "milli", "millis", "millisecond", "milliseconds"), 1),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1000),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60_000),
    **dict.fromkeys(("h", "hour", "hours"), 3_600_000),
    **dict.fromkeys(("d", "day", "days"), 86_400_000),
}
_STATS = re.compile(r"^(none|counts|full|truncate\(\d+\))$", re.I)
_MEMORY_UNITS = {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_memory(text: str) -> int:
    """Bytes in a memory size such as ``'256 mb'`` (units are powers of 1024, like Paimon's MemorySize).

    >>> parse_memory("256 mb"), parse_memory("64kb"), parse_memory("1024")
    (268435456, 65536, 1024)
    """
    match = _MEMORY.match(text.strip())
    if match is None:
        raise ValueError(f"not a memory size: {text!r}")
    unit = (match[2] or "b").lower()
    return int(match[1]) * _MEMORY_UNITS["b" if unit.startswith("byte") else unit[0]]


def parse_duration(text: str) -> float:
    """Milliseconds in a duration such as ``'1 h'`` or ``'30 min'`` (a bare number is milliseconds).

    >>> parse_duration("1 h"), parse_duration("30 min"), parse_duration("500")
    (3600000, 1800000, 500)
    """
    match = _DURATION.match(text.strip())
    if match is None or match[2].lower() not in _DURATION_UNITS:
        raise ValueError(f"not a duration: {text!r}")
    value = int(match[1]) * _DURATION_UNITS[match[2].lower()]
    return int(value) if float(value).is_integer() else value


def _split(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _normalise_int(spec: OptionSpec, raw: str) -> str:
    try:
        number = int(raw)
    except ValueError as err:
        raise ValueError(spec.describe()) from err
    lo = -LONG_MAX - 1 if spec.min is None else spec.min
    hi = LONG_MAX if spec.max is None else spec.max
    if not lo <= number <= hi:
        raise ValueError(spec.describe())
    return str(number)


def _normalise_value(spec: OptionSpec, value: str) -> str:
    """The canonical spelling of `value`, or ValueError naming what is valid."""
    raw = value.strip()
    kind = spec.kind
    if kind is OptionKind.INT:
        return _normalise_int(spec, raw)
    if kind is OptionKind.BOOL:
        if raw.lower() not in ("true", "false"):
            raise ValueError(spec.describe())
        return raw.lower()
    if kind is OptionKind.ENUM:
        if raw.lower() not in spec.values:
            raise ValueError(spec.describe())
        return raw.lower()
    checks: dict[OptionKind, Callable[[str], object]] = {
        OptionKind.MEMORY: parse_memory,
        OptionKind.DURATION: parse_duration,
        OptionKind.DOUBLE: float,
    }
    if kind in checks:
        try:
            checks[kind](raw)
        except ValueError as err:
            raise ValueError(spec.describe()) from err
        return raw
    if kind is OptionKind.STATS_MODE:
        if not _STATS.match(raw):
            raise ValueError(spec.describe())
        return raw.lower()
    if kind in (OptionKind.COLUMNS, OptionKind.LIST):
        return ",".join(_split(raw))
    return value


def option_spec(key: str) -> OptionSpec | None:
    """The spec of `key`, resolving ``fields.<column>.<suffix>`` keys; None if unknown.

    >>> option_spec("fields.price.aggregate-function").values[:3]
    ('sum', 'product', 'count')
    """
    if key in OPTIONS:
        return OPTIONS[key]
    if key.startswith("fields.") and key.count(".") >= 2:
        return FIELD_OPTIONS.get(key.rsplit(".", 1)[1])
    return None


def is_passthrough(key: str) -> bool:
    """True for keys owned by an engine, connector or file format (kept verbatim, not validated)."""
    return key in PASSTHROUGH_KEYS or key.startswith(PASSTHROUGH_PREFIXES)


def suggest(key: str, candidates: Sequence[str] | None = None) -> list[str]:
    """The valid keys nearest to a misspelt one (difflib), best first.

    >>> suggest("buckets")
    ['bucket', 'bucket-key']
    """
    pool = list(candidates) if candidates is not None else [*OPTIONS, *_field_examples()]
    lowered = {c.lower(): c for c in pool}
    if key.lower() in lowered and key not in pool:
        return [lowered[key.lower()]]
    near = difflib.get_close_matches(key.lower(), list(lowered), n=3, cutoff=0.6)
    return [lowered[n] for n in near]


def _field_examples() -> list[str]:
    return [f"fields.<column>.{suffix}" for suffix in FIELD_OPTIONS]


def _unknown_key(key: str) -> str:
    if key.startswith("fields.") and key.count(".") >= 2:
        suffix = key.rsplit(".", 1)[1]
        near = suggest(suffix, list(FIELD_OPTIONS))
        hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
        valid = ", ".join(FIELD_OPTIONS)
        return f"unknown per-column option {key!r}{hint} (valid suffixes: {valid})"
    near = suggest(key)
    hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
    return f"unknown table option {key!r}{hint}"


def normalise_options(options: Mapping[str, str]) -> dict[str, str]:
    """Each value checked against its option's type and spelled canonically (no cross-option checks).

    >>> normalise_options({"bucket": " 4", "deletion-vectors.enabled": "TRUE", "sink.parallelism": "2"})
    {'bucket': '4', 'deletion-vectors.enabled': 'true', 'sink.parallelism': '2'}
    """
    out: dict[str, str] = {}
    problems: list[str] = []
    for key, value in options.items():
        if key in _DROPPED:
            _check_dropped(key, value)
        elif key == "path":
            problems.append(
                "table option 'path' is not supported: the catalog decides where a table lives"
            )
        elif (spec := option_spec(key)) is not None:
            try:
                out[key] = _normalise_value(spec, str(value))
            except ValueError as err:
                problems.append(f"invalid value {value!r} for table option {key!r}: expected {err}")
        elif is_passthrough(key):
            out[key] = value
        else:
            problems.append(_unknown_key(key))
    if problems:
        raise OptionError("\n".join(problems))
    return out


def _check_dropped(key: str, value: str) -> None:
    expected = _DROPPED[key]
    if value.strip().lower() != expected:
        if key == "type":
            raise UnsupportedFeatureError(
                f"table type {value!r} is not supported; only '{expected}'"
            )
        raise OptionError(f"table option {key!r} must be {expected!r}, got {value!r}")


def split_key_options(
    options: Mapping[str, str], primary_keys: Sequence[str], partition_keys: Sequence[str]
) -> tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]:
    """Move ``primary-key`` / ``partition`` out of the options into the keys (Spark's TBLPROPERTIES form).

    >>> split_key_options({"primary-key": "id, dt", "bucket": "2"}, (), ())
    ({'bucket': '2'}, ('id', 'dt'), ())
    """
    rest = dict(options)
    keys = {"primary-key": tuple(primary_keys), "partition": tuple(partition_keys)}
    for key, given in keys.items():
        if key not in rest:
            continue
        listed = _split(rest.pop(key))
        if given and listed != given:
            raise OptionError(
                f"{key} is given twice, as {list(given)} in the DDL and as {list(listed)} in the "
                f"options; keep one"
            )
        keys[key] = listed
    return rest, keys["primary-key"], keys["partition"]


@dataclass(frozen=True, slots=True)
class _Table:
    options: Mapping[str, str]
    fields: Mapping[str, DataType] | None
    primary_keys: tuple[str, ...]
    partition_keys: tuple[str, ...]

    @property
    def trimmed_pk(self) -> tuple[str, ...]:
        return tuple(k for k in self.primary_keys if k not in self.partition_keys)

    @property
    def cross_partition(self) -> bool:
        """A PK that leaves out a partition key: a key may move between partitions."""
        return bool(self.primary_keys) and not set(self.partition_keys) <= set(self.primary_keys)

    @property
    def bucket(self) -> int:
        return int(self.options.get("bucket", "-1"))

    @property
    def merge_engine(self) -> str:
        return self.options.get("merge-engine", "deduplicate")

    @property
    def changelog_producer(self) -> str:
        return self.options.get("changelog-producer", "none")

    def flag(self, key: str) -> bool:
        return self.options.get(key, "false") == "true"

    def columns(self, key: str) -> tuple[str, ...]:
        return _split(self.options.get(key, ""))

    def field_options(self, suffix: str) -> dict[str, str]:
        """``fields.<c>.<suffix>`` options as column → value."""
        ends = "." + suffix
        return {
            k[len("fields.") : -len(ends)]: v
            for k, v in self.options.items()
            if k.startswith("fields.") and k.endswith(ends) and k.count(".") >= 2
        }


def validate_options(
    options: Mapping[str, str],
    *,
    fields: Sequence[DataField] | None,
    primary_keys: Sequence[str],
    partition_keys: Sequence[str],
) -> dict[str, str]:
    """The options normalised, or `OptionError` naming every problem and how to fix it.

    `fields` None means the columns are not known yet (CREATE TABLE AS SELECT): checks that need
    them are skipped. ``primary-key``/``partition`` options are moved out (`split_key_options`).

    >>> validate_options({"bucket": "4", "merge-engine": "first-row", "sequence.field": "ts"},
    ...                  fields=None, primary_keys=("id",), partition_keys=())
    Traceback (most recent call last):
    ...
    paimon_sql.errors.OptionError: 'sequence.field' cannot be used with merge-engine 'first-row': the first row of a key always wins, so remove 'sequence.field' or choose another merge engine
    """
    rest, pks, parts = split_key_options(options, tuple(primary_keys), tuple(partition_keys))
    normalised = normalise_options(rest)
    by_name = None if fields is None else {f.name: f.type for f in fields}
    table = _Table(normalised, by_name, pks, parts)
    problems = [p for check in _CHECKS for p in check(table)]
    if problems:
        raise OptionError("\n".join(dict.fromkeys(problems)))
    return normalised


# ---------------------------------------------------------------- cross-option checks (SchemaValidation)


def _check_bucket(t: _Table) -> list[str]:
    bucket, out = t.bucket, []
    has_key = "bucket-key" in t.options
    if bucket == -1 and has_key:
        out.append(
            "'bucket-key' needs a fixed bucket count: set 'bucket' to N > 0 or remove 'bucket-key'"
        )
    if bucket == -2 and not t.primary_keys:
        out.append("'bucket' = '-2' (postpone) needs a primary key; append tables use -1 or N > 0")
    if bucket != -1 and t.cross_partition:
        out.append(
            f"primary key {list(t.primary_keys)} does not contain every partition key "
            f"{list(t.partition_keys)} (cross-partition update): that needs 'bucket' = '-1'; add the "
            f"partition keys to the primary key or use dynamic buckets"
        )
    if bucket > 0 and not t.primary_keys and not has_key:
        out.append(
            f"an append table with 'bucket' = '{bucket}' needs 'bucket-key' (the columns to hash); "
            f"set it, or use 'bucket' = '-1'"
        )
    return out + _check_bucket_key(t)


def _check_bucket_key(t: _Table) -> list[str]:
    keys, out = t.columns("bucket-key"), []
    in_parts = [k for k in keys if k in t.partition_keys]
    if in_parts:
        out.append(
            f"'bucket-key' {in_parts} may not include partition keys; partitions are split first"
        )
    outside = [k for k in keys if k not in t.trimmed_pk and k not in t.partition_keys]
    if t.primary_keys and outside:
        out.append(
            f"'bucket-key' {list(keys)} must be a subset of the primary key without partition keys "
            f"{list(t.trimmed_pk)}: {outside} are not"
        )
    return out


def _check_columns_exist(t: _Table) -> list[str]:
    if t.fields is None:
        return []
    out = []
    keyed = ("bucket-key", "sequence.field", "changelog-producer.row-deduplicate-ignore-fields")
    for key in (*keyed, "rowkind.field", "record-level.time-field"):
        for name in t.columns(key):
            if name not in t.fields:
                out.append(_missing(name, key, t.fields))
    for key in t.options:
        if key.startswith("fields.") and key.count(".") >= 2:
            for name in _split(key[len("fields.") :].rsplit(".", 1)[0]):
                if name not in t.fields:
                    out.append(_missing(name, key, t.fields))
    for group, members in t.field_options("sequence-group").items():
        out += [
            _missing(m, f"fields.{group}.sequence-group", t.fields)
            for m in _split(members)
            if m not in t.fields
        ]
    return out


def _missing(name: str, key: str, fields: Mapping[str, DataType]) -> str:
    near = difflib.get_close_matches(name, list(fields), n=2)
    hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
    return f"option {key!r} names column {name!r}, which the table does not have{hint}"


def _check_merge_engine(t: _Table) -> list[str]:
    engine, out = t.merge_engine, []
    if not t.primary_keys:
        pk_only = [k for k in ("sequence.field", "rowkind.field") if k in t.options]
        if engine != "deduplicate":
            pk_only.insert(0, "merge-engine")
        if t.changelog_producer != "none":
            pk_only.append("changelog-producer")
        out += [
            f"{k!r} needs a primary key; define PRIMARY KEY (...) or remove {k!r}" for k in pk_only
        ]
    if engine == "first-row" and t.columns("sequence.field"):
        out.append(
            "'sequence.field' cannot be used with merge-engine 'first-row': the first row of a key "
            "always wins, so remove 'sequence.field' or choose another merge engine"
        )
    if engine == "first-row" and t.changelog_producer not in ("none", "lookup"):
        out.append(
            f"merge-engine 'first-row' supports changelog-producer 'none' or 'lookup', not "
            f"{t.changelog_producer!r}"
        )
    needs = {"partial-update.remove-record-on-delete": "partial-update",
             "partial-update.remove-record-on-sequence-group": "partial-update",
             "aggregation.remove-record-on-delete": "aggregation"}  # fmt: skip
    for key, wanted in needs.items():
        if key in t.options and t.options[key] != "false" and engine != wanted:
            out.append(f"{key!r} only applies to merge-engine {wanted!r}, not {engine!r}")
    return out


def _check_sequence(t: _Table) -> list[str]:
    seq, out = t.columns("sequence.field"), []
    dupes = sorted({s for s in seq if seq.count(s) > 1})
    if dupes:
        out.append(f"'sequence.field' lists {dupes} more than once")
    if seq and t.cross_partition:
        out.append(
            f"'sequence.field' cannot be used in a cross-partition update (primary key "
            f"{list(t.primary_keys)} leaves out partition keys {list(t.partition_keys)})"
        )
    aggregated = t.field_options("aggregate-function")
    out += [
        f"sequence field {s!r} may not have an aggregate function" for s in seq if s in aggregated
    ]
    if t.fields is not None:
        nested = [s for s in seq if s in t.fields and t.fields[s].is_nested]
        out += [
            f"sequence field {s!r} has nested type {t.fields[s].root}; use a number or time"
            for s in nested
        ]
    return out


def _check_changelog(t: _Table) -> list[str]:
    producer, out = t.changelog_producer, []
    if t.flag("changelog-producer.row-deduplicate") and producer not in (
        "lookup",
        "full-compaction",
    ):
        out.append(
            "'changelog-producer.row-deduplicate' only works with changelog-producer 'lookup' or "
            f"'full-compaction', not {producer!r}"
        )
    if t.flag("streaming-read-overwrite") and producer in ("lookup", "full-compaction"):
        out.append(
            f"'streaming-read-overwrite' with changelog-producer {producer!r} reads duplicate changes"
        )
    if "full-compaction.delta-commits" in t.options and not t.primary_keys and t.bucket == -1:
        out.append("'full-compaction.delta-commits' needs a primary key or a fixed bucket count")
    if "partition.expiration-time" in t.options and not t.partition_keys:
        out.append("'partition.expiration-time' needs a partitioned table")
    return out


def _check_deletion_vectors(t: _Table) -> list[str]:
    """Seed 001 "limitations": PK tables only, changelog none/lookup, not first-row."""
    if not t.flag("deletion-vectors.enabled"):
        return []
    out = []
    if not t.primary_keys:
        out.append("'deletion-vectors.enabled' needs a primary key (seed 001: PK tables only)")
    if t.changelog_producer not in ("none", "lookup"):
        out.append(
            f"deletion vectors support changelog-producer 'none' or 'lookup', not "
            f"{t.changelog_producer!r}; change the producer or disable deletion vectors"
        )
    if t.merge_engine == "first-row":
        out.append(
            "deletion vectors are not needed with merge-engine 'first-row' (it never deletes old "
            "rows); remove 'deletion-vectors.enabled'"
        )
    if (
        not t.flag("changelog-producer.lookup-wait")
        and "changelog-producer.lookup-wait" in t.options
    ):
        out.append("deletion vectors need 'changelog-producer.lookup-wait' = 'true'")
    return out


def _check_retention(t: _Table) -> list[str]:
    out = []
    pairs = (("snapshot.num-retained.min", "snapshot.num-retained.max", "10", str(INT_MAX)),
             ("changelog.num-retained.min", "changelog.num-retained.max", None, None))  # fmt: skip
    for lo_key, hi_key, lo_default, hi_default in pairs:
        lo, hi = t.options.get(lo_key, lo_default), t.options.get(hi_key, hi_default)
        if lo is not None and hi is not None and int(lo) > int(hi):
            out.append(f"{lo_key!r} ({lo}) may not be larger than {hi_key!r} ({hi})")
    travel = [k for k in _TIME_TRAVEL if k in t.options]
    if len(travel) > 1:
        out.append(f"set at most one of {travel}: each picks where a read starts")
    return out


_TIME_TRAVEL = (
    "scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.timestamp", "scan.version",
    "scan.watermark", "scan.file-creation-time-millis", "incremental-between",
    "incremental-between-timestamp",
)  # fmt: skip


def _check_aggregation(t: _Table) -> list[str]:
    functions = t.field_options("aggregate-function")
    engine, out = t.merge_engine, []
    default = t.options.get("fields.default-aggregate-function")
    if (functions or default) and engine not in ("aggregation", "partial-update"):
        out.append(
            f"aggregate functions need merge-engine 'aggregation' or 'partial-update', not {engine!r}"
        )
    grouped = {m for members in t.field_options("sequence-group").values() for m in _split(members)}
    for column, function in functions.items():
        if column in t.primary_keys:
            out.append(
                f"primary-key column {column!r} is never aggregated; remove its aggregate-function"
            )
        elif engine == "partial-update" and column not in grouped:
            out.append(
                f"with partial-update, column {column!r} needs a sequence group for its aggregate "
                f"function: add it to some 'fields.<seq>.sequence-group'"
            )
        out += _type_problem(t, column, function)
    if default is not None and t.fields is not None:
        for column in t.fields:
            if column not in functions and column not in t.primary_keys:
                out += _type_problem(t, column, default)
    return out


def _type_problem(t: _Table, column: str, function: str) -> list[str]:
    if t.fields is None or column not in t.fields:
        return []
    accepted = AGG_FUNCTION_TYPES.get(function)
    root = t.fields[column].root
    if accepted is None or root in accepted:
        return []
    return [
        f"aggregate function {function!r} does not accept column {column!r} of type {root}; it "
        f"accepts {', '.join(sorted(accepted))}"
    ]


def _check_sequence_groups(t: _Table) -> list[str]:
    groups, out = t.field_options("sequence-group"), []
    if groups and t.merge_engine != "partial-update":
        out.append(
            f"'fields.<c>.sequence-group' needs merge-engine 'partial-update', not {t.merge_engine!r}"
        )
    owner: dict[str, str] = {}
    aggregated = t.field_options("aggregate-function")
    for group, members in groups.items():
        for member in _split(members):
            if member in owner and owner[member] != group:
                out.append(
                    f"column {member!r} is in two sequence groups: {owner[member]!r} and {group!r}"
                )
            owner[member] = group
        out += [
            f"sequence-group field {g!r} may not have an aggregate function"
            for g in _split(group)
            if g in aggregated
        ]
    return out


_CHECKS: tuple[Callable[[_Table], list[str]], ...] = (
    _check_columns_exist,
    _check_bucket,
    _check_merge_engine,
    _check_sequence,
    _check_changelog,
    _check_deletion_vectors,
    _check_retention,
    _check_aggregation,
    _check_sequence_groups,
)
