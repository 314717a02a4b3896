"""Lifecycle procedures: expire_snapshots, rollback, rollback_to_timestamp, remove_orphan_files.

Names, parameter order and output columns are Paimon 0.9's Spark procedures
(``rollback_to_timestamp`` is 1.x's); ``older_than`` is ``'yyyy-MM-dd HH:mm:ss'`` in the session's
time zone, as in Java.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_sql.catalog import Identifier
from paimon_sql.commit.expire import expire_snapshots
from paimon_sql.commit.orphans import remove_orphan_files
from paimon_sql.commit.rollback import rollback, rollback_to_timestamp
from paimon_sql.engine.travel import parse_timestamp_ms
from paimon_sql.errors import SqlError
from paimon_sql.sql.procedures._procedure import Param, Procedure, done, table_arg

if TYPE_CHECKING:
    from collections.abc import Mapping

    from paimon_sql.sql._context import Context


def _int(args: Mapping[str, Any], name: str, procedure: str) -> int | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not (
        isinstance(value, int) or str(value).strip().lstrip("-").isdigit()
    ):
        raise SqlError(f"CALL sys.{procedure}: {name} must be a whole number, got {value!r}")
    return int(value)


def _timestamp(args: Mapping[str, Any], name: str, *, epoch: bool = False) -> int | None:
    """Epoch milliseconds of a number or a time's text; `epoch`: digits in quotes are millis too."""
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return parse_timestamp_ms(str(value), digits_are_millis=epoch)


def _expire(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    try:
        expired = expire_snapshots(
            table,
            retain_max=_int(args, "retain_max", "expire_snapshots"),
            retain_min=_int(args, "retain_min", "expire_snapshots"),
            older_than_ms=_timestamp(args, "older_than"),
            max_deletes=_int(args, "max_deletes", "expire_snapshots"),
        )
    except ValueError as err:
        raise SqlError(f"CALL sys.expire_snapshots: {err}") from err
    ctx.changed(table)
    return pa.table({"deleted_snapshots_count": pa.array([expired], pa.int32())})


def _rollback(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    given = [k for k in ("version", "snapshot", "tag") if args.get(k) is not None]
    if len(given) != 1:
        raise SqlError(
            "CALL sys.rollback needs exactly one of version (a snapshot id or tag name), "
            "snapshot, tag"
        )
    value = str(args[given[0]]).strip()
    if given[0] == "tag" or (given[0] == "version" and not value.isdigit()):
        rollback(table, tag=value)
    elif value.isdigit():
        rollback(table, snapshot_id=int(value))
    else:
        raise SqlError(f"CALL sys.rollback: snapshot must be a snapshot id, got {value!r}")
    return done(ctx, table)


def _rollback_to_timestamp(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    table = table_arg(ctx, args)
    timestamp = _timestamp(args, "timestamp", epoch=True)  # Java's is epoch milliseconds
    assert timestamp is not None
    snapshot = rollback_to_timestamp(table, timestamp)
    ctx.changed(table)
    return pa.table(
        {"result": pa.array([f"Success roll back to snapshot: {snapshot.id} ."], pa.string())}
    )


def _orphans(ctx: Context, args: Mapping[str, Any]) -> pa.Table:
    name = str(args["table"])
    if name.endswith(".*"):
        database = ctx.engine.database_named(name[:-2]) or name[:-2]
        tables = [ctx.table(Identifier(database, t)) for t in ctx.catalog.tables(database)]
    else:
        tables = [table_arg(ctx, args)]
    older = _timestamp(args, "older_than")
    dry_run = bool(args.get("dry_run", False))
    deleted: list[str] = []
    for table in tables:
        deleted += remove_orphan_files(table, older, dry_run=dry_run)
    return pa.table({"result": pa.array(deleted, pa.string())})


PROCEDURES: tuple[Procedure, ...] = (
    Procedure(
        name="expire_snapshots",
        params=(
            Param(name="table", required=True, doc="'db.table'"),
            Param(name="retain_max", doc="keep at most this many snapshots"),
            Param(name="retain_min", doc="keep at least this many (default 1)"),
            Param(name="older_than", doc="expire snapshots committed before 'yyyy-MM-dd HH:mm:ss'"),
            Param(name="max_deletes", doc="expire at most this many snapshots"),
        ),
        run=_expire,
        doc="Expire old snapshots and delete the files no snapshot or tag uses any more; "
        "returns deleted_snapshots_count.",
    ),
    Procedure(
        name="rollback",
        params=(
            Param(name="table", required=True, doc="'db.table'"),
            Param(name="version", doc="snapshot id or tag name"),
            Param(name="snapshot", doc="snapshot id (instead of version)"),
            Param(name="tag", doc="tag name (instead of version)"),
        ),
        run=_rollback,
        doc="Roll back to a snapshot or tag, deleting newer snapshots, tags and their files.",
    ),
    Procedure(
        name="rollback_to_timestamp",
        params=(
            Param(name="table", required=True, doc="'db.table'"),
            Param(
                name="timestamp", required=True, doc="epoch milliseconds or 'yyyy-MM-dd HH:mm:ss'"
            ),
        ),
        run=_rollback_to_timestamp,
        doc="Roll the table back to the newest snapshot committed at or before the timestamp.",
    ),
    Procedure(
        name="remove_orphan_files",
        params=(
            Param(name="table", required=True, doc="'db.table' or 'db.*'"),
            Param(
                name="older_than",
                doc="only files older than 'yyyy-MM-dd HH:mm:ss' (default: 1 day ago)",
            ),
            Param(name="dry_run", doc="only list the files"),
        ),
        run=_orphans,
        doc="Delete files in the table folder no snapshot, tag or branch uses; returns the paths.",
    ),
)
