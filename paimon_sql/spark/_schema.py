"""Does a Spark DataFrame fit a Paimon table? Checked on the driver before any task runs.

Every table column must be in the DataFrame (partition columns fixed by ``partition=`` may be left
out), no other column may be, and each Spark type must convert to the Paimon type without loss:
integers widen (``int`` into ``BIGINT``), ``float`` into ``DOUBLE``, a decimal into one with at
least as many integer and fraction digits; ``string`` fills STRING/VARCHAR/CHAR, ``binary``
BINARY/VARBINARY; ``timestamp_ntz`` is Paimon's TIMESTAMP and ``timestamp`` (an instant)
TIMESTAMP_LTZ (values are cut to the column's precision, as Java's Spark writer does); arrays, maps
and structs are compared inside.

pyspark is imported by the caller; this module only reads the type objects' class names and fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_sql.errors import SchemaError, UnsupportedFeatureError
from paimon_sql.format.options import CoreOptions
from paimon_sql.types import INTEGER_DIGITS, INTEGER_RANK, type_sql

if TYPE_CHECKING:
    from collections.abc import Collection

    from paimon_sql.format.schema import TableSchema
    from paimon_sql.types import DataType


def check_options(schema: TableSchema, table: str) -> None:
    """Refuse, by name, a table option the Spark writers do not follow.

    ``rowkind.field`` (each row's kind spelled by a column, honoured by the SQL writer) is not
    applied by the Spark writers, which write every row as an insert.

    >>> from paimon_sql.format.schema import TableSchema
    >>> from paimon_sql.types import DataField, DataType
    >>> k = DataField(id=0, name="k", type=DataType(root="INT", nullable=False))
    >>> op = DataField(id=1, name="op", type=DataType(root="VARCHAR", length=2))
    >>> schema = TableSchema(id=0, fields=(k, op), highest_field_id=1, primary_keys=("k",),
    ...                      options={"bucket": "1", "rowkind.field": "op"})
    >>> check_options(schema, "db.t")
    Traceback (most recent call last):
    ...
    paimon_sql.errors.UnsupportedFeatureError: db.t: 'rowkind.field' = 'op' ...
    """
    field = CoreOptions(schema.options).rowkind_field
    if field is not None and schema.primary_keys:
        raise UnsupportedFeatureError(
            f"{table}: 'rowkind.field' = {field!r} (row kinds spelled by a column) is not applied "
            "by the Spark writers; write through SQL (session.sql / session.write), which honours "
            "it, or drop the option"
        )


#: Spark's integer types as the Paimon roots of the same width.
_INTEGERS = {
    "ByteType": "TINYINT",
    "ShortType": "SMALLINT",
    "IntegerType": "INT",
    "LongType": "BIGINT",
}
_SIMPLE = {
    "BooleanType": {"BOOLEAN"},
    "FloatType": {"FLOAT", "DOUBLE"},
    "DoubleType": {"DOUBLE"},
    "StringType": {"VARCHAR", "CHAR"},
    "CharType": {"VARCHAR", "CHAR"},
    "VarcharType": {"VARCHAR", "CHAR"},
    "BinaryType": {"BINARY", "VARBINARY"},
    "DateType": {"DATE"},
    "TimestampType": {"TIMESTAMP_LTZ"},
    "TimestampNTZType": {"TIMESTAMP"},
}
_HINT = {
    (
        "TimestampType",
        "TIMESTAMP",
    ): "cast it to timestamp_ntz (Paimon's TIMESTAMP has no time zone)",
    ("TimestampNTZType", "TIMESTAMP_LTZ"): "cast it to timestamp (TIMESTAMP_LTZ is an instant)",
}


def spark_type_name(dtype: Any) -> str:
    """Spark's SQL name of a type object (``bigint``, ``decimal(10,2)``, ...)."""
    return dtype.simpleString() if hasattr(dtype, "simpleString") else type(dtype).__name__


def fits(dtype: Any, target: DataType) -> bool:
    """Whether values of the Spark type `dtype` convert to the Paimon type `target` without loss."""
    kind = type(dtype).__name__
    if kind in _INTEGERS:
        if target.root in INTEGER_RANK:
            return INTEGER_RANK[_INTEGERS[kind]] <= INTEGER_RANK[target.root]
        if target.root == "DECIMAL":
            p, s = target.precision or 10, target.scale or 0
            return p - s >= INTEGER_DIGITS[_INTEGERS[kind]]
        return False
    if kind == "DecimalType":
        if target.root != "DECIMAL":
            return False
        p, s = target.precision or 10, target.scale or 0
        return s >= dtype.scale and p - s >= dtype.precision - dtype.scale
    if kind in _SIMPLE:
        return target.root in _SIMPLE[kind]
    if kind == "ArrayType":
        return (
            target.root == "ARRAY"
            and target.element is not None
            and fits(dtype.elementType, target.element)
        )
    if kind == "MapType":
        return (
            target.root == "MAP"
            and target.key is not None
            and target.value is not None
            and fits(dtype.keyType, target.key)
            and fits(dtype.valueType, target.value)
        )
    if kind == "StructType":
        if target.root != "ROW" or [f.name for f in dtype.fields] != [
            f.name for f in target.fields
        ]:
            return False
        return all(
            fits(a.dataType, b.type) for a, b in zip(dtype.fields, target.fields, strict=True)
        )
    return False


def check_columns(
    spark_schema: Any, schema: TableSchema, table: str, fixed: Collection[str] = ()
) -> None:
    """Raise `SchemaError` naming the first column that does not fit.

    That is a column missing, extra, or of a type that does not fit.

    `spark_schema` is the DataFrame's ``StructType``; `fixed` are the partition columns the write
    fixes (they may be absent from the DataFrame).
    """
    given = {f.name: f.dataType for f in spark_schema.fields}
    names = list(schema.field_names)
    for name in given:
        if name not in names:
            close = [n for n in names if n.lower() == name.lower()]
            hint = f" (did you mean {close[0]!r}? names are case-sensitive)" if close else ""
            raise SchemaError(
                f"DataFrame column {name!r} is not a column of table {table}{hint}; table columns: "
                f"{', '.join(names)}. Drop or rename it before writing"
            )
    for f in schema.fields:
        if f.name not in given:
            if f.name in fixed:
                continue
            raise SchemaError(
                f"column {f.name!r} ({type_sql(f.type)}) of table {table} is missing from the "
                "DataFrame; "
                f"add it (F.lit(None).cast(...) for NULLs)"
            )
        dtype = given[f.name]
        if not fits(dtype, f.type):
            hint = _HINT.get(
                (type(dtype).__name__, f.type.root), "cast it in Spark to a type that fits"
            )
            raise SchemaError(
                f"column {f.name!r}: the DataFrame's {spark_type_name(dtype)} cannot be written to "
                f"{type_sql(f.type)} of table {table} without loss; {hint}"
            )


def spark_ddl(t: DataType) -> str:
    """The Spark SQL type of a Paimon type of a partition column (atomic types).

    >>> from paimon_sql.types import parse_type
    >>> spark_ddl(parse_type("DECIMAL(10, 2)")), spark_ddl(parse_type("TIMESTAMP(3)"))
    ('decimal(10,2)', 'timestamp_ntz')
    """
    simple = {
        "BOOLEAN": "boolean",
        "TINYINT": "tinyint",
        "SMALLINT": "smallint",
        "INT": "int",
        "BIGINT": "bigint",
        "FLOAT": "float",
        "DOUBLE": "double",
        "VARCHAR": "string",
        "CHAR": "string",
        "BINARY": "binary",
        "VARBINARY": "binary",
        "DATE": "date",
        "TIMESTAMP": "timestamp_ntz",
        "TIMESTAMP_LTZ": "timestamp",
    }
    if t.root == "DECIMAL":
        return f"decimal({t.precision or 10},{t.scale or 0})"
    if t.root not in simple:
        raise SchemaError(f"a {type_sql(t)} partition column cannot be fixed by partition=")
    return simple[t.root]
