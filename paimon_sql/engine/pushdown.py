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

import datetime
import decimal
import fractions
import math
import operator
import re
import struct
import threading
from typing import TYPE_CHECKING, Any

import duckdb
from sqlglot import exp

from paimon_sql.plan.predicate import Compare, InList, IsNull, and_all
from paimon_sql.sqlnodes import conjuncts
from paimon_sql.types import (
    FLOAT_ROOTS,
    INTEGER_ROOTS,
    NUMERIC_ROOTS,
    STRING_ROOTS,
    duckdb_type_node,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.types import DataType

_OPS = {exp.EQ: "=", exp.NEQ: "!=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


class _Skip(Exception):
    pass


# Only the plainest spellings, which DuckDB and Python read alike; anything else is not used for
# pruning (DuckDB still applies the filter).
_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?")


_TIMESTAMP_TYPES = (
    exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPNTZ,
    exp.DataType.Type.DATETIME,
)


def _date(text: str) -> datetime.date:
    if not _DATE_TEXT.fullmatch(text):
        raise _Skip
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise _Skip from None


def _timestamp(text: str) -> datetime.datetime:
    if not _TIMESTAMP_TEXT.fullmatch(text):
        raise _Skip
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError:
        raise _Skip from None


def _temporal(node: exp.Cast) -> datetime.date:
    """``DATE '…'`` / ``TIMESTAMP '…'`` (a cast of a string literal): a date or a naive datetime."""
    if not (isinstance(node.this, exp.Literal) and node.this.is_string):
        raise _Skip
    to = node.to
    if to.is_type(exp.DataType.Type.DATE):
        return _date(node.this.this)
    if to.is_type(*_TIMESTAMP_TYPES) and not to.expressions:
        return _timestamp(node.this.this)
    raise _Skip


def _typed(value: Any, t: DataType | None) -> Any:
    """`value` as DuckDB compares it with a column of type `t` (only where statistics can use it).

    A string compared with a DATE or TIMESTAMP column is cast to the column's type, and a DATE to a
    TIMESTAMP, as DuckDB does; TIMESTAMP(7..9) statistics are decoded to microseconds, so a
    comparison with them could prune a file wrongly and is not used.
    """
    temporal = isinstance(value, datetime.date)
    if t is None:
        if temporal:
            raise _Skip
        return value
    if t.root == "DATE":
        if isinstance(value, str):
            return _date(value)
        if isinstance(value, datetime.datetime):
            raise _Skip
        return value
    if t.root == "TIMESTAMP":
        if (t.precision if t.precision is not None else 6) > 6:
            if temporal or isinstance(value, str):
                raise _Skip
            return value
        if isinstance(value, str):
            return _timestamp(value)
        if temporal and not isinstance(value, datetime.datetime):
            return datetime.datetime.combine(value, datetime.time())
        return value
    if temporal:
        raise _Skip  # TIMESTAMP_LTZ (time zone rules) and other types: left to DuckDB
    return value


#: Arithmetic on integers folded into a constant: DuckDB computes the same value (or fails the
#: statement on overflow, so a pruned file never matters). Division is not: DuckDB's ``/`` of
#: integers is a DOUBLE. DECIMAL operands are left to `_folded` (DuckDB): Python's decimal context
#: rounds to 28 digits where DuckDB's DECIMAL(38) is exact.
_ARITHMETIC: dict[type[exp.Expression], Callable[[Any, Any], Any]] = {
    exp.Add: operator.add,
    exp.Sub: operator.sub,
    exp.Mul: operator.mul,
}


def _exact(value: Any) -> int | decimal.Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, decimal.Decimal)):
        raise _Skip
    return value


#: The most digits a DuckDB DECIMAL literal has; a longer one (leading zeros count) is a DOUBLE.
_DECIMAL_DIGITS = 38


def _constant(node: exp.Expression) -> Any:
    """The value of a constant operand (`_Skip` when it is not one this module can compute).

    >>> import sqlglot
    >>> _constant(sqlglot.parse_one("(20000 + 80000) * 2 - -1"))
    200001
    >>> _constant(sqlglot.parse_one("-1.5"))
    Decimal('-1.5')
    """
    if isinstance(node, exp.Paren):
        return _constant(node.this)
    if isinstance(node, exp.Neg) and not (
        isinstance(node.this, exp.Literal) and node.this.is_string
    ):
        return -_exact(_constant(node.this))
    fold = _ARITHMETIC.get(type(node))
    if fold is not None:
        left, right = _exact(_constant(node.this)), _exact(_constant(node.expression))
        if isinstance(left, decimal.Decimal) or isinstance(right, decimal.Decimal):
            raise _Skip
        return fold(left, right)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        try:
            return int(text)
        except ValueError:
            if "e" in text.lower() or sum(c.isdigit() for c in text) > _DECIMAL_DIGITS:
                return float(text)  # DuckDB reads these as DOUBLE
            return decimal.Decimal(text)
    if isinstance(node, exp.Boolean):
        return node.this
    if isinstance(node, exp.Cast):
        return _temporal(node)
    raise _Skip


#: Nodes of a constant expression DuckDB may evaluate once for planning: arithmetic and casts of
#: literals (no columns, parameters, functions, subqueries or anything that varies per call), on a
#: private connection, so nothing whose value a session setting changes: not ``/`` (SET
#: integer_division), no time zones (TIMESTAMPTZ), no implicit casts of text.
_FOLDABLE = (
    exp.Literal,
    exp.Boolean,
    exp.Paren,
    exp.Neg,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.IntDiv,
    exp.Mod,
    exp.Cast,
    exp.TryCast,
    exp.DataType,
    exp.DataTypeParam,
    exp.Interval,
)
#: Cast targets whose value does not depend on session settings (no time zones).
_FOLD_TYPES = (
    *exp.DataType.INTEGER_TYPES,
    *exp.DataType.REAL_TYPES,
    *exp.DataType.TEXT_TYPES,
    exp.DataType.Type.DATE,
    exp.DataType.Type.BOOLEAN,
    *_TIMESTAMP_TYPES,
)
_FOLD_LOCK = threading.Lock()
_FOLD_STATE: dict[str, Any] = {}


def _foldable(node: exp.Expression) -> bool:
    """Whether `node` is a constant expression worth folding (not a bare literal)."""
    if isinstance(node, (exp.Literal, exp.Boolean)):
        return False  # `_constant` reads these itself (or refuses them for a reason)
    for sub in node.walk():
        if isinstance(sub, exp.Var) and isinstance(sub.parent, exp.Interval):
            continue  # the unit of ``INTERVAL 1 DAY``
        if not isinstance(sub, _FOLDABLE):
            return False
        if (
            isinstance(sub, exp.Literal)
            and sub.is_string
            and not isinstance(sub.parent, (exp.Cast, exp.TryCast, exp.Interval))
        ):
            return False  # ``'1' + 1``: DuckDB's implicit casts of text are left to DuckDB
        if isinstance(sub, (exp.Cast, exp.TryCast)):
            if not sub.to.is_type(*_FOLD_TYPES):
                return False
            if sub.to.is_type(exp.DataType.Type.DATE, *_TIMESTAMP_TYPES) and isinstance(
                sub.this, exp.Literal
            ):
                _temporal(sub)  # only the plainest date/timestamp spellings (raises _Skip)
    return True


def _evaluate(nodes: list[exp.Expression]) -> tuple[Any, ...]:
    """What DuckDB gives the constant expressions `nodes`, in one query (_Skip: error, NULL)."""
    query = exp.select(*[n.copy() for n in nodes]).sql("duckdb")
    with _FOLD_LOCK:
        if "con" not in _FOLD_STATE:
            _FOLD_STATE["con"] = duckdb.connect(config={"threads": 1})
        try:
            row = _FOLD_STATE["con"].execute(query).fetchone()
        except (duckdb.Error, ValueError, OverflowError):
            raise _Skip from None  # the statement itself reports it (or DuckDB reads it so)
    if row is None or any(v is None for v in row):
        raise _Skip
    return tuple(row)


def _folded(nodes: list[exp.Expression], t: DataType | None) -> tuple[Any, ...]:
    """Constant expressions (``CAST('5' AS BIGINT)``, ``7 // 2``) as DuckDB evaluates them.

    Used only when each value has the kind of column `t` (a number for a numeric column, text for a
    string one, a date or timestamp for a temporal one), so DuckDB compares them as it compares a
    literal; anything else is left to DuckDB's filter.

    >>> from paimon_sql.types import DataType
    >>> _folded([exp.maybe_parse("CAST('100000' AS BIGINT) + 1")], DataType(root="BIGINT"))
    (100001,)
    >>> _folded([exp.maybe_parse("DATE '2024-01-31' + INTERVAL 1 DAY")], DataType(root="TIMESTAMP"))
    (datetime.datetime(2024, 2, 1, 0, 0),)
    """
    if t is None or not all(_foldable(n) for n in nodes):
        raise _Skip
    values = _evaluate(nodes)
    if not all(_of_kind(v, t) for v in values):
        raise _Skip
    return values


def _values(nodes: list[exp.Expression], t: DataType | None) -> tuple[Any, ...]:
    """The constants `nodes` compared with a column of type `t` (those not literals: one query).

    A value of another kind than the column is not used (`_Skip`), except a string literal
    compared with a number column, which DuckDB casts to the column's type (``k = ' 6 '`` is
    ``k = 6``, ``k = '5.5'`` on an INT column is ``k = 6``): it is cast by DuckDB here too. The
    other way round DuckDB casts the column (``s = 2`` on a VARCHAR column matches ``'02'``), so
    no value of `s`'s statistics or bucket hash can tell which files hold a match.

    >>> from paimon_sql.types import DataType
    >>> k = exp.maybe_parse("' 6 '")
    >>> _values([k, exp.maybe_parse("'5.5'")], DataType(root="INT"))
    (6, 6)
    >>> _values([exp.maybe_parse("2")], DataType(root="VARCHAR"))
    Traceback (most recent call last):
    ...
    paimon_sql.engine.pushdown._Skip
    """
    read: dict[int, Any] = {}
    rest = []
    for i, node in enumerate(nodes):
        try:
            read[i] = _constant(node)
        except _Skip:
            rest.append(i)
    if rest:
        read.update(zip(rest, _folded([nodes[i] for i in rest], t), strict=True))
    values = [_typed(read[i], t) for i in range(len(nodes))]
    if t is None:
        return tuple(values)
    cast = [
        i
        for i, v in enumerate(values)
        if isinstance(v, str) and t.root in NUMERIC_ROOTS and isinstance(nodes[i], exp.Literal)
    ]
    if cast:
        to = duckdb_type_node(t)
        folded = _evaluate([exp.Cast(this=nodes[i].copy(), to=to.copy()) for i in cast])
        for i, v in zip(cast, folded, strict=True):
            values[i] = v
    if not all(_of_kind(v, t) for v in values):
        raise _Skip
    return tuple(values)


def _of_kind(value: object, t: DataType) -> bool:
    """Whether DuckDB compares `value` with a column of type `t` as it compares a literal."""
    if isinstance(value, bool):
        return t.root == "BOOLEAN"
    if t.root in NUMERIC_ROOTS:
        kinds: tuple[type, ...] = (int, decimal.Decimal)  # as literals: ``n = 3.0`` is a DECIMAL
        if t.root in FLOAT_ROOTS:
            kinds = (int, decimal.Decimal, float)
        return isinstance(value, kinds) and (
            isinstance(value, int) or math.isfinite(value)  # type: ignore[arg-type]
        )
    if t.root in STRING_ROOTS:
        return isinstance(value, str)
    return t.root in ("DATE", "TIMESTAMP") and _plain_temporal(value)


def _plain_temporal(value: object) -> bool:
    """A date or naive timestamp, not DuckDB's ±infinity (which Python shows as min/max)."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            return False
        value = value.date()
    return isinstance(value, datetime.date) and datetime.date.min < value < datetime.date.max


#: Integer column types' value ranges.
_INTEGER_RANGE = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INT": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
}
#: `_held`: the column holds no value equal to the constant.
_NONE_EQUAL = object()


def _grid(t: DataType | None) -> tuple[fractions.Fraction, fractions.Fraction, int] | None:
    """An integer or DECIMAL column's values: (lowest, highest, scale); None for other types."""
    if t is None:
        return None
    if t.root in INTEGER_ROOTS:
        lowest, highest = _INTEGER_RANGE[t.root]
        return fractions.Fraction(lowest), fractions.Fraction(highest), 0
    if t.root == "DECIMAL" and t.precision is not None:
        scale = t.scale or 0
        top = fractions.Fraction(10**t.precision - 1, 10**scale)
        return -top, top, scale
    return None


def _on_grid(units: int, t: DataType) -> int | decimal.Decimal:
    """The column value `units` times 10^-scale, as the column's statistics and hashes hold it."""
    if t.root in INTEGER_ROOTS:
        return units
    return decimal.Decimal(units).scaleb(-(t.scale or 0), decimal.Context(prec=80))


def _held(value: Any, t: DataType | None) -> Any:
    """The value of a column of type `t` that DuckDB finds equal to the constant `value`.

    DuckDB compares an integer or DECIMAL column with a number by widening both (``k > 2.5`` on
    an INT keeps 3), so the constant must never be narrowed to the column's type (a cast rounds
    2.5 to 3, and fails on 3000000000): `_NONE_EQUAL` when no value of the column equals it. A
    FLOAT/DOUBLE column is compared with the constant rounded to the column's type, or widened (a
    DOUBLE literal with a FLOAT column): only a constant the type holds exactly is used (`_Skip`).
    Any other value is returned as it is.

    >>> from paimon_sql.types import DataType
    >>> _held(decimal.Decimal("3.0"), DataType(root="INT")), _held(3, DataType(root="DOUBLE"))
    (3, 3.0)
    >>> _held(decimal.Decimal("2.5"), DataType(root="INT")) is _NONE_EQUAL
    True
    >>> _held(2**31, DataType(root="INT")) is _NONE_EQUAL
    True
    >>> _held(decimal.Decimal("1.0010"), DataType(root="DECIMAL", precision=10, scale=3))
    Decimal('1.001')
    """
    if t is None or isinstance(value, bool) or not isinstance(value, (int, decimal.Decimal, float)):
        return value
    if t.root in FLOAT_ROOTS:
        try:
            exact = float(value)
            if t.root == "FLOAT":
                exact = struct.unpack("<f", struct.pack("<f", exact))[0]
        except (OverflowError, struct.error):
            raise _Skip from None
        if not math.isfinite(exact) or decimal.Decimal(exact) != decimal.Decimal(value):
            raise _Skip
        return exact
    grid = _grid(t)
    if grid is None or isinstance(value, float):
        return value
    low, high, scale = grid
    scaled = fractions.Fraction(value) * 10**scale
    if not low <= fractions.Fraction(value) <= high or scaled.denominator != 1:
        return _NONE_EQUAL
    return _on_grid(scaled.numerator, t)


def _comparison(name: str, op: str, value: Any, t: DataType | None) -> Predicate:
    """``name <op> value`` as DuckDB means it, with a constant of the column's own type.

    Where the column holds no value equal to the constant the test becomes one on its neighbours:
    on an INT column ``k > 2.5`` is ``k >= 3``, ``k <> 2.5`` is ``k IS NOT NULL``, and ``k = 2.5``
    (never true: `_Skip`) or ``k > 3000000000`` hold for no row.

    >>> from paimon_sql.types import DataType
    >>> _comparison("k", ">", decimal.Decimal("2.5"), DataType(root="INT"))
    Compare(path=('k',), op='>=', value=3)
    >>> _comparison("k", "<", 3000000000, DataType(root="INT"))
    Compare(path=('k',), op='<=', value=2147483647)
    """
    held = _held(value, t)
    if held is not _NONE_EQUAL:
        return Compare((name,), op, held)
    assert t is not None
    grid = _grid(t)
    assert grid is not None
    low, high, scale = grid
    scaled = fractions.Fraction(value) * 10**scale
    if op == "=":
        raise _Skip
    if op == "!=":
        return IsNull((name,), negated=True)
    if op in ("<", "<="):
        below = min(math.floor(scaled), high * 10**scale)
        if below < low * 10**scale:
            raise _Skip
        return Compare((name,), "<=", _on_grid(int(below), t))
    above = max(math.ceil(scaled), low * 10**scale)
    if above > high * 10**scale:
        raise _Skip
    return Compare((name,), ">=", _on_grid(int(above), t))


def _in_list(name: str, values: tuple[Any, ...], t: DataType | None) -> Predicate:
    """``name IN (values)`` without the constants no value of the column equals."""
    kept = tuple(v for v in (_held(v, t) for v in values) if v is not _NONE_EQUAL)
    if not kept:
        raise _Skip  # no row matches; DuckDB's own filter says so
    return InList((name,), kept)


def _column(node: exp.Expression, names: set[str], qualifiers: set[str]) -> str:
    """The column of the table `node` names (`qualifiers`: the one way to qualify it)."""
    if not isinstance(node, exp.Column) or node.name not in names:
        raise _Skip
    if node.table:
        qualifier = ".".join(p.name for p in node.parts[:-1]).lower()
        if qualifier not in qualifiers:
            raise _Skip
    return node.name


def _qualifiers(table: exp.Table) -> set[str]:
    """How a column of `table` may be qualified in its own SELECT (lower case, as DuckDB binds).

    An aliased table is known by its alias only: ``FROM db.t AS x, (…) AS t`` has ``t.id`` name
    the subquery's column, and in a correlated subquery an outer relation's.
    """
    if table.alias:
        return {table.alias.lower()}
    names = {table.name.lower()}
    if table.db:
        names.add(f"{table.db}.{table.name}".lower())
        if table.catalog:
            names.add(f"{table.catalog}.{table.db}.{table.name}".lower())
    return names


#: Joins whose result depends on rows the WHERE drops (which row is matched, or its position): a
#: filter on either side must not prune before them.
_ORDER_JOINS = frozenset({"ASOF", "POSITIONAL"})


def _prunable_from(select: exp.Select, table: exp.Table) -> bool:
    """Whether the WHERE of `select` may prune `table`'s rows before its FROM is evaluated.

    Not when `table` is no plain source of `select`, under an outer/semi/anti join (pruning
    changes what is null-extended or matched), an ASOF or POSITIONAL join, or a sample (``USING
    SAMPLE`` is drawn from the FROM's rows before the WHERE, ``TABLESAMPLE`` from the table's).
    """
    if not isinstance(table.parent, (exp.From, exp.Join)) or table.parent.parent is not select:
        return False
    if select.args.get("sample") or table.args.get("sample"):
        return False
    return not any(
        j.side or j.kind in ("OUTER", "FULL", "ANTI", "SEMI") or j.method in _ORDER_JOINS
        for j in select.args.get("joins") or []
    )


def _leaf(
    node: exp.Expression,
    names: set[str],
    qualifiers: set[str],
    types: Mapping[str, DataType],
) -> Predicate:
    def column(n: exp.Expression) -> str:
        return _column(n, names, qualifiers)

    def value(n: exp.Expression, name: str) -> Any:
        return _values([n], types.get(name))[0]

    for kind, op in _OPS.items():
        if isinstance(node, kind):
            left, right = node.this, node.expression
            if isinstance(right, exp.Column):
                left, right, op = right, left, _FLIP[op]
            name = column(left)
            return _comparison(name, op, value(right, name), types.get(name))
    if isinstance(node, exp.In) and not node.args.get("query"):
        name = column(node.this)
        t = types.get(name)
        return _in_list(name, _values(node.expressions, t), t)
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return IsNull((column(node.this),))
    if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
        inner = _leaf(node.this, names, qualifiers, types)
        if isinstance(inner, IsNull):
            return IsNull(inner.path, negated=True)
    if isinstance(node, exp.Between):
        name = column(node.this)
        t = types.get(name)
        low, high = _values([node.args["low"], node.args["high"]], t)
        return and_all([_comparison(name, ">=", low, t), _comparison(name, "<=", high, t)])  # type: ignore[return-value]
    raise _Skip


def table_predicate(
    table: exp.Table, columns: set[str], types: Mapping[str, DataType] | None = None
) -> Predicate | None:
    """What the WHERE of the SELECT reading `table` implies about it (None: nothing usable).

    `types` (column name → Paimon type) lets DATE and TIMESTAMP constants be compared with
    statistics; without it they are not used.
    """
    select = table.parent_select
    if select is None or not _prunable_from(select, table):
        return None
    where = select.args.get("where")
    if where is None:
        return None
    qualifiers = _qualifiers(table)
    single = not select.args.get("joins")
    usable = []
    for part in conjuncts(where.this):
        if not single and not all(c.table for c in part.find_all(exp.Column)):
            continue  # an unqualified column could belong to another table
        try:
            usable.append(_leaf(part, columns, qualifiers, types or {}))
        except _Skip:
            continue
    return and_all(usable)
