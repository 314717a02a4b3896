"""Checks every metadata codec runs on what it reads: JSON objects, typed values and file names.

Each raises `SpecViolationError` saying what is wrong; the catalog adds the file's path
(`paimon_sql.errors.CorruptFileError`). Java's readers are as strict where it matters: Jackson
refuses a wrong type, Avro a missing field (paimon-format.md §2-§4).

>>> want_int(3, "id", minimum=1)
3
>>> want_int(True, "id")
Traceback (most recent call last):
...
paimon_sql.errors.SpecViolationError: id must be an integer, not True
>>> json_object(b'{"a": 1}', "snapshot")
{'a': 1}
>>> near_key({"indexManifesu": "x"}, ("indexManifest", "id"))
'indexManifesu'
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import SpecViolationError

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def json_object(text: str | bytes, what: str) -> dict[str, Any]:
    """The JSON object in `text`.

    Anything else (bad UTF-8, bad JSON, an array, deep nesting) is an error.
    """
    try:
        data = json.loads(text)
    except UnicodeDecodeError as err:
        raise SpecViolationError(
            f"{what} is not UTF-8 text ({err.reason} at byte {err.start})"
        ) from err
    except json.JSONDecodeError as err:
        raise SpecViolationError(f"{what} is not valid JSON ({err})") from err
    except RecursionError as err:
        raise SpecViolationError(f"{what} is not a JSON object (nested too deeply)") from err
    if not isinstance(data, dict):
        raise SpecViolationError(f"{what} must hold a JSON object, not {type(data).__name__}")
    return data


def want_int(value: Any, what: str, *, minimum: int = LONG_MIN) -> int:
    """`value` if it is an integer (a Java long) of at least `minimum`."""
    if type(value) is not int:
        raise SpecViolationError(f"{what} must be an integer, not {_show(value)}")
    if not minimum <= value <= LONG_MAX:
        low = "" if minimum == LONG_MIN else f" >= {minimum}"
        raise SpecViolationError(f"{what} must be an integer{low}, not {value}")
    return value


def opt_int(value: Any, what: str, *, minimum: int = LONG_MIN) -> int | None:
    """`want_int`, or None."""
    return None if value is None else want_int(value, what, minimum=minimum)


def want_str(value: Any, what: str) -> str:
    """`value` if it is a string."""
    if type(value) is not str:
        raise SpecViolationError(f"{what} must be a string, not {_show(value)}")
    return value


def opt_str(value: Any, what: str) -> str | None:
    """`want_str`, or None."""
    return None if value is None else want_str(value, what)


def want_name(value: Any, what: str) -> str:
    """A bare file name: a non-empty string without a folder.

    Names in metadata are relative to their folder.
    """
    name = want_str(value, what)
    if not name or "/" in name or "\\" in name or name in (".", "..") or "\x00" in name:
        raise SpecViolationError(f"{what} must be a bare file name, not {name!r}")
    return name


def opt_name(value: Any, what: str) -> str | None:
    """`want_name`, or None."""
    return None if value is None else want_name(value, what)


def want_str_map(value: Any, what: str) -> dict[str, str]:
    """A JSON object of string values."""
    if not isinstance(value, dict) or not all(type(v) is str for v in value.values()):
        raise SpecViolationError(f"{what} must be an object of strings, not {_show(value)}")
    return value


def want_str_list(value: Any, what: str) -> list[str]:
    """A JSON array of strings."""
    if not isinstance(value, list) or not all(type(v) is str for v in value):
        raise SpecViolationError(f"{what} must be an array of strings, not {_show(value)}")
    return value


def near_key(data: Mapping[str, Any], known: Collection[str]) -> str | None:
    """A key of `data` that is one character away from a known key without being one: a damaged key.

    Unknown keys are ignored for compatibility with newer writers (as Java does), but a key such as
    ``indexManifesu`` is ``indexManifest`` with a flipped byte, and ignoring it would silently drop
    what it holds.
    """
    for key in data:
        if key in known:
            continue
        for name in known:
            if len(name) == len(key) and sum(a != b for a, b in zip(name, key, strict=True)) == 1:
                return key
    return None


def check_keys(data: Mapping[str, Any], known: Collection[str], what: str) -> None:
    """Raise if a key of `data` is a damaged known key (`near_key`)."""
    key = near_key(data, known)
    if key is not None:
        near = next(
            n
            for n in known
            if len(n) == len(key) and sum(a != b for a, b in zip(n, key, strict=True)) == 1
        )
        raise SpecViolationError(f"{what} has an unknown key {key!r}: a damaged {near!r}?")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
