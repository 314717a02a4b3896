"""Draw paimon_sql's package-level imports (a Mermaid graph) and check the drawing.

Run ``python .ci/import_graph.py`` to print the graph that ARCHITECTURE.md embeds, or with
``--check ARCHITECTURE.md`` to fail when the embedded graph is stale. Arrows point from the
importing package to the imported one; the layer order itself is enforced by import-linter
(``make lint``), this is the picture of it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import grimp

#: Top-level modules shown as one box each, listed top (user-facing) to bottom.
ORDER = (
    "cli", "spark", "sql", "engine", "compact", "changes", "read", "write", "commit", "plan",
    "catalog",
    "io", "format", "sqlnodes", "types", "errors",
)  # fmt: skip


def edges() -> list[tuple[str, str]]:
    """(importer, imported) pairs between the top-level parts of the package, sorted."""
    graph = grimp.build_graph("paimon_sql")
    found: set[tuple[str, str]] = set()
    for module in graph.modules:
        source = _part(module)
        for imported in graph.find_modules_directly_imported_by(module):
            target = _part(imported)
            if source and target and source != target:
                found.add((source, target))
    return sorted(found, key=lambda e: (ORDER.index(e[0]), ORDER.index(e[1])))


def _part(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "paimon_sql" or len(parts) < 2:
        return None
    name = parts[1].lstrip("_")
    return name if name in ORDER else None


def reduced(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The arrows no longer path implies (the transitive reduction), so the drawing stays legible.

    >>> reduced([("a", "b"), ("b", "c"), ("a", "c")])
    [('a', 'b'), ('b', 'c')]
    """
    targets: dict[str, set[str]] = {}
    for a, b in pairs:
        targets.setdefault(a, set()).add(b)

    def reachable(start: str, skip: tuple[str, str]) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            node = todo.pop()
            for nxt in targets.get(node, ()):
                if (node, nxt) != skip and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    return [(a, b) for a, b in pairs if b not in reachable(a, (a, b))]


def mermaid() -> str:
    """The graph as a Mermaid block (every import is implied by a path of arrows)."""
    lines = ["```mermaid", "graph TD"]
    lines += [f"  {a} --> {b}" for a, b in reduced(edges())]
    lines.append("```")
    return "\n".join(lines)


def main() -> int:
    """Print the graph, or check that `--check FILE` embeds the current one."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", type=Path)
    args = parser.parse_args()
    drawing = mermaid()
    upward = [(a, b) for a, b in edges() if ORDER.index(a) > ORDER.index(b)]
    if upward:
        print(f"arrows going up a layer: {upward}", file=sys.stderr)
        return 1
    if args.check is None:
        print(drawing)
        return 0
    if drawing not in args.check.read_text():
        print(
            f"{args.check}: the import graph is stale; rerun .ci/import_graph.py", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
