"""The two ends of an incremental read, resolved as Java's ``incremental-between*`` options are.

Paimon 1.3's ``AbstractDataTableScan.createIncrementalStartingScanner``:

* ``incremental-between`` = ``'a,b'``: two tag names (then the read is always a *diff* of the
  tags' snapshots), else two snapshot ids, start exclusive, end inclusive. ``a == b`` is empty;
  ``b < a`` is an error; a delta/changelog read needs ``earliest - 1 <= a`` and ``b <= latest``.
* ``incremental-between-timestamp`` = ``'t1,t2'`` (epoch millis or ``yyyy-MM-dd HH:mm:ss``,
  local time): empty when ``t1 == t2``, ``t1`` after the latest snapshot or ``t2`` before the
  earliest; otherwise the start is the newest snapshot at or before ``t1`` (``earliest - 1``
  when there is none: the earliest is included) and the end the newest at or before ``t2``.
* ``incremental-between-scan-mode``: ``auto`` (changelog files when the table has a
  ``changelog-producer``, else the delta files), ``delta``, ``changelog`` or ``diff``.

>>> parse_pair("3,7", "incremental-between")
('3', '7')
>>> scan_mode({"incremental-between-scan-mode": "DIFF"}, {})
'diff'
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_sql.errors import ArgumentError, UnsupportedFeatureError
from paimon_sql.format.options import ChangelogProducer, CoreOptions

if TYPE_CHECKING:
    from collections.abc import Mapping

    from paimon_sql.catalog import Table
    from paimon_sql.format.snapshot import Snapshot

BETWEEN = "incremental-between"
BETWEEN_TIMESTAMP = "incremental-between-timestamp"
SCAN_MODE = "incremental-between-scan-mode"
TO_AUTO_TAG = "incremental-to-auto-tag"
#: The options that make a read incremental (any of them in a hint).
INCREMENTAL_OPTIONS = (BETWEEN, BETWEEN_TIMESTAMP, TO_AUTO_TAG)
SCAN_MODES = ("auto", "delta", "changelog", "diff")


@dataclass(frozen=True, slots=True, kw_only=True)
class Between:
    """What an incremental read covers: snapshots ``start_id`` (exclusive) to ``end_id``.

    `mode` is ``delta``, ``changelog`` or ``diff`` (``auto`` resolved). For a diff, `start` and
    `end` are the two states compared (`start` None: the empty table before the first snapshot).
    `empty`: the read returns nothing (equal ends, or a range no snapshot falls in).
    """

    start_id: int
    end_id: int
    mode: str
    start: Snapshot | None = None
    end: Snapshot | None = None
    empty: bool = False


def is_incremental(options: Mapping[str, str]) -> bool:
    """Whether hint `options` ask for an incremental read.

    >>> is_incremental({"incremental-between": "1,2"}), is_incremental({"scan.snapshot-id": "1"})
    (True, False)
    """
    return any(key in options for key in INCREMENTAL_OPTIONS)


def parse_pair(text: str, option: str) -> tuple[str, str]:
    """The two ends of ``'a,b'``, or an `ArgumentError` naming `option`."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise ArgumentError(
            f"'{option}' = {text!r}: write the start (exclusive) and the end, separated by a "
            "comma, for example '3,7'"
        )
    return parts[0], parts[1]


def scan_mode(hint: Mapping[str, str], table_options: Mapping[str, str]) -> str:
    """``incremental-between-scan-mode`` from the hint, else the table, else ``auto``."""
    value = hint.get(SCAN_MODE, table_options.get(SCAN_MODE, "auto")).strip().lower()
    if value not in SCAN_MODES:
        raise ArgumentError(
            f"'{SCAN_MODE}' = {value!r} is not a scan mode; use one of {', '.join(SCAN_MODES)}"
        )
    return value


def resolve_mode(mode: str, table: Table) -> str:
    """``auto`` → ``changelog`` when the table produces changelog files, else ``delta``."""
    if mode != "auto":
        return mode
    producer = CoreOptions(table.latest_schema.options).changelog_producer
    return "delta" if producer is ChangelogProducer.NONE else "changelog"


def _whole(text: str) -> int | None:
    stripped = text.strip()
    if stripped.lstrip("-").isdigit():
        return int(stripped)
    return None


def timestamp_ms(text: str, what: str) -> int:
    """Epoch millis of digits, or of ``yyyy-MM-dd HH:mm:ss[.fff]`` in local time (as Java).

    >>> timestamp_ms("1700000000000", "start")
    1700000000000
    """
    number = _whole(text)
    if number is not None:
        return number
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError as err:
        raise ArgumentError(
            f"{what} {text!r} is not a timestamp; write epoch milliseconds or "
            "'YYYY-MM-DD HH:MM:SS[.fff]' (local time)"
        ) from err
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return int(moment.timestamp() * 1000)


def _ids(table: Table) -> tuple[int, int] | None:
    earliest, latest = table.earliest_snapshot_id(), table.latest_snapshot_id()
    if earliest is None or latest is None:
        return None
    return earliest, latest


def between_ids(table: Table, start: int, end: int, mode: str) -> Between:
    """Snapshot ids `start` (exclusive) to `end` (Java's ``betweenSnapshotIds``)."""
    if end < start:
        raise ArgumentError(
            f"the end snapshot {end} of an incremental read of {table.name} is before its "
            f"start {start}; the start is exclusive, the end inclusive"
        )
    mode = resolve_mode(mode, table)
    ids = _ids(table)
    if ids is None or start == end:
        return Between(start_id=start, end_id=end, mode=mode, empty=True)
    earliest, latest = ids
    if mode == "diff":
        first = None if start == 0 else table.snapshot(start)
        return Between(start_id=start, end_id=end, mode=mode, start=first, end=table.snapshot(end))
    if start < earliest - 1 or end > latest:
        raise ArgumentError(
            f"the snapshot range ({start}, {end}] of an incremental read of {table.name} is out "
            f"of the snapshots it has, {earliest} to {latest} (the start may be {earliest - 1})"
        )
    return Between(start_id=start, end_id=end, mode=mode, end=table.snapshot(end))


def between_tags(table: Table, start: str, end: str) -> Between:
    """Two tags: always a diff of their snapshots (Java's ``betweenTags``)."""
    first, last = table.tag(start), table.tag(end)
    if last.id < first.id:
        raise ArgumentError(
            f"tag {end!r} (snapshot {last.id}) of {table.name} is older than tag {start!r} "
            f"(snapshot {first.id}); put the older tag first"
        )
    return Between(
        start_id=first.id,
        end_id=last.id,
        mode="diff",
        start=first,
        end=last,
        empty=first.id == last.id,
    )


def between_timestamps(table: Table, start_ms: int, end_ms: int, mode: str) -> Between:
    """Epoch millis `start_ms` (exclusive) to `end_ms` (Java's ``betweenTimestamps``)."""
    if end_ms < start_ms:
        raise ArgumentError(
            f"the end timestamp {end_ms} of an incremental read of {table.name} is before its "
            f"start {start_ms}"
        )
    mode = resolve_mode(mode, table)
    ids = _ids(table)
    if ids is None:
        return Between(start_id=0, end_id=0, mode=mode, empty=True)
    earliest, latest = (table.snapshot(i) for i in ids)
    if start_ms == end_ms or start_ms > latest.time_millis or end_ms < earliest.time_millis:
        return Between(start_id=0, end_id=0, mode=mode, empty=True)
    first, last = table.snapshot_before(start_ms), table.snapshot_before(end_ms)
    if mode == "diff":
        first = first or earliest
        last = last or latest
        return Between(start_id=first.id, end_id=last.id, mode=mode, start=first, end=last)
    start_id = earliest.id - 1 if first is None or earliest.time_millis > start_ms else first.id
    last = last or latest
    return Between(start_id=start_id, end_id=last.id, mode=mode, end=last)


def from_options(table: Table, hint: Mapping[str, str]) -> Between:
    """The incremental read hint `options` ask for (`is_incremental` must hold)."""
    mode = scan_mode(hint, table.latest_schema.options)
    if BETWEEN in hint:
        start, end = parse_pair(hint[BETWEEN], BETWEEN)
        tags = set(table.tag_names())
        if start in tags and end in tags:
            return between_tags(table, start, end)
        first, last = _whole(start), _whole(end)
        if first is None or last is None:
            raise ArgumentError(
                f"'{BETWEEN}' = {hint[BETWEEN]!r}: {table.name} has no two tags of these names "
                "and they are not two snapshot ids; give two tags or two snapshot ids"
            )
        return between_ids(table, first, last, mode)
    if BETWEEN_TIMESTAMP in hint:
        start, end = parse_pair(hint[BETWEEN_TIMESTAMP], BETWEEN_TIMESTAMP)
        return between_timestamps(
            table, timestamp_ms(start, "start"), timestamp_ms(end, "end"), mode
        )
    raise UnsupportedFeatureError(
        f"'{TO_AUTO_TAG}' is not supported yet; use '{BETWEEN}' with two tag names"
    )


def from_bounds(table: Table, start: str, end: str, mode: str = "auto") -> Between:
    """The ends of ``paimon_changes(table, start, end)``: snapshot ids, tags or timestamps.

    Two whole numbers are snapshot ids; two names of tags are tags (a diff); otherwise both must be
    timestamps (``'YYYY-MM-DD HH:MM:SS'``, local time).
    """
    mode = mode.strip().lower()
    if mode not in SCAN_MODES:
        raise ArgumentError(f"mode {mode!r} is not a scan mode; use one of {', '.join(SCAN_MODES)}")
    first, last = _whole(start), _whole(end)
    if first is not None and last is not None:
        return between_ids(table, first, last, mode)
    tags = set(table.tag_names())
    if start in tags and end in tags:
        if mode not in ("auto", "diff"):
            raise ArgumentError(
                f"changes between tags {start!r} and {end!r} are a diff of their snapshots "
                f"(as in Paimon); mode {mode!r} needs snapshot ids or timestamps"
            )
        return between_tags(table, start, end)
    try:
        first_ms, last_ms = timestamp_ms(start, "start"), timestamp_ms(end, "end")
    except ArgumentError as err:
        raise ArgumentError(
            f"the bounds {start!r} and {end!r} of changes of {table.name} are neither two "
            "snapshot ids, nor two tags it has, nor two timestamps "
            f"(tags: {', '.join(sorted(tags)) or 'none'})"
        ) from err
    return between_timestamps(table, first_ms, last_ms, mode)
