"""Time travel in the forms users type, found in the sqlglot AST of a query.

* Spark: ``t VERSION AS OF 3``, ``VERSION AS OF 'tag'``, ``TIMESTAMP AS OF '2024-05-14 10:00:00'``;
* DuckDB: ``t AT (VERSION => 3)``, ``AT (TIMESTAMP => '…')``;
* Flink: ``t /*+ OPTIONS('scan.snapshot-id'='3') */``, ``scan.tag-name``, ``scan.timestamp-millis``,
  ``scan.timestamp``;
* the table name suffixes ``t$snapshots`` … (system tables) and ``t$branch_<name>``.

>>> import sqlglot
>>> sql = "SELECT * FROM db.t VERSION AS OF 'tag1'"
>>> table = sqlglot.parse_one(sql, read="duckdb").find(exp.Table)
>>> travel_of(table, hints=lambda comment: None)
TimeTravel(snapshot_id=None, tag='tag1', timestamp_ms=None)
"""

from __future__ import annotations

import datetime
import decimal
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlglot import exp

from paimon_sql.errors import SqlError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from paimon_sql.catalog import Table
    from paimon_sql.format.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class TimeTravel:
    """One of: a snapshot id, a tag name, an instant in epoch milliseconds."""

    snapshot_id: int | None = None
    tag: str | None = None
    timestamp_ms: int | None = None
    # ``VERSION AS OF <digits>``: a tag of that name (these digits, '03' too) wins over the
    # snapshot id (Java's ``scan.version``, which Spark's VERSION AS OF sets).
    tag_first: str | None = field(default=None, repr=False)
    # Flink's ``scan.*`` hints read the chosen snapshot in the table's latest schema (Paimon's Flink
    # source copies the table without switching to the snapshot's schema); Spark's and DuckDB's
    # spellings read it in the snapshot's own schema.
    latest_schema: bool = field(default=False, repr=False)


def parse_timestamp_ms(text: str, *, digits_are_millis: bool = False) -> int:
    """Epoch milliseconds of ``'2024-05-14 10:00:00[.fff]'`` (or, `digits_are_millis`, of digits).

    The timestamp is local time, as Paimon's Java reads it. Digits alone are no timestamp where
    Java expects one (``scan.timestamp``, ``older_than``: Java refuses ``'20240514'``); read as
    epoch milliseconds they would name a moment of 1970, so only an epoch parameter takes them.

    >>> parse_timestamp_ms("1700000000000", digits_are_millis=True)
    1700000000000
    """
    text = text.strip()
    if text.isdigit():
        if digits_are_millis:
            return int(text)
        raise SqlError(
            f"{text!r} is not a timestamp: write 'YYYY-MM-DD HH:MM:SS[.fff]' (epoch milliseconds "
            "go in scan.timestamp-millis, or as a number without quotes)"
        )
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError as err:
        raise SqlError(
            f"cannot read {text!r} as a timestamp; write 'YYYY-MM-DD HH:MM:SS[.fff]' or epoch "
            "milliseconds"
        ) from err
    try:
        if moment.tzinfo is None:
            moment = moment.astimezone()  # the machine's local time zone, as Java's default
        return int(moment.timestamp() * 1000)
    except (ValueError, OverflowError) as err:  # before year 1 or after 9999 in local time
        raise SqlError(f"timestamp {text!r} is out of range: {err}") from err


def _value(node: exp.Expression | None) -> str:
    if node is None:
        raise SqlError("time travel needs a value: AS OF <snapshot id>, '<tag>' or '<timestamp>'")
    if isinstance(node, exp.Literal):
        return str(node.this)
    if isinstance(node, (exp.Cast, exp.TsOrDsToTimestamp)) and isinstance(node.this, exp.Literal):
        return str(node.this.this)
    raise SqlError(f"time travel needs a constant, got {node.sql('duckdb')}")


def _whole(value: str, what: str) -> int:
    """`value` as a whole number, or a `SqlError` saying what `what` needs.

    >>> _whole(" 42 ", "scan.snapshot-id")
    42
    """
    try:
        return int(value.strip())
    except ValueError as err:
        raise SqlError(f"{what} needs a whole number, got {value!r}") from err


def _from_kind(kind: str, node: exp.Expression) -> TimeTravel:
    value = _value(node)
    if kind.upper() == "VERSION":
        if (isinstance(node, exp.Literal) and not node.is_string) or value.isdigit():
            number = _whole(value, "VERSION AS OF (a snapshot id, or a tag name in quotes)")
            return TimeTravel(snapshot_id=number, tag_first=value.strip())
        return TimeTravel(tag=value)
    if isinstance(node, exp.Literal) and not node.is_string:
        return TimeTravel(timestamp_ms=_seconds_ms(value))
    return TimeTravel(timestamp_ms=parse_timestamp_ms(value))


def _seconds_ms(value: str) -> int:
    """Epoch milliseconds of ``TIMESTAMP AS OF <number>``: the number is seconds since the epoch.

    Spark casts a number to a timestamp as seconds, and Paimon's Spark time travel reads it so
    (its documentation: ``TIMESTAMP AS OF 1678883047``).

    >>> _seconds_ms("1678883047"), _seconds_ms("1.5")
    (1678883047000, 1500)
    """
    try:
        return int(decimal.Decimal(value) * 1000)
    except decimal.InvalidOperation as err:
        raise SqlError(f"TIMESTAMP AS OF {value}: not a number of seconds") from err


#: The ``/*+ OPTIONS(…) */`` keys that pick a version to read (Flink's ``scan.*`` travel options).
TRAVEL_HINTS = ("scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.timestamp")


def _from_hint(
    comments: list[str], hints: Callable[[str], Mapping[str, str] | None]
) -> TimeTravel | None:
    for comment in comments:
        options = hints(comment)
        if options is None:
            continue
        travel = travel_of_options(options)
        if travel is not None:
            return travel
    return None


def travel_of_options(options: Mapping[str, str]) -> TimeTravel | None:
    """The snapshot Flink's ``scan.*`` options pick (a hint's, or the table's own), or None.

    Read in the table's latest schema, as Paimon's Flink and Spark sources read them.

    >>> travel_of_options({"scan.tag-name": "v1"})
    TimeTravel(snapshot_id=None, tag='v1', timestamp_ms=None)
    """
    if "scan.snapshot-id" in options:
        snapshot_id = _whole(options["scan.snapshot-id"], "scan.snapshot-id")
        return TimeTravel(snapshot_id=snapshot_id, latest_schema=True)
    if "scan.tag-name" in options:
        return TimeTravel(tag=options["scan.tag-name"], latest_schema=True)
    if "scan.timestamp-millis" in options:
        millis = _whole(options["scan.timestamp-millis"], "scan.timestamp-millis")
        return TimeTravel(timestamp_ms=millis, latest_schema=True)
    if "scan.timestamp" in options:
        millis = parse_timestamp_ms(options["scan.timestamp"])
        return TimeTravel(timestamp_ms=millis, latest_schema=True)
    return None


def travel_of(
    table: exp.Table, hints: Callable[[str], Mapping[str, str] | None]
) -> TimeTravel | None:
    """The time travel a table reference asks for, or None (`hints` reads OPTIONS hints)."""
    version = table.args.get("version")
    if isinstance(version, exp.Version):
        return _from_kind(str(version.this), version.expression)
    when = table.args.get("when")
    if isinstance(when, exp.HistoricalData):
        return _from_kind(str(when.args.get("kind")), when.expression)
    return _from_hint(table.comments or [], hints)


def select_travel(table: Table, travel: TimeTravel) -> Snapshot | None:
    """The snapshot `travel` selects (`Table.select_snapshot`, whose errors list what exists).

    A version that is all digits names a tag when the table has a tag of that name, as Paimon's
    Spark time travel decides (tag first, then snapshot id).
    """
    if travel.tag_first is not None and travel.tag_first in table.tag_names():
        travel = TimeTravel(tag=travel.tag_first)
    return table.select_snapshot(
        snapshot_id=travel.snapshot_id, tag=travel.tag, timestamp_ms=travel.timestamp_ms
    )


def strip_travel(table: exp.Table) -> None:
    """Remove the time-travel clauses from a table reference (the replacement source is pinned)."""
    for key in ("version", "when"):
        table.set(key, None)
    table.comments = None
