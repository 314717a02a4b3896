"""java_hash: Java's hashCodes and HashMap order as SQL, against independent Python models.

The BinaryRow hash is `paimon_sql.format.bucket.row_hash` (checked against Java's bucket files in
the fixtures); the HashMap model below follows java.util.HashMap's put/resize (16 buckets, load
factor 0.75, split keeping order) written out here, not the SQL's (bucket, first index) rule. The
Flink corpus tables agg_collect_distinct, agg_hash_orders, agg_nested_update and
agg_nested_retract compare the whole merge with Java.
"""

from __future__ import annotations

import random
import string

import duckdb
import pytest
from sqlglot import exp

from paimon_sql.format.bucket import row_hash
from paimon_sql.read import java_hash
from paimon_sql.types import parse_type

_M = 0xFFFFFFFF


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    yield c
    c.close()


def _one(con, node: exp.Expression):
    return con.sql(exp.select(node).sql("duckdb")).fetchall()[0][0]


def _lit(value, type_name: str) -> exp.Expression:
    if value is None:
        node: exp.Expression = exp.null()
    elif isinstance(value, str):
        node = exp.Literal.string(value)
    elif isinstance(value, bool):
        node = exp.true() if value else exp.false()
    else:
        node = exp.Literal.number(value)
    to = "VARCHAR" if type_name == "STRING" else type_name
    return exp.cast(node, exp.DataType.build(to, dialect="duckdb"))


@pytest.mark.parametrize(
    "row",
    [
        [(5, "INT")],
        [(None, "INT")],
        [("abc", "STRING")],
        [("seven!!", "STRING"), ("eight!!!", "STRING")],
        [("a much longer key", "STRING"), (3, "INT"), (None, "STRING"), ("é" * 9, "STRING")],
        [(2**40, "BIGINT"), (True, "BOOLEAN"), (-3, "SMALLINT"), (-2, "TINYINT")],
    ],
)
def test_binary_row_hash_is_javas(con, row):
    fields = [(_lit(v, t), parse_type(t)) for v, t in row]
    expected = row_hash([v for v, _ in row], [parse_type(t) for _, t in row]) & _M
    assert _one(con, java_hash.binary_row_hash(fields)) == expected


def _java_hashmap_order(keys: list[str], hashes: list[int]) -> list[str]:
    """Iteration order of a java.util.HashMap after putting `keys` in order (no tree bins)."""
    table: list[list[tuple[str, int]]] = [[] for _ in range(16)]
    size = 0
    for key, h in zip(keys, hashes, strict=True):
        spread = h ^ (h >> 16)
        bucket = table[spread & (len(table) - 1)]
        if any(k == key for k, _ in bucket):
            continue
        bucket.append((key, spread))
        size += 1
        assert len(bucket) <= 8, "the model has no tree bins"
        if size > len(table) * 3 // 4:
            grown: list[list[tuple[str, int]]] = [[] for _ in range(2 * len(table))]
            for old in table:
                for k, sp in old:  # split keeps the relative order
                    grown[sp & (len(grown) - 1)].append((k, sp))
            table = grown
    return [k for bucket in table for k, _ in bucket]


@pytest.mark.parametrize("seed", range(4))
def test_hash_order_matches_a_java_hashmap(con, seed):
    rng = random.Random(seed)
    words = [
        "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(0, 12)))
        for _ in range(rng.randint(1, 60))
    ]
    distinct = list(dict.fromkeys(words))
    t = parse_type("STRING")
    hashes = [_one(con, java_hash.element_hash(exp.Literal.string(w), t)) for w in distinct]
    items = exp.Array(expressions=[exp.Literal.string(w) for w in distinct])
    ordered = java_hash.hash_order(
        items, lambda item: java_hash.element_hash(item, t), lambda item, _: item, "crowded"
    )
    assert _one(con, ordered) == _java_hashmap_order(distinct, hashes)


def test_ints_crowding_one_bucket_are_refused(con):
    """Nine keys in one bucket: Java would treeify (or resize early); the read fails loudly."""
    t = parse_type("INT")
    items = exp.Array(expressions=[exp.Literal.number(64 * i) for i in range(9)])
    ordered = java_hash.hash_order(
        items, lambda item: java_hash.element_hash(item, t), lambda item, _: item, "crowded"
    )
    with pytest.raises(duckdb.Error, match="crowded"):
        _one(con, ordered)
