"""`Context`: what a statement handler or procedure may use.

A leaf module: handlers never import the session.

`paimon_sql.sql.session.Session` implements it; a handler reads tables through `table`, plans the
Paimon tables of a query it runs with `bind`, reports a change with `changed`, and runs DuckDB work
through `engine` (`paimon_sql.engine.context.Engine`: the connection, result rows, views).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sqlglot import exp

    from paimon_sql.catalog import Catalog, Identifier, Table
    from paimon_sql.engine.context import Engine


class Context(Protocol):
    """The narrow view of a session that statement handlers and procedures get."""

    @property
    def catalog(self) -> Catalog:
        """The warehouse's catalog."""
        ...

    @property
    def engine(self) -> Engine:
        """The DuckDB side: connection, views, result relations."""
        ...

    def table(self, identifier: str | Identifier) -> Table:
        """The `Table` behind ``db.table``."""
        ...

    def bind(self, expression: exp.Expression) -> None:
        """Plan the Paimon tables `expression` (a query a handler runs) reads, in place."""
        ...

    def changed(self, table: Table) -> None:
        """`table` was written or altered: cached state and its view follow."""
        ...

    def explain(self, query: str) -> list[tuple[str, str, str]] | None:
        """EXPLAIN rows of a query over Paimon tables; None when it reads none."""
        ...


__all__ = ["Context"]
