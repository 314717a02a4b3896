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
the data file's, are refused rather than ignored. The rule lives in
`paimon_sql.format.option_registry.UNIMPLEMENTED` (CREATE, ALTER and every write path check it);
`input_changelog` asks it again, so a writer reached some other way cannot skip it.

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
from paimon_sql.format.option_registry import unimplemented_problems
from paimon_sql.format.options import ChangelogProducer

if TYPE_CHECKING:
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.format.options import CoreOptions
    from paimon_sql.io.fileio import FileIO

#: The option naming the changelog files' prefix (``changelog-`` by default).
CL = "changelog-file.prefix"
_CHANGELOG_FILE_OPTIONS = (
    "changelog-file.format",
    "changelog-file.compression",
    "changelog-file.stats-mode",
)


def input_changelog(options: CoreOptions) -> bool:
    """Whether a write to the table also writes its input as changelog files.

    >>> from paimon_sql.format.options import CoreOptions
    >>> input_changelog(CoreOptions({"changelog-producer": "input",
    ...                              "changelog-file.format": "orc"}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paimon_sql.errors.UnsupportedFeatureError: option 'changelog-file.format' = 'orc' is not ...
    """
    if options.changelog_producer is not ChangelogProducer.INPUT:
        return False
    problems = unimplemented_problems(options.options, keys=_CHANGELOG_FILE_OPTIONS)
    if problems:
        raise UnsupportedFeatureError("; ".join(problems))
    return True


def copy_as_changelog(
    fileio: FileIO, data_path: str, path: str, meta: DataFileMeta
) -> DataFileMeta:
    """Copy the data file at `data_path` to the changelog file `path`; its meta (renamed)."""
    fileio.write_bytes(path, fileio.read_bytes(data_path))
    return replace(meta, file_name=path.replace("\\", "/").rsplit("/", 1)[-1])
