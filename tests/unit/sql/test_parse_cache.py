# ruff: noqa: S608 - the statements are test inputs built from numbers
"""The session's cache of parsed statements keeps repeated queries, not one-off writes."""

from __future__ import annotations

import uuid

import paimon_sql
from paimon_sql.sql import session as session_module


def test_a_statement_is_kept_from_its_second_run(tmp_path):
    """A one-off ``INSERT … VALUES`` is not kept (six of 20,000 rows each held ~220 MB of text and
    ASTs in the cache, which kept up to 256 statements); a query is, from its second run."""
    s = paimon_sql.connect(tmp_path, create=True)
    s.sql("CREATE DATABASE db")
    s.sql("CREATE TABLE db.t (k INT, v STRING)")
    values = "INSERT INTO db.t VALUES " + ", ".join(f"({i}, 'v{i}')" for i in range(2000))
    s.sql(values)
    assert values not in session_module._PARSED
    # a text no other test runs (the cache is the process's)
    query = f"SELECT count(*) FROM db.t WHERE k >= 1000 AND v <> '{uuid.uuid4()}'"
    assert s.sql(query).fetchall() == [(1000,)]
    assert query not in session_module._PARSED
    assert s.sql(query).fetchall() == [(1000,)]
    assert query in session_module._PARSED
    # the kept AST is not the one the statement rewrote: a third run reads the same
    assert s.sql(query).fetchall() == [(1000,)]
    s.close()
