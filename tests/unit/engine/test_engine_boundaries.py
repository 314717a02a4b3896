"""The engine layer's boundaries, checked from the source.

(Until import-linter contracts gate them.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import paimon_sql

PACKAGE = Path(paimon_sql.__file__).parent

#: Imports of the SQL layer the engine still makes (the type mapping moves to paimon_sql.types).
ENGINE_TO_SQL_ALLOWED: set[str] = set()


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _modules(folder: str = "") -> dict[str, set[str]]:
    root = PACKAGE / folder
    return {str(p.relative_to(PACKAGE)): _imports(p) for p in sorted(root.rglob("*.py"))}


def test_only_engine_source_uses_duckdb_private_sources() -> None:
    users = sorted(
        m for m, names in _modules().items() if any(n.startswith("duckdb._sources") for n in names)
    )
    assert users == ["engine/source.py"]


def test_handlers_and_procedures_never_import_the_session() -> None:
    for folder in ("sql/statements", "sql/procedures"):
        for module, names in _modules(folder).items():
            assert "paimon_sql.sql.session" not in names, module


def test_the_engine_does_not_import_the_sql_layer() -> None:
    for module, names in _modules("engine").items():
        upward = {
            n for n in names if n == "paimon_sql.sql" or n.startswith("paimon_sql.sql.")
        } - ENGINE_TO_SQL_ALLOWED
        assert not upward, (module, upward)
