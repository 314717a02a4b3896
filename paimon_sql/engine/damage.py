"""Containment of damaged tables: one table whose metadata does not read never stops the warehouse.

`Engine.refresh` exposes every table as a view; a table that fails (a damaged snapshot or schema
file) gets a view that raises its error, naming the file, when it is read. Everything else
(`connect`, `install`, ``SHOW TABLES``, the other tables) keeps working; `Session.sql` plans the
table itself and raises the original `paimon_sql.errors` error.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import duckdb
from sqlglot import exp

from paimon_sql.errors import CorruptFileError, DataFileNotFoundError
from paimon_sql.plan.scan import data_file_path

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_sql.catalog import Identifier
    from paimon_sql.errors import PaimonSqlError
    from paimon_sql.plan.scan import ScanPlan

#: A data file DuckDB names in its error (it quotes paths), by the formats Paimon writes.
_DATA_FILE = re.compile(r"'([^'\n]+\.(?:parquet|orc|avro))'")
#: DuckDB errors about the statement or its values, never about a file's bytes.
_NOT_ABOUT_FILES = (
    duckdb.ConversionException,
    duckdb.BinderException,
    duckdb.ParserException,
    duckdb.CatalogException,
    duckdb.ConstraintException,
)


def damaged_view(con: duckdb.DuckDBPyConnection, ident: Identifier, error: PaimonSqlError) -> None:
    """Make ``"db"."table"`` a view that fails with `error`'s message when read.

    The message is a string literal node.

    >>> import duckdb
    >>> from paimon_sql.catalog import Identifier
    >>> from paimon_sql.errors import CorruptFileError
    >>> con = duckdb.connect()
    >>> damaged_view(con, Identifier("db", "t"), CorruptFileError("/wh/t/snapshot-1", "empty"))
    >>> try:
    ...     con.sql('SELECT * FROM "db"."t"').fetchall()
    ... except duckdb.Error as err:
    ...     print(str(err).splitlines()[0])
    Invalid Input Error: table db.t cannot be read: damaged file /wh/t/snapshot-1: empty
    """
    message = f"table {ident} cannot be read: {error}"
    schema = exp.to_identifier(ident.database, quoted=True)
    con.execute(exp.Create(this=exp.Table(this=schema), kind="SCHEMA", exists=True).sql("duckdb"))
    failing = exp.Anonymous(this="error", expressions=[exp.Literal.string(message)])
    query = exp.select(exp.alias_(failing, "damaged", quoted=True))
    view = exp.Create(
        this=exp.Table(this=exp.to_identifier(ident.table, quoted=True), db=schema),
        kind="VIEW",
        replace=True,
        expression=query,
    )
    con.execute(view.sql("duckdb"))


def data_file_error(error: BaseException, plans: Sequence[ScanPlan] = ()) -> PaimonSqlError | None:
    """The paimon-sql error for a DuckDB error about a damaged or missing data file, else None.

    DuckDB reads Parquet data files itself. When it names the file (``No magic bytes found at end of
    file '…'``) the error becomes a `CorruptFileError` (or `DataFileNotFoundError`) naming it; when
    it does not (``TProtocolException: Invalid data``), the Parquet files of the latest `plans` are
    checked with pyarrow (page checksums verified) to find the damaged one.

    >>> message = "Invalid Input Error: File '/x/data-1.parquet' too small to be a Parquet file"
    >>> err = data_file_error(ValueError(message))
    >>> type(err).__name__, "/x/data-1.parquet" in str(err)
    ('DataFileNotFoundError', True)
    """
    if isinstance(error, _NOT_ABOUT_FILES):
        return None
    text = str(error)
    problem = text.splitlines()[0] if text else type(error).__name__
    match = _DATA_FILE.search(text.split("\nLINE ")[0])  # not DuckDB's echo of the statement
    if match is not None:
        path = match[1]
        if not os.path.exists(path):
            return DataFileNotFoundError(f"data file not found: {path} ({problem})")
        return CorruptFileError(path, f"the data file does not read: {problem}")
    if not any(word in text for word in _CORRUPTION_WORDS):
        return None
    for path in _parquet_files(plans):
        if not _parquet_reads(path):
            return CorruptFileError(path, f"the data file does not read: {problem}")
    return None


#: DuckDB's words for a Parquet file whose bytes do not decode (it names no file in these).
_CORRUPTION_WORDS = (
    "TProtocolException",
    "Corrupt",
    "corrupt",
    "Invalid data",
    "decompress",
    "Snappy",
    "ZSTD",
)


def _parquet_files(plans: Sequence[ScanPlan]) -> list[str]:
    seen: dict[str, None] = {}
    for plan in reversed(plans):
        for split in plan.splits:
            for f in split.files:
                if f.format == "parquet":
                    seen.setdefault(data_file_path(plan, split, f))
    return list(seen)


def _parquet_reads(path: str) -> bool:
    """Whether pyarrow reads the whole file.

    Page checksums are verified where the writer stored them.
    """
    import pyarrow.parquet as pq

    try:
        pq.ParquetFile(path, page_checksum_verification=True).read()
    except Exception:  # noqa: BLE001 - any failure to read the file means it is damaged
        return False
    return True
