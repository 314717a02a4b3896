"""The shape of a ``CALL sys.…`` procedure.

`paimon_sql.sql.procedures.procedures` runs them; families list them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_sql.catalog.names import SYSTEM_TABLE_SPLITTER, table_name
from paimon_sql.errors import SqlError, UnsupportedFeatureError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from paimon_sql.catalog import Table
    from paimon_sql.sql._context import Context


@dataclass(frozen=True, slots=True, kw_only=True)
class Param:
    """One parameter of a procedure: its name, whether it must be given, and what it means."""

    name: str
    required: bool = False
    doc: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Procedure:
    """A ``CALL sys.<name>`` procedure: parameters in Spark's order, and the function that runs it.

    `run(ctx, args)` gets the bound arguments (absent optional ones are missing from `args`) and
    returns the procedure's output rows as an Arrow table.
    """

    name: str
    params: tuple[Param, ...]
    run: Callable[[Context, Mapping[str, Any]], pa.Table]
    doc: str = ""

    def signature(self) -> str:
        """``name(table => ..., [snapshot => ...])``.

        Required parameters bare, optional ones in brackets.
        """
        shown = [p.name if p.required else f"[{p.name}]" for p in self.params]
        return f"{self.name}({', '.join(shown)})"


def table_arg(ctx: Context, args: Mapping[str, Any]) -> Table:
    """The table the ``table`` argument names (``db.t$branch_main`` is ``db.t``).

    Java also runs procedures on a branch (``db.t$branch_b``: its snapshots and tags, and the data
    files it shares with the main branch); paimon-sql does not, and says so by name rather than
    calling the "$" invalid. A system table (``db.t$files``) is metadata, never a target.
    """
    text = str(args["table"])
    database, dot, name = text.rpartition(".")
    if SYSTEM_TABLE_SPLITTER not in name:
        return ctx.table(text)
    parts = table_name(name.strip().strip('"`'))
    base = f"{database}{dot}{parts.table}"
    if parts.system is not None:
        raise SqlError(
            f"{text} is a system table (the read-only metadata of {base}); procedures run on "
            f"tables: name the table {base}"
        )
    if parts.branch != "main":
        raise UnsupportedFeatureError(
            f"{text} is branch {parts.branch!r} of {base}: paimon-sql runs procedures on the main "
            f"branch only (name {base}); run this one on the branch with Flink or Spark"
        )
    return ctx.table(base)


def done(ctx: Context, table: Table) -> pa.Table:
    """After a procedure changed `table`: drop the cached state; ``result: true``."""
    ctx.changed(table)
    return pa.table({"result": pa.array([True], pa.bool_())})
