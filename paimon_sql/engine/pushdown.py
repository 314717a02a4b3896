"""Filters of a statement that may prune one table's files, read from the sqlglot AST.

Only for planning: the engine still applies the statement's WHERE, so a predicate here only has to
be implied by it. Conservative: the conjuncts of the WHERE of the SELECT that reads the table,
comparing one of its columns with a constant, and only when no outer join could null-extend the
table (pruning rows there changes results).

>>> import sqlglot
>>> sql = "SELECT * FROM db.t WHERE dt = '2024-01-01' AND v > 3 AND f(v) = 1"
>>> q = sqlglot.parse_one(sql, read="duckdb")
>>> p = table_predicate(q.find(exp.Table), {"dt", "v"})
>>> type(p).__name__, p.children
('And', (Compare(path=('dt',), op='=', value='2024-01-01'), Compare(path=('v',), op='>', value=3)))
"""

from __future__ import annotations

import decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from paimon_sql.plan.predicate import Compare, InList, IsNull, and_all

if TYPE_CHECKING:
    from paimon_sql.plan.predicate import Predicate

_OPS = {exp.EQ: "=", exp.NEQ: "!=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


class _Skip(Exception):
    pass


def _constant(node: exp.Expression) -> Any:
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return -_constant(node.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        try:
            return int(text)
        except ValueError:
            return decimal.Decimal(text) if "e" not in text.lower() else float(text)
    if isinstance(node, exp.Boolean):
        return node.this
    raise _Skip


def _column(node: exp.Expression, names: set[str], qualifiers: set[str]) -> str:
    if not isinstance(node, exp.Column) or node.name not in names:
        raise _Skip
    if node.table and node.table not in qualifiers:
        raise _Skip
    return node.name


def _leaf(node: exp.Expression, names: set[str], qualifiers: set[str]) -> Predicate:
    for kind, op in _OPS.items():
        if isinstance(node, kind):
            left, right = node.this, node.expression
            if isinstance(right, exp.Column):
                left, right, op = right, left, _FLIP[op]
            return Compare((_column(left, names, qualifiers),), op, _constant(right))
    if isinstance(node, exp.In) and not node.args.get("query"):
        values = tuple(_constant(v) for v in node.expressions)
        return InList((_column(node.this, names, qualifiers),), values)
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return IsNull((_column(node.this, names, qualifiers),))
    if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
        inner = _leaf(node.this, names, qualifiers)
        if isinstance(inner, IsNull):
            return IsNull(inner.path, negated=True)
    if isinstance(node, exp.Between):
        column = (_column(node.this, names, qualifiers),)
        low, high = _constant(node.args["low"]), _constant(node.args["high"])
        return and_all([Compare(column, ">=", low), Compare(column, "<=", high)])  # type: ignore[return-value]
    raise _Skip


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    if isinstance(node, exp.Paren):
        return _conjuncts(node.this)
    return [node]


def table_predicate(table: exp.Table, columns: set[str]) -> Predicate | None:
    """What the WHERE of the SELECT reading `table` implies about it (None: nothing usable)."""
    select = table.parent_select
    if select is None or (select.find_ancestor(exp.Select) is None and table.parent is None):
        return None
    if any(
        j.side or j.kind in ("OUTER", "FULL", "ANTI", "SEMI")
        for j in select.args.get("joins") or []
    ):
        return None
    where = select.args.get("where")
    if where is None:
        return None
    sources = list(select.find_all(exp.Table))
    qualifiers = {table.alias_or_name, table.name}
    single = len([t for t in sources if t.parent_select is select]) == 1
    usable = []
    for part in _conjuncts(where.this):
        if not single and not all(c.table for c in part.find_all(exp.Column)):
            continue  # an unqualified column could belong to another table
        try:
            usable.append(_leaf(part, columns, qualifiers))
        except _Skip:
            continue
    return and_all(usable)
