"""Orphan files: files in a table folder no snapshot, tag or branch uses (Java's OrphanFilesClean).

They are left by failed or concurrent writers and by Java's rollback of older versions. Candidates
are the files in ``manifest/``, ``index/``, ``statistics/`` and the data folders
(``k=v/.../bucket-N``); ``snapshot/``, ``schema/``, ``tag/``, ``branch/``, ``consumer/`` and
``changelog/`` metadata are never touched -- except the temporary files (``.<name>.<uuid>.tmp``)
a writer killed in the middle of a create-if-absent left there, which no reader ever lists. A
candidate is deleted only if its *name* is used by no snapshot, tag or long-lived changelog of any
branch (Java compares names, which are unique) and it was last modified before `older_than_ms`, so
files a concurrent writer is still committing (younger than the threshold; Java's default is one
day) survive.
"""

from __future__ import annotations

import posixpath
import time
from typing import TYPE_CHECKING

from paimon_sql.catalog import names
from paimon_sql.commit.expire import Deleter, branches, used_file_names
from paimon_sql.io.fileio import is_temporary

if TYPE_CHECKING:
    from paimon_sql.catalog import Table

DAY_MS = 24 * 60 * 60 * 1000
_METADATA_DIRS = ("manifest", "index", "statistics")


def remove_orphan_files(
    table: Table, older_than_ms: int | None = None, *, dry_run: bool = False
) -> list[str]:
    """Delete (`dry_run`: only list) orphan files older than `older_than_ms` (default: a day ago).

    Returns their paths. Every snapshot, tag and changelog of every branch is read first; if one
    cannot be read, nothing is deleted.
    """
    threshold = int(time.time() * 1000) - DAY_MS if older_than_ms is None else older_than_ms
    used = used_file_names(table)
    delete = Deleter(table, dry_run=dry_run, spare_branches=False)  # `used` has them
    for path, mtime_ms in _candidates(table):
        name = path.rsplit("/", 1)[-1]
        if name not in used and mtime_ms < threshold:
            delete(path)
    return delete.deleted


def _candidates(table: Table) -> list[tuple[str, int]]:
    """(path, modification time in ms) of every file in the folders orphans can be in.

    As Java: ``manifest/``, ``index/``, ``statistics/``, and the bucket folders found by walking one
    ``k=v`` level per partition key, then ``bucket-*``.
    """
    schema = table.latest_schema
    base = table.path
    directory = names.path_directory(schema.options)
    if directory:
        base = table.sub(directory)
    folders = [base]
    for _ in schema.partition_keys:
        folders = [
            table.fileio.join(f, n) for f in folders for n in table.fileio.list_names(f) if "=" in n
        ]
    buckets = [
        table.fileio.join(f, n)
        for f in folders
        for n in table.fileio.list_names(f)
        if n.startswith("bucket-")
    ]
    out: list[tuple[str, int]] = []
    for folder in [table.sub(d) for d in _METADATA_DIRS] + buckets:
        out += _files(table, folder)
    for branch in branches(table):
        for folder in _VERSION_DIRS:
            out += _files(table, branch.meta(folder), temporary_only=True)
    return out


_VERSION_DIRS = ("snapshot", "schema", "tag", "changelog", "consumer")


def _files(table: Table, folder: str, *, temporary_only: bool = False) -> list[tuple[str, int]]:
    if not table.fileio.is_dir(folder):
        return []
    # a folder that is a link out of the table: refuse before anything is deleted
    names.inside(folder, [table.path], local=table.fileio.local, what="orphan candidate folder")
    files = table.fileio.list_files(folder)
    if temporary_only:
        files = [(path, ms) for path, ms in files if is_temporary(posixpath.basename(path))]
    return files
