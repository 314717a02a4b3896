# The tests write hostile SQL text on purpose (that is the input under test).
# ruff: noqa: S608
"""Metadata and input never become SQL (issue 11, item 2).

Malicious schema files (hand-written ``schema-N`` JSON) and hostile names and values through the SQL
surface. Every payload, if DuckDB ever ran it, would call ``paimon_injection_marker()`` (a Python
UDF on both of the session's connections that creates a marker file) or read a planted secret file.
Each test asserts the marker was never made and the secret never came back, and that the statement
either returned the right rows (the hostile text stayed a name or a value) or raised a
`paimon_sql.errors` error naming the option and table."""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

import pytest

import paimon_sql
from paimon_sql.errors import OptionError, PaimonSqlError, SqlError

if TYPE_CHECKING:
    import pathlib
    from collections.abc import Callable, Iterator

MARKER_UDF = "paimon_injection_marker"


class Trap:
    """A session on a fresh warehouse whose connections carry the marker UDF, and a secret file."""

    def __init__(self, tmp: pathlib.Path) -> None:
        self.warehouse = tmp / "warehouse"
        self.marker = tmp / "injected.marker"
        self.secret_token = f"SECRET-{uuid.uuid4().hex}"
        self.secret = tmp / "secret.txt"
        self.secret.write_text(self.secret_token)
        self.session = self.open()
        self.session.sql("CREATE DATABASE d")

    def open(self) -> Any:
        """A new session (re-reads every schema file), trapped."""
        session = paimon_sql.connect(self.warehouse, create=True)
        for con in (session.con, session.engine.private):  # the inlined and the streamed read paths
            con.create_function(MARKER_UDF, self._fire, [], "INTEGER", side_effects=True)
        return session

    def _fire(self) -> int:
        self.marker.write_text("injected SQL ran")
        return 0

    def payload(self, text: str) -> str:
        return text.replace("SECRET", str(self.secret)).replace("MARKER", MARKER_UDF)

    def schema_file(self, table: str) -> pathlib.Path:
        files = sorted(
            (self.warehouse / "d.db" / table / "schema").glob("schema-*"),
            key=lambda p: int(p.name.split("-")[1]),
        )
        return files[-1]

    def plant(self, table: str, edit: Callable[[dict[str, Any]], None]) -> None:
        """Rewrite the table's latest schema file by hand (as a crafted file would be)."""
        path = self.schema_file(table)
        doc = json.loads(path.read_text())
        edit(doc)
        path.write_text(json.dumps(doc))

    def assert_clean(self, *texts: object) -> None:
        assert not self.marker.exists(), "injected SQL ran"
        for text in texts:
            assert self.secret_token not in str(text), "injected SQL read the secret"


@pytest.fixture
def trap(tmp_path: pathlib.Path) -> Iterator[Trap]:
    t = Trap(tmp_path)
    yield t
    t.assert_clean()


def _rows(session: Any, sql: str) -> list[tuple[Any, ...]]:
    return session.sql(sql).fetchall()


#: Aggregate-function values a crafted schema file could hold; each would run if spliced into SQL.
AGG_PAYLOADS = [
    "sum) , (select content from read_text('SECRET')) --",
    "max(:x + MARKER())",
    "max(:x) + (SELECT count(*) FROM read_text('SECRET'))",
    "max(:x + (SELECT length(content) FROM read_text('SECRET')))",
    "sum(:x); SELECT MARKER(); --",
    'last_value"; DROP TABLE x; --',
    "MARKER",
]


def _aggregation_table(trap: Trap) -> None:
    trap.session.sql(
        "CREATE TABLE d.t (k INT, v INT, w STRING, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum')"
    )
    trap.session.sql("INSERT INTO d.t VALUES (1, 10, 'a'), (2, 20, 'b')")
    # A second file overlapping the first: the merge query runs.
    trap.session.sql("INSERT INTO d.t VALUES (1, 5, 'c')")


def _partial_update_table(trap: Trap, options: str = "") -> None:
    trap.session.sql(
        "CREATE TABLE d.t (k INT, v INT, w STRING, s INT, PRIMARY KEY (k) NOT ENFORCED) "
        f"WITH ('merge-engine' = 'partial-update'{options})"
    )
    trap.session.sql("INSERT INTO d.t VALUES (1, 10, 'a', 1), (2, 20, 'b', 1)")
    trap.session.sql("INSERT INTO d.t VALUES (1, 5, NULL, 2)")


def _set_option(key: str, value: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["options"][key] = value

    return edit


def _refused(trap: Trap, key: str, sql: str = "SELECT * FROM d.t ORDER BY k") -> None:
    """The read fails with an `OptionError` naming `key` and the table, and nothing injected ran
    (checked first, whatever happened)."""
    try:
        rows = _rows(trap.open(), sql)
    except Exception as err:  # noqa: BLE001 - whatever was raised, the trap is checked first
        trap.assert_clean(err)
        refusal = err
    else:
        trap.assert_clean(rows)
        pytest.fail(f"a crafted {key!r} was read without an error: {rows}")
    assert isinstance(refusal, OptionError), repr(refusal)
    assert key in str(refusal), str(refusal)
    assert "d.t" in str(refusal), str(refusal)


@pytest.mark.parametrize("payload", AGG_PAYLOADS)
@pytest.mark.parametrize(
    ("setup", "key"),
    [
        (_aggregation_table, "fields.v.aggregate-function"),
        (_aggregation_table, "fields.default-aggregate-function"),
        (_partial_update_table, "fields.v.aggregate-function"),
    ],
    ids=["aggregation", "aggregation-default", "partial-update"],
)
def test_crafted_aggregate_function_never_runs(
    trap: Trap, setup: Callable[[Trap], None], key: str, payload: str
) -> None:
    setup(trap)
    if key == "fields.default-aggregate-function":
        trap.plant("t", lambda doc: doc["options"].pop("fields.v.aggregate-function"))
        trap.plant("t", _set_option("fields.w.aggregate-function", "last_value"))
    trap.plant("t", _set_option(key, trap.payload(payload)))
    _refused(trap, key)


@pytest.mark.parametrize("payload", AGG_PAYLOADS[:3])
def test_crafted_aggregate_function_in_a_sequence_group_never_runs(
    trap: Trap, payload: str
) -> None:
    _partial_update_table(
        trap, ", 'fields.s.sequence-group' = 'v', 'fields.v.aggregate-function' = 'sum'"
    )
    assert _rows(trap.session, "SELECT k, v FROM d.t ORDER BY k") == [(1, 15), (2, 20)]
    trap.plant("t", _set_option("fields.v.aggregate-function", trap.payload(payload)))
    _refused(trap, "fields.v.aggregate-function")


def test_known_but_unsupported_aggregate_function_is_named(trap: Trap) -> None:
    _aggregation_table(trap)
    trap.plant("t", _set_option("fields.v.aggregate-function", "theta_sketch"))
    with pytest.raises(PaimonSqlError, match=r"theta_sketch.*fields\.v\.aggregate-function"):
        _rows(trap.open(), "SELECT * FROM d.t")


@pytest.mark.parametrize(
    "delimiter",
    ["', (SELECT MARKER()) ,'", "'; SELECT MARKER(); --", '"||MARKER()||"', "\\'"],
)
def test_crafted_list_agg_delimiter_stays_a_value(trap: Trap, delimiter: str) -> None:
    trap.session.sql(
        "CREATE TABLE d.t (k INT, w STRING, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('merge-engine' = 'aggregation', 'fields.w.aggregate-function' = 'listagg')"
    )
    trap.session.sql("INSERT INTO d.t VALUES (1, 'a')")
    trap.session.sql("INSERT INTO d.t VALUES (1, 'b')")
    text = trap.payload(delimiter)
    trap.plant("t", _set_option("fields.w.list-agg-delimiter", text))
    assert _rows(trap.open(), "SELECT k, w FROM d.t") == [(1, "a" + text + "b")]


@pytest.mark.parametrize(
    ("key", "payload"),
    [
        ("sequence.field", 's" DESC, MARKER() --'),
        ("sequence.field", "s, MARKER()"),
        ("fields.s.sequence-group", 'v"; SELECT MARKER(); --'),
        ('fields.s"); SELECT MARKER(); --.sequence-group', "v"),
    ],
)
def test_crafted_sequence_columns_are_refused(trap: Trap, key: str, payload: str) -> None:
    _partial_update_table(trap)
    trap.plant("t", _set_option(trap.payload(key), trap.payload(payload)))
    _refused(trap, trap.payload(key))


@pytest.mark.parametrize("payload", ["deduplicate'; SELECT MARKER(); --", "aggregation) --"])
def test_crafted_merge_engine_is_refused(trap: Trap, payload: str) -> None:
    _aggregation_table(trap)
    trap.plant("t", _set_option("merge-engine", trap.payload(payload)))
    _refused(trap, "merge-engine")


EVIL_NAMES = [
    'v"; SELECT MARKER(); --',
    "w') ; (SELECT MARKER()) --",
    "x`y;z'",
]  # no "," (option lists)


def test_crafted_column_names_in_the_schema_file_stay_names(trap: Trap) -> None:
    """Column (and nested ROW field) names from a schema file, with quotes and semicolons, are
    quoted identifiers in every query: written, merged, filtered, updated and read back exactly."""
    trap.session.sql(
        "CREATE TABLE d.t (k INT, a STRING, b INT, c ROW<f INT>, p STRING, "
        "PRIMARY KEY (k, p) NOT ENFORCED) "
        "PARTITIONED BY (p) WITH ('bucket' = '2', 'sequence.field' = 'b')"
    )
    names = [trap.payload(n) for n in EVIL_NAMES]
    nested = trap.payload('f"); SELECT MARKER(); --')
    part = trap.payload("p'); SELECT MARKER(); --")

    def rename(doc: dict[str, Any]) -> None:
        fields = doc["fields"]
        fields[1]["name"], fields[2]["name"] = names[0], names[1]
        fields[3]["type"]["fields"][0]["name"] = nested
        fields[4]["name"] = part
        doc["partitionKeys"], doc["primaryKeys"] = [part], ["k", part]
        doc["options"]["sequence.field"] = names[1]

    trap.plant("t", rename)
    session = trap.open()

    def q(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def lit(text: str) -> str:
        return "'" + text.replace("'", "''") + "'"

    session.sql(
        f"INSERT INTO d.t VALUES (1, {lit(chr(39) + '; SELECT 1; --')}, 1, {{{lit(nested)}: 7}}, "
        "'x''y'), "
        "(2, 'b', 1, NULL, 'z')"
    )
    assert _rows(session, f"SELECT c, {q(names[0])} FROM d.t WHERE k = 1") == [
        ({nested: 7}, "'; SELECT 1; --")
    ]
    session.sql("INSERT INTO d.t VALUES (1, 'newer', 2, NULL, 'x''y'), (2, 'older', 0, NULL, 'z')")
    assert _rows(
        session, f"SELECT k, {q(names[0])}, {q(names[1])}, {q(part)} FROM d.t ORDER BY k"
    ) == [
        (1, "newer", 2, "x'y"),
        (2, "b", 1, "z"),
    ]
    assert _rows(
        session, f"SELECT k FROM d.t WHERE {q(part)} = 'x''y' AND {q(names[0])} = 'newer'"
    ) == [(1,)]
    session.sql(f"UPDATE d.t SET {q(names[0])} = 'upd' WHERE {q(part)} = 'z'")
    session.sql("DELETE FROM d.t WHERE k = 1")
    assert _rows(session, f"SELECT k, {q(names[0])} FROM d.t") == [(2, "upd")]
    session.sql("CALL sys.compact(table => 'd.t')")
    assert _rows(trap.open(), f"SELECT k, {q(names[0])}, {q(part)} FROM d.t") == [(2, "upd", "z")]


def test_nested_field_names_from_the_schema_file_stay_names(trap: Trap) -> None:
    trap.session.sql("CREATE TABLE d.t (k INT, c ROW<f INT, g ARRAY<ROW<h STRING>>>)")
    nested = trap.payload('f" INT, "x" INT) , MARKER() --')
    inner = trap.payload("h'); SELECT MARKER(); --")

    def rename(doc: dict[str, Any]) -> None:
        row = doc["fields"][1]["type"]
        row["fields"][0]["name"] = nested
        row["fields"][1]["type"]["element"]["fields"][0]["name"] = inner

    trap.plant("t", rename)
    session = trap.open()
    arrow = session.sql("SELECT * FROM d.t").arrow()
    struct = arrow.schema.field("c").type
    assert [struct.field(i).name for i in range(struct.num_fields)] == [nested, "g"]

    def lit(text: str) -> str:
        return "'" + text.replace("'", "''") + "'"

    session.sql(f"INSERT INTO d.t SELECT 1, {{{lit(nested)}: 5, 'g': [{{{lit(inner)}: 'v'}}]}}")
    assert _rows(session, "SELECT k, c FROM d.t") == [(1, {nested: 5, "g": [{inner: "v"}]})]


@pytest.mark.parametrize(
    "type_text",
    [
        "INT) , (SELECT MARKER()) --",
        "INT); SELECT MARKER(); --",
        "DECIMAL(10, 2) + MARKER()",
        "STRING'",
    ],
)
def test_crafted_type_string_is_refused(trap: Trap, type_text: str) -> None:
    trap.session.sql("CREATE TABLE d.t (k INT, v INT)")
    trap.session.sql("INSERT INTO d.t VALUES (1, 2)")
    trap.plant("t", lambda doc: doc["fields"][1].__setitem__("type", trap.payload(type_text)))
    with pytest.raises(PaimonSqlError) as info:
        _rows(trap.open(), "SELECT * FROM d.t")
    trap.assert_clean(info.value)


def test_hostile_names_and_values_through_the_sql_surface(trap: Trap) -> None:
    """Table, column and partition names and values with quotes, semicolons and comment markers, in
    CREATE / INSERT / SELECT / UPDATE / DELETE / CTAS / ALTER / SHOW CREATE / DROP: correct results.
    """
    session = trap.session
    session.sql("CREATE TABLE main.canary (x INT)")
    table = 'd."t\'x""; DROP TABLE canary; --"'
    col = '"v""; DROP TABLE canary; --"'
    session.sql(
        f'CREATE TABLE {table} (k INT, {col} STRING, "p\'q" STRING, '
        'PRIMARY KEY (k, "p\'q") NOT ENFORCED) '
        "PARTITIONED BY (\"p'q\") WITH ('bucket' = '2')"
    )
    session.sql(
        f"INSERT INTO {table} VALUES (1, 'a''b', 'it''s\"; --'), (2, 'c', 'x'), (3, 'd', 'x')"
    )
    assert _rows(session, f"SELECT * FROM {table} ORDER BY k") == [
        (1, "a'b", "it's\"; --"),
        (2, "c", "x"),
        (3, "d", "x"),
    ]
    assert _rows(session, f"SELECT k FROM {table} WHERE \"p'q\" = 'it''s\"; --'") == [(1,)]
    session.sql(f"UPDATE {table} SET {col} = 'z''z' WHERE k = 1")
    session.sql(f"DELETE FROM {table} WHERE {col} = 'c'")
    assert _rows(session, f"SELECT k, {col} FROM {table} ORDER BY k") == [(1, "z'z"), (3, "d")]
    session.sql("CALL sys.compact(table => 'd.t\\'x\"; DROP TABLE canary; --')")
    assert _rows(session, f"SELECT count(*) FROM {table}") == [(2,)]
    # Append table, partitioned by a hostile column: DELETE/UPDATE rewrite partitions copy-on-write.
    session.sql(f'CREATE TABLE d."a\'p" ({col} STRING, "p\'q" STRING) PARTITIONED BY ("p\'q")')
    session.sql("INSERT INTO d.\"a'p\" VALUES ('1', 'it''s\"; --'), ('2', 'b')")
    session.sql(f"DELETE FROM d.\"a'p\" WHERE {col} = '2'")
    session.sql(f"UPDATE d.\"a'p\" SET {col} = 'u' WHERE \"p'q\" = 'it''s\"; --'")
    assert _rows(session, 'SELECT * FROM d."a\'p"') == [("u", "it's\"; --")]
    # CTAS: names and option values from the statement and its query.
    session.sql(
        "CREATE TABLE d.ctas WITH ('partition.default-name' = 'it''s; --', "
        "'primary-key' = 'we\"ird') "
        'AS SELECT k AS "we""ird", ' + col + ' AS "a;b", {\'x"y\': k} AS "s t" FROM ' + table
    )
    assert _rows(session, "SELECT * FROM d.ctas ORDER BY 1") == [
        (1, "z'z", {'x"y': 1}),
        (3, "d", {'x"y': 3}),
    ]
    ddl = _rows(session, "SHOW CREATE TABLE d.ctas")[0][0]
    assert "'it''s; --'" in ddl
    assert '`x"y`' in ddl
    session.sql('ALTER TABLE d.ctas RENAME COLUMN "a;b" TO "b\'; --"')
    assert _rows(session, 'SELECT "b\'; --" FROM d.ctas ORDER BY "we""ird"') == [("z'z",), ("d",)]
    session.sql(f"DROP TABLE {table}")
    assert _rows(session, "SELECT count(*) FROM canary") == [(0,)]
    trap.assert_clean()


@pytest.mark.parametrize(
    "where",
    [
        "p = 'x'; SELECT MARKER()",
        "p IN (SELECT MARKER()::VARCHAR)",
        "p = (SELECT content FROM read_text('SECRET'))",
    ],
)
def test_compact_where_is_one_condition(trap: Trap, where: str) -> None:
    trap.session.sql("CREATE TABLE d.t (k INT, p STRING) PARTITIONED BY (p)")
    trap.session.sql("INSERT INTO d.t VALUES (1, 'x')")
    text = trap.payload(where).replace("'", "''")
    with pytest.raises(SqlError) as info:
        trap.session.sql(f"CALL sys.compact(table => 'd.t', \"where\" => '{text}')")
    trap.assert_clean(info.value)


def test_marker_udf_detects_execution(trap: Trap) -> None:
    """The trap itself works: a statement that does call the UDF leaves the marker (so a clean run
    means the payloads never ran)."""
    _rows(trap.session, f"SELECT {MARKER_UDF}()")
    assert trap.marker.exists()
    trap.marker.unlink()
