"""paimon-sql: Apache Paimon tables as a first-class part of DuckDB, without a JVM.

>>> import paimon_sql, tempfile
>>> session = paimon_sql.connect(tempfile.mkdtemp())
>>> session.sql("SELECT 42").fetchall()
[(42,)]
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
