"""The SQL surface of incremental reads: hints in a session, ``paimon_changes`` after install().

`paimon_sql.changes` computes the changed rows and takes the engine's split reader to run plans;
this module wires the two together:

* ``SELECT * FROM t /*+ OPTIONS('incremental-between' = '3,7') */`` (and
  ``incremental-between-timestamp``, tags as bounds, ``incremental-between-scan-mode``): the rows
  that are in the table after their change (Paimon's batch SQL drops ``-U``/``-D``);
  ``t$audit_log`` with the same hint keeps every row with its ``rowkind`` (a diff as Paimon's
  audit log shows it: the new row of each new or changed key, with its merged kind, and ``-D``).
* ``paimon_changes('db.t', start, end [, mode := 'diff'])``: ``rowkind`` first. After install()
  (functions/changes.sql) streamed batch by batch from the source; in a session the binder
  replaces the call by its rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_sql.changes import change_schema, changes, from_bounds, from_options, is_incremental
from paimon_sql.changes.bounds import INCREMENTAL_OPTIONS, SCAN_MODE
from paimon_sql.engine.travel import TRAVEL_HINTS
from paimon_sql.errors import OptionError, UnsupportedFeatureError
from paimon_sql.sql.dialect import hint_options

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

    from paimon_sql.catalog import Table
    from paimon_sql.engine.source import Engine


#: Every option a read honours in a table's ``/*+ OPTIONS(…) */`` hint.
HONOURED_HINTS = frozenset((*TRAVEL_HINTS, *INCREMENTAL_OPTIONS, SCAN_MODE))


def read_hint(comment: str) -> dict[str, str] | None:
    """The options of an ``OPTIONS`` hint (None for another comment), refusing any a read ignores.

    Only time travel and incremental reads take hints; another dynamic option would be silently
    ignored, so it is refused by name.

    >>> read_hint("+ OPTIONS('scan.tag-name' = 'v1')"), read_hint(" a note ")
    ({'scan.tag-name': 'v1'}, None)
    >>> read_hint("+ OPTIONS('scan.mode' = 'latest')")
    Traceback (most recent call last):
    ...
    paimon_sql.errors.UnsupportedFeatureError: the hint option 'scan.mode' is not supported ...
    """
    options = hint_options(comment)
    unknown = sorted(set(options or {}) - HONOURED_HINTS)
    if unknown:
        raise UnsupportedFeatureError(
            f"the hint option {unknown[0]!r} is not supported by paimon-sql reads; a table's "
            f"OPTIONS hint takes {', '.join(sorted(HONOURED_HINTS))} (set table options with "
            "ALTER TABLE … SET TBLPROPERTIES)"
        )
    picked = _starts(options or {})
    if len(picked) > 1:
        raise OptionError(
            f"the OPTIONS hint sets {', '.join(picked)}: set at most one of them, each picks "
            "where a read starts"
        )
    return options


#: The options that pick where a read starts (time travel, incremental reads): one at a time.
_STARTS = (*TRAVEL_HINTS, *INCREMENTAL_OPTIONS)


def _starts(options: Mapping[str, str]) -> list[str]:
    """The options of `options` that pick where a read starts.

    >>> _starts({"scan.snapshot-id": "1", "scan.tag-name": "x", "k": "v"})
    ['scan.snapshot-id', 'scan.tag-name']
    """
    return [k for k in _STARTS if k in options]


def table_reads(table: Table) -> dict[str, str] | None:
    """The read options `table`'s own options set (``scan.snapshot-id`` …), or None.

    A plain read honours them as it honours the same keys in a hint, as Java's batch reads do
    (an explicit time travel or hint in the query wins). A table whose options pick two starts
    (a Java-written one) is refused on read, naming the options to reset.
    """
    options = table.latest_schema.options
    picked = _starts(options)
    if not picked:
        return None
    if len(picked) > 1:
        raise OptionError(
            f"table {table.name} has the options {', '.join(picked)}: each picks where a read "
            "starts; reset all but one (ALTER TABLE … RESET (…)) or read with an explicit "
            "VERSION AS OF"
        )
    return {k: options[k] for k in HONOURED_HINTS if k in options}


def hint_reader(engine: Engine) -> Callable[[Table, Mapping[str, str], bool], pa.Table | None]:
    """The binder's `incremental` callable: the changed rows a hint asks for, else None."""

    def read(table: Table, options: Mapping[str, str], row_kinds: bool = False) -> pa.Table | None:
        if not is_incremental(options):
            return None
        between = from_options(table, options)
        batches = list(
            changes(table, between, engine.reader.batches, row_kinds=row_kinds, java_diff=True)
        )
        return pa.Table.from_batches(batches, schema=change_schema(table, row_kinds=row_kinds))

    return read


def change_table(engine: Engine) -> Callable[[Table, str, str, str], pa.Table]:
    """The binder's `changes` callable: ``paimon_changes`` in a session, as one Arrow table."""

    def read(table: Table, start: str, end: str, mode: str) -> pa.Table:
        schema, batches = change_batches(engine, table, start, end, mode)
        return pa.Table.from_batches(list(batches), schema=schema)

    return read


def change_batches(
    engine: Engine, table: Table, start: str, end: str, mode: str = "auto"
) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """``paimon_changes``: the schema (``rowkind`` first) and the batches of the changes."""
    between = from_bounds(table, start, end, mode)
    return change_schema(table), changes(table, between, engine.reader.batches)
