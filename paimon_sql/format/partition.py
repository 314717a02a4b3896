"""Partition directory names (paimon-format.md §1.1).

>>> escape_path_name("2024/05 14")
'2024%2F05 14'
>>> unescape_path_name('2024%2F05 14')
'2024/05 14'
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import UnsupportedFeatureError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from paimon_sql.format.schema import TableSchema
    from paimon_sql.types import DataType

DEFAULT_PARTITION_NAME = "__DEFAULT_PARTITION__"

_ESCAPED = frozenset(
    [chr(c) for c in range(0x20)]
    + ['"', "#", "%", "'", "*", "/", ":", "=", "?", "\\", "\x7f", "{", "}", "[", "]", "^"]
)


def escape_path_name(text: str) -> str:
    r"""Hive-style escaping: control characters and ``"#%'*/:=?\{}[]^`` become ``%XX``."""
    if _ESCAPED.isdisjoint(text):
        return text  # the common case: nothing to escape
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def unescape_path_name(text: str) -> str:
    """Undo `escape_path_name` (any ``%XX``)."""
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m[1], 16)), text)


#: Characters Python's `str.isspace` calls blank and Java's `Character.isWhitespace` does not: the
#: no-break spaces and NEL. A partition value of only blanks is named by the default partition name
#: (Java's `StringUtils.isNullOrWhitespaceOnly`), so the test must be Java's.
_NOT_JAVA_WHITESPACE = frozenset("\u00a0\u2007\u202f\u0085")


def java_blank(text: str) -> bool:
    r"""Whether Java's `StringUtils.isNullOrWhitespaceOnly` holds for `text`.

    >>> java_blank(" \t"), java_blank(""), java_blank("\u00a0"), java_blank(" a ")
    (True, True, False, False)
    """
    return all(c.isspace() and c not in _NOT_JAVA_WHITESPACE for c in text)


def _java_digits(value: float, single: bool) -> tuple[str, int]:
    """The shortest decimal digits that read back as `value`, and the exponent of the first one.

    `single`: shortest among FLOAT (32-bit) values, as Java's ``Float.toString`` chooses them.
    """
    if single:
        target = struct.pack("<f", value)
        for precision in range(1, 10):
            text = f"{value:.{precision - 1}e}"
            try:
                if struct.pack("<f", float(text)) == target:
                    break
            except OverflowError:  # rounded up past the largest FLOAT
                continue
    else:
        text = f"{decimal.Decimal(repr(value)):e}"  # repr: the shortest digits of a double
    mantissa, _, exponent = text.partition("e")
    digits = mantissa.replace(".", "").lstrip("-").rstrip("0") or "0"
    if len(digits) == 1:
        # Java then prints the two-digit decimal nearest the value (4.9E-324, not 5.0E-324); it
        # rounds to the value too, being at least as near as the one digit
        mantissa, _, exponent = f"{value:.1e}".partition("e")
        digits = mantissa.replace(".", "").rstrip("0") or "0"
    return digits, int(exponent)


def java_float_string(value: float, *, single: bool = False) -> str:
    """Java's ``Double.toString`` (or ``Float.toString`` when `single`) of `value`.

    Plain notation between 10^-3 and 10^7, else ``d.dddE<n>``; always a digit after the point.

    >>> [java_float_string(v) for v in (1.5, 1e10, 1e-05, 100.0, 0.001, -0.0)]
    ['1.5', '1.0E10', '1.0E-5', '100.0', '0.001', '-0.0']
    >>> java_float_string(0.10000000149011612, single=True), java_float_string(1234567.0)
    ('0.1', '1234567.0')
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0.0"
    digits, exponent = _java_digits(abs(value), single)
    if 1e-3 <= abs(value) < 1e7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :] or "0"
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _java_local_date_time(value: datetime.datetime, nanos: int) -> str:
    """Java's ``LocalDateTime.toString``: seconds only when set, the fraction in groups of 3."""
    text = f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:{value.minute:02d}"
    if value.second or nanos:
        text += f":{value.second:02d}"
    if nanos:
        if nanos % 1_000_000 == 0:
            text += f".{nanos // 1_000_000:03d}"
        elif nanos % 1000 == 0:
            text += f".{nanos // 1000:06d}"
        else:
            text += f".{nanos:09d}"
    return text


def _naive_utc(value: datetime.datetime) -> datetime.datetime:
    if value.tzinfo is None:
        return value
    return value.astimezone(datetime.UTC).replace(tzinfo=None)


def _millis_of_day(value: datetime.time) -> int:
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


def _scaled(value: Any, t: DataType) -> decimal.Decimal:
    quantum = decimal.Decimal(1).scaleb(-(t.scale or 0))
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        return decimal.Decimal(value).quantize(quantum)


def value_string(value: Any, t: DataType, *, legacy: bool = True) -> str:
    """A partition value as Java names its folder.

    `legacy` (``partition.legacy-name``, true by default): Java's ``toString()`` of the internal
    value — a DATE is its epoch day, a TIME its millisecond of the day, a TIMESTAMP
    ``LocalDateTime.toString()``, a FLOAT / DOUBLE ``Float`` / ``Double.toString()``, a DECIMAL
    its plain digits at the column's scale. Otherwise Java's cast to STRING (``2024-05-14``,
    ``03:04:05.5``, ``2024-05-14 03:04:05.000``).

    >>> from paimon_sql.types import parse_type
    >>> value_string(datetime.datetime(2024, 1, 2, 3, 4), parse_type("TIMESTAMP(3)"))
    '2024-01-02T03:04'
    >>> value_string(datetime.time(3, 4), parse_type("TIME"))
    '11040000'
    >>> value_string(decimal.Decimal("1E-10"), parse_type("DECIMAL(20, 10)"))
    '0.0000000001'
    >>> value_string(datetime.date(2024, 5, 14), parse_type("DATE"), legacy=False)
    '2024-05-14'
    """
    root = t.root
    if isinstance(value, bool):
        return "true" if value else "false"
    if root in ("FLOAT", "DOUBLE"):
        return java_float_string(float(value), single=root == "FLOAT")
    if root == "DECIMAL":
        return f"{_scaled(value, t):f}"
    if root == "DATE":
        if legacy:
            return str((value - datetime.date(1970, 1, 1)).days)
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    if root == "TIME":
        millis = _millis_of_day(value)
        if legacy:
            return str(millis)
        return _java_time_string(millis, t.precision or 0)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        naive = _naive_utc(value)
        nanos = naive.microsecond * 1000 + getattr(value, "nanosecond", 0)  # pandas' Timestamp
        if legacy:
            return _java_local_date_time(naive, nanos)
        if root == "TIMESTAMP_LTZ":
            raise UnsupportedFeatureError(
                "partition.legacy-name = 'false' names a TIMESTAMP_LTZ partition in the writing "
                "JVM's own time zone, which a table does not record; set 'partition.legacy-name' "
                "= 'true' (the default) or partition by another column"
            )
        fraction = f"{nanos:09d}"
        while (
            len(fraction) > (t.precision if t.precision is not None else 6) and fraction[-1] == "0"
        ):
            fraction = fraction[:-1]
        text = (
            f"{naive.year:04d}-{naive.month:02d}-{naive.day:02d} "
            f"{naive.hour:02d}:{naive.minute:02d}:{naive.second:02d}"
        )
        return f"{text}.{fraction}" if fraction else text
    return str(value)


def _java_time_string(millis: int, precision: int) -> str:
    """Java's TIME to STRING cast: ``HH:mm:ss`` and a fraction.

    The fraction has the millisecond digits up to the last non-zero one, at most `precision` of
    them and at least one.

    >>> _java_time_string(11045000, 3), _java_time_string(11045105, 2), _java_time_string(0, 3)
    ('03:04:05.0', '03:04:05.10', '00:00:00.0')
    """
    seconds, ms = divmod(millis, 1000)
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    if precision > 0:
        digits = ""
        while precision > 0:  # a digit at a time; stops early only when nothing is left
            digits += str(ms // 100)
            ms = ms % 100 * 10
            if ms == 0:
                break
            precision -= 1
        text += "." + digits
    return text


@dataclass(frozen=True)
class PartitionLayout:
    """How a table names its partition folders: its partition columns and options.

    >>> from paimon_sql.types import parse_type
    >>> layout = PartitionLayout(("dt", "hr"), (parse_type("STRING"), parse_type("INT")))
    >>> layout.path(("2024/05 14", 9)), layout.path((None, 9))
    ('dt=2024%2F05 14/hr=9', 'dt=__DEFAULT_PARTITION__/hr=9')
    """

    names: tuple[str, ...]
    types: tuple[DataType, ...]
    default_name: str = DEFAULT_PARTITION_NAME
    legacy: bool = True

    @classmethod
    def of(cls, schema: TableSchema) -> PartitionLayout:
        """The layout `schema` declares (its partition keys, their types and its options)."""
        from paimon_sql.format.options import CoreOptions

        options = CoreOptions(schema.options)
        keys = tuple(schema.partition_keys)
        return cls(
            keys,
            tuple(schema.field(k).type for k in keys),
            options.partition_default_name,
            options.flag("partition.legacy-name"),
        )

    def path(self, values: Iterable[Any]) -> str:
        """The relative folder of the partition with `values`: ``k1=v1/k2=v2`` (no slash)."""
        parts = []
        for name, t, value in zip(self.names, self.types, values, strict=True):
            text = None if value is None else value_string(value, t, legacy=self.legacy)
            if text is None or java_blank(text):
                text = self.default_name
            parts.append(f"{escape_path_name(name)}={escape_path_name(text)}")
        return "/".join(parts)
