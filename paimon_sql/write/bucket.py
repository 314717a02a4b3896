"""Fixed-bucket assignment as one DuckDB SQL expression (paimon-format.md §5, §6).

Java hashes the BinaryRow of the bucket key: MurmurHash3 x86_32, seed 42, over the row's 4-byte
little-endian words; ``bucket = abs(hash % N)``. The row is never materialised here: each column
contributes the words of its 8-byte slot (and of its var part), folded into the hash with UBIGINT
arithmetic that stays exact for 32-bit operands:

* ``rotl32(y, r) = ((y * (2**32 + 1)) >> (32 - r)) & 0xFFFFFFFF`` reads ``y`` once, so the unrolled
  fold over the fixed part grows linearly with the number of words;
* constant words (the header of NOT NULL keys, the zero half of an INT slot) are folded in Python;
* strings (CHAR/VARCHAR/BINARY) read 8-byte big-endian chunks of their zero-padded bytes: the slot
  from the first, the first `_UNROLL_CHUNKS` chunks of the var part inline (`_fold_var`), longer
  var parts through ``list_reduce``. Inline arithmetic reads each chunk and state several times;
  DuckDB's common-subexpression optimizer computes them once (measured in a SELECT list and in an
  aggregate; elsewhere it is correct, only slower). Lambdas are avoided where possible: DuckDB runs
  the same arithmetic about five times slower inside one;
* the final avalanche (``fmix``) reads its input 8 times; a large input is bound by one-element
  ``list_transform`` calls (`_fmix_once`) rather than copied.

DuckDB binds a STRING key's expression (~13 KB of SQL) in tens of milliseconds on every statement:
the writer hashes small inputs in Python instead (`python_buckets`, Java's hash by
`paimon_sql.format.bucket` over the values DuckDB hands over as Arrow), giving the same buckets.

>>> from paimon_sql.types import parse_type
>>> key = [(exp.column("id"), parse_type("BIGINT NOT NULL"))]
>>> bucket_expression(key, 4).sql("duckdb").startswith("ABS(")
True
"""

from __future__ import annotations

import collections
import datetime
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

import duckdb
import pyarrow as pa
from sqlglot import exp

from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.format.binary_row import header_size
from paimon_sql.format.bucket import bucket_of_hash, row_hash
from paimon_sql.sqlnodes import set_setting
from paimon_sql.types import (
    BINARY_ROOTS,
    NUMERIC_ROOTS,
    STRING_ROOTS,
    TIMESTAMP_ROOTS,
    duckdb_type_node,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Generator, Iterable, Iterator, Sequence

    from paimon_sql.types import DataType

#: A 32-bit word of the row: a Python int known at build time, else a UBIGINT expression < 2**32.
Word: TypeAlias = "int | exp.Expression"

_M = 0xFFFFFFFF
_C1, _C2, _N1 = 0xCC9E2D51, 0x1B873593, 0xE6546B64
_F1, _F2 = 0x85EBCA6B, 0xC2B2AE35
_SEED = 42
#: Above this many characters of SQL the pre-avalanche value is bound once, not copied 8 times.
_INLINE_FMIX_MAX_SQL = 16_000
#: Murmur rounds written out inline; later words are folded by ``list_reduce``.
_UNROLL = 8
#: Var-part chunks of a string folded inline; longer strings fold the rest in a ``list_reduce``.
_UNROLL_CHUNKS = 2
_LAMBDA_H, _LAMBDA_C, _LAMBDA_I = "__paimon_h", "__paimon_c", "__paimon_i"


# --- expression helpers ---------------------------------------------------------------------------


def _bin(cls: type[exp.Binary], a: exp.Expression, b: exp.Expression) -> exp.Expression:
    """A binary operator; compound operands get parentheses (sqlglot does not add them)."""
    return cls(this=_atom(a), expression=_atom(b))


def _atom(e: exp.Expression) -> exp.Expression:
    return exp.Paren(this=e) if isinstance(e, (exp.Binary, exp.Unary)) else e


def _lit(value: int) -> exp.Expression:
    return exp.Literal.number(value)


def _cast(e: exp.Expression, to: str | exp.DataType) -> exp.Expression:
    """``CAST(e AS to)`` around `e` itself (``exp.cast`` copies its operand: quadratic here).

    `to` is a constant type name or a type node.
    """
    node = _data_type(to) if isinstance(to, str) else to
    if isinstance(e, exp.Cast) and e.to == node:
        return e
    return exp.Cast(this=e, to=node.copy())


@functools.cache
def _data_type(name: str) -> exp.DataType:
    return exp.DataType.build(name, dialect="duckdb")


def _u64(w: Word) -> exp.Expression:
    return _cast(_lit(w), "UBIGINT") if isinstance(w, int) else w


def _fn(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _and(e: exp.Expression, mask: int) -> exp.Expression:
    return _bin(exp.BitwiseAnd, e, _lit(mask))


def _shr(e: exp.Expression, n: int) -> exp.Expression:
    return _bin(exp.BitwiseRightShift, e, _lit(n))


def _shl(e: exp.Expression, n: int) -> exp.Expression:
    return _bin(exp.BitwiseLeftShift, e, _lit(n))


def _mul(e: exp.Expression, k: int) -> exp.Expression:
    return _bin(exp.Mul, e, _lit(k))


def _add(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return _bin(exp.Add, a, b)


def _xor(a: Word, b: Word) -> exp.Expression:
    return _bin(exp.BitwiseXor, _u64(a), _u64(b))


def _or_all(parts: Sequence[exp.Expression]) -> exp.Expression:
    out = parts[0]
    for part in parts[1:]:
        out = _bin(exp.BitwiseOr, out, part)
    return out


# --- MurmurHash3 x86_32 on 32-bit words ------------------------------------------------------


def _rotl_int(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def _rotl(e: exp.Expression, r: int) -> exp.Expression:
    """32-bit rotate reading `e` once: the low 32 bits of ``(e:e) >> (32 - r)``."""
    return _and(_shr(_mul(e, (1 << 32) + 1), 32 - r), _M)


def _mix(k: Word) -> Word:
    if isinstance(k, int):
        return (_rotl_int((k * _C1) & _M, 15) * _C2) & _M
    return _and(_mul(_rotl(_and(_mul(k, _C1), _M), 15), _C2), _M)


def _step(h: Word, k: Word) -> Word:
    """One body round: ``h = rotl(h ^ mix(k), 13) * 5 + 0xE6546B64``."""
    mixed = _mix(k)
    if isinstance(h, int) and isinstance(mixed, int):
        return (_rotl_int(h ^ mixed, 13) * 5 + _N1) & _M
    y = _u64(h) if mixed == 0 else _xor(h, mixed)
    # The final mask also drops the rotation's high bits: (2**32 + 1) * y >> 19 < 2**45.
    rotated = _shr(_mul(y, (1 << 32) + 1), 32 - 13)
    return _and(_bin(exp.Add, _mul(rotated, 5), _lit(_N1)), _M)


def _fmix(x: exp.Expression) -> exp.Expression:
    x = _xor(x, _shr(x, 16))
    x = _and(_mul(x, _F1), _M)
    x = _xor(x, _shr(x, 13))
    x = _and(_mul(x, _F2), _M)
    return _xor(x, _shr(x, 16))


def _fmix_int(h: int) -> int:
    h ^= h >> 16
    h = (h * _F1) & _M
    h ^= h >> 13
    h = (h * _F2) & _M
    return h ^ (h >> 16)


def _signed(h: exp.Expression) -> exp.Expression:
    """The INTEGER of 32 bits, reading `h` once: ``(h ^ 2**31) - 2**31``."""
    flipped = _cast(_xor(h, 1 << 31), "BIGINT")
    return _cast(_bin(exp.Sub, flipped, _lit(1 << 31)), "INTEGER")


def _let(value: exp.Expression, body: Callable[[exp.Expression], exp.Expression]) -> exp.Expression:
    """``body(value)`` with `value` computed once: the transform of a one-element list."""
    z = exp.to_identifier(_LAMBDA_H)
    lam = exp.Lambda(this=_typed(body(exp.column(z))), expressions=[z])
    once = _fn("list_transform", exp.Array(expressions=[value]), lam)
    return exp.Bracket(this=once, expressions=[_lit(1)], offset=1)


def _fmix_once(x: exp.Expression) -> exp.Expression:
    """`_fmix` reading `x` once.

    Each xor-shift, which reads its input twice, is bound by `_let` (inside a lambda DuckDB does not
    share repeated subexpressions: one lambda would compute the first steps 8 times).
    """
    x = _let(x, lambda z: _and(_mul(_xor(z, _shr(z, 16)), _F1), _M))
    x = _let(x, lambda z: _and(_mul(_xor(z, _shr(z, 13)), _F2), _M))
    return _let(x, lambda z: _xor(z, _shr(z, 16)))


def _typed(body: exp.Expression) -> exp.Expression:
    """`body` with its integer literals cast to UBIGINT.

    Inside a lambda DuckDB does not fold the casts of untyped literals, which makes the loop about a
    third slower.
    """

    def cast(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Literal) and node.is_int and not isinstance(node.parent, exp.Cast):
            return _u64(int(node.this))
        return node

    return body.transform(cast, copy=False)


def _reduce_chunks(h: Word, chunks: exp.Expression) -> exp.Expression:
    """Fold a list of big-endian 8-byte chunks (each two little-endian words) into `h`."""
    acc, chunk = exp.to_identifier(_LAMBDA_H), exp.to_identifier(_LAMBDA_C)
    c = exp.column(chunk)
    body = _u64(_step(_step(exp.column(acc), _bswap_high(c)), _bswap_low(c)))
    fold = exp.Lambda(this=_typed(body), expressions=[acc, chunk])
    return _fn("list_reduce", chunks, fold, _u64(h))


def _reduce_words(h: Word, words: Sequence[Word]) -> exp.Expression:
    acc, word = exp.to_identifier(_LAMBDA_H), exp.to_identifier(_LAMBDA_C)
    body = _u64(_step(exp.column(acc), exp.column(word)))
    fold = exp.Lambda(this=_typed(body), expressions=[acc, word])
    return _fn("list_reduce", exp.Array(expressions=[_u64(w) for w in words]), fold, _u64(h))


def _fold(items: Sequence[Word | _Var]) -> Word:
    """Fold the row's words into the murmur state.

    The first `_UNROLL` rounds inline, the rest in ``list_reduce`` calls, which keeps the expression
    shallow for wide keys; string chunks inline as far as `_UNROLL_CHUNKS` (see `_fold_var`).
    """
    h: Word = _SEED
    rounds = 0
    batch: list[Word] = []
    var_at = [i for i, item in enumerate(items) if isinstance(item, _Var)]
    last_var = var_at[0] if len(var_at) == 1 else -1
    for i, item in enumerate(items):
        if isinstance(item, _Var):
            h = _reduce_words(h, batch) if batch else h
            h, batch = _fold_var(h, item, inline=_UNROLL_CHUNKS if i == last_var else 0), []
        elif batch or (rounds >= _UNROLL and not (isinstance(h, int) and isinstance(item, int))):
            batch.append(item)
        else:
            rounds += not isinstance(h, int)
            h = _step(h, item)
    return _reduce_words(h, batch) if batch else h


def _step2(h: Word, chunk: exp.Expression) -> Word:
    """Two rounds over a big-endian chunk.

    Both words byte-swapped at once (12 operations, not 21, at the price of reading the chunk 8
    times, which DuckDB computes once at the top level).
    """
    c = exp.Paren(this=chunk)
    odd, even = 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF
    t = _bin(exp.BitwiseOr, _and(_shr(c, 8), odd), _shl(_and(c, odd), 8))
    t = _bin(exp.BitwiseOr, _and(_shr(t, 16), even), _shl(_and(t, even), 16))
    return _step(_step(h, _shr(t, 32)), _and(t, _M))


def _fold_var(h: Word, var: _Var, inline: int) -> exp.Expression:
    """Fold a string's chunks.

    The first `inline` ones inline, the state after chunk j being NULL when the string has fewer
    chunks (``COALESCE`` takes the last state that is not), the rest by ``list_reduce``. DuckDB
    computes the repeated subexpressions (each state, each chunk read eight times) once when the
    expression sits in a SELECT list or an aggregate, so the inline part costs the plain arithmetic,
    about five times less than the same in a lambda. The ``COALESCE`` repeats the state before the
    string ``inline + 1`` times, so only a key with one var part folds inline (with an earlier one
    the copies would repeat its loop, which DuckDB does not share, and the SQL would grow
    geometrically with the strings).
    """
    states: list[Word] = [h]
    for j in range(inline):
        present = _fn("nullif", _cast(_bin(exp.GT, _u64(var.count), _lit(j)), "UBIGINT"), _lit(0))
        states.append(_step2(_bin(exp.Mul, _u64(states[-1]), present), _chunk_at(var.padded, j)))
    last: Word = states[0]
    if inline:
        last = exp.Coalesce(this=states[-1], expressions=[_u64(s) for s in reversed(states[:-1])])
    index = exp.to_identifier(_LAMBDA_I)
    rest = _fn(
        "list_transform",
        _fn("range", _lit(inline), _cast(var.count, "BIGINT")),
        exp.Lambda(this=_be64(var.blob, _mul(exp.column(index), 8)), expressions=[index]),
    )
    return _reduce_chunks(last, rest)


# --- bytes to words -------------------------------------------------------------------------------


def _bswap_high(v: exp.Expression) -> exp.Expression:
    """The little-endian word of bytes 0..3 of the big-endian 64-bit value `v`."""
    return _or_all(
        [
            _shr(v, 56),
            _and(_shr(v, 40), 0xFF00),
            _and(_shr(v, 24), 0xFF0000),
            _and(_shr(v, 8), 0xFF000000),
        ]
    )


def _bswap_low(v: exp.Expression) -> exp.Expression:
    """The little-endian word of bytes 4..7 of the big-endian 64-bit value `v`."""
    return _or_all(
        [
            _and(_shr(v, 24), 0xFF),
            _and(_shr(v, 8), 0xFF00),
            _shl(_and(v, 0xFF00), 8),
            _shl(_and(v, 0xFF), 24),
        ]
    )


def _be64(blob: exp.Expression, start: exp.Expression) -> exp.Expression:
    """Bytes ``start .. start+7`` (0-based) of `blob` as a big-endian UBIGINT, zero-padded."""
    stop = _bin(exp.Add, start, _lit(8))
    piece = exp.Bracket(
        this=exp.Paren(this=blob),
        expressions=[exp.Slice(this=_add(start, _lit(1)), expression=stop)],
    )
    value = _cast(_cast(piece, "BIT"), "UBIGINT")
    missing = _fn("greatest", _lit(0), _bin(exp.Sub, stop, _fn("octet_length", blob)))
    return _bin(exp.BitwiseLeftShift, value, _mul(missing, 8))


def _words_of_u64(v: exp.Expression) -> tuple[exp.Expression, exp.Expression]:
    """The (low, high) little-endian words of a 64-bit two's-complement integer expression."""
    return _cast(_and(v, _M), "UBIGINT"), _cast(_and(_shr(v, 32), _M), "UBIGINT")


# --- per-type encoding ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Field:
    """One key column in row form: its slot words (given its var offset) and var part."""

    null: exp.Expression | None
    lo: Word
    hi: Word
    var_words: tuple[Word, ...] = ()
    var_len: Word = 0
    #: A string's var part, folded chunk by chunk.
    var: _Var | None = None


def _int_field(value: exp.Expression, cast_to: str, mask: int) -> tuple[Word, Word]:
    return _cast(_and(_cast(value, cast_to), mask), "UBIGINT"), 0


def _floor_div(x: exp.Expression, d: int) -> exp.Expression:
    negative_rest = _cast(_bin(exp.LT, _bin(exp.Mod, x, _lit(d)), _lit(0)), "BIGINT")
    return _bin(exp.Sub, _bin(exp.IntDiv, x, _lit(d)), negative_rest)


def _timestamp_parts(value: exp.Expression, t: DataType) -> tuple[exp.Expression, exp.Expression]:
    """(epoch millis, nano of millisecond) as BIGINT expressions, floor semantics like Java.

    TIMESTAMP_LTZ(7..9) reads as the TIMESTAMP_NS of its UTC wall-clock time, as TIMESTAMP(7..9)
    does (`paimon_sql.types.duckdb_type`): through TIMESTAMPTZ it would lose its sub-microsecond
    digits and move by the session's time zone.
    """
    if (t.precision or 0) > 6:
        nanos = _fn("epoch_ns", _cast(value, "TIMESTAMP_NS"))
        millis = _floor_div(nanos, 1_000_000)
        return millis, _bin(exp.Sub, nanos, _mul(millis, 1_000_000))
    micros = _fn(
        "epoch_us", _cast(value, "TIMESTAMPTZ" if t.root == "TIMESTAMP_LTZ" else "TIMESTAMP")
    )
    millis = _floor_div(micros, 1000)
    return millis, _mul(_bin(exp.Sub, micros, _mul(millis, 1000)), 1000)


def _fixed_words(value: exp.Expression, t: DataType) -> tuple[Word, Word] | None:
    r = t.root
    if r == "BOOLEAN":
        return _cast(_cast(value, "BOOLEAN"), "UBIGINT"), 0
    if r == "TINYINT":
        return _int_field(value, "SMALLINT", 0xFF)
    if r == "SMALLINT":
        return _int_field(value, "INTEGER", 0xFFFF)
    if r == "INT":
        return _int_field(value, "BIGINT", _M)
    if r == "DATE":
        days = _bin(exp.Sub, _cast(value, "DATE"), _cast(exp.Literal.string("1970-01-01"), "DATE"))
        return _int_field(days, "BIGINT", _M)
    if r == "TIME":
        millis = _bin(exp.IntDiv, _fn("epoch_us", _cast(value, "TIME")), _lit(1000))
        return _int_field(millis, "BIGINT", _M)
    if r == "BIGINT":
        return _words_of_u64(_cast(value, "BIGINT"))
    if r == "FLOAT":
        return _cast(_cast(_cast(value, "FLOAT"), "BIT"), "UBIGINT"), 0
    if r == "DOUBLE":
        bits = _cast(_cast(_cast(value, "DOUBLE"), "BIT"), "UBIGINT")
        return _and(bits, _M), _shr(bits, 32)
    if r == "DECIMAL" and (t.precision or 0) <= 18:
        unscaled = _mul(_cast(value, duckdb_type_node(t.with_nullable(True))), 10 ** (t.scale or 0))
        return _words_of_u64(_cast(unscaled, "BIGINT"))
    if r in TIMESTAMP_ROOTS and (t.precision or 0) <= 3:
        return _words_of_u64(_timestamp_parts(value, t)[0])
    return None


def _string_field(value: exp.Expression, t: DataType, offset: Word) -> _Field:
    """CHAR/VARCHAR (UTF-8 bytes), BINARY/VARBINARY: inline when ≤ 7 bytes, else var part (§5.1).

    The slot is one big-endian chunk, read like the var part's chunks.
    """
    blob = (
        _fn("encode", _cast(value, "VARCHAR")) if t.root in STRING_ROOTS else _cast(value, "BLOB")
    )
    n = _cast(_fn("octet_length", blob), "UBIGINT")
    is_long = _cast(_bin(exp.GTE, n, _lit(8)), "UBIGINT")
    # Zero padding past the bytes: every chunk read inline is a full 8 bytes.
    zeros = _fn("unhex", _fn("repeat", exp.Literal.string("00"), _lit(8 * (_UNROLL_CHUNKS + 1))))
    padded = exp.DPipe(this=exp.Paren(this=blob), expression=zeros)
    # Long: (length, offset); inline: the bytes, zeros, the length byte 0x80 | n on top of hi.
    head, is_inline = _chunk_at(padded, 0), _bin(exp.Sub, _lit(1), is_long)
    lo = _add(_bin(exp.Mul, n, is_long), _bin(exp.Mul, _bswap_high(head), is_inline))
    inline_hi = _bin(exp.BitwiseOr, _bswap_low(head), _shl(_add(n, _lit(0x80)), 24))
    hi = _add(_bin(exp.Mul, _u64(offset), is_long), _bin(exp.Mul, inline_hi, is_inline))
    count = _bin(exp.Mul, _bin(exp.IntDiv, _add(n, _lit(7)), _lit(8)), is_long)
    if t.nullable:
        count = _coalesce(count)
    var = _Var(padded=padded, blob=blob, count=count)
    return _Field(null=None, lo=lo, hi=hi, var=var, var_len=_mul(count, 8))


def _chunk_at(padded: exp.Expression, j: int) -> exp.Expression:
    """Bytes ``8j .. 8j+7`` of a zero-padded blob as a big-endian UBIGINT."""
    piece = exp.Bracket(
        this=exp.Paren(this=padded),
        expressions=[exp.Slice(this=_lit(8 * j + 1), expression=_lit(8 * j + 8))],
    )
    return _cast(_cast(piece, "BIT"), "UBIGINT")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Var:
    """A string's var part: `count` 8-byte chunks of `blob` (zero-padded in `padded`)."""

    padded: exp.Expression
    blob: exp.Expression
    count: Word


def _decimal_region(value: exp.Expression, t: DataType) -> tuple[exp.Expression, tuple[Word, ...]]:
    """A non-compact DECIMAL: its BigInteger byte length and the 4 words of its 16-byte region."""
    text = _cast(_cast(value, f"DECIMAL({t.precision},{t.scale or 0})"), "VARCHAR")
    unscaled = _cast(
        _fn("replace", text, exp.Literal.string("."), exp.Literal.string("")), "HUGEINT"
    )
    # BigInteger.toByteArray(): bitLength() / 8 + 1 bytes; bitLength(u) = bitLength(~u) if u < 0.
    magnitude = _fn("greatest", unscaled, _bin(exp.Sub, _lit(-1), unscaled))
    length: exp.Expression = _lit(1)
    for k in range(1, 16):
        bigger = _bin(exp.GTE, magnitude, _cast(_lit(1 << (8 * k - 1)), "HUGEINT"))
        length = _bin(exp.Add, length, _cast(bigger, "BIGINT"))
    full = _fn("lpad", _fn("hex", unscaled), _lit(32), exp.Literal.string("0"))
    region = _fn("rpad", _fn("right", full, _mul(length, 2)), _lit(32), exp.Literal.string("0"))
    words: list[Word] = []
    for start in (1, 17):
        hex16 = _bin(
            exp.DPipe, exp.Literal.string("0x"), _fn("substr", region, _lit(start), _lit(16))
        )
        v = _cast(hex16, "UBIGINT")
        words += [_bswap_high(v), _bswap_low(v)]
    return _cast(length, "UBIGINT"), tuple(words)


def _var_field(value: exp.Expression, t: DataType, offset: Word) -> _Field:
    """DECIMAL(p > 18), TIMESTAMP(p > 3): slot ``(offset << 32) | x``, a fixed-size var region."""
    if t.root == "DECIMAL":
        length, words = _decimal_region(value, t)
        return _Field(null=None, lo=length, hi=offset, var_words=words, var_len=16)
    millis, nanos = _timestamp_parts(value, t)
    lo, hi = _words_of_u64(millis)
    return _Field(null=None, lo=_cast(nanos, "UBIGINT"), hi=offset, var_words=(lo, hi), var_len=8)


def _coalesce(w: Word) -> Word:
    return w if isinstance(w, int) else exp.Coalesce(this=w, expressions=[_u64(0)])


def _field(value: exp.Expression, t: DataType, offset: Word) -> _Field:
    if t.is_nested or t.root not in _KEY_ROOTS:
        raise UnsupportedFeatureError(f"a {t.root} column cannot be part of a bucket key")
    fixed = _fixed_words(value, t)
    if fixed is not None:
        f = _Field(null=None, lo=fixed[0], hi=fixed[1])
    elif t.root in STRING_ROOTS | BINARY_ROOTS:
        f = _string_field(value, t, offset)
    else:
        f = _var_field(value, t, offset)
    if not t.nullable:
        return f
    # A null field: null bit set, slot zero, but DECIMAL/TIMESTAMP var regions stay reserved (§5.1).
    null = _cast(_bin(exp.Is, value, exp.null()), "UBIGINT")
    hi = f.hi if f.hi is offset else _coalesce(f.hi)
    words = tuple(_coalesce(w) for w in f.var_words)
    return _Field(
        null=null,
        lo=_coalesce(f.lo),
        hi=hi,
        var_words=words,
        var=f.var,
        var_len=f.var_len,
    )


_KEY_ROOTS = (
    NUMERIC_ROOTS | STRING_ROOTS | BINARY_ROOTS | TIMESTAMP_ROOTS | {"BOOLEAN", "DATE", "TIME"}
)


# --- assembly -------------------------------------------------------------------------------------


def _plus(a: Word, b: Word) -> Word:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return _add(_u64(a), _u64(b))


def _fields(columns: Sequence[tuple[exp.Expression, DataType]]) -> tuple[int, list[_Field], Word]:
    """The header size, the encoded fields and the row's total byte length."""
    head = header_size(len(columns))
    total: Word = head + 8 * len(columns)
    fields = []
    for value, t in columns:
        f = _field(value, t, total)
        fields.append(f)
        total = _plus(total, f.var_len)
    return head, fields, total


def _header_words(head: int, fields: Sequence[_Field]) -> list[Word]:
    words: list[Word] = []
    for w in range(head // 4):
        parts = [
            _shl(f.null, i + 8 - 32 * w)
            for i, f in enumerate(fields)
            if f.null is not None and (i + 8) // 32 == w
        ]
        words.append(_or_all(parts) if parts else 0)
    return words


#: The rendered hash per key (each column's SQL and type): built and rendered once per process.
_RENDERED: dict[tuple[tuple[str, DataType], ...], str] = {}
_RENDERED_MAX = 256


def hash_expression(columns: Sequence[tuple[exp.Expression, DataType]]) -> exp.Expression:
    """Java's ``BinaryRow.hashCode()`` (a signed INTEGER) of the row of `columns`, as DuckDB SQL.

    Each value must have the DuckDB type of its Paimon type (`paimon_sql.types.duckdb_type`).
    The expression is built with sqlglot and rendered once per process and key; callers get the
    rendered DuckDB text in a parenthesised ``Var``, which copies and renders at no cost (a STRING
    key's tree has thousands of nodes: about 0.1 s to render, as much to copy, per statement).

    >>> from paimon_sql.types import parse_type
    >>> e = hash_expression([(exp.column("name"), parse_type("STRING"))])
    >>> "LIST_REDUCE" in e.sql("duckdb")  # the var part of long strings is a loop
    True
    >>> hash_expression([]).sql("duckdb")  # the empty row: nothing left to compute in SQL
    '-1670924195'
    """
    key = tuple((value.sql("duckdb"), t) for value, t in columns)
    text = _RENDERED.get(key)
    if text is None:
        tree = _hash_tree(columns)
        if isinstance(tree, (exp.Literal, exp.Neg)):  # a constant: the empty row
            return tree
        if len(_RENDERED) >= _RENDERED_MAX:
            _RENDERED.clear()
        text = _RENDERED[key] = tree.sql("duckdb")
    return exp.Paren(this=exp.Var(this=text))


def _hash_tree(columns: Sequence[tuple[exp.Expression, DataType]]) -> exp.Expression:
    head, fields, total = _fields(columns)
    items: list[Word] = list(_header_words(head, fields))
    for f in fields:
        items += [f.lo, f.hi]
    for f in fields:
        items += f.var_words
        if f.var is not None:
            items.append(f.var)
    h = _fold(items)
    if isinstance(h, int) and isinstance(total, int):
        final = _fmix_int(h ^ total)
        return _lit(final - (1 << 32) if final & 0x80000000 else final)
    x = _xor(h, total)
    if not x.find(exp.Lambda) and len(x.sql("duckdb")) <= _INLINE_FMIX_MAX_SQL:
        return _signed(_fmix(x))
    # fmix reads its input 8 times: bind a large input (or one with a loop) instead of copying it.
    return _signed(_fmix_once(x))


def bucket_expression(
    columns: Sequence[tuple[exp.Expression, DataType]], num_buckets: int
) -> exp.Expression:
    """``abs(hash % N)`` with Java's truncating ``%``: the fixed bucket of each row (§6).

    One bucket is the constant 0, without hashing: binding the hash of a string key costs DuckDB
    tens of milliseconds per statement.

    >>> from paimon_sql.types import parse_type
    >>> bucket_expression([], 3).sql("duckdb")
    'ABS((-1670924195) % 3)'
    >>> bucket_expression([(exp.column("k"), parse_type("STRING"))], 1).sql("duckdb")
    '0'
    """
    if num_buckets <= 0:
        raise ValueError(f"num_buckets must be positive, got {num_buckets}")
    if num_buckets == 1:
        return _lit(0)
    return exp.Abs(this=_bin(exp.Mod, hash_expression(columns), _lit(num_buckets)))


#: The name of the rows in `stream_values`'s query.
ROWS = "__paimon_rows"
#: Rows per result batch of `stream_values`'s query, and what its streaming result may hold. DuckDB
#: reads ahead of the result it hands over: with its defaults (batches of 1M rows, 10 MiB) 11 input
#: batches of 10k rows, so that many Spark batches were held. Each table's rows are followed by
#: NULL rows up to a multiple of `_STREAM_BATCH`, and `_STREAM_BATCH` more (1024 to 2047 rows hashed
#: in vain, 13% more rows for 10k-row batches): then DuckDB hands over a table's values before it
#: reads the next table (measured on DuckDB 2.0; the unit tests check it).
_STREAM_BATCH = 1024
_STREAM_BUFFER = "8KB"

_T = TypeVar("_T")
_P = TypeVar("_P")


def stream_values(
    expression: exp.Expression,
    items: Iterable[_T],
    rows_of: Callable[[_T], pa.Table],
    python: Callable[[pa.Table], pa.Array[Any] | None] | None = None,
) -> Generator[tuple[_T, pa.Array[Any]], None, None]:
    """Each of `items` with a bucket or key-hash `expression` over its rows, as INT32, in order.

    For callers that run no DuckDB themselves (the Spark tasks). ``rows_of(item)`` is the item's
    rows (one Arrow schema for all), the table ``__paimon_rows`` the expression's columns refer to.
    The whole stream is one query on a private single-threaded DuckDB (which keeps the rows in
    arrival order), so the expression is bound once, not once per item (a string key's costs 20-90
    ms); each item is pulled once the earlier ones are answered, so one is held at a time (see
    `_STREAM_BATCH`). No DuckDB at all
    for a constant expression, nor, when `python` computes the same values (`python_buckets`,
    `python_hashes`; None when a value has no exact Python form), for a stream of at most
    `SMALL_INPUT_ROWS` rows.

    >>> from paimon_sql.types import parse_type
    >>> key = [(exp.column("id"), parse_type("BIGINT NOT NULL"))]
    >>> batches = [pa.table({"id": [1, 2, 3]}), pa.table({"id": [4]})]
    >>> out = stream_values(bucket_expression(key, 4), batches, lambda rows: rows)
    >>> [values.to_pylist() for _, values in out]
    [[2, 0, 1], [2]]
    """
    pairs: Iterator[tuple[_T, pa.Table]] = ((item, rows_of(item)) for item in items)
    if isinstance(expression, exp.Literal):  # one bucket: 0
        value = pa.scalar(int(expression.this), pa.int32())
        for item, rows in pairs:
            yield item, pa.repeat(value, rows.num_rows)
        return
    if python is not None:
        head, few = _head(pairs, SMALL_INPUT_ROWS)
        values = [python(rows) for _, rows in head] if few else []
        if few and all(v is not None for v in values):
            for (item, _), v in zip(head, values, strict=True):
                assert v is not None
                yield item, v
            return
        pairs = _drained(head, pairs)
    yield from _streamed(expression, pairs)


def _head(
    pairs: Iterator[tuple[_T, pa.Table]], limit: int
) -> tuple[list[tuple[_T, pa.Table]], bool]:
    """The first pairs up to and including the one that takes the rows past `limit`.

    With whether that is all of them.
    """
    head, count = [], 0
    for pair in pairs:
        head.append(pair)
        count += pair[1].num_rows
        if count > limit:
            return head, False
    return head, True


def _drained(head: list[_P], rest: Iterator[_P]) -> Iterator[_P]:
    """`head`, then `rest`; `head` is emptied as it goes (nothing holds an item once passed on)."""
    head.reverse()
    while head:
        yield head.pop()
    yield from rest


def _streamed(
    expression: exp.Expression, pairs: Iterator[tuple[_T, pa.Table]]
) -> Iterator[tuple[_T, pa.Array[Any]]]:
    """`stream_values` through DuckDB: its result cut back into the items' row counts."""
    first = next(pairs, None)
    if first is None:
        return
    stream = _Stream[_T](first[1].schema)
    pairs = _drained([first], pairs)
    del first
    rows_table = exp.Table(this=exp.to_identifier(ROWS))
    query = exp.select(expression.copy()).from_(rows_table).sql("duckdb")
    with duckdb.connect(config={"threads": 1, "preserve_insertion_order": True}) as con:
        con.execute(set_setting("streaming_buffer_size", _STREAM_BUFFER).sql("duckdb"))
        con.register(ROWS, pa.RecordBatchReader.from_batches(stream.schema, stream.feed(pairs)))
        with con.sql(query).arrow(batch_size=_STREAM_BATCH) as result:
            for out in result:
                yield from stream.answer(out.column(0).cast(pa.int32()))
            yield from stream.answer(pa.array([], pa.int32()))
        stream.close()


class _Stream(Generic[_T]):
    """The items of `_streamed`, fed to DuckDB and handed out with their values.

    Each item's rows are followed by padding rows (`_STREAM_BATCH`), whose values are dropped.
    """

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        #: fed, not answered yet: (item, its rows, its padding rows)
        self.pending: collections.deque[tuple[_T, int, int]] = collections.deque()
        self.failed: list[Exception] = []
        self.padding: dict[int, pa.RecordBatch] = {}
        self.pieces: list[pa.Array[Any]] = []  # values not handed out yet, `held` of them
        self.held = 0
        self.skip = 0  # padding values still to come, to drop

    def feed(self, pairs: Iterator[tuple[_T, pa.Table]]) -> Iterator[pa.RecordBatch]:
        """The batches DuckDB reads; an error raised by `pairs` ends them and is kept."""
        try:
            for item, rows in pairs:
                if not rows.schema.equals(self.schema):  # Arrow's reader would not say
                    raise ValueError(f"rows of schema {rows.schema} after rows of {self.schema}")
                pad = -rows.num_rows % _STREAM_BATCH + _STREAM_BATCH
                self.pending.append((item, rows.num_rows, pad))
                yield from rows.to_batches()
                if pad not in self.padding:  # mostly one size (Spark's batches are of one size)
                    nulls = [pa.nulls(pad, f.type) for f in self.schema]
                    self.padding[pad] = pa.RecordBatch.from_arrays(nulls, schema=self.schema)
                yield self.padding[pad]
        except Exception as err:  # noqa: BLE001 - `close` raises it; DuckDB would replace it
            self.failed.append(err)

    def answer(self, column: pa.Array[Any]) -> Iterator[tuple[_T, pa.Array[Any]]]:
        """The items whose values are in once `column` (DuckDB's next values) is added.

        An item goes as soon as its own values are in, not waiting for its padding's.
        """
        drop = min(self.skip, len(column))
        self.skip -= drop
        if drop < len(column):
            self.pieces.append(column.slice(drop))
            self.held += len(column) - drop
        while self.pending and self.pending[0][1] <= (0 if self.skip else self.held):
            item, n, pad = self.pending.popleft()
            if self.skip:  # no rows, while the padding before it is still to come
                self.skip += pad
                yield item, pa.array([], pa.int32())
                continue
            values = pa.concat_arrays(self.pieces) if self.pieces else pa.array([], pa.int32())
            drop = min(pad, self.held - n)
            self.pieces = [values.slice(n + drop)] if self.held > n + drop else []
            self.held, self.skip = self.held - n - drop, pad - drop
            yield item, values.slice(0, n)

    def close(self) -> None:
        """Raise what `feed` kept, or if DuckDB answered another number of rows than it was fed."""
        if self.failed:
            raise self.failed[0]
        if self.pending or self.held or self.skip:
            raise RuntimeError(
                f"bucket query: {self.held} rows left over, {len(self.pending)} batches short"
            )


# --- small inputs: the bucket in Python ---------------------------------------------------------

#: At most this many input rows get their bucket or key hash from Python (the SQL writer's
#: `TableWriter._small_input`, `_sorted` and `_hash_in_python`, a Spark task's `stream_values`);
#: more are hashed in SQL. Measured per INSERT into an 8-bucket table (CPU): a STRING key costs
#: Python ~8 µs a row and the SQL path ~105 ms a statement (binding ~13 KB of SQL), so they cross at
#: ~12,000 rows; a (STRING, INT) key ~9 µs / ~115 ms; a BIGINT key ~4.5 µs / ~45 ms, crossing at
#: ~4,000.
SMALL_INPUT_ROWS = 4096


def few_rows(source: exp.Expression | str, limit: int) -> bool:
    """Whether the query `source` yields at most `limit` rows, known from its shape alone.

    Only ``VALUES`` lists and ``SELECT``s without ``FROM``, under projections, filters and
    ``UNION``s: no table, join, ``UNNEST`` or table function (any of which may yield any number of
    rows). Conservative: False when unsure (and for query text). For writes that must know the
    size before they stage (dynamic buckets: the key hash is a staged column).

    >>> few_rows(exp.maybe_parse("SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(k, v)"), 10)
    True
    >>> few_rows(exp.maybe_parse("SELECT i FROM range(3) r(i)"), 10)
    False
    >>> few_rows(exp.maybe_parse("SELECT unnest([1, 2, 3])"), 10)
    False
    """
    if isinstance(source, str):
        return False
    if source.find(exp.Table, exp.Join, exp.Unnest, exp.Explode, exp.Lateral):
        return False
    rows = sum(len(v.expressions) for v in source.find_all(exp.Values))
    rows += sum(1 for s in source.find_all(exp.Select) if not s.args.get("from_"))
    return rows <= limit


def python_hashable(t: DataType) -> bool:
    """Whether `key_values` turns DuckDB's Arrow values of type `t` into `encode_row`'s exactly.

    Every bucket-key type but TIMESTAMP(p > 6) / TIMESTAMP_LTZ(p > 6), whose nanoseconds a Python
    ``datetime`` cannot hold (those keys are hashed in SQL only).

    >>> from paimon_sql.types import parse_type
    >>> python_hashable(parse_type("STRING")), python_hashable(parse_type("TIMESTAMP(9)"))
    (True, False)
    """
    if t.is_nested or t.root not in _KEY_ROOTS:
        return False
    return t.root not in TIMESTAMP_ROOTS or (t.precision or 0) <= 6


_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def key_values(column: pa.Array[Any] | pa.ChunkedArray[Any], t: DataType) -> list[Any]:
    """The Python values of an Arrow column of DuckDB type ``duckdb_type(t)``, for `encode_row`.

    Of `python_hashable` types: DATE as days and TIME as milliseconds (a date beyond the years of
    ``datetime.date`` still converts); TIMESTAMP as a naive ``datetime``, TIMESTAMP_LTZ as a UTC
    one, from the microseconds since the epoch (whatever the zone of the Arrow type). A timestamp
    outside years 1..9999 raises ``OverflowError``; a column of another unit, ``ValueError``.

    >>> from paimon_sql.types import parse_type
    >>> key_values(pa.array([0, None], pa.time64("us")), parse_type("TIME"))
    [0, None]
    >>> key_values(pa.array([1500], pa.timestamp("us", "UTC")), parse_type("TIMESTAMP_LTZ(6)"))
    [datetime.datetime(1970, 1, 1, 0, 0, 0, 1500, tzinfo=datetime.timezone.utc)]
    """
    r = t.root
    if r == "DATE":
        return column.cast(pa.int32()).to_pylist()
    if r == "TIME":
        if column.type != pa.time64("us"):
            raise ValueError(f"a TIME key column of Arrow type {column.type}, not time64[us]")
        return [None if m is None else m // 1000 for m in column.cast(pa.int64()).to_pylist()]
    if r in TIMESTAMP_ROOTS:
        if not pa.types.is_timestamp(column.type) or column.type.unit != "us":
            raise ValueError(f"a {r} key column of Arrow type {column.type}, not microseconds")
        base = _EPOCH_UTC if r == "TIMESTAMP_LTZ" else _EPOCH
        micros = column.cast(pa.int64()).to_pylist()
        return [None if m is None else base + datetime.timedelta(microseconds=m) for m in micros]
    return column.to_pylist()


def python_hashes(
    columns: Sequence[pa.Array[Any] | pa.ChunkedArray[Any]], types: Sequence[DataType]
) -> list[int] | None:
    """Java's ``BinaryRow.hashCode()`` of each row of the key `columns`, computed in Python.

    `hash_expression`'s values over the same DuckDB values (`types` must be `python_hashable`), by
    `paimon_sql.format.bucket.row_hash`; None when a value has no exact Python form (a timestamp
    outside years 1..9999).

    >>> from paimon_sql.types import parse_type
    >>> python_hashes([pa.array(["abc"]), pa.array([5], pa.int32())],
    ...               [parse_type("STRING"), parse_type("INT")]) == [
    ...     row_hash(("abc", 5), [parse_type("STRING"), parse_type("INT")])]
    True
    """
    try:
        values = [key_values(c, t) for c, t in zip(columns, types, strict=True)]
    except (OverflowError, ValueError, pa.ArrowException):
        return None
    return [row_hash(row, types) for row in zip(*values, strict=True)]


def python_buckets(
    columns: Sequence[pa.Array[Any] | pa.ChunkedArray[Any]],
    types: Sequence[DataType],
    num_buckets: int,
) -> pa.Array[Any] | None:
    """The bucket of each row of the key `columns` (INT32), computed in Python (`python_hashes`).

    The same buckets as `bucket_expression` over the same DuckDB values, without its cost per
    statement (DuckDB binds a STRING key's ~13 KB of SQL hash in 60-90 ms; Python hashes a row in
    ~10 µs): for small inputs. None when `python_hashes` is.

    >>> from paimon_sql.types import parse_type
    >>> python_buckets([pa.array([1, 2, 3])], [parse_type("BIGINT NOT NULL")], 4).to_pylist()
    [2, 0, 1]
    """
    hashes = python_hashes(columns, types)
    if hashes is None:
        return None
    return pa.array([bucket_of_hash(h, num_buckets) for h in hashes], pa.int32())
