"""The paimon-cpp corpus of Java-written tables, read by Apache Paimon 1.4.2 (the truth file).

paimon-cpp (alibaba/paimon-cpp @ 43d9d027) keeps ~100 tables written by Paimon's Java writer
under ``test/test_data`` (``parquet/``, ``orc/``, ``avro/`` and a few at the top). Every read of
every table, latest, at each snapshot and tag, and of each branch, is listed by
:func:`corpus_reads`; :func:`java_reads` asks the Java-API oracle for each (a read Java itself
fails on is recorded with its error, ``java_error``). The answers are kept in
``paimon-1.4.2-reads.json`` beside the vendored tables, so
``tests/acceptance/test_paimon_cpp_corpus.py`` needs no JVM; ``test_cpp_corpus.py`` re-derives
them.

Regenerate (JVM, ~15 s): ``python -m tests.interop.paimon20.cpp_corpus <test_data dir> <out>``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

SOURCE = (
    "Apache Paimon 1.4.2 (paimon-bundle, Java API: CatalogFactory + newReadBuilder, "
    "tests/interop/paimon20/Bridge20.java) reading each table of alibaba/paimon-cpp@43d9d027 "
    "test/test_data latest, at every snapshot ('scan.snapshot-id', in that snapshot's schema) "
    "and tag ('scan.tag-name'), and each branch ('t$branch_b'), rows in harness.canonical_flink "
    "form; made with tests/interop/paimon20/cpp_corpus.py"
)


def _ids(folder: Path, prefix: str) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(
        (p.name[len(prefix) :] for p in folder.iterdir() if p.name.startswith(prefix)),
        key=lambda s: (len(s), s),
    )


def corpus_tables(root: Path) -> list[str]:
    """``<warehouse>/<db>.db/<table>`` paths (relative to ``root``) of every table under it."""
    out = []
    for schema in root.rglob("schema"):
        table = schema.parent
        if table.parent.name == "branch" or not table.parent.name.endswith(".db"):
            continue
        out.append(table.relative_to(root).as_posix())
    return sorted(out)


def split(path: str) -> tuple[str, str, str]:
    """``(warehouse, database, table)`` of a corpus path (the warehouse relative to the root).

    >>> split("parquet/pk_09.db/pk_09")
    ('parquet', 'pk_09', 'pk_09')
    >>> split("db_with_blob.db/table_with_blob")
    ('', 'db_with_blob', 'table_with_blob')
    """
    parts = path.split("/")
    return "/".join(parts[:-2]), parts[-2][: -len(".db")], parts[-1]


def corpus_reads(root: Path) -> list[dict[str, Any]]:
    """Every read of the corpus: ``{key, path, table, snapshot, tag}`` (``table`` may carry a
    ``$branch_b`` suffix); latest, every snapshot file, every tag, each branch likewise."""
    reads = []
    for path in corpus_tables(root):
        folder = root / path
        _, _, name = split(path)
        versions = [(folder, name)]
        for branch in _ids(folder / "branch", "branch-"):
            versions.append((folder / "branch" / f"branch-{branch}", f"{name}$branch_{branch}"))
        for home, table in versions:
            base: dict[str, Any] = {"path": path, "table": table, "snapshot": None, "tag": None}
            key = path.rsplit("/", 1)[0] + "/" + table
            reads.append({**base, "key": f"{key}@latest"})
            for snap in _ids(home / "snapshot", "snapshot-"):
                reads.append({**base, "snapshot": int(snap), "key": f"{key}@snapshot-{snap}"})
            for tag in _ids(home / "tag", "tag-"):
                reads.append({**base, "tag": tag, "key": f"{key}@tag-{tag}"})
    return reads


def _first_line(error: str) -> str:
    """The cause of a Java error (its innermost ``Caused by`` or first line), without hashes."""
    causes = [line for line in error.splitlines() if line.startswith("Caused by: ")]
    line = causes[-1][len("Caused by: ") :] if causes else error.splitlines()[0]
    line = line.split("Paimon 1.4.2 failed on read: ")[-1]
    return re.sub(r"@[0-9a-f]{6,}", "", line)[:400]


def java_reads(root: Path) -> dict[str, Any]:
    """Paimon 1.4.2's answer to every read of :func:`corpus_reads` (run on a copy: the bridge's
    catalog creates a ``db`` database in each warehouse)."""
    from tests.interop.paimon20.harness import JavaApiError, oracle

    java = oracle()
    reads: dict[str, Any] = {}
    for read in corpus_reads(root):
        warehouse, database, _ = split(read["path"])
        entry = {k: read[k] for k in ("path", "table", "snapshot", "tag")}
        reads[read["key"]] = entry
        try:
            columns, rows = java.read(
                root / warehouse,
                read["table"],
                snapshot=read["snapshot"],
                tag=read["tag"],
                database=database,
            )
        except JavaApiError as err:
            entry["java_error"] = _first_line(str(err))
            continue
        entry.update(columns=columns, rows=rows)
    return {"source": SOURCE, "reads": reads}


if __name__ == "__main__":
    data = java_reads(Path(sys.argv[1]))
    Path(sys.argv[2]).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
