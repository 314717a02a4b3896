"""Schema files ``schema/schema-N`` (paimon-format.md §2).

>>> s = schema_from_json('{"id": 0, "fields": [{"id": 0, "name": "k", "type": "INT NOT NULL"}],'
...                      ' "highestFieldId": 0, "partitionKeys": [], "primaryKeys": ["k"],'
...                      ' "options": {}}')
>>> s.version, s.options["bucket"], s.options["file.format"]
(1, '1', 'orc')
>>> s.trimmed_primary_keys
('k',)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import SpecViolationError
from paimon_sql.format import _checks
from paimon_sql.format.options import CoreOptions
from paimon_sql.types import field_to_json, parse_field

if TYPE_CHECKING:
    from collections.abc import Mapping

    from paimon_sql.types import DataField

CURRENT_VERSION = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSchema:
    """One version of a table's schema.

    `options` already carry the legacy defaults of old versions.
    """

    version: int = CURRENT_VERSION
    id: int
    fields: tuple[DataField, ...]
    highest_field_id: int
    partition_keys: tuple[str, ...] = ()
    primary_keys: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    comment: str | None = None
    time_millis: int = 0

    @property
    def field_names(self) -> tuple[str, ...]:
        """Top-level column names in order."""
        return tuple(f.name for f in self.fields)

    def field(self, name: str) -> DataField:
        """The top-level field called `name`."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def trimmed_primary_keys(self) -> tuple[str, ...]:
        """The primary key without partition columns, in key order (the file key)."""
        return tuple(k for k in self.primary_keys if k not in self.partition_keys)

    @property
    def bucket_keys(self) -> tuple[str, ...]:
        """`bucket-key`, else the trimmed primary key."""
        explicit = self.options.get("bucket-key")
        if explicit:
            return tuple(k.strip() for k in explicit.split(","))
        return self.trimmed_primary_keys

    @property
    def bucket(self) -> int:
        """The `bucket` option (-1 dynamic/unaware, -2 postpone)."""
        return CoreOptions(self.options).bucket


_KNOWN = (
    "version",
    "id",
    "fields",
    "highestFieldId",
    "partitionKeys",
    "primaryKeys",
    "options",
    "comment",
    "timeMillis",
)


def _options(value: Any) -> dict[str, str]:
    """``options``: strings; numbers and booleans are taken as their text, as Jackson does."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SpecViolationError(f"options must be a JSON object, not {type(value).__name__}")
    out = {}
    for key, item in value.items():
        if isinstance(item, bool):
            item = "true" if item else "false"
        elif type(item) in (int, float):
            item = str(item)
        elif type(item) is not str:
            raise SpecViolationError(f"option {key!r} must be a string, not {item!r}")
        out[key] = item
    return out


def _field_ids(fields: tuple[DataField, ...]) -> list[int]:
    ids = []
    for f in fields:
        ids.append(f.id)
        stack = [f.type]
        while stack:
            t = stack.pop()
            ids.extend(n.id for n in t.fields)
            stack.extend(n.type for n in t.fields)
            stack.extend(x for x in (t.element, t.key, t.value) if x is not None)
    return ids


def _keys(data: Mapping[str, Any], key: str, names: tuple[str, ...]) -> tuple[str, ...]:
    value = _checks.want_str_list(data.get(key) or [], key)
    unknown = [k for k in value if k not in names]
    if unknown or len(set(value)) != len(value):
        raise SpecViolationError(f"{key} {value} must name distinct columns of {list(names)}")
    return tuple(value)


def _check_structure(schema: TableSchema) -> None:
    """Distinct field names, distinct field ids at most ``highestFieldId``, a valid ``bucket``."""
    names = schema.field_names
    if len(set(names)) != len(names):
        raise SpecViolationError(f"fields {list(names)} repeat a name")
    ids = _field_ids(schema.fields)
    if len(set(ids)) != len(ids):
        raise SpecViolationError(f"field ids {sorted(ids)} repeat an id")
    if max(ids) > schema.highest_field_id:
        raise SpecViolationError(
            f"highestFieldId {schema.highest_field_id} is below the field id {max(ids)}"
        )
    bucket = CoreOptions(schema.options).text("bucket") or ""
    if not re.fullmatch(r"-?[0-9]+", bucket.strip()) or int(bucket) == 0 or int(bucket) < -2:
        raise SpecViolationError(f"option bucket is {bucket!r}: a number > 0, or -1 or -2")


def schema_from_dict(data: Mapping[str, Any]) -> TableSchema:
    """A `TableSchema` from parsed JSON, applying the defaults of old schema versions.

    Every value is checked (§2): types, distinct field names and ids, keys naming columns.
    """
    _checks.check_keys(data, _KNOWN, "schema JSON")
    missing = [k for k in ("id", "fields", "highestFieldId") if data.get(k) is None]
    if missing:
        raise SpecViolationError(f"schema JSON lacks {', '.join(missing)}")
    version = _checks.want_int(data.get("version", 1), "version", minimum=1)
    options = _options(data.get("options"))
    if version <= 1:
        options.setdefault("bucket", "1")
    if version <= 2:
        options.setdefault("file.format", "orc")
    raw_fields = data["fields"]
    if not isinstance(raw_fields, list) or not raw_fields:
        raise SpecViolationError(f"fields must be a non-empty JSON array, not {raw_fields!r}")
    fields = tuple(parse_field(f) for f in raw_fields)
    names = tuple(f.name for f in fields)
    comment = data.get("comment")
    schema = TableSchema(
        version=version,
        id=_checks.want_int(data["id"], "id", minimum=0),
        fields=fields,
        highest_field_id=_checks.want_int(data["highestFieldId"], "highestFieldId", minimum=0),
        partition_keys=_keys(data, "partitionKeys", names),
        primary_keys=_keys(data, "primaryKeys", names),
        options=MappingProxyType(options),
        comment=None if comment is None else _checks.want_str(comment, "comment"),
        time_millis=_checks.opt_int(data.get("timeMillis"), "timeMillis") or 0,
    )
    _check_structure(schema)
    return schema


def schema_from_json(text: str | bytes) -> TableSchema:
    """A `TableSchema` from the text of a schema file.

    >>> schema_from_json('{"id": 0, "fields": [{"id": 0, "name": "k", "type": "INT"}],'
    ...                  ' "highestFieldId": 0, "primaryKeys": ["x"]}')
    Traceback (most recent call last):
    ...
    paimon_sql.errors.SpecViolationError: primaryKeys ['x'] must name distinct columns of ['k']
    """
    return schema_from_dict(_checks.json_object(text, "schema file"))


def schema_to_json(schema: TableSchema) -> str:
    """The schema file text, keys in Java's order, pretty-printed like Jackson."""
    data: dict[str, Any] = {
        "version": schema.version,
        "id": schema.id,
        "fields": [field_to_json(f) for f in schema.fields],
        "highestFieldId": schema.highest_field_id,
        "partitionKeys": list(schema.partition_keys),
        "primaryKeys": list(schema.primary_keys),
        "options": dict(schema.options),
    }
    if schema.comment is not None:
        data["comment"] = schema.comment
    data["timeMillis"] = schema.time_millis
    return json.dumps(data, indent=2, separators=(",", " : "))
