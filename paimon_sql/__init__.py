"""paimon-sql: Apache Paimon tables as a first-class part of DuckDB, without a JVM.

>>> import paimon_sql, tempfile
>>> session = paimon_sql.connect(tempfile.mkdtemp())
>>> session.sql("SELECT 42").fetchall()
[(42,)]

The public API, in the order a first session meets it:

* `connect` opens a warehouse as a `Session`; `Session.sql` runs Paimon SQL and DuckDB SQL and
  returns a `Relation` (a DuckDB relation whose errors are `paimon_sql.errors` types).
* `install` puts the same tables and the ``paimon_*`` table functions into a plain DuckDB
  connection.
* `Catalog` lists, creates and drops databases and tables; `Table` reads one table's metadata
  (schemas, snapshots, tags, manifests); `Identifier` is a checked ``db.table`` name.
* `errors` holds every exception; `PaimonSqlError` is their root.

A tour, in a new warehouse folder (``tmp_warehouse``, from the doctest namespace of the
repository's ``conftest.py``):

>>> session = paimon_sql.connect(tmp_warehouse)
>>> for statement in (
...     "CREATE DATABASE db",
...     "CREATE TABLE db.t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)",
...     "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')",
...     "INSERT INTO db.t VALUES (2, 'B')",
... ):
...     _ = session.sql(statement)
>>> session.sql("SELECT * FROM db.t ORDER BY id").fetchall()
[(1, 'a'), (2, 'B')]
>>> session.sql("SELECT * FROM db.t VERSION AS OF 1 ORDER BY id").fetchall()
[(1, 'a'), (2, 'b')]
>>> paimon_sql.Catalog(tmp_warehouse).load_table("db.t").snapshot_ids()
[1, 2]
>>> import duckdb
>>> con = duckdb.connect()
>>> _ = paimon_sql.install(con, tmp_warehouse)
>>> con.sql("SELECT snapshot_id, total_record_count FROM paimon_snapshots('db.t')").fetchall()
[(1, 2), (2, 3)]
"""

from paimon_sql import errors
from paimon_sql.catalog import Catalog, Identifier, Table
from paimon_sql.engine.relation import Relation
from paimon_sql.errors import PaimonSqlError
from paimon_sql.sql.install import install
from paimon_sql.sql.session import Session, connect

__all__ = [
    "Catalog",
    "Identifier",
    "PaimonSqlError",
    "Relation",
    "Session",
    "Table",
    "connect",
    "errors",
    "install",
]
