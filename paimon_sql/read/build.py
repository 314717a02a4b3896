"""Merge-on-read as SQL: for one split, a sqlglot query that DuckDB runs (paimon-format.md §8, §9).

Pure: it only builds an AST. The caller says how each data file is read (`FileSource`: a
    ``read_parquet`` call or
the name of a registered Arrow table) and under which name each deletion vector's positions are
registered.

* every file is read with its own schema (``schema-<_SCHEMA_ID>``) and mapped to the read schema by
  field id: renamed columns follow their id, dropped ones vanish, added ones are NULL, ones whose
  type changed are cast as Java casts them (`evolve`: a narrower type wraps, truncates or cuts);
* partition columns come from the split's partition value (as Java fills them);
* deletion vectors are anti-joined on the file row position;
* overlapping files of a primary-key table are merged with ``row_number()`` over the key, ordered by
  the user sequence fields and ``_SEQUENCE_NUMBER``; retractions (``-U``/``-D``) are dropped after
  the merge.
* filters on key or partition columns go below the merge; any other filter above it (a filter below
  the merge could bring an older version of a row back).
"""

from __future__ import annotations

import datetime
import decimal
import functools
import itertools
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol
from typing import cast as as_type

import sqlglot
from sqlglot import exp

from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.format.options import ChangelogProducer, MergeEngine
from paimon_sql.plan.predicate import And, Compare, InList, IsNull, Not, Or, conjuncts
from paimon_sql.plan.scan import ReadMode, Split
from paimon_sql.read.merge_engines import GroupedMerge, check_columns
from paimon_sql.types import (
    ADD_KINDS,
    BINARY_ROOTS,
    FLOAT_ROOTS,
    INTEGER_RANK,
    INTEGER_ROOTS,
    MAX_LENGTH,
    NUMERIC_ROOTS,
    STRING_ROOTS,
    TIMESTAMP_ROOTS,
    DataType,
    duckdb_type_node,
    holds,
    row_kind_in,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    import pyarrow as pa

    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.plan.scan import ScanPlan
    from paimon_sql.types import DataField

SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"
#: A file's level beside its rows, where a lookup table's merge needs it (`_lowest_level`).
LEVEL = "__paimon_level"
POS = "file_row_number"


@dataclass(frozen=True, slots=True)
class FileSource:
    """How to read one data file: a relation expression and its physical column names.

    Nested NULLs are read as the file's definition levels say: a ROW whose fields are all NULL is a
    ROW, not a NULL ROW, as Paimon 1.x's readers return it (Paimon 0.9's Parquet reader collapsed
    it to NULL; tests/interop/README.md lists that difference).
    """

    relation: exp.Expression
    columns: frozenset[str]


def no_hive() -> exp.Expression:
    """``hive_partitioning = false``, a named argument of ``read_parquet``.

    DuckDB would otherwise take a column named like a ``k=v`` folder of the path from the folder
    name (``'__DEFAULT_PARTITION__'`` for NULL, a DATE as its day number), in place of the file's
    own column.
    """
    return exp.EQ(this=exp.column("hive_partitioning"), expression=exp.false())


def parquet_source(path: str, columns: Sequence[str], with_position: bool) -> FileSource:
    """``read_parquet('<path>', hive_partitioning = false[, file_row_number = TRUE])``."""
    args: list[exp.Expression] = [exp.Literal.string(path), no_hive()]
    if with_position:
        args.append(exp.EQ(this=exp.column(POS), expression=exp.true()))  # a named argument
    relation = exp.Anonymous(this="read_parquet", expressions=args)
    return FileSource(relation=relation, columns=frozenset(columns))


def table_source(name: str, columns: Sequence[str]) -> FileSource:
    """A registered Arrow table (ORC and Avro files are decoded by pyarrow / fastavro)."""
    relation = exp.Table(this=ident(name))
    return FileSource(relation=relation, columns=frozenset(columns))


def union_all(selects: Sequence[exp.Select]) -> exp.Select:
    """``UNION ALL`` of `selects` (taken, not copied) as one SELECT."""
    union: exp.Select | exp.Union = selects[0]
    for q in selects[1:]:
        union = exp.union(union, q, distinct=False, copy=False)
    if isinstance(union, exp.Select):
        return union
    return exp.select(exp.Star()).from_(union.subquery(copy=False), copy=False)


def ident(name: str) -> exp.Identifier:
    """A quoted identifier."""
    return exp.to_identifier(name, quoted=True)


def col(*path: str) -> exp.Expression:
    """A (possibly nested struct) column reference."""
    node: exp.Expression = exp.Column(this=ident(path[0]))
    for part in path[1:]:
        node = exp.Dot(this=node, expression=ident(part))
    return node


def cast(node: exp.Expression, t: DataType) -> exp.Expression:
    """``CAST(node AS <duckdb type of t>)``."""
    return exp.Cast(this=node, to=duckdb_type_node(t))


def _iso_timestamp(value: datetime.datetime) -> str:
    """ISO text of a timestamp, with the nanoseconds of a TIMESTAMP(7..9) value (`NanoDatetime`)."""
    nanos = getattr(value, "nanosecond", 0)
    if not nanos:
        return value.isoformat(sep=" ")
    zone = "" if value.tzinfo is None else value.strftime("%z")
    whole = value.replace(microsecond=0, tzinfo=None).isoformat(sep=" ")
    return f"{whole}.{value.microsecond:06d}{nanos:03d}{zone}"


def literal(value: Any, t: DataType | None = None) -> exp.Expression:
    """A SQL constant for a Python value, cast to `t`'s DuckDB type when given."""
    node: exp.Expression
    if value is None:
        node = exp.null()
    elif isinstance(value, bool):
        node = exp.true() if value else exp.false()
    elif isinstance(value, int):
        node = exp.Literal.number(value)
    elif isinstance(value, float):
        node = exp.Literal.number(repr(value))
    elif isinstance(value, decimal.Decimal):
        node = exp.Literal.string(format(value, "f"))
    elif isinstance(value, str):
        node = exp.Literal.string(value)
    elif isinstance(value, bytes):
        node = exp.Unhex(this=exp.Literal.string(value.hex()))
    elif isinstance(value, datetime.datetime):
        node = exp.Literal.string(_iso_timestamp(value))
    elif isinstance(value, (datetime.date, datetime.time)):
        node = exp.Literal.string(value.isoformat())
    else:
        raise TypeError(f"no SQL literal for {type(value).__name__}")
    return node if t is None or value is None else cast(node, t)


_OPS = {"=": exp.EQ, "!=": exp.NEQ, "<": exp.LT, "<=": exp.LTE, ">": exp.GT, ">=": exp.GTE}


def predicate_sql(p: Predicate, types: Mapping[str, DataType]) -> exp.Expression:
    """The predicate as a SQL condition (constants cast to the column type)."""
    if isinstance(p, And):
        return exp.and_(*(predicate_sql(c, types) for c in p.children))
    if isinstance(p, Or):
        return exp.or_(*(predicate_sql(c, types) for c in p.children))
    if isinstance(p, Not):
        return exp.not_(predicate_sql(p.child, types))
    t = types.get(p.path[0]) if len(p.path) == 1 else None  # type: ignore[attr-defined]
    column = col(*p.path)  # type: ignore[attr-defined]
    if isinstance(p, IsNull):
        test = exp.Is(this=column, expression=exp.null())
        return exp.not_(test) if p.negated else test
    if isinstance(p, InList):
        return exp.In(this=column, expressions=[literal(v, t) for v in p.values])
    assert isinstance(p, Compare)
    return _OPS[p.op](this=column, expression=literal(p.value, t))


def _file_fields(plan: ScanPlan, f: DataFileMeta) -> dict[int, DataField]:
    schema = plan.schema if f.schema_id == plan.schema.id else plan.table.schema(f.schema_id)
    return {fld.id: fld for fld in schema.fields}


def _value_columns(
    plan: ScanPlan, f: DataFileMeta, names: Sequence[str], source: FileSource
) -> list[exp.Expression]:
    """The read-schema columns `names` of file `f`, mapped by field id."""
    by_id = _file_fields(plan, f)
    out: list[exp.Expression] = []
    for name in names:
        target = plan.schema.field(name)
        old = by_id.get(target.id)
        if old is None or old.name not in source.columns:
            out.append(exp.alias_(cast(exp.null(), target.type), name, quoted=True))
        elif holds(target.type, "VARIANT") or holds(old.type, "VARIANT"):
            variant = exp.alias_(_variant(plan, f, old, target), name, quoted=True)
            out.append(as_type("exp.Expression", variant))
        elif old.type == target.type:
            out.append(
                exp.alias_(col(old.name), name, quoted=True) if old.name != name else col(name)
            )
        else:
            out.append(exp.alias_(evolve(col(old.name), old.type, target.type), name, quoted=True))
    return out


#: Paimon's options that make its Parquet writer shred VARIANT values into typed columns
#: (``CoreOptions``; ``parquet.`` is the older spelling of the first).
VARIANT_SHREDDING = (
    "variant.shreddingSchema",
    "parquet.variant.shreddingSchema",
    "variant.inferShreddingSchema",
)


def _variant(plan: ScanPlan, f: DataFileMeta, old: DataField, target: DataField) -> exp.Expression:
    """A top-level VARIANT column of a Parquet file as DuckDB's VARIANT.

    Paimon writes a VARIANT as a group of two binaries, ``value`` and ``metadata``, in the
    Parquet Variant encoding (version 1); DuckDB's ``variant_bytes_to_variant`` takes the metadata
    followed by the value. Refused by name (`UnsupportedFeatureError`), never read as bytes:
    VARIANT nested in ROW/ARRAY/MAP, in ORC or Avro files, shredded files (a shredding option
    set), and a type change to or from VARIANT.
    """
    where = f"column {target.name!r} of {plan.table.name} (data file {f.file_name})"
    if target.type.root != "VARIANT" or old.type.root != "VARIANT":
        raise UnsupportedFeatureError(
            f"{where}: VARIANT nested in another type, or changed to or from VARIANT, is not "
            "read by paimon-sql yet"
        )
    if not f.file_name.lower().endswith(".parquet"):
        raise UnsupportedFeatureError(
            f"{where}: VARIANT is read from Parquet data files only, not "
            f"{f.file_name.rsplit('.', 1)[-1].upper()}"
        )
    options = plan.schema.options
    shredding = [k for k in VARIANT_SHREDDING if options.get(k, "false").lower() != "false"]
    if shredding:
        raise UnsupportedFeatureError(
            f"{where}: shredded VARIANT values (table option {shredding[0]!r}) are not read by "
            "paimon-sql yet"
        )
    column = col(old.name)
    both = exp.DPipe(
        this=exp.Dot(this=column, expression=ident("metadata")),
        expression=exp.Dot(this=column.copy(), expression=ident("value")),
        safe=True,
    )
    # A file shredded while no option says so (set, written, then unset) has a typed_value
    # field beside value, and value alone is then incomplete: fail the read, naming the column.
    shredded = exp.and_(
        exp.not_(exp.Is(this=column.copy(), expression=exp.null())),
        exp.Anonymous(
            this="contains",
            expressions=[
                exp.Anonymous(this="typeof", expressions=[column.copy()]),
                exp.Literal.string("typed_value"),
            ],
        ),
    )
    message = f"{where}: shredded VARIANT values are not read by paimon-sql yet"
    refuse = exp.Anonymous(this="error", expressions=[exp.Literal.string(message)])
    decoded = exp.Anonymous(this="variant_bytes_to_variant", expressions=[both])
    return exp.Case(ifs=[exp.If(this=shredded, true=refuse)], default=decoded)


def _epoch_millis(node: exp.Expression) -> exp.Expression:
    """Epoch milliseconds of a timestamp, floored (Paimon's ``Timestamp.getMillisecond``)."""
    micros = exp.Anonymous(this="epoch_us", expressions=[node])
    thousand = exp.Literal.number(1000)
    below = exp.Mod(
        this=exp.paren(
            exp.Add(this=exp.paren(exp.Mod(this=micros, expression=thousand)), expression=thousand)
        ),
        expression=thousand.copy(),
    )
    floored = exp.paren(exp.Sub(this=micros.copy(), expression=exp.paren(below)))
    return exp.IntDiv(this=floored, expression=thousand.copy())


_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}


def _narrowed(node: exp.Expression, root: str) -> exp.Expression:
    """A whole number narrowed to `root` as Java's ``(int)``/``(short)``/``(byte)`` do: wrapped.

    Also ``BigDecimal.longValue()`` for BIGINT (the low 64 bits). Computed in HUGEINT, so `node`
    may be any whole number DuckDB holds (a DECIMAL(38, 0) at most).
    """
    bits = _INT_BITS.get(root)
    if bits is None:
        return node
    half, full = exp.Literal.number(1 << (bits - 1)), exp.Literal.number(1 << bits)
    wide = exp.cast(node, exp.DataType.build("HUGEINT", dialect="duckdb"))
    shifted = exp.paren(exp.Add(this=wide, expression=half))
    positive = exp.Mod(
        this=exp.paren(
            exp.Add(this=exp.paren(exp.Mod(this=shifted, expression=full)), expression=full.copy())
        ),
        expression=full.copy(),
    )
    return exp.Sub(this=exp.paren(positive), expression=half.copy())


def _saturated(node: exp.Expression, root: str) -> exp.Expression:
    """A FLOAT or DOUBLE as Java's ``(long)``/``(int)``/``(short)``/``(byte)`` casts it.

    Truncated toward zero, NaN is 0, and a value beyond ``long`` (BIGINT) or ``int`` (the others)
    is that type's bound; SMALLINT and TINYINT then wrap the ``int`` (JLS 5.1.3).
    """
    bits = 64 if root == "BIGINT" else 32
    top = exp.Literal.number(f"{1 << (bits - 1)}.0")  # a double: 2^63 or 2^31
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    whole = exp.Case(
        ifs=[
            exp.If(
                this=exp.Anonymous(this="isnan", expressions=[node]), true=exp.Literal.number(0)
            ),
            exp.If(this=exp.GTE(this=node.copy(), expression=top), true=exp.Literal.number(high)),
            exp.If(
                this=exp.LTE(this=node.copy(), expression=exp.Neg(this=top.copy())),
                true=exp.Literal.number(low),
            ),
        ],
        default=cast(
            exp.Anonymous(this="TRUNC", expressions=[node.copy()]), DataType(root="BIGINT")
        ),
    )
    return whole if root in ("INT", "BIGINT") else _narrowed(whole, root)


#: The smallest double Java's ``(float)`` rounds to infinity: halfway from ``Float.MAX_VALUE`` to
#: 2^128 (a tie goes to the even neighbour, 2^128).
_FLOAT_OVERFLOW = float.fromhex("0x1.ffffffp127")


def _to_float(node: exp.Expression) -> exp.Expression:
    """A DOUBLE as Java's ``(float)``: rounded to the nearest FLOAT, infinite past its range.

    DuckDB's ``CAST`` fails on a value beyond FLOAT's range instead.
    """
    bound = exp.Literal.number(repr(_FLOAT_OVERFLOW))
    infinite = exp.cast(exp.Literal.string("Infinity"), "FLOAT")
    return exp.Case(
        ifs=[
            exp.If(
                this=exp.Anonymous(this="isnan", expressions=[node]),
                true=exp.cast(node.copy(), "FLOAT"),
            ),
            exp.If(this=exp.GTE(this=node.copy(), expression=bound), true=infinite),
            exp.If(
                this=exp.LTE(this=node.copy(), expression=exp.Neg(this=bound.copy())),
                true=exp.Neg(this=infinite.copy()),
            ),
        ],
        default=exp.cast(node.copy(), "FLOAT"),
    )


def _to_decimal(node: exp.Expression, old: DataType, new: DataType) -> exp.Expression:
    """A number as Java's ``Decimal.fromBigDecimal`` makes a DECIMAL of it.

    Rounded half up (away from zero) to the scale, as DuckDB's decimal ``CAST`` rounds. A float
    goes through its ``Double.toString`` digits (``BigDecimal.valueOf``: 2.675 is 2.68 at scale
    2, where the binary value's digits give 2.67). A value whose digits do not fit the precision
    fails the read, as in Java (its cast gives a null that the row then refuses), and so do NaN
    and infinity (Java's ``BigDecimal`` refuses them).
    """
    if old.root in FLOAT_ROOTS:
        node = exp.cast(exp.cast(node, "DOUBLE"), "VARCHAR")
    return cast(node, new)


def _precision(t: DataType) -> int:
    return 6 if t.precision is None else t.precision


def _truncated(node: exp.Expression, old: DataType, new: DataType) -> exp.Expression:
    """A timestamp cut to `new`'s lower precision as Java's ``DateTimeUtils.truncate`` does.

    To 3..8 digits the dropped digits are floored away (``23:59:59.9995`` is ``.999``); to 0..2
    Java divides the epoch milliseconds by a power of ten, truncating toward zero, so a time before
    1970 moves up (``1969-12-31 23:59:59.5`` to TIMESTAMP(0) is ``1970-01-01 00:00:00``). The
    result is the UTC wall clock as a TIMESTAMP(_NS); the caller casts it to `new`'s type.
    (Paimon before 2.0 also kept a fraction below 10^p nanoseconds untouched, a bug 2.0 fixed;
    this is the fixed rule.)
    """
    nanos = _precision(old) > 6
    digits = 9 if nanos else 6  # of the epoch number's fraction of a second
    if nanos:
        epoch = exp.Anonymous(this="epoch_ns", expressions=[node])
    else:
        epoch = exp.Anonymous(this="epoch_us", expressions=[node])
    p = _precision(new)
    if p >= 3:
        step = exp.Literal.number(10 ** (digits - p))
        below = _floor_mod(epoch.copy(), step)
        value: exp.Expression = exp.Sub(this=epoch, expression=exp.paren(below))
    else:
        per_milli = exp.Literal.number(10 ** (digits - 3))
        millis = exp.IntDiv(
            this=exp.paren(
                exp.Sub(this=epoch, expression=exp.paren(_floor_mod(epoch.copy(), per_milli)))
            ),
            expression=per_milli,
        )
        step = exp.Literal.number(10 ** (3 - p))
        cut = exp.Mul(
            this=exp.paren(exp.IntDiv(this=millis, expression=step)), expression=step.copy()
        )
        value = exp.Mul(this=exp.paren(cut), expression=per_milli.copy())
    if nanos:
        return exp.Anonymous(this="make_timestamp_ns", expressions=[value])
    return exp.Anonymous(this="make_timestamp", expressions=[value])


def _floor_mod(node: exp.Expression, step: exp.Expression) -> exp.Expression:
    """``node`` modulo `step`, in ``[0, step)`` whatever the sign (DuckDB's ``%`` keeps it)."""
    inner = exp.paren(exp.Mod(this=node, expression=step))
    return exp.Mod(
        this=exp.paren(exp.Add(this=inner, expression=step.copy())), expression=step.copy()
    )


def _fit_string(node: exp.Expression, old: DataType, new: DataType) -> exp.Expression:
    """A string fitted to CHAR(n)/VARCHAR(n) as Java's ``toCharacterString`` fits it.

    Cut to n characters (code points), and a CHAR padded with spaces to n.
    """
    n = new.length if new.length is not None else 1
    if new.root == "CHAR":
        pad = [node, exp.Literal.number(n), exp.Literal.string(" ")]
        return exp.Anonymous(this="rpad", expressions=pad)  # rpad also cuts a longer string
    if n >= MAX_LENGTH or (old.root in STRING_ROOTS and (old.length or 0) <= n):
        return node
    return exp.Substring(this=node, start=exp.Literal.number(1), length=exp.Literal.number(n))


def _fit_binary(node: exp.Expression, old: DataType, new: DataType) -> exp.Expression:
    """Bytes fitted to BINARY(n)/VARBINARY(n) as Java's ``toBinaryString`` fits them.

    Cut to n bytes, and a BINARY padded with zero bytes to n (through hex text: DuckDB slices no
    BLOB).
    """
    n = new.length if new.length is not None else 1
    if new.root == "VARBINARY" and (
        n >= MAX_LENGTH or (old.root in BINARY_ROOTS and (old.length or 0) <= n)
    ):
        return node
    digits = exp.Anonymous(this="hex", expressions=[node])
    fitted: exp.Expression
    if new.root == "BINARY":
        fitted = exp.Anonymous(
            this="rpad", expressions=[digits, exp.Literal.number(2 * n), exp.Literal.string("0")]
        )
    else:
        fitted = exp.Substring(
            this=digits, start=exp.Literal.number(1), length=exp.Literal.number(2 * n)
        )
    return exp.Anonymous(this="unhex", expressions=[fitted])


#: Java's ``Double.toString`` / ``Float.toString`` from DuckDB's shortest text of the number: plain
#: digits for 1e-3 <= |x| < 1e7 (at least one fraction digit), else ``d.dddE<exp>``. Parsed once.
_JAVA_FLOAT_TEXT = """
list_extract(list_transform([CAST(:x AS VARCHAR)], t ->
  CASE
    WHEN t IS NULL THEN NULL
    WHEN lower(t) IN ('nan', '-nan') THEN 'NaN'
    WHEN lower(t) = 'inf' THEN 'Infinity'
    WHEN lower(t) = '-inf' THEN '-Infinity'
    WHEN t IN ('0.0', '-0.0') THEN t
    ELSE (CASE WHEN starts_with(t, '-') THEN '-' ELSE '' END) || list_extract(list_transform([
      CASE
        WHEN contains(ltrim(t, '-'), 'e') THEN {'d': replace(split_part(ltrim(t, '-'), 'e', 1),
          '.', ''), 'e': CAST(split_part(ltrim(t, '-'), 'e', 2) AS INT)}
        WHEN split_part(ltrim(t, '-'), '.', 1) <> '0' THEN {'d': replace(ltrim(t, '-'), '.', ''),
          'e': length(split_part(ltrim(t, '-'), '.', 1)) - 1}
        ELSE {'d': ltrim(split_part(ltrim(t, '-'), '.', 2), '0'),
          'e': length(ltrim(split_part(ltrim(t, '-'), '.', 2), '0'))
            - length(split_part(ltrim(t, '-'), '.', 2)) - 1}
      END], s -> list_extract(list_transform([
        {'d': CASE WHEN rtrim(s.d, '0') = '' THEN '0' ELSE rtrim(s.d, '0') END, 'e': s.e}], v ->
        CASE
          WHEN v.e BETWEEN 0 AND 6 THEN rpad(v.d, CAST(v.e + 1 AS INT), '0') || '.'
            || CASE WHEN length(v.d) > v.e + 1 THEN substr(v.d, v.e + 2) ELSE '0' END
          WHEN v.e BETWEEN -3 AND -1 THEN '0.' || repeat('0', CAST(-v.e - 1 AS INT)) || v.d
          ELSE substr(v.d, 1, 1) || '.'
            || CASE WHEN length(v.d) > 1 THEN substr(v.d, 2) ELSE '0' END
            || 'E' || CAST(v.e AS VARCHAR)
        END), 1)), 1)
  END), 1)
"""


@functools.cache
def _java_float_text() -> exp.Expression:
    return as_type("exp.Expression", sqlglot.parse_one(_JAVA_FLOAT_TEXT, read="duckdb"))


def _java_float_of(node: exp.Expression) -> exp.Expression:
    """`node` (FLOAT or DOUBLE) as Java's ``toString`` text (a copy of the parsed template)."""
    return as_type("exp.Expression", exp.replace_placeholders(_java_float_text(), x=node))


def _timestamp_text(node: exp.Expression, precision: int) -> exp.Expression:
    """Java's ``DateTimeUtils.formatTimestamp`` of a TIMESTAMP(`precision`).

    The fraction is padded to `precision` digits, longer only where not zero
    (``2024-01-01 00:00:01.900`` for TIMESTAMP(3)).
    """
    whole = exp.Anonymous(
        this="strftime", expressions=[node, exp.Literal.string("%Y-%m-%d %H:%M:%S")]
    )
    nanos: exp.Expression
    if precision > 6:
        nanos = exp.Mod(
            this=exp.Anonymous(this="nanosecond", expressions=[node.copy()]),
            expression=exp.Literal.number(10**9),
        )
    else:
        micros = exp.Mod(
            this=exp.Anonymous(this="microsecond", expressions=[node.copy()]),
            expression=exp.Literal.number(10**6),
        )
        nanos = exp.Mul(this=exp.paren(micros), expression=exp.Literal.number(1000))
    digits = exp.Anonymous(
        this="lpad",
        expressions=[
            exp.cast(nanos, "VARCHAR"),
            exp.Literal.number(9),
            exp.Literal.string("0"),
        ],
    )
    significant = exp.Anonymous(
        this="length",
        expressions=[
            exp.Anonymous(this="rtrim", expressions=[digits.copy(), exp.Literal.string("0")])
        ],
    )
    keep = exp.Anonymous(this="greatest", expressions=[exp.Literal.number(precision), significant])
    fraction = exp.Substring(this=digits.copy(), start=exp.Literal.number(1), length=keep)
    dotted = exp.If(
        this=exp.GT(this=keep.copy(), expression=exp.Literal.number(0)),
        true=exp.DPipe(this=exp.Literal.string("."), expression=fraction),
        false=exp.Literal.string(""),
    )
    return exp.DPipe(this=whole, expression=dotted)


def evolve(node: exp.Expression, old: DataType, new: DataType) -> exp.Expression:
    """Cast a column written as `old` to `new` as Java's schema evolution does (its cast rules).

    Where Java's rule differs from DuckDB's ``CAST``: a narrower integer wraps (``(int)`` of
    3000000000 is -1294967296); float to an integer truncates and saturates (`_saturated`), and
    decimal to an integer truncates and wraps; DOUBLE to FLOAT overflows to infinity; a float to
    DECIMAL rounds its decimal digits (`_to_decimal`); a number to BOOLEAN is
    ``longValue() != 0``; a timestamp to a lower precision is truncated (`_truncated`), to an
    integer its epoch milliseconds divided by 1000 (truncating; narrowed to INT by wrapping), to
    DATE its epoch milliseconds divided by a day (truncating, so a time before 1970 lands on the
    next day, as in Java), to a string with its fraction padded to the precision; a float or
    double to a string as ``Double.toString`` writes it (``1.0E10``); a string, number or boolean
    to CHAR(n)/VARCHAR(n) is cut to n characters (CHAR padded to n), bytes or a string to
    BINARY(n)/VARBINARY(n) cut to n bytes (BINARY padded with zeros). TIMESTAMP_LTZ reads in
    UTC. An integer to a timestamp is that many seconds after the epoch (an instant for
    TIMESTAMP_LTZ).
    """
    if old.with_nullable(True) == new.with_nullable(True):
        return cast(node, new)  # only NOT NULL changed: Java's identity cast, no fitting
    nested = _evolve_nested(node, old, new)
    if nested is not None:
        return nested
    if old.root == "TIMESTAMP_LTZ" and new.root not in TIMESTAMP_ROOTS:
        # the instant's UTC wall clock, as a plain timestamp (any DuckDB timestamp type)
        node = exp.Anonymous(
            this="make_timestamp_ns",
            expressions=[exp.Anonymous(this="epoch_ns", expressions=[node])],
        )
        old = DataType(root="TIMESTAMP", precision=old.precision)
    for rule in (_to_text, _from_timestamp, _to_number):
        out = rule(node, old, new)
        if out is not None:
            return out
    return cast(node, new)


def _evolve_nested(node: exp.Expression, old: DataType, new: DataType) -> exp.Expression | None:
    """A ROW, or an ARRAY / MAP holding one, evolved field by field; None for other types.

    A ROW's fields follow their ids, as the table's columns do: a nested field that was renamed
    keeps its values, one dropped and added again under the same name (a new id) is NULL in the
    older files, as Java reads it; each field's type change follows `evolve`'s rules. A NULL ROW
    stays NULL. DuckDB's ``CAST`` between structs matches fields by name instead.

    >>> from paimon_sql.types import parse_type
    >>> old = parse_type({"type": "ROW", "fields": [{"id": 2, "name": "a", "type": "INT"},
    ...                                             {"id": 3, "name": "b", "type": "STRING"}]})
    >>> new = parse_type({"type": "ROW", "fields": [{"id": 2, "name": "aa", "type": "BIGINT"},
    ...                                             {"id": 5, "name": "b", "type": "STRING"}]})
    >>> print(_evolve_nested(col("r"), old, new).sql("duckdb"))  # doctest: +NORMALIZE_WHITESPACE
    CASE WHEN "r" IS NULL THEN CAST(NULL AS STRUCT("aa" BIGINT, "b" TEXT)) ELSE {'aa':
    CAST(STRUCT_EXTRACT("r", 'a') AS BIGINT), 'b': CAST(NULL AS TEXT)} END
    """
    if old.root == new.root == "ROW":
        by_id = {f.id: f for f in old.fields}
        pairs = []
        for f in new.fields:
            was = by_id.get(f.id)
            value = (
                cast(exp.null(), f.type)
                if was is None
                else evolve(_field_of(node, was.name), was.type, f.type)
            )
            pairs.append(exp.PropertyEQ(this=exp.to_identifier(f.name), expression=value))
        null = exp.If(
            this=exp.Is(this=node.copy(), expression=exp.null()), true=cast(exp.null(), new)
        )
        return exp.Case(ifs=[null], default=exp.Struct(expressions=pairs))
    if not (holds(old, "ROW") and holds(new, "ROW")):
        return None
    # a lambda variable of its own inside another's (an ARRAY of ARRAY of ROW)
    depth = sum(1 for c in node.find_all(exp.Column) if c.name.startswith(_ELEMENT))
    var = f"{_ELEMENT}{depth}"
    element = exp.column(exp.to_identifier(var))
    if old.root == new.root == "ARRAY" and old.element and new.element:
        body = evolve(element, old.element, new.element)
        lam = exp.Lambda(this=body, expressions=[exp.to_identifier(var)])
        return exp.Anonymous(this="list_transform", expressions=[node, lam])
    if old.root == new.root == "MAP" and old.key and new.key and old.value and new.value:
        entry = exp.Struct(
            expressions=[
                exp.PropertyEQ(
                    this=exp.to_identifier(part),
                    expression=evolve(_field_of(element, part), getattr(old, part), t),
                )
                for part, t in (("key", new.key), ("value", new.value))
            ]
        )
        lam = exp.Lambda(this=entry, expressions=[exp.to_identifier(var)])
        entries = exp.Anonymous(this="map_entries", expressions=[node])
        listed = exp.Anonymous(this="list_transform", expressions=[entries, lam])
        return exp.Anonymous(this="map_from_entries", expressions=[listed])
    return None


#: The prefix of the lambda variables `_evolve_nested` names.
_ELEMENT = "__paimon_e"


def _field_of(node: exp.Expression, name: str) -> exp.Expression:
    """The struct field `name` of `node` (``struct_extract``; the name is a string constant)."""
    return exp.Anonymous(this="struct_extract", expressions=[node.copy(), exp.Literal.string(name)])


def _to_text(node: exp.Expression, old: DataType, new: DataType) -> exp.Expression | None:
    """`evolve` to a string or bytes; None where another rule (or a plain cast) applies."""
    if new.root in STRING_ROOTS and old.root in (*STRING_ROOTS, *NUMERIC_ROOTS, "BOOLEAN"):
        # Java fits these (and only these) to the length: ``toCharacterString``
        text = _java_float_of(node) if old.root in FLOAT_ROOTS else node
        if old.root not in STRING_ROOTS:
            text = cast(text, DataType(root="VARCHAR"))
        return _fit_string(text, old, new)
    if new.root in BINARY_ROOTS and old.root in (*STRING_ROOTS, *BINARY_ROOTS):
        data = (
            exp.Anonymous(this="encode", expressions=[node]) if old.root in STRING_ROOTS else node
        )
        return _fit_binary(data, old, new)
    return None


def _from_timestamp(node: exp.Expression, old: DataType, new: DataType) -> exp.Expression | None:
    """`evolve` of a timestamp, or to one from an integer; None where another rule applies."""
    if old.root in TIMESTAMP_ROOTS and new.root in TIMESTAMP_ROOTS:
        if _precision(new) < _precision(old):
            node = _truncated(node, old, new)
        return cast(node, new)
    if old.root in INTEGER_ROOTS and new.root in TIMESTAMP_ROOTS:
        seconds = cast(node, DataType(root="BIGINT"))
        if new.root == "TIMESTAMP_LTZ":
            return cast(exp.Anonymous(this="to_timestamp", expressions=[seconds]), new)
        micros = exp.Mul(this=seconds, expression=exp.Literal.number(1_000_000))
        return cast(exp.Anonymous(this="make_timestamp", expressions=[micros]), new)
    if old.root in TIMESTAMP_ROOTS and new.root in ("INT", "BIGINT"):
        seconds = exp.IntDiv(
            this=exp.paren(_epoch_millis(node)), expression=exp.Literal.number(1000)
        )
        return cast(_narrowed(seconds, new.root), new)
    if old.root == "TIMESTAMP" and new.root in STRING_ROOTS:
        return cast(_timestamp_text(node, _precision(old)), new)
    if old.root in TIMESTAMP_ROOTS and new.root == "DATE":
        days = exp.IntDiv(
            this=exp.paren(_epoch_millis(node)), expression=exp.Literal.number(86400000)
        )
        epoch = exp.cast(exp.Literal.string("1970-01-01"), "DATE")
        return exp.Add(this=epoch, expression=cast(days, DataType(root="INT")))
    return None


def _to_number(node: exp.Expression, old: DataType, new: DataType) -> exp.Expression | None:
    """`evolve` of a number to a number or BOOLEAN; None where a plain cast does."""
    if old.root not in NUMERIC_ROOTS:
        return None
    if new.root == "DECIMAL":
        return _to_decimal(node, old, new)
    if new.root == "BOOLEAN":
        whole = cast(exp.Anonymous(this="TRUNC", expressions=[node]), DataType(root="BIGINT"))
        return exp.NEQ(this=whole, expression=exp.Literal.number(0))
    if new.root == "FLOAT" and old.root in ("DOUBLE", "DECIMAL"):  # Java: (float) of a double
        return _to_float(node if old.root == "DOUBLE" else exp.cast(node, "DOUBLE"))
    if new.root not in INTEGER_ROOTS:
        return None
    if old.root in INTEGER_ROOTS and INTEGER_RANK[new.root] < INTEGER_RANK[old.root]:
        node = _narrowed(node, new.root)
    elif old.root in FLOAT_ROOTS:
        node = _saturated(node, new.root)
    elif old.root == "DECIMAL":  # to a long, then narrowed
        node = _narrowed(exp.Anonymous(this="TRUNC", expressions=[node]), new.root)
    return cast(node, new)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadRequest:
    """What the engine asked for: output columns (read-schema names, in order), accepted filters."""

    columns: tuple[str, ...]
    filters: tuple[Predicate, ...] = ()
    #: Primary-key tables: also output each merged row's ``_SEQUENCE_NUMBER`` and ``_VALUE_KIND``
    #: (compaction).
    system_columns: bool = False
    #: Order the rows by the trimmed primary key (compaction writes sorted files).
    key_order: bool = False
    #: Keep a key whose merged record is a retraction (``-U``/``-D``), as Java's ``forceKeepDelete``
    #: does for the audit log; with `system_columns` its ``_VALUE_KIND`` says which.
    keep_retractions: bool = False
    #: The reader will likely stop after a few rows (``LIMIT``): run each split as several queries
    #: so the first rows come before any join is built (`split_queries`), at some cost to a full
    #: read.
    first_rows: bool = False
    #: Row-tracking tables: also output ``_ROW_ID`` and ``_SEQUENCE_NUMBER`` after `columns`, as
    #: Java 1.3's ``t$row_tracking`` does (the engine's reader stitches them, see
    #: ``paimon_sql.engine.reader``).
    row_tracking: bool = False
    #: Only the rows whose key (the trimmed primary key) is a row of this table: a semi-join placed
    #: in every file's read, below the merge (lookup compaction reads the keys a write touched).
    #: The columns are the key columns, typed as the table reads them; the reader registers it.
    keys: pa.Table | None = field(default=None, compare=False)
    #: Some files' rows, read already (per data file name): a file named here is read as this
    #: table in place of the whole file -- its columns as `physical_columns` names them, plus
    #: each row's position in the file as `POS` (what its deletion vector counts). Lookup
    #: compaction passes the rows of a kept file that hold the keys it merges; the file keeps its
    #: place in the merge (level, sequence numbers, schema).
    file_rows: Mapping[str, pa.Table] | None = field(default=None, compare=False)


#: The anti-join chain scans a file once per later file (quadratic); above this many files the
#: window merge is far faster (a compaction of 50 overlapping files: 25 s against 1 s).
ANTI_JOIN_MAX_FILES = 4


class _SplitQuery:
    #: Whether disjoint sequence ranges may be merged by anti-joins (tests compare both strategies).
    anti_join = True

    def __init__(
        self,
        plan: ScanPlan,
        split: Split,
        request: ReadRequest,
        sources: Mapping[str, FileSource],
        dv_tables: Mapping[str, str],
        key_set: str | None = None,
    ) -> None:
        self.plan, self.split, self.request = plan, split, request
        self.sources, self.dv_tables = sources, dv_tables
        self.key_set = key_set
        schema: TableSchema = plan.schema
        self.types = {f.name: f.type for f in schema.fields}
        self.partition = dict(zip(schema.partition_keys, split.partition, strict=False))
        self.keys = schema.trimmed_primary_keys
        self.options = plan.options
        self.seq_fields = self.options.sequence_fields
        self.pk = bool(schema.primary_keys)
        self.merge_engine = self.options.merge_engine if self.pk else None
        if self.pk:
            check_columns(self.options, self.types, plan.table.name)
        lower = set(self.keys) | set(self.partition)
        self.pre: list[Predicate] = []
        self.post: list[Predicate] = []
        for p in (c for f in request.filters for c in conjuncts(f)):
            below = plan.mode is not ReadMode.MERGE or p.columns() <= lower
            (self.pre if below else self.post).append(p)

    def needed(self) -> list[str]:
        """Non-partition read columns needed from files: output, filters, keys, sequence fields."""
        want = list(self.request.columns)
        for p in self.pre + self.post:
            want.extend(sorted(p.columns()))
        if self.pk:
            want.extend(self.keys)
            want.extend(self.seq_fields)
        seen: dict[str, None] = {}
        for n in want:
            if n not in self.partition:
                seen.setdefault(n, None)
        return list(seen)

    def file_select(self, f: DataFileMeta, names: list[str], with_meta: bool) -> exp.Select:
        source = self.sources[f.file_name]
        cols = _value_columns(self.plan, f, names, source)
        if with_meta:
            cols += [col(SEQ), col(KIND)]
        q = (
            exp.select(*cols).from_(source.relation.copy())
            if cols
            else exp.select(exp.Literal.number(1)).from_(source.relation.copy())
        )
        dv = self.dv_tables.get(f.file_name)
        if dv is not None:
            q = q.where(
                exp.not_(
                    exp.In(
                        this=col(POS),
                        query=exp.select(col("pos")).from_(exp.Table(this=ident(dv))).subquery(),
                    )
                )
            )
        # Filters below the merge read file columns under their read names, so wrap the mapping.
        return q

    def _filtered(self, q: exp.Select, preds: list[Predicate]) -> exp.Select:
        if not preds:
            return q
        cond = exp.and_(*(predicate_sql(p, self.types) for p in preds))
        return (
            exp.select(exp.Star()).from_(q.subquery(copy=False), copy=False).where(cond, copy=False)
        )

    def _only_keys(self, q: exp.Select) -> exp.Select:
        """`q`'s rows whose key is in the request's key set (a semi-join), or `q` without one."""
        if self.key_set is None:
            return q
        return (
            exp.select(exp.Star())
            .from_(q.subquery("f", copy=False), copy=False)
            .join(
                exp.Table(this=ident(self.key_set)),
                using=[ident(k) for k in self.keys],
                join_type="semi",
                copy=False,
            )
        )

    def _partition_columns(self) -> dict[str, exp.Expression]:
        return {
            name: exp.alias_(
                literal(value, self.types[name])
                if value is not None
                else cast(exp.null(), self.types[name]),
                name,
                quoted=True,
            )
            for name, value in self.partition.items()
        }

    def _with_partition(self, q: exp.Select, names: list[str]) -> exp.Select:
        """Add partition constants so filters and output can use them."""
        if not self.partition:
            return q
        extra = [e for n, e in self._partition_columns().items()]
        return exp.select(*[col(n) for n in names], *extra).from_(
            q.subquery(copy=False), copy=False
        )

    def section_query(
        self, files: Sequence[DataFileMeta], merge: bool, names: list[str]
    ) -> exp.Select:
        """The section's rows as one query."""
        return union_all(list(self.section_queries(files, merge, names)))

    def section_queries(
        self, files: Sequence[DataFileMeta], merge: bool, names: list[str]
    ) -> Iterable[exp.Select]:
        """The section's rows as queries whose results concatenate to it.

        Several only for an anti-join chain, one per file, built as they are asked for.
        """
        kind_filter = row_kind_in(col(KIND), ADD_KINDS)
        meta = self.pk
        leveled = merge and self._lookup_levels(files)
        parts = []
        for f in files:
            q = self._with_partition(
                self.file_select(f, names, meta), names + ([SEQ, KIND] if meta else [])
            )
            q = self._filtered(q, self.pre)
            if leveled:
                level = exp.alias_(exp.Literal.number(f.level), LEVEL, quoted=True)
                q = exp.select(exp.Star(), level).from_(q.subquery(copy=False), copy=False)
            parts.append(self._only_keys(q))
        out_names = names + list(self.partition)
        if not self.pk:
            return [union_all(parts)]
        if self.request.system_columns:
            out_names += [SEQ, KIND]
        keep = self.request.keep_retractions
        if not merge:
            plain = exp.select(*[col(n) for n in out_names]).from_(
                union_all(parts).subquery(copy=False), copy=False
            )
            return [plain if keep else plain.where(kind_filter, copy=False)]
        if leveled:
            return [self.merged(self._lowest_level(union_all(parts)), out_names, kind_filter)]
        chain = None if keep else self.anti_join_pieces(files, parts, out_names, kind_filter)
        if chain is not None:
            return chain
        return [self.merged(union_all(parts), out_names, kind_filter)]

    def _lookup_levels(self, files: Sequence[DataFileMeta]) -> bool:
        """Whether a merge of `files` keeps only each key's lowest level >= 1 (and level 0).

        Java wraps the merge function of a table that needs lookup (``changelog-producer`` =
        lookup, deletion vectors; not first-row) in ``LookupMergeFunction``: a key merges its
        level-0 records with the record of its lowest level >= 1 only, because every lookup
        compaction already merged the older levels into that record. Matters only where two
        levels >= 1 meet.
        """
        if not self.pk or self.merge_engine is MergeEngine.FIRST_ROW:
            return False
        options = self.options
        lookup = options.changelog_producer is ChangelogProducer.LOOKUP or options.deletion_vectors
        return lookup and len({f.level for f in files if f.level > 0}) > 1

    def _lowest_level(self, body: exp.Select) -> exp.Select:
        """`body`'s rows of level 0 and of each key's lowest level >= 1 (`LEVEL` dropped)."""
        level = col(LEVEL)
        lowest = exp.Window(
            this=exp.Min(
                this=exp.Case(
                    ifs=[
                        exp.If(
                            this=exp.GT(this=level.copy(), expression=exp.Literal.number(0)),
                            true=level.copy(),
                        )
                    ]
                )
            ),
            partition_by=[col(k) for k in self.keys],
        )
        keep = exp.or_(
            exp.EQ(this=level.copy(), expression=exp.Literal.number(0)),
            exp.EQ(this=level.copy(), expression=lowest),
        )
        return (
            exp.select(exp.Star(except_=[col(LEVEL)]))
            .from_(body.subquery(copy=False), copy=False)
            .qualify(keep, copy=False)
        )

    def anti_join_pieces(
        self,
        files: Sequence[DataFileMeta],
        parts: list[exp.Select],
        names: list[str],
        kind_filter: exp.Expression,
    ) -> Iterator[exp.Select] | None:
        """Merge without a window when the files' sequence ranges do not overlap.

        None when they do.

        Keys are unique within a file, so with disjoint ranges the winner of a key is simply its row
        in the winning file: newest first for deduplicate, oldest first for first-row. Each file
        keeps the rows whose key no winning file holds (an anti-join), which is cheaper than ranking
        every row.
        """
        engine = self.merge_engine
        if not self.anti_join or self.seq_fields or len(files) > ANTI_JOIN_MAX_FILES:
            return None
        if self._pins_keys():
            # A point lookup leaves few rows: ranking them reads each file once, the chain reads
            # winners twice.
            return None
        if engine not in (MergeEngine.DEDUPLICATE, MergeEngine.FIRST_ROW):
            return None
        order = sorted(range(len(files)), key=lambda i: files[i].max_sequence_number)
        for a, b in itertools.pairwise(order):
            if files[b].min_sequence_number <= files[a].max_sequence_number:
                return None
        first_row = engine is MergeEngine.FIRST_ROW
        winners_first = order if first_row else order[::-1]
        return self._chain(
            parts, names, kind_filter, winners_first, first_row or self.options.ignore_delete
        )

    def _chain(
        self,
        parts: list[exp.Select],
        names: list[str],
        kind_filter: exp.Expression,
        winners_first: list[int],
        adds_only: bool,
    ) -> Iterator[exp.Select]:
        """The anti-join chain's pieces, one at a time (an early-stopping stream builds one)."""
        for position, i in enumerate(winners_first):
            rel = exp.select(exp.Star()).from_(parts[i].subquery("f"))
            if adds_only:
                rel = rel.where(kind_filter.copy(), copy=False)
            earlier = [parts[j] for j in winners_first[:position]]
            if earlier:
                keys = [
                    exp.select(*[col(k) for k in self.keys]).from_(e.subquery()) for e in earlier
                ]
                if adds_only:
                    keys = [k.where(kind_filter.copy(), copy=False) for k in keys]
                union = union_all(keys)
                on = exp.and_(
                    *(
                        exp.NullSafeEQ(
                            this=exp.column(k, table="f", quoted=True),
                            expression=exp.column(k, table="n", quoted=True),
                        )
                        for k in self.keys
                    )
                )
                rel = rel.join(union.subquery("n", copy=False), on=on, join_type="anti", copy=False)
            # Each piece is final on its own (disjoint keys): the first one (the winning file, no
            # join) can answer a LIMIT before any join is built.
            piece = exp.select(*[col(n) for n in names]).from_(rel.subquery(copy=False), copy=False)
            yield piece.where(kind_filter.copy(), copy=False)

    def _pins_keys(self) -> bool:
        """Whether the filters below the merge fix every key column to a value or list of values."""
        pinned = {
            p.path[0]
            for p in self.pre
            if ((isinstance(p, Compare) and p.op == "=") or isinstance(p, InList))
            and len(p.path) == 1
        }
        return bool(self.keys) and set(self.keys) <= pinned

    def merged(self, body: exp.Select, names: list[str], kind_filter: exp.Expression) -> exp.Select:
        engine = self.merge_engine
        if engine in (MergeEngine.PARTIAL_UPDATE, MergeEngine.AGGREGATE):
            grouped = GroupedMerge(
                self.options, self.keys, self._partition_columns(), self.plan.table.name, self.types
            )
            return grouped.build(
                body,
                names,
                self.seq_fields,
                self.options.sequence_descending,
                self.request.keep_retractions,
            )
        retract = exp.not_(kind_filter.copy())
        inner = body
        first_row = engine is MergeEngine.FIRST_ROW
        if first_row or self.options.ignore_delete:
            inner = (
                exp.select(exp.Star())
                .from_(body.subquery(copy=False), copy=False)
                .where(kind_filter.copy(), copy=False)
            )
        order: list[exp.Expression] = []
        if not first_row:
            for s in self.seq_fields:
                order.append(
                    exp.Ordered(
                        this=col(s), desc=not self.options.sequence_descending, nulls_first=False
                    )
                )
            order.append(exp.Ordered(this=col(SEQ), desc=True))
            order.append(exp.Ordered(this=retract, desc=False))
        else:
            order.append(exp.Ordered(this=col(SEQ), desc=False))
        window = exp.Window(
            this=exp.RowNumber(),
            partition_by=[col(k) for k in self.keys]
            + [col(p) for p in self.partition if p in self.keys],
            order=exp.Order(expressions=order),
        )
        ranked = (
            exp.select(exp.Star())
            .from_(inner.subquery(copy=False), copy=False)
            .qualify(exp.EQ(this=window, expression=exp.Literal.number(1)), copy=False)
        )
        winners = exp.select(*[col(n) for n in names]).from_(
            ranked.subquery(copy=False), copy=False
        )
        return (
            winners
            if self.request.keep_retractions
            else winners.where(kind_filter.copy(), copy=False)
        )

    def _final(self, body: exp.Select) -> exp.Select:
        outputs = [
            exp.alias_(cast(col(n), self.types[n]), n, quoted=True) for n in self.request.columns
        ] or [exp.Literal.number(1)]
        if self.pk and self.request.system_columns:
            outputs += [
                exp.alias_(exp.cast(col(SEQ), "BIGINT"), SEQ, quoted=True),
                exp.alias_(exp.cast(col(KIND), "TINYINT"), KIND, quoted=True),
            ]
        final = exp.select(*outputs).from_(body.subquery(copy=False), copy=False)
        if self.post:
            final = final.where(
                exp.and_(*(predicate_sql(p, self.types) for p in self.post)), copy=False
            )
        return final

    def build(self) -> exp.Select:
        names = self.needed()
        body = union_all([self.section_query(s.files, s.merge, names) for s in self.split.sections])
        final = self._final(body)
        if self.pk and self.request.key_order:
            final = final.order_by(*[col(k) for k in self.keys], copy=False)
        return final

    def queries(self) -> Iterator[exp.Select]:
        """The split as queries run one after the other, whose results concatenate to `build`'s.

        One per section, and one per file of an anti-join chain. A stream that stops early
        (``LIMIT``) then reads the first section's winning file without building any join.
        """
        if self.pk and self.request.key_order:
            yield self.build()
            return
        names = self.needed()
        for s in self.split.sections:
            for q in self.section_queries(s.files, s.merge, names):
                yield self._final(q)


def split_query(
    plan: ScanPlan,
    split: Split,
    request: ReadRequest,
    sources: Mapping[str, FileSource],
    dv_tables: Mapping[str, str],
    key_set: str | None = None,
) -> exp.Select:
    """The SQL reading one split: sections merged as needed, DVs applied, filters placed safely.

    `key_set` names the registered table of `request.keys` (the rows of those keys only).
    """
    return _SplitQuery(plan, split, request, sources, dv_tables, key_set).build()


def split_queries(
    plan: ScanPlan,
    split: Split,
    request: ReadRequest,
    sources: Mapping[str, FileSource],
    dv_tables: Mapping[str, str],
    key_set: str | None = None,
) -> Iterator[exp.Select]:
    """`split_query` as several queries to run in order (see `_SplitQuery.queries`), for streams."""
    return _SplitQuery(plan, split, request, sources, dv_tables, key_set).queries()


def physical_columns(plan: ScanPlan, f: DataFileMeta, request: ReadRequest) -> list[str]:
    """Physical columns of file `f` the query reads (for readers that decode files themselves)."""
    empty = Split(partition=(), partition_bytes=b"", bucket=0, bucket_path="", sections=())
    q = _SplitQuery(plan, empty, request, {}, {})
    by_id = _file_fields(plan, f)
    wanted = []
    for name in q.needed():
        target = plan.schema.field(name)
        old = by_id.get(target.id)
        if old is not None:
            wanted.append(old.name)
    if plan.schema.primary_keys:
        wanted += [SEQ, KIND]
    return wanted


def prunable_filters(
    plan: ScanPlan, f: DataFileMeta, request: ReadRequest
) -> tuple[list[Predicate], dict[str, DataField]]:
    """The filters that may drop rows of file `f` before any merge, and the columns they can use.

    The filters are those the split query places below the merge (all of them outside MERGE mode;
    key and partition filters in it), so a reader may skip parts of a file (Parquet row groups)
    whose statistics say no row matches. The columns map read-schema names to the file's fields,
    for those stored with the same type (a widened column's old statistics are not compared).
    """
    empty = Split(partition=(), partition_bytes=b"", bucket=0, bucket_path="", sections=())
    q = _SplitQuery(plan, empty, request, {}, {})
    by_id = _file_fields(plan, f)
    usable: dict[str, DataField] = {}
    for name in {c for p in q.pre for c in p.columns()}:
        if name not in plan.schema.field_names:
            continue
        target = plan.schema.field(name)
        old = by_id.get(target.id)
        if old is not None and old.type == target.type:
            usable[name] = old
    return q.pre, usable


def sql_text(query: exp.Expression) -> str:
    """The DuckDB text of a built query, which it may change: generate it once, then drop it.

    Not copied first: a merge query has hundreds of nodes, and copying them cost about as much
    as generating the text.
    """
    return query.sql(dialect="duckdb", copy=False)


__all__ = [
    "FileSource",
    "ReadRequest",
    "literal",
    "parquet_source",
    "physical_columns",
    "predicate_sql",
    "prunable_filters",
    "split_queries",
    "split_query",
    "sql_text",
    "sqlglot",
    "table_source",
]


KEEP = "__paimon_keep"
#: The column of `Deletions.vectors`' table: one deletion bitmap per file of a scan.
DV_BITS = "__paimon_dv"
FILE_INDEX = "file_index"
#: DuckDB's virtual columns of a multi-file scan; a table with a column of one of these names cannot
#: use them.
VIRTUAL = frozenset({FILE_INDEX, POS})


class Deletions(Protocol):
    """The engine's side of `plan_query` (which builds SQL): what the query refers to by name.

    The deleted rows of files that need no merge, registered as tables, and the file lists of
    multi-file scans, as literals or statement parameters.
    """

    def vectors(self, files: Sequence[DataFileMeta]) -> exp.Select | None:
        """A one-row query of the deletion vectors of `files`, as bitmaps.

        Its one column, ``__paimon_dv`` (``BIT[]``), holds per file of `files`, in order, the
        bitmap of its deleted rows: bit ``i`` (most significant first) is set when row ``i`` is
        deleted, ``ceil(row_count / 8)`` bytes. None when no file of `files` has a vector.
        """

    def mask(self, f: DataFileMeta) -> str | None:
        """A registered one-column keep-flag table in `f`'s row order.

        Or None without a deletion vector.
        """

    def file_list(self, paths: Sequence[str]) -> exp.Expression:
        """The list of `paths` a multi-file scan reads.

        A ``VARCHAR[]`` literal, or a parameter of the statement the engine binds to the list
        (DuckDB parses a thousand path literals in about 5 ms, a parameter in well under 1).
        """


def _plain_scan(
    plan: ScanPlan,
    q: _SplitQuery,
    files: Sequence[DataFileMeta],
    paths: Mapping[str, str],
    deletions: Deletions,
    *,
    vectors: exp.Select | None = None,
    mask: str | None = None,
) -> exp.Select:
    """Files of one column layout read by one ``read_parquet`` (DuckDB parallelises across files).

    The files may come from any partitions and buckets: a data file holds the partition columns
    too (Java writes whole rows), so they are read from the files like any column.

    `vectors` is `Deletions.vectors`' one-row query of the files' deletion bitmaps: a row is
    kept where ``get_bit(<its file's bitmap>, file_row_number)`` is 0, on DuckDB's virtual columns
    of the scan (``file_index`` picks the bitmap). A filter, not a join: the statement's own
    filters still reach the scan, and it costs about a tenth of the plain read where an anti-join
    on ``(file_index, file_row_number)`` cost half. `mask`, for a single file, is a keep-flag per
    row POSITIONAL-joined with it (used when the table has a column named like a virtual column).
    """
    names = q.needed()
    file_list = deletions.file_list([paths[f.file_name] for f in files])
    relation = exp.Anonymous(this="read_parquet", expressions=[file_list, no_hive()])
    columns = [*plan.table.schema(files[0].schema_id).field_names, SEQ, KIND]
    source = FileSource(relation=relation, columns=frozenset(columns))
    cols = _value_columns(plan, files[0], names, source)
    # copy=False throughout: the file list may hold thousands of paths, built once here
    select = exp.select(*cols).from_(exp.Table(this=relation), copy=False)
    conditions: list[exp.Expression] = []
    if vectors is not None:
        select = select.join(vectors.subquery(copy=False), join_type="CROSS", copy=False)
        conditions.append(_kept_row(col(DV_BITS)))
    if mask is not None:
        select.append("joins", exp.Join(this=exp.Table(this=ident(mask)), method="POSITIONAL"))
        conditions.append(col(KEEP))
    if plan.schema.primary_keys and any(f.delete_row_count != 0 for f in files):
        conditions.append(row_kind_in(col(KIND), ADD_KINDS))
    if conditions:
        select = select.where(exp.and_(*conditions), copy=False)
    return exp.select(
        *[exp.alias_(cast(col(n), q.types[n]), n, quoted=True) for n in q.request.columns]
    ).from_(select.subquery(copy=False), copy=False)


def _kept_row(bitmaps: exp.Expression) -> exp.Expression:
    """Whether the scan's row is kept: its bit in its file's bitmap (1-based list) is not set.

    >>> sql = _kept_row(col("b")).sql("duckdb")
    >>> sql.removeprefix('GET_BIT(LIST_EXTRACT("b", CAST("file_index" + 1 AS BIGINT)), ')
    'CAST("file_row_number" AS INT)) = 0'
    """
    index = exp.cast(exp.Add(this=col(FILE_INDEX), expression=exp.Literal.number(1)), "BIGINT")
    bitmap = exp.Anonymous(this="list_extract", expressions=[bitmaps, index])
    position = exp.cast(col(POS), "INT")
    bit = exp.Anonymous(this="get_bit", expressions=[bitmap, position])
    return exp.EQ(this=bit, expression=exp.Literal.number(0))


def _layout(plan: ScanPlan, f: DataFileMeta) -> tuple[tuple[int, str, DataType], ...]:
    """The columns of file `f` as its schema declares them: files with equal layouts read alike.

    Schemas that differ only in options or comments (each ``ALTER TABLE ... SET`` writes one) give
    equal layouts; a renamed, added, dropped or retyped column gives another.
    """
    return tuple((fld.id, fld.name, fld.type) for fld in plan.table.schema(f.schema_id).fields)


#: The split `_plain_group` reads with: no partition constants (the files hold the partition
#: columns), so one scan serves every partition.
_ANY_PARTITION = Split(partition=(), partition_bytes=b"", bucket=0, bucket_path="", sections=())


def _plain_group(
    plan: ScanPlan,
    files: Sequence[DataFileMeta],
    request: ReadRequest,
    paths: Mapping[str, str],
    deletions: Deletions,
) -> list[exp.Select]:
    """Files that need no merge and share one column layout (`_layout`), of any partitions.

    One scan, anti-joined with their deleted rows.

    A table with a column named ``file_index`` or ``file_row_number`` hides DuckDB's virtual
    columns, so there the files without deletion vectors share one scan and each file with one is
    positional-joined with its keep-flags.
    """
    q = _SplitQuery(plan, _ANY_PARTITION, request, {}, {})
    if not VIRTUAL & set(plan.table.schema(files[0].schema_id).field_names):
        # files without a vector need no row positions: they get a scan of their own
        with_dv = {name for split in plan.splits for name, _ in split.deletion_vectors}
        marked = [f for f in files if f.file_name in with_dv]
        vectors = deletions.vectors(marked) if marked else None
        if vectors is None:
            return [_plain_scan(plan, q, files, paths, deletions)]
        out = [_plain_scan(plan, q, marked, paths, deletions, vectors=vectors)]
        unmarked = [f for f in files if f.file_name not in with_dv]
        return [_plain_scan(plan, q, unmarked, paths, deletions), *out] if unmarked else out
    masks = {f.file_name: deletions.mask(f) for f in files}
    plain = [f for f in files if masks[f.file_name] is None]
    out = [_plain_scan(plan, q, plain, paths, deletions)] if plain else []
    out += [
        _plain_scan(plan, q, [f], paths, deletions, mask=masks[f.file_name])
        for f in files
        if masks[f.file_name]
    ]
    return out


def plan_query(
    plan: ScanPlan,
    sources: Mapping[str, FileSource],
    dv_tables: Mapping[str, str],
    paths: Mapping[str, str],
    deletions: Deletions,
    columns: Sequence[str] | None = None,
    filters: Sequence[Predicate] = (),
) -> exp.Select:
    """The whole scan as one query, for an engine that runs it directly.

    Files that need no merge (append tables, deletion-vector tables, non-overlapping PK files) are
    read by one multi-file scan per column layout (`_layout`), across partitions and buckets,
    their deleted rows anti-joined on the scan's ``(file_index, file_row_number)``; overlapping
    sections are merged per section as in `split_query` (their files read through
    `sources`/`dv_tables`). The engine applies the statement's own filters: DuckDB pushes them
    through the union into each file scan, through ``row_number()`` for key columns, and prunes
    unused columns.
    """
    names = tuple(columns if columns is not None else plan.schema.field_names)
    request = ReadRequest(columns=names)
    # Merged sections also get the filters (below the merge where safe, see `_SplitQuery`); plain
    # scans leave them to the engine, which pushes them into the file scans itself.
    merge_request = replace(request, filters=tuple(filters))
    parts: list[exp.Select] = []
    groups: dict[tuple[tuple[int, str, DataType], ...], list[DataFileMeta]] = {}
    by_schema: dict[int, list[DataFileMeta]] = {}  # schema id -> its layout's group
    for split in plan.splits:
        merging = tuple(sec for sec in split.sections if sec.merge)
        if merging:
            parts.append(
                split_query(
                    plan, replace(split, sections=merging), merge_request, sources, dv_tables
                )
            )
        for sec in split.sections:
            if not sec.merge:
                for f in sec.files:
                    group = by_schema.get(f.schema_id)
                    if group is None:
                        group = by_schema[f.schema_id] = groups.setdefault(_layout(plan, f), [])
                    group.append(f)
    for files in groups.values():
        parts.extend(_plain_group(plan, files, request, paths, deletions))
    if not parts:
        types = {f.name: f.type for f in plan.schema.fields}
        empty = exp.select(*[exp.alias_(cast(exp.null(), types[n]), n, quoted=True) for n in names])
        return empty.where(exp.false())
    return union_all(parts)
