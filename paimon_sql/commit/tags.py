"""Tags: create, replace, rename, delete and expire them; create them automatically (seed 003).

A tag is the file ``tag/tag-<name>`` holding the tagged snapshot's JSON, written exactly as
Java's ``TagManager`` does (paimon-format.md §3, §10.3): the snapshot as is, or, when the tag is
created with a retention time, the snapshot plus ``tagCreateTime`` (local wall-clock time) and
``tagTimeRetained``. Only the tag file is written; data files and manifests stay shared.

>>> import tempfile
>>> import paimon_sql
>>> session = paimon_sql.connect(tempfile.mkdtemp(), create=True)
>>> _ = session.sql("CREATE DATABASE db")
>>> _ = session.sql("CREATE TABLE db.t (id INT, v STRING)")
>>> _ = session.sql("INSERT INTO db.t VALUES (1, 'a')")
>>> table = session.table("db.t")
>>> create_tag(table, "nightly", time_retained="1 d").tag_time_retained_seconds
86400.0
>>> rename_tag(table, "nightly", "daily")
>>> table.tag_names()
['daily']
>>> delete_tag(table, "daily")
['daily']
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import os
import re
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_sql.catalog import names
from paimon_sql.catalog.table import instant_text
from paimon_sql.commit.expire import clean_after_tag_deletion, tagged_snapshots
from paimon_sql.errors import (
    AlreadyExistsError,
    ArgumentError,
    CommitConflictError,
    InvalidNameError,
    OptionError,
    PaimonSqlError,
    SnapshotNotFoundError,
)
from paimon_sql.format.option_registry import parse_duration
from paimon_sql.format.options import CoreOptions
from paimon_sql.format.snapshot import Snapshot, snapshot_to_json

if TYPE_CHECKING:
    from collections.abc import Mapping

    from paimon_sql.catalog import Table

_LOG = logging.getLogger(__name__)
_PREFIX = "tag-"
BATCH_TAG_PREFIX = "batch-write-"  # TagBatchCreation: one tag per day of batch writes

Clock = Callable[[], datetime.datetime]


# --- arguments ------------------------------------------------------------------------------------


def retained_seconds(time_retained: str | datetime.timedelta | None) -> float | None:
    """Seconds of a retention: duration text (``'1 d'``, ``'2 h'``, ``'30 min'``) or a timedelta.

    >>> retained_seconds("1 d"), retained_seconds("90 min"), retained_seconds("1500 ms")
    (86400.0, 5400.0, 1.5)
    """
    if time_retained is None:
        return None
    if isinstance(time_retained, datetime.timedelta):
        seconds = time_retained.total_seconds()
    else:
        try:
            seconds = parse_duration(str(time_retained)) / 1000
        except ValueError as err:
            raise ArgumentError(
                f"time_retained {time_retained!r} is not a duration; write it like '1 d', '2 h', "
                "'30 min', '10 s' or '500 ms'"
            ) from err
    if seconds <= 0:
        raise ArgumentError(f"time_retained must be positive, got {time_retained!r}")
    return float(seconds)


def _check_name(name: object, what: str = "tag name") -> None:
    # TagManager: "Tag name shouldn't be blank." Numeric names are fine (Spark reads them as tags).
    # Beyond that a tag name is an identifier, never a path (`names.validate_name`).
    if not isinstance(name, str) or not name.strip():
        raise InvalidNameError(f"{what} must not be blank, got {name!r}")
    names.validate_name("tag", name)


def _path(table: Table, name: str) -> str:
    return table.meta("tag", _PREFIX + names.validate_name("tag", name))


def _missing(table: Table, name: str) -> SnapshotNotFoundError:
    tags = table.tag_names()
    listed = f"its tags: {', '.join(tags)}" if tags else "it has no tags"
    return SnapshotNotFoundError(f"tag {name!r} of table {table.name} does not exist ({listed})")


def _snapshot_range(table: Table) -> str:
    ids = table.snapshot_ids()
    return f"snapshots {ids[0]}..{ids[-1]}" if ids else "no snapshots"


def _tag_content(snapshot: Snapshot, seconds: float | None, clock: Clock) -> bytes:
    """The tag file: the snapshot, plus ``tagCreateTime``/``tagTimeRetained`` with a retention."""
    plain = dataclasses.replace(snapshot, tag_create_time=None, tag_time_retained_seconds=None)
    if seconds is not None:
        plain = dataclasses.replace(
            plain, tag_create_time=clock(), tag_time_retained_seconds=seconds
        )
    return snapshot_to_json(plain).encode("utf-8")


def _find_snapshot(table: Table, snapshot_id: int | None) -> Snapshot:
    """The latest snapshot, or `snapshot_id`: live, else held by a tag (Java's findSnapshot)."""
    if snapshot_id is None:
        latest = table.latest_snapshot()
        if latest is None:
            raise SnapshotNotFoundError(
                f"cannot create a tag: table {table.name} has no snapshot yet; write to it first"
            )
        return latest
    if isinstance(snapshot_id, bool) or not isinstance(snapshot_id, int):
        raise ArgumentError(f"snapshot must be a snapshot id (an integer), got {snapshot_id!r}")
    if table.fileio.exists(table.meta("snapshot", f"snapshot-{snapshot_id}")):
        return table.snapshot(snapshot_id)
    for tagged in tagged_snapshots(table):
        if tagged.id == snapshot_id:
            return tagged
    raise SnapshotNotFoundError(
        f"cannot tag snapshot {snapshot_id} of table {table.name}: it does not exist "
        f"(the table has {_snapshot_range(table)}, and no tag holds snapshot {snapshot_id})"
    )


# --- manual tags ----------------------------------------------------------------------------------


def create_tag(
    table: Table,
    name: str,
    snapshot_id: int | None = None,
    time_retained: str | datetime.timedelta | None = None,
    *,
    clock: Clock = datetime.datetime.now,
) -> Snapshot:
    """Tag a snapshot (default: the latest), never overwriting a tag; returns the tag's snapshot."""
    _check_name(name)
    seconds = retained_seconds(time_retained)
    if table.fileio.exists(_path(table, name)):
        raise AlreadyExistsError(_exists_message(table, name))
    snapshot = _find_snapshot(table, snapshot_id)
    if not _create_file(table, name, snapshot, _tag_content(snapshot, seconds, clock)):
        raise AlreadyExistsError(_exists_message(table, name))
    return table.tag(name)


def _create_file(table: Table, name: str, snapshot: Snapshot, content: bytes) -> bool:
    """Create the tag file (False when the name is taken), then make sure no expiration missed it.

    Expiration deletes the snapshot files first and lists the tags after; a tag is created first
    and its snapshot checked after. So if the snapshot was live and is still there, any expiration
    that removes it later sees the tag and keeps its files; if it is gone, that expiration may not
    have seen the tag and may delete its files: the tag is removed again and the caller told so.
    """
    snapshot_path = table.meta("snapshot", f"snapshot-{snapshot.id}")
    # Tag creation and tag deletion (whose clean-up deletes the files only a tag held) take turns
    # on the tag folder's lock: a snapshot that is no longer live is kept only by its tags, so one
    # of them being deleted at the same moment must either see the new tag or finish first.
    with table.fileio.folder_lock(table.meta("tag")):
        live = table.fileio.exists(snapshot_path)
        if not live and not _files_kept(table, snapshot):
            raise CommitConflictError(
                f"cannot tag snapshot {snapshot.id} of table {table.name}: it is no longer live "
                "and the tag that kept its files was deleted meanwhile; no tag was made"
            )
        if not table.fileio.try_create(_path(table, name), content):
            return False
    if live and not table.fileio.exists(snapshot_path):
        table.fileio.delete(_path(table, name))
        raise CommitConflictError(
            f"cannot tag snapshot {snapshot.id} of table {table.name}: it expired while the tag "
            f"{name!r} was created, so its files may be gone; no tag was made, tag a live snapshot"
        )
    return True


def _files_kept(table: Table, snapshot: Snapshot) -> bool:
    """Whether an expired snapshot's manifest lists are still there (tag clean-ups delete them)."""
    lists = (snapshot.base_manifest_list, snapshot.delta_manifest_list)
    return all(table.fileio.exists(table.manifest_path(n)) for n in lists if n)


def _exists_message(table: Table, name: str) -> str:
    held = table.tag(name).id
    return (
        f"tag {name!r} of table {table.name} already exists (it holds snapshot {held}); "
        "use replace_tag to point it elsewhere, or delete_tag first"
    )


def replace_tag(
    table: Table,
    name: str,
    snapshot_id: int | None = None,
    time_retained: str | datetime.timedelta | None = None,
    *,
    clock: Clock = datetime.datetime.now,
) -> Snapshot:
    """Point an existing tag at another snapshot (default: the latest), with a new retention."""
    _check_name(name)
    seconds = retained_seconds(time_retained)
    if not table.fileio.exists(_path(table, name)):
        raise _missing(table, name)
    snapshot = _find_snapshot(table, snapshot_id)
    table.fileio.write_bytes(_path(table, name), _tag_content(snapshot, seconds, clock))
    return table.tag(name)


def rename_tag(table: Table, name: str, target: str) -> None:
    """Rename a tag; the file keeps its exact bytes. The target name must be free."""
    _check_name(name, "tag")
    _check_name(target, "target_tag")
    source = _path(table, name)
    if not table.fileio.exists(source):
        raise _missing(table, name)
    content = table.fileio.read_bytes(source)
    if not table.fileio.try_create(_path(table, target), content):
        raise AlreadyExistsError(_exists_message(table, target))
    table.fileio.delete(source)


def delete_tag(table: Table, names: str) -> list[str]:
    """Delete tags (comma-separated names, as Spark's ``delete_tag``); returns the deleted names.

    Every name must exist (checked before any is deleted). When a deleted tag held a snapshot that
    is no longer live and no other tag holds it, the files only it kept are cleaned up
    (TagManager.deleteTag).
    """
    wanted = [n.strip() for n in str(names).split(",")]
    for name in wanted:
        _check_name(name)
    missing = [n for n in dict.fromkeys(wanted) if not table.fileio.exists(_path(table, n))]
    if missing:
        raise _missing(table, missing[0])
    deleted = []
    for name in dict.fromkeys(wanted):
        _delete_one(table, name)
        deleted.append(name)
    return deleted


def _delete_one(table: Table, name: str, tagged: Snapshot | None = None) -> None:
    """Delete one tag (`tagged`: its snapshot, when already read), then the files only it held.

    `clean_after_tag_deletion` does nothing when the snapshot is live or another tag holds it.
    """
    tagged = table.tag(name) if tagged is None else tagged
    with table.fileio.folder_lock(table.meta("tag")):  # see `_create_file`
        table.fileio.delete(_path(table, name))
        clean_after_tag_deletion(table, tagged)


@dataclass(frozen=True, slots=True, kw_only=True)
class TimestampTag:
    """What ``create_tag_from_timestamp`` tagged (Spark's output row)."""

    tag: str
    snapshot: Snapshot


def create_tag_from_timestamp(
    table: Table,
    name: str,
    timestamp_ms: int,
    time_retained: str | datetime.timedelta | None = None,
    *,
    clock: Clock = datetime.datetime.now,
) -> TimestampTag:
    """Tag the first snapshot committed at or after `timestamp_ms`, as Spark's procedure does.

    Live snapshots are searched first; a tag whose snapshot is older than that one (or the only
    match, once the snapshots expired) wins, so expired history stays taggable.
    """
    if isinstance(timestamp_ms, bool) or not isinstance(timestamp_ms, int):
        raise ArgumentError(
            f"timestamp must be epoch milliseconds (an integer), got {timestamp_ms!r}"
        )
    found = next((s for s in _live_snapshots(table) if s.time_millis >= timestamp_ms), None)
    for snap in tagged_snapshots(table):
        if timestamp_ms <= snap.time_millis:
            if found is None or snap.time_millis < found.time_millis:
                found = snap
            break
    if found is None:
        raise SnapshotNotFoundError(
            f"table {table.name} has no snapshot or tag committed at or after "
            f"{instant_text(timestamp_ms)} "
            f"(it has {_snapshot_range(table)}); pass an earlier timestamp"
        )
    return TimestampTag(
        tag=name, snapshot=create_tag(table, name, found.id, time_retained, clock=clock)
    )


def _live_snapshots(table: Table) -> list[Snapshot]:
    return [table.snapshot(i) for i in table.snapshot_ids()]


def expire_tags(
    table: Table,
    older_than: datetime.datetime | None = None,
    *,
    clock: Clock = datetime.datetime.now,
) -> list[str]:
    """Delete tags whose retention has passed, and (given `older_than`) tags created before it.

    Java's TagTimeExpire: a tag with ``tagCreateTime + tagTimeRetained`` before now expires; with
    `older_than` (local wall-clock time), so does every tag created before it, the creation time
    of a tag without ``tagCreateTime`` being its file's modification time. Returns the names.
    """
    now = clock()
    expired = []
    for name in table.tag_names():
        tag = table.tag(name)
        created = tag.tag_create_time
        if created is None and older_than is not None:
            created = _modified(table, name)
        if created is None:
            continue
        retained = tag.tag_time_retained_seconds
        by_time = retained is not None and now > created + datetime.timedelta(seconds=retained)
        if by_time or (older_than is not None and older_than > created):
            _delete_one(table, name, tag)
            expired.append(name)
    return expired


def _modified(table: Table, name: str) -> datetime.datetime | None:
    """A tag file's modification time as local wall-clock time (Java's FileStatus time)."""
    path = _path(table, name)
    try:
        if table.fileio.local:
            return datetime.datetime.fromtimestamp(os.path.getmtime(path))
        millis = table.fileio.modified_millis(path)
    except FileNotFoundError:
        return None
    if millis is None:
        return None
    return datetime.datetime.fromtimestamp(millis / 1000)


# --- automatic creation (TagAutoCreation, TagPeriodHandler, TagTimeExtractor, TagBatchCreation) ---

_DAY = re.compile(r"^(\d{1,10})-(\d{2})-(\d{2})$")
_DAY_PLAIN = re.compile(r"^(\d{1,10})(\d{2})(\d{2})$")
_HOUR = re.compile(r"^(\d{1,10})-(\d{2})-(\d{2}) (\d{2})$")
_HOUR_PLAIN = re.compile(r"^(\d{1,10})(\d{2})(\d{2}) (\d{2})$")
_HOUR_PACKED = re.compile(r"^(\d{1,10})(\d{2})(\d{2})(\d{2})$")
_PERIODS = {"daily": 24, "hourly": 1, "two-hours": 2}
_EPOCH = datetime.datetime(1970, 1, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class TagPeriod:
    """`tag.creation-period` with `tag.period-formatter`: tag names and the times they stand for.

    >>> p = tag_period({"tag.creation-period": "hourly"})
    >>> p.name(datetime.datetime(2024, 5, 14, 10)), p.time("2024-05-14 10"), p.time("nightly")
    ('2024-05-14 10', datetime.datetime(2024, 5, 14, 10, 0), None)
    >>> p.previous(datetime.datetime(2024, 5, 14, 10, 59))
    datetime.datetime(2024, 5, 14, 9, 0)
    """

    hours: int
    formatter: str = "with_dashes"

    @property
    def length(self) -> datetime.timedelta:
        """One period."""
        return datetime.timedelta(hours=self.hours)

    def _pattern(self) -> re.Pattern[str]:
        if self.hours == 24:
            return _DAY if self.formatter == "with_dashes" else _DAY_PLAIN
        if self.hours == 2 or self.formatter == "with_dashes":
            return _HOUR  # two-hours always uses the dashed hour form
        return _HOUR_PLAIN if self.formatter == "without_dashes" else _HOUR_PACKED

    def name(self, start: datetime.datetime) -> str:
        """The tag name of the period starting at `start`."""
        pattern = self._pattern()
        date = f"{start.year}-{start.month:02}-{start.day:02}"
        if pattern in (_DAY_PLAIN, _HOUR_PLAIN, _HOUR_PACKED):
            date = date.replace("-", "")
        if self.hours == 24:
            return date
        return f"{date}{'' if pattern is _HOUR_PACKED else ' '}{start.hour:02}"

    def time(self, name: str) -> datetime.datetime | None:
        """The period start an automatic tag name stands for; None when `name` is not one."""
        match = self._pattern().match(name.split(" ")[0] if self.hours == 24 else name)
        if match is None:
            return None
        parts = [int(p) for p in match.groups()]
        try:
            year, month, day, *hour = parts  # the patterns have 3 or 4 groups
            return datetime.datetime(year, month, day, hour[0] if hour else 0)
        except ValueError:
            return None

    def previous(self, moment: datetime.datetime) -> datetime.datetime:
        """The start of the period before the one `moment` falls in (normalizeToPreviousTag)."""
        millis = (moment - _EPOCH) // datetime.timedelta(milliseconds=1)
        step = self.hours * 3_600_000
        return _EPOCH + datetime.timedelta(milliseconds=(millis // step) * step) - self.length


def tag_period(options: Mapping[str, str]) -> TagPeriod:
    """The `TagPeriod` of a table's options."""
    typed = CoreOptions(options)
    period = typed.choice("tag.creation-period")
    if period not in _PERIODS:
        raise OptionError(f"tag.creation-period {period!r} is not one of {', '.join(_PERIODS)}")
    formatter = typed.choice("tag.period-formatter")
    return TagPeriod(hours=_PERIODS[period], formatter=formatter)


TimeOf = Callable[[Snapshot], "datetime.datetime | None"]


def _extractor(mode: str, options: Mapping[str, str]) -> TimeOf:
    """TagTimeExtractor: commit time (local), or the watermark in `sink.watermark-time-zone`."""
    if mode == "process-time":
        return lambda s: datetime.datetime.fromtimestamp(s.time_millis / 1000)
    if mode != "watermark":
        raise OptionError(
            f"tag.automatic-creation {mode!r} is not one of none, process-time, watermark, batch"
        )
    zone = zoneinfo.ZoneInfo(CoreOptions(options).watermark_time_zone)

    def watermark(snapshot: Snapshot) -> datetime.datetime | None:
        if snapshot.watermark is None:
            return None
        try:
            moment = datetime.datetime.fromtimestamp(snapshot.watermark / 1000, zone)
        except (OverflowError, OSError, ValueError):
            return None  # Long.MIN_VALUE: "no watermark" from older Flink writers
        return moment.replace(tzinfo=None)

    return watermark


def _auto_tags(table: Table, period: TagPeriod) -> dict[int, list[tuple[str, datetime.datetime]]]:
    """Automatic tags (names that parse as a period) by the snapshot id they hold, ascending."""
    found: dict[int, list[tuple[str, datetime.datetime]]] = {}
    for name in table.tag_names():
        start = period.time(name)
        if start is not None:
            found.setdefault(table.tag(name).id, []).append((name, start))
    return dict(sorted(found.items()))


def auto_create_tags(
    table: Table,
    *,
    time_of: TimeOf | None = None,
    clock: Clock = datetime.datetime.now,
) -> list[str]:
    """Create the tags ``tag.automatic-creation`` asks for; returns the names created.

    Java's TagAutoCreation, rebuilt from the table at each commit as a new Java writer would:
    resume after the snapshot of the newest automatic tag (or at the earliest snapshot), and tag a
    snapshot when its time, less ``tag.creation-delay``, has passed the end of the period after
    the last tag. The tag is named after the period before the snapshot's time. `time_of`
    overrides the time of a snapshot (default: its commit time, or its watermark); `clock` gives
    the creation time of retained tags.
    """
    options = dict(table.latest_schema.options)
    typed = CoreOptions(options)
    mode = typed.choice("tag.automatic-creation")
    if mode == "none":
        return []
    if mode == "batch":
        return _batch_tag(table, options, clock)
    period = tag_period(options)
    delay = _delay(options, period)
    extract = time_of or _extractor(mode, options)
    complete = typed.flag("tag.automatic-completion")
    seconds = retained_seconds(typed.text("tag.default-time-retained"))
    state = _AutoState.resume(table, period)
    created: list[str] = []
    for snapshot in state.pending(table):
        moment = extract(snapshot)
        due = state.next_tag is None or (
            moment is not None and moment - delay >= state.next_tag + period.length
        )
        if moment is None or not due:
            continue
        start = state.next_tag if complete and state.next_tag else period.previous(moment)
        name = period.name(start)
        content = _tag_content(snapshot, seconds, clock)
        if _create_file(table, name, snapshot, content):
            created.append(name)
        state.next_tag = start + period.length
        _retain_auto_tags(table, period, typed.text("tag.num-retained-max"))
    return created


def _delay(options: Mapping[str, str], period: TagPeriod) -> datetime.timedelta:
    """``tag.creation-delay``, shorter than one period (TagPeriodHandler.validateDelay)."""
    text = CoreOptions(options).text("tag.creation-delay") or ""
    delay = datetime.timedelta(milliseconds=parse_duration(text))
    if delay >= period.length:
        raise OptionError(
            f"tag.creation-delay ({text}) must be shorter than one tag.creation-period "
            f"({period.length}); lower the delay or choose a longer period"
        )
    return delay


@dataclass(slots=True)
class _AutoState:
    next_snapshot: int
    next_tag: datetime.datetime | None

    @classmethod
    def resume(cls, table: Table, period: TagPeriod) -> _AutoState:
        tags = _auto_tags(table, period)
        if not tags:
            return cls(next_snapshot=table.earliest_snapshot_id() or 1, next_tag=None)
        last_id, names = list(tags.items())[-1]
        return cls(next_snapshot=last_id + 1, next_tag=max(t for _, t in names) + period.length)

    def pending(self, table: Table) -> list[Snapshot]:
        """The snapshots from `next_snapshot` on (skipping ahead past expired ones)."""
        latest = table.latest_snapshot_id()
        if latest is None:
            return []
        earliest = table.earliest_snapshot_id() or 1
        first = max(self.next_snapshot, earliest)
        ids = range(first, latest + 1)
        return [
            table.snapshot(i)
            for i in ids
            if table.fileio.exists(table.meta("snapshot", f"snapshot-{i}"))
        ]


def _retain_auto_tags(table: Table, period: TagPeriod, maximum: str | None) -> None:
    """``tag.num-retained-max``: delete the automatic tags of the oldest snapshots beyond it."""
    if maximum is None:
        return
    tags = _auto_tags(table, period)
    surplus = len(tags) - int(maximum)
    for group in list(tags.values())[: max(surplus, 0)]:
        for name, _ in group:
            _delete_one(table, name)


def _batch_tag(table: Table, options: dict[str, str], clock: Clock) -> list[str]:
    """TagBatchCreation: tag the latest snapshot ``batch-write-<yyyy-MM-dd>`` (replacing it)."""
    latest = table.latest_snapshot()
    if latest is None:
        return []
    day = datetime.datetime.fromtimestamp(latest.time_millis / 1000)
    typed = CoreOptions(options)
    name = typed.text("tag.batch.customized-name") or BATCH_TAG_PREFIX + day.strftime("%Y-%m-%d")
    if table.fileio.exists(_path(table, name)):
        _delete_one(table, name)
    seconds = retained_seconds(typed.text("tag.default-time-retained"))
    _create_file(table, name, latest, _tag_content(latest, seconds, clock))
    maximum = typed.optional_integer("tag.num-retained-max")
    if maximum is not None:
        _retain_tags(table, maximum)
    return [name]


def _retain_tags(table: Table, maximum: int) -> None:
    """Keep at most `maximum` tags of any kind: the oldest snapshots' tags go first."""
    groups: dict[int, list[str]] = {}
    for name in table.tag_names():
        groups.setdefault(table.tag(name).id, []).append(name)
    count = sum(len(v) for v in groups.values())
    for snapshot_id in sorted(groups):
        if count <= maximum:
            break
        names = sorted(groups[snapshot_id], key=lambda n: _modified(table, n) or _EPOCH)
        for name in names[: count - maximum]:
            _delete_one(table, name)
            count -= 1


def run_after_commit(
    table: Table,
    snapshot: Snapshot,
    *,
    time_of: TimeOf | None = None,
    clock: Clock = datetime.datetime.now,
) -> None:
    """The tag step of a commit (TagAutoManager): automatic tags, then tags past their retention.

    The commit has already happened, so a failure is logged, never raised: raising would make the
    writer delete data files the new snapshot already references.
    """
    try:
        # Gate on the committed schema (cached) so a table without automatic tags lists nothing.
        options = table.schema(snapshot.schema_id).options
        if CoreOptions(options).choice("tag.automatic-creation") != "none":
            auto_create_tags(table, time_of=time_of, clock=clock)
        expire_tags(table, clock=clock)
    except (PaimonSqlError, OSError, ValueError) as err:
        _LOG.warning(
            "snapshot %s of %s was committed, but its tag maintenance failed: %s",
            snapshot.id,
            table.name,
            err,
        )
