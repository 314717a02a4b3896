"""Round trips of the pure codecs: BinaryRow, snapshot JSON, schema JSON and deletion vectors."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import itertools
import math
import struct
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pyroaring import BitMap

from paimon_sql.errors import SpecViolationError
from paimon_sql.format.binary_row import decode_row, encode_row, header_size
from paimon_sql.format.deletion_vector import decode_vector, encode_index_file, encode_vector
from paimon_sql.format.schema import CURRENT_VERSION, TableSchema, schema_from_json, schema_to_json
from paimon_sql.format.snapshot import CommitKind, Snapshot, snapshot_from_json, snapshot_to_json
from paimon_sql.types import DataField, DataType, parse_type, type_to_json

if TYPE_CHECKING:
    from collections.abc import Iterator

UTC = datetime.UTC

# --- BinaryRow ---------------------------------------------------------------------------------


def _decimals(precision: int, scale: int) -> st.SearchStrategy[decimal.Decimal]:
    bound = 10**precision - 1
    edges = st.sampled_from([bound, -bound, 0, 1, -1, 10 ** (precision - 1)])
    unscaled = st.one_of(edges, st.integers(-bound, bound))
    return unscaled.map(lambda u: decimal.Decimal(u).scaleb(-scale))


def _timestamps(precision: int, aware: bool) -> st.SearchStrategy[datetime.datetime]:
    tz = st.just(UTC) if aware else st.none()
    values = st.datetimes(
        min_value=datetime.datetime(1, 1, 2),
        max_value=datetime.datetime(9999, 12, 30),
        timezones=tz,
    )
    if precision <= 3:  # millisecond slots: micros below a millisecond are not stored
        values = values.map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000))
    return values


def _type_and_value(text: str) -> st.SearchStrategy[tuple[DataType, Any]]:
    t = parse_type(text)
    r = t.root
    value: st.SearchStrategy[Any]
    if r == "BOOLEAN":
        value = st.booleans()
    elif r in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        bits = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}[r]
        value = st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    elif r == "FLOAT":
        value = st.floats(width=32)
    elif r == "DOUBLE":
        value = st.floats()
    elif r == "DATE":
        value = st.dates()
    elif r == "TIME":
        value = st.times().map(lambda v: v.replace(microsecond=v.microsecond // 1000 * 1000))
    elif r in ("CHAR", "VARCHAR"):
        # 0..7 UTF-8 bytes are stored inline in the slot, longer ones in the var part
        value = st.one_of(st.text(max_size=3), st.text(min_size=4, max_size=40))
    elif r in ("BINARY", "VARBINARY"):
        value = st.binary(max_size=24)
    elif r == "DECIMAL":
        value = _decimals(t.precision or 10, t.scale or 0)
    else:
        precision = 6 if t.precision is None else t.precision
        value = _timestamps(precision, aware=r == "TIMESTAMP_LTZ")
    return st.tuples(st.just(t), st.one_of(st.none(), value))


ROW_TYPES = [
    "BOOLEAN",
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "DATE",
    "TIME",
    "STRING",
    "CHAR(5)",
    "VARCHAR(20)",
    "BYTES",
    "BINARY(3)",
    # DECIMAL: compact (unscaled long in the slot) up to precision 18, var part from 19
    "DECIMAL(1, 0)",
    "DECIMAL(10, 2)",
    "DECIMAL(18, 0)",
    "DECIMAL(18, 18)",
    "DECIMAL(19, 0)",
    "DECIMAL(20, 3)",
    "DECIMAL(38, 10)",
    "DECIMAL(38, 0)",
    # TIMESTAMP: millis in the slot up to precision 3, millis + nanos-of-milli beyond
    "TIMESTAMP(0)",
    "TIMESTAMP(3)",
    "TIMESTAMP(4)",
    "TIMESTAMP(6)",
    "TIMESTAMP(9)",
    "TIMESTAMP(3) WITH LOCAL TIME ZONE",
    "TIMESTAMP(6) WITH LOCAL TIME ZONE",
]
FIELDS = st.one_of([_type_and_value(t) for t in ROW_TYPES])


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


@given(st.lists(FIELDS, max_size=70))
@example([(parse_type("STRING"), "1234567"), (parse_type("STRING"), "12345678")])
@example([(parse_type("DECIMAL(38, 0)"), decimal.Decimal(-(10**38) + 1))])
@example([(parse_type("DECIMAL(19, 0)"), None), (parse_type("TIMESTAMP(9)"), None)])
@example([(parse_type("TIMESTAMP(6)"), datetime.datetime(1969, 12, 31, 23, 59, 59, 999999))])
def test_binary_row_round_trip(fields: list[tuple[DataType, Any]]) -> None:
    types = [t for t, _ in fields]
    values = [v for _, v in fields]
    data = encode_row(values, types)
    # Java's BinaryRow: arity prefix, null bits + 8-byte slots, a var part in 8-byte words
    assert struct.unpack_from(">i", data)[0] == len(types)
    assert len(data) >= 4 + header_size(len(types)) + 8 * len(types)
    assert (len(data) - 4) % 8 == 0
    decoded = decode_row(data, types)
    assert all(_same(v, d) for v, d in zip(values, decoded, strict=True)), (values, decoded)
    assert encode_row(decoded, types) == data  # one canonical encoding


def test_binary_row_of_the_wrong_arity_is_refused() -> None:
    data = encode_row([1, "a"], [parse_type("INT"), parse_type("STRING")])
    with pytest.raises(SpecViolationError, match="2 fields, expected 1"):
        decode_row(data, [parse_type("INT")])


# --- snapshot JSON -----------------------------------------------------------------------------

_text = st.text(max_size=12)
#: file names in metadata are bare names: not empty, no folder, not '.' or '..', no NUL
_file = st.text(
    st.characters(blacklist_characters="/\\\x00", blacklist_categories=("Cs",)),
    min_size=1,
    max_size=12,
).filter(lambda n: n not in (".", ".."))
_opt_int = st.one_of(st.none(), st.integers(0, 2**63 - 1))
_times = st.datetimes(
    min_value=datetime.datetime(1970, 1, 1), max_value=datetime.datetime(2200, 1, 1)
)
SNAPSHOTS = st.builds(
    Snapshot,
    version=st.sampled_from([1, 2, 3]),
    id=st.integers(1, 2**63 - 1),
    schema_id=st.integers(0, 1000),
    base_manifest_list=_file,
    base_manifest_list_size=_opt_int,
    delta_manifest_list=_file,
    delta_manifest_list_size=_opt_int,
    changelog_manifest_list=st.one_of(st.none(), _file),
    changelog_manifest_list_size=_opt_int,
    index_manifest=st.one_of(st.none(), _file),
    commit_user=_text,
    commit_identifier=st.integers(-(2**63), 2**63 - 1),
    commit_kind=st.sampled_from(CommitKind),
    time_millis=st.integers(0, 2**62),
    total_record_count=_opt_int,
    delta_record_count=_opt_int,
    changelog_record_count=_opt_int,
    watermark=st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
    statistics=st.one_of(st.none(), _file),
    properties=st.one_of(st.none(), st.dictionaries(_text, _text, max_size=3)),
    next_row_id=_opt_int,
    uuid=st.one_of(st.none(), st.uuids().map(str)),
    log_offsets=st.one_of(st.none(), st.dictionaries(_text, st.integers(0, 2**40), max_size=3)),
    # tags only; Jackson writes the Duration in seconds with nine decimals
    tag_create_time=st.one_of(st.none(), _times),
    tag_time_retained_seconds=st.one_of(
        st.none(), st.integers(0, 10**12).map(lambda ms: ms / 1000)
    ),
)


@given(SNAPSHOTS)
def test_snapshot_json_round_trip(snapshot: Snapshot) -> None:
    text = snapshot_to_json(snapshot)
    back = snapshot_from_json(text)
    assert back == snapshot
    assert snapshot_to_json(back) == text


# --- schema JSON -------------------------------------------------------------------------------

ATOMIC = st.sampled_from(
    [
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "DATE",
        "STRING",
        "BYTES",
        "VARIANT",
        "CHAR(1)",
        "CHAR(255)",
        "VARCHAR(1)",
        "BINARY(16)",
        "VARBINARY(7)",
        "DECIMAL(1, 0)",
        "DECIMAL(38, 38)",
        "DECIMAL(10, 2)",
        "TIME(0)",
        "TIME(3)",
        "TIMESTAMP(0)",
        "TIMESTAMP(3)",
        "TIMESTAMP(9)",
        "TIMESTAMP(6) WITH LOCAL TIME ZONE",
    ]
).map(parse_type)


def _nullable(t: DataType) -> st.SearchStrategy[DataType]:
    return st.booleans().map(lambda n: DataType(**{**_as_kwargs(t), "nullable": n}))


def _as_kwargs(t: DataType) -> dict[str, Any]:
    return {name: getattr(t, name) for name in DataType.__dataclass_fields__}


def _nested(children: st.SearchStrategy[DataType]) -> st.SearchStrategy[DataType]:
    fields = st.lists(
        st.tuples(st.text(min_size=1, max_size=6), children), min_size=1, max_size=3
    ).map(
        lambda fs: tuple(
            DataField(id=100 + i, name=f"{n}{i}", type=t) for i, (n, t) in enumerate(fs)
        )
    )
    return st.one_of(
        children.map(lambda e: DataType(root="ARRAY", element=e)),
        children.map(lambda e: DataType(root="MULTISET", element=e)),
        st.tuples(children, children).map(lambda kv: DataType(root="MAP", key=kv[0], value=kv[1])),
        fields.map(lambda fs: DataType(root="ROW", fields=fs)),
    ).flatmap(_nullable)


TYPES = st.recursive(ATOMIC.flatmap(_nullable), _nested, max_leaves=6)


@given(TYPES)
def test_type_json_round_trip(t: DataType) -> None:
    assert parse_type(type_to_json(t)) == t


def _renumbered(t: DataType, ids: Iterator[int]) -> DataType:
    """`t` with every nested ROW field given the next id of `ids`."""
    kids = {
        k: _renumbered(getattr(t, k), ids)
        for k in ("element", "key", "value")
        if getattr(t, k) is not None
    }
    if t.fields:
        kids["fields"] = tuple(
            dataclasses.replace(f, id=next(ids), type=_renumbered(f.type, ids)) for f in t.fields
        )
    return dataclasses.replace(t, **kids) if kids else t


@st.composite
def schemas(draw: st.DrawFn) -> TableSchema:
    names = draw(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=6, unique=True))
    fields = tuple(
        DataField(
            id=i,
            name=n,
            type=draw(TYPES),
            description=draw(st.one_of(st.none(), st.text(max_size=10))),
            default_value=draw(st.one_of(st.none(), st.text(max_size=5))),
        )
        for i, n in enumerate(names)
    )
    partition = draw(st.lists(st.sampled_from(names), unique=True, max_size=2))
    keys = draw(st.lists(st.sampled_from(names), unique=True, max_size=3))
    options = draw(st.dictionaries(st.text(max_size=10), st.text(max_size=10), max_size=4))
    options.pop("bucket", None)  # a schema's bucket option is checked on read (a number)
    # field ids are unique across nesting levels and at most highestFieldId, as Java assigns them
    ids = itertools.count(len(fields))
    fields = tuple(dataclasses.replace(f, type=_renumbered(f.type, ids)) for f in fields)
    highest = next(ids) - 1
    return TableSchema(
        version=CURRENT_VERSION,
        id=draw(st.integers(0, 10**6)),
        fields=fields,
        highest_field_id=highest + draw(st.integers(0, 5)),
        partition_keys=tuple(partition),
        primary_keys=tuple(keys),
        options=MappingProxyType(options),
        comment=draw(st.one_of(st.none(), st.text(max_size=20))),
        time_millis=draw(st.integers(0, 2**62)),
    )


@given(schemas())
def test_schema_json_round_trip(schema: TableSchema) -> None:
    text = schema_to_json(schema)
    back = schema_from_json(text)
    assert back == schema
    assert schema_to_json(back) == text


# --- deletion vectors --------------------------------------------------------------------------

POSITIONS = st.integers(0, 2**31 - 1)
BITMAPS = st.one_of(
    st.sets(POSITIONS, max_size=50),
    st.sets(st.integers(0, 5000), max_size=300),  # dense: bitmap containers
    st.tuples(st.integers(0, 2**20), st.integers(1, 70000)).map(
        lambda r: set(range(r[0], r[0] + r[1]))  # one run: run containers, across 2^16 chunks
    ),
).map(BitMap)


@given(st.lists(BITMAPS, min_size=1, max_size=4))
@example([BitMap(), BitMap([0]), BitMap([2**31 - 1])])
def test_deletion_vector_index_file_round_trip(bitmaps: list[BitMap]) -> None:
    blob = encode_index_file(bitmaps)
    offset = 1  # entry i starts after the version byte and the earlier entries
    for bitmap in bitmaps:
        assert decode_vector(blob, offset, "f") == bitmap
        offset += len(encode_vector(bitmap))
    assert offset == len(blob)


@given(BITMAPS, st.data())
def test_deletion_vector_corruption_is_detected(bitmap: BitMap, data: st.DataObject) -> None:
    blob = bytearray(encode_index_file([bitmap]))
    (size,) = struct.unpack_from(">i", blob, 1)
    at = data.draw(st.integers(5, 5 + size - 1), label="flipped byte")  # magic + bitmap
    blob[at] ^= data.draw(st.integers(1, 255), label="xor")
    with pytest.raises(SpecViolationError, match="CRC32"):
        decode_vector(bytes(blob), 1, "f")
