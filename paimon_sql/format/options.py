"""Table options that decide how a table is read and written (paimon-format.md §11).

`CoreOptions` is the one way to read an option: its typed accessors (`text`, `integer`, `flag`,
`memory`, `duration_ms`, `choice`) fall back to the default in `option_registry.OPTIONS`, so a
default is written once, in the registry, and never at a read site.

>>> o = CoreOptions({"merge-engine": "first-row", "ignore-delete": "true"})
>>> o.merge_engine, o.ignore_delete
(<MergeEngine.FIRST_ROW: 'first-row'>, True)
>>> o.integer("commit.max-retries"), o.memory("write-buffer-size")
(10, 268435456)
>>> o.duration_ms("snapshot.time-retained")
3600000
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_sql.errors import OptionError
from paimon_sql.format.option_registry import (
    IGNORE_DELETE_KEYS,
    memory_size,
    option_default,
    parse_duration,
)

if TYPE_CHECKING:
    from collections.abc import Mapping


class MergeEngine(enum.Enum):
    """How records of one primary key combine."""

    DEDUPLICATE = "deduplicate"
    PARTIAL_UPDATE = "partial-update"
    AGGREGATE = "aggregation"
    FIRST_ROW = "first-row"


class ChangelogProducer(enum.Enum):
    """How a primary-key table produces its changelog."""

    NONE = "none"
    INPUT = "input"
    LOOKUP = "lookup"
    FULL_COMPACTION = "full-compaction"


def _bool(value: str | None, default: bool = False) -> bool:
    return default if value is None else value.strip().lower() == "true"


#: Default ``target-file-size`` by table kind: primary-key 128 MiB, append 256 MiB (§11).
_TARGET_FILE_SIZE = {True: 128 << 20, False: 256 << 20}


@dataclass(frozen=True, slots=True)
class CoreOptions:
    """Typed access to a schema's options map."""

    options: Mapping[str, str]

    def get(self, key: str) -> str | None:
        """The raw value as stored (None when unset); prefer the typed accessors below."""
        return self.options.get(key)

    def text(self, key: str) -> str | None:
        """The value of `key` as stored, else the registry's default (None when it has none).

        >>> unset = CoreOptions({})
        >>> unset.text("tag.creation-period"), unset.text("tag.num-retained-max")
        ('daily', None)
        """
        value = self.options.get(key)
        return option_default(key) if value is None else value

    def choice(self, key: str) -> str:
        """An enum option the registry has a default for, in lower case.

        >>> CoreOptions({"tag.automatic-creation": "Process-Time"}).choice("tag.automatic-creation")
        'process-time'
        >>> CoreOptions({}).choice("tag.automatic-creation")
        'none'
        """
        value = self.text(key)
        if value is None:
            raise OptionError(f"option {key!r} is not set and has no default")
        return value.lower()

    def _set(self, key: str) -> str | None:
        """`text`, with a blank value read as unset (numbers, sizes and durations)."""
        value = self.options.get(key)
        return value if value is not None and value.strip() else option_default(key)

    def _required(self, key: str) -> str:
        value = self._set(key)
        if value is None:
            raise OptionError(f"option {key!r} is not set and has no default")
        return value

    def optional_integer(self, key: str) -> int | None:
        """An integer option (a blank value counts as unset), else the registry's default or None.

        >>> CoreOptions({"num-levels": " 4 "}).optional_integer("num-levels")
        4
        >>> CoreOptions({}).optional_integer("num-levels") is None
        True
        """
        value = self._set(key)
        return None if value is None else int(value)

    def integer(self, key: str) -> int:
        """`optional_integer` of an option the registry has a default for.

        >>> CoreOptions({"bucket": "4"}).integer("bucket"), CoreOptions({}).integer("bucket")
        (4, -1)
        """
        return int(self._required(key))

    def optional_memory(self, key: str) -> int | None:
        """A memory size in bytes (read leniently, `memory_size`).

        Else the registry's default or None.
        """
        value = self._set(key)
        return None if value is None else memory_size(value)

    def memory(self, key: str) -> int:
        """`optional_memory` of an option the registry has a default for."""
        return memory_size(self._required(key))

    def optional_duration_ms(self, key: str) -> float | None:
        """A duration in milliseconds (`parse_duration`), else the registry's default or None."""
        value = self._set(key)
        return None if value is None else parse_duration(value)

    def duration_ms(self, key: str) -> float:
        """`optional_duration_ms` of an option the registry has a default for."""
        return parse_duration(self._required(key))

    def flag(self, key: str) -> bool:
        """A boolean option (``'true'`` in any case, surrounding blanks ignored).

        Else the registry's default.

        >>> CoreOptions({"write-only": " TRUE "}).flag("write-only")
        True
        >>> CoreOptions({}).flag("write-only"), CoreOptions({}).flag("metadata.stats-dense-store")
        (False, True)
        """
        return _bool(self.options.get(key), _bool(option_default(key)))

    @property
    def bucket(self) -> int:
        """`bucket` (default -1: dynamic for primary-key tables, unaware for append tables)."""
        return self.integer("bucket")

    @property
    def top_level(self) -> int:
        """The highest LSM level, where full compaction writes: ``num-levels`` - 1.

        Num-levels defaults to ``num-sorted-run.compaction-trigger`` + 1 (§7, §11).

        >>> CoreOptions({"num-levels": "3"}).top_level, CoreOptions({}).top_level
        (2, 5)
        >>> CoreOptions({"num-sorted-run.compaction-trigger": "7"}).top_level
        7
        """
        levels = self.optional_integer("num-levels")
        if levels is not None:
            return levels - 1
        return self.integer("num-sorted-run.compaction-trigger")

    @property
    def dynamic_bucket_initial_buckets(self) -> int:
        """``dynamic-bucket.initial-buckets``; unset: 1 (one assigner, as Java's batch writer)."""
        value = self.optional_integer("dynamic-bucket.initial-buckets")
        return 1 if value is None else value

    @property
    def snapshot_expire_limit(self) -> int:
        """``snapshot.expire.limit`` as the committer applies it.

        Unset, 10, as Paimon 0.9's committer does (the registry documents the 1.x default, 50,
        paimon-format.md §11).

        >>> CoreOptions({}).snapshot_expire_limit
        10
        >>> CoreOptions({"snapshot.expire.limit": "3"}).snapshot_expire_limit
        3
        """
        if not (self.options.get("snapshot.expire.limit") or "").strip():
            return 10
        return self.integer("snapshot.expire.limit")

    @property
    def watermark_time_zone(self) -> str:
        """``sink.watermark-time-zone``: the zone of watermark-based tag times, UTC when unset.

        A Flink sink option the registry passes through, so its default lives here.
        """
        return self.options.get("sink.watermark-time-zone", "UTC")

    def target_file_size(self, primary_key: bool) -> int:
        """``target-file-size`` in bytes; unset: 128 MiB (primary-key tables) or 256 MiB (append).

        >>> unset = CoreOptions({})
        >>> unset.target_file_size(True) >> 20, unset.target_file_size(False) >> 20
        (128, 256)
        """
        value = self.optional_memory("target-file-size")
        return _TARGET_FILE_SIZE[primary_key] if value is None else value

    @property
    def merge_engine(self) -> MergeEngine:
        """`merge-engine` (default deduplicate)."""
        raw = self.text("merge-engine")
        try:
            return MergeEngine(raw)
        except ValueError as err:
            valid = ", ".join(m.value for m in MergeEngine)
            raise OptionError(f"unknown merge-engine {raw!r}; valid: {valid}") from err

    def check(self, table: str) -> CoreOptions:
        """These options, once their enum values are known to parse.

        The enums are ``merge-engine`` and ``changelog-producer``; a bad value raises an
        `OptionError` naming the table and the option.

        >>> CoreOptions({"merge-engine": "x') --"}).check("db.t")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        paimon_sql.errors.OptionError: table db.t: option 'merge-engine': unknown merge-engine ...
        """
        key = "merge-engine"
        try:
            _ = self.merge_engine
            key = "changelog-producer"
            _ = self.changelog_producer
        except (OptionError, ValueError) as err:
            raise OptionError(f"table {table}: option {key!r}: {err}") from err
        return self

    @property
    def changelog_producer(self) -> ChangelogProducer:
        """`changelog-producer` (default none)."""
        return ChangelogProducer(self.text("changelog-producer"))

    @property
    def deletion_vectors(self) -> bool:
        """`deletion-vectors.enabled`."""
        return self.flag("deletion-vectors.enabled")

    @property
    def row_tracking(self) -> bool:
        """`row-tracking.enabled`: every row has a stable ``_ROW_ID`` (append tables only)."""
        return self.flag("row-tracking.enabled")

    @property
    def data_evolution(self) -> bool:
        """`data-evolution.enabled`: files of one row-id range hold different columns."""
        return self.flag("data-evolution.enabled")

    @property
    def deletion_vectors_merge_on_read(self) -> bool:
        """`deletion-vectors.merge-on-read`: read level-0 files too, merging."""
        return self.flag("deletion-vectors.merge-on-read")

    @property
    def ignore_delete(self) -> bool:
        """`ignore-delete` or one of its engine-specific spellings."""
        return any(self.flag(k) for k in IGNORE_DELETE_KEYS)

    @property
    def sequence_fields(self) -> tuple[str, ...]:
        """`sequence.field` columns (empty when unset)."""
        raw = self.options.get("sequence.field")
        return tuple(f.strip() for f in raw.split(",")) if raw else ()

    @property
    def sequence_descending(self) -> bool:
        """`sequence.field.sort-order=descending`."""
        return self.choice("sequence.field.sort-order") == "descending"

    @property
    def partition_default_name(self) -> str:
        """`partition.default-name`."""
        value = self.text("partition.default-name")
        assert value is not None  # the registry has a default
        return value

    @property
    def file_format(self) -> str:
        """`file.format` (parquet by default)."""
        return (self.text("file.format") or "").lower()

    @property
    def rowkind_field(self) -> str | None:
        """`rowkind.field`: a column whose value (+I/-U/+U/-D) is the row kind."""
        return self.options.get("rowkind.field")
