"""Schema files ``schema/schema-N`` (paimon-format.md §2).

>>> s = schema_from_json('{"id": 0, "fields": [{"id": 0, "name": "k", "type": "INT NOT NULL"}],'
...                      ' "highestFieldId": 0, "partitionKeys": [], "primaryKeys": ["k"], "options": {}}')
>>> s.version, s.options["bucket"], s.options["file.format"]
(1, '1', 'orc')
>>> s.trimmed_primary_keys
('k',)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from paimon_sql.errors import SpecViolationError
from paimon_sql.types import DataField, field_to_json, parse_field

CURRENT_VERSION = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSchema:
    """One version of a table's schema. `options` already carry the legacy defaults of old versions."""

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
        return int(self.options.get("bucket", "-1"))


def schema_from_dict(data: Mapping[str, Any]) -> TableSchema:
    """A `TableSchema` from parsed JSON, applying the defaults of old schema versions."""
    try:
        version = int(data.get("version", 1))
        options = dict(data.get("options") or {})
        if version <= 1:
            options.setdefault("bucket", "1")
        if version <= 2:
            options.setdefault("file.format", "orc")
        return TableSchema(
            version=version,
            id=int(data["id"]),
            fields=tuple(parse_field(f) for f in data["fields"]),
            highest_field_id=int(data["highestFieldId"]),
            partition_keys=tuple(data.get("partitionKeys") or ()),
            primary_keys=tuple(data.get("primaryKeys") or ()),
            options=MappingProxyType(options),
            comment=data.get("comment"),
            time_millis=int(data.get("timeMillis") or 0),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise SpecViolationError(f"malformed schema JSON: {err!r}") from err


def schema_from_json(text: str | bytes) -> TableSchema:
    """A `TableSchema` from the text of a schema file."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise SpecViolationError(f"schema file is not JSON: {err}") from err
    return schema_from_dict(data)


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
