"""Tag procedures.

create_tag, delete_tag, rename_tag, replace_tag, create_tag_from_timestamp, expire_tags.

Spark's names, parameter order and output columns (paimon-spark ``CreateTagProcedure`` and
friends). Paimon 0.9 has create_tag, create_tag_from_timestamp and delete_tag; rename_tag,
replace_tag and expire_tags come from 1.x; where both have one, the parameters are the same.
``delete_tag`` refuses an unknown name as 0.9 does (1.x only logs it). Rollback procedures live
with the snapshot lifecycle ones.

>>> [p.signature() for p in PROCEDURES][:2]
['create_tag(table, tag, [snapshot], [time_retained])', 'delete_tag(table, tag)']
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_sql.commit import tags
from paimon_sql.errors import ArgumentError
from paimon_sql.sql.procedures._procedure import Param, Procedure, done, table_arg

if TYPE_CHECKING:
    from collections.abc import Mapping

    from paimon_sql.sql._context import Context

_TABLE = Param(name="table", required=True, doc="the table, 'db.table'")
_TAG = Param(name="tag", required=True, doc="the tag name")
_SNAPSHOT = Param(name="snapshot", doc="the snapshot id to tag (default: the latest)")
_RETAINED = Param(name="time_retained", doc="how long to keep the tag, e.g. '1 d', '2 h', '30 min'")


def _snapshot(args: Mapping[str, Any]) -> int | None:
    value = args.get("snapshot")
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"snapshot must be a snapshot id (an integer), got {value!r}")
    return value


def _create(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    tags.create_tag(table, str(args["tag"]), _snapshot(args), args.get("time_retained"))
    return done(ctx, table)


def _replace(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    tags.replace_tag(table, str(args["tag"]), _snapshot(args), args.get("time_retained"))
    return done(ctx, table)


def _delete(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    tags.delete_tag(table, str(args["tag"]))
    return done(ctx, table)


def _rename(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    tags.rename_tag(table, str(args["tag"]), str(args["target_tag"]))
    return done(ctx, table)


def _from_timestamp(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    if "timestamp" not in args:
        raise ArgumentError("create_tag_from_timestamp needs timestamp (epoch milliseconds)")
    made = tags.create_tag_from_timestamp(
        table, str(args["tag"]), args["timestamp"], args.get("time_retained")
    )
    ctx.changed(table)
    snap = made.snapshot
    return pa.table(
        {
            "tagName": pa.array([made.tag], pa.string()),
            "snapshot": pa.array([snap.id], pa.int64()),
            "commit_time": pa.array([snap.time_millis], pa.int64()),
            # Java prints String.valueOf(watermark): "null" when there is none
            "watermark": pa.array([str(snap.watermark) if snap.watermark is not None else "null"]),
        }
    )


def _older_than(text: Any) -> datetime.datetime:
    """Local wall-clock time, as tag creation times are kept.

    An offset (``+02:00``) names an instant, as ``expire_snapshots`` reads it: it becomes the
    local time of that instant, comparable with the tags' naive times.
    """
    try:
        moment = datetime.datetime.fromisoformat(str(text).strip())
    except ValueError as err:
        raise ArgumentError(
            f"older_than {text!r} is not a timestamp; write local time like '2024-05-14 10:00:00'"
        ) from err
    if moment.tzinfo is not None:
        moment = moment.astimezone().replace(tzinfo=None)
    return moment


def _expire(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    older = args.get("older_than")
    expired = tags.expire_tags(table, None if older is None else _older_than(older))
    ctx.changed(table)
    return pa.table({"expired_tags": pa.array(expired or ["No expired tags."], pa.string())})


PROCEDURES: tuple[Procedure, ...] = (
    Procedure(
        name="create_tag",
        params=(_TABLE, _TAG, _SNAPSHOT, _RETAINED),
        run=_create,
        doc="Create a tag on a snapshot (default: the latest); fails if the tag exists.",
    ),
    Procedure(
        name="delete_tag",
        params=(_TABLE, Param(name="tag", required=True, doc="tag names, comma-separated")),
        run=_delete,
        doc="Delete tags; files only they held are cleaned up.",
    ),
    Procedure(
        name="rename_tag",
        params=(_TABLE, _TAG, Param(name="target_tag", required=True, doc="the new name")),
        run=_rename,
        doc="Rename a tag.",
    ),
    Procedure(
        name="replace_tag",
        params=(_TABLE, _TAG, _SNAPSHOT, _RETAINED),
        run=_replace,
        doc="Point an existing tag at another snapshot (default: the latest).",
    ),
    Procedure(
        name="create_tag_from_timestamp",
        params=(
            _TABLE,
            _TAG,
            Param(name="timestamp", required=True, doc="epoch milliseconds"),
            _RETAINED,
        ),
        run=_from_timestamp,
        doc="Tag the first snapshot committed at or after a time.",
    ),
    Procedure(
        name="expire_tags",
        params=(_TABLE, Param(name="older_than", doc="also expire tags created before this time")),
        run=_expire,
        doc="Delete tags past their retention (and, given older_than, tags created before it).",
    ),
)
