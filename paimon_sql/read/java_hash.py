"""Java's hash-based orders as SQL: where a Paimon aggregate's result order is a ``HashMap``'s.

Java's ``collect`` with ``distinct`` keeps its elements in a ``HashSet`` and ``nested_update`` with
a ``nested-key`` in a ``HashMap`` keyed by the projected ``BinaryRow``; the merged array lists them
in the table's iteration order. To read the same arrays, the order is rebuilt here in SQL (pure
sqlglot, so it can be inlined like the rest of the merge):

* the element's Java ``hashCode`` (`element_hash`): Paimon's internal objects
  (``BinaryString``: MurmurHash3 x86_32 with seed 42 over the UTF-8 bytes, tail bytes
  sign-extended; ``Integer``/``Short``/``Byte``: the value; ``Long``: ``(int)(v ^ v >>> 32)``;
  ``Boolean``: 1231/1237; a date: its day number) and, for ``nested_update``, the hash of the key
  ``BinaryRow`` (`binary_row_hash`, the one `paimon_sql.format.bucket` computes in Python);
* ``HashMap.hash``: ``h ^ (h >>> 16)``; the bucket at the table's final capacity (16, doubled while
  ``n > 0.75 * capacity``); Java iterates buckets in order and a bucket's entries in insertion
  order, which every resize keeps: the result is sorted by (bucket, first occurrence).

Java turns a bucket with more than eight entries into a tree (or resizes early): such inputs are
refused with an error naming the column rather than read in a different order.

All arithmetic is on ``UBIGINT`` holding an unsigned 32-bit value. A value used more than once is
bound once with ``list_transform([v], lambda x: …)[1]`` so the expression stays linear in size.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from sqlglot import exp

from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.types import INTEGER_ROOTS

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from paimon_sql.types import DataType

_MASK = 0xFFFFFFFF
_C1, _C2 = 0xCC9E2D51, 0x1B873593
_SEED = 42
_names = itertools.count()

#: Element types whose Java hashCode `element_hash` computes.
_STRING_ROOTS = frozenset({"CHAR", "VARCHAR"})
#: Types a key ``BinaryRow`` field may have (fixed-length slots and strings).
_CONSTRUCTED = frozenset({"ROW", "ARRAY", "MAP", "MULTISET"})


def call(name: str, *args: exp.Expression) -> exp.Expression:
    """``name(args…)``: a DuckDB function call as written."""
    return exp.Anonymous(this=name, expressions=list(args))


def _cast(node: exp.Expression, to: str) -> exp.Expression:
    return exp.cast(node, exp.DataType.build(to, dialect="duckdb"))


def _u(value: int) -> exp.Expression:
    return _cast(exp.Literal.number(value), "UBIGINT")


def _var() -> str:
    return f"__paimon_h{next(_names)}"


def let(value: exp.Expression, body: Callable[[exp.Expression], exp.Expression]) -> exp.Expression:
    """`body` over `value` evaluated once: ``list_transform([value], lambda v: body(v))[1]``."""
    name = _var()
    inner = body(exp.column(name))
    transformed = exp.Anonymous(
        this="list_transform",
        expressions=[
            exp.Array(expressions=[value]),
            exp.Lambda(this=inner, expressions=[exp.to_identifier(name)]),
        ],
    )
    return list_at(transformed, exp.Literal.number(1))


def list_at(listed: exp.Expression, index: exp.Expression) -> exp.Expression:
    """``list_extract(listed, index)``: 1-based."""
    return exp.Anonymous(this="list_extract", expressions=[listed, index])


def _lambda(body: Callable[..., exp.Expression], arity: int = 1) -> exp.Lambda:
    names = [_var() for _ in range(arity)]
    return exp.Lambda(
        this=body(*(exp.column(n) for n in names)),
        expressions=[exp.to_identifier(n) for n in names],
    )


def _mask(node: exp.Expression) -> exp.Expression:
    return exp.BitwiseAnd(this=exp.paren(node), expression=_u(_MASK))


def _xor(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this="xor", expressions=[a, b])


def _shr(a: exp.Expression, n: int) -> exp.Expression:
    return exp.paren(exp.BitwiseRightShift(this=a, expression=exp.Literal.number(n)))


def _mul(a: exp.Expression, c: int) -> exp.Expression:
    return _mask(exp.Mul(this=a, expression=_u(c)))


def _rotl(x: exp.Expression, r: int) -> exp.Expression:
    return let(
        x,
        lambda v: _mask(
            exp.BitwiseOr(
                this=exp.paren(exp.BitwiseLeftShift(this=v, expression=exp.Literal.number(r))),
                expression=_shr(v, 32 - r),
            )
        ),
    )


def _mix_k1(k: exp.Expression) -> exp.Expression:
    return _mul(_rotl(_mul(k, _C1), 15), _C2)


def _mix_h1(h: exp.Expression, k1: exp.Expression) -> exp.Expression:
    rotated = _rotl(_xor(h, k1), 13)
    return _mask(exp.Add(this=exp.Mul(this=rotated, expression=_u(5)), expression=_u(0xE6546B64)))


def _fmix(h: exp.Expression) -> exp.Expression:
    def step(v: exp.Expression, shift: int, factor: int | None) -> exp.Expression:
        mixed = _xor(v, _shr(v, shift))
        return _mul(mixed, factor) if factor is not None else mixed

    return let(
        h,
        lambda a: let(
            step(a, 16, 0x85EBCA6B),
            lambda b: let(step(b, 13, 0xC2B2AE35), lambda c: step(c, 16, None)),
        ),
    )


def murmur_words(words: exp.Expression, length: exp.Expression) -> exp.Expression:
    """MurmurHash3 x86_32 (seed 42) over a list of 32-bit ``UBIGINT`` blocks, then fmix(length)."""
    h = exp.Anonymous(
        this="list_reduce",
        expressions=[words, _lambda(lambda acc, k: _mix_h1(acc, _mix_k1(k)), 2), _u(_SEED)],
    )
    return _fmix(_xor(h, _cast(length, "UBIGINT")))


def _hex_byte(hexed: exp.Expression, index: exp.Expression) -> exp.Expression:
    """Byte `index` (0-based) of a hex string as a 2-digit hex text."""
    start = exp.Add(
        this=exp.Mul(this=exp.Literal.number(2), expression=exp.paren(index)),
        expression=exp.Literal.number(1),
    )
    return exp.Substring(this=hexed, start=start, length=exp.Literal.number(2))


def _from_hex(*digits: exp.Expression) -> exp.Expression:
    text: exp.Expression = exp.Literal.string("0x")
    for d in digits:
        text = exp.DPipe(this=text, expression=d)
    return _cast(text, "UBIGINT")


def murmur_bytes(blob: exp.Expression) -> exp.Expression:
    """Java's ``MurmurHashUtils.hashBytes`` of a BLOB: 4-byte LE words, then signed tail bytes."""

    def over(hexed: exp.Expression) -> exp.Expression:
        n = _cast(exp.Div(this=call("length", hexed), expression=exp.Literal.number(2)), "BIGINT")
        aligned = exp.Mul(
            this=exp.IntDiv(this=n.copy(), expression=exp.Literal.number(4)),
            expression=exp.Literal.number(4),
        )

        def word(i: exp.Expression) -> exp.Expression:
            base = exp.Mul(this=exp.Literal.number(4), expression=i)
            at = [exp.Add(this=base.copy(), expression=exp.Literal.number(j)) for j in (3, 2, 1, 0)]
            return _from_hex(*(_hex_byte(hexed.copy(), a) for a in at))

        def tail(i: exp.Expression) -> exp.Expression:
            byte = _from_hex(_hex_byte(hexed.copy(), i))
            signed = exp.Add(this=byte.copy(), expression=_u(0xFFFFFF00))
            return exp.If(
                this=exp.GTE(this=byte, expression=_u(128)), true=signed, false=byte.copy()
            )

        words = exp.Anonymous(
            this="list_transform",
            expressions=[
                call("range", exp.IntDiv(this=n.copy(), expression=exp.Literal.number(4))),
                _lambda(word),
            ],
        )
        tails = exp.Anonymous(
            this="list_transform",
            expressions=[call("range", aligned, n.copy()), _lambda(tail)],
        )
        return murmur_words(call("list_concat", words, tails), n.copy())

    return let(call("hex", blob), over)


def _encode(node: exp.Expression) -> exp.Expression:
    """``encode(node)``: a string's UTF-8 bytes as a BLOB."""
    return exp.Anonymous(this="encode", expressions=[node])


def _int32(node: exp.Expression) -> exp.Expression:
    """A signed 32-bit value as its unsigned bit pattern."""
    wrapped = exp.Mod(
        this=exp.paren(exp.Add(this=_cast(node, "BIGINT"), expression=exp.Literal.number(1 << 32))),
        expression=exp.Literal.number(1 << 32),
    )
    return _cast(wrapped, "UBIGINT")


def _int64_words(node: exp.Expression) -> tuple[exp.Expression, exp.Expression]:
    """A signed 64-bit value's (low, high) 32-bit halves."""
    wrapped = exp.Mod(
        this=exp.paren(
            exp.Add(this=_cast(node, "HUGEINT"), expression=exp.Literal.number(1 << 64))
        ),
        expression=exp.Literal.number(1 << 64),
    )
    unsigned = _cast(wrapped, "UBIGINT")
    return _mask(unsigned), _shr(unsigned.copy(), 32)


def _days(node: exp.Expression) -> exp.Expression:
    return exp.Sub(this=node, expression=_cast(exp.Literal.string("1970-01-01"), "DATE"))


def hashable(t: DataType) -> bool:
    """Whether `element_hash` knows Java's hashCode for values of `t`."""
    return t.root in _STRING_ROOTS or t.root in INTEGER_ROOTS or t.root in ("BOOLEAN", "DATE")


def element_hash(node: exp.Expression, t: DataType) -> exp.Expression:
    """Java's ``hashCode()`` of Paimon's internal value for `node` of type `t` (NULL: 0)."""
    value: exp.Expression
    if t.root in _STRING_ROOTS:
        value = murmur_bytes(_encode(node))
    elif t.root == "BIGINT":
        value = let(node, lambda v: _xor(*_int64_words(v)))
    elif t.root in INTEGER_ROOTS:
        value = _int32(node)
    elif t.root == "DATE":
        value = _int32(_days(node))
    elif t.root == "BOOLEAN":
        value = exp.If(this=node, true=_u(1231), false=_u(1237))
    else:
        raise UnsupportedFeatureError(f"no Java hashCode for {t.root} values")
    return exp.Coalesce(this=value, expressions=[_u(0)])


def binary_row_hash(fields: Sequence[tuple[exp.Expression, DataType]]) -> exp.Expression:
    """``BinaryRow.hashCode()`` of a row of `fields` (null bits, 8-byte slots, padded var part)."""
    arity = len(fields)
    null_bytes = ((arity + 63 + 8) // 64) * 8
    fixed = null_bytes + 8 * arity
    words: list[exp.Expression] = []
    # null bits: bit (i + 8) of the header, after the row-kind byte (0: INSERT)
    header_bits: list[exp.Expression] = [_u(0)] * (null_bytes // 4)
    for i, (node, _) in enumerate(fields):
        bit = i + 8
        flag = exp.If(
            this=exp.Is(this=node.copy(), expression=exp.null()),
            true=_u(1 << (bit % 32)),
            false=_u(0),
        )
        header_bits[bit // 32] = exp.BitwiseOr(this=header_bits[bit // 32], expression=flag)
    words += header_bits
    var_words: list[exp.Expression] = []
    var_length: exp.Expression = exp.Literal.number(0)
    for node, t in fields:
        if t.root in _STRING_ROOTS:
            blob = _encode(exp.Coalesce(this=node.copy(), expressions=[exp.Literal.string("")]))
            lo, hi, more, size = _string_slot(blob, fixed, var_length)
            missing = exp.Is(this=node.copy(), expression=exp.null())  # a NULL's slot is 0
            lo = exp.If(this=missing, true=_u(0), false=lo)
            hi = exp.If(this=missing.copy(), true=_u(0), false=hi)
            var_words.append(more)
            var_length = exp.Add(this=var_length, expression=size)
        elif t.root == "BIGINT":
            lo, hi = _int64_words(
                exp.Coalesce(this=node.copy(), expressions=[exp.Literal.number(0)])
            )
        elif t.root in INTEGER_ROOTS or t.root in ("DATE", "BOOLEAN"):
            value = _cast(node.copy(), "BIGINT") if t.root == "BOOLEAN" else node.copy()
            if t.root == "DATE":
                value = _days(node.copy())
            width = {"TINYINT": 0xFF, "SMALLINT": 0xFFFF}.get(t.root, _MASK)
            lo = exp.BitwiseAnd(
                this=_int32(exp.Coalesce(this=value, expressions=[exp.Literal.number(0)])),
                expression=_u(width),
            )
            hi = _u(0)
        else:
            raise UnsupportedFeatureError(f"no BinaryRow hash for {t.root} key fields")
        words += [lo, hi]
    listed = (
        call("list_concat", exp.Array(expressions=words), *var_words)
        if var_words
        else (exp.Array(expressions=words))
    )
    length = exp.Add(this=exp.Literal.number(fixed), expression=var_length)
    return murmur_words(listed, length)


def _string_slot(
    blob: exp.Expression, fixed: int, var_before: exp.Expression
) -> tuple[exp.Expression, exp.Expression, exp.Expression, exp.Expression]:
    """A string field's slot words, its var-part words and the var part's padded size.

    Up to 7 bytes sit in the slot (length | 0x80 in its last byte); longer ones go to the var
    part (the slot holds offset << 32 | length), padded to 8 bytes.
    """
    hexed = call("hex", blob)
    n = call("octet_length", blob.copy())
    padded = exp.Mul(
        this=exp.IntDiv(
            this=exp.paren(exp.Add(this=n.copy(), expression=exp.Literal.number(7))),
            expression=exp.Literal.number(8),
        ),
        expression=exp.Literal.number(8),
    )
    padded_hex = exp.Anonymous(
        this="rpad",
        expressions=[
            hexed.copy(),
            _cast(exp.Mul(this=exp.Literal.number(2), expression=exp.paren(padded)), "INTEGER"),
            exp.Literal.string("0"),
        ],
    )
    short = exp.LTE(this=n.copy(), expression=exp.Literal.number(7))

    def word(source: exp.Expression, i: int | exp.Expression) -> exp.Expression:
        base = i if isinstance(i, exp.Expression) else exp.Literal.number(i)
        at = [
            exp.Add(
                this=exp.Mul(this=exp.Literal.number(4), expression=base.copy()),
                expression=exp.Literal.number(j),
            )
            for j in (3, 2, 1, 0)
        ]
        return _from_hex(*(_hex_byte(source.copy(), a) for a in at))

    inline = exp.Anonymous(
        this="rpad", expressions=[hexed.copy(), exp.Literal.number(16), exp.Literal.string("0")]
    )
    marker = exp.BitwiseOr(this=_cast(n.copy(), "UBIGINT"), expression=_u(0x80))
    inline_hi = exp.BitwiseOr(
        this=word(inline, 1),
        expression=exp.paren(exp.BitwiseLeftShift(this=marker, expression=exp.Literal.number(24))),
    )
    offset = _cast(exp.Add(this=exp.Literal.number(fixed), expression=var_before), "UBIGINT")
    lo = exp.If(this=short, true=word(inline.copy(), 0), false=_cast(n.copy(), "UBIGINT"))
    hi = exp.If(this=short.copy(), true=inline_hi, false=offset)
    count = exp.IntDiv(this=padded.copy(), expression=exp.Literal.number(4))
    more = exp.If(
        this=short.copy(),
        true=_cast(exp.Array(expressions=[]), "UBIGINT[]"),
        false=exp.Anonymous(
            this="list_transform",
            expressions=[call("range", count), _lambda(lambda i: word(padded_hex.copy(), i))],
        ),
    )
    size = exp.If(this=short.copy(), true=exp.Literal.number(0), false=padded.copy())
    return lo, hi, more, size


def capacity(n: exp.Expression) -> exp.Expression:
    """A ``HashMap``'s table size after `n` puts: 16, doubled while ``n > 0.75 * size``."""
    sizes = exp.Array(
        expressions=[_cast(exp.Literal.number(1 << b), "BIGINT") for b in range(4, 31)]
    )
    fits = _lambda(
        lambda c: exp.LTE(
            this=exp.Mul(this=_cast(exp.Literal.number(4), "BIGINT"), expression=n.copy()),
            expression=exp.Mul(this=exp.Literal.number(3), expression=c),
        )
    )
    return list_at(
        exp.Anonymous(this="list_filter", expressions=[sizes, fits]), exp.Literal.number(1)
    )


def _crowded(sorted_entries: exp.Expression, n: exp.Expression) -> exp.Expression:
    """Whether `sorted_entries` ({b, i} sorted by bucket) hold 9 entries in one bucket."""

    def same(j: exp.Expression) -> exp.Expression:
        def b(at: exp.Expression) -> exp.Expression:
            return exp.Dot(
                this=list_at(sorted_entries.copy(), at), expression=exp.to_identifier("b")
            )

        return exp.EQ(
            this=b(j), expression=b(exp.Add(this=j.copy(), expression=exp.Literal.number(8)))
        )

    span = call(
        "range", exp.Literal.number(1), exp.Sub(this=n.copy(), expression=exp.Literal.number(7))
    )
    return call(
        "list_bool_or", exp.Anonymous(this="list_transform", expressions=[span, _lambda(same)])
    )


def hash_order(
    items: exp.Expression,
    hash_of: Callable[[exp.Expression], exp.Expression],
    value_of: Callable[[exp.Expression, exp.Expression], exp.Expression],
    refusal: str,
) -> exp.Expression:
    """`items` (distinct keys in first-occurrence order) in Java ``HashMap`` iteration order.

    `hash_of(item)` is the key's Java hashCode, `value_of(item, index)` what the output lists.
    A bucket of more than 8 entries (Java would treeify it) fails with `refusal`.
    """

    def ordered(listed: exp.Expression, spreads: exp.Expression) -> exp.Expression:
        n = call("len", listed.copy())

        def entries(size: exp.Expression) -> exp.Expression:
            def entry(spread: exp.Expression, index: exp.Expression) -> exp.Expression:
                bucket = exp.BitwiseAnd(
                    this=spread,
                    expression=_cast(
                        exp.Sub(this=size.copy(), expression=exp.Literal.number(1)), "UBIGINT"
                    ),
                )
                return exp.Struct(
                    expressions=[
                        exp.PropertyEQ(this=exp.to_identifier("b"), expression=bucket),
                        exp.PropertyEQ(this=exp.to_identifier("i"), expression=index),
                    ]
                )

            return call(
                "list_sort",
                exp.Anonymous(
                    this="list_transform", expressions=[spreads.copy(), _lambda(entry, 2)]
                ),
            )

        def result(sorted_entries: exp.Expression) -> exp.Expression:
            def pick(e: exp.Expression) -> exp.Expression:
                index = exp.Dot(this=e, expression=exp.to_identifier("i"))
                item = list_at(listed.copy(), index.copy())
                return value_of(item, index)

            return exp.Anonymous(this="list_transform", expressions=[sorted_entries, _lambda(pick)])

        def crowded(size: exp.Expression) -> exp.Expression:
            # a bucket of > 8 entries at min(size, 64): sorted buckets j and j + 8 equal
            return let(
                entries(call("least", size, exp.Literal.number(64))),
                lambda sorted_entries: _crowded(sorted_entries, n),
            )

        def finish(size: exp.Expression) -> exp.Expression:
            fail = exp.Anonymous(this="error", expressions=[exp.Literal.string(refusal)])
            return exp.If(
                this=call("coalesce", crowded(size.copy()), exp.false()),
                true=fail,
                false=let(entries(size.copy()), result),
            )

        return let(capacity(n), finish)

    def spread(item: exp.Expression) -> exp.Expression:
        return let(hash_of(item), lambda h: _xor(h, _shr(h, 16)))

    def with_spreads(listed: exp.Expression) -> exp.Expression:
        # each item's HashMap.hash once, shared by the crowding check and the order
        spreads = exp.Anonymous(this="list_transform", expressions=[listed.copy(), _lambda(spread)])
        return let(spreads, lambda hashed: ordered(listed, hashed))

    return let(items, with_spreads)
