"""`ObjectStoreFileIO`: warehouses on ``s3://`` (and ``s3a://``), through obstore (object_store).

``gs://`` and ``az://`` (``gcs``, ``abfs``, ``abfss``) are recognised and refused by name
(`UNTESTED_STORES`): obstore has stores for them, but no server of theirs runs in the test suite, so
nothing here claims they work.

Paths are full URIs (``s3://bucket/wh/db.db/t/snapshot/snapshot-1``) everywhere above this layer, so
the catalog, `paimon_sql.catalog.names` and the metadata see one spelling. Snapshots, schemas and
tags are created with a conditional PUT (``If-None-Match: *``), so two writers never both win
(paimon-format.md §1.3). Reads of data files use range requests (`read_range`, `read_ranges`:
parallel, coalesced); data files are written as streams (`open_output`: multipart uploads). A
statement's listings and small metadata reads are remembered for the statement (`statement`).
obstore is imported lazily: it is the ``[s3]`` extra.

Object stores have no folders. A folder is every key below a prefix; an empty folder made on purpose
(a new warehouse or database) holds one empty marker object, `FOLDER_MARKER`, which listings hide.

>>> split_uri("s3://bucket/wh/db.db")
('s3', 'bucket', 'wh/db.db')
>>> split_uri("S3A://bucket")
('s3', 'bucket', '')
>>> is_object_store_uri("s3://b/wh"), is_object_store_uri("/tmp/wh"), is_object_store_uri("file:///x")
(True, False, False)
"""

from __future__ import annotations

import configparser
import contextlib
import logging
import os
import posixpath
import threading
from collections import OrderedDict
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import (
    CommitStateUnknownError,
    DataFileNotFoundError,
    MissingDependencyError,
    PaimonSqlError,
    StorageAccessError,
    StorageError,
    UnsupportedFeatureError,
    WarehouseNotFoundError,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

_LOG = logging.getLogger(__name__)

#: URI schemes and the store each one names (``s3a`` is how Hadoop and Java Paimon spell S3).
SCHEMES = {
    "s3": "s3",
    "s3a": "s3",
    "gs": "gs",
    "gcs": "gs",
    "az": "az",
    "abfs": "az",
    "abfss": "az",
}
#: Stores recognised but refused: untested (no Google Cloud Storage or Azure server in the tests).
UNTESTED_STORES = {"gs": "Google Cloud Storage", "az": "Azure Blob Storage"}
#: The empty object that keeps a folder made on purpose (warehouse, database) visible; listings
#: hide it.
FOLDER_MARKER = ".paimon-folder"
#: paimon-sql's own storage option: writes without conditional puts, trusting there is one writer.
SINGLE_WRITER = "single_writer"
#: Folders whose files have unique names and are never rewritten (cached by `read_bytes`).
_IMMUTABLE_FOLDERS = frozenset({"manifest", "index", "statistics"})
#: Folders of small metadata files whose reads a statement remembers (`statement`).
_STATEMENT_FOLDERS = frozenset({"snapshot", "schema", "tag", "branch", "consumer"})
#: The key of a statement memo holding the FileIO generation its entries were seen at.
_GENERATION = ("generation", "")
#: The gap below which obstore's `get_ranges` merges two ranges into one request (object_store's
#: ``OBJECT_STORE_COALESCE_DEFAULT``): `requests` counts what is sent.
_COALESCE_BYTES = 1024 * 1024

_EXTRA = "pip install 'paimon-sql[s3]'"


def split_uri(uri: str) -> tuple[str, str, str]:
    """``(store, bucket, key)`` of an object store URI; `UnsupportedFeatureError` for others.

    >>> split_uri("gs://b/a/b/")
    ('gs', 'b', 'a/b')
    """
    scheme, sep, rest = uri.partition("://")
    store = SCHEMES.get(scheme.lower()) if sep else None
    if store is None:
        known = ", ".join(f"{s}://" for s in SCHEMES)
        raise UnsupportedFeatureError(
            f"unsupported warehouse URI {uri!r}: the scheme {scheme + '://'!r} is not one of "
            f"{known} (or a local path / file://)"
        )
    bucket, _, key = rest.partition("/")
    if not bucket:
        raise UnsupportedFeatureError(
            f"warehouse URI {uri!r} names no bucket: write {scheme}://bucket/path"
        )
    return store, bucket, posixpath.normpath("/" + key).strip("/") if key.strip("/") else ""


def is_object_store_uri(location: str) -> bool:
    """Whether `location` is a URI with a scheme other than ``file:`` (never a local path then)."""
    scheme, sep, _ = location.partition("://")
    return bool(sep) and scheme.lower() != "file" and scheme.replace("+", "").isalnum()


def _profile(env: Mapping[str, str]) -> dict[str, str]:
    """Static keys, region and endpoint of the AWS profile (``AWS_PROFILE``, else ``default``).

    From ``~/.aws/credentials`` and ``~/.aws/config`` (``AWS_SHARED_CREDENTIALS_FILE``,
    ``AWS_CONFIG_FILE``).
    """
    name = env.get("AWS_PROFILE") or env.get("AWS_DEFAULT_PROFILE") or "default"
    home = os.path.expanduser("~")
    files = [
        (env.get("AWS_SHARED_CREDENTIALS_FILE") or os.path.join(home, ".aws", "credentials"), name),
        (env.get("AWS_CONFIG_FILE") or os.path.join(home, ".aws", "config"),
         name if name == "default" else f"profile {name}"),
    ]  # fmt: skip
    wanted = {
        "aws_access_key_id": "aws_access_key_id",
        "aws_secret_access_key": "aws_secret_access_key",
        "aws_session_token": "aws_session_token",
        "region": "aws_region",
        "endpoint_url": "aws_endpoint",
    }
    out: dict[str, str] = {}
    for path, section in files:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(path, encoding="utf-8")
        except configparser.Error as err:
            raise StorageError(f"cannot read the AWS profile file {path}: {err}") from err
        if parser.has_section(section):
            for key, target in wanted.items():
                value = parser.get(section, key, fallback=None)
                if value and target not in out:
                    out[target] = value
    if env.get("AWS_PROFILE") and not out:
        raise StorageAccessError(f"AWS profile {name!r} (AWS_PROFILE) not found in {files[0][0]}")
    return out


def _s3_config(options: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    """Obstore's S3 config.

    `options` first, then what obstore reads from the environment itself (``AWS_ACCESS_KEY_ID`` ...
    ``AWS_ENDPOINT_URL``, ``AWS_ALLOW_HTTP``), then the AWS profile.
    """
    config = dict(options)
    if "AWS_ACCESS_KEY_ID" not in env and not _has(config, "access_key_id"):
        for key, value in _profile(env).items():
            short = key.removeprefix("aws_")
            if short in ("region", "endpoint") and (_env_has(env, short) or _has(config, short)):
                continue
            config.setdefault(key, value)
    if "AWS_REGION" not in env and "AWS_DEFAULT_REGION" not in env and not _has(config, "region"):
        config.setdefault("aws_region", "us-east-1")
    return config


def _has(config: Mapping[str, str], short: str) -> bool:
    return short in config or f"aws_{short}" in config


def _env_has(env: Mapping[str, str], short: str) -> bool:
    names = {
        "region": ("AWS_REGION", "AWS_DEFAULT_REGION"),
        "endpoint": ("AWS_ENDPOINT_URL", "AWS_ENDPOINT"),
    }
    return any(n in env for n in names[short])


def _obstore() -> Any:
    try:
        import obstore
    except ImportError as err:
        raise MissingDependencyError(
            f"object store warehouses (s3://) need obstore: {_EXTRA}"
        ) from err
    return obstore


def _make_store(store: str, bucket: str, options: Mapping[str, str]) -> Any:
    obstore = _obstore()
    from obstore.store import S3Store

    retry = {"max_retries": 3, "retry_timeout": timedelta(seconds=30)}
    try:
        config = _s3_config(options, os.environ)  # only S3: `UNTESTED_STORES` are refused
        return S3Store(bucket, config=config, retry_config=retry)  # type: ignore[arg-type]
    except PaimonSqlError:
        raise
    except obstore.exceptions.BaseError as err:
        raise StorageError(f"cannot configure {store}://{bucket}: {_first_line(err)}") from err
    except Exception as err:  # a bad storage option makes the Rust side panic or raise ValueError
        raise StorageError(
            f"bad storage options for {store}://{bucket}: {_first_line(err)}"
        ) from err


def _first_line(err: BaseException | str) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


class ObjectStoreFileIO:
    """The `paimon_sql.io.FileIO` contract on an object store; paths are URIs of its buckets.

    `bytes_fetched` and `requests` count what reads cost (the benchmarks and tests report them).
    """

    local = False
    #: The most bytes of immutable metadata files kept in memory.
    CACHE_BYTES = 64 * 1024 * 1024

    def __init__(self, uri: str, storage_options: Mapping[str, Any] | None = None) -> None:
        """A FileIO for the bucket of `uri` (and other buckets of its store: external paths)."""
        options = {str(k): str(v) for k, v in (storage_options or {}).items()}
        self.single_writer = options.pop(SINGLE_WRITER, "false").lower() in ("true", "1", "yes")
        self.store_kind, self.bucket, _ = split_uri(uri)
        if self.store_kind in UNTESTED_STORES:
            raise UnsupportedFeatureError(
                f"warehouse {uri!r}: {UNTESTED_STORES[self.store_kind]} warehouses are not "
                "supported (not tested); supported are s3:// (s3a://) URIs, local paths and "
                "file:// URIs"
            )
        self._options = options
        self._stores: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()
        self.bytes_fetched = 0
        self.requests = 0
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._cached_bytes = 0
        self._memo = threading.local()
        self._generation = 0  # bumped by every change this FileIO makes: statement memos drop
        self._ob = _obstore()
        self._store(self.store_kind, self.bucket)  # bad options fail at connect
        if self.single_writer:
            _LOG.warning(
                "single-writer mode on %s: snapshots are created WITHOUT conditional puts; two "
                "writers at once can silently lose commits",
                uri,
            )

    # --- addressing -------------------------------------------------------------------------------

    def _store(self, kind: str, bucket: str) -> Any:
        with self._lock:
            store = self._stores.get((kind, bucket))
            if store is None:
                store = self._stores[(kind, bucket)] = _make_store(kind, bucket, self._options)
            return store

    def _locate(self, path: str) -> tuple[Any, str]:
        kind, bucket, key = split_uri(path)
        if kind != self.store_kind:
            raise UnsupportedFeatureError(
                f"{path} is on another kind of store than this warehouse ({self.store_kind}://)"
            )
        return self._store(kind, bucket), key

    def _count(self, n: int, requests: int = 1) -> None:
        with self._lock:
            self.bytes_fetched += n
            self.requests += requests

    def _fail(self, err: Exception, path: str, action: str) -> PaimonSqlError:
        """The `paimon_sql.errors` error for a failed request, naming `path`."""
        ex = self._ob.exceptions
        text = str(err)
        if isinstance(err, ex.NotFoundError | FileNotFoundError):
            return DataFileNotFoundError(f"file not found: {path}")
        if "NoSuchBucket" in text:
            _, bucket, _ = split_uri(path)
            return WarehouseNotFoundError(
                f"bucket {bucket!r} does not exist ({path}); create it first "
                "(paimon-sql never creates buckets)"
            )
        denied = ("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "403 Forbidden",
                  "ExpiredToken", "InvalidToken")  # fmt: skip
        if isinstance(err, ex.PermissionDeniedError | ex.UnauthenticatedError) or any(
            d in text for d in denied
        ):
            return StorageAccessError(
                f"access denied to {path} while trying to {action}: check the credentials "
                f"(AWS_ACCESS_KEY_ID / AWS_PROFILE or storage_options): {_reason(text)}"
            )
        return StorageError(f"cannot {action} {path}: {_reason(text)}")

    # --- one statement's view ---------------------------------------------------------------------

    @contextlib.contextmanager
    def statement(self, memo: dict[tuple[str, str], Any] | None = None) -> Iterator[None]:
        """Remember listings, HEADs and small metadata reads until the block ends (one statement).

        A statement asks for the table's snapshot listing, its latest snapshot and its schemas
        several times (binding, planning, reading); inside this block the store is asked once.
        Any change this FileIO makes (a write, a create, a delete) and any "not found" forget
        everything remembered, so a commit that lost a race re-lists; the conditional PUT of
        `try_create` stays the only judge of who wins. Re-entrant; per thread. `memo` (from
        `memo`) carries a statement's memory on to the reading of its result.
        """
        state = self._memo
        depth = getattr(state, "depth", 0)
        if depth == 0:
            entries = memo if memo is not None else {}
            if entries.get(_GENERATION) != self._generation:  # a change since: all stale
                entries.clear()
                entries[_GENERATION] = self._generation
            state.entries = entries
        state.depth = depth + 1
        try:
            yield
        finally:
            state.depth -= 1
            if state.depth == 0:
                state.entries = None

    def memo(self) -> dict[tuple[str, str], Any] | None:
        """What the running statement of this thread remembers (None outside a statement)."""
        return getattr(self._memo, "entries", None)

    def _recall(self, key: tuple[str, str]) -> Any:
        entries = getattr(self._memo, "entries", None)
        if entries is None:
            return None
        if entries.get(_GENERATION) != self._generation:
            entries.clear()
            entries[_GENERATION] = self._generation
            return None
        return entries.get(key)

    def _remember(self, key: tuple[str, str], value: Any) -> Any:
        entries = getattr(self._memo, "entries", None)
        if entries is not None and entries.get(_GENERATION) == self._generation:
            entries[key] = value
        return value

    def _changed(self) -> None:
        with self._lock:
            self._generation += 1

    # --- reading ----------------------------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        """The whole object; a missing one raises `DataFileNotFoundError` naming it.

        Manifests, manifest lists and index files (unique names, never rewritten) are kept in a
        cache of at most `CACHE_BYTES`, so repeated queries do not fetch them again.
        """
        folder = posixpath.basename(posixpath.dirname(path))
        cacheable = folder in _IMMUTABLE_FOLDERS
        if cacheable:
            with self._lock:
                hit = self._cache.get(path)
                if hit is not None:
                    self._cache.move_to_end(path)
                    return hit
        remembered = folder in _STATEMENT_FOLDERS
        if remembered:
            found = self._recall(("read", path))
            if found is not None:
                return found  # type: ignore[no-any-return]
        store, key = self._locate(path)
        try:
            data = bytes(self._ob.get(store, key).bytes())
        except Exception as err:
            failure = self._fail(err, path, "read")
            if isinstance(failure, DataFileNotFoundError):
                self._changed()
            raise failure from err
        self._count(len(data))
        if remembered:
            self._remember(("read", path), data)
        if cacheable and len(data) <= self.CACHE_BYTES // 16:
            with self._lock:
                self._cache[path] = data
                self._cached_bytes += len(data)
                while self._cached_bytes > self.CACHE_BYTES:
                    _, old = self._cache.popitem(last=False)
                    self._cached_bytes -= len(old)
        return data

    def _forget(self, path: str) -> None:
        with self._lock:
            old = self._cache.pop(path, None)
            if old is not None:
                self._cached_bytes -= len(old)

    def read_text(self, path: str) -> str:
        """The object decoded as UTF-8."""
        return self.read_bytes(path).decode("utf-8")

    def read_range(self, path: str, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of an object (one ranged GET)."""
        store, key = self._locate(path)
        try:
            data = bytes(self._ob.get_range(store, key, start=start, end=end))
        except Exception as err:
            raise self._fail(err, path, "read") from err
        self._count(len(data))
        return data

    def read_ranges(self, path: str, ranges: Sequence[tuple[int, int]]) -> list[bytes]:
        """Several ``[start, end)`` ranges of an object, fetched in parallel, coalesced."""
        if not ranges:
            return []
        store, key = self._locate(path)
        try:
            parts = self._ob.get_ranges(
                store, key, starts=[r[0] for r in ranges], ends=[r[1] for r in ranges]
            )
        except Exception as err:
            raise self._fail(err, path, "read") from err
        out = [bytes(p) for p in parts]
        self._count(sum(len(p) for p in out), _coalesced(ranges))
        return out

    def _head(self, path: str, *, probe: bool = False) -> dict[str, Any] | None:
        """The object's metadata (one HEAD, remembered for the statement), None when absent.

        An absence makes the statement forget what it remembered (it may be stale), unless it
        was a `probe` for an object that is expected to be missing: then the absence itself is
        remembered.
        """
        store, key = self._locate(path)
        if not key or (probe and self._recall(("absent", path))):
            return None
        found = self._recall(("head", path))
        if found is not None:
            return found  # type: ignore[no-any-return]
        try:
            meta: dict[str, Any] = self._ob.head(store, key)
        except Exception as err:
            if isinstance(err, self._ob.exceptions.NotFoundError | FileNotFoundError):
                self._count(0)
                if probe:
                    self._remember(("absent", path), True)
                else:
                    self._changed()  # what the statement remembered may be stale: ask again
                return None
            raise self._fail(err, path, "look up") from err
        self._count(0)
        return self._remember(("head", path), meta)  # type: ignore[no-any-return]

    def exists(self, path: str) -> bool:
        """Whether an object, or any object below `path` (a folder), exists."""
        return self._head(path) is not None or self.is_dir(path)

    def is_file(self, path: str) -> bool:
        """Whether the object `path` exists (one HEAD; never a listing).

        A `_head` probe: probing for ``snapshot-(n+1)`` is how a latest snapshot is confirmed, so
        a miss is expected, is remembered for the statement and does not make it forget what it
        saw (a change this FileIO makes still does).
        """
        return self._head(path, probe=True) is not None

    def is_dir(self, path: str) -> bool:
        """Whether any object lies below `path` (for a bucket: whether the bucket exists)."""
        store, key = self._locate(path)
        if self._recall(("dir", path)):
            return True
        prefix = key + "/" if key else None
        try:
            stream = self._ob.list(store, prefix, chunk_size=1)
            first: list[Any] = next(iter(stream), [])
        except Exception as err:
            raise self._fail(err, path, "list") from err
        self._count(0)
        if first or not key:
            self._remember(("dir", path), True)
            return True
        return False

    def _listing(self, path: str) -> dict[str, Any]:
        store, key = self._locate(path)
        found = self._recall(("list", path))
        if found is not None:
            return found  # type: ignore[no-any-return]
        try:
            listed: dict[str, Any] = self._ob.list_with_delimiter(store, key or None)
        except Exception as err:
            raise self._fail(err, path, "list") from err
        self._count(0)
        return self._remember(("list", path), listed)  # type: ignore[no-any-return]

    def list_names(self, path: str) -> list[str]:
        """The sorted names (objects and sub-folders) right below `path`; absent lists as empty."""
        _, key = self._locate(path)
        listed = self._listing(path)
        found = {posixpath.basename(p) for p in listed["common_prefixes"]}
        for meta in listed["objects"]:
            name = posixpath.basename(meta["path"])
            if meta["path"] != key and name != FOLDER_MARKER:
                found.add(name)
        return sorted(found)

    def list_files(self, path: str) -> list[tuple[str, int]]:
        """``(path, modified millis)`` of the objects right below `path` (not the folders)."""
        _, key = self._locate(path)
        out = []
        for meta in self._listing(path)["objects"]:
            name = posixpath.basename(meta["path"])
            if meta["path"] != key and name != FOLDER_MARKER:
                millis = int(meta["last_modified"].timestamp() * 1000)
                out.append((self.join(path, name), millis))
        return sorted(out)

    def file_size(self, path: str) -> int:
        """Size in bytes."""
        meta = self._head(path)
        if meta is None:
            raise DataFileNotFoundError(f"file not found: {path}")
        return int(meta["size"])

    def modified_millis(self, path: str) -> int | None:
        """The object's last-modified time (epoch millis), None when absent (a folder has none)."""
        meta = self._head(path)
        return None if meta is None else int(meta["last_modified"].timestamp() * 1000)

    # --- writing ----------------------------------------------------------------------------------

    def mkdirs(self, path: str) -> None:
        """Make `path` a (visible) folder: an empty `FOLDER_MARKER` object unless it holds any."""
        if self.is_dir(path):
            return
        store, key = self._locate(path)
        self._changed()
        try:
            self._ob.put(store, posixpath.join(key, FOLDER_MARKER), b"")
        except Exception as err:
            raise self._fail(err, path, "create the folder") from err

    def write_bytes(self, path: str, data: bytes) -> None:
        """Write (or overwrite) a whole object.

        Large ones go up as a multipart upload (obstore: parts of 5 MiB, 12 at once), so a failed
        upload leaves no object.
        """
        self._forget(path)
        store, key = self._locate(path)
        self._changed()
        try:
            self._ob.put(store, key, data)
        except Exception as err:
            raise self._fail(err, path, "write") from err

    #: Bytes of a streamed object kept in memory: each full buffer goes up as one part of a
    #: multipart upload while the writer produces the next (S3's smallest part is 5 MiB).
    PART_BYTES = 8 * 1024 * 1024

    @contextlib.contextmanager
    def open_output(self, path: str) -> Iterator[ObjectSink]:
        """Write (or overwrite) an object as a stream, without holding it all in memory.

        Past `PART_BYTES` it goes up as a multipart upload, part by part; the object appears only
        when the block ends. A failure inside the block (the producer's or the store's) aborts the
        upload: no object, no parts left behind.
        """
        self._forget(path)
        store, key = self._locate(path)
        self._changed()
        try:
            writer = self._ob.open_writer(store, key, buffer_size=self.PART_BYTES)
        except Exception as err:
            raise self._fail(err, path, "write") from err
        sink = ObjectSink(writer, lambda err: self._fail(err, path, "write"))
        try:
            yield sink
        except BaseException as failure:
            with contextlib.suppress(Exception):  # obstore aborts the multipart upload on exit
                writer.__exit__(type(failure), failure, failure.__traceback__)
            raise
        try:
            writer.close()
        except Exception as err:
            raise self._fail(err, path, "write") from err

    def try_create(self, path: str, data: bytes) -> bool:
        """Create `path` only if absent, by a conditional PUT; False if it exists.

        A PUT retried after a lost response can meet its own object: it then reads back identical
        bytes, which count as created (a snapshot names its commit user and identifier, so no other
        writer makes the same bytes).
        """
        if self.single_writer:
            if self._head(path) is not None:
                return False
            self.write_bytes(path, data)
            return True
        store, key = self._locate(path)
        ex = self._ob.exceptions
        self._changed()
        try:
            self._ob.put(store, key, data, mode="create")
        except (ex.AlreadyExistsError, ex.PreconditionError):
            return self.read_bytes(path) == data
        except Exception as err:
            unsupported = isinstance(err, ex.NotSupportedError) or "not yet implemented" in str(err)
            if not unsupported:
                failure = self._fail(err, path, "create")
                if isinstance(failure, StorageAccessError | WarehouseNotFoundError):
                    raise failure from err  # refused: it did not land
                return self._settle(path, data, err)
            raise StorageError(
                f"the store of {path} cannot create an object only if it is absent (conditional "
                "put), which commits need so that two writers never both win; if only one process "
                f"ever writes, pass storage_options={{'{SINGLE_WRITER}': 'true'}}: "
                f"{_reason(str(err))}"
            ) from err
        return True

    def _settle(self, path: str, data: bytes, err: Exception) -> bool:
        """After a conditional PUT failed without an answer (network, 5xx): did it land?

        Our bytes there: created; other bytes: another writer won; nothing: the failure stands (the
        caller may discard its files); no answer either: `CommitStateUnknownError`.
        """
        try:
            found = self.read_bytes(path)
        except DataFileNotFoundError:
            raise self._fail(err, path, "create") from err
        except PaimonSqlError as again:
            raise CommitStateUnknownError(
                f"creating {path} failed ({_reason(str(err))}) and the store cannot tell whether "
                f"it landed ({again}); do not retry blindly: look at {path} first"
            ) from err
        return found == data

    def delete(self, path: str) -> None:
        """Delete an object if it exists."""
        self._forget(path)
        store, key = self._locate(path)
        self._changed()
        try:
            self._ob.delete(store, key)
        except Exception as err:
            if isinstance(err, ex_not_found(self._ob)):
                return
            raise self._fail(err, path, "delete") from err

    def delete_dir(self, path: str) -> None:
        """Delete every object below `path`."""
        store, key = self._locate(path)
        if not key:
            raise StorageError(f"refusing to delete a whole bucket ({path})")
        with self._lock:
            self._cache.clear()
            self._cached_bytes = 0
        self._changed()
        try:
            for chunk in self._ob.list(store, key + "/", chunk_size=1000):
                self._ob.delete(store, [m["path"] for m in chunk])
        except Exception as err:
            raise self._fail(err, path, "delete") from err

    @contextlib.contextmanager
    def folder_lock(self, folder: str) -> Iterator[None]:
        """No lock on an object store.

        The conditional PUT of `try_create` is what serialises committers (the local FileIO's
        advisory lock has no counterpart here).
        """
        yield

    def join(self, *parts: str) -> str:
        """Join path parts with ``/``."""
        return posixpath.join(*parts)

    def walk(self, path: str) -> Iterator[str]:
        """Every object below `path` (for tests and clean-up)."""
        store, key = self._locate(path)
        kind, bucket, _ = split_uri(path)
        for chunk in self._ob.list(store, key + "/" if key else None):
            for meta in chunk:
                yield f"{kind}://{bucket}/{meta['path']}"


class ObjectSink:
    """The file object `ObjectStoreFileIO.open_output` yields: write, tell, flush."""

    closed = False

    def __init__(self, writer: Any, fail: Any) -> None:
        """Write through obstore's `writer`; `fail` turns a store error into ours."""
        self._writer, self._fail, self._written = writer, fail, 0

    def write(self, data: Any) -> int:
        """Append `data` (bytes-like); a store failure raises the `paimon_sql.errors` error."""
        try:
            self._writer.write(data)
        except Exception as err:
            raise self._fail(err) from err
        n = memoryview(data).nbytes
        self._written += n
        return n

    def tell(self) -> int:
        """Bytes written so far."""
        return self._written

    def flush(self) -> None:
        """Nothing to do: parts go up as the buffer fills."""

    def writable(self) -> bool:
        """Always."""
        return True


def _coalesced(ranges: Sequence[tuple[int, int]]) -> int:
    """How many requests obstore's `get_ranges` sends for `ranges` (near ones are merged).

    >>> _coalesced([(0, 10), (20, 30), (5_000_000, 5_000_010)])
    2
    """
    count, end = 0, None
    for start, stop in sorted(ranges):
        if end is None or start - end > _COALESCE_BYTES:
            count += 1
            end = stop
        else:
            end = max(end, stop)
    return count


def ex_not_found(ob: Any) -> tuple[type[BaseException], ...]:
    """The exception types obstore raises for a missing object."""
    return (ob.exceptions.NotFoundError, FileNotFoundError)


def _reason(text: str) -> str:
    """The useful part of an obstore message: the S3 error code and message, else its first line."""
    for code in ("<Code>", "<Message>"):
        if code in text:
            start = text.index(code) + len(code)
            end = text.find("<", start)
            if code == "<Code>":
                message = ""
                if "<Message>" in text:
                    m = text.index("<Message>") + len("<Message>")
                    message = ": " + text[m : text.find("<", m)]
                return text[start:end] + message
    return _first_line(text)
