# ruff: noqa: S608 - fuzzing builds statement text on purpose (it is the input under test)
"""Shared pieces of the fuzz tests: a warehouse inside a sandbox folder, the one assertion, and
hypothesis strategies for statements, options, names and procedure arguments.

The assertion (`attempt`): whatever a fuzzed input does, it either works or raises a
`paimon_sql.errors` error whose message has no internal names; and nothing appears outside the
warehouse (`Sandbox.escapes`). Names are kept from ever resolving outside the sandbox
(`Sandbox.safe`), so a bug in the name checks cannot touch the machine.
"""

from __future__ import annotations

import logging
import os
import re
import string
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import paimon_sql
from paimon_sql.engine.relation import Relation
from paimon_sql.errors import PaimonSqlError

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

#: Set PAIMON_FUZZ_RANDOM=1 to explore new inputs on each run (CI replays a fixed sequence).
RANDOM = os.environ.get("PAIMON_FUZZ_RANDOM") == "1"

# sqlglot warns for each statement it falls back to an opaque Command for: thousands here.
logging.getLogger("sqlglot").setLevel(logging.ERROR)

#: Whether the names slice of issue 11 (catalog/names.py: names are never paths) landed.

#: Internal names that must never reach a user (hidden sources, the INSERT subquery).
INTERNAL = re.compile(r"__paimon|__c_\w")


def fuzz_settings(examples: int) -> settings:
    """`examples` inputs, no deadline, no example database (nothing written to the checkout)."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=not RANDOM,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


@dataclass
class Sandbox:
    """``root/outside`` (must stay untouched) next to ``root/a/b/wh`` (the warehouse)."""

    root: Path
    warehouse: Path = field(init=False)
    session: paimon_sql.Session = field(init=False)
    inputs: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        (self.root / "outside").mkdir(parents=True)
        (self.root / "outside" / "keep.txt").write_text("not Paimon's")
        self.warehouse = self.root / "a" / "b" / "wh"
        self.session = paimon_sql.connect(self.warehouse, create=True)
        self.before = self.listing()
        self.ensure()

    def listing(self) -> set[str]:
        """Every path under the sandbox root outside the warehouse."""
        found = set()
        for path in self.root.rglob("*"):
            if self.warehouse not in (path, *path.parents):
                found.add(str(path.relative_to(self.root)))
        return found

    def escapes(self) -> set[str]:
        """Paths created or deleted outside the warehouse since the sandbox was made."""
        return self.listing() ^ self.before

    def safe(self, *parts: str) -> bool:
        """Whether a name, joined as the catalog joins it, stays inside the sandbox root (and has no
        NUL, which no path can hold): only such names are fuzzed."""
        if any("\x00" in p for p in parts):
            return True  # refused by every path API before anything is touched
        joined = os.path.normpath(os.path.join(self.warehouse, *parts))
        return joined.startswith(str(self.root) + os.sep)

    def ensure(self) -> None:
        """(Re)create the fixture tables a fuzzed statement may have dropped or renamed."""
        s, catalog = self.session, self.session.catalog
        if "d" not in catalog.databases():
            s.sql("CREATE DATABASE d")
        tables = set(catalog.tables("d"))
        if "t" not in tables:
            s.sql(
                "CREATE TABLE d.t (id INT, v STRING, n BIGINT, dt STRING, "
                "PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')"
            )
            s.sql("INSERT INTO d.t VALUES (1, 'a', 10, 'x'), (2, 'b', 20, 'y')")
            s.sql("INSERT INTO d.t VALUES (3, 'c', 30, 'x')")
            s.sql("CALL sys.create_tag(table => 'd.t', tag => 'tg', snapshot => 1)")
        if "a" not in tables:
            s.sql("CREATE TABLE d.a (id INT, v STRING)")
            s.sql("INSERT INTO d.a VALUES (1, 'a'), (5, 'e')")
        if "alt" not in tables:
            s.sql("CREATE TABLE d.alt (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)")

    def attempt(self, action: Callable[[], Any], given: str = "") -> None:
        """Run `action` (consuming a returned relation): it works or raises a paimon-sql error
        without internal names (except those the input `given` holds itself). Anything else
        propagates, failing the test with the input."""
        self.inputs += 1
        try:
            result = action()
            if isinstance(result, Relation):
                result.fetchall()
        except PaimonSqlError as err:
            name = type(err).__name__
            self.errors[name] = self.errors.get(name, 0) + 1
            message = str(err)
            leaked = [m for m in INTERNAL.findall(message) if m not in given]
            assert not leaked, f"internal name in message: {message!r}"

    def sql(self, text: str) -> None:
        """`attempt` one statement (or several) through `Session.sql`."""
        self.attempt(lambda: self.session.sql(text), given=text)


# ------------------------------------------------------------------------------------ strategies

#: Characters of names: letters of many scripts, digits, punctuation, path and control characters.
NAME_CHARS = st.characters(
    codec="utf-8",
    categories=("L", "N", "P", "S", "Zs", "Cc", "M"),
)
NAMES = st.one_of(
    st.text(NAME_CHARS, min_size=0, max_size=24),
    st.sampled_from(
        [
            "",
            " ",
            ".",
            "..",
            "../x",
            "a/b",
            "/abs",
            "a\\b",
            "x\x00y",
            "tab\tname",
            "é",
            "表",
            "💥",
            "a" * 300,
            "CON",
            "t$snapshots",
            "t$branch_b",
            "sys",
            "main",
            "default",
            "d",
        ]
    ),
    st.text(string.ascii_letters + string.digits + "_-.$ ", min_size=1, max_size=12),
)


def quote_ident(name: str) -> str:
    """A double-quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def quote_str(value: str) -> str:
    """A single-quoted SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


INTS = st.one_of(
    st.integers(-3, 5),
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, -1, -2, 2**31, 2**63 - 1, 2**63, -(2**63) - 1]),
)
LITERALS = st.one_of(
    INTS.map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["1e400", "-0.0", "NULL", "TRUE", "false", "X'00'", "0x10", "1.5", "-1"]),
    st.text(max_size=12).map(quote_str),
    st.sampled_from(["'2024-01-01 00:00:00'", "'1 d'", "'30 min'", "'dt=x'", "'d.t'", "'tg'"]),
)

# options: real keys (each kind of value), per-column keys, passthrough and misspelt keys
from paimon_sql.format.option_registry import FIELD_OPTIONS, OPTIONS  # noqa: E402

OPTION_KEYS = st.one_of(
    st.sampled_from(sorted(OPTIONS)),
    st.tuples(
        st.sampled_from(["id", "v", "n", "dt", "nope", ""]), st.sampled_from(sorted(FIELD_OPTIONS))
    ).map(lambda p: f"fields.{p[0]}.{p[1]}"),
    st.sampled_from(
        ["path", "type", "connector", "primary-key", "partition", "sink.x", "bucket ", "BUCKET"]
    ),
    st.text(max_size=20),
)
OPTION_VALUES = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "-1",
            "-2",
            "0",
            "1",
            "4",
            "true",
            "FALSE",
            "none",
            "1 h",
            "30 min",
            "10 s",
            "-5 s",
            "256 mb",
            "64kb",
            "1.5 GiB",
            "id",
            "v,n",
            "id,nope",
            "sum",
            "last_value",
            "first-row",
            "aggregation",
            "partial-update",
            "lookup",
            "full-compaction",
            "parquet",
            "orc",
            "avro",
            "truncate(16)",
            "counts",
            "99999999999999999999999",
            "nan",
            "inf",
            "1e400",
            "a/b",
            "../x",
        ]
    ),
    INTS.map(str),
    st.text(max_size=16),
)
OPTION_MAPS = st.dictionaries(OPTION_KEYS, OPTION_VALUES, max_size=5)


def with_clause(options: dict[str, str]) -> str:
    """``WITH ('k' = 'v', …)`` (empty when there are none)."""
    if not options:
        return ""
    return (
        " WITH (" + ", ".join(f"{quote_str(k)} = {quote_str(v)}" for k, v in options.items()) + ")"
    )


# statements: a grammar of valid-looking statements, then mutations of them
COLUMNS = st.sampled_from(["id", "v", "n", "dt", "nope", '"id"', "*", "1", "id + 1", "count(*)"])
TYPES = st.sampled_from(
    [
        "INT",
        "BIGINT",
        "STRING",
        "VARCHAR(10)",
        "VARCHAR",
        "DECIMAL(10, 2)",
        "DECIMAL(99, 1)",
        "CHAR(0)",
        "TIMESTAMP(3)",
        "TIMESTAMP_LTZ(6)",
        "ARRAY<INT>",
        "MAP<STRING, INT>",
        "MAP<INT>",
        "ROW<a INT>",
        "MULTISET<STRING>",
        "BYTES",
        "BOOLEAN",
        "NOPE",
        "INT NOT NULL",
        "TIME(12)",
        "DATE",
        "VARIANT",
    ]
)
FUZZ_TABLE = st.sampled_from(["f1", "f2", "f_x", "x", '"F 3"', "t", "a", "alt", "nope"])
TRAVEL = st.one_of(
    st.just(""),
    st.tuples(
        st.sampled_from(["VERSION AS OF ", "TIMESTAMP AS OF ", "FOR SYSTEM_TIME AS OF "]), LITERALS
    ).map("".join),
    st.tuples(st.sampled_from(["VERSION", "TIMESTAMP"]), LITERALS).map(
        lambda p: f" AT ({p[0]} => {p[1]})"
    ),
    st.tuples(
        st.sampled_from(
            ["scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.timestamp", "x"]
        ),
        st.text(string.printable.replace("'", "").replace("*", ""), max_size=10),
    ).map(lambda p: f" /*+ OPTIONS('{p[0]}'='{p[1]}') */"),
)
SELECTABLE = st.sampled_from(
    [
        "d.t",
        "d.a",
        'd."t$snapshots"',
        'd."t$tags"',
        'd."t$files"',
        "d.nope",
        "sys.tables",
        'd."t$nope"',
        'd."t$branch_b"',
        "nope.t",
    ]
)
OPS = st.sampled_from(["=", "<", ">=", "!=", "IN", "IS NULL", "BETWEEN 1 AND"])


@st.composite
def conditions(draw: st.DrawFn) -> str:
    """``WHERE …`` (or nothing)."""
    parts = []
    for _ in range(draw(st.integers(0, 2))):
        column, op, value = draw(COLUMNS), draw(OPS), draw(LITERALS)
        if op == "IN":
            parts.append(f"{column} IN ({value}, {draw(LITERALS)})")
        elif op == "IS NULL":
            parts.append(f"{column} IS NULL")
        else:
            parts.append(f"{column} {op} {value}")
    return (" WHERE " + " AND ".join(parts)) if parts else ""


@st.composite
def create_table(draw: st.DrawFn) -> str:
    """Flink- or Spark-form CREATE TABLE in database d, options and types fuzzed."""
    names = draw(
        st.lists(st.sampled_from(["id", "v", "n", "dt", "Id", '"w x"']), min_size=0, max_size=4)
    )
    columns = [f"{n} {draw(TYPES)}" for n in names]
    keys = draw(st.lists(st.sampled_from(["id", "v", "dt", "nope"]), max_size=2))
    if keys:
        columns.append(f"PRIMARY KEY ({', '.join(keys)}) NOT ENFORCED")
    head = f"CREATE TABLE {draw(st.sampled_from(['', 'IF NOT EXISTS ']))}d.{draw(FUZZ_TABLE)} "
    body = f"({', '.join(columns)})" if columns or draw(st.booleans()) else ""
    parts = draw(st.lists(st.sampled_from(["dt", "v", "nope"]), max_size=2))
    partitioned = f" PARTITIONED BY ({', '.join(parts)})" if parts else ""
    options = draw(OPTION_MAPS)
    if draw(st.booleans()):
        props = ", ".join(f"{quote_str(k)} = {quote_str(v)}" for k, v in options.items())
        return f"{head}{body} USING paimon{partitioned} TBLPROPERTIES ({props})"
    tail = draw(st.sampled_from(["", " AS SELECT 1 AS id, 'x' AS v", " AS SELECT * FROM d.a"]))
    return f"{head}{body}{partitioned}{with_clause(options)}{tail}"


ALTER_CHANGES = st.one_of(
    OPTION_MAPS.map(lambda o: "SET" + with_clause(o)[5:] if o else "SET ()"),
    OPTION_MAPS.map(
        lambda o: "SET TBLPROPERTIES" + with_clause(o)[5:] if o else "SET TBLPROPERTIES ()"
    ),
    st.lists(OPTION_KEYS, max_size=3).map(
        lambda ks: "RESET (" + ", ".join(map(quote_str, ks)) + ")"
    ),
    st.tuples(st.sampled_from(["ADD COLUMN", "ADD", "ADD COLUMNS"]), FUZZ_TABLE, TYPES).map(
        " ".join
    ),
    st.tuples(st.sampled_from(["DROP COLUMN", "DROP"]), COLUMNS).map(" ".join),
    st.tuples(COLUMNS, FUZZ_TABLE).map(lambda p: f"RENAME COLUMN {p[0]} TO {p[1]}"),
    st.tuples(COLUMNS, TYPES).map(lambda p: f"ALTER COLUMN {p[0]} TYPE {p[1]}"),
    st.tuples(COLUMNS, TYPES).map(lambda p: f"MODIFY {p[0]} {p[1]}"),
    st.tuples(COLUMNS, st.sampled_from(["FIRST", "AFTER id", "AFTER nope"])).map(
        lambda p: f"ALTER COLUMN {p[0]} {p[1]}"
    ),
    st.tuples(COLUMNS, LITERALS).map(lambda p: f"ALTER COLUMN {p[0]} COMMENT {p[1]}"),
    FUZZ_TABLE.map(lambda n: f"RENAME TO d.{n}"),
)


@st.composite
def call_statement(draw: st.DrawFn) -> str:
    """``CALL sys.<procedure>(…)``: named or positional arguments, literal values."""
    from paimon_sql.sql.procedures.procedures import registry

    procedures = registry()
    name = draw(
        st.one_of(
            st.sampled_from(sorted(procedures)), st.text(string.ascii_lowercase + "_", max_size=12)
        )
    )
    params = [p.name for p in procedures[name].params] if name in procedures else ["table"]
    chosen = draw(st.lists(st.sampled_from([*params, "x"]), max_size=len(params) + 1))
    values = [
        draw(st.one_of(st.sampled_from(["'d.t'", "'d.a'", "'tg'"]), LITERALS)) for _ in chosen
    ]
    if draw(st.booleans()):
        args = ", ".join(f"{k} => {v}" for k, v in zip(chosen, values, strict=True))
    else:
        args = ", ".join(values)
    prefix = draw(st.sampled_from(["sys.", "sys.", "", "x."]))
    return f"CALL {prefix}{name}({args})"


#: Queries of the fixture tables, system tables and missing ones, with time travel and filters.
SELECTS = st.tuples(
    st.lists(COLUMNS, min_size=1, max_size=3),
    SELECTABLE,
    TRAVEL,
    conditions(),
    st.sampled_from(["", " LIMIT 1", " ORDER BY 1", " LIMIT -1"]),
).map(lambda p: f"SELECT {', '.join(p[0])} FROM {p[1]}{p[2]}{p[3]}{p[4]}")

STATEMENTS = st.one_of(
    create_table(),
    st.tuples(FUZZ_TABLE, ALTER_CHANGES).map(
        lambda p: f"ALTER TABLE d.{'alt' if p[0] == 't' else p[0]} {p[1]}"
    ),
    st.tuples(
        st.sampled_from(["d.t", "d.a", "d.nope", "d.t (id, v)", "d.t (nope)"]),
        st.lists(LITERALS, max_size=5),
    ).map(lambda p: f"INSERT INTO {p[0]} VALUES ({', '.join(p[1])})"),
    st.tuples(
        st.sampled_from(["d.t", "d.a"]),
        st.sampled_from(["SELECT * FROM d.a", "SELECT id, v FROM d.t", "SELECT 1"]),
    ).map(lambda p: f"INSERT INTO {p[0]} {p[1]}"),
    st.tuples(st.sampled_from(["d.t", "d.a"]), COLUMNS, LITERALS, conditions()).map(
        lambda p: f"UPDATE {p[0]} SET {p[1]} = {p[2]}{p[3]}"
    ),
    st.tuples(st.sampled_from(["d.t", "d.a", "d.nope"]), conditions()).map(
        lambda p: f"DELETE FROM {p[0]}{p[1]}"
    ),
    SELECTS,
    call_statement(),
    st.tuples(
        st.sampled_from(
            ["SHOW TABLES FROM ", "SHOW CREATE TABLE d.", "DESCRIBE d.", "SHOW TABLES IN "]
        ),
        FUZZ_TABLE,
    ).map("".join),
    st.sampled_from(["SHOW DATABASES", "SHOW SCHEMAS", "SHOW TABLES", "SHOW PARTITIONS d.t"]),
    st.tuples(
        st.sampled_from(["DROP TABLE ", "DROP TABLE IF EXISTS ", "TRUNCATE TABLE "]), FUZZ_TABLE
    ).map(lambda p: p[0] + "d." + ("f1" if p[1] in ("t", "a", "alt") else p[1])),
    st.tuples(
        st.sampled_from(
            [
                "CREATE DATABASE ",
                "CREATE SCHEMA IF NOT EXISTS ",
                "DROP DATABASE ",
                "DROP SCHEMA IF EXISTS ",
            ]
        ),
        st.sampled_from(["e", "nope", "main", "e2"]),
        st.sampled_from(["", " CASCADE"]),
    ).map("".join),
    st.tuples(
        st.sampled_from(["MERGE INTO d.t USING d.a ON d.t.id = d.a.id WHEN MATCHED THEN DELETE"])
    ).map("".join),
)

#: Tokens a mutation inserts: structure, quotes, comments, keywords, numbers.
TOKENS = [
    "(",
    ")",
    ",",
    "'",
    '"',
    "`",
    ";",
    "--",
    "/*",
    "*/",
    "=>",
    "=",
    ".",
    "$",
    " ",
    "NULL",
    "SELECT",
    "WITH",
    "AS OF",
    "VERSION",
    "CALL",
    "sys",
    "PRIMARY KEY",
    "NOT",
    "<",
    ">",
    "0",
    "-1",
    "1e999",
    "\\",
    "\n",
    "\x00",
    "é",
    "?",
    "$1",
    "::",
    "[",
    "]",
    "{",
    "}",
]


@st.composite
def mutated(draw: st.DrawFn, statements: st.SearchStrategy[str] | None = None) -> str:
    """A grammar statement with 1-3 random edits (delete, insert a token, duplicate, cut, case)."""
    text = draw(STATEMENTS if statements is None else statements)
    for _ in range(draw(st.integers(1, 3))):
        size = len(text)
        at = draw(st.integers(0, size))
        end = draw(st.integers(at, min(size, at + 8)))
        edit = draw(st.sampled_from(["delete", "insert", "duplicate", "cut", "upper"]))
        if edit == "delete":
            text = text[:at] + text[end:]
        elif edit == "insert":
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif edit == "duplicate":
            text = text[:end] + text[at:end] + text[end:]
        elif edit == "cut":
            text = text[:at]
        else:
            text = text[:at] + text[at:end].swapcase() + text[end:]
    return text
