"""An import-linter contract type for a private submodule of an external package.

import-linter squashes external packages to their top-level name (``duckdb``), so its built-in
contracts cannot say "``duckdb._sources`` only in ``paimon_sql.engine.source``". This contract reads
the import statements grimp recorded for the squashed package instead. ``make lint`` puts ``.ci`` on
``PYTHONPATH`` so that ``[tool.importlinter] contract_types`` can name this module.

Configuration (pyproject.toml)::

    [[tool.importlinter.contracts]]
    name = "duckdb._sources only in paimon_sql.engine.source"
    type = "external_submodule"
    submodule = "duckdb._sources"
    allowed_importers = ["paimon_sql.engine.source"]
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from importlinter import Contract, ContractCheck, fields, output

if TYPE_CHECKING:
    from grimp import ImportGraph


class ExternalSubmoduleContract(Contract):
    """Only ``allowed_importers`` may import ``submodule`` (an external package's submodule)."""

    type_name = "external_submodule"

    submodule = fields.StringField()
    allowed_importers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        """Find every direct import of ``submodule`` outside the allowed importers."""
        submodule = str(self.submodule)
        allowed = {str(name) for name in self.allowed_importers}  # type: ignore[attr-defined]
        root = submodule.split(".", 1)[0]
        pattern = re.compile(
            rf"^\s*(from\s+{re.escape(submodule)}(\.|\s)|import\s+(.*,\s*)?{re.escape(submodule)}\b)"
        )
        illegal: list[tuple[str, int]] = []
        if root in graph.modules:
            for importer in sorted(graph.find_modules_that_directly_import(root)):
                if importer in allowed:
                    continue
                for detail in graph.get_import_details(importer=importer, imported=root):
                    if pattern.match(str(detail["line_contents"])):
                        illegal.append((importer, int(detail["line_number"])))
        return ContractCheck(kept=not illegal, warnings=[], metadata={"illegal": illegal})

    def render_broken_contract(self, check: ContractCheck) -> None:
        """List each illegal importer with its line number."""
        output.print_error(f"Illegal imports of {self.submodule}:", bold=False)
        output.new_line()
        for importer, line in check.metadata["illegal"]:
            output.print_error(f"- {importer} -> {self.submodule} (l.{line})", bold=False)
        output.new_line()
