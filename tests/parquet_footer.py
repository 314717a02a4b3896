"""A Parquet file's column chunks as its footer and page headers describe them (test helper).

Read with DuckDB's ``parquet_metadata`` (codec, encodings, bloom filter, page counts) and the
first page header's bytes (the data page version), for tests that compare our files with Java's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:
    from pathlib import Path


def column_chunks(path: Path, row_group: int = 0) -> dict[str, dict[str, Any]]:
    """Row group `row_group`'s column chunks by dotted path.

    Each: ``bloom`` (has a bloom filter), ``dictionary`` (any dictionary encoding), ``pages``
    (data pages), ``codec``, ``page_type`` of the first data page (thrift compact: field 1 of
    the page header, an i32 zigzag varint after the 0x15 field header; 0 DATA_PAGE,
    3 DATA_PAGE_V2).
    """
    con = duckdb.connect()
    rows = con.sql(
        "SELECT path_in_schema, bloom_filter_offset, encodings, encoding_stats, compression, "
        "data_page_offset FROM parquet_metadata($f) WHERE row_group_id = $g",
        params={"f": str(path), "g": row_group},
    ).fetchall()
    data = path.read_bytes()
    out = {}
    for p, bloom, encodings, stats, codec, offset in rows:
        assert data[offset] == 0x15, f"{path}: no page header at {offset}"
        out[p.replace(", ", ".")] = {
            "bloom": bloom is not None,
            "dictionary": "DICTIONARY" in encodings,
            "pages": sum(s["count"] for s in stats if s["page_type"].startswith("DATA")),
            "codec": codec,
            "page_type": data[offset + 1] >> 1,
        }
    return out
