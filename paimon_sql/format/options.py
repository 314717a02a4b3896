"""Table options that decide how a table is read and written (paimon-format.md §11).

>>> o = CoreOptions({"merge-engine": "first-row", "ignore-delete": "true"})
>>> o.merge_engine, o.ignore_delete
(<MergeEngine.FIRST_ROW: 'first-row'>, True)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_sql.errors import OptionError

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


@dataclass(frozen=True, slots=True)
class CoreOptions:
    """Typed access to a schema's options map."""

    options: Mapping[str, str]

    def get(self, key: str, default: str | None = None) -> str | None:
        """The raw value."""
        return self.options.get(key, default)

    def flag(self, key: str, default: bool = False) -> bool:
        """A boolean option (``'true'`` in any case, surrounding blanks ignored).

        >>> CoreOptions({"write-only": " TRUE "}).flag("write-only")
        True
        >>> CoreOptions({}).flag("write-only")
        False
        """
        return _bool(self.options.get(key), default)

    @property
    def merge_engine(self) -> MergeEngine:
        """`merge-engine` (default deduplicate)."""
        raw = self.options.get("merge-engine", "deduplicate")
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
        return ChangelogProducer(self.options.get("changelog-producer", "none"))

    @property
    def deletion_vectors(self) -> bool:
        """`deletion-vectors.enabled`."""
        return _bool(self.options.get("deletion-vectors.enabled"))

    @property
    def deletion_vectors_merge_on_read(self) -> bool:
        """`deletion-vectors.merge-on-read`: read level-0 files too, merging."""
        return _bool(self.options.get("deletion-vectors.merge-on-read"))

    @property
    def ignore_delete(self) -> bool:
        """`ignore-delete` or one of its engine-specific spellings."""
        keys = (
            "ignore-delete",
            "first-row.ignore-delete",
            "deduplicate.ignore-delete",
            "partial-update.ignore-delete",
        )
        return any(_bool(self.options.get(k)) for k in keys)

    @property
    def sequence_fields(self) -> tuple[str, ...]:
        """`sequence.field` columns (empty when unset)."""
        raw = self.options.get("sequence.field")
        return tuple(f.strip() for f in raw.split(",")) if raw else ()

    @property
    def sequence_descending(self) -> bool:
        """`sequence.field.sort-order=descending`."""
        return self.options.get("sequence.field.sort-order", "ascending").lower() == "descending"

    @property
    def partition_default_name(self) -> str:
        """`partition.default-name`."""
        return self.options.get("partition.default-name", "__DEFAULT_PARTITION__")

    @property
    def file_format(self) -> str:
        """`file.format` (parquet by default)."""
        return self.options.get("file.format", "parquet").lower()

    @property
    def rowkind_field(self) -> str | None:
        """`rowkind.field`: a column whose value (+I/-U/+U/-D) is the row kind."""
        return self.options.get("rowkind.field")
