"""The one trust boundary for names and paths: names are identifiers, never paths.

Database, table, branch and tag names come from users (SQL, procedure arguments, the Python API, the
shell) and become folder and file names. `validate_name` is the only place that decides which names
are allowed; the catalog (`Identifier`, `Catalog`, `Table`) calls it, so every entry point is
covered.

Paths computed from options or metadata (``data-file.prefix``, ``data-file.path-directory``,
``data-file.external-paths``, file names inside snapshots and manifests) go through the helpers
below, which refuse anything that would leave the table folder or a configured external root. On
local disk, `inside` also resolves symbolic links: a link leading out of the warehouse is refused,
never followed.

>>> validate_name("table", "orders")
'orders'
>>> validate_name("tag", "v1.0")
'v1.0'
>>> try:
...     validate_name("table", "../../x")
... except InvalidNameError as err:
...     print(err)  # doctest: +ELLIPSIS
invalid table name '../../x': it contains '/'; ...
"""

from __future__ import annotations

import os
import posixpath
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_sql.errors import InvalidNameError, OptionError, PathEscapeError
from paimon_sql.format.option_registry import option_default

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

#: The longest file name common filesystems (ext4, xfs, APFS, NTFS) allow, in bytes.
MAX_FILE_NAME_BYTES = 255

#: What each kind of name becomes on disk (database ``<name>.db``, tag ``tag-<name>`` ...): the
#: affix counts against `MAX_FILE_NAME_BYTES`.
_AFFIX = {"database": ".db", "table": "", "branch": "branch-", "tag": "tag-"}

#: Characters no name may contain: path separators, and ``:`` (a URI scheme or drive letter to
#: Hadoop's ``Path``, which Java Paimon builds every path with).
_SEPARATORS = ("/", "\\", ":")

#: Unicode categories refused: control characters (NUL, newline, DEL ...), lone surrogates, and
#: line/paragraph separators.
_BAD_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})

ALLOWED = (
    "a name is 1 to {limit} bytes of UTF-8 text without '/', '\\', ':', control characters or "
    "'..'{extra}"
)
_EXTRA = {
    "database": " (and without '.')",
    "table": " (and without '.' or '$', which starts a system table such as t$snapshots)",
    "branch": "",
    "tag": "",
}


def max_name_bytes(kind: str) -> int:
    """The longest name of `kind`, in UTF-8 bytes: its file name must fit in 255 bytes.

    >>> max_name_bytes("table"), max_name_bytes("database"), max_name_bytes("tag")
    (255, 252, 251)
    """
    return MAX_FILE_NAME_BYTES - len(_AFFIX[kind])


def _problem(kind: str, name: str) -> str | None:
    """Why `name` is not a valid `kind` name, or None."""
    if not name.strip():
        return "it is empty" if not name else "it is blank"
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":" and name[0].isalpha()):
        return "it is an absolute path"
    for sep in _SEPARATORS:
        if sep in name:
            return f"it contains {sep!r}"
    bad = next((c for c in name if unicodedata.category(c) in _BAD_CATEGORIES), None)
    if bad is not None:
        return f"it contains the control character {bad!r}"
    if ".." in name or name == ".":
        return "it contains '..'" if ".." in name else "it is '.'"
    if kind in ("database", "table") and "." in name:
        return "it contains '.' (which separates database and table)"
    if kind == "table" and "$" in name:
        return "it contains '$' (which separates a table from its system table, as in t$snapshots)"
    size = len(name.encode("utf-8"))
    if size > max_name_bytes(kind):
        return f"it is {size} bytes long"
    return None


def validate_name(kind: str, name: object) -> str:
    r"""`name` if it is a valid `kind` name (``database``, ``table``, ``branch`` or ``tag``).

    A name is an identifier, never a path: not empty or blank, no ``/``, ``\``, ``:``, ``..``,
    NUL or other control characters, at most `max_name_bytes` UTF-8 bytes; database and table names
    have no ``.`` either (``db.table`` is how they are written), table names no ``$`` (system
    tables).
    Anything else raises `InvalidNameError` saying what is wrong and what is allowed.

    >>> validate_name("database", "sales_2024")
    'sales_2024'
    >>> try:
    ...     validate_name("database", "a\x00b")
    ... except InvalidNameError as err:
    ...     print(str(err)[:58])
    invalid database name 'a\x00b': it contains the control ch
    """
    if kind not in _AFFIX:
        raise ValueError(f"kind must be one of {', '.join(_AFFIX)}, got {kind!r}")
    if not isinstance(name, str):
        raise InvalidNameError(f"a {kind} name must be text, got {type(name).__name__} {name!r}")
    problem = _problem(kind, name)
    if problem is not None:
        allowed = ALLOWED.format(limit=max_name_bytes(kind), extra=_EXTRA[kind])
        raise InvalidNameError(f"invalid {kind} name {name!r}: {problem}; {allowed}")
    return name


def is_valid_name(kind: str, name: object) -> bool:
    """Whether `validate_name` accepts `name` (for filtering folder listings).

    >>> is_valid_name("table", "t"), is_valid_name("table", "a/b"), is_valid_name("tag", "")
    (True, False, False)
    """
    return isinstance(name, str) and _problem(kind, name) is None


# --- file names and relative paths from metadata and options ------------------------------------


def _file_name_problem(name: str) -> str | None:
    if not name:
        return "it is empty"
    if name.isascii() and name.isprintable() and "/" not in name and "\\" not in name:
        return f"it is {name!r}" if name in (".", "..") else None  # the common case, fast
    for sep in ("/", "\\"):
        if sep in name:
            return f"it contains {sep!r}"
    if name in (".", ".."):
        return f"it is {name!r}"
    if any(unicodedata.category(c) in _BAD_CATEGORIES for c in name):
        return "it contains a control character"
    return None


def validate_file_name(name: object, *, what: str) -> str:
    """`name` if it is one plain file name (no folder, not ``.``/``..``), else `PathEscapeError`.

    `what` says where the name comes from (``"data file name in manifest manifest-1 of db.t"``).

    >>> validate_file_name("data-1.parquet", what="data file")
    'data-1.parquet'
    >>> try:
    ...     validate_file_name("../../x", what="data file of db.t")
    ... except PathEscapeError as err:
    ...     print(str(err)[:70])
    data file of db.t '../../x' is not a plain file name (it contains '/')
    """
    problem = "it is not text" if not isinstance(name, str) else _file_name_problem(name)
    if problem is not None:
        raise PathEscapeError(
            f"{what} {name!r} is not a plain file name ({problem}); "
            "the metadata is damaged or crafted"
        )
    assert isinstance(name, str)
    return name


def _prefix_problem(value: str) -> str | None:
    for sep in ("/", "\\"):
        if sep in value:
            return f"it contains {sep!r}"
    if ".." in value:
        return "it contains '..'"
    if any(unicodedata.category(c) in _BAD_CATEGORIES for c in value):
        return "it contains a control character"
    return None


def _relative_dir_problem(value: str) -> str | None:
    if value.startswith(("/", "\\")) or (len(value) > 1 and value[1] == ":") or "://" in value:
        return "it is absolute"
    if "\\" in value:
        return "it contains '\\'"
    parts = [p for p in value.split("/") if p]
    if not parts:
        return "it is empty"
    if any(p in (".", "..") for p in parts):
        return "it contains '.' or '..' as a folder"
    if any(unicodedata.category(c) in _BAD_CATEGORIES for c in value):
        return "it contains a control character"
    return None


#: Options naming part of a file name: a prefix, never a folder.
PREFIX_OPTIONS = ("data-file.prefix", "changelog-file.prefix")
#: Options naming a folder relative to the table folder.
DIRECTORY_OPTIONS = ("data-file.path-directory",)
EXTERNAL_PATHS = "data-file.external-paths"
#: Java 1.4's root for global index files (``_GLOBAL_INDEX`` entries record their full path).
GLOBAL_INDEX_EXTERNAL_PATH = "global-index.external-path"


def file_prefix(options: Mapping[str, str], key: str) -> str:
    """The file name prefix option `key` (``data-file.prefix`` ...), checked: never a folder part.

    >>> file_prefix({"data-file.prefix": "d-"}, "data-file.prefix")
    'd-'
    >>> file_prefix({}, "data-file.prefix"), file_prefix({}, "changelog-file.prefix")
    ('data-', 'changelog-')
    """
    value = options.get(key) or option_default(key) or ""
    problem = _prefix_problem(value)
    if problem is not None:
        raise OptionError(
            f"table option {key!r} = {value!r} is not a file name prefix ({problem}); "
            "use letters, digits, '-', '_' or '.'"
        )
    return value


def path_directory(options: Mapping[str, str]) -> str | None:
    """``data-file.path-directory``, checked to be a folder inside the table folder, or None.

    >>> path_directory({"data-file.path-directory": "data"}), path_directory({})
    ('data', None)
    """
    value = options.get("data-file.path-directory")
    if not value:
        return None
    problem = _relative_dir_problem(value)
    if problem is not None:
        raise OptionError(
            f"table option 'data-file.path-directory' = {value!r} must be a folder inside the "
            f"table folder ({problem}); write a relative path such as 'data'"
        )
    return value.strip("/")


def check_path_options(options: Mapping[str, str]) -> None:
    """Check the path and branch options of a schema; called when one is created or altered.

    `OptionError` if a path option (`PREFIX_OPTIONS`, `DIRECTORY_OPTIONS`, external paths) would
    leave the table folder, `InvalidNameError` for a ``scan.fallback-branch`` that is not a branch
    name.

    >>> check_path_options({"data-file.prefix": "x-", "data-file.path-directory": "d/e"})
    >>> try:
    ...     check_path_options({"data-file.prefix": "../../x-"})
    ... except OptionError as err:
    ...     print(str(err)[:62])
    table option 'data-file.prefix' = '../../x-' is not a file nam
    """
    for key in PREFIX_OPTIONS:
        file_prefix(options, key)
    path_directory(options)
    external_roots(options)
    fallback = options.get("scan.fallback-branch")
    if fallback:
        try:
            validate_name("branch", fallback)
        except InvalidNameError as err:
            raise InvalidNameError(f"table option 'scan.fallback-branch': {err}") from err


def _normal(path: str) -> str:
    """A path with ``file:`` dropped and ``.``/``..`` folded, without touching the filesystem."""
    if path[:5].lower() == "file:":
        rest = path[5:]
        path = "/" + rest.lstrip("/") if rest.startswith("//") else rest
    if "://" in path:
        scheme, rest = path.split("://", 1)
        return scheme.lower() + "://" + posixpath.normpath("/" + rest).lstrip("/")
    return posixpath.normpath(path) if path else path


def external_roots(options: Mapping[str, str], *, key: str = EXTERNAL_PATHS) -> tuple[str, ...]:
    """The external roots option `key` configures (absolute paths or URIs).

    ``data-file.external-paths`` by default; `GLOBAL_INDEX_EXTERNAL_PATH` for global index files.

    >>> external_roots({"data-file.external-paths": "FILE:///tmp/ext, s3://b/p"})
    ('/tmp/ext', 's3://b/p')
    >>> external_roots({"global-index.external-path": "/tmp/gi"}, key=GLOBAL_INDEX_EXTERNAL_PATH)
    ('/tmp/gi',)
    """
    value = options.get(key) or ""
    roots = []
    for raw in value.split(","):
        raw = raw.strip()
        if not raw:
            continue
        root = _normal(raw)
        if not (root.startswith("/") or "://" in root):
            raise OptionError(
                f"table option {key!r}: {raw!r} is not an absolute path or URI; "
                "write e.g. 'file:///data/external' or 's3://bucket/path'"
            )
        roots.append(root)
    return tuple(roots)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def inside(path: str, roots: Iterable[str], *, local: bool, what: str) -> str:
    """`path` (normalised), if it lies inside one of `roots`; else `PathEscapeError` naming `what`.

    Both are compared with ``.``/``..`` folded; on local disk (`local`) symbolic links are resolved
    too, so a link leading out of every root is refused, never followed.

    >>> inside("/wh/db.db/t/bucket-0/f", ["/wh/db.db/t"], local=False, what="data file")
    '/wh/db.db/t/bucket-0/f'
    >>> try:
    ...     inside("/wh/db.db/t/../../../etc/x", ["/wh/db.db/t"], local=False, what="data file")
    ... except PathEscapeError as err:
    ...     print(err)
    data file /etc/x is outside /wh/db.db/t; refusing to use it
    """
    normal = _normal(path)
    root_list = [_normal(r) for r in roots]
    if not any(_under(normal, r) for r in root_list):
        raise PathEscapeError(
            f"{what} {normal} is outside {' and '.join(root_list)}; refusing to use it"
        )
    if local and any("://" not in r for r in root_list) and _has_link_below(normal, root_list):
        real = os.path.realpath(normal)
        if not any(_under(real, os.path.realpath(r)) for r in root_list if "://" not in r):
            raise PathEscapeError(
                f"{what} {normal} leads through a symbolic link to {real}, outside "
                f"{' and '.join(root_list)}; refusing to follow it"
            )
    return normal


def child_inside(parent: str, name: str, roots: Iterable[str], *, local: bool, what: str) -> str:
    """`inside` of ``parent/name`` where `parent` passed `inside` already (one check per folder).

    `name` is one plain path component; only it is checked for a symbolic link (then the whole
    path is checked as `inside` does).

    >>> child_inside("/wh/db.db/t/p=1", "bucket-0", ["/wh/db.db/t"], local=False, what="bucket")
    '/wh/db.db/t/p=1/bucket-0'
    """
    if not name or "/" in name or name in (".", ".."):
        raise InvalidNameError(f"{what} {name!r} is not a plain folder or file name")
    path = parent.rstrip("/") + "/" + name
    if local and os.path.islink(path):
        return inside(path, roots, local=local, what=what)
    return path


class LinkScan:
    """`inside` for many folders below one root, with one directory listing per parent folder.

    A scan planning a thousand partitions checks each partition folder for symbolic links; listing
    a parent once (``os.scandir`` says which entries are links) replaces a ``lstat`` per folder
    and component. Only paths without a link are answered here; a path through a link gets the
    full `inside` check. Meant for one plan (a listing is not kept longer).

    >>> LinkScan("/wh/db.db/t", local=False).inside("/wh/db.db/t/p=1", what="partition folder")
    '/wh/db.db/t/p=1'
    """

    def __init__(self, root: str, *, local: bool) -> None:
        self.root, self.local = _normal(root), local
        self._links: dict[str, frozenset[str]] = {}

    def _linked(self, folder: str) -> frozenset[str]:
        links = self._links.get(folder)
        if links is None:
            try:
                with os.scandir(folder) as entries:
                    links = frozenset(e.name for e in entries if e.is_symlink())
            except OSError:
                links = frozenset()  # a missing folder: whoever opens a file in it says so
            self._links[folder] = links
        return links

    def inside(self, path: str, *, what: str) -> str:
        """`inside(path, [root])`: lexical check, then links from the cached listings."""
        return self.check(self.lexical(path, what=what), what=what)

    def lexical(self, path: str, *, what: str) -> Folder:
        """The part of `inside` that reads no folder: `path` normalised, or `PathEscapeError`.

        A pure function of `path` and the root, so a caller may keep it across plans (then only
        `check` runs per plan).

        >>> LinkScan("/wh/t", local=True).lexical("/wh/t/a/../p=1", what="folder")
        Folder(path='/wh/t/p=1', steps=(('/wh/t', 'p=1'),))
        """
        if not self.local:
            return Folder(inside(path, [self.root], local=False, what=what), ())
        normal = _normal(path)
        if not _under(normal, self.root):
            inside(path, [self.root], local=True, what=what)  # raises
        steps = []
        current = self.root.rstrip("/")
        for part in normal[len(current) :].split("/"):
            if part:
                steps.append((current, part))
                current = current + "/" + part
        return Folder(normal, tuple(steps))

    def check(self, folder: Folder, *, what: str) -> str:
        """`folder`'s path, checked for symbolic links from the cached listings of its parents."""
        for parent, part in folder.steps:
            if part in self._linked(parent):
                return inside(folder.path, [self.root], local=True, what=what)
        return folder.path


@dataclass(frozen=True, slots=True)
class Folder:
    """A folder below a `LinkScan`'s root, normalised, and its (parent, name) steps from the root.

    No steps for a remote path (nothing to check for links there).
    """

    path: str
    steps: tuple[tuple[str, str], ...]


def _has_link_below(path: str, roots: list[str]) -> bool:
    """Whether a folder or file of `path` below the deepest root holding it is a symbolic link.

    Without one, `path` resolves inside that root by construction, so the (costly) full resolution
    is only needed when a link exists; a root that is itself a link is the caller's to check (the
    catalog resolves the warehouse, database and table folders when it opens a table).
    """
    root = max((r for r in roots if "://" not in r and _under(path, r)), key=len, default=None)
    if root is None:
        return True
    current = root.rstrip("/")
    for part in path[len(current) :].split("/"):
        if not part:
            continue
        current = current + "/" + part
        if os.path.islink(current):
            return True
    return False


def external_path(
    path: str, options: Mapping[str, str], *, what: str, key: str = EXTERNAL_PATHS
) -> str:
    """A data or index file's external path from a manifest.

    Checked to lie inside one of the roots option `key` configures (``data-file.external-paths``;
    `GLOBAL_INDEX_EXTERNAL_PATH` for a global index file), lexically: the roots may live on other
    filesystems.

    >>> external_path("FILE:/tmp/ext/b-0/f", {"data-file.external-paths": "file:///tmp/ext"},
    ...               what="data file")
    '/tmp/ext/b-0/f'
    """
    roots = external_roots(options, key=key)
    if not roots:
        raise PathEscapeError(
            f"{what} has the external path {path!r} but the table configures no "
            f"{key!r}; the metadata is damaged or crafted"
        )
    return inside(path, roots, local=False, what=f"{what} (external path)")


def names_of(items: Iterable[str], kind: str) -> list[str]:
    """The items that are valid `kind` names (listing a folder that may hold anything).

    >>> names_of(["a", "b/c", ".."], "table")
    ['a']
    """
    return [n for n in items if is_valid_name(kind, n)]


@dataclass(frozen=True, slots=True)
class TableName:
    """A table name's parts.

    ``t``, ``t$snapshots``, ``t$branch_b``, ``t$branch_b$files`` (the SQL dialect reads them
    through `table_name`; Java's ``Identifier`` splits them the same way).
    """

    table: str
    branch: str | None = None
    system: str | None = None


def duckdb_matches(name: str, names: Iterable[str]) -> list[str]:
    """The names of `names` DuckDB would take `name` for: itself, else those equal but for case.

    DuckDB matches identifiers case-insensitively; a warehouse Java wrote may hold names that
    differ only in case, so an exact match comes first. More than one result is ambiguous.

    >>> duckdb_matches("T", ["t", "u"]), duckdb_matches("t", ["T", "t"])
    (['t'], ['t'])
    >>> duckdb_matches("t", ["T", "tT"]), duckdb_matches("x", ["T"]), duckdb_matches("a", ["a"])
    (['T'], [], ['a'])
    >>> duckdb_matches("B", ["A", "b", "b2"]), duckdb_matches("t", ["T", "TT", "T2"])
    (['b'], ['T'])
    """
    names = list(names)
    if name in names:
        return [name]
    return [n for n in names if n.lower() == name.lower()]


#: What separates a table from its branch and system table (Paimon's ``Identifier``).
SYSTEM_TABLE_SPLITTER = "$"
_BRANCH_PREFIX = "branch_"


def table_name(name: str) -> TableName:
    """The parts of a table name as Paimon's Java ``Identifier`` splits it.

    The system table name lower case.

    Raises:
        InvalidNameError: more than a branch and a system table after the name.

    >>> table_name("orders$branch_dev$Files")
    TableName(table='orders', branch='dev', system='files')
    >>> table_name("orders$snapshots")
    TableName(table='orders', branch=None, system='snapshots')
    >>> table_name("orders")
    TableName(table='orders', branch=None, system=None)
    """
    table, *rest = name.split(SYSTEM_TABLE_SPLITTER)
    branch = None
    if rest and rest[0].lower().startswith(_BRANCH_PREFIX):
        branch = rest.pop(0)[len(_BRANCH_PREFIX) :]
    if len(rest) > 1:
        raise InvalidNameError(
            f"table name {name!r} has too many '$' parts: write t, t$<system table>, "
            "t$branch_<branch> or t$branch_<branch>$<system table>"
        )
    return TableName(table=table, branch=branch, system=rest[0].lower() if rest else None)
