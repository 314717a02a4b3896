"""partial-update and aggregation merge engines as grouped SQL (paimon-format.md §9, seed 000).

Both engines fold every record of a key, in sequence order, into one row. In SQL that is a ``GROUP
BY`` over the key with ordered aggregates: ``last(x ORDER BY seq) FILTER (WHERE x IS NOT NULL)`` is
partial-update's "non-null fields overwrite", and each aggregate function of the aggregation engine
has its SQL counterpart. Retractions (``-U``/``-D``) follow Java: partial-update fails on them
unless ``ignore-delete`` (skip) or ``partial-update.remove-record-on-delete`` (a ``-D`` starts the
row afresh); aggregation retracts ``sum``, nulls ``last_value``/``last_non_null_value`` and fails
for other functions unless ``fields.<c>.ignore-retract``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp

from paimon_sql.errors import OptionError, UnsupportedFeatureError
from paimon_sql.format.option_registry import (
    AGG_FUNCTION_NAMES,
    merge_conflicts,
    refuse_unreadable_options,
)
from paimon_sql.format.options import MergeEngine
from paimon_sql.read import java_hash
from paimon_sql.types import (
    ADD_KINDS,
    FLOAT_ROOTS,
    INTEGER_ROOTS,
    RETRACT_KINDS,
    RowKind,
    duckdb_type_node,
    row_kind_in,
    type_sql,
)

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from paimon_sql.format.options import CoreOptions
    from paimon_sql.types import DataType

ORD = "__paimon_ord"
#: How many records the key has in the section (before any retraction is filtered out).
COUNT = "__paimon_n"
SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"

#: The SQL of each aggregate function the reader supports. Only these constant templates are ever
#: parsed: a function name from a schema file is looked up here (`aggregate_function`).
#: A key's added non-null values in merge order (a template, like the aggregates below);
#: `_fold_in_order` folds them, under the internal name `_VALUES`.
_IN_ORDER = "LIST(:x ORDER BY :o) FILTER (WHERE :x IS NOT NULL AND :add)"
_VALUES = "values in merge order"
#: A key's non-null values in merge order, retracted ones negated (a FLOAT/DOUBLE sum's steps).
_SIGNED = "signed values in merge order"
_TEMPLATES = {
    "last_non_null_value": "LAST(:x ORDER BY :o) FILTER (WHERE :x IS NOT NULL AND :add)",
    "last_value": "LAST(:x ORDER BY :o) FILTER (WHERE :add)",
    "first_non_null_value": "FIRST(:x ORDER BY :o) FILTER (WHERE :x IS NOT NULL AND :add)",
    "first_value": "FIRST(:x ORDER BY :o) FILTER (WHERE :add)",
    "sum": "SUM(CASE WHEN :add THEN :x ELSE -:x END)",
    "product": "PRODUCT(:x) FILTER (WHERE :add)",
    "max": "MAX(:x) FILTER (WHERE :add)",
    "min": "MIN(:x) FILTER (WHERE :add)",
    "bool_and": "BOOL_AND(:x) FILTER (WHERE :add)",
    "bool_or": "BOOL_OR(:x) FILTER (WHERE :add)",
    "listagg": "STRING_AGG(:x, :d ORDER BY :o) FILTER (WHERE :x IS NOT NULL AND :add)",
    "collect": "FLATTEN(LIST(:x ORDER BY :o) FILTER (WHERE :x IS NOT NULL AND :add))",
    "merge_map": (
        "LIST_REDUCE(LIST(:x ORDER BY :o) FILTER (WHERE :x IS NOT NULL AND :add), "
        "(a, b) -> MAP_CONCAT(a, b))"
    ),
    # the records' arrays in merge order; `GroupedMerge._nested_update` folds them as Java
    "nested_update": _IN_ORDER,
}
#: Java's legacy names (FieldFirstNonNullValueAggLegacyFactory).
_ALIASES = {"first_not_null_value": "first_non_null_value"}
#: last_non_null_value where retractions count (Java: retracting a non-null value nulls it).
_LAST_NON_NULL_RETRACTED = "last_non_null_value retracted"
_INTERNAL = {
    _VALUES: _IN_ORDER,
    _SIGNED: "LIST(CASE WHEN :add THEN :x ELSE -:x END ORDER BY :o) FILTER (WHERE :x IS NOT NULL)",
    _LAST_NON_NULL_RETRACTED: (
        "LAST(CASE WHEN :add THEN :x END ORDER BY :o) FILTER (WHERE :x IS NOT NULL)"
    ),
}
#: Functions whose retraction Java defines (others fail unless ignore-retract).
_RETRACTABLE = frozenset(
    {
        "sum",
        "last_value",
        "last_non_null_value",
        "product",
        "collect",
        "merge_map",
        "nested_update",
    }
)
#: In a partial-update sequence group: functions whose ``aggReversed`` step is their ``agg``
#: step with the record put first (`GroupedMerge._fold_order`), and functions whose result
#: does not depend on the order of the records (``collect``: its ``aggReversed`` is ``agg``).
#: ``first_non_null_value`` is folded record by record (`GroupedMerge._first_non_null_fold`);
#: ``nested_update`` with ``count-limit`` is refused when a record with a lower group sequence
#: arrives.
_REVERSED_BY_ORDER = frozenset(
    {"listagg", "merge_map", "last_value", "last_non_null_value", "first_value"}
)
_NOT_REVERSED = frozenset({"sum", "product", "max", "min", "bool_and", "bool_or", "collect"})
#: Functions whose retraction is a step of a sequential fold (`GroupedMerge._fold`).
_FOLDED = frozenset({"product", "collect", "merge_map", "nested_update"})


@functools.cache
def _parsed(name: str) -> exp.Expression:
    """The parsed constant template `name` (parsed once; `replace_placeholders` copies it)."""
    return sqlglot.parse_one(_TEMPLATES.get(name) or _INTERNAL[name], read="duckdb")


def _template(name: str, **values: exp.Expression) -> exp.Expression:
    """The aggregate `name` (a key of the constant templates, never SQL text) over `values`."""
    return exp.replace_placeholders(_parsed(name), **values)


#: Bits of Java's integer types: their sums and products wrap around (two's complement).
_INTEGER_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
#: The largest finite FLOAT (Java's Float.MAX_VALUE).
_FLOAT_MAX = "3.4028234663852886e38"


def java_overflow(value: exp.Expression, t: DataType, where: str = "") -> exp.Expression:
    """An exact sum or product of `t` values as Java's arithmetic in `t` leaves it.

    Java's ``FieldSumAgg`` / ``FieldProductAgg`` add and multiply in the column's own type: an
    integer wraps around (two's complement; modular arithmetic, so wrapping the exact result
    equals wrapping at each step), a FLOAT beyond its range is an infinity. DuckDB sums into a
    wider type and would fail casting back. A DECIMAL sum is not checked by Java either, so it may
    hold more digits than the column declares; DuckDB cannot, so that is an error naming
    `where` and the way out (a wider column type). Other types are returned unchanged.

    >>> from paimon_sql.types import parse_type
    >>> print(java_overflow(exp.column("s"), parse_type("TINYINT")).sql("duckdb"))
    CAST(((CAST(s AS INT128) + 128) % 256 + 256) % 256 - 128 AS TINYINT)
    """
    bits = _INTEGER_BITS.get(t.root)
    if bits is not None:
        half, whole = exp.Literal.number(2 ** (bits - 1)), exp.Literal.number(2**bits)
        shifted = exp.Add(this=exp.cast(value, "HUGEINT"), expression=half)
        modulo = exp.Mod(
            this=exp.Paren(
                this=exp.Add(
                    this=exp.Mod(this=exp.Paren(this=shifted), expression=whole),
                    expression=whole.copy(),
                )
            ),
            expression=whole.copy(),
        )
        return exp.cast(exp.Sub(this=modulo, expression=half.copy()), t.root)
    if t.root == "FLOAT":
        top = exp.Literal.number(_FLOAT_MAX)
        inf = exp.cast(exp.Literal.string("Infinity"), "FLOAT")
        return exp.Case(
            ifs=[
                exp.If(this=exp.GT(this=value.copy(), expression=top), true=inf),
                exp.If(
                    this=exp.LT(this=value.copy(), expression=exp.Neg(this=top.copy())),
                    true=exp.Neg(this=inf.copy()),
                ),
            ],
            default=exp.cast(value.copy(), "FLOAT"),
        )
    too_wide = _too_wide(value, t)
    if too_wide is not None:
        message = (
            f"{where}: the {type_sql(t)} aggregate has more digits than the column declares "
            f"(Java does not check them); change the column's type to DECIMAL(38, {t.scale or 0}), "
            "a widening change"
        )
        return exp.Case(ifs=[exp.If(this=too_wide, true=_fail(message))], default=value)
    return value


def _too_wide(value: exp.Expression, t: DataType) -> exp.Expression | None:
    """Whether a DECIMAL `value` has more integer digits than `t` declares; None: cannot."""
    if t.root != "DECIMAL" or t.precision is None or t.precision >= 38:
        return None  # DECIMAL(38, s) is DuckDB's widest: its own cast refuses more
    limit = exp.Literal.number(10 ** (t.precision - (t.scale or 0)))
    return exp.GTE(this=exp.Anonymous(this="abs", expressions=[value.copy()]), expression=limit)


def _widest(node: exp.Expression, t: DataType) -> exp.Expression:
    """`node` as HUGEINT for an integer `t` (a product step cannot overflow there)."""
    return exp.cast(node, "HUGEINT") if t.root in _INTEGER_BITS else node


def product_step(a: exp.Expression, b: exp.Expression, t: DataType) -> exp.Expression:
    """``a * b`` as Java's ``FieldProductAgg`` computes it in the column's type `t`.

    An integer wraps around; a DECIMAL is the exact product rounded half-up to the column's scale
    (``BigDecimal``), NULL when it needs more digits than the column has (``fromBigDecimal``),
    and a NULL accumulator takes the next value, as Java's ``agg`` does.

    >>> from paimon_sql.types import parse_type
    >>> step = product_step(exp.column("a"), exp.column("b"), parse_type("DECIMAL(4, 2)"))
    >>> print(step.sql("duckdb"))  # doctest: +NORMALIZE_WHITESPACE
    CASE WHEN a IS NULL THEN b WHEN ABS(ROUND(a * b, 2)) >= 100 THEN NULL
    ELSE CAST(ROUND(a * b, 2) AS DECIMAL(4, 2)) END
    """
    if t.root != "DECIMAL":
        return java_overflow(exp.Mul(this=_widest(a, t), expression=b), t)
    scale = t.scale or 0
    rounded = exp.Anonymous(
        this="round", expressions=[exp.Mul(this=a.copy(), expression=b), exp.Literal.number(scale)]
    )
    ifs = [exp.If(this=is_null(a.copy()), true=b.copy())]
    too_wide = _too_wide(rounded, t)
    if too_wide is not None:
        ifs.append(exp.If(this=too_wide, true=exp.null()))
    return exp.Case(ifs=ifs, default=exp.cast(rounded, duckdb_type_node(t)))


def _folded(name: str, t: DataType | None) -> bool:
    """Whether `_fold_in_order` computes aggregate `name` of a `t` column.

    Products of numbers (DuckDB's ``PRODUCT`` is a DOUBLE: inexact beyond 2^53, and rounded once
    instead of at each step) and FLOAT/DOUBLE sums (DuckDB sums in any order, and a FLOAT in
    DOUBLE; each of Java's steps rounds, so the order decides the last bits).
    """
    if t is None:
        return False
    if name == "product":
        return t.root in _INTEGER_BITS or t.root == "DECIMAL" or t.root in FLOAT_ROOTS
    return name == "sum" and t.root in FLOAT_ROOTS


def _fold_in_order(
    name: str,
    x: exp.Expression,
    o: exp.Expression,
    add: exp.Expression,
    t: DataType,
    condition: exp.Expression | None = None,
) -> exp.Expression:
    """A key's `name` (`_folded`) in merge order, step by step in the column's type, as Java's.

    Java's ``FieldProductAgg`` multiplies (`product_step`) and ``FieldSumAgg`` adds the records
    one by one in merge order, a retraction subtracting (a NULL accumulator takes the next value,
    negated for a retraction). `condition`: the records that count (a sequence group's).

    Only keys with more than one record are folded: Java returns a lone record as written, and
    so does the merge (`GroupedMerge._unless_single`), so their lists would be thrown away.
    """
    listed = _template(
        _SIGNED if name == "sum" else _VALUES, x=x.copy(), o=o.copy(), add=add.copy()
    )
    several: exp.Expression = exp.GT(this=_ident(COUNT), expression=exp.Literal.number(1))
    if condition is not None:
        several = exp.And(this=condition.copy(), expression=several)
    listed = GroupedMerge._filtered(listed, several)
    a, b = exp.column("__paimon_a"), exp.column("__paimon_b")
    body = product_step(a, b, t) if name == "product" else exp.Add(this=a, expression=b)
    step = exp.Lambda(
        this=body, expressions=[exp.to_identifier("__paimon_a"), exp.to_identifier("__paimon_b")]
    )
    return exp.Anonymous(this="list_reduce", expressions=[listed, step])


def _shown(value: str, limit: int = 80) -> str:
    """`value` quoted for a message, cut at `limit` characters."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


def aggregate_function(
    options: Mapping[str, str], key: str, table: str, default: str | None = None
) -> str | None:
    """The aggregate function named by option `key` (or `default`), checked against the allow-list.

    A name Paimon does not know is an `OptionError` naming the option and the table; one Paimon
    knows that the reader cannot merge yet is an `UnsupportedFeatureError`. None when unset.

    >>> key = "fields.v.aggregate-function"
    >>> aggregate_function({key: " SUM "}, key, "db.t")
    'sum'
    >>> aggregate_function({key: "first_not_null_value"}, key, "db.t")  # Java's legacy name
    'first_non_null_value'
    >>> aggregate_function({key: "sum) --"}, key, "db.t")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paimon_sql.errors.OptionError: table db.t: option '...' names unknown aggregate function ...
    """
    raw = options.get(key, default)
    if raw is None:
        return None
    name = raw.strip().lower()
    name = _ALIASES.get(name, name)
    if name in _TEMPLATES:
        return name
    if name in AGG_FUNCTION_NAMES:
        raise UnsupportedFeatureError(
            f"table {table}: aggregate function {name!r} (option {key!r}) is not supported by "
            f"the reader yet; supported: {', '.join(sorted(_TEMPLATES))}"
        )
    raise OptionError(
        f"table {table}: option {key!r} names unknown aggregate function {_shown(raw)}; "
        f"valid: {', '.join(sorted(AGG_FUNCTION_NAMES))}"
    )


def check_columns(options: CoreOptions, columns: Collection[str], table: str) -> None:
    """Check that every column an option names is one of `columns`.

    The options are ``sequence.field`` and ``fields.<a,b>.sequence-group``; else an `OptionError`
    naming the option, the column and the table. Option pairs Java's merge functions refuse
    (`merge_conflicts`) are an `OptionError` too: Java refuses every read of such a table.
    """
    refuse_unreadable_options(options.options, table)
    conflicts = merge_conflicts(options.options, columns)
    if conflicts:
        raise OptionError(f"table {table}: " + "; ".join(conflicts))
    named: list[tuple[str, str]] = [("sequence.field", c) for c in options.sequence_fields]
    for key, value in options.options.items():
        if key.startswith("fields.") and key.endswith(".sequence-group"):
            group = key[len("fields.") : -len(".sequence-group")].split(",")
            named += [(key, c.strip()) for c in (*group, *value.split(","))]
    for key, column in named:
        if column not in columns:
            raise OptionError(
                f"table {table}: option {key!r} names column {_shown(column)}, which the table "
                f"does not have; columns: {', '.join(sorted(columns))}"
            )


def _ident(name: str) -> exp.Column:
    return exp.column(name, quoted=True)


def _add_kind() -> exp.Expression:
    return row_kind_in(_ident(KIND), ADD_KINDS)


def _fail(message: str) -> exp.Expression:
    return exp.Anonymous(this="error", expressions=[exp.Literal.string(message)])


class GroupedMerge:
    """Builds the grouped query of one section for partial-update or aggregation."""

    def __init__(
        self,
        options: CoreOptions,
        keys: Sequence[str],
        partition: Mapping[str, exp.Expression],
        table: str,
        types: Mapping[str, DataType] | None = None,
    ) -> None:
        """`keys`: trimmed primary key; `partition`: the split's constant partition columns.

        `types`: the columns' types (``collect`` with ``distinct`` and ``nested_update`` need
        them).
        """
        self.options = options
        self.types = types or {}
        self.keys = list(keys)
        self.partition = partition
        self.table = table
        self.engine = options.merge_engine
        #: partial-update sequence groups: column -> the group's sequence fields.
        self.groups: dict[str, tuple[str, ...]] = {}
        for key, value in options.options.items():
            if key.startswith("fields.") and key.endswith(".sequence-group"):
                seq = tuple(
                    k.strip() for k in key[len("fields.") : -len(".sequence-group")].split(",")
                )
                for column in (*seq, *(c.strip() for c in value.split(","))):
                    self.groups[column] = seq

    def ordered(self, body: exp.Select, seq_fields: Sequence[str], descending: bool) -> exp.Select:
        """`body` with an ordinal column giving Java's merge order within each key.

        The sequence fields in 'sequence.field.sort-order', a NULL first in either order (Java's
        `UserDefinedSeqComparator` is generated with nullIsLast = false), so it never wins over
        a value.
        """
        order: list[exp.Expression] = [
            exp.Ordered(this=_ident(s), desc=descending, nulls_first=True) for s in seq_fields
        ]
        order.append(exp.Ordered(this=_ident(SEQ), desc=False))
        order.append(
            exp.Ordered(this=_add_kind(), desc=False)
        )  # a retraction before an add on a tie
        window = exp.Window(
            this=exp.RowNumber(),
            partition_by=[_ident(k) for k in self.keys],
            order=exp.Order(expressions=order),
        )
        count = exp.Window(
            this=exp.Count(this=exp.Star()), partition_by=[_ident(k) for k in self.keys]
        )
        return exp.select(
            "*", exp.alias_(window, ORD, quoted=True), exp.alias_(count, COUNT, quoted=True)
        ).from_(body.subquery())

    def function(self, column: str) -> str:
        """The aggregate function of a value column (checked against the allow-list)."""
        raw = self.options.options
        key = f"fields.{column}.aggregate-function"
        if not raw.get(key):
            key = "fields.default-aggregate-function"
        name = aggregate_function(raw, key, self.table, "last_non_null_value")
        assert name is not None
        return name

    def _own_function(self, column: str) -> str | None:
        """The column's own ``fields.<column>.aggregate-function`` (checked), None when unset."""
        key = f"fields.{column}.aggregate-function"
        if not self.options.options.get(key):
            return None
        return aggregate_function(self.options.options, key, self.table)

    @staticmethod
    def _present(seq: Sequence[str]) -> exp.Expression:
        """An add whose group sequence `seq` is not all NULL (it takes part in the group)."""
        given: list[exp.Expression] = [
            exp.Not(this=exp.Is(this=_ident(s), expression=exp.null())) for s in seq
        ]
        some: exp.Expression = functools.reduce(
            lambda a, b: exp.Or(this=a, expression=b), given[1:], given[0]
        )
        return exp.And(this=_add_kind(), expression=exp.Paren(this=some))

    def _aggregated_groups(self) -> list[tuple[str, ...]]:
        """The sequence groups (their sequence fields) with an aggregated column, in order."""
        out: list[tuple[str, ...]] = []
        for column, seq in self.groups.items():
            if column not in seq and self._own_function(column) and seq not in out:
                out.append(seq)
        return out

    def _directions(self, source: exp.Select) -> exp.Select:
        """`source` with, per aggregated sequence group, whether each record folds forward.

        Java's ``PartialUpdateMergeFunction`` folds a record whose group sequence is at least
        the highest one seen so far (of the key, in merge order) with the aggregator's ``agg``,
        and one with a lower group sequence with ``aggReversed`` (``agg`` with the arguments
        swapped). The sequences are compared as Java's comparator does (ascending, NULL
        lowest): by their dense rank within the key, against the running maximum of the ranks
        of the records taking part so far, the record's own included.
        """
        keys = [_ident(k) for k in self.keys]
        for i, seq in enumerate(self._aggregated_groups()):
            rank = exp.Window(
                this=exp.Anonymous(this="dense_rank"),
                partition_by=[k.copy() for k in keys],
                order=exp.Order(
                    expressions=[exp.Ordered(this=_ident(s), nulls_first=True) for s in seq]
                ),
            )
            ranked = exp.select("*", exp.alias_(rank, f"__paimon_rk{i}", quoted=True)).from_(
                source.subquery()
            )
            taking = exp.If(this=self._present(seq), true=_ident(f"__paimon_rk{i}"))
            running = exp.Window(
                this=exp.Max(this=taking.copy()),
                partition_by=[k.copy() for k in keys],
                order=exp.Order(expressions=[exp.Ordered(this=_ident(ORD))]),
            )
            forward = java_hash.call(
                "COALESCE", exp.GTE(this=taking, expression=running), exp.true()
            )
            source = exp.select("*", exp.alias_(forward, f"__paimon_fwd{i}", quoted=True)).from_(
                ranked.subquery()
            )
        return source

    def _fold_order(self, column: str, name: str) -> exp.Expression:
        """The order `column`'s aggregate `name` takes its records in, in a sequence group.

        ``agg`` appends a record, ``aggReversed`` puts it first (Java's ``FieldAggregator``):
        for the functions whose fold is a concatenation-like associative step (``listagg``,
        ``merge_map``, ``nested_update``, the first/last value functions but
        ``first_non_null_value``) the fold is that step over the records backward ones first,
        latest first, then the forward ones in merge order. ``collect`` reverses nothing
        (``FieldCollectAgg.aggReversed`` is ``agg``); the order of the others does not matter.
        """
        o = _ident(ORD)
        if self._reversal(column, name) != "order":
            return o
        i = self._aggregated_groups().index(self.groups[column])
        return exp.If(this=_ident(f"__paimon_fwd{i}"), true=o, false=exp.Neg(this=o.copy()))

    def _reversal(self, column: str, name: str) -> str:
        """How `column`'s function `name` folds a record with a lower group sequence.

        ``order`` (`_fold_order`), ``fold`` (`_first_non_null_fold`), ``none`` (the order
        does not matter) or ``refuse``.
        """
        if name == "nested_update":
            limited = self.options.text(f"fields.{column}.count-limit") is not None
            return "refuse" if limited else "order"
        if name in _REVERSED_BY_ORDER:
            return "order"
        if name == "first_non_null_value":
            return "fold"
        return "none" if name in _NOT_REVERSED else "refuse"

    def _first_non_null_fold(self, column: str, present: exp.Expression) -> exp.Expression:
        """Java's ``FieldFirstNonNullValueAgg`` in a sequence group, record by record.

        Its state is the value and whether it was initialised; ``aggReversed`` swaps the
        arguments, so a record with a lower group sequence replaces an initialised value (NULL
        too), initialises a non-NULL uninitialised one, and else becomes the value unmarked.
        ``list_reduce`` over ``{f: forward, x: value}`` in merge order from ``{i: false, v:
        NULL}``.
        """
        t = self.types.get(column)
        if t is None:
            raise OptionError(f"table {self.table}: column {column!r} has no type")
        i = self._aggregated_groups().index(self.groups[column])

        def state(initialised: exp.Expression, value: exp.Expression) -> exp.Expression:
            return exp.Struct(
                expressions=[
                    exp.PropertyEQ(this=exp.to_identifier("i"), expression=initialised),
                    exp.PropertyEQ(this=exp.to_identifier("v"), expression=value),
                ]
            )

        record = exp.Struct(
            expressions=[
                exp.PropertyEQ(this=exp.to_identifier("f"), expression=_ident(f"__paimon_fwd{i}")),
                exp.PropertyEQ(this=exp.to_identifier("x"), expression=_ident(column)),
            ]
        )
        listed = exp.Anonymous(
            this="list",
            expressions=[exp.Order(this=record, expressions=[exp.Ordered(this=_ident(ORD))])],
        )
        taken = exp.Filter(this=listed, expression=exp.Where(this=present))
        acc, r = exp.column("__paimon_s"), exp.column("__paimon_r")

        def field(node: exp.Expression, name: str) -> exp.Expression:
            return exp.Dot(this=node.copy(), expression=exp.to_identifier(name))

        fresh = exp.Not(this=field(acc, "i"))
        forward = exp.If(
            this=exp.And(this=fresh.copy(), expression=exp.Not(this=is_null(field(r, "x")))),
            true=state(exp.true(), field(r, "x")),
            false=acc.copy(),
        )
        backward = exp.If(
            this=exp.And(this=fresh.copy(), expression=exp.Not(this=is_null(field(acc, "v")))),
            true=state(exp.true(), field(acc, "v")),
            false=state(field(acc, "i"), field(r, "x")),
        )
        step = exp.If(this=field(r, "f"), true=forward, false=backward)
        fold = exp.Lambda(
            this=step,
            expressions=[exp.to_identifier("__paimon_s"), exp.to_identifier("__paimon_r")],
        )
        start = state(exp.false(), exp.cast(exp.null(), duckdb_type_node(t)))
        reduced = exp.Anonymous(this="list_reduce", expressions=[taken, fold, start])
        return field(exp.Paren(this=reduced), "v")

    def _grouped(self, column: str) -> exp.Expression:
        """A sequence-group column: the value of the row with the highest group sequence.

        Later rows win ties; rows whose group sequence is all NULL leave the group alone.
        Aggregated columns fold those rows as Java does (`_directions`, `_fold_order`).
        """
        seq = self.groups[column]
        present = self._present(seq)
        name = self._own_function(column)
        if name and self._reversal(column, name) == "fold":
            return self._first_non_null_fold(column, present)
        if name:
            x, o = _ident(column), self._fold_order(column, name)
            value = self._finish(column, name, self._aggregate(column, name, x, o, present))
            if self._reversal(column, name) != "refuse":
                return value
            i = self._aggregated_groups().index(seq)
            backward = exp.And(
                this=present.copy(), expression=exp.Not(this=_ident(f"__paimon_fwd{i}"))
            )
            message = (
                f"table {self.table}: column {column!r} ({name!r} in a sequence group) got a "
                "record with a lower group sequence than an earlier one; Java folds it with the "
                f"reversed {name!r}, which the reader does not implement"
            )
            backward_seen = java_hash.call("BOOL_OR", backward)
            return exp.If(this=backward_seen, true=_fail(message), false=value)
        order = [exp.Ordered(this=_ident(s), nulls_first=True) for s in seq]
        order.append(exp.Ordered(this=_ident(ORD), nulls_first=False))
        last = exp.Last(this=exp.Order(this=_ident(column), expressions=order))
        return exp.Filter(this=last, expression=exp.Where(this=present))

    def _delimiter(self, column: str) -> exp.Expression:
        """``listagg``'s separator of `column`: ``fields.<column>.list-agg-delimiter`` (``,``).

        The aggregation engine and partial-update sequence groups alike (Java's
        ``FieldListaggAgg``).
        """
        return exp.Literal.string(self.options.text(f"fields.{column}.list-agg-delimiter") or "")

    def _aggregate(
        self, column: str, name: str, x: exp.Expression, o: exp.Expression, when: exp.Expression
    ) -> exp.Expression:
        """Aggregate `name` of the records of `column` where `when`, none of them retracted.

        Partial-update columns with an aggregate function, sequence groups, and sums with
        ``ignore-retract``: products and FLOAT/DOUBLE sums step by step (`_fold_in_order`).
        """
        t = self.types.get(column)
        if _folded(name, t):
            assert t is not None
            return _fold_in_order(name, x, o, exp.true(), t, when)
        aggregate = _template(name, x=x, o=o, add=exp.true(), d=self._delimiter(column))
        return self._filtered(aggregate, when)

    @staticmethod
    def _filtered(aggregate: exp.Expression, condition: exp.Expression) -> exp.Expression:
        if isinstance(aggregate, exp.Filter):
            inner = aggregate.expression.this
            return exp.Filter(
                this=aggregate.this, expression=exp.Where(this=exp.and_(inner, condition))
            )
        return exp.Filter(this=aggregate, expression=exp.Where(this=condition))

    def _value(self, column: str, seq_fields: Sequence[str]) -> exp.Expression:
        x, o, add = _ident(column), _ident(ORD), _add_kind()
        if column in self.groups:
            return self._grouped(column)
        own = self._own_function(column) if self.engine is MergeEngine.PARTIAL_UPDATE else None
        if own:
            return self._finish(column, own, self._aggregate(column, own, x, o, add))
        if self.engine is MergeEngine.PARTIAL_UPDATE or column in seq_fields:
            name = (
                "last_non_null_value" if self.engine is MergeEngine.PARTIAL_UPDATE else "last_value"
            )
            return _template(name, x=x, o=o, add=add)
        name = self.function(column)
        t = self.types.get(column)
        ignore = self.options.flag(f"fields.{column}.ignore-retract")
        value: exp.Expression
        if ignore and name == "sum":  # Java's FieldIgnoreRetractAgg: a retraction changes nothing
            value = self._aggregate(column, name, x, o, add)
        elif _folded(name, t):
            assert t is not None
            value = _fold_in_order(name, x, o, add, t)
        else:
            value = _template(name, x=x, o=o, add=add, d=self._delimiter(column))
        value = self._finish(column, name, value)
        if name in _FOLDED and not ignore:
            retracted = java_hash.call("BOOL_OR", exp.not_(_add_kind()))
            value = exp.If(this=retracted, true=self._fold(column, name), false=value)
        if name == "last_value" and not ignore:
            last_kind = _template("last_value", x=_ident(KIND), o=o, add=exp.true())
            value = exp.If(this=row_kind_in(last_kind, RETRACT_KINDS), true=exp.null(), false=value)
        elif name == "last_non_null_value" and not ignore:
            # Java's retract nulls the field when the retracted value is not null, else keeps
            # it: the last record with a non-null value decides (an add: its value; a
            # retraction: NULL).
            value = _template(_LAST_NON_NULL_RETRACTED, x=x, o=o, add=add)
        if name not in _RETRACTABLE and not ignore:
            retracted = java_hash.call("BOOL_OR", exp.not_(_add_kind()))
            message = (
                f"table {self.table}: a retraction (-U/-D) reached aggregate function {name!r} of "
                "column "
                f"{column!r}, which cannot retract; set 'fields.{column}.ignore-retract'='true'"
            )
            value = exp.If(this=retracted, true=_fail(message), false=value)
        return value

    def _fold(self, column: str, name: str) -> exp.Expression:
        """Java's record-by-record merge of `column` when retractions are among the records.

        ``list_reduce`` over ``{a: is-add, x: value}`` in merge order, from NULL, with the
        ``agg``/``retract`` steps of Java's ``FieldProductAgg``, ``FieldCollectAgg`` and
        ``FieldMergeMapAgg``.
        """
        t = self.types.get(column)
        if t is None:
            raise OptionError(f"table {self.table}: column {column!r} has no type")
        record = exp.Struct(
            expressions=[
                exp.PropertyEQ(this=exp.to_identifier("a"), expression=_add_kind()),
                exp.PropertyEQ(this=exp.to_identifier("x"), expression=_ident(column)),
            ]
        )
        listed = exp.Anonymous(
            this="list",
            expressions=[exp.Order(this=record, expressions=[exp.Ordered(this=_ident(ORD))])],
        )
        acc, r = exp.column("__paimon_acc"), exp.column("__paimon_rec")
        x = exp.Dot(this=r.copy(), expression=exp.to_identifier("x"))
        if name == "product":
            divide: exp.Expression
            if t.root in INTEGER_ROOTS:
                divide = exp.IntDiv(this=acc.copy(), expression=x.copy())
            elif t.root in FLOAT_ROOTS:
                divide = exp.Div(this=acc.copy(), expression=x.copy())
            else:
                divide = _fail(
                    f"table {self.table}: a retraction reached 'product' of {t.root} column "
                    f"{column!r}; the reader retracts only integer and floating products"
                )
            joined: exp.Expression = product_step(acc.copy(), x.copy(), t)
            retracted: exp.Expression = exp.Case(
                ifs=[exp.If(this=exp.or_(is_null(acc), is_null(x)), true=acc.copy())],
                default=divide,
            )
        elif name == "merge_map":
            joined = java_hash.call("map_concat", acc.copy(), x.copy())
            kept = exp.Lambda(
                this=exp.not_(
                    exp.Anonymous(
                        this="list_contains",
                        expressions=[
                            exp.Anonymous(this="map_keys", expressions=[x.copy()]),
                            exp.Dot(
                                this=exp.column("__paimon_e"), expression=exp.to_identifier("key")
                            ),
                        ],
                    )
                ),
                expressions=[exp.to_identifier("__paimon_e")],
            )
            entries = exp.Anonymous(this="map_entries", expressions=[acc.copy()])
            remaining: exp.Expression = exp.Anonymous(
                this="map_from_entries",
                expressions=[exp.Anonymous(this="list_filter", expressions=[entries, kept])],
            )
            retracted = self._retract_case(acc, x, "cardinality", remaining)
        elif name == "nested_update":
            keyed, refusal, limit = self._nested_spec(column)
            joined, remaining = _nested_step(acc, x, keyed, refusal, limit)
            # Java: a NULL accumulator or retraction keeps the accumulator, else rebuilds it
            retracted = exp.Case(
                ifs=[exp.If(this=exp.or_(is_null(acc), is_null(x)), true=acc.copy())],
                default=remaining,
            )
        else:  # collect
            joined = java_hash.call("list_concat", acc.copy(), x.copy())
            if self.options.flag(f"fields.{column}.distinct"):
                joined = self._distinct(column, joined)
            retracted = self._retract_case(acc, x, "len", _without(acc, x))
        added = exp.Case(
            ifs=[
                exp.If(this=is_null(acc), true=x.copy()),
                exp.If(this=is_null(x), true=acc.copy()),
            ],
            default=joined,
        )
        if name == "collect" and self.options.flag(f"fields.{column}.distinct"):
            added = exp.Case(
                ifs=[exp.If(this=exp.and_(is_null(acc), is_null(x)), true=exp.null())],
                default=joined,
            )
        if self.options.flag(f"fields.{column}.ignore-retract"):
            retracted = acc.copy()  # Java's FieldIgnoreRetractAgg
        step = exp.If(
            this=exp.Dot(this=r.copy(), expression=exp.to_identifier("a")),
            true=added,
            false=retracted,
        )
        fold = exp.Lambda(
            this=step,
            expressions=[exp.to_identifier("__paimon_acc"), exp.to_identifier("__paimon_rec")],
        )
        start = exp.cast(exp.null(), duckdb_type_node(t))
        return exp.Anonymous(this="list_reduce", expressions=[listed, fold, start])

    @staticmethod
    def _retract_case(
        acc: exp.Expression, x: exp.Expression, size: str, remaining: exp.Expression
    ) -> exp.Expression:
        """NULL from a NULL accumulator; the accumulator for a NULL or empty retraction."""
        empty = exp.or_(
            exp.Is(this=x.copy(), expression=exp.null()),
            exp.EQ(this=java_hash.call(size, x.copy()), expression=exp.Literal.number(0)),
        )
        return exp.Case(
            ifs=[
                exp.If(this=exp.Is(this=acc.copy(), expression=exp.null()), true=exp.null()),
                exp.If(this=empty, true=acc.copy()),
            ],
            default=remaining,
        )

    def _finish(self, column: str, name: str, value: exp.Expression) -> exp.Expression:
        """`value` of aggregate `name`, completed where Java needs more than the template.

        That is ``collect`` with ``distinct``, ``nested_update``, and a sum or product that Java
        computes in the column's type (`java_overflow`).
        """
        if name == "collect" and self.options.flag(f"fields.{column}.distinct"):
            return self._distinct(column, value)
        if name == "nested_update":
            return self._nested_update(column, value)
        t = self.types.get(column)
        if t is None or name not in ("sum", "product") or _folded(name, t):
            return value  # a fold (`_fold_in_order`) is Java's already
        return java_overflow(value, t, f"table {self.table}, column {column!r}")

    def _element(self, column: str, name: str) -> DataType:
        t = self.types.get(column)
        if t is None or t.root != "ARRAY" or t.element is None:
            raise OptionError(
                f"table {self.table}: aggregate function {name!r} of column {column!r} needs an "
                f"ARRAY column, not {t.root if t else 'an unknown type'}"
            )
        return t.element

    def _distinct(self, column: str, collected: exp.Expression) -> exp.Expression:
        """Java's ``collect`` with ``distinct``: a ``HashSet`` of the elements, in its order.

        ROW/ARRAY/MAP elements go to a list with an equaliser instead (first occurrence order).
        """
        element = self._element(column, "collect")

        def first_seen(listed: exp.Expression) -> exp.Expression:
            keep = exp.EQ(
                this=exp.Anonymous(
                    this="list_position", expressions=[listed.copy(), exp.column("__paimon_e")]
                ),
                expression=exp.column("__paimon_i"),
            )
            lam = exp.Lambda(
                this=keep,
                expressions=[exp.to_identifier("__paimon_e"), exp.to_identifier("__paimon_i")],
            )
            return exp.Anonymous(this="list_filter", expressions=[listed, lam])

        if element.is_nested:
            return java_hash.let(collected, first_seen)
        if not java_hash.hashable(element):
            raise UnsupportedFeatureError(
                f"table {self.table}: 'collect' with 'fields.{column}.distinct' over "
                f"{element.root} elements: Java's order of them (a HashSet) is not reproduced yet"
            )
        refusal = (
            f"table {self.table}: column {column!r} ('collect' with distinct): more than 8 "
            "elements share a hash bucket, Java's tree-bin order is not reproduced"
        )
        ordered = java_hash.hash_order(
            first_seen(collected.copy()),
            lambda item: java_hash.element_hash(item, element),
            lambda item, _: item,
            refusal,
        )
        return exp.If(
            this=exp.Is(this=collected, expression=exp.null()), true=exp.null(), false=ordered
        )

    def _nested_spec(self, column: str) -> tuple[list[tuple[str, DataType]], str, int | None]:
        """``nested_update`` of `column`: its nested key fields, refusal text, count limit."""
        element = self._element(column, "nested_update")
        if element.root != "ROW":
            raise OptionError(
                f"table {self.table}: 'nested_update' of column {column!r} needs ARRAY<ROW<...>>"
            )
        raw_limit = self.options.text(f"fields.{column}.count-limit")
        limit = None
        if raw_limit is not None:
            try:
                limit = int(raw_limit.strip())
            except ValueError:
                raise OptionError(
                    f"table {self.table}: option 'fields.{column}.count-limit' must be an "
                    f"integer, not {_shown(raw_limit)}"
                ) from None
        keys = [
            k.strip()
            for k in (self.options.text(f"fields.{column}.nested-key") or "").split(",")
            if k.strip()
        ]
        by_name = {f.name: f.type for f in element.fields}
        for key in keys:
            if key not in by_name:
                raise OptionError(
                    f"table {self.table}: option 'fields.{column}.nested-key' names {key!r}, "
                    f"which ROW column {column!r} does not have"
                )
        refusal = (
            f"table {self.table}: column {column!r} ('nested_update'): more than 8 nested keys "
            "share a hash bucket, Java's tree-bin order is not reproduced"
        )
        return [(k, by_name[k]) for k in keys], refusal, limit

    def _nested_update(self, column: str, arrays: exp.Expression) -> exp.Expression:
        """Java's ``nested_update`` over the records' arrays (merge order).

        One non-NULL array is kept as written; more are concatenated without NULL rows, and with
        ``nested-key`` a ``HashMap`` by the key keeps each key's last row, in its iteration order.
        A ``count-limit`` makes it a record-by-record fold (`_fold`).
        """
        keyed, refusal, limit = self._nested_spec(column)
        if limit is not None:
            return self._fold(column, "nested_update")
        return _nested_update(arrays, keyed, refusal)

    def build(
        self,
        body: exp.Select,
        names: Sequence[str],
        seq_fields: Sequence[str],
        descending: bool,
        keep_retractions: bool = False,
    ) -> exp.Select:
        """One row per key with the merged values of `names` (partition columns are constants).

        With `keep_retractions` a key whose merged record is a retraction gives that record too
        (its ``_VALUE_KIND`` says so), as Java's merge function returns it: a compaction that
        does not write the top level must keep it to hide the older copies above (a lookup
        compaction), and audit-log style reads show it. Without, such keys give no row.
        """
        source = self._directions(self.ordered(body, seq_fields, descending))
        deleted: exp.Select | None = None
        remove_on_delete = self.options.flag(
            "partial-update.remove-record-on-delete"
            if self.engine is MergeEngine.PARTIAL_UPDATE
            else "aggregation.remove-record-on-delete"
        )
        kinds = _ident(KIND)
        if self.options.ignore_delete:
            source = exp.select("*").from_(source.subquery()).where(_add_kind())
        elif remove_on_delete:
            is_delete = exp.EQ(this=kinds, expression=exp.Literal.number(int(RowKind.DELETE)))
            last_delete = exp.Window(
                this=exp.Max(this=exp.If(this=is_delete, true=_ident(ORD), false=exp.null())),
                partition_by=[_ident(k) for k in self.keys],
            )
            flagged = exp.select("*", exp.alias_(last_delete, "__paimon_del", quoted=True)).from_(
                source.subquery()
            )
            source = self._after_last_delete(flagged, names)
            if keep_retractions:
                deleted = self._deleted_last(flagged, names)
        # Java's merge-tree reader (ReducerMergeFunctionWrapper) never runs the merge function
        # for a key with one record in the section: that record is returned as written (its
        # kind too, so a lone retraction removes the key).
        single = exp.EQ(
            this=java_hash.call("ANY_VALUE", _ident(COUNT)), expression=exp.Literal.number(1)
        )
        outputs: list[exp.Expression] = []
        for name in names:
            if name in self.keys:
                outputs.append(_ident(name))
            elif name == SEQ:  # the last merged record's (partial-update: last add's), as Java
                counted = _add_kind() if self.engine is MergeEngine.PARTIAL_UPDATE else exp.true()
                last = _template("last_value", x=_ident(SEQ), o=_ident(ORD), add=counted)
                outputs.append(exp.alias_(self._unless_single(single, SEQ, last), SEQ, quoted=True))
            elif name == KIND:  # the merged row is an insert
                insert: exp.Expression = exp.Literal.number(int(RowKind.INSERT))
                if keep_retractions and self.engine is MergeEngine.PARTIAL_UPDATE:
                    # Java: no add among the records merged, the result is a DELETE
                    delete = exp.Literal.number(int(RowKind.DELETE))
                    met = java_hash.call("BOOL_OR", _add_kind())
                    insert = exp.If(this=met, true=insert, false=delete)
                insert = exp.cast(insert, "TINYINT")
                outputs.append(
                    exp.alias_(self._unless_single(single, KIND, insert), KIND, quoted=True)
                )
            elif name in self.partition:
                outputs.append(
                    exp.alias_(java_hash.call("ANY_VALUE", _ident(name)), name, quoted=True)
                )
            else:
                merged = self._unless_single(single, name, self._value(name, seq_fields))
                outputs.append(exp.alias_(merged, name, quoted=True))
        query = (
            exp.select(*outputs).from_(source.subquery()).group_by(*[_ident(k) for k in self.keys])
        )
        merged = self._having(query, single, remove_on_delete, keep_retractions)
        if deleted is None:
            return merged
        both = exp.union(merged, deleted, distinct=False)
        return exp.select("*").from_(both.subquery())

    def _after_last_delete(self, flagged: exp.Select, names: Sequence[str]) -> exp.Select:
        """The records a key's merge starts from under remove-record-on-delete.

        Those after its last ``-D``. Java's merge function starts the row afresh at a ``-D``
        (``initRow``) with the ``-D``'s NOT NULL fields and the others NULL, then merges on: for
        the aggregation engine the ``-D`` therefore takes part as an add of its NOT NULL
        values (a sum after a delete starts from the deleted row's NOT NULL value, as Java's
        does); partial-update overwrites those fields with the next add's anyway. A key whose
        last record is the ``-D`` keeps no record here (`_deleted_last` gives it).
        """
        delete, order = _ident("__paimon_del"), _ident(ORD)
        none = exp.Is(this=delete.copy(), expression=exp.null())
        if self.engine is not MergeEngine.AGGREGATE:
            after = exp.GT(this=order, expression=delete)
            return exp.select("*").from_(flagged.subquery()).where(exp.or_(none, after))
        seed = exp.EQ(this=order.copy(), expression=delete.copy())
        replaced = [
            exp.alias_(exp.If(this=seed.copy(), true=exp.Literal.number(0), false=_ident(KIND)),
                       KIND, quoted=True)
        ]  # fmt: skip
        for name in names:
            nullable = name not in self.types or self.types[name].nullable
            if name in self.keys or name in self.partition or name in (SEQ, KIND) or not nullable:
                continue
            nulled = exp.If(this=seed.copy(), true=exp.null(), false=_ident(name))
            replaced.append(exp.alias_(nulled, name, quoted=True))
        starts = exp.and_(
            exp.GTE(this=order.copy(), expression=delete.copy()),
            exp.LT(this=delete.copy(), expression=_ident(COUNT)),
        )
        return (
            exp.select(exp.Star(replace=replaced))
            .from_(flagged.subquery())
            .where(exp.or_(none, starts))
        )

    def _deleted_last(self, flagged: exp.Select, names: Sequence[str]) -> exp.Select:
        """The keys whose last record is a ``-D`` under remove-record-on-delete: that record.

        Java's merge function ends such a key with a ``DELETE`` with the ``-D``'s sequence
        number and a row started afresh from it (``initRow``: its NOT NULL fields, the others
        NULL); the grouped query, which merges only the records after a key's last ``-D``, has
        no row for it.
        """
        last = exp.and_(
            exp.EQ(this=_ident(ORD), expression=_ident(COUNT)),
            exp.EQ(this=_ident(KIND), expression=exp.Literal.number(int(RowKind.DELETE))),
        )
        columns = [exp.alias_(self._deleted_value(name), name, quoted=True) for name in names]
        return exp.select(*columns).from_(flagged.subquery()).where(last)

    def _deleted_value(self, name: str) -> exp.Expression:
        """Column `name` of `_deleted_last`'s row: the ``-D``'s, NULL for a NULLable value."""
        if name == KIND:
            return exp.cast(_ident(KIND), "TINYINT")
        t = self.types.get(name)
        kept = name in self.keys or name in self.partition or name == SEQ
        if kept or (t is not None and not t.nullable):
            return _ident(name)
        return exp.If(this=exp.false(), true=_ident(name))  # a NULL of the column's type

    def _having(
        self,
        query: exp.Select,
        single: exp.Expression,
        remove_on_delete: bool,
        keep_retractions: bool,
    ) -> exp.Select:
        """`query` keeping the keys whose merged record Java returns (see `build`)."""
        lone_add = java_hash.call("BOOL_AND", _add_kind())
        if keep_retractions:  # a lone record is returned as written, a retraction too
            lone_add = exp.true()
        if self.engine is not MergeEngine.PARTIAL_UPDATE:
            # a merged aggregation row is always +I: only a lone retraction removes a key
            return query.having(exp.or_(exp.not_(single.copy()), lone_add))
        # only retractions: no row (kept as a -D with `keep_retractions`)
        condition: exp.Expression = java_hash.call("BOOL_OR", _add_kind())
        if keep_retractions:
            condition = exp.true()
        if not self.options.ignore_delete and not remove_on_delete:
            message = (
                f"table {self.table}: partial-update received a retraction (-U/-D); Java fails "
                "here too. "
                "Read with 'ignore-delete'='true' or "
                "'partial-update.remove-record-on-delete'='true'"
            )
            if self.groups:  # Java retracts the sequence groups' fields
                message = (
                    f"table {self.table}: partial-update with sequence groups received a "
                    "retraction (-U/-D); the reader does not implement Java's retraction of "
                    "sequence groups. Read with 'ignore-delete'='true'"
                )
            retracted = java_hash.call("BOOL_OR", exp.not_(_add_kind()))
            guard = exp.If(
                this=retracted, true=exp.cast(_fail(message), "BOOLEAN"), false=exp.true()
            )
            condition = exp.and_(condition, guard)
        return query.having(exp.If(this=single.copy(), true=lone_add, false=condition))

    @staticmethod
    def _unless_single(
        single: exp.Expression, column: str, merged: exp.Expression
    ) -> exp.Expression:
        """`merged`, or the column's own value when the key has a single record."""
        lone = java_hash.call("FIRST", _ident(column))
        return exp.Case(ifs=[exp.If(this=single.copy(), true=lone)], default=merged)


def _field(row: exp.Expression, name: str) -> exp.Expression:
    return exp.Dot(this=row, expression=exp.to_identifier(name, quoted=True))


def _key_of(row: exp.Expression, keys: Sequence[tuple[str, DataType]]) -> exp.Expression:
    """The nested key of `row` as a struct (``{k0: row.a, k1: row.b}``)."""
    return exp.Struct(
        expressions=[
            exp.PropertyEQ(this=exp.to_identifier(f"k{i}"), expression=_field(row.copy(), k))
            for i, (k, _) in enumerate(keys)
        ]
    )


def _non_null(listed: exp.Expression) -> exp.Expression:
    """`listed` without its NULL elements."""
    keep = exp.Lambda(
        this=exp.not_(exp.Is(this=exp.column("__paimon_r"), expression=exp.null())),
        expressions=[exp.to_identifier("__paimon_r")],
    )
    return exp.Anonymous(this="list_filter", expressions=[listed, keep])


def _keyed_merge(
    rows: exp.Expression,
    keys: Sequence[tuple[str, DataType]],
    refusal: str,
    dropped: exp.Expression | None = None,
) -> exp.Expression:
    """Non-NULL `rows` put into Java's ``HashMap`` by nested key, in its iteration order.

    Each key keeps its last row; keys in the list `dropped` are then removed (``map.remove``).
    """

    def by_key(all_rows: exp.Expression) -> exp.Expression:
        keyed = exp.Anonymous(
            this="list_transform",
            expressions=[
                all_rows.copy(),
                exp.Lambda(
                    this=_key_of(exp.column("__paimon_r"), keys),
                    expressions=[exp.to_identifier("__paimon_r")],
                ),
            ],
        )

        def first(i: exp.Expression, listed: exp.Expression) -> exp.Expression:
            at = java_hash.list_at(listed.copy(), i)
            return exp.EQ(
                this=exp.Anonymous(this="list_position", expressions=[listed.copy(), at]),
                expression=i.copy(),
            )

        span = java_hash.call(
            "range",
            exp.Literal.number(1),
            exp.Add(this=java_hash.call("len", all_rows.copy()), expression=exp.Literal.number(1)),
        )
        firsts = java_hash.let(
            keyed,  # each row's key built once
            lambda listed: exp.Anonymous(
                this="list_filter",
                expressions=[
                    span,
                    exp.Lambda(
                        this=first(exp.column("__paimon_i"), listed),
                        expressions=[exp.to_identifier("__paimon_i")],
                    ),
                ],
            ),
        )

        def hash_of(i: exp.Expression) -> exp.Expression:
            row = java_hash.list_at(all_rows.copy(), i)
            return java_hash.binary_row_hash([(_field(row.copy(), k), t) for k, t in keys])

        def last_row(i: exp.Expression, _: exp.Expression) -> exp.Expression:
            wanted = _key_of(java_hash.list_at(all_rows.copy(), i), keys)
            same = exp.Anonymous(
                this="list_filter",
                expressions=[
                    all_rows.copy(),
                    exp.Lambda(
                        this=exp.NullSafeEQ(
                            this=_key_of(exp.column("__paimon_s"), keys), expression=wanted.copy()
                        ),
                        expressions=[exp.to_identifier("__paimon_s")],
                    ),
                ],
            )
            row = java_hash.list_at(same, exp.Literal.number(-1))
            if dropped is None:
                return row
            gone = exp.not_(
                exp.Is(
                    this=exp.Anonymous(this="list_position", expressions=[dropped.copy(), wanted]),
                    expression=exp.null(),
                )
            )
            return exp.If(this=gone, true=exp.null(), false=row)

        ordered = java_hash.hash_order(firsts, hash_of, last_row, refusal)
        return ordered if dropped is None else _non_null(ordered)

    return java_hash.let(_non_null(rows), by_key)


def _nested_update(
    arrays: exp.Expression, keys: Sequence[tuple[str, DataType]], refusal: str
) -> exp.Expression:
    """Java's ``FieldNestedUpdateAgg`` folded over `arrays` (the records' arrays, merge order).

    One non-NULL array is kept as written; more are concatenated without NULL rows, and with a
    nested key merged by `_keyed_merge` (pairwise merges give the same order: a map's order is
    by bucket, then first insertion).
    """

    def merged(listed: exp.Expression) -> exp.Expression:
        rows = java_hash.call("flatten", listed.copy())
        return _keyed_merge(rows, keys, refusal) if keys else _non_null(rows)

    single = exp.EQ(this=java_hash.call("len", arrays.copy()), expression=exp.Literal.number(1))
    return exp.Case(
        ifs=[
            exp.If(this=exp.Is(this=arrays.copy(), expression=exp.null()), true=exp.null()),
            exp.If(this=single, true=java_hash.list_at(arrays.copy(), exp.Literal.number(1))),
        ],
        default=java_hash.let(arrays, merged),
    )


def _nested_step(
    acc: exp.Expression,
    x: exp.Expression,
    keys: Sequence[tuple[str, DataType]],
    refusal: str,
    limit: int | None,
) -> tuple[exp.Expression, exp.Expression]:
    """Java's ``FieldNestedUpdateAgg`` agg and retract of `x` into `acc` (both non-NULL).

    With ``count-limit``: a full accumulator stays; else at most the remaining count of `x`'s
    non-NULL rows is added.
    """
    taken = _non_null(x.copy())
    if limit is not None:
        remain = exp.Sub(
            this=exp.Literal.number(limit), expression=java_hash.call("len", acc.copy())
        )
        taken = exp.Anonymous(this="list_slice", expressions=[taken, exp.Literal.number(1), remain])
    rows = java_hash.call("list_concat", _non_null(acc.copy()), taken)
    added = _keyed_merge(rows, keys, refusal) if keys else rows
    if limit is not None:
        full = exp.GTE(this=java_hash.call("len", acc.copy()), expression=exp.Literal.number(limit))
        added = exp.If(this=full, true=acc.copy(), false=added)
    if keys:
        dropped = exp.Anonymous(
            this="list_transform",
            expressions=[
                _non_null(x.copy()),
                exp.Lambda(
                    this=_key_of(exp.column("__paimon_d"), keys),
                    expressions=[exp.to_identifier("__paimon_d")],
                ),
            ],
        )
        retracted = _keyed_merge(acc.copy(), keys, refusal, dropped)
    else:
        kept = exp.Lambda(
            this=exp.Is(
                this=exp.Anonymous(
                    this="list_position", expressions=[x.copy(), exp.column("__paimon_k")]
                ),
                expression=exp.null(),
            ),
            expressions=[exp.to_identifier("__paimon_k")],
        )
        retracted = exp.Anonymous(this="list_filter", expressions=[_non_null(acc.copy()), kept])
    return added, retracted


def is_null(node: exp.Expression) -> exp.Expression:
    """``node IS NULL`` (on a copy)."""
    return exp.Is(this=node.copy(), expression=exp.null())


def _count_equal(listed: exp.Expression, value: exp.Expression) -> exp.Expression:
    """How many elements of `listed` are `value` (NULL equal to NULL)."""
    same = exp.Lambda(
        this=exp.NullSafeEQ(this=exp.column("__paimon_z"), expression=value),
        expressions=[exp.to_identifier("__paimon_z")],
    )
    return java_hash.call("len", exp.Anonymous(this="list_filter", expressions=[listed, same]))


def _without(acc: exp.Expression, retract: exp.Expression) -> exp.Expression:
    """`acc` less one occurrence per element of `retract`, earliest first (Java's collect)."""
    c, i = exp.column("__paimon_c"), exp.column("__paimon_i")
    upto = exp.Anonymous(this="list_slice", expressions=[acc.copy(), exp.Literal.number(1), i])
    keep = exp.GT(this=_count_equal(upto, c), expression=_count_equal(retract.copy(), c.copy()))
    lam = exp.Lambda(
        this=keep, expressions=[exp.to_identifier("__paimon_c"), exp.to_identifier("__paimon_i")]
    )
    return exp.Anonymous(this="list_filter", expressions=[acc.copy(), lam])
