"""Snapshot and tag JSON (paimon-format.md §3).

>>> s = snapshot_from_json('{"version": 3, "id": 2, "schemaId": 0, "baseManifestList": "a",'
...                        ' "deltaManifestList": "b", "commitUser": "u", "commitIdentifier": 1,'
...                        ' "commitKind": "COMPACT", "timeMillis": 5, "totalRecordCount": 3}')
>>> s.commit_kind, s.index_manifest
(<CommitKind.COMPACT: 'COMPACT'>, None)
>>> snapshot_from_json(snapshot_to_json(s)) == s
True
"""

from __future__ import annotations

import datetime
import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paimon_sql.errors import SpecViolationError
from paimon_sql.format import _checks


class CommitKind(enum.Enum):
    """What a commit did."""

    APPEND = "APPEND"
    COMPACT = "COMPACT"
    OVERWRITE = "OVERWRITE"
    ANALYZE = "ANALYZE"


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """One snapshot (or the snapshot a tag holds)."""

    version: int = 3
    id: int
    schema_id: int
    base_manifest_list: str
    base_manifest_list_size: int | None = None
    delta_manifest_list: str
    delta_manifest_list_size: int | None = None
    changelog_manifest_list: str | None = None
    changelog_manifest_list_size: int | None = None
    index_manifest: str | None = None
    commit_user: str
    commit_identifier: int
    commit_kind: CommitKind
    time_millis: int
    total_record_count: int | None = None
    delta_record_count: int | None = None
    changelog_record_count: int | None = None
    watermark: int | None = None
    statistics: str | None = None
    properties: Mapping[str, str] | None = None
    next_row_id: int | None = None
    uuid: str | None = None
    writer_version: str | None = None
    operation: str | None = None
    log_offsets: Mapping[str, int] | None = None
    # Only in tag files created with a retention time.
    tag_create_time: datetime.datetime | None = None
    tag_time_retained_seconds: float | None = None


# (json key, attribute) in the order Java writes them.
_KEYS = (
    ("version", "version"),
    ("uuid", "uuid"),
    ("id", "id"),
    ("schemaId", "schema_id"),
    ("baseManifestList", "base_manifest_list"),
    ("baseManifestListSize", "base_manifest_list_size"),
    ("deltaManifestList", "delta_manifest_list"),
    ("deltaManifestListSize", "delta_manifest_list_size"),
    ("changelogManifestList", "changelog_manifest_list"),
    ("changelogManifestListSize", "changelog_manifest_list_size"),
    ("indexManifest", "index_manifest"),
    ("commitUser", "commit_user"),
    ("writerVersion", "writer_version"),
    ("commitIdentifier", "commit_identifier"),
    ("commitKind", "commit_kind"),
    ("timeMillis", "time_millis"),
    ("logOffsets", "log_offsets"),
    ("totalRecordCount", "total_record_count"),
    ("deltaRecordCount", "delta_record_count"),
    ("changelogRecordCount", "changelog_record_count"),
    ("watermark", "watermark"),
    ("statistics", "statistics"),
    ("properties", "properties"),
    ("nextRowId", "next_row_id"),
    ("operation", "operation"),
)
_ALWAYS = frozenset(
    {"baseManifestList", "deltaManifestList", "commitUser", "changelogManifestList"}
)


_TAG_KEYS = ("tagCreateTime", "tagTimeRetained")
_KNOWN = frozenset([key for key, _ in _KEYS] + list(_TAG_KEYS))
_NAMES = (
    "baseManifestList",
    "deltaManifestList",
    "changelogManifestList",
    "indexManifest",
    "statistics",
)
_SIZES = ("baseManifestListSize", "deltaManifestListSize", "changelogManifestListSize")
_TEXTS = ("commitUser", "uuid", "writerVersion", "operation")
_LONGS = (
    "commitIdentifier",
    "timeMillis",
    "totalRecordCount",
    "deltaRecordCount",
    "changelogRecordCount",
    "watermark",
    "nextRowId",
)
_REQUIRED = (
    "id",
    "schemaId",
    "baseManifestList",
    "deltaManifestList",
    "commitUser",
    "commitIdentifier",
    "commitKind",
    "timeMillis",
)


def _tag_time(value: Any) -> datetime.datetime | None:
    if value is None:
        return None
    if isinstance(value, list):
        if not 3 <= len(value) <= 7 or any(type(v) is not int for v in value):
            raise SpecViolationError(
                f"tagCreateTime must be [year, month, day, ...], not {value!r}"
            )
        y, mo, d, h, mi, s, nanos = [*value, 0, 0, 0, 0][:7]
        return datetime.datetime(y, mo, d, h, mi, s, nanos // 1000)
    return datetime.datetime.fromisoformat(_checks.want_str(value, "tagCreateTime"))


def _checked(data: Mapping[str, Any]) -> dict[str, Any]:
    """The snapshot's values by attribute, each checked for its JSON type (§3)."""
    missing = [key for key in _REQUIRED if data.get(key) is None]
    if missing:
        raise SpecViolationError(f"snapshot JSON lacks {', '.join(missing)}")
    _checks.check_keys(data, _KNOWN, "snapshot JSON")
    attrs = dict(_KEYS)
    values: dict[str, Any] = {
        "id": _checks.want_int(data["id"], "id", minimum=1),
        "schema_id": _checks.want_int(data["schemaId"], "schemaId", minimum=0),
    }
    version = _checks.opt_int(data.get("version"), "version", minimum=1)
    if version is not None:
        values["version"] = version
    for key in _NAMES:
        values[attrs[key]] = _checks.opt_name(data.get(key), key)
    for key in _SIZES:
        values[attrs[key]] = _checks.opt_int(data.get(key), key, minimum=0)
    for key in _TEXTS:
        values[attrs[key]] = _checks.opt_str(data.get(key), key)
    for key in _LONGS:
        values[attrs[key]] = _checks.opt_int(data.get(key), key)
    properties = data.get("properties")
    values["properties"] = (
        None if properties is None else _checks.want_str_map(properties, "properties")
    )
    offsets = data.get("logOffsets")
    if offsets is not None and (
        not isinstance(offsets, dict) or not all(type(v) is int for v in offsets.values())
    ):
        raise SpecViolationError(f"logOffsets must be an object of integers, not {offsets!r}")
    values["log_offsets"] = offsets
    kind = _checks.want_str(data["commitKind"], "commitKind")
    try:
        values["commit_kind"] = CommitKind(kind)
    except ValueError as err:
        known = ", ".join(k.value for k in CommitKind)
        raise SpecViolationError(f"commitKind {kind!r} is not one of {known}") from err
    return values


def snapshot_from_dict(data: Mapping[str, Any]) -> Snapshot:
    """A `Snapshot` from parsed JSON, every value checked for its type.

    Unknown keys are ignored as Java does (except a known key with one damaged character, which
    would silently drop its value).
    """
    values = _checked(data)
    retained = data.get("tagTimeRetained")
    if retained is not None and (type(retained) not in (int, float) or not 0 <= retained < 2**53):
        raise SpecViolationError(f"tagTimeRetained must be a number of seconds, not {retained!r}")
    try:
        created = _tag_time(data.get("tagCreateTime"))
    except (ValueError, OverflowError) as err:
        raise SpecViolationError(f"tagCreateTime is not a date-time: {err}") from err
    return Snapshot(
        **{k: v for k, v in values.items() if v is not None},
        tag_create_time=created,
        tag_time_retained_seconds=None if retained is None else float(retained),
    )


def snapshot_from_json(text: str | bytes) -> Snapshot:
    """A `Snapshot` from the text of a snapshot or tag file.

    >>> snapshot_from_json(b'{"id": "2"}')  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    paimon_sql.errors.SpecViolationError: snapshot JSON lacks schemaId, baseManifestList,
    deltaManifestList, commitUser, commitIdentifier, commitKind, timeMillis
    """
    return snapshot_from_dict(_checks.json_object(text, "snapshot file"))


def snapshot_to_dict(snapshot: Snapshot) -> dict[str, Any]:
    """The JSON object of a snapshot (or tag), keys in Java's order, nulls omitted as Java does."""
    out: dict[str, Any] = {}
    for key, attr in _KEYS:
        value = getattr(snapshot, attr)
        if isinstance(value, CommitKind):
            value = value.value
        if value is not None or key in _ALWAYS:
            out[key] = dict(value) if isinstance(value, Mapping) else value
    if snapshot.tag_create_time is not None:
        t = snapshot.tag_create_time
        parts = [t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond * 1000]
        while len(parts) > 5 and parts[-1] == 0:
            parts.pop()
        out["tagCreateTime"] = parts
    if snapshot.tag_time_retained_seconds is not None:
        out["tagTimeRetained"] = float(f"{snapshot.tag_time_retained_seconds:.9f}")
    return out


def snapshot_to_json(snapshot: Snapshot) -> str:
    """The snapshot (or tag) file text, byte for byte as Jackson's default pretty printer writes it.

    §3. Objects one key a line (``"k" : v``, empty ``{ }``), arrays on one line (``[ 2024, 6 ]``),
    and ``tagTimeRetained`` as a ``Duration`` in seconds with nine decimals (``86400.000000000``).

    >>> s = snapshot_from_json('{"id": 1, "schemaId": 0, "baseManifestList": "a",'
    ...     ' "deltaManifestList": "b", "commitUser": "u", "commitIdentifier": 1,'
    ...     ' "commitKind": "APPEND", "timeMillis": 5, "logOffsets": {},'
    ...     ' "tagCreateTime": [2024, 6, 25, 10, 30, 0, 5000], "tagTimeRetained": 1.5}')
    >>> print(snapshot_to_json(s))  # doctest: +ELLIPSIS
    {
      "version" : 3,
    ...
      "logOffsets" : { },
      "tagCreateTime" : [ 2024, 6, 25, 10, 30, 0, 5000 ],
      "tagTimeRetained" : 1.500000000
    }
    """
    data = snapshot_to_dict(snapshot)
    lines = []
    for key, value in data.items():
        if key == "tagTimeRetained":
            text = f"{value:.9f}"
        elif isinstance(value, Mapping):
            inner = ",\n".join(f"    {_json(str(k))} : {_json(v)}" for k, v in value.items())
            text = "{\n" + inner + "\n  }" if inner else "{ }"
        elif isinstance(value, list):
            text = "[ " + ", ".join(_json(v) for v in value) + " ]" if value else "[ ]"
        else:
            text = _json(value)
        lines.append(f"  {_json(key)} : {text}")
    return "{\n" + ",\n".join(lines) + "\n}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
