"""Paimon's data types: the model, their JSON form (schema files), the mappings.

The ONE mapping to and from Arrow and DuckDB (`arrow_type`, `duckdb_type`, `duckdb_type_node`,
`from_duckdb_type`); the sets of type roots (`INTEGER_ROOTS` …) and the `RowKind` of a change row.

Atomic types are JSON strings such as ``"INT NOT NULL"`` or ``"DECIMAL(10, 2)"``; ARRAY, MULTISET,
MAP and ROW are JSON objects (paimon-format.md §2).

>>> t = parse_type("DECIMAL(10, 2) NOT NULL")
>>> t.root, t.precision, t.scale, t.nullable
('DECIMAL', 10, 2, False)
>>> type_to_json(t)
'DECIMAL(10, 2) NOT NULL'
>>> duckdb_type(parse_type({"type": "ARRAY", "element": "STRING"}))
'VARCHAR[]'
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import pyarrow as pa
from sqlglot import exp

from paimon_sql.errors import SchemaError, SpecViolationError, UnsupportedFeatureError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

MAX_LENGTH = 2147483647

#: Roots whose value is one fixed-width number (BinaryRow slot, comparable as Python numbers).
INTEGER_ROOTS = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT"})
#: The integer roots by width (a narrower one widens into a wider one without loss).
INTEGER_RANK = {"TINYINT": 1, "SMALLINT": 2, "INT": 3, "BIGINT": 4}
#: Decimal digits an integer root needs (DECIMAL(p, s) holds it when p - s >= this).
INTEGER_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}
FLOAT_ROOTS = frozenset({"FLOAT", "DOUBLE"})
NUMERIC_ROOTS = INTEGER_ROOTS | FLOAT_ROOTS | {"DECIMAL"}
STRING_ROOTS = frozenset({"CHAR", "VARCHAR"})
BINARY_ROOTS = frozenset({"BINARY", "VARBINARY"})
TIMESTAMP_ROOTS = frozenset({"TIMESTAMP", "TIMESTAMP_LTZ"})
NESTED_ROOTS = frozenset({"ARRAY", "MULTISET", "MAP", "ROW"})


class RowKind(enum.IntEnum):
    """The kind of a change row: the ``_VALUE_KIND`` byte of a data file (paimon-format.md §5).

    >>> RowKind.DELETE, RowKind.DELETE.short, RowKind.from_short("+U")
    (<RowKind.DELETE: 3>, '-D', <RowKind.UPDATE_AFTER: 2>)
    >>> [k.short for k in RowKind if k.is_add]
    ['+I', '+U']
    """

    INSERT = 0
    UPDATE_BEFORE = 1
    UPDATE_AFTER = 2
    DELETE = 3

    @property
    def short(self) -> str:
        """Java's short string: ``+I``, ``-U``, ``+U`` or ``-D``."""
        return _ROW_KIND_SHORT[self]

    @property
    def is_add(self) -> bool:
        """``+I`` or ``+U``: the row is in the table after this change."""
        return self in (RowKind.INSERT, RowKind.UPDATE_AFTER)

    @classmethod
    def from_short(cls, text: str) -> RowKind:
        """The kind of a short string (``+I`` …); `ValueError` for anything else."""
        for kind, short in _ROW_KIND_SHORT.items():
            if short == text:
                return kind
        raise ValueError(f"unknown row kind {text!r}: +I, -U, +U or -D expected")


_ROW_KIND_SHORT = {
    RowKind.INSERT: "+I",
    RowKind.UPDATE_BEFORE: "-U",
    RowKind.UPDATE_AFTER: "+U",
    RowKind.DELETE: "-D",
}

#: Kinds whose row stays in the table (``+I``, ``+U``) and kinds that retract one (``-U``, ``-D``).
ADD_KINDS = (RowKind.INSERT, RowKind.UPDATE_AFTER)
RETRACT_KINDS = (RowKind.UPDATE_BEFORE, RowKind.DELETE)


class FieldIds:
    """One counter for field ids: a column, then its nested ROW fields (paimon-format §2).

    >>> ids = FieldIds(3)
    >>> ids.take(), ids.take(), ids.next_id
    (3, 4, 5)
    """

    def __init__(self, start: int = 0) -> None:
        self.next_id = start

    def take(self) -> int:
        """The next id."""
        taken, self.next_id = self.next_id, self.next_id + 1
        return taken


def row_kind_in(column: exp.Expression, kinds: Iterable[RowKind]) -> exp.In:
    """``column IN (…)`` over the bytes of `kinds`, as a sqlglot node.

    >>> row_kind_in(exp.column("_VALUE_KIND"), ADD_KINDS).sql()
    '_VALUE_KIND IN (0, 2)'
    """
    return exp.In(this=column, expressions=[exp.Literal.number(int(k)) for k in kinds])


@dataclass(frozen=True, slots=True, kw_only=True)
class DataField:
    """One column (or nested ROW field): a stable id, a name and a type."""

    id: int
    name: str
    type: DataType
    description: str | None = None
    default_value: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DataType:
    """A Paimon type.

    `root` is the type name (``INT``, ``VARCHAR``, ``TIMESTAMP_LTZ``, ``ROW``, ...).
    """

    root: str
    nullable: bool = True
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    element: DataType | None = None
    key: DataType | None = None
    value: DataType | None = None
    fields: tuple[DataField, ...] = field(default=())

    def with_nullable(self, nullable: bool) -> DataType:
        """The same type with another nullability."""
        return replace(self, nullable=nullable)

    @property
    def is_nested(self) -> bool:
        """ARRAY, MULTISET, MAP or ROW."""
        return self.root in NESTED_ROOTS


_ATOMIC = re.compile(
    r"^\s*(?P<name>[A-Z_ ]+?)\s*(\(\s*(?P<a>\d+)\s*(,\s*(?P<b>\d+)\s*)?\))?"
    r"(?P<ltz>\s+WITH\s+LOCAL\s+TIME\s+ZONE)?(?P<nn>\s+NOT\s+NULL)?\s*$",
    re.IGNORECASE,
)

_ALIASES = {
    "INTEGER": "INT",
    "STRING": "VARCHAR",
    "BYTES": "VARBINARY",
    "DEC": "DECIMAL",
    "NUMERIC": "DECIMAL",
    "DOUBLE PRECISION": "DOUBLE",
    "TIMESTAMP_LTZ": "TIMESTAMP_LTZ",
    "TIMESTAMP WITHOUT TIME ZONE": "TIMESTAMP",
}
_SIMPLE = frozenset(
    {
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "DATE",
        "VARIANT",
        "BLOB",
    }
)


def _atomic(text: str) -> DataType:
    match = _ATOMIC.match(text)
    if match is None:
        raise SpecViolationError(f"unknown Paimon type {text!r}")
    name = " ".join(match["name"].upper().split())
    name = _ALIASES.get(name, name)
    nullable = match["nn"] is None
    a = int(match["a"]) if match["a"] is not None else None
    b = int(match["b"]) if match["b"] is not None else None
    if text.upper().startswith("STRING"):
        return DataType(root="VARCHAR", length=MAX_LENGTH, nullable=nullable)
    if text.upper().startswith("BYTES"):
        return DataType(root="VARBINARY", length=MAX_LENGTH, nullable=nullable)
    if name in _SIMPLE:
        return DataType(root=name, nullable=nullable)
    if name in ("CHAR", "BINARY"):
        return DataType(root=name, length=1 if a is None else a, nullable=nullable)
    if name in ("VARCHAR", "VARBINARY"):
        return DataType(root=name, length=MAX_LENGTH if a is None else a, nullable=nullable)
    if name == "DECIMAL":
        precision, scale = 10 if a is None else a, b or 0
        if not 1 <= precision <= 38 or not 0 <= scale <= precision:
            raise SpecViolationError(
                f"Paimon type {text!r}: DECIMAL precision is 1..38, scale 0..precision"
            )
        return DataType(root="DECIMAL", precision=precision, scale=scale, nullable=nullable)
    if name == "TIME":
        return DataType(root="TIME", precision=_precision(text, a, 0), nullable=nullable)
    if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        root = "TIMESTAMP_LTZ" if (match["ltz"] or name == "TIMESTAMP_LTZ") else "TIMESTAMP"
        return DataType(root=root, precision=_precision(text, a, 6), nullable=nullable)
    raise SpecViolationError(f"unknown Paimon type {text!r}")


def _precision(text: str, value: int | None, default: int) -> int:
    if value is None:
        return default
    if not 0 <= value <= 9:
        raise SpecViolationError(f"Paimon type {text!r}: the precision is 0..9")
    return value


def parse_type(value: Any) -> DataType:
    """A `DataType` from its schema-file JSON (a string or an object)."""
    if isinstance(value, str):
        return _atomic(value)
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("type"), str)
        or not value["type"].strip()
    ):
        raise SpecViolationError(f"unknown Paimon type {value!r}")
    head = value["type"].upper().split()
    root, nullable = head[0], not value["type"].upper().endswith("NOT NULL")
    try:
        if root in ("ARRAY", "MULTISET"):
            return DataType(root=root, nullable=nullable, element=parse_type(value["element"]))
        if root == "MAP":
            return DataType(
                root="MAP",
                nullable=nullable,
                key=parse_type(value["key"]),
                value=parse_type(value["value"]),
            )
        if root == "ROW" and isinstance(value["fields"], list):
            fields = tuple(parse_field(f) for f in value["fields"])
            return DataType(root="ROW", nullable=nullable, fields=fields)
    except KeyError as err:
        raise SpecViolationError(f"Paimon type {root} lacks its {err.args[0]!r}") from err
    raise SpecViolationError(f"unsupported Paimon type {value!r}")


def parse_field(value: dict[str, Any]) -> DataField:
    """A `DataField` from its JSON object (paimon-format.md §2: an int id >= 0, a name, a type)."""
    if not isinstance(value, dict):
        raise SpecViolationError(f"a field must be a JSON object, not {value!r}")
    field_id, name = value.get("id"), value.get("name")
    if type(field_id) is not int or field_id < 0:
        raise SpecViolationError(f"field {name!r} has id {field_id!r}, not an integer >= 0")
    if type(name) is not str or not name:
        raise SpecViolationError(f"field {field_id} has the name {name!r}, not a non-empty string")
    if "type" not in value:
        raise SpecViolationError(f"field {name!r} has no type")
    description, default = value.get("description"), value.get("defaultValue")
    if not isinstance(description, (str, type(None))) or not isinstance(default, (str, type(None))):
        raise SpecViolationError(f"field {name!r}: description and defaultValue must be strings")
    return DataField(
        id=field_id,
        name=name,
        type=parse_type(value["type"]),
        description=description,
        default_value=default,
    )


def _atomic_sql(t: DataType) -> str:
    r = t.root
    if r == "VARCHAR":
        return "STRING" if t.length == MAX_LENGTH else f"VARCHAR({t.length})"
    if r == "VARBINARY":
        return "BYTES" if t.length == MAX_LENGTH else f"VARBINARY({t.length})"
    if r in ("CHAR", "BINARY"):
        return f"{r}({t.length})"
    if r == "DECIMAL":
        return f"DECIMAL({t.precision}, {t.scale})"
    if r in ("TIME", "TIMESTAMP"):
        return f"{r}({t.precision})"
    if r == "TIMESTAMP_LTZ":
        return f"TIMESTAMP({t.precision}) WITH LOCAL TIME ZONE"
    return r


def type_to_json(t: DataType) -> Any:
    """The schema-file JSON of a type (inverse of `parse_type`)."""
    suffix = "" if t.nullable else " NOT NULL"
    if t.root in ("ARRAY", "MULTISET"):
        assert t.element is not None
        return {"type": t.root + suffix, "element": type_to_json(t.element)}
    if t.root == "MAP":
        assert t.key is not None
        assert t.value is not None
        return {"type": "MAP" + suffix, "key": type_to_json(t.key), "value": type_to_json(t.value)}
    if t.root == "ROW":
        return {"type": "ROW" + suffix, "fields": [field_to_json(f) for f in t.fields]}
    return _atomic_sql(t) + suffix


def field_to_json(f: DataField) -> dict[str, Any]:
    """The schema-file JSON of a field."""
    out: dict[str, Any] = {"id": f.id, "name": f.name, "type": type_to_json(f.type)}
    if f.description is not None:
        out["description"] = f.description
    if f.default_value is not None:
        out["defaultValue"] = f.default_value
    return out


def _backquoted(name: str) -> str:
    return name.replace("`", "``")


def type_sql(t: DataType) -> str:
    """Paimon's SQL spelling of a type, e.g. ``ARRAY<INT>`` (for DESCRIBE and messages)."""
    suffix = "" if t.nullable else " NOT NULL"
    if t.root in ("ARRAY", "MULTISET"):
        assert t.element is not None
        return f"{t.root}<{type_sql(t.element)}>{suffix}"
    if t.root == "MAP":
        assert t.key is not None
        assert t.value is not None
        return f"MAP<{type_sql(t.key)}, {type_sql(t.value)}>{suffix}"
    if t.root == "ROW":
        inner = ", ".join(f"`{_backquoted(f.name)}` {type_sql(f.type)}" for f in t.fields)
        return f"ROW<{inner}>{suffix}"
    return _atomic_sql(t) + suffix


_DUCKDB_SIMPLE = {
    "BOOLEAN": "BOOLEAN",
    "TINYINT": "TINYINT",
    "SMALLINT": "SMALLINT",
    "INT": "INTEGER",
    "BIGINT": "BIGINT",
    "FLOAT": "FLOAT",
    "DOUBLE": "DOUBLE",
    "DATE": "DATE",
    "CHAR": "VARCHAR",
    "VARCHAR": "VARCHAR",
    "BINARY": "BLOB",
    "VARBINARY": "BLOB",
    "BLOB": "BLOB",
    "TIME": "TIME",
    "VARIANT": "VARIANT",
}


def _duckdb_quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def duckdb_type(t: DataType) -> str:
    """The DuckDB type a Paimon type reads as (a type name, safe to embed in a CAST).

    TIMESTAMP(p>6) keeps nanoseconds; WITH LOCAL TIME ZONE becomes TIMESTAMPTZ (TIMESTAMP_NS in UTC
    for p>6); MULTISET is a MAP to counts.
    """
    if t.root in _DUCKDB_SIMPLE:
        return _DUCKDB_SIMPLE[t.root]
    if t.root == "DECIMAL":
        return f"DECIMAL({t.precision},{t.scale})"
    if t.root == "TIMESTAMP":
        return "TIMESTAMP_NS" if (t.precision or 0) > 6 else "TIMESTAMP"
    if t.root == "TIMESTAMP_LTZ":
        # DuckDB's TIMESTAMPTZ holds microseconds only: an LTZ(7..9) instant reads as its UTC
        # wall-clock time in TIMESTAMP_NS, so no nanosecond is lost (issue 14).
        return "TIMESTAMP_NS" if (t.precision or 0) > 6 else "TIMESTAMPTZ"
    if t.root == "ARRAY":
        assert t.element is not None
        return f"{duckdb_type(t.element)}[]"
    if t.root == "MULTISET":
        assert t.element is not None
        return f"MAP({duckdb_type(t.element)}, INTEGER)"
    if t.root == "MAP":
        assert t.key is not None
        assert t.value is not None
        return f"MAP({duckdb_type(t.key)}, {duckdb_type(t.value)})"
    if t.root == "ROW":
        inner = ", ".join(f"{_duckdb_quote(f.name)} {duckdb_type(f.type)}" for f in t.fields)
        return f"STRUCT({inner})"
    raise SpecViolationError(f"no DuckDB type for Paimon type {t.root}")


@functools.cache
def _simple_type_node(name: str) -> exp.DataType:
    return exp.DataType.build(name, dialect="duckdb")  # one of the constant names above


@functools.lru_cache(maxsize=4096)
def _type_node(t: DataType) -> exp.DataType:
    if t.root in _DUCKDB_SIMPLE or t.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _simple_type_node(duckdb_type(t))
    if t.root == "DECIMAL":
        numbers = (t.precision, t.scale)
        params = [exp.DataTypeParam(this=exp.Literal.number(int(n or 0))) for n in numbers]
        return exp.DataType(this=exp.DataType.Type.DECIMAL, expressions=params, nested=False)
    children: list[exp.Expression]
    if t.root == "ARRAY":
        assert t.element is not None
        kind, children = exp.DataType.Type.ARRAY, [_type_node(t.element)]
    elif t.root in ("MAP", "MULTISET"):
        multiset = t.root == "MULTISET"
        key, value = (t.element, DataType(root="INT")) if multiset else (t.key, t.value)
        assert key is not None
        assert value is not None
        kind, children = exp.DataType.Type.MAP, [_type_node(key), _type_node(value)]
    elif t.root == "ROW":
        kind = exp.DataType.Type.STRUCT
        children = [
            exp.ColumnDef(this=exp.to_identifier(f.name, quoted=True), kind=_type_node(f.type))
            for f in t.fields
        ]
    else:
        raise SpecViolationError(f"no DuckDB type for Paimon type {t.root}")
    return exp.DataType(this=kind, expressions=[c.copy() for c in children], nested=True)


def duckdb_type_node(t: DataType) -> exp.DataType:
    """`duckdb_type` as a sqlglot node (a fresh copy, for ``exp.Cast(to=...)``).

    Names stay identifiers, whatever characters they hold.

    >>> row = {"type": "ROW", "fields": [{"id": 0, "name": 'a"b', "type": "DECIMAL(5, 2)"}]}
    >>> duckdb_type_node(parse_type(row)).sql("duckdb")
    'STRUCT("a""b" DECIMAL(5, 2))'
    """
    return _type_node(t).copy()


# --- Arrow --------------------------------------------------------------------------------------

_ARROW_SIMPLE: dict[str, pa.DataType] = {
    "BOOLEAN": pa.bool_(),
    "TINYINT": pa.int8(),
    "SMALLINT": pa.int16(),
    "INT": pa.int32(),
    "BIGINT": pa.int64(),
    "FLOAT": pa.float32(),
    "DOUBLE": pa.float64(),
    "DATE": pa.date32(),
    "TIME": pa.time32("ms"),
    "CHAR": pa.string(),
    "VARCHAR": pa.string(),
    "BINARY": pa.binary(),
    "VARBINARY": pa.binary(),
}


def arrow_time_unit(t: DataType) -> str:
    """The Arrow unit of a TIMESTAMP(p): ms up to 3, us up to 6 (the default), else ns."""
    p = 6 if t.precision is None else t.precision
    return "ms" if p <= 3 else ("us" if p <= 6 else "ns")


def arrow_atomic_type(t: DataType) -> pa.DataType | None:
    """The Arrow type of an atomic Paimon type.

    None for nested types and those Arrow has no type for (VARIANT, BLOB).

    >>> arrow_atomic_type(parse_type("TIMESTAMP(3) WITH LOCAL TIME ZONE"))
    TimestampType(timestamp[ms, tz=UTC])
    """
    if t.root in _ARROW_SIMPLE:
        return _ARROW_SIMPLE[t.root]
    if t.root == "DECIMAL":
        return pa.decimal128(t.precision or 10, t.scale or 0)
    if t.root in TIMESTAMP_ROOTS:
        return pa.timestamp(arrow_time_unit(t), tz="UTC" if t.root == "TIMESTAMP_LTZ" else None)
    return None


def arrow_type(t: DataType) -> pa.DataType:
    """The Arrow type a Paimon type reads as (data files DuckDB cannot read itself: ORC, Avro).

    MULTISET is a map to INT counts; a type without an Arrow type (VARIANT, BLOB) reads as binary.

    >>> arrow_type(parse_type({"type": "MULTISET", "element": "STRING"}))
    MapType(map<string, int32>)
    """
    atomic = arrow_atomic_type(t)
    if atomic is not None:
        return atomic
    if t.root == "ARRAY":
        assert t.element is not None
        return pa.list_(arrow_type(t.element))
    if t.root == "MULTISET":
        assert t.element is not None
        return pa.map_(arrow_type(t.element), pa.int32())
    if t.root == "MAP":
        assert t.key is not None
        assert t.value is not None
        return pa.map_(arrow_type(t.key), arrow_type(t.value))
    if t.root == "ROW":
        return pa.struct([pa.field(f.name, arrow_type(f.type)) for f in t.fields])
    return pa.binary()


# --- from DuckDB --------------------------------------------------------------------------------

_FROM_DUCKDB = {
    "boolean": DataType(root="BOOLEAN"),
    "tinyint": DataType(root="TINYINT"),
    "smallint": DataType(root="SMALLINT"),
    "integer": DataType(root="INT"),
    "bigint": DataType(root="BIGINT"),
    "float": DataType(root="FLOAT"),
    "double": DataType(root="DOUBLE"),
    "date": DataType(root="DATE"),
    "varchar": DataType(root="VARCHAR", length=MAX_LENGTH),
    "blob": DataType(root="VARBINARY", length=MAX_LENGTH),
    "time": DataType(root="TIME", precision=0),
    "timestamp": DataType(root="TIMESTAMP", precision=6),
    "timestamp_ns": DataType(root="TIMESTAMP", precision=9),
    "timestamp with time zone": DataType(root="TIMESTAMP_LTZ", precision=6),
    "hugeint": DataType(root="DECIMAL", precision=38, scale=0),
}


class DuckType(Protocol):
    """What `from_duckdb_type` reads of a DuckDB type (a ``duckdb.DuckDBPyType``).

    A protocol, so that this module stays free of duckdb (only ``engine/``, ``write/`` and ``sql/``
    import it).
    """

    @property
    def id(self) -> str:
        """DuckDB's type id: ``decimal``, ``list``, ``struct``, ``integer`` ..."""

    @property
    def children(self) -> Sequence[tuple[str, Any]]:
        """The (name, value) parameters of a type: field types, element type, precision ..."""


def from_duckdb_field(name: str, kind: DuckType, ids: Iterator[int]) -> DataField:
    """The Paimon column of a DuckDB query column.

    Its id first, then its nested fields' ids, as Java; `UnsupportedFeatureError` when Paimon has
    no type for it.
    """
    field_id = next(ids)
    return DataField(id=field_id, name=name, type=from_duckdb_type(kind, ids))


def from_duckdb_type(kind: DuckType, ids: Iterator[int]) -> DataType:
    """The Paimon type of a DuckDB type (`kind.id` and `kind.children`).

    ROW fields take their ids from `ids`. `UnsupportedFeatureError` when Paimon has no type for it.
    """
    children = kind.children if kind.id in ("decimal", "list", "array", "map", "struct") else []
    if kind.id == "decimal":
        precision, scale = (int(v) for _, v in children)
        return DataType(root="DECIMAL", precision=precision, scale=scale)
    if kind.id in ("list", "array"):
        return DataType(root="ARRAY", element=from_duckdb_type(children[0][1], ids))
    if kind.id == "map":
        key = from_duckdb_type(children[0][1], ids)
        return DataType(root="MAP", key=key, value=from_duckdb_type(children[1][1], ids))
    if kind.id == "struct":
        return DataType(root="ROW", fields=tuple(from_duckdb_field(n, t, ids) for n, t in children))
    known = _FROM_DUCKDB.get(kind.id)
    if known is None:
        raise UnsupportedFeatureError(
            f"a column of DuckDB type {kind.id.upper()} has no Paimon type; cast it"
        )
    return known


# --- declared lengths: CHAR(n), VARCHAR(n), BINARY(n), VARBINARY(n) as Java stores them ----------

#: Roots Java stores at their declared length: CHAR padded with spaces, BINARY with zero bytes
#: (Flink's and Spark's writers cast every value to the column type; checked against Paimon 1.3.1
#: through Flink: ``'ab'`` in a CHAR(6) key is ``'ab    '`` in the data file, the key, the bucket
#: hash, the partition value and directory, and the stats).
PADDED_ROOTS = frozenset({"CHAR", "BINARY"})


def holds(t: DataType, root: str) -> bool:
    """Whether `t` is a `root` type or has one inside (an element, key, value or ROW field).

    >>> holds(parse_type({"type": "ARRAY", "element": "VARIANT"}), "VARIANT")
    True
    >>> holds(parse_type("INT"), "ROW")
    False
    """
    if t.root == root:
        return True
    children = [c for c in (t.element, t.key, t.value) if c is not None]
    return any(holds(c, root) for c in [*children, *(f.type for f in t.fields)])


def has_length_limit(t: DataType) -> bool:
    """Whether values of `t` must fit a declared length (CHAR/BINARY(n), VARCHAR/VARBINARY(n)).

    >>> [has_length_limit(parse_type(s)) for s in ("CHAR(3)", "VARCHAR(3)", "STRING", "INT")]
    [True, True, False, False]
    """
    if t.root in PADDED_ROOTS:
        return True
    return t.root in ("VARCHAR", "VARBINARY") and t.length is not None and t.length < MAX_LENGTH


def _length_error(value: Any, t: DataType) -> ValueError:
    unit = "bytes" if t.root in BINARY_ROOTS else "characters"
    return ValueError(f"{value!r} is longer than {_atomic_sql(t)} allows ({t.length} {unit})")


def refuse_case_clashes(names: Iterable[str], where: str, fix: str) -> None:
    """A `SchemaError` when two of `names` differ only in case (``id`` and ``ID``).

    DuckDB resolves column names case-insensitively: it could not tell such columns apart, so a
    table with them can be neither written nor read by name. `where` says whose names they are,
    `fix` what to do.

    >>> refuse_case_clashes(["id", "v"], "", "")
    >>> refuse_case_clashes(["id", "v", "ID"], "of db.t", "rename one")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paimon_sql.errors.SchemaError: columns 'id' and 'ID' of db.t differ only in case: ...one
    """
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(name.lower(), name)
        if other != name:
            raise SchemaError(
                f"columns {other!r} and {name!r} {where} differ only in case: DuckDB matches "
                f"column names case-insensitively and cannot tell them apart; {fix}"
            )


def fit_length(value: Any, t: DataType) -> Any:
    """`value` as Java stores it in a column of type `t` (`has_length_limit`); others unchanged.

    CHAR(n) is padded with spaces to n characters, BINARY(n) with zero bytes to n bytes. A string
    longer than n loses trailing spaces beyond n (Spark 3.5's rule; SQL's for assignment); a value
    still longer raises ValueError (Flink would cut it silently, Spark refuses it).

    >>> fit_length("ab", parse_type("CHAR(4)")), fit_length("abcd  ", parse_type("CHAR(4)"))
    ('ab  ', 'abcd')
    >>> fit_length(bytes([1]), parse_type("BINARY(3)")).hex()
    '010000'
    >>> fit_length("ab  ", parse_type("VARCHAR(3)"))
    'ab '
    >>> fit_length("abcde", parse_type("VARCHAR(4)"))
    Traceback (most recent call last):
    ...
    ValueError: 'abcde' is longer than VARCHAR(4) allows (4 characters)
    """
    if value is None or not has_length_limit(t):
        return value
    n = t.length or 0
    if t.root in STRING_ROOTS:
        text = str(value)
        if len(text) > n:
            if len(text.rstrip(" ")) > n:
                raise _length_error(value, t)
            text = text[:n]
        return text.ljust(n) if t.root == "CHAR" else text
    data = bytes(value)
    if len(data) > n:
        raise _length_error(value, t)
    return data.ljust(n, b"\x00") if t.root == "BINARY" else data


def fit_length_array(column: Any, t: DataType) -> Any:
    """`fit_length` over an Arrow string or binary column (ValueError for the first bad value).

    >>> fit_length_array(pa.array(["ab", None, "abc  "]), parse_type("CHAR(3)")).to_pylist()
    ['ab ', None, 'abc']
    """
    import pyarrow.compute as pc

    if t.is_nested:
        return map_nested(column, t, fit_length_array)
    if not has_length_limit(t):
        return column
    n = t.length or 0
    lengths: Any
    if t.root in STRING_ROOTS:
        lengths = pc.utf8_length(pc.utf8_rtrim(column, characters=" "))
    else:
        lengths = pc.binary_length(column)
    too_long = pc.fill_null(pc.greater(lengths, pa.scalar(n, lengths.type)), False)
    if pc.any(too_long).as_py():
        raise _length_error(column.filter(too_long)[0].as_py(), t)
    if t.root == "CHAR":
        return pc.utf8_rpad(pc.utf8_slice_codeunits(column, 0, n), n, " ")
    if t.root == "VARCHAR":
        return pc.utf8_slice_codeunits(column, 0, n)
    if t.root == "BINARY":
        values = [None if v is None else v.ljust(n, b"\x00") for v in column.to_pylist()]
        return pa.array(values, column.type)
    return column


def map_nested(column: Any, t: DataType, leaf: Callable[[Any, DataType], Any]) -> Any:
    """Arrow column `column` of nested type `t` with `leaf(values, type)` applied to its leaves.

    Lists, maps and structs are rebuilt around the new leaf values (nulls kept); a column of a
    type that is not nested is `leaf(column, t)`.

    >>> chars = parse_type({"type": "ARRAY", "element": "CHAR(2)"})
    >>> map_nested(pa.array([["a", None], None]), chars, fit_length_array).to_pylist()
    [['a ', None], None]
    """
    if not t.is_nested:
        return leaf(column, t)
    if isinstance(column, pa.ChunkedArray):
        chunks = [map_nested(c, t, leaf) for c in column.chunks]
        return pa.chunked_array(chunks, column.type)
    if column.offset:  # Arrow builds offsets and a null mask only from an unsliced array
        column = pa.concat_arrays([column])
    nulls = column.is_null() if column.null_count else None
    if t.root == "ARRAY" and t.element is not None:
        values = map_nested(column.values, t.element, leaf)
        return pa.ListArray.from_arrays(column.offsets, values, type=column.type, mask=nulls)
    if t.root in ("MAP", "MULTISET"):
        key = t.element if t.root == "MULTISET" else t.key
        keys = column.keys if key is None else map_nested(column.keys, key, leaf)
        items = column.items if t.value is None else map_nested(column.items, t.value, leaf)
        return pa.MapArray.from_arrays(column.offsets, keys, items, type=column.type, mask=nulls)
    if t.root == "ROW":
        children = [map_nested(column.field(i), f.type, leaf) for i, f in enumerate(t.fields)]
        return pa.StructArray.from_arrays(children, fields=list(column.type), mask=nulls)
    return column


def fit_length_node(node: exp.Expression, t: DataType, refusal: str) -> exp.Expression:
    """`fit_length` as a DuckDB expression over `node`; a value too long raises `refusal` + it.

    >>> fit_length_node(exp.column("k"), parse_type("CHAR(2)"), "long: ").sql("duckdb")
    "CASE WHEN LENGTH(RTRIM(k, ' ')) > 2 THEN ERROR('long: ' || k) ELSE RPAD(k, 2, ' ') END"
    """
    if not has_length_limit(t):
        return node
    n = exp.Literal.number(t.length or 0)
    space = exp.Literal.string(" ")
    value = node.copy()
    if t.root in STRING_ROOTS:
        length: Any = exp.Length(this=exp.func("RTRIM", node.copy(), space))
        shown: Any = node.copy()
        if t.root == "CHAR":
            fitted: Any = exp.func("RPAD", value, n, space)
        else:
            fitted = exp.func("LEFT", value, n)
    else:
        length = exp.func("OCTET_LENGTH", node.copy())
        shown = exp.Hex(this=node.copy())
        fitted = value
        if t.root == "BINARY":
            zeros = exp.cast(exp.Literal.string("\\x00"), "BLOB")
            pad = exp.func("REPEAT", zeros, exp.Sub(this=n.copy(), expression=length.copy()))
            fitted = exp.DPipe(this=value, expression=pad)
    too_long = exp.GT(this=length, expression=n.copy())
    message = exp.func("CONCAT", exp.Literal.string(refusal), shown)
    ifs = [exp.If(this=too_long, true=exp.func("ERROR", message))]
    if t.root == "VARCHAR":
        # most values have at most n bytes, so at most n characters: kept as they are without
        # counting characters or copying (the slow path doubled a 5M-row load's time)
        short = exp.LTE(
            this=exp.Anonymous(this="strlen", expressions=[node.copy()]), expression=n.copy()
        )
        ifs.insert(0, exp.If(this=short, true=node.copy()))
    return exp.Case(ifs=ifs, default=fitted)


def nested_fit_node(
    node: Any, t: DataType, refusal: Callable[[DataType], str], depth: int = 0
) -> Any:
    """`fit_length_node` applied inside the nested value `node` of type `t`, as Java stores it.

    Flink pads a CHAR(n) in an ARRAY, MAP or ROW too. `refusal(leaf type)` starts the error of
    a value too long. None when `t` holds no length-limited type; a NULL array, map or row stays
    NULL.

    >>> chars = parse_type({"type": "ARRAY", "element": "CHAR(2)"})
    >>> nested_fit_node(exp.column("a"), chars, lambda t: "long: ").sql("duckdb")[:50]
    'LIST_TRANSFORM(a, LAMBDA f0 : CASE WHEN LENGTH(RTR'
    >>> ints = parse_type({"type": "ARRAY", "element": "INT"})
    >>> nested_fit_node(exp.column("a"), ints, lambda t: "") is None
    True
    """
    fit = _NestedFit(refusal, depth)
    if t.root == "ARRAY" and t.element is not None:
        return fit.each(node.copy(), t.element)
    if t.root == "MULTISET" and t.element is not None:
        return fit.map(node, t.element, None)
    if t.root == "MAP" and t.key is not None and t.value is not None:
        return fit.map(node, t.key, t.value)
    if t.root == "ROW":
        return fit.row(node, t)
    return None


@dataclass(frozen=True)
class _NestedFit:
    """`nested_fit_node`'s pieces at one depth of nesting."""

    refusal: Callable[[DataType], str]
    depth: int

    def value(self, child: Any, child_type: DataType) -> Any:
        """One child value fitted, or None when its type needs nothing."""
        if child_type.is_nested:
            return nested_fit_node(child, child_type, self.refusal, self.depth + 1)
        if has_length_limit(child_type):
            return fit_length_node(child, child_type, self.refusal(child_type))
        return None

    def each(self, items: Any, element: DataType) -> Any:
        """Every element of a list fitted (a lambda), or None."""
        name = f"f{self.depth}"
        inner = self.value(exp.column(name), element)
        if inner is None:
            return None
        lam = exp.Lambda(this=inner, expressions=[exp.to_identifier(name)])
        return exp.func("LIST_TRANSFORM", items, lam)

    def map(self, node: Any, key: DataType, value: DataType | None) -> Any:
        """A map rebuilt from its fitted keys and values (a MULTISET's counts kept)."""
        keys = self.each(exp.func("MAP_KEYS", node.copy()), key)
        values = None if value is None else self.each(exp.func("MAP_VALUES", node.copy()), value)
        if keys is None and values is None:
            return None
        pair = (
            keys or exp.func("MAP_KEYS", node.copy()),
            values or exp.func("MAP_VALUES", node.copy()),
        )
        return _unless_null(node, exp.func("MAP", *pair))

    def row(self, node: Any, t: DataType) -> Any:
        """A row rebuilt from its fitted fields."""
        members = []
        changed = False
        for f in t.fields:
            child = exp.func("STRUCT_EXTRACT", node.copy(), exp.Literal.string(f.name))
            fitted = self.value(child, f.type)
            changed = changed or fitted is not None
            name = exp.to_identifier(f.name, quoted=True)
            members.append(exp.PropertyEQ(this=name, expression=fitted or child))
        return _unless_null(node, exp.Struct(expressions=members)) if changed else None


def _unless_null(node: Any, value: Any) -> Any:
    null = exp.Is(this=node.copy(), expression=exp.Null())
    return exp.Case(ifs=[exp.If(this=null, true=exp.Null())], default=value)


# --- the range of DATE and TIMESTAMP values -------------------------------------------------------

#: Roots whose values must lie in years 1 to 9999. Paimon declares DATE and TIMESTAMP(p) for
#: 0000-01-01 to 9999-12-31 (its `DateType` / `TimestampType` docs); Flink 1.20 fails on a later
#: string, wraps 10000-01-01 to year 0 in its output and turns a later LTZ instant into NULL, and
#: the Python datetimes of the stats and keys end at year 9999 and start at year 1.
DATE_RANGE_ROOTS = frozenset({"DATE", "TIMESTAMP", "TIMESTAMP_LTZ"})


def has_date_range(t: DataType) -> bool:
    """Whether `t`'s values must lie in years 1..9999 (`date_range_node`).

    TIMESTAMP(7..9) reads as DuckDB's TIMESTAMP_NS, whose range (1677-2262) is narrower.

    >>> [has_date_range(parse_type(s)) for s in ("DATE", "TIMESTAMP(3)", "TIMESTAMP(9)", "INT")]
    [True, True, False, False]
    """
    return t.root in DATE_RANGE_ROOTS and (t.root == "DATE" or (t.precision or 0) <= 6)


def date_range_node(node: exp.Expression, t: DataType, refusal: str) -> exp.Expression:
    """`node` when it lies in years 1..9999 (or is NULL), else an error `refusal` + the value.

    >>> date_range_node(exp.column("d"), parse_type("DATE"), "bad: ").sql("duckdb")[:81]
    "CASE WHEN NOT d BETWEEN CAST('0001-01-01' AS DATE) AND CAST('9999-12-31' AS DATE)"
    """
    if not has_date_range(t):
        return node
    outside = _outside_years(node.copy(), t)
    message = exp.func("CONCAT", exp.Literal.string(refusal), exp.cast(node.copy(), "VARCHAR"))
    return exp.Case(ifs=[exp.If(this=outside, true=exp.func("ERROR", message))], default=node)


def date_range_array(column: Any, t: DataType) -> None:
    """ValueError for the first value of an Arrow column outside years 1..9999 (`has_date_range`).

    >>> date_range_array(pa.array([0, 2932897], pa.date32()), parse_type("DATE"))
    Traceback (most recent call last):
    ...
    ValueError: a DATE value in year 10000 lies outside years 1 to 9999
    """
    import pyarrow.compute as pc

    if not has_date_range(t) or not (
        pa.types.is_date(column.type) or pa.types.is_timestamp(column.type)
    ):
        return
    years: Any = pc.year(column)
    first, last = pa.scalar(1, years.type), pa.scalar(9999, years.type)
    outside = pc.fill_null(pc.or_(pc.less(years, first), pc.greater(years, last)), False)
    if pc.any(outside).as_py():
        year = years.filter(outside)[0].as_py()
        raise ValueError(f"a {_atomic_sql(t)} value in year {year} lies outside years 1 to 9999")


def _outside_years(node: Any, t: DataType) -> exp.Expression:
    if t.root == "DATE":
        low, high, kind = "0001-01-01", "9999-12-31", "DATE"
    elif t.root == "TIMESTAMP":
        low, high, kind = "0001-01-01 00:00:00", "9999-12-31 23:59:59.999999", "TIMESTAMP"
    else:
        low, high, kind = "0001-01-01 00:00:00+00", "9999-12-31 23:59:59.999999+00", "TIMESTAMPTZ"
    return exp.not_(
        exp.Between(
            this=node,
            low=exp.cast(exp.Literal.string(low), kind),
            high=exp.cast(exp.Literal.string(high), kind),
        )
    )


def nested_outside_years(node: Any, t: DataType, depth: int = 0) -> Any:
    """A DuckDB condition: a DATE/TIMESTAMP inside the nested value `node` is outside 1..9999.

    See `has_date_range`; None when type `t` holds none. NULL counts as inside.

    >>> dates = parse_type({"type": "ARRAY", "element": "DATE"})
    >>> nested_outside_years(exp.column("a"), dates).sql("duckdb")[:55]
    'COALESCE(LIST_BOOL_OR(LIST_TRANSFORM(a, LAMBDA e0 : NOT'
    >>> nested_outside_years(exp.column("a"), parse_type("DATE")) is None
    True
    """

    def each(items: Any, element: DataType) -> Any:
        name = f"e{depth}"
        inner = nested_outside_years(exp.column(name), element, depth + 1)
        if inner is None and has_date_range(element):
            inner = _outside_years(exp.column(name), element)
        if inner is None:
            return None
        lam = exp.Lambda(this=inner, expressions=[exp.to_identifier(name)])
        return exp.func("LIST_BOOL_OR", exp.func("LIST_TRANSFORM", items, lam))

    found: Any = None
    if t.root == "ARRAY" and t.element is not None:
        found = each(node.copy(), t.element)
    elif t.root == "MULTISET" and t.element is not None:
        found = each(exp.func("MAP_KEYS", node.copy()), t.element)
    elif t.root == "MAP" and t.key is not None and t.value is not None:
        parts = [
            each(exp.func("MAP_KEYS", node.copy()), t.key),
            each(exp.func("MAP_VALUES", node.copy()), t.value),
        ]
        kept = [p for p in parts if p is not None]
        found = exp.or_(*kept) if kept else None
    elif t.root == "ROW":
        conditions = []
        for f in t.fields:
            child: Any = exp.func("STRUCT_EXTRACT", node.copy(), exp.Literal.string(f.name))
            inner = nested_outside_years(child, f.type, depth + 1)
            if inner is None and has_date_range(f.type):
                inner = _outside_years(child, f.type)
            if inner is not None:
                conditions.append(inner)
        found = exp.or_(*conditions) if conditions else None
    if found is None:
        return None
    return exp.func("COALESCE", found, exp.false())
