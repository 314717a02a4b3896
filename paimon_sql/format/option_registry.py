"""The table options a user may set, with their types, defaults and ranges, and `validate_options`.

Every key is an Apache Paimon table option (``CoreOptions``; defaults as in paimon-format.md §11).
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
``'buckets' = '4'`` silently does nothing there. paimon-sql refuses a key it does not know and
suggests the nearest valid ones, except:

* keys under a namespace owned by an engine, a connector or a file format (`PASSTHROUGH_PREFIXES`:
  ``sink.``, ``lookup.``, ``parquet.``, ``orc.``, ``fs.``, ...) and a few Flink/Spark connector keys
  (`PASSTHROUGH_KEYS`). They are kept verbatim, because Paimon keeps them too and the engines that
  read them need them. The format writers' keys among them are checked and honoured by
  `paimon_sql.format.format_options` (or refused here, in `UNIMPLEMENTED`);
* ``connector`` (Flink's WITH clause) must be ``paimon`` and is dropped; ``type`` must be ``table``
  and is dropped (format/object tables are not supported); ``path`` is refused: the catalog decides
  where a table lives, as Paimon's filesystem catalog does;
* ``primary-key`` and ``partition`` (Spark's TBLPROPERTIES form) are keys of the schema, not
  options: `split_key_options` moves them out, and they may not contradict keys given in the DDL.
"""

from __future__ import annotations

import difflib
import enum
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from paimon_sql.errors import OptionError, UnsupportedFeatureError
from paimon_sql.types import BINARY_ROOTS, NUMERIC_ROOTS, STRING_ROOTS, TIMESTAMP_ROOTS

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

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
    """One table option: key (suffix for ``fields.<column>.…`` keys), type, default and doc."""

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
    "merge_map", "nested_update", "nested_partial_update", "rbm32", "rbm64", "hll_sketch",
    "theta_sketch",
)  # fmt: skip

_NAMED_VALUES = {
    "@merge-engines": MERGE_ENGINES,
    "@changelog-producers": CHANGELOG_PRODUCERS,
    "@file-formats": FILE_FORMATS,
    "@compressions": COMPRESSIONS,
    "@scan-modes": SCAN_MODES,
    "@aggregate-functions": AGG_FUNCTION_NAMES,
}


_KINDS = {
    "int": OptionKind.INT, "bool": OptionKind.BOOL, "str": OptionKind.STRING,
    "enum": OptionKind.ENUM,
    "mem": OptionKind.MEMORY, "dur": OptionKind.DURATION, "cols": OptionKind.COLUMNS,
    "list": OptionKind.LIST, "stats": OptionKind.STATS_MODE, "num": OptionKind.DOUBLE,
}  # fmt: skip


def _bound(text: str, default: int) -> int:
    return default if not text else LONG_MAX if text == "long" else int(text)


def _parse_row(row: str, doc: str) -> OptionSpec:
    key, kind_name, default, extra = (part.strip() for part in row.split("|"))
    kind = _KINDS[kind_name]
    spec = OptionSpec(key=key, kind=kind, default=None if default == "-" else default, doc=doc)
    if kind is OptionKind.ENUM:
        values = _NAMED_VALUES[extra] if extra.startswith("@") else tuple(extra.split("/"))
        return replace(spec, values=values)
    if kind is OptionKind.INT:
        lo, hi = extra.split("..")
        return replace(spec, min=_bound(lo, -LONG_MAX - 1), max=_bound(hi, INT_MAX))
    return spec


def _parse_table(text: str) -> dict[str, OptionSpec]:
    """Specs from the option tables below: a row, then its doc on an indented line."""
    specs: dict[str, OptionSpec] = {}
    lines = text.strip().splitlines()
    for row, doc in zip(lines[::2], lines[1::2], strict=True):
        spec = _parse_row(row, doc.strip())
        specs[spec.key] = spec
    return specs


# One option per entry: "key | kind | default | range lo..hi or enum values (a/b, @named)", then
# its doc indented on the next line. "-" means none; "long" is Long.MAX_VALUE.
_CORE_TABLE = """
primary-key | cols | - | -
    Primary key columns (Spark TBLPROPERTIES form; moved into the schema).
partition | cols | - | -
    Partition columns (TBLPROPERTIES form; moved into the schema).
bucket | int | -1 | -2..
    Buckets per partition: N > 0 fixed, -1 dynamic (PK) or unaware (append), -2 postpone.
bucket-key | cols | - | -
    Columns hashed to pick the bucket; default the trimmed primary key.
primary-key.nullable | bool | false | -
    Keep primary-key columns nullable instead of forcing NOT NULL.
dynamic-bucket.target-row-num | int | 2000000 | 1..long
    Rows per bucket before dynamic mode opens a new one.
dynamic-bucket.initial-buckets | int | - | 1..
    Buckets a partition starts with in dynamic mode.
dynamic-bucket.max-buckets | int | -1 | -1..
    Most buckets per partition in dynamic mode; -1 unlimited.
dynamic-bucket.assigner-parallelism | int | - | 1..
    Parallelism of the dynamic bucket assigner.
cross-partition-upsert.index-ttl | dur | - | -
    TTL of the key index for cross-partition upserts.
cross-partition-upsert.bootstrap-parallelism | int | 10 | 1..
    Parallelism bootstrapping that index.
merge-engine | enum | deduplicate | @merge-engines
    How rows with one primary key combine.
sequence.field | cols | - | -
    Columns ordering rows of one key instead of input order.
sequence.field.sort-order | enum | ascending | ascending/descending
    Which sequence value wins.
sequence.auto-padding | list | - | -
    Pad the sequence field: row-kind-flag, second-to-micro, millis-to-micro.
rowkind.field | str | - | -
    A column whose value (+I, -U, +U, -D) is the row kind.
ignore-delete | bool | false | -
    Drop DELETE and UPDATE_BEFORE rows on write.
first-row.ignore-delete | bool | false | -
    Old spelling of ignore-delete for first-row.
deduplicate.ignore-delete | bool | false | -
    Old spelling of ignore-delete for deduplicate.
partial-update.ignore-delete | bool | false | -
    Old spelling of ignore-delete for partial-update.
ignore-update-before | bool | false | -
    Drop UPDATE_BEFORE rows on write.
partial-update.remove-record-on-delete | bool | false | -
    A DELETE removes the whole partial-update row.
partial-update.remove-record-on-sequence-group | cols | - | -
    Sequence groups whose DELETE removes the row.
aggregation.remove-record-on-delete | bool | false | -
    A DELETE removes the whole aggregated row.
fields.default-aggregate-function | enum | - | @aggregate-functions
    Aggregate function of columns without their own.
changelog-producer | enum | none | @changelog-producers
    How a primary-key table produces its changelog.
changelog-producer.row-deduplicate | bool | false | -
    Skip changelog rows equal to the previous value.
changelog-producer.row-deduplicate-ignore-fields | cols | - | -
    Columns ignored by that comparison.
changelog-producer.lookup-wait | bool | true | -
    Commit waits for lookup compaction.
full-compaction.delta-commits | int | - | 1..
    Full compaction every N commits.
changelog.precommit-compact | bool | false | -
    Compact changelog files before commit.
changelog.num-retained.min | int | - | 1..
    Fewest changelogs kept (default snapshot.num-retained.min).
changelog.num-retained.max | int | - | 1..
    Most changelogs kept (default snapshot.num-retained.max).
changelog.time-retained | dur | - | -
    Longest a changelog is kept (default snapshot.time-retained).
changelog-file.prefix | str | changelog- | -
    File name prefix of changelog files.
changelog-file.format | enum | - | @file-formats
    File format of changelog files.
changelog-file.compression | enum | - | @compressions
    Compression of changelog files.
changelog-file.stats-mode | stats | - | -
    Stats mode of changelog files.
deletion-vectors.enabled | bool | false | -
    Write deletion vectors so reads need no merge.
deletion-vectors.bitmap64 | bool | false | -
    Use 64-bit Roaring bitmaps in deletion vectors.
deletion-vectors.merge-on-read | bool | false | -
    Read level-0 files too, merging them.
deletion-vector.index-file.target-size | mem | 2 mb | -
    Target size of a deletion-vector index file.
file.format | enum | parquet | @file-formats
    Data file format.
file.compression | enum | zstd | @compressions
    Data file compression.
file.compression.zstd-level | int | 1 | 1..22
    zstd level of data files.
file.compression.per.level | list | - | -
    Compression per LSM level, e.g. '0:lz4,1:zstd'.
file.format.per.level | list | - | -
    File format per LSM level, e.g. '0:avro,3:parquet'.
file.block-size | mem | - | -
    Block (row group / stripe) size of data files.
file.suffix.include.compression | bool | false | -
    Put the compression in file name suffixes.
file-index.read.enabled | bool | true | -
    Use file indexes when reading.
file-index.in-manifest-threshold | mem | 500 b | -
    File indexes this small go into the manifest.
data-file.prefix | str | data- | -
    File name prefix of data files.
data-file.path-directory | str | - | -
    Subdirectory of the table holding data files.
data-file.external-paths | list | - | -
    External root paths for data files.
data-file.external-paths.strategy | enum | none | none/specific-fs/round-robin
    Choosing an external path.
data-file.external-paths.specific-fs | str | - | -
    File system for the specific-fs strategy.
data-file.thin-mode | bool | false | -
    Leave key columns out of PK data files.
index-file-in-data-file-dir | bool | false | -
    Write index files next to data files.
global-index.enabled | bool | true | -
    Java 1.4 answers filters through global indexes (paimon-sql reads the data).
global-index.external-path | str | - | -
    Root folder for Java 1.4's global index files instead of the table's index folder.
global-index.column-update-action | enum | throw_error | throw_error/drop_partition_index
    What Java's MERGE does when it updates a globally indexed column.
global-index.row-count-per-shard | int | 100000 | 1..long
    Rows per shard when Java builds a global index.
global-index.build.max-shard | int | 32 | 1..
    Preferred most shards when Java builds a global index.
global-index.build.max-parallelism | int | 4096 | 1..
    Most parallel tasks when Java builds a global index.
global-index.thread-num | int | - | 1..
    Threads Java's global index scan uses.
target-file-size | mem | - | -
    Target data file size (PK 128 mb, append 256 mb).
write-buffer-size | mem | 256 mb | -
    In-memory sort buffer before spilling.
write-buffer-spillable | bool | - | -
    Let the write buffer spill to disk.
write-buffer-spill.max-disk-size | mem | - | -
    Most disk the buffer may spill to.
page-size | mem | 64 kb | -
    Memory page size.
write-only | bool | false | -
    Writers neither compact nor expire; a separate job does.
metadata.stats-mode | stats | truncate(16) | -
    Column statistics kept in manifests.
metadata.stats-dense-store | bool | true | -
    Store stats only of the columns that have them.
metadata.stats-keep-first-n-columns | int | -1 | -1..
    Keep stats of the first N columns; -1 all.
partition.default-name | str | __DEFAULT_PARTITION__ | -
    Partition value written for null or ''.
partition.legacy-name | bool | true | -
    Partition directory names from the internal value (DATE as days).
partition.expiration-time | dur | - | -
    Drop partitions older than this.
partition.expiration-check-interval | dur | 1 h | -
    How often partitions expire.
partition.timestamp-formatter | str | - | -
    Formatter reading a time from partition values.
partition.timestamp-pattern | str | - | -
    Pattern building that time from partition columns.
partition.mark-done-action | list | success-file | -
    What marks a partition done.
manifest.format | enum | avro | avro/orc/parquet
    Manifest file format.
manifest.compression | enum | zstd | zstd/zstandard/snappy/deflate/bzip2/xz/null
    Manifest compression: zstd or an Avro codec name (Java's Avro knows no 'none').
manifest.target-file-size | mem | 8 mb | -
    Target manifest file size.
manifest.full-compaction-threshold-size | mem | 16 mb | -
    Delta size triggering a full manifest merge.
manifest.merge-min-count | int | 30 | 1..
    Manifests merged at least at once.
num-sorted-run.compaction-trigger | int | 5 | 1..
    Sorted runs triggering compaction.
num-sorted-run.stop-trigger | int | - | 1..
    Sorted runs stopping writes (default trigger + 3).
num-levels | int | - | 2..
    LSM levels (default trigger + 1).
compaction.max-size-amplification-percent | int | 200 | 0..
    Size amplification triggering full compaction.
compaction.size-ratio | int | 1 | 0..
    Size ratio (percent) grouping sorted runs.
compaction.min.file-num | int | 5 | 1..
    Fewest files an append compaction picks.
compaction.max.file-num | int | - | 1..
    Most files an append compaction picks.
compaction.optimization-interval | dur | - | -
    How often a full compaction optimizes reads.
compaction.total-size-threshold | mem | - | -
    Full-compact when the total size is below this.
compaction.incremental-size-threshold | mem | - | -
    Compact when the level-0 size exceeds this.
compaction.force-up-level-0 | bool | false | -
    Always compact level-0 files.
compaction.delete-ratio-threshold | num | 0.2 | -
    Deleted-row ratio making a file compact.
commit.force-compact | bool | false | -
    Compact on every commit.
lookup-compact | enum | - | radical/gentle
    Lookup compaction mode.
lookup-compact.max-interval | int | - | 1..
    Most commits between gentle lookup compactions.
lookup-wait | bool | true | -
    Commit waits for lookup compaction.
commit.max-retries | int | 10 | 0..
    Commit attempts after a conflict.
commit.timeout | dur | - | -
    Give up committing after this.
commit.min-retry-wait | dur | 10 ms | -
    Shortest wait between commit retries.
commit.max-retry-wait | dur | 10 s | -
    Longest wait between commit retries.
commit.force-create-snapshot | bool | false | -
    Commit a snapshot even with no changes.
commit.user-prefix | str | - | -
    Prefix of the commit user.
commit.callbacks | list | - | -
    Commit callback classes.
snapshot.num-retained.min | int | 10 | 1..
    Fewest snapshots kept.
snapshot.num-retained.max | int | 2147483647 | 1..
    Most snapshots kept.
snapshot.time-retained | dur | 1 h | -
    Longest a snapshot is kept.
snapshot.expire.limit | int | 50 | 1..
    Most snapshots expired at once.
snapshot.expire.execution-mode | enum | sync | sync/async
    Expire in the commit or asynchronously.
snapshot.clean-empty-directories | bool | false | -
    Delete directories left empty by expiration.
tag.automatic-creation | enum | none | none/process-time/watermark/batch
    Create tags automatically.
tag.creation-period | enum | daily | daily/hourly/two-hours
    Period of automatic tags.
tag.creation-delay | dur | 0 ms | -
    Delay after a period ends before its tag.
tag.period-formatter | enum | with_dashes | with_dashes/without_dashes
    Tag name format.
tag.num-retained-max | int | - | 1..
    Most automatic tags kept.
tag.default-time-retained | dur | - | -
    Default lifetime of created tags.
tag.automatic-completion | bool | false | -
    Create missing automatic tags.
tag.create-success-file | bool | false | -
    Write a _SUCCESS file per automatic tag.
tag.batch.customized-name | str | - | -
    Name of the tag a batch-mode automatic creation makes (default: the commit time).
scan.mode | enum | default | @scan-modes
    Where a scan starts.
scan.snapshot-id | int | - | 1..long
    Read this snapshot.
scan.timestamp-millis | int | - | 0..long
    Read the snapshot current at this epoch millisecond.
scan.timestamp | str | - | -
    Read the snapshot current at this local time.
scan.tag-name | str | - | -
    Read this tag.
scan.version | str | - | -
    Read this snapshot id, tag or timestamp.
scan.watermark | int | - | ..long
    Read the first snapshot reaching this watermark.
scan.file-creation-time-millis | int | - | 0..long
    Read files created after this time.
scan.plan-sort-partition | bool | false | -
    Read older partitions first in streaming.
scan.manifest.parallelism | int | - | 1..
    Threads reading manifests.
scan.fallback-branch | str | - | -
    Branch read for partitions missing here.
incremental-between | str | - | -
    Read changes between two snapshots or tags, 'a,b'.
incremental-between-timestamp | str | - | -
    Read changes between two timestamps, 'a,b'.
incremental-between-scan-mode | enum | auto | auto/delta/changelog/diff
    What an incremental read returns.
consumer-id | str | - | -
    Consumer recording streaming progress.
consumer.expiration-time | dur | - | -
    Drop idle consumers after this.
consumer.ignore-progress | bool | false | -
    Start over, ignoring recorded progress.
consumer.mode | enum | exactly-once | exactly-once/at-least-once
    Consumer guarantee.
streaming-read-overwrite | bool | false | -
    Stream the changes of INSERT OVERWRITE.
read.batch-size | int | 1024 | 1..
    Rows per read batch.
source.split.target-size | mem | 128 mb | -
    Target split size.
source.split.open-file-cost | mem | 4 mb | -
    Cost of opening a file when splitting.
continuous.discovery-interval | dur | 10 s | -
    How often streaming reads look for snapshots.
lookup.cache-max-disk-size | mem | - | -
    Most disk of the lookup cache.
lookup.cache-max-memory-size | mem | 256 mb | -
    Most memory of the lookup cache.
lookup.cache-file-retention | dur | 1 h | -
    Lifetime of lookup cache files.
local-sort.max-num-file-handles | int | 128 | 2..
    Most files a local merge sort opens.
sort-engine | enum | loser-tree | min-heap/loser-tree
    Sort engine of merges.
sort-spill-threshold | int | - | 1..
    Sorted runs before spilling.
sort-spill-buffer-size | mem | 64 mb | -
    Spill buffer of sorting.
spill-compression | enum | zstd | zstd/lz4/lzo/none
    Compression of spill files.
local-merge-buffer-size | mem | - | -
    Buffer merging rows before the writer.
dynamic-partition-overwrite | bool | true | -
    INSERT OVERWRITE replaces only the partitions written.
record-level.expire-time | dur | - | -
    Drop rows older than this in compaction.
record-level.time-field | str | - | -
    Column holding the row time for record expiry.
row-tracking.enabled | bool | false | -
    Give every row a stable row id.
data-evolution.enabled | bool | false | -
    Allow column updates by row id.
auto-create | bool | false | -
    Create the table if it does not exist on read.
owner | str | - | -
    Table owner.
"""

OPTIONS: Mapping[str, OptionSpec] = _parse_table(_CORE_TABLE)


_FIELD_TABLE = """
aggregate-function | enum | - | @aggregate-functions
    Aggregate function of this column.
ignore-retract | bool | false | -
    Ignore retractions (UPDATE_BEFORE/DELETE) for this column.
sequence-group | cols | - | -
    Columns updated in the order of this sequence column.
stats-mode | stats | - | -
    Statistics of this column.
list-agg-delimiter | str | , | -
    Delimiter of listagg.
distinct | bool | false | -
    collect keeps distinct elements.
nested-key | cols | - | -
    Key columns of nested_update rows.
count-limit | int | - | 0..
    At most this many rows in a nested_update array (Java 1.x).
default-value | str | - | -
    Value read for rows written before the column existed.
"""
#: Per-column options, ``fields.<column>.<suffix>``, by suffix.
FIELD_OPTIONS: Mapping[str, OptionSpec] = _parse_table(_FIELD_TABLE)

#: Namespaces owned by engines, connectors or file formats: kept verbatim, not validated.
PASSTHROUGH_PREFIXES = (
    "sink.", "lookup.", "spark.", "flink.", "hive.", "fs.", "hadoop.", "s3.", "oss.", "orc.",
    "parquet.", "avro.", "csv.", "json.", "file-index.", "scan.infer-", "scan.split-",
    "scan.watermark.",
    "source.", "changelog.mode", "streaming-read.", "dlf.", "metastore.", "client.",
)  # fmt: skip
PASSTHROUGH_KEYS = frozenset({"scan.parallelism", "scan.bounded.watermark", "streaming-read-mode"})

_DROPPED = {"connector": "paimon", "type": "table"}

_COMPARABLE = NUMERIC_ROOTS | STRING_ROOTS | TIMESTAMP_ROOTS | {"DATE", "TIME"}
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
    "rbm32": BINARY_ROOTS,
    "rbm64": BINARY_ROOTS,
    "hll_sketch": BINARY_ROOTS,
    "theta_sketch": BINARY_ROOTS,
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
    """Bytes in a memory size such as ``'256 mb'`` (units are powers of 1024, as in Paimon).

    >>> parse_memory("256 mb"), parse_memory("64kb"), parse_memory("1024")
    (268435456, 65536, 1024)
    """
    match = _MEMORY.match(text.strip())
    if match is None:
        raise ValueError(f"not a memory size: {text!r}")
    unit = (match[2] or "b").lower()
    return int(match[1]) * _MEMORY_UNITS["b" if unit.startswith("byte") else unit[0]]


_SIZE_UNITS = {
    "b": 1,
    **dict.fromkeys(("k", "kb", "kib"), 1 << 10),
    **dict.fromkeys(("m", "mb", "mib"), 1 << 20),
    **dict.fromkeys(("g", "gb", "gib"), 1 << 30),
    **dict.fromkeys(("tb", "tib"), 1 << 40),
    "pib": 1 << 50,  # DuckDB shows its "no limit" as 16383.9 PiB
}


def memory_size(text: str) -> int:
    """Bytes in a stored memory size, read leniently (`parse_memory` validates a new option).

    Spaces anywhere, a decimal number, DuckDB's ``'1.2 GiB'`` units; a bare number is bytes.

    >>> memory_size("128 mb"), memory_size("1 k"), memory_size("77"), memory_size("1.5 GiB")
    (134217728, 1024, 77, 1610612736)
    """
    clean = text.strip().lower().replace(" ", "")
    for unit in sorted(_SIZE_UNITS, key=len, reverse=True):
        number = clean[: -len(unit)]
        if clean.endswith(unit) and number.replace(".", "").isdigit():
            return int(float(number) * _SIZE_UNITS[unit])
    return int(clean)


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


def option_default(key: str) -> str | None:
    """The default of `key` (None when it has none or is unknown): the one home of every default.

    >>> option_default("bucket"), option_default("fields.v.list-agg-delimiter")
    ('-1', ',')
    >>> option_default("owner") is None
    True
    """
    spec = option_spec(key)
    return None if spec is None else spec.default


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
    """Each value checked against its option's type and spelled canonically (no cross checks).

    >>> normalise_options({"bucket": " 4", "write-only": "TRUE", "sink.parallelism": "2"})
    {'bucket': '4', 'write-only': 'true', 'sink.parallelism': '2'}
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
    """Move ``primary-key`` / ``partition`` out of the options into the keys (TBLPROPERTIES form).

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

    >>> try:
    ...     validate_options({"merge-engine": "first-row", "sequence.field": "ts"},
    ...                      fields=None, primary_keys=("id",), partition_keys=())
    ... except OptionError as err:
    ...     print(str(err)[:70])
    'sequence.field' cannot be used with merge-engine 'first-row': the fir
    """
    rest, pks, parts = split_key_options(options, tuple(primary_keys), tuple(partition_keys))
    normalised = normalise_options(rest)
    by_name = None if fields is None else {f.name: f.type for f in fields}
    table = _Table(normalised, by_name, pks, parts)
    problems = [p for check in _CHECKS for p in check(table)]
    if problems:
        raise OptionError("\n".join(dict.fromkeys(problems)))
    return normalised


# --------------------------------------------------------- cross-option checks (SchemaValidation)


#: ``ignore-delete`` and its engine-specific spellings (any of them set: deletes are ignored).
IGNORE_DELETE_KEYS = (
    "ignore-delete",
    "first-row.ignore-delete",
    "deduplicate.ignore-delete",
    "partial-update.ignore-delete",
)


def merge_conflicts(options: Mapping[str, str], columns: Iterable[str]) -> list[str]:
    """Option pairs Java's merge functions refuse to build (every write and read of the table).

    Java's ``PartialUpdateMergeFunction.Factory`` and ``FieldAggregatorFactory.create`` check
    these whenever a merge function is made; `validate_options` refuses them at CREATE/ALTER and
    the reader and writer refuse a table that has them (written by another tool).

    >>> merge_conflicts({"merge-engine": "aggregation", "aggregation.remove-record-on-delete":
    ...     "true", "fields.v.ignore-retract": "TRUE"}, ["k", "v"])  # doctest: +ELLIPSIS
    ["'aggregation.remove-record-on-delete' and 'fields.v.ignore-retract' ... same time..."]
    """

    def on(key: str) -> bool:
        return options.get(key, "false").strip().lower() == "true"

    def conflict(a: str, b: str) -> str:
        return (
            f"{a!r} and {b!r} have conflicting behavior, so Java refuses to enable both at the "
            "same time; remove one of them"
        )

    engine = options.get("merge-engine", "deduplicate").strip().lower()
    out = []
    if engine == "aggregation" and on("aggregation.remove-record-on-delete"):
        out += [
            conflict("aggregation.remove-record-on-delete", f"fields.{c}.ignore-retract")
            for c in columns
            if on(f"fields.{c}.ignore-retract")
        ]
    if engine != "partial-update":
        return out
    ignore = next((k for k in IGNORE_DELETE_KEYS if on(k)), None)
    on_group = "partial-update.remove-record-on-sequence-group"
    if ignore and on("partial-update.remove-record-on-delete"):
        out.append(conflict(ignore, "partial-update.remove-record-on-delete"))
    if ignore and on_group in options:
        out.append(conflict(ignore, on_group))
    groups = [k for k in options if k.startswith("fields.") and k.endswith(".sequence-group")]
    if groups and on("partial-update.remove-record-on-delete"):
        out.append(conflict(groups[0], "partial-update.remove-record-on-delete"))
    sequence = {
        c.strip() for k in groups for c in k[len("fields.") : -len(".sequence-group")].split(",")
    }
    outside = [c for c in _split(options.get(on_group, "")) if c not in sequence]
    if outside:
        out.append(
            f"{on_group!r} names {', '.join(map(repr, outside))}, which no "
            "'fields.<field>.sequence-group' option defines as a sequence field"
        )
    return out


def _check_merge_conflicts(t: _Table) -> list[str]:
    return merge_conflicts(t.options, t.fields or ())


def _check_bucket(t: _Table) -> list[str]:
    bucket, out = t.bucket, []
    if bucket == 0:
        out.append(
            "invalid value '0' for table option 'bucket': expected N > 0 (fixed), -1 (dynamic or "
            "unaware) or -2 (postpone)"
        )
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
            f"{list(t.partition_keys)} (cross-partition update): that needs 'bucket' = '-1'; "
            f"add the partition keys to the primary key or use dynamic buckets"
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
            f"'streaming-read-overwrite' with changelog-producer {producer!r} reads "
            "duplicate changes"
        )
    if "full-compaction.delta-commits" in t.options and not t.primary_keys and t.bucket == -1:
        out.append("'full-compaction.delta-commits' needs a primary key or a fixed bucket count")
    if "partition.expiration-time" in t.options and not t.partition_keys:
        out.append("'partition.expiration-time' needs a partitioned table")
    return out


def _check_deletion_vectors(t: _Table) -> list[str]:
    """Java's ``validateForDeletionVectors``: changelog none or lookup, not first-row.

    Append tables (no primary key) may have them too, with any bucket mode (Paimon 0.9+: DELETE
    and UPDATE mark rows in deletion vectors instead of rewriting files).
    """
    if not t.flag("deletion-vectors.enabled"):
        return []
    out = []
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
            "aggregate functions need merge-engine 'aggregation' or 'partial-update', "
            f"not {engine!r}"
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
        # Java's getAggFuncName: a sequence field is never aggregated (last_value), a key neither
        sequence = set(t.columns("sequence.field"))
        for column in t.fields:
            if column not in functions and column not in t.primary_keys and column not in sequence:
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
            "'fields.<c>.sequence-group' needs merge-engine 'partial-update', "
            f"not {t.merge_engine!r}"
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


def _check_row_tracking(t: _Table) -> list[str]:
    """Java 1.3's ``SchemaValidation.validateRowTracking``."""
    out = []
    if t.flag("row-tracking.enabled"):
        if t.bucket != -1:
            out.append(
                "'row-tracking.enabled' needs 'bucket' = '-1' (an unaware-bucket append table), "
                f"not {t.bucket}"
            )
        if t.primary_keys:
            out.append("'row-tracking.enabled' is for append tables: remove the primary key")
    if t.flag("data-evolution.enabled"):
        if not t.flag("row-tracking.enabled"):
            out.append("'data-evolution.enabled' needs 'row-tracking.enabled' = 'true'")
        if t.flag("deletion-vectors.enabled"):
            out.append("'data-evolution.enabled' cannot be used with 'deletion-vectors.enabled'")
    return out


def _check_blob(t: _Table) -> list[str]:
    """Java 1.4's ``SchemaValidation`` for BLOB columns (their values live in ``.blob`` files).

    >>> from paimon_sql.types import DataType
    >>> _check_blob(_Table({}, {"id": DataType(root="INT"), "b": DataType(root="BLOB")}, (), ()))
    ... # doctest: +ELLIPSIS
    ["BLOB column(s) b need 'data-evolution.enabled' = 'true' ..."]
    """
    if t.fields is None:
        return []
    blobs = [name for name, kind in t.fields.items() if kind.root == "BLOB"]
    if not blobs:
        return []
    out = []
    if not t.flag("data-evolution.enabled"):
        out.append(
            f"BLOB column(s) {', '.join(blobs)} need 'data-evolution.enabled' = 'true' (and "
            "'row-tracking.enabled' = 'true'), as Java 1.4 requires"
        )
    if len(blobs) == len(t.fields):
        out.append("a table with BLOB columns needs another, non-BLOB column (Java 1.4)")
    out += [f"BLOB column {b!r} cannot be a partition key" for b in blobs if b in t.partition_keys]
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
    _check_merge_conflicts,
    _check_row_tracking,
    _check_blob,
)


@dataclass(frozen=True, slots=True)
class Unimplemented:
    """An option whose behaviour paimon-sql does not implement, and when it may still be set.

    `fits(value, options)` is true for values that ask for nothing paimon-sql does not do (the
    default, or a no-op given the other options); `why` says what is missing and what to do
    instead; `writes`: a write to a table (one Java made) that has the option would ignore it, so
    INSERT, UPDATE, DELETE, MERGE and compaction refuse it too (`refuse_unwritable_options`);
    `reads`: a read would ignore it too (its rows would not be Java's), so reads refuse it
    (`refuse_unreadable_options`).
    """

    fits: Callable[[str, Mapping[str, str]], bool]
    why: str
    writes: bool = True
    reads: bool = False


def _only(*values: str) -> Callable[[str, Mapping[str, str]], bool]:
    return lambda value, _: value.strip().lower() in values


def _same_as(key: str) -> Callable[[str, Mapping[str, str]], bool]:
    """The value equals `key`'s (or its default): Java falls back to it, so nothing changes."""
    return lambda value, options: (
        value.strip().lower() == (options.get(key, option_default(key) or "").strip().lower())
    )


def _never(value: str, options: Mapping[str, str]) -> bool:
    return False


#: Options whose behaviour paimon-sql does not implement: a value that does not `fits` would be
#: stored and then silently do nothing, so CREATE TABLE and ALTER TABLE … SET refuse it (and writes
#: to a table that has it, where `writes`). Per-column options are keyed
#: ``fields.<column>.<suffix>``.
#:
#: **The rule for the other options.** Every option of `OPTIONS` not listed here is either honoured
#: where it matters (read and/or write) or only tunes a Java runtime: parallelism, memory, buffers,
#: spilling, sorting, caches, retry timing, streaming reads and consumers, Flink's sink and lookup
#: joins (``sink.*``, ``lookup.*``, ``write-buffer-*``, ``num-sorted-run.stop-trigger``,
#: ``commit.force-create-snapshot``, which Java honours only in streaming jobs: checked against
#: Flink 1.3.1's batch INSERT), and when Java's own writer schedules compactions
#: (``compaction.*`` thresholds, ``lookup-compact``, ``commit.force-compact``, which only makes
#: Java's commit wait for the compaction its writer already started; paimon-sql compacts where
#: readers need it and on ``CALL sys.compact``). Those change neither the rows any reader sees
#: nor whether Java can read the files, so they are stored for Java and accepted.
UNIMPLEMENTED: Mapping[str, Unimplemented] = {
    "manifest.format": Unimplemented(
        _only("avro"),
        "paimon-sql writes Avro manifests only (it reads ORC and Parquet ones); leave it 'avro'",
    ),
    "file.format.per.level": Unimplemented(
        _only(""),
        "paimon-sql writes every level in 'file.format'; set 'file.format' instead",
    ),
    "file.compression.per.level": Unimplemented(
        _only(""),
        "paimon-sql compresses every level with 'file.compression'; set that instead",
    ),
    "file.suffix.include.compression": Unimplemented(
        _only("false"), "paimon-sql names data files '<prefix><uuid>-<n>.<format>'; remove it"
    ),
    "changelog-file.format": Unimplemented(
        _same_as("file.format"),
        "paimon-sql writes changelog files in 'file.format'; remove it or make them equal",
    ),
    "changelog-file.compression": Unimplemented(
        _same_as("file.compression"),
        "paimon-sql compresses changelog files with 'file.compression'; remove it or make them "
        "equal",
    ),
    "changelog-file.stats-mode": Unimplemented(
        _same_as("metadata.stats-mode"),
        "paimon-sql keeps changelog files' stats by 'metadata.stats-mode'; remove it or make them "
        "equal",
    ),
    "changelog.precommit-compact": Unimplemented(
        _only("false"), "paimon-sql does not merge changelog files before a commit; remove it"
    ),
    "metadata.stats-keep-first-n-columns": Unimplemented(
        _only("-1"),
        "paimon-sql keeps the stats of every column 'metadata.stats-mode' asks for; use "
        "'fields.<column>.stats-mode' = 'none' for the others",
    ),
    "data-file.external-paths.strategy": Unimplemented(
        _only("none"),
        "paimon-sql never creates files outside the warehouse, so it writes no external data "
        "files (it reads those Java wrote); leave it 'none'",
    ),
    "index-file-in-data-file-dir": Unimplemented(
        lambda value, options: (
            value.strip().lower() == "false"
            or options.get("bucket", "-1").strip() != "-1"
            or not options.get("primary-key")
        ),
        "paimon-sql writes the dynamic-bucket HASH index files into the table's index folder; "
        "remove it or use a fixed 'bucket' (callers pass the primary key as 'primary-key')",
    ),
    "partition.expiration-time": Unimplemented(
        _never,
        "paimon-sql does not expire partitions; empty old ones with TRUNCATE TABLE … PARTITION "
        "(…) or DELETE",
    ),
    "snapshot.clean-empty-directories": Unimplemented(
        _only("false"),
        "paimon-sql's snapshot expiration leaves empty partition and bucket folders; remove it",
    ),
    "sequence.auto-padding": Unimplemented(
        _never, "paimon-sql compares 'sequence.field' values as they are; remove it"
    ),
    "ignore-update-before": Unimplemented(
        _only("false"), "paimon-sql writes the UPDATE_BEFORE rows it is given; remove it"
    ),
    "record-level.expire-time": Unimplemented(
        _never,
        "paimon-sql's compaction does not drop expired rows; delete them with DELETE … WHERE",
    ),
    "commit.callbacks": Unimplemented(
        _only(""), "paimon-sql cannot run Java commit callback classes; remove it"
    ),
    "partial-update.remove-record-on-sequence-group": Unimplemented(
        _only(""),
        "Java's retraction of partial-update sequence groups (a -D of a listed group removes "
        "the row, other -U/-D retract the group's fields) is not implemented by the reader; "
        "remove the option (DELETE then needs 'partial-update.remove-record-on-delete', "
        "without sequence groups)",
        reads=True,
    ),
    # the format writers' keys (paimon_sql.format.format_options honours the others)
    **{
        key: Unimplemented(_never, why)
        for key, why in {
            "parquet.statistics.truncate.length": "pyarrow keeps whole min/max statistics",
            "parquet.bloom.filter.max.bytes": (
                "paimon-sql sizes each bloom filter by its expected distinct values; set "
                "'parquet.bloom.filter.expected.ndv#<column>' instead"
            ),
            "parquet.bloom.filter.adaptive.enabled": "pyarrow writes fixed-size bloom filters",
            "parquet.bloom.filter.candidates.number": "pyarrow writes fixed-size bloom filters",
            "parquet.crypto.factory.class": "paimon-sql writes no encrypted Parquet files",
            "parquet.variant.shreddingSchema": "paimon-sql writes no VARIANT columns",
            "orc.column.encoding.direct": (
                "pyarrow's ORC writer chooses encodings by 'orc.dictionary.key.threshold' only; "
                "use that"
            ),
            "orc.encoding.strategy": "pyarrow's ORC writer has no integer encoding strategy",
            "orc.bloom.filter.write.version": "pyarrow's ORC writer has one bloom filter version",
            "orc.stripe.row.count": (
                "pyarrow's ORC writer cuts stripes by size only; use 'orc.stripe.size'"
            ),
            "orc.encrypt": "paimon-sql writes no encrypted ORC files",
            "orc.mask": "paimon-sql writes no encrypted ORC files",
            "avro.row-name-mapping": "paimon-sql names nested Avro records as Paimon does",
        }.items()
    },
    # pyarrow's ORC writer has no zstd level setting: only the default level is accepted
    "orc.compression.zstd.level": Unimplemented(
        _never, "pyarrow's ORC writer has no zstd level setting; remove it"
    ),
    "file.compression.zstd-level": Unimplemented(
        lambda value, options: (
            value.strip() == "1"
            or (options.get("file.format") or "parquet").strip().lower() != "orc"
            or (options.get("orc.compress") or options.get("file.compression") or "zstd")
            .strip()
            .lower()
            != "zstd"
        ),
        "pyarrow's ORC writer has no zstd level setting; remove it or write Parquet",
    ),
    "fields.<column>.default-value": Unimplemented(
        _never,
        "Paimon 0.9 to 1.2 read every NULL of the column as this value, and Paimon 1.3 ignores the "
        "option (defaults live in the schema); write the value, or read COALESCE(column, "
        "value)",
        writes=False,
    ),
}


def _unimplemented(key: str) -> Unimplemented | None:
    if key.startswith("fields.") and key.count(".") >= 2:
        return UNIMPLEMENTED.get("fields.<column>." + key.rsplit(".", 1)[1])
    return UNIMPLEMENTED.get(key)


def unimplemented_problems(
    options: Mapping[str, str],
    *,
    keys: Iterable[str] | None = None,
    writing: bool = False,
    reading: bool = False,
) -> list[str]:
    """What is wrong with each of `keys` (default: every option) that paimon-sql does not honour.

    `options` are the table's options after the change (a value may depend on another option);
    `writing`: only the options a write would ignore (`Unimplemented.writes`); `reading`: only
    those a read would (`Unimplemented.reads`).

    >>> unimplemented_problems({"manifest.format": "orc"})  # doctest: +ELLIPSIS
    ["option 'manifest.format' = 'orc' is not supported: paimon-sql writes Avro manifests only ..."]
    >>> unimplemented_problems({"changelog-file.format": "orc", "file.format": "orc"})
    []
    """
    problems = []
    for key in options if keys is None else keys:
        spec, value = _unimplemented(key), options.get(key)
        if spec is None or value is None or (writing and not spec.writes):
            continue
        if reading and not spec.reads:
            continue
        if not spec.fits(value, options):
            problems.append(f"option {key!r} = {value!r} is not supported: {spec.why}")
    return problems


def refuse_unimplemented(
    options: Mapping[str, str],
    statement: str,
    table: object,
    *,
    merged: Mapping[str, str] | None = None,
) -> None:
    """Refuse options whose behaviour paimon-sql does not implement (`UNIMPLEMENTED`).

    An `UnsupportedFeatureError` naming each option of `options` (those a CREATE TABLE or ALTER
    TABLE … SET gives) that asks for something paimon-sql does not do; `merged`: the table's
    options with these set (default `options`), for values that depend on other options.

    >>> refuse_unimplemented({"changelog-producer": "lookup"}, "CREATE TABLE", "db.t")
    >>> refuse_unimplemented({"commit.callbacks": "x.Y"}, "CREATE TABLE", "db.t")
    Traceback (most recent call last):
    ...
    paimon_sql.errors.UnsupportedFeatureError: CREATE TABLE db.t: option 'commit.callbacks' = \
'x.Y' is not supported: paimon-sql cannot run Java commit callback classes; remove it
    """
    problems = unimplemented_problems(merged or options, keys=list(options))
    if problems:
        raise UnsupportedFeatureError(f"{statement} {table}: " + "; ".join(problems))


def refuse_unreadable_options(options: Mapping[str, str], table: object) -> None:
    """Refuse reading a table whose options ask for what paimon-sql's reader does not do.

    Those are the `UNIMPLEMENTED` entries with `reads` (a table another tool made).

    >>> refuse_unreadable_options({"manifest.format": "parquet"}, "db.t")  # read normally
    >>> refuse_unreadable_options({"partial-update.remove-record-on-sequence-group": "g"},
    ...                           "db.t")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paimon_sql.errors.UnsupportedFeatureError: reading db.t: option 'partial-update.remove...
    """
    problems = unimplemented_problems(options, reading=True)
    if problems:
        raise UnsupportedFeatureError(f"reading {table}: " + "; ".join(problems))


def refuse_unwritable_options(options: Mapping[str, str], table: object) -> None:
    """Refuse writing a table whose options ask for what paimon-sql's writer does not do.

    Those are the `UNIMPLEMENTED` entries with `writes` (a table Java made); reading it is fine.

    >>> refuse_unwritable_options({"manifest.format": "parquet"}, "db.t")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paimon_sql.errors.UnsupportedFeatureError: writing db.t: option 'manifest.format' = ...
    """
    problems = unimplemented_problems(options, writing=True)
    if problems:
        raise UnsupportedFeatureError(
            f"writing {table}: " + "; ".join(problems) + " (reading the table works)"
        )
