"""``changelog-producer`` = input: the input records of a write, kept as changelog files.

Java's ``MergeTreeWriter`` with the input producer writes, at every flush, each record of the
write buffer twice: merged into the level-0 data file, and as it came into a changelog file
(``changelog-<uuid>-<n>.<format>``, the data file layout: key, ``_SEQUENCE_NUMBER``,
``_VALUE_KIND``, values) in the same bucket folder; the commit lists the changelog files in the
snapshot's ``changelogManifestList`` and counts them in ``changelogRecordCount``. Each data file
paimon-sql writes holds the statement's records for its keys, so its changelog file is a byte copy
under the changelog name, with the same statistics (`copy_as_changelog`); Flink 1.3 reads it as
its own (tests/interop/flink/test_changes_flink.py).

One difference: a key written several times in ONE statement of a deduplicate table keeps only
its last version in the data file (as Java's write buffer merges it), so the changelog has that
version only, where Java's input changelog also lists the earlier ones. The merged result, and
every statement that writes a key once, are the same.

The ``changelog-file.format`` / ``.compression`` / ``.stats-mode`` options, when they differ from
the data file's, are refused by `input_changelog` rather than ignored.

>>> from paimon_sql.format.options import CoreOptions
>>> input_changelog(CoreOptions({"changelog-producer": "input"}))
True
>>> input_changelog(CoreOptions({}))
False
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.format.options import ChangelogProducer

if TYPE_CHECKING:
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.format.options import CoreOptions
    from paimon_sql.io.fileio import FileIO

#: The option naming the changelog files' prefix (``changelog-`` by default).
CL = "changelog-file.prefix"
_SAME_AS_DATA = {
    "changelog-file.format": "file.format",
    "changelog-file.compression": "file.compression",
    "changelog-file.stats-mode": "metadata.stats-mode",
}


def input_changelog(options: CoreOptions) -> bool:
    """Whether a write to the table also writes its input as changelog files."""
    if options.changelog_producer is not ChangelogProducer.INPUT:
        return False
    for key, data_key in _SAME_AS_DATA.items():
        value = options.options.get(key)
        data = (
            options.file_format if key == "changelog-file.format" else options.options.get(data_key)
        )
        if value is not None and value.strip().lower() != (data or "").strip().lower():
            raise UnsupportedFeatureError(
                f"'{key}' = {value!r} differs from '{data_key}': paimon-sql writes changelog "
                f"files like data files; remove '{key}' or set it equal to '{data_key}'"
            )
    return True


def copy_as_changelog(
    fileio: FileIO, data_path: str, path: str, meta: DataFileMeta
) -> DataFileMeta:
    """Copy the data file at `data_path` to the changelog file `path`; its meta (renamed)."""
    fileio.write_bytes(path, fileio.read_bytes(data_path))
    return replace(meta, file_name=path.replace("\\", "/").rsplit("/", 1)[-1])
