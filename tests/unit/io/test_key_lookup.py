"""`KeyLookup` on keys that are not one integer column: fingerprints bisected, candidates checked.

String, composite (INT + STRING), DATE and DECIMAL keys are found through the sorted 64-bit
fingerprints of each row group, every candidate checked against the stored key. Random files
(pyarrow-written Parquet with small row groups, and ORC) are searched cold and warm, in memory
and spilled to local files, with the real fingerprint and with a deliberately weak one (three
values: nearly every row a collision); every answer must equal a scan of the same rows in plain
Python. Whole-table behaviour (deletion vectors, first-row, the model of
tests/unit/compact/test_lookup_cache.py) is checked there with composite keys.
"""

from __future__ import annotations

import datetime
import decimal
import os
import random
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from paimon_sql.io import key_lookup
from paimon_sql.io.fileio import file_io
from paimon_sql.io.fingerprint import fingerprints
from paimon_sql.io.key_lookup import KeyLookup

# "y" * 70: a file holding it hashes byte by byte, the others 8 bytes at a time
_WORDS = ["", "a", "ab", "abc", "b", "ba", "é", "éa", "日本", "z" * 40, "y" * 70, "a\x00", "A"]


def _string(rng):
    return rng.choice(_WORDS) + str(rng.randrange(6))


_COMPOSITE: list[pa.Field[Any]] = [pa.field("a", pa.int32()), pa.field("b", pa.string())]
KINDS = {
    "string": (pa.schema([("k", pa.string())]), lambda rng: (_string(rng),)),
    "composite": (
        pa.schema(_COMPOSITE),
        lambda rng: (rng.randrange(-3, 4), _string(rng)),
    ),
    "date": (
        pa.schema([("d", pa.date32())]),
        lambda rng: (datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randrange(-40, 40)),),
    ),
    "decimal": (
        pa.schema([("m", pa.decimal128(12, 3))]),
        lambda rng: (decimal.Decimal(rng.randrange(-60, 60)).scaleb(-3),),
    ),
}


def _weak(table):
    """Three fingerprints in all: a stored row nearly always shares one with another key."""
    return fingerprints(table) % np.uint64(3)


def _table(schema, rows):
    return pa.table([pa.array([r[i] for r in rows], f.type) for i, f in enumerate(schema)], schema)


def _write(path, schema, rows, rng):
    table = _table(schema, rows)
    if path.endswith(".orc"):
        orc.write_table(table, path)
    else:
        pq.write_table(table, path, row_group_size=rng.randint(1, 40))


@pytest.mark.parametrize("mode", ["memory", "spilled", "weak", "weak_spilled"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_found_rows_equal_a_scan(tmp_path, monkeypatch, kind, mode):
    """Positions and keys found, cold and warm, equal a scan of the rows in Python."""
    if mode.endswith("spilled"):  # every row group to the disk tier, blocks of 4 fingerprints
        monkeypatch.setattr(key_lookup, "SPILL_ROWS", 1)
        monkeypatch.setattr(key_lookup, "BLOCK", 4)
    lookup = KeyLookup(
        max_bytes=1 if mode.endswith("spilled") else key_lookup.CACHE_BYTES,
        spill_dir=str(tmp_path / "spill"),
        fingerprint=_weak if mode.startswith("weak") else fingerprints,
    )
    schema, value = KINDS[kind]
    rng = random.Random(f"{kind}-{mode}")
    files = []
    for i in range(12):
        rows = [value(rng) for _ in range(rng.randint(0, 150))]
        if rng.random() < 0.8:  # key-sorted, as Paimon writes; some files not
            rows.sort()
        path = str(tmp_path / f"f{i}.{'orc' if i % 5 == 4 else 'parquet'}")
        _write(path, schema, rows, rng)
        files.append((path, rows))
    for _ in range(2):  # cold, then from the cache (memory or local files)
        for path, rows in files:
            wanted = list({value(rng) for _ in range(rng.randint(1, 25))})
            rng.shuffle(wanted)
            keys = _table(schema, wanted)
            fmt = path.rsplit(".", 1)[1]
            found, held = lookup.find(file_io(path), path, os.path.getsize(path), fmt, keys)
            assert found.to_pylist() == [i for i, r in enumerate(rows) if r in set(wanted)]
            got = {tuple(r.values()) for r in held.to_pylist()}
            assert got == set(wanted) & set(rows)
            assert held.schema == schema
    stats = lookup.stats()
    assert stats["row_groups_cached"] > 0
    if mode.endswith("spilled"):
        assert stats["row_groups_spilled"] > 0
        assert stats["disk_bytes"] > 0
        assert stats["cached_bytes"] == 0


def test_weak_fingerprint_collides():
    """The weak fingerprint of the test above does force collisions (the check is exercised)."""
    keys = pa.table({"k": [f"w{i}" for i in range(50)]})
    assert len(set(_weak(keys).tolist())) == 3


def test_string_keys_spilled_read_one_block(tmp_path, monkeypatch):
    """A warm lookup of a string key in a spilled row group reads a block of fingerprints and the
    candidate rows only: the key columns are memory-mapped, not decoded again."""
    monkeypatch.setattr(key_lookup, "SPILL_ROWS", 1)
    path = str(tmp_path / "s.parquet")
    words = sorted(f"key-{i}" for i in range(20_000))
    pq.write_table(pa.table({"k": words}), path)  # one row group
    lookup = KeyLookup(max_bytes=1, spill_dir=str(tmp_path / "spill"))
    keys = pa.table({"k": ["key-7", "key-19999", "nope"]})
    for _ in range(2):
        found, held = lookup.find(file_io(path), path, os.path.getsize(path), "parquet", keys)
        assert found.to_pylist() == sorted([words.index("key-7"), words.index("key-19999")])
        assert sorted(str(v) for v in held.column(0).to_pylist()) == ["key-19999", "key-7"]
    stats = lookup.stats()
    assert (stats["row_groups_read"], stats["row_groups_spilled"]) == (1, 1)
    assert stats["row_groups_cached"] == 1
    # in memory: one fence per BLOCK fingerprints (8 bytes each), nothing else
    assert stats["fence_bytes"] == 8 * -(-20_000 // key_lookup.BLOCK)
    assert len(os.listdir(tmp_path / "spill" / os.listdir(tmp_path / "spill")[0])) == 3
    lookup.clear()


def test_a_value_has_one_fingerprint_in_any_table():
    """A value's fingerprint depends on it alone: not on the longest value beside it (hashed by
    8-byte words up to 64 bytes, byte by byte above), nor on the slice or the chunking."""
    rng = random.Random(7)
    values = [
        "".join(rng.choice("aé日\x00z") for _ in range(rng.randrange(0, 90))) for _ in range(300)
    ]
    whole = fingerprints(pa.table({"s": values}))
    short = [i for i, v in enumerate(values) if len(v.encode()) <= 64]
    alone = fingerprints(pa.table({"s": [values[i] for i in short]}))
    assert alone.tolist() == whole[short].tolist()
    chunked = pa.table({"s": pa.chunked_array([values[:100], values[100:]])})
    assert fingerprints(chunked).tolist() == whole.tolist()
    assert fingerprints(pa.table({"s": pa.array(values).slice(17)})).tolist() == whole[17:].tolist()
    binary = pa.table({"s": pa.array([v.encode() for v in values], pa.large_binary())})
    assert len(set(fingerprints(binary).tolist())) == len(set(values))
