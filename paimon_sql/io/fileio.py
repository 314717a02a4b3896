"""`FileIO`: reading, listing and atomically creating files.

On local disk or any pyarrow/fsspec filesystem.

>>> import tempfile, os
>>> root = tempfile.mkdtemp()
>>> io = file_io(root)
>>> io.write_bytes(os.path.join(root, "a", "x"), b"1")
>>> io.read_bytes(os.path.join(root, "a", "x")), io.exists(os.path.join(root, "a", "y"))
(b'1', False)
>>> io.list_names(os.path.join(root, "a"))
['x']
"""

from __future__ import annotations

import contextlib
import logging
import os
import posixpath
import re
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow.fs as pafs

from paimon_sql.errors import (
    DataFileNotFoundError,
    PaimonSqlError,
    StorageError,
    UnsupportedFeatureError,
)
from paimon_sql.io.objectstore import (
    SCHEMES,
    SINGLE_WRITER,
    ObjectStoreFileIO,
    is_object_store_uri,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, the listing checks remain
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_TEMPORARY = re.compile(rf"^\..+\.{_UUID}\.tmp$")


def is_temporary(name: str) -> bool:
    """Whether a file name is one of `FileIO.try_create`'s temporary files (``.<name>.<uuid>.tmp``).

    A writer killed between writing it and linking it leaves it behind: readers never list it and
    ``remove_orphan_files`` deletes it once it is older than its cutoff.

    >>> name = ".snapshot-7.0b9c3c7e-4a4e-4f4c-9a59-0d0e6f2a1b7c.tmp"
    >>> is_temporary(name), is_temporary("snapshot-7")
    (True, False)
    """
    return _TEMPORARY.match(name) is not None


@dataclass(frozen=True, slots=True)
class FileIO:
    """Paths are plain strings: absolute local paths, or paths inside `fs` for remote stores."""

    fs: pafs.FileSystem
    local: bool
    #: For a remote `fs`: create-if-absent is "exists, then write", safe only with one writer.
    single_writer: bool = False

    def statement(self, memo: Any = None) -> contextlib.AbstractContextManager[None]:
        """One statement's scope (an object store remembers listings in it; here: nothing)."""
        return contextlib.nullcontext()

    def memo(self) -> dict[tuple[str, str], Any] | None:
        """What the running statement remembers: nothing on this FileIO."""
        return None

    def read_bytes(self, path: str) -> bytes:
        """The whole file; a missing file raises `DataFileNotFoundError` naming it."""
        try:
            if self.local:
                with open(path, "rb") as fh:
                    return fh.read()
            with self.fs.open_input_stream(path) as stream:
                return bytes(stream.read())
        except FileNotFoundError as err:
            raise DataFileNotFoundError(f"file not found: {path}") from err
        except OSError as err:
            if not self.exists(path):
                raise DataFileNotFoundError(f"file not found: {path}") from err
            raise PaimonSqlError(f"cannot read {path}: {err}") from err

    def read_text(self, path: str) -> str:
        """The file decoded as UTF-8."""
        return self.read_bytes(path).decode("utf-8")

    def exists(self, path: str) -> bool:
        """Whether a file or folder exists."""
        if self.local:
            return os.path.exists(path)
        return self.fs.get_file_info(path).type != pafs.FileType.NotFound

    def is_file(self, path: str) -> bool:
        """Whether `path` is a file (one stat: the probes of `Table.latest_snapshot_id`)."""
        if self.local:
            return os.path.isfile(path)
        return self.fs.get_file_info(path).type == pafs.FileType.File

    def is_dir(self, path: str) -> bool:
        """Whether `path` is a folder."""
        if self.local:
            return os.path.isdir(path)
        return self.fs.get_file_info(path).type == pafs.FileType.Directory

    def list_names(self, path: str) -> list[str]:
        """The sorted names inside a folder; an absent folder lists as empty."""
        if self.local:
            try:
                return sorted(os.listdir(path))
            except FileNotFoundError:
                return []
        selector = pafs.FileSelector(path, allow_not_found=True)
        return sorted(posixpath.basename(i.path) for i in self.fs.get_file_info(selector))

    def file_size(self, path: str) -> int:
        """Size in bytes."""
        if self.local:
            return os.path.getsize(path)
        return int(self.fs.get_file_info(path).size)

    def mkdirs(self, path: str) -> None:
        """Create a folder and its parents."""
        if self.local:
            os.makedirs(path, exist_ok=True)
        else:
            self.fs.create_dir(path, recursive=True)

    def write_bytes(self, path: str, data: bytes) -> None:
        """Write (or overwrite) a whole file; used for files with fresh unique names and hints."""
        self.mkdirs(posixpath.dirname(path) if not self.local else os.path.dirname(path))
        if self.local:
            with open(path, "wb") as fh:
                fh.write(data)
        else:
            with self.fs.open_output_stream(path) as out:
                out.write(data)

    @contextlib.contextmanager
    def open_output(self, path: str) -> Iterator[Any]:
        """Write (or overwrite) a file as a stream; a failure inside the block removes it.

        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "d", "f")
        >>> with file_io(path).open_output(path) as out:
        ...     _ = out.write(b"abc")
        >>> open(path, "rb").read()
        b'abc'
        """
        self.mkdirs(posixpath.dirname(path) if not self.local else os.path.dirname(path))
        out: Any = open(path, "wb") if self.local else self.fs.open_output_stream(path)  # noqa: SIM115
        try:
            with out:
                yield out
        except BaseException:
            self.delete(path)
            raise

    def try_create(self, path: str, data: bytes) -> bool:
        """Create `path` only if absent (atomic on local disk: link of a temp file); else False.

        Never an overwriting rename: two writers racing for ``snapshot-N`` must not both win
        (paimon-format.md §1.3).
        """
        if not self.local and not self.single_writer:
            raise StorageError(_NO_CONDITIONAL_PUT.format(path=path, key=SINGLE_WRITER))
        folder = os.path.dirname(path) if self.local else posixpath.dirname(path)
        self.mkdirs(folder)
        if not self.local:
            if self.exists(path):
                return False
            self.write_bytes(path, data)
            return True
        tmp = os.path.join(folder, f".{os.path.basename(path)}.{uuid.uuid4()}.tmp")
        try:
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.link(tmp, path)
        except FileExistsError:
            return False
        finally:
            # Once linked, `path` is created whatever happens to the temporary name: a failure to
            # remove it must not turn a made commit into a reported failure (remove_orphan_files
            # deletes what is left).
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            except OSError as err:
                log.warning("cannot remove temporary file %s: %s", tmp, err)
        return True

    @contextlib.contextmanager
    def folder_lock(self, folder: str) -> Iterator[None]:
        """Hold an exclusive advisory lock on a folder (local disk; elsewhere a no-op).

        Committers hold the snapshot folder's lock while they check that their base is still the
        latest snapshot and create the next one, so a check and its create-if-absent cannot be
        interleaved with another paimon-sql committer in any process (Java's optional commit
        lock). The kernel drops the lock of a killed process; no lock file is created.
        """
        if not self.local or fcntl is None:
            yield
            return
        self.mkdirs(folder)
        fd = os.open(folder, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the only descriptor releases the lock

    def delete(self, path: str) -> None:
        """Delete a file if it exists."""
        try:
            if self.local:
                os.unlink(path)
            else:
                self.fs.delete_file(path)
        except FileNotFoundError:
            pass

    def delete_dir(self, path: str) -> None:
        """Delete a folder and everything in it."""
        if self.local:
            import shutil

            shutil.rmtree(path, ignore_errors=True)
        else:
            self.fs.delete_dir(path)

    def remove_empty_dir(self, path: str) -> None:
        """Remove a folder if it is empty (and exists); a folder holding anything stays.

        Local folders only: ``rmdir`` refuses a folder with anything in it, so a file another
        writer put there meanwhile is never lost. Object stores keep no empty folders.
        """
        if self.local:
            with contextlib.suppress(OSError):
                os.rmdir(path)

    def join(self, *parts: str) -> str:
        """Join path parts the way this filesystem spells paths."""
        return os.path.join(*parts) if self.local else posixpath.join(*parts)

    def modified_millis(self, path: str) -> int | None:
        """The file's modification time (epoch millis), None when absent."""
        try:
            mtime = self.fs.get_file_info(path).mtime_ns
        except FileNotFoundError:
            return None
        return None if mtime is None else mtime // 1_000_000

    def list_files(self, path: str) -> list[tuple[str, int]]:
        """``(path, modified millis)`` of the files right below folder `path`."""
        infos = self.fs.get_file_info(pafs.FileSelector(path, allow_not_found=True))
        return sorted(
            (i.path, i.mtime_ns // 1_000_000)
            for i in infos
            if i.type == pafs.FileType.File and i.mtime_ns is not None
        )


_TRUE = ("true", "1", "yes")
_NO_CONDITIONAL_PUT = (
    "cannot create {path} atomically: this filesystem has no create-if-absent, so two writers "
    "could both win a commit; use an s3:// warehouse URI (conditional puts), or, "
    "if only one process ever writes, pass storage_options={{'{key}': 'true'}}"
)


def local_path(uri: str) -> str:
    """A ``file:`` URI (any case, one or three slashes) as a plain path; other strings unchanged.

    >>> local_path("FILE:/tmp/x"), local_path("file:///tmp/x"), local_path("/tmp/x")
    ('/tmp/x', '/tmp/x', '/tmp/x')
    """
    if uri[:5].lower() == "file:":
        rest = uri[5:]
        return "/" + rest.lstrip("/") if rest.startswith("//") else rest
    return uri


def file_io(
    location: str | os.PathLike[str],
    filesystem: Any = None,
    storage_options: dict[str, Any] | None = None,
) -> FileIO | ObjectStoreFileIO:
    """A FileIO for a warehouse.

    An object store for ``s3://`` URIs (`storage_options` in obstore's key names; ``gs://`` and
    ``az://`` are refused by name), else local disk, or a pyarrow / fsspec `filesystem` when one
    is given.

    >>> file_io("/tmp").local, file_io("file:///tmp").local
    (True, True)
    """
    location = os.fspath(location)
    if filesystem is None and is_object_store_uri(location):
        return ObjectStoreFileIO(location, storage_options)
    scheme = location.partition(":")[0].lower()
    if filesystem is None and scheme in SCHEMES:
        raise UnsupportedFeatureError(
            f"warehouse {location!r} looks like a {scheme}:// URI missing a '/': write "
            f"{scheme}://bucket/path (a local folder named '{scheme}:' is never created)"
        )
    single = str((storage_options or {}).get(SINGLE_WRITER, "false")).lower() in _TRUE
    if filesystem is None:
        return FileIO(pafs.LocalFileSystem(), True)
    if isinstance(filesystem, pafs.FileSystem):
        return FileIO(filesystem, isinstance(filesystem, pafs.LocalFileSystem), single)
    handler = pafs.FSSpecHandler(filesystem)  # type: ignore[abstract]  # concrete; stubs say not
    return FileIO(pafs.PyFileSystem(handler), False, single)
