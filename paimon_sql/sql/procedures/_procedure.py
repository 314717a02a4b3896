"""The shape of a ``CALL sys.…`` procedure.

`paimon_sql.sql.procedures.procedures` runs them; families list them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

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
    """The table the ``table`` argument names."""
    return ctx.table(str(args["table"]))


def done(ctx: Context, table: Table) -> pa.Table:
    """After a procedure changed `table`: drop the cached state; ``result: true``."""
    ctx.changed(table)
    return pa.table({"result": pa.array([True], pa.bool_())})
