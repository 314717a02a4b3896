"""Warehouses for the shell tests: a copy of a Java-written one, and one the tests write."""

from __future__ import annotations

import shutil

import pytest

from tests.fixtures import FIXTURES

JAVA_WAREHOUSE = FIXTURES / "generated-paimon-java-0.9" / "warehouse"

# pk_dedup as Apache Paimon 0.9 wrote it, rendered by the shell (id 1 was updated, 2 lost its name).
PK_DEDUP_TABLE = """\
 id | name |    v
----+------+------
  1 | a2   | NULL
  2 | NULL |   25
  3 | c    |   30
  4 | d    |   40
(4 rows)
"""


@pytest.fixture
def java_warehouse(tmp_path):
    """A private copy of the Java-written warehouse (the shell only reads; a copy keeps it so)."""
    return shutil.copytree(JAVA_WAREHOUSE, tmp_path / "java-warehouse")
