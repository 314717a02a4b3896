"""`Catalog`: databases and tables of a warehouse folder.

>>> import tempfile
>>> cat = Catalog(tempfile.mkdtemp())
>>> cat.databases()
[]
>>> Identifier.parse("db.t")
Identifier(database='db', table='t')

The examples below use the doctest namespace of the repository's ``conftest.py``: ``tmp_warehouse``
is an empty warehouse folder, and ``warehouse`` holds database ``db`` with the table ``db.t``.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paimon_sql.catalog import names
from paimon_sql.catalog.table import Table
from paimon_sql.errors import (
    AlreadyExistsError,
    ArgumentTypeError,
    CorruptFileError,
    DatabaseNotFoundError,
    InvalidNameError,
    PaimonSqlError,
    PathEscapeError,
    TableNotFoundError,
    WarehouseNotFoundError,
)
from paimon_sql.format.schema import schema_to_json
from paimon_sql.io import file_io, local_path
from paimon_sql.io.objectstore import split_uri

if TYPE_CHECKING:
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.io import FileIO

DB_SUFFIX = ".db"
_LOG = logging.getLogger(__name__)
_TABLE_FOLDERS = (
    "schema", "snapshot", "manifest", "index", "tag", "branch", "statistics", "changelog",
)  # fmt: skip
_SCHEMA_FILE = re.compile(r"^schema-\d+$")


@dataclass(frozen=True, slots=True)
class Identifier:
    """A table name: database and table, both checked by `names.validate_name` (never paths).

    Examples:
        >>> ident = Identifier("db", "t")
        >>> str(ident), ident.database
        ('db.t', 'db')
        >>> Identifier("db", "../t")
        Traceback (most recent call last):
        ...
        paimon_sql.errors.InvalidNameError: ...
    """

    database: str
    table: str

    def __post_init__(self) -> None:
        names.validate_name("database", self.database)
        names.validate_name("table", self.table)

    @classmethod
    def parse(cls, text: str, default_database: str = "default") -> Identifier:
        """Parse ``db.t``, or ``t`` in `default_database`.

        Args:
            text: the name; each part may be quoted with ``"`` or a backquote.
            default_database: the database of a name without one.

        Returns:
            The identifier.

        Raises:
            InvalidNameError: for anything but one or two identifiers joined by a dot.

        Examples:
            >>> Identifier.parse('db."t"')
            Identifier(database='db', table='t')
            >>> Identifier.parse("t", default_database="sales")
            Identifier(database='sales', table='t')
            >>> Identifier.parse("a.b.c")  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            paimon_sql.errors.InvalidNameError: a table name is 'db.table' or 'table', got ...
        """
        if not isinstance(text, str):
            raise InvalidNameError(f"a table name is text 'db.table', got {text!r}")
        parts = [p.strip().strip('"`') for p in text.split(".")]
        if len(parts) == 1:
            return cls(default_database, parts[0])
        if len(parts) == 2:
            return cls(parts[0], parts[1])
        raise InvalidNameError(
            f"a table name is 'db.table' or 'table', got {text!r}; "
            "names contain no '.', '/' or '..'"
        )

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
    """Databases and tables under a warehouse folder, on local disk or a pyarrow/fsspec filesystem.

    A database is a folder ``<db>.db`` of the warehouse; a table is a folder ``<db>.db/<table>``
    holding ``schema/schema-<id>`` files (Paimon's filesystem catalog).

    Examples:
        >>> catalog = Catalog(tmp_warehouse)
        >>> catalog.create_database("db")
        >>> catalog.databases()
        ['db']
        >>> Catalog(warehouse).tables("db")
        ['t']
    """

    def __init__(
        self,
        warehouse: str | os.PathLike[str],
        filesystem: Any = None,
        *,
        storage_options: dict[str, Any] | None = None,
        create: bool = False,
    ) -> None:
        """Open a warehouse.

        Args:
            warehouse: a folder, or an ``s3://`` / ``gs://`` / ``az://`` URI.
            filesystem: a pyarrow or fsspec filesystem to reach `warehouse` through.
            storage_options: object store settings in obstore's key names.
            create: make the warehouse folder when absent (never a bucket); else it must exist
                before the first listing.

        Examples:
            >>> import os
            >>> catalog = Catalog(os.path.join(tmp_warehouse, "new"), create=True)
            >>> os.path.basename(catalog.warehouse), catalog.databases()
            ('new', [])
        """
        if not isinstance(warehouse, (str, os.PathLike)):
            raise ArgumentTypeError(
                "the warehouse must be a folder or URI (a str or path), got "
                f"{type(warehouse).__name__} {warehouse!r}"
            )
        location = os.fspath(warehouse)
        self.fileio: FileIO = file_io(location, filesystem, storage_options)  # type: ignore[assignment]
        if self.fileio.local:
            self.warehouse = os.path.abspath(local_path(location))
        elif filesystem is None:
            store, bucket, key = split_uri(location)
            self.warehouse = f"{store}://{bucket}" + (f"/{key}" if key else "")
        else:
            self.warehouse = location.rstrip("/")
        if create:
            self.fileio.mkdirs(self.warehouse)

    def _require_warehouse(self) -> None:
        if not self.fileio.is_dir(self.warehouse):
            raise WarehouseNotFoundError(
                f"warehouse not found: {self.warehouse} (create it, or pass create=True to connect)"
            )

    def inside(self, path: str, what: str) -> str:
        """Check that `path` stays inside the warehouse (on local disk: through links too).

        Args:
            path: the path to check.
            what: what the path is, for the error message.

        Returns:
            `path`, normalized.

        Raises:
            PathEscapeError: when `path` leads out of the warehouse.

        Examples:
            >>> import os
            >>> catalog = Catalog(warehouse)
            >>> folder = catalog.inside(os.path.join(warehouse, "db.db"), "a folder")
            >>> os.path.relpath(folder, warehouse)
            'db.db'
            >>> catalog.inside(os.path.join(warehouse, ".."), "a folder")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.PathEscapeError: a folder ...
        """
        return names.inside(path, [self.warehouse], local=self.fileio.local, what=what)

    def database_path(self, database: str) -> str:
        """The folder of a database, ``<warehouse>/<database>.db`` (it need not exist).

        Raises:
            InvalidNameError: for a name that is not an identifier.

        Examples:
            >>> import os
            >>> os.path.relpath(Catalog(warehouse).database_path("sales"), warehouse)
            'sales.db'
        """
        names.validate_name("database", database)
        path = self.fileio.join(self.warehouse, database + DB_SUFFIX)
        return self.inside(path, f"the folder of database {database!r}")

    def has_database(self, database: str) -> bool:
        """Whether `database` names a database of the warehouse (False for any name that cannot).

        Examples:
            >>> catalog = Catalog(warehouse)
            >>> [catalog.has_database(name) for name in ("db", "sales", "../x")]
            [True, False, False]
        """
        if not names.is_valid_name("database", database):
            return False
        try:
            return self.fileio.is_dir(self.database_path(database))
        except PathEscapeError:
            return False

    def _contained(self, path: str, what: str, *, table: bool = False) -> bool:
        """Whether a listed folder stays inside the warehouse without following a link out.

        The folder is checked with a `table`'s metadata folders; a warning names one that does
        not, and it is not listed.
        """
        if not self.fileio.local:
            return True
        try:
            if os.path.islink(path):
                self.inside(path, what)
            if table:
                self._check_links(path, what)
        except PathEscapeError as err:
            _LOG.warning("skipping %s: %s", what, err)
            return False
        return True

    def databases(self) -> list[str]:
        """Database names: the folders ending in ``.db`` whose name is an identifier.

        Raises:
            WarehouseNotFoundError: when the warehouse folder does not exist.

        Examples:
            >>> Catalog(warehouse).databases()
            ['db']
        """
        self._require_warehouse()
        listed = self.fileio.list_names(self.warehouse)
        return [
            db
            for n in listed
            if n.endswith(DB_SUFFIX)
            and names.is_valid_name("database", db := n[: -len(DB_SUFFIX)])
            and self.fileio.is_dir(path := self.fileio.join(self.warehouse, n))
            and self._contained(path, f"database {db!r}")
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
        """Table names of a database: its folders holding a ``schema/`` folder.

        Raises:
            DatabaseNotFoundError: when the database does not exist (naming close names).

        Examples:
            >>> Catalog(warehouse).tables("db")
            ['t']
            >>> Catalog(warehouse).tables("dbs")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.DatabaseNotFoundError: database 'dbs' not found ...; did you mean db?
        """
        path = self._require_database(database)
        return [
            n
            for n in self.fileio.list_names(path)
            if names.is_valid_name("table", n)
            and self.fileio.is_dir(self.fileio.join(path, n, "schema"))
            and self._contained(self.fileio.join(path, n), f"table {database}.{n}", table=True)
        ]

    def table_path(self, identifier: Identifier) -> str:
        """The folder of a table, ``<database>.db/<table>`` (it need not exist).

        Raises:
            PathEscapeError: when the folder leads out of the warehouse (symbolic links included).

        Examples:
            >>> import os
            >>> os.path.relpath(Catalog(warehouse).table_path(Identifier("db", "t")), warehouse)
            'db.db/t'
        """
        names.validate_name("table", identifier.table)
        path = self.fileio.join(self.database_path(identifier.database), identifier.table)
        return self.inside(path, f"the folder of table {identifier}")

    def load_table(self, identifier: Identifier | str) -> Table:
        """Open a table.

        Args:
            identifier: an `Identifier`, or text ``db.table`` (`Identifier.parse`).

        Returns:
            The table's metadata.

        Raises:
            TableNotFoundError: when it does not exist (naming the path and close names).
            CorruptFileError: when its ``schema/`` folder holds no schema file.

        Examples:
            >>> table = Catalog(warehouse).load_table("db.t")
            >>> table.name, table.snapshot_ids()
            ('db.t', [1, 2])
            >>> Catalog(warehouse).load_table("db.tt")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.TableNotFoundError: table db.tt not found; did you mean t?
        """
        ident = Identifier.parse(identifier) if isinstance(identifier, str) else identifier
        self._require_database(ident.database)
        path = self.table_path(ident)
        schema_dir = self.fileio.join(path, "schema")
        if not any(_SCHEMA_FILE.match(n) for n in self.fileio.list_names(schema_dir)):
            if self.fileio.is_dir(
                schema_dir
            ):  # listed as a table (it has schema/) but it cannot be read
                raise CorruptFileError(
                    schema_dir,
                    f"table {ident} has no schema file (schema-0, schema-1, ...) in its schema "
                    "folder",
                )
            raise TableNotFoundError(
                f"table {ident} not found" + _hint(ident.table, self.tables(ident.database))
            )
        self._check_links(path, f"table {ident}")
        return Table(self.fileio, path, str(ident))

    def _check_links(self, path: str, what: str) -> None:
        """`PathEscapeError` if a metadata folder of the table is a link leading out of it."""
        if not self.fileio.local:
            return
        for sub in _TABLE_FOLDERS:
            folder = os.path.join(path, sub)
            if os.path.islink(folder):
                names.inside(folder, [path], local=True, what=f"folder {sub}/ of {what}")

    # --- changes ----------------------------------------------------------------------------------

    def create_database(self, database: str, *, ignore_if_exists: bool = False) -> None:
        """Create the folder ``<database>.db``.

        Raises:
            AlreadyExistsError: when it exists, unless `ignore_if_exists`.

        Examples:
            >>> catalog = Catalog(warehouse)
            >>> catalog.create_database("sales")
            >>> catalog.create_database("sales", ignore_if_exists=True)
            >>> catalog.databases()
            ['db', 'sales']
        """
        path = self.database_path(database)
        self._require_warehouse()
        if self.fileio.is_dir(path):
            if ignore_if_exists:
                return
            raise AlreadyExistsError(f"database {database!r} already exists ({path})")
        self.fileio.mkdirs(path)

    def drop_database(
        self, database: str, *, ignore_if_missing: bool = False, cascade: bool = False
    ) -> None:
        """Drop a database; it must be empty (no file at all) unless `cascade`.

        Only ``<database>.db`` directly inside the warehouse is deleted, never through a link.

        Raises:
            DatabaseNotFoundError: when it does not exist, unless `ignore_if_missing`.
            PaimonSqlError: when it is not empty and not `cascade`.

        Examples:
            >>> catalog = Catalog(warehouse)
            >>> catalog.drop_database("db")
            Traceback (most recent call last):
            ...
            paimon_sql.errors.PaimonSqlError: database 'db' is not empty (tables: t); ...
            >>> catalog.drop_database("db", cascade=True)
            >>> catalog.databases()
            []
        """
        path = self.database_path(database)
        try:
            tables = self.tables(database)
        except DatabaseNotFoundError:
            if ignore_if_missing:
                return
            raise
        content = self.fileio.list_names(path)
        if content and not cascade:
            held = ", ".join(tables or content[:10])
            shown = f"tables: {held}" if tables else f"it holds {held}"
            raise PaimonSqlError(
                f"database {database!r} is not empty ({shown}); use DROP DATABASE ... CASCADE"
            )
        self._delete_tree(path, f"database {database!r}")

    def _delete_tree(self, path: str, what: str) -> None:
        """Delete a warehouse folder and all in it; links inside are removed, not followed."""
        self.inside(path, f"the folder of {what}")
        if not self.fileio.local:
            self.fileio.delete_dir(path)
            return
        if os.path.islink(path):
            raise PathEscapeError(
                f"the folder of {what} ({path}) is a symbolic link; refusing to delete through it"
            )
        try:
            shutil.rmtree(path)  # never follows links inside (they are unlinked)
        except FileNotFoundError:
            return
        except OSError as err:
            raise PaimonSqlError(f"could not delete {what} ({path}): {err}") from err

    def create_table(
        self, identifier: Identifier, schema: TableSchema, *, ignore_if_exists: bool = False
    ) -> Table:
        """Create a table: write ``schema/schema-0`` if absent, so two creators cannot both win.

        Args:
            identifier: the new table's name; its database must exist.
            schema: its first schema (id 0).
            ignore_if_exists: return the existing table instead of raising.

        Returns:
            The new table (no snapshot yet).

        Raises:
            AlreadyExistsError: when the table exists, unless `ignore_if_exists`.

        Examples:
            >>> from paimon_sql.format.schema import TableSchema
            >>> from paimon_sql.types import DataField, parse_type
            >>> schema = TableSchema(
            ...     id=0,
            ...     fields=(DataField(id=0, name="id", type=parse_type("INT NOT NULL")),),
            ...     highest_field_id=0,
            ...     primary_keys=("id",),
            ... )
            >>> table = Catalog(warehouse).create_table(Identifier("db", "u"), schema)
            >>> table.latest_schema.primary_keys, table.latest_snapshot()
            (('id',), None)
        """
        names.check_path_options(schema.options)
        self._require_database(identifier.database)
        path = self.table_path(identifier)
        schema_path = self.fileio.join(path, "schema", "schema-0")
        if not self.fileio.try_create(schema_path, schema_to_json(schema).encode("utf-8")):
            if ignore_if_exists:
                return self.load_table(identifier)
            raise AlreadyExistsError(f"table {identifier} already exists ({path})")
        return Table(self.fileio, path, str(identifier))

    def drop_table(self, identifier: Identifier, *, ignore_if_missing: bool = False) -> None:
        """Delete a table folder and all in it (only a folder holding ``schema/schema-N``).

        Raises:
            TableNotFoundError: when the table does not exist, unless `ignore_if_missing`.

        Examples:
            >>> catalog = Catalog(warehouse)
            >>> catalog.drop_table(Identifier("db", "t"))
            >>> catalog.drop_table(Identifier("db", "t"), ignore_if_missing=True)
            >>> catalog.tables("db")
            []
        """
        try:
            table = self.load_table(identifier)
        except TableNotFoundError:
            if ignore_if_missing:
                return
            raise
        self._delete_tree(table.path, f"table {identifier}")

    def rename_table(self, old: Identifier, new: Identifier) -> None:
        """Rename a table folder, within or across databases.

        Local filesystems only: object stores have no rename.

        Raises:
            AlreadyExistsError: when `new` exists.
            PaimonSqlError: on an object store.

        Examples:
            >>> catalog = Catalog(warehouse)
            >>> catalog.rename_table(Identifier("db", "t"), Identifier("db", "orders"))
            >>> catalog.tables("db"), catalog.load_table("db.orders").snapshot_ids()
            (['orders'], [1, 2])
        """
        table = self.load_table(old)
        self._require_database(new.database)
        target = self.table_path(new)
        if self.fileio.exists(target):
            raise AlreadyExistsError(f"table {new} already exists ({target})")
        if not self.fileio.local:
            raise PaimonSqlError("renaming a table needs a local warehouse")
        os.rename(table.path, target)
