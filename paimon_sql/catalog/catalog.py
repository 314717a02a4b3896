"""`Catalog`: databases and tables of a warehouse folder.

>>> import tempfile
>>> cat = Catalog(tempfile.mkdtemp())
>>> cat.databases()
[]
>>> Identifier.parse("db.t")
Identifier(database='db', table='t')
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from typing import Any

from paimon_sql.catalog.table import Table
from paimon_sql.errors import (
    AlreadyExistsError,
    CorruptFileError,
    DatabaseNotFoundError,
    PaimonSqlError,
    TableNotFoundError,
    WarehouseNotFoundError,
)
from paimon_sql.format.schema import TableSchema, schema_to_json
from paimon_sql.io import FileIO, file_io

DB_SUFFIX = ".db"


@dataclass(frozen=True, slots=True)
class Identifier:
    """A table name: database and table."""

    database: str
    table: str

    @classmethod
    def parse(cls, text: str, default_database: str = "default") -> Identifier:
        """``db.t`` or ``t`` (in `default_database`)."""
        parts = [p.strip().strip('"`') for p in text.split(".")]
        if len(parts) == 1:
            return cls(default_database, parts[0])
        if len(parts) == 2:
            return cls(parts[0], parts[1])
        raise ValueError(f"a table name is 'db.table' or 'table', got {text!r}")

    def __str__(self) -> str:
        return f"{self.database}.{self.table}"


def _hint(name: str, options: list[str]) -> str:
    close = difflib.get_close_matches(name, options, n=3)
    if close:
        return f"; did you mean {', '.join(close)}?"
    if options:
        shown = ", ".join(options[:20]) + (" ..." if len(options) > 20 else "")
        return f"; it has: {shown}"
    return "; it has none"


class Catalog:
    """Databases and tables under a warehouse folder, on local disk or any pyarrow/fsspec filesystem."""

    def __init__(self, warehouse: str | os.PathLike[str], filesystem: Any = None) -> None:
        """Open `warehouse`; it must exist (create it with `create=True` in `paimon_sql.connect`)."""
        location = os.fspath(warehouse)
        self.fileio: FileIO = file_io(location, filesystem)
        self.warehouse = os.path.abspath(location) if self.fileio.local else location.rstrip("/")

    def _require_warehouse(self) -> None:
        if not self.fileio.is_dir(self.warehouse):
            raise WarehouseNotFoundError(
                f"warehouse not found: {self.warehouse} (create it, or pass create=True to connect)"
            )

    def database_path(self, database: str) -> str:
        """The folder of a database."""
        return self.fileio.join(self.warehouse, database + DB_SUFFIX)

    def databases(self) -> list[str]:
        """Database names (folders ending in ``.db``)."""
        self._require_warehouse()
        names = self.fileio.list_names(self.warehouse)
        return [
            n[: -len(DB_SUFFIX)]
            for n in names
            if n.endswith(DB_SUFFIX) and self.fileio.is_dir(self.fileio.join(self.warehouse, n))
        ]

    def _require_database(self, database: str) -> str:
        self._require_warehouse()
        path = self.database_path(database)
        if not self.fileio.is_dir(path):
            raise DatabaseNotFoundError(
                f"database {database!r} not found in warehouse {self.warehouse}"
                + _hint(database, self.databases())
            )
        return path

    def tables(self, database: str) -> list[str]:
        """Table names in a database (folders holding a ``schema/`` folder)."""
        path = self._require_database(database)
        return [
            n
            for n in self.fileio.list_names(path)
            if self.fileio.is_dir(self.fileio.join(path, n, "schema"))
        ]

    def table_path(self, identifier: Identifier) -> str:
        """The folder of a table."""
        return self.fileio.join(self.database_path(identifier.database), identifier.table)

    def load_table(self, identifier: Identifier | str) -> Table:
        """The table; `TableNotFoundError` (naming the path and close names) when absent."""
        ident = Identifier.parse(identifier) if isinstance(identifier, str) else identifier
        self._require_database(ident.database)
        path = self.table_path(ident)
        schema_dir = self.fileio.join(path, "schema")
        if not any(n.startswith("schema-") for n in self.fileio.list_names(schema_dir)):
            if self.fileio.is_dir(schema_dir):  # listed as a table (it has schema/) but it cannot be read
                raise CorruptFileError(
                    schema_dir, f"table {ident} has no schema file (schema-0, schema-1, ...) in its schema folder"
                )
            raise TableNotFoundError(
                f"table {ident} not found (no schema files under {path})"
                + _hint(ident.table, self.tables(ident.database))
            )
        return Table(self.fileio, path, str(ident))

    # --- changes ----------------------------------------------------------------------------------

    def create_database(self, database: str, *, ignore_if_exists: bool = False) -> None:
        """Create ``<database>.db``."""
        self._require_warehouse()
        path = self.database_path(database)
        if self.fileio.is_dir(path):
            if ignore_if_exists:
                return
            raise AlreadyExistsError(f"database {database!r} already exists ({path})")
        self.fileio.mkdirs(path)

    def drop_database(self, database: str, *, ignore_if_missing: bool = False, cascade: bool = False) -> None:
        """Drop a database; it must be empty unless `cascade`."""
        try:
            tables = self.tables(database)
        except DatabaseNotFoundError:
            if ignore_if_missing:
                return
            raise
        if tables and not cascade:
            raise PaimonSqlError(
                f"database {database!r} is not empty (tables: {', '.join(tables)}); use DROP DATABASE ... CASCADE"
            )
        self.fileio.delete_dir(self.database_path(database))

    def create_table(
        self, identifier: Identifier, schema: TableSchema, *, ignore_if_exists: bool = False
    ) -> Table:
        """Write ``schema/schema-0`` of a new table (create-if-absent, so two creators cannot both win)."""
        self._require_database(identifier.database)
        path = self.table_path(identifier)
        schema_path = self.fileio.join(path, "schema", "schema-0")
        if not self.fileio.try_create(schema_path, schema_to_json(schema).encode("utf-8")):
            if ignore_if_exists:
                return self.load_table(identifier)
            raise AlreadyExistsError(f"table {identifier} already exists ({path})")
        return Table(self.fileio, path, str(identifier))

    def drop_table(self, identifier: Identifier, *, ignore_if_missing: bool = False) -> None:
        """Delete a table folder and everything in it."""
        try:
            table = self.load_table(identifier)
        except TableNotFoundError:
            if ignore_if_missing:
                return
            raise
        self.fileio.delete_dir(table.path)

    def rename_table(self, old: Identifier, new: Identifier) -> None:
        """Rename a table folder (local filesystems only: object stores have no rename)."""
        table = self.load_table(old)
        self._require_database(new.database)
        target = self.table_path(new)
        if self.fileio.exists(target):
            raise AlreadyExistsError(f"table {new} already exists ({target})")
        if not self.fileio.local:
            raise PaimonSqlError("renaming a table needs a local warehouse")
        os.rename(table.path, target)
