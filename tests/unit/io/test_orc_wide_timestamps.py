"""ORC TIMESTAMP columns pyarrow cannot return (outside 1677-2262), decoded from their streams.

The run-length decoders are checked against files ORC C++ writes (pyarrow's writer: every RLE v2
sub-encoding appears in the integer columns below) and the whole TIMESTAMP decoding against the
Java-written ORC files of the fixture corpora, where pyarrow's reader (corrected as
`fix_timestamps` does, itself checked against Apache Paimon) is the reference: equal on every
column, writer zones UTC and Asia/Shanghai, values around 1970 included.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.orc as orc
import pytest

import paimon_sql
from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.format.orc_rle import decode_booleans, decode_integers
from paimon_sql.io import orc_timestamps
from paimon_sql.io.orc_timestamps import (
    _Stripe,
    fix_timestamps,
    read_wide_timestamps,
    stripe_zones,
    timestamp_columns,
)

FIXTURES = Path(__file__).parents[2] / "data" / "fixtures"


def test_patched_base_example_of_the_orc_specification():
    data = bytes.fromhex("8e132b2107d01e00147028323c46505a646e78828c96a0aab4befce8")
    want = [2030, 2000, 2020, 1000000, *range(2040, 2200, 10)]
    assert decode_integers(data, 20, signed=False).tolist() == want


def _columns(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """Integer shapes that make ORC C++ choose each RLE v2 sub-encoding."""
    small = rng.integers(-50, 50, n)
    outliers = small.copy()
    outliers[rng.integers(0, n, n // 200)] = rng.integers(-(2**62), 2**62, n // 200)
    return {
        "repeats": np.repeat(rng.integers(-(2**40), 2**40, n // 7 + 1), 7)[:n],
        "deltas": np.cumsum(rng.integers(0, 1000, n)) - 10**9,
        "fixed_delta": np.arange(n, dtype=np.int64) * -3 + 17,
        "small": small,
        "outliers": outliers,  # patched base
        "wide": rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64),
    }


@pytest.mark.parametrize("compression", ["uncompressed", "zlib", "zstd", "snappy"])
def test_integer_streams_decode_as_orc_cpp_wrote_them(compression: Any):
    rng = np.random.default_rng(7)
    n = 30_000
    columns = _columns(rng, n)
    nulls = rng.random(n) < 0.1
    table = pa.table(
        {name: pa.array(values, pa.int64(), mask=nulls) for name, values in columns.items()}
    )
    buffer = io.BytesIO()
    orc.write_table(table, buffer, compression=compression, stripe_size=64 * 1024)
    source = io.BytesIO(buffer.getvalue())
    reader = orc.ORCFile(source)
    codec = str(reader.compression)
    tail = orc_timestamps.dict_of(bytes(reader.reader.serialized_file_tail()))
    footer = orc_timestamps.dict_of(cast("bytes", tail[2][0]))
    stripes = [_Stripe.read(source, cast("bytes", info), codec) for info in footer[3]]
    assert len(stripes) > 1
    for column, name in enumerate(table.column_names, start=1):
        got: list[int | None] = []
        for stripe in stripes:
            present_bytes = stripe.stream(source, codec, column, 0)
            present = (
                np.ones(stripe.rows, bool)
                if present_bytes is None
                else decode_booleans(present_bytes, stripe.rows)
            )
            data = stripe.stream(source, codec, column, 1) or b""
            values = iter(decode_integers(data, int(present.sum()), signed=True).tolist())
            got += [next(values) if p else None for p in present]
        assert got == table.column(name).to_pylist(), name


def _orc_files_with_timestamps() -> list[Path]:
    out = []
    for path in sorted(FIXTURES.rglob("*.orc")):
        if timestamp_columns(orc.ORCFile(io.BytesIO(path.read_bytes()))):
            out.append(path)
    return out


def test_java_written_timestamps_decode_as_the_checked_reader_reads_them():
    files = _orc_files_with_timestamps()
    zones: set[str] = set()
    compared = 0
    for path in files:
        source = io.BytesIO(path.read_bytes())
        reader = orc.ORCFile(source)
        names = list(timestamp_columns(reader))
        zones.update(zone for _, zone in stripe_zones(reader, source))
        want = fix_timestamps(reader.read(columns=names), stripe_zones(reader, source))
        got = read_wide_timestamps(reader, source, names)
        for name in names:
            assert got[name].type == want.column(name).type, (path, name)
            assert got[name].equals(want.column(name).combine_chunks()), (path, name)
            compared += 1
    # the corpora hold Java's files from UTC and Asia/Shanghai writers, 1970 and later
    assert len(files) >= 20
    assert compared >= 50
    assert "Asia/Shanghai" in zones


def _far_table(tmp_path: Path) -> paimon_sql.Session:
    session = paimon_sql.connect(tmp_path / "w", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id INT, valid_to TIMESTAMP, t3 TIMESTAMP(3), lt TIMESTAMP_LTZ(6))"
        " WITH ('file.format' = 'orc')"
    )
    return session


def test_sentinel_timestamps_read_back(tmp_path: Path):
    session = _far_table(tmp_path)
    session.sql(
        "INSERT INTO db.t VALUES"
        " (1, TIMESTAMP '9999-12-31 23:59:59.999999', TIMESTAMP '0001-01-01 00:00:00.001',"
        "  TIMESTAMPTZ '9999-12-31 23:59:59+00'),"
        " (2, TIMESTAMP '1969-12-31 23:59:59.5', NULL, NULL),"
        " (3, NULL, TIMESTAMP '2020-01-01 00:00:00', TIMESTAMPTZ '1000-01-01 00:00:00+00')"
    )
    rows = session.sql(
        "SELECT id, strftime(valid_to, '%Y-%m-%d %H:%M:%S.%f'),"
        " strftime(t3, '%Y-%m-%d %H:%M:%S.%f'), epoch_us(lt) FROM db.t ORDER BY id"
    ).fetchall()
    assert rows == [
        (1, "9999-12-31 23:59:59.999999", "0001-01-01 00:00:00.001000", 253402300799000000),
        (2, "1969-12-31 23:59:59.500000", None, None),
        (3, None, "2020-01-01 00:00:00.000000", -30610224000000000),
    ]
    open_ended = session.sql(
        "SELECT id FROM db.t WHERE valid_to = TIMESTAMP '9999-12-31 23:59:59.999999'"
    ).fetchall()
    assert open_ended == [(1,)]
    # the deep check decodes every row as a scan does: such a file is not damage
    assert session.sql("CALL sys.check_table(table => 'db.t', deep => true)").fetchall() == []


def test_a_nested_far_timestamp_is_refused_by_name(tmp_path: Path):
    session = paimon_sql.connect(tmp_path / "w", create=True)
    session.sql("CREATE DATABASE db")
    session.sql("CREATE TABLE db.n (id INT, r ROW<ts TIMESTAMP>) WITH ('file.format' = 'orc')")
    session.sql("INSERT INTO db.n VALUES (1, {'ts': TIMESTAMP '9999-12-31 00:00:00'})")
    with pytest.raises(UnsupportedFeatureError, match=r"\.orc has a TIMESTAMP outside .* ROW"):
        session.sql("SELECT * FROM db.n").fetchall()
