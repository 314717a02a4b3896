"""64-bit fingerprints of key rows, computed column-wise by numpy (no Python loop per row).

`fingerprints` maps each row of a table of key columns (all columns together) to a ``uint64``
that depends only on the row's values and the columns' Arrow types: two tables of the same
schema give equal fingerprints to equal rows, in any process. `paimon_sql.io.key_lookup` sorts a
row group's fingerprints to find keys by binary search, then checks every candidate against the
stored key (`same_rows`): a fingerprint only narrows the search, it never decides a match, so
two keys sharing one can never mark a wrong row.

How a value is read (the same for the stored keys and the wanted ones):

* fixed-width types (integers, date, time, timestamp, decimal, float, boolean, fixed-size
  binary): the value's bytes (a float's zero and NaN made canonical), folded 8 bytes at a time;
* strings and binaries: a polynomial modulo 2**64 (an odd constant) of the value's 8-byte words
  (zero-padded; of its bytes for values over 64 bytes), mixed with the length;
* null: a constant; any other type (never a Paimon key type): a constant too, so every row is a
  candidate and the check decides (correct, only slower).

>>> import pyarrow as pa
>>> keys = pa.table({"k": ["a", "b", "a"], "n": [1, 2, 1]})
>>> f = fingerprints(keys)
>>> bool(f[0] == f[2]), bool(f[0] == f[1])
(True, False)
>>> same_rows(keys, np.array([0, 0]), keys, np.array([2, 1])).tolist()
[True, False]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_U64 = np.uint64
#: An odd multiplier for the byte polynomial, and the constant of a null.
_P = _U64(0x100000001B3)
_NULL = _U64(0x9E3779B97F4A7C15)
_MIX1 = _U64(0xBF58476D1CE4E5B9)
_MIX2 = _U64(0x94D049BB133111EB)
_COLUMN = _U64(0xD6E8FEB86659FD93)


def fingerprints(table: pa.Table) -> np.ndarray[Any, Any]:
    """One ``uint64`` per row of `table`: equal rows (same schema) give equal values.

    >>> a = pa.table({"s": pa.array(["x", "yy", ""], pa.string())})
    >>> b = pa.table({"s": pa.array(["", "x"], pa.string())})
    >>> fa, fb = fingerprints(a), fingerprints(b)
    >>> bool(fa[0] == fb[1]), bool(fa[2] == fb[0]), len(set(fa.tolist()))
    (True, True, 3)
    """
    out = np.zeros(table.num_rows, dtype=_U64)
    with np.errstate(over="ignore"):
        for column in table.columns:
            array: Any = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
            out = _mix(out * _COLUMN + _column(array))
    return out


def same_rows(
    stored: pa.Table, at: np.ndarray[Any, Any], wanted: pa.Table, of: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    """Per pair i: whether row ``at[i]`` of `stored` equals row ``of[i]`` of `wanted`.

    The tables have the same columns and types. Nulls equal nulls, NaN equals NaN (as Arrow's
    ``is_in`` matches them).

    >>> t = pa.table({"d": pa.array([1.5, float("nan"), None])})
    >>> same_rows(t, np.array([0, 1, 2, 0]), t, np.array([0, 1, 2, 1])).tolist()
    [True, True, True, False]
    """
    if len(at) == 0:
        return np.zeros(0, dtype=bool)
    equal = np.ones(len(at), dtype=bool)
    left_rows, right_rows = pa.array(at, pa.int64()), pa.array(of, pa.int64())
    for name in wanted.column_names:
        left: Any = stored.column(name).take(left_rows)
        right: Any = wanted.column(name).take(right_rows)
        same: Any = pc.fill_null(pc.equal(left, right), False)
        both_null = pc.and_(pc.is_null(left), pc.is_null(right))
        same = pc.or_(same, both_null)
        if pa.types.is_floating(left.type):
            same = pc.or_(same, pc.fill_null(pc.and_(pc.is_nan(left), pc.is_nan(right)), False))
        equal &= np.asarray(same.to_numpy(zero_copy_only=False), dtype=bool)
    return equal


def _mix(h: Any) -> np.ndarray[Any, Any]:
    """A bijective scramble of 64 bits (the splitmix64 finalizer)."""
    h = (h ^ (h >> _U64(30))) * _MIX1
    h = (h ^ (h >> _U64(27))) * _MIX2
    out: np.ndarray[Any, Any] = h ^ (h >> _U64(31))
    return out


def _column(array: Any) -> np.ndarray[Any, Any]:
    """The per-row hash of one key column (overflow wraps modulo 2**64)."""
    kind = array.type
    if pa.types.is_dictionary(kind):
        array = array.dictionary_decode()
        kind = array.type
    if pa.types.is_boolean(kind):
        array, kind = pc.cast(array, pa.uint8()), pa.uint8()
    if pa.types.is_floating(kind):
        array = _canonical_float(array)
    if pa.types.is_string(kind) or pa.types.is_binary(kind):
        values = _bytes_hash(array, np.int32)
    elif pa.types.is_large_string(kind) or pa.types.is_large_binary(kind):
        values = _bytes_hash(array, np.int64)
    elif isinstance(kind, pa.FixedSizeBinaryType) or _fixed_width(kind):
        values = _fixed_hash(array)
    else:  # not a key type: every row a candidate, `same_rows` decides
        return np.full(len(array), _NULL, dtype=_U64)
    if array.null_count:
        values[np.asarray(array.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = _NULL
    return values


def _fixed_width(kind: pa.DataType) -> bool:
    try:
        width = kind.bit_width
    except ValueError:
        return False
    return width >= 8 and width % 8 == 0 and not pa.types.is_nested(kind)


def _canonical_float(array: Any) -> Any:
    """Every zero as +0.0 and every NaN as one NaN (equal values, equal bytes)."""
    zero = pa.scalar(0, array.type)
    nan = pa.scalar(float("nan"), array.type)
    array = pc.if_else(pc.equal(array, zero), zero, array)
    return pc.if_else(pc.is_nan(array), nan, array)


def _fixed_hash(array: Any) -> np.ndarray[Any, Any]:
    """A fixed-width column's values as bytes, folded 8 at a time."""
    kind = array.type
    width = kind.byte_width if isinstance(kind, pa.FixedSizeBinaryType) else kind.bit_width // 8
    n = len(array)
    buffer = array.buffers()[1]
    raw = np.frombuffer(buffer, dtype=np.uint8)[array.offset * width : (array.offset + n) * width]
    words = -(-width // 8)
    padded = np.zeros((n, words * 8), dtype=np.uint8)
    padded[:, :width] = raw.reshape(n, width)
    folded = padded.view(_U64)
    out = np.full(n, _U64(width), dtype=_U64)
    for w in range(words):
        out = _mix(out * _P + folded[:, w])
    return out


#: Up to this many bytes in the longest value, values are hashed as the 8-byte words of a
#: zero-padded matrix (faster); else byte by byte, to the same sums (no matrix that wide).
_WORDS_UP_TO = 64


def _bytes_hash(array: Any, offset_type: Any) -> np.ndarray[Any, Any]:
    """A polynomial of the value's 8-byte words (`_word_sums`), mixed with its length."""
    n = len(array)
    _, offsets_buffer, data_buffer = array.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=offset_type)[array.offset : array.offset + n + 1]
    offsets = offsets.astype(np.int64)
    lengths = np.diff(offsets)
    total = int(offsets[-1] - offsets[0]) if n else 0
    sums = np.zeros(n, dtype=_U64)
    if total:
        data = np.frombuffer(data_buffer, dtype=np.uint8)[offsets[0] : offsets[-1]]
        starts = offsets[:-1] - offsets[0]
        longest = int(lengths.max())
        if longest <= _WORDS_UP_TO:
            sums = _word_sums(data, starts, lengths, -(-longest // 8))
        else:
            sums = _byte_sums(data, starts, lengths, longest)
    return _mix(sums + lengths.astype(_U64) * _MIX2)


def _word_sums(data: Any, starts: Any, lengths: Any, words: int) -> np.ndarray[Any, Any]:
    """Sum of word j (8 bytes, little-endian, zero-padded) times ``_P ** j`` per value.

    Trailing zero words add nothing: the sum does not depend on `words`.
    """
    n, width = len(starts), words * 8
    matrix = np.zeros(n * width, dtype=np.uint8)
    # each byte's place in the matrix: its value's row, then its place in the value
    index = np.int32 if n * width < 2**31 else np.int64  # half the memory traffic
    rows = np.arange(0, n * width, width, dtype=index) - starts.astype(index)
    matrix[np.arange(len(data), dtype=index) + np.repeat(rows, lengths)] = data
    folded = matrix.view("<u8").astype(_U64, copy=False).reshape(n, words)
    out = folded[:, 0].copy()
    power = _U64(1)
    for w in range(1, words):
        power *= _P
        out += folded[:, w] * power
    return out


def _byte_sums(data: Any, starts: Any, lengths: Any, longest: int) -> np.ndarray[Any, Any]:
    """`_word_sums` byte by byte: byte i is worth ``(byte << 8 * (i % 8)) * _P ** (i // 8)``.

    (Word j is the little-endian sum of its bytes shifted: the two sums are equal.)
    """
    index = np.int32 if len(data) < 2**31 else np.int64
    place = np.arange(len(data), dtype=index) - np.repeat(starts.astype(index), lengths)
    powers = np.ones(-(-longest // 8), dtype=_U64)
    powers[1:] = np.cumprod(np.full(len(powers) - 1, _P, dtype=_U64), dtype=_U64)
    shifted = data.astype(_U64) << (place % 8).astype(_U64) * _U64(8)
    running = np.cumsum(shifted * powers[place // 8], dtype=_U64)
    ends = np.concatenate([[_U64(0)], running])
    sums: np.ndarray[Any, Any] = ends[starts + lengths] - ends[starts]
    return sums
