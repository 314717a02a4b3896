"""Prepared-statement parameters (``?``, ``$1``, ``$name``) bound into a statement's AST.

DuckDB binds parameters when it prepares a statement; a statement over Paimon tables is planned and
rewritten by paimon-sql first (and runs as several DuckDB queries), so each parameter becomes a
typed constant of the sqlglot AST before that: ``WHERE id = ?`` with ``[3]`` plans as
``WHERE id = 3`` (partition and file pruning included). Each Python value becomes the constant of
the type DuckDB gives it as a parameter: ``int`` an integer, ``float`` a DOUBLE, ``Decimal`` a
DECIMAL, ``str`` VARCHAR, ``bytes`` BLOB, ``datetime`` TIMESTAMP (TIMESTAMPTZ when aware), ``date``,
``time``, ``UUID``, ``bool``, ``None`` NULL, and lists and dicts as LIST and STRUCT of those.

>>> import sqlglot
>>> statement = sqlglot.parse_one("SELECT * FROM t WHERE a = ? AND b = ?", read="duckdb")
>>> bind_parameters(statement, [1, "x"], {"1", "2"}).sql("duckdb")
"SELECT * FROM t WHERE a = 1 AND b = 'x'"
>>> statement = sqlglot.parse_one("SELECT $name, $1", read="duckdb")
>>> bind_parameters(statement, {"name": 2.5, "1": None}, {"name", "1"}).sql("duckdb")
'SELECT CAST(2.5 AS DOUBLE), NULL'
"""

from __future__ import annotations

import datetime
import decimal
import math
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from sqlglot import exp

from paimon_sql.errors import ArgumentError

#: A marker name for the i-th ``?`` while their textual order is found.
_MARK = "paimonparam{}x"


def _constant(value: Any) -> exp.Expression:
    """The sqlglot constant DuckDB would bind `value` as."""
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        value = value.item()  # a numpy scalar
    if value is None:
        return exp.null()
    if isinstance(value, bool):
        return exp.true() if value else exp.false()
    if isinstance(value, int):
        return exp.Literal.number(value)
    if isinstance(value, float):
        text = repr(value) if math.isfinite(value) else str(value)
        node = exp.Literal.number(text) if math.isfinite(value) else exp.Literal.string(text)
        return exp.cast(node, "DOUBLE")
    if isinstance(value, decimal.Decimal):
        _sign, digits, exponent = value.as_tuple()
        scale = max(0, -int(exponent))
        precision = max(len(digits), scale + 1)
        to = exp.DataType(
            this=exp.DataType.Type.DECIMAL,
            expressions=[
                exp.DataTypeParam(this=exp.Literal.number(min(precision, 38))),
                exp.DataTypeParam(this=exp.Literal.number(scale)),
            ],
        )
        return exp.cast(exp.Literal.string(format(value, "f")), to)
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return exp.Unhex(this=exp.Literal.string(bytes(value).hex()))
    return _temporal(value)


def _temporal(value: Any) -> exp.Expression:
    if isinstance(value, datetime.datetime):
        to = "TIMESTAMPTZ" if value.tzinfo is not None else "TIMESTAMP"
        return exp.cast(exp.Literal.string(value.isoformat(sep=" ")), to)
    if isinstance(value, datetime.date):
        return exp.cast(exp.Literal.string(value.isoformat()), "DATE")
    if isinstance(value, datetime.time):
        return exp.cast(exp.Literal.string(value.isoformat()), "TIME")
    if isinstance(value, uuid.UUID):
        return exp.cast(exp.Literal.string(str(value)), "UUID")
    if isinstance(value, Mapping):
        return exp.Struct(
            expressions=[
                exp.PropertyEQ(this=exp.to_identifier(str(k), quoted=True), expression=_constant(v))
                for k, v in value.items()
            ]
        )
    if isinstance(value, (list, tuple)):
        return exp.Array(expressions=[_constant(v) for v in value])
    raise ArgumentError(
        f"a parameter of type {type(value).__name__} cannot be bound; pass None, bool, int, float, "
        "Decimal, str, bytes, date, time, datetime, UUID, or a list or dict of those"
    )


def bind_parameters(statement: exp.Expression, params: Any, expected: set[str]) -> exp.Expression:
    """`statement` (changed in place) with its parameters replaced by `params`' values.

    `params` is a sequence (``?`` in order, ``$1`` …) or a mapping (``$name``); `expected` is the
    parameter names DuckDB reads in the statement (``{"1", "2"}`` for two ``?``), so a parameter
    sqlglot did not see as one is reported instead of being left in the text.

    Raises:
        ArgumentError: when the values do not match the statement's parameters.
    """
    nodes = list(statement.find_all(exp.Placeholder))
    values = _values(params, expected)
    found: set[str] = set()
    anonymous = [n for n in nodes if not n.args.get("this")]
    for i, node in enumerate(anonymous):
        node.replace(exp.Placeholder(this=_MARK.format(i)))
    if anonymous:  # number the ``?`` in the order they are written
        text = statement.sql("duckdb")
        order = sorted(range(len(anonymous)), key=lambda i: text.index("$" + _MARK.format(i)))
        names = {_MARK.format(i): str(rank + 1) for rank, i in enumerate(order)}
    else:
        names = {}
    for node in list(statement.find_all(exp.Placeholder)):
        name = names.get(node.name, node.name)
        if name not in values:
            raise ArgumentError(
                f"no value for parameter {_shown(name)}: the statement has "
                f"{len(expected)} parameter(s), {len(values)} value(s) were given"
            )
        found.add(name)
        node.replace(_constant(values[name]))
    if found != expected:
        missing = ", ".join(sorted(_shown(n) for n in expected - found))
        raise ArgumentError(
            f"parameter(s) {missing} of this statement cannot be bound here (paimon-sql binds "
            "parameters in queries and DML only); write the value(s) into the statement"
        )
    return statement


def parameter_names(statement: exp.Expression) -> set[str]:
    """The parameters of `statement` as DuckDB names them: ``"1"`` … for ``?``, else their names.

    For statements DuckDB's parser cannot read (Spark and Flink forms such as ``INSERT OVERWRITE``),
    where DuckDB cannot say which parameters there are.

    >>> import sqlglot
    >>> sorted(parameter_names(sqlglot.parse_one("SELECT ?, ?, $n", read="duckdb")))
    ['1', '2', 'n']
    """
    nodes = list(statement.find_all(exp.Placeholder))
    anonymous = sum(1 for n in nodes if not n.args.get("this"))
    return {str(i + 1) for i in range(anonymous)} | {n.name for n in nodes if n.args.get("this")}


def _values(params: Any, expected: set[str]) -> dict[str, Any]:
    if isinstance(params, Mapping):
        values = {str(k).lstrip("$"): v for k, v in params.items()}
    elif isinstance(params, Sequence) and not isinstance(params, (str, bytes)):
        values = {str(i + 1): v for i, v in enumerate(params)}
    else:
        raise ArgumentError(
            f"params must be a list or tuple (for ? and $1) or a dict (for $name), not "
            f"{type(params).__name__}"
        )
    extra = sorted(set(values) - expected)
    if extra:
        raise ArgumentError(
            f"the statement has {len(expected)} parameter(s) but {len(values)} value(s) were "
            f"given (no parameter {', '.join(_shown(n) for n in extra)})"
        )
    return values


def _shown(name: str) -> str:
    return f"${name}"


__all__ = ["bind_parameters", "parameter_names"]
