"""Storage access: the only layer that touches files. `FileIO` over any pyarrow filesystem."""

from paimon_sql.io.fileio import FileIO, file_io, local_path
from paimon_sql.io.records import read_records

__all__ = ["FileIO", "file_io", "local_path", "read_records"]
