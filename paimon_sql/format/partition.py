"""Partition directory names (paimon-format.md §1.1).

>>> escape_path_name("2024/05 14")
'2024%2F05 14'
>>> partition_path([("dt", "2024/05 14"), ("hr", 9)])
'dt=2024%2F05 14/hr=9'
>>> unescape_path_name('2024%2F05 14')
'2024/05 14'
"""

from __future__ import annotations

import datetime
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

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


def legacy_value_string(value: Any) -> str:
    """Java's ``toString()`` of the internal value (``partition.legacy-name=true``).

    A DATE is its epoch day.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None).isoformat()
    if isinstance(value, datetime.date):
        return str((value - datetime.date(1970, 1, 1)).days)
    return str(value)


def partition_path(
    values: Iterable[tuple[str, Any]], default_name: str = DEFAULT_PARTITION_NAME
) -> str:
    """The relative directory of a partition: ``k1=v1/k2=v2`` (no trailing slash)."""
    parts = []
    for name, value in values:
        text = None if value is None else legacy_value_string(value)
        if text is None or not text.strip():
            text = default_name
        parts.append(f"{escape_path_name(name)}={escape_path_name(text)}")
    return "/".join(parts)
