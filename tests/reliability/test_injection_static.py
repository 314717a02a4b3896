# REVIEWED quotes source lines verbatim, so some lines here are as long as those.
# ruff: noqa: E501
"""A cheap static guard: no SQL is assembled from text in `paimon_sql` (issue 11, item 2).

The package's Python files are parsed (``ast``) and every call to something that parses or runs SQL
is checked:

* its SQL argument must not be built from text: no f-string, no ``+`` / ``%`` on strings, no
  ``.format()`` / ``.join()`` (a statement is a sqlglot tree rendered once, e.g.
  ``node.sql("duckdb")``);
* a parser (``parse_one``, ``maybe_parse``, ``to_table``, ``DataType.build``, ``exp.Var`` ...) gets
  a constant string, never a variable that could hold a name or a value from metadata or input;
* and anywhere (outside exception and log messages), no string assembled with ``+`` / ``%`` /
  f-string holds SQL keywords (``CREATE TABLE``, ``SET x =``, ``DROP`` ...): such text is on its way
  to some statement.

Reviewed sites that must stay are listed in `REVIEWED` with the reason; an entry no longer found
fails too, so the list stays true.
"""

from __future__ import annotations

import ast
import pathlib
import re
from typing import TYPE_CHECKING

import paimon_sql

if TYPE_CHECKING:
    from collections.abc import Iterator

PACKAGE = pathlib.Path(paimon_sql.__file__).parent

#: Calls that run or parse SQL text: their first argument must not be assembled from strings.
SINKS = frozenset(
    {
        "sql", "execute", "executemany", "query", "parse", "parse_one", "maybe_parse", "to_table",
        "to_column", "build", "select", "where", "having", "from_", "join", "order_by", "group_by",
        "qualify", "Var", "Command", "Anonymous", "func", "condition", "_parse_one",
    }
)  # fmt: skip
#: sqlglot calls that parse their argument: it must be a constant string.
PARSERS = frozenset(
    {"parse", "parse_one", "maybe_parse", "to_table", "to_column", "build", "Var", "condition"}
)
#: Calls that take a function name (``exp.Anonymous(this=...)``, ``exp.func(name, ...)``).
NAMED = {"Anonymous": "this", "func": 0}

#: Keywords that mark a piece of assembled text as SQL.
KEYWORDS = re.compile(
    r"\b(SELECT|CREATE|DROP|INSERT|ALTER|COPY|ATTACH|DESCRIBE|EXPLAIN|PRAGMA|DELETE|UPDATE)\b"
    r"|\bSET\s+\w+\s*=|\bFROM\s|\bWHERE\s|\bTABLE\s"
)
#: Calls whose text is a message, not SQL.
MESSAGES = ("Error", "Exception", "warn", "warning", "error", "info", "debug", "echo", "print")

#: (file, stripped source line) -> why the text there is safe. Keep it short.
REVIEWED = {
    (
        "sql/statements/dispatch.py",
        'statement = sqlglot.parse_one(text, read="duckdb")',
    ): "parses the user's own EXPLAIN / PREPARE statement to see whether it writes a Paimon table (refused); never run",
    (
        "cli/_interrupt.py",
        'statement = sqlglot.parse_one(text, read="duckdb")',
    ): "parses the user's own statement to name the table it writes (for the Ctrl-C message); never run",
    (
        "read/build.py",
        'return as_type("exp.Expression", sqlglot.parse_one(_JAVA_FLOAT_TEXT, read="duckdb"))',
    ): "a constant of the module (Java's Float.toString as SQL), parsed once; :x is replaced by a node",
    (
        "read/java_hash.py",
        "return exp.Anonymous(this=name, expressions=list(args))",
    ): "function names are constants at every call site (list_transform, BOOL_OR ...); arguments are nodes",
    (
        "read/java_hash.py",
        'return exp.cast(node, exp.DataType.build(to, dialect="duckdb"))',
    ): "type names are constants at every call site (UBIGINT, BIGINT ...)",
    (
        "sql/statements/dispatch.py",
        'node = exp.to_table(rest.strip(), dialect="duckdb")',
    ): "parses the user's SHOW t into a table node, then built into DESCRIBE from nodes",
    (
        "sql/statements/catalog_ddl.py",
        'text = f"CREATE TABLE {_name(ident.database)}.{_name(ident.table)} (\\n{columns}\\n)"',
    ): "SHOW CREATE TABLE's display text (names and values quoted), returned as a value, never run",
    (
        "sqlnodes.py",
        'return ("EXPLAIN (FORMAT JSON) " if json else "EXPLAIN ") + query.sql("duckdb")',
    ): "constant keywords before a rendered AST (EXPLAIN of the user's rewritten query, of a write's "
    "source); sqlglot has no EXPLAIN node for DuckDB",
    (
        "sql/session.py",
        "statement = sqlglot.parse_one(text, read=dialect)",
    ): "parses the user's own statement (the SQL surface itself)",
    (
        "sql/dialect.py",
        "statement = sqlglot.parse_one(text, read=Paimon)",
    ): "parses the user's own CALL or SHOW statement into a `Call` / `exp.Show`; nothing runs (only "
    "literals are accepted from a CALL's arguments)",
    (
        "sql/procedures/_proc_compact.py",
        'condition = sqlglot.parse_one(where, read="spark")',
    ): "the user's `where` argument; refused unless one condition on partition columns without subqueries",
    (
        "sql/dialect.py",
        "statements = [s for s in sqlglot.parse(sql, dialect=Paimon) if s is not None]",
    ): "parses the user's own DDL statement into a Paimon schema model; nothing runs",
    (
        "sql/dialect.py",
        'query = sqlglot.parse_one(text[token.end + 1 :], read="duckdb")',
    ): "parses the query of the user's own CTAS (the text after its AS) as DuckDB reads it; the AST "
    "is bound and rendered like any query's",
    (
        "sql/dialect.py",
        'statement = _parse_one("CREATE TABLE _t (_c " + text + ")")',
    ): "parses a user's type text into a Paimon type model (never run); refused unless exactly one column",
    (
        "write/bucket.py",
        "return exp.Paren(this=exp.Var(this=text))",
    ): "text is the cached rendering of a hash tree built from nodes (quoted identifiers, literals)",
    (
        "write/bucket.py",
        "return exp.Anonymous(this=name, expressions=list(args))",
    ): "`_fn` is only called with constant DuckDB function names",
    (
        "read/merge_engines.py",
        'return sqlglot.parse_one(_TEMPLATES.get(name) or _INTERNAL[name], read="duckdb")',
    ): "parses only the constant templates (an unknown name is a KeyError, never parsed)",
    (
        "write/writer.py",
        'query = exp.maybe_parse(source, dialect="duckdb")',
    ): "`source` is the statement's AST (a str only from direct API callers writing their own query)",
    (
        "write/bucket.py",
        'return exp.DataType.build(name, dialect="duckdb")',
    ): "`_data_type` is only called with constant DuckDB type names",
    (
        "types.py",
        'return exp.DataType.build(name, dialect="duckdb")  # one of the constant names above',
    ): "`_simple_type_node` is only called with the constant DuckDB names of `duckdb_type`",
}


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _text_built(node: ast.expr) -> bool:
    """Whether an expression assembles a string from pieces (f-string, +, %, format, join)."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        sides = (node.left, node.right)
        return any(
            isinstance(s, ast.JoinedStr)
            or (isinstance(s, ast.Constant) and isinstance(s.value, str))
            or _text_built(s)
            for s in sides
        )
    if isinstance(node, ast.Call) and _name(node.func) in ("format", "join"):
        return isinstance(node.func, ast.Attribute) and isinstance(
            node.func.value, (ast.Constant, ast.JoinedStr)
        )
    return False


def _sqlglot_call(call: ast.Call) -> bool:
    """``sqlglot.x(...)``, ``exp.x(...)``, ``exp.DataType.build(...)`` or a bare imported ``parse_one(...)``."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in ("parse_one", "maybe_parse", "to_table", "to_column", "condition")
    return isinstance(func, ast.Attribute) and _name(func.value) in ("sqlglot", "exp", "DataType")


def _function_name(call: ast.Call, name: str) -> ast.expr | None:
    where = NAMED[name]
    if isinstance(where, int):
        return call.args[where] if len(call.args) > where else None
    return next((k.value for k in call.keywords if k.arg == where), None)


def _sql_arguments(call: ast.Call) -> list[ast.expr]:
    args = list(call.args[:1])
    args += [
        k.value
        for k in call.keywords
        if k.arg in ("this", "sql", "sql_or_expression", "query", "expression")
    ]
    return args


def _constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def findings(root: pathlib.Path = PACKAGE) -> Iterator[tuple[str, int, str, str]]:
    """(file, line, source line, problem) of every suspicious call under `root`."""
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        relative = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node.func)
            if name not in SINKS:
                continue
            for argument in _sql_arguments(node):
                problem = None
                if _text_built(argument):
                    problem = f"SQL text assembled for {name}()"
                elif (
                    name in PARSERS
                    and _sqlglot_call(node)
                    and not _constant(argument)
                    and not _is_node(argument)
                ):
                    problem = f"{name}() parses a non-constant"
                if problem:
                    yield relative, node.lineno, lines[node.lineno - 1].strip(), problem
                    break
            function = _function_name(node, name) if name in NAMED else None
            if function is not None and not _constant(function):
                yield (
                    relative,
                    node.lineno,
                    lines[node.lineno - 1].strip(),
                    f"{name}() with a non-constant name",
                )


def _pieces(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        ]
    if isinstance(node, ast.BinOp):
        return _pieces(node.left) + _pieces(node.right)
    if isinstance(node, ast.IfExp):  # ("EXPLAIN " if … else …) + text
        return _pieces(node.body) + _pieces(node.orelse)
    return []


def keyword_text(root: pathlib.Path = PACKAGE) -> Iterator[tuple[str, int, str, str]]:
    """(file, line, source line, problem) of every assembled string holding SQL keywords."""
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        tree = ast.parse(source)
        messages = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) or (
                isinstance(node, ast.Call) and (_name(node.func) or "").endswith(MESSAGES)
            ):
                messages.update(id(n) for n in ast.walk(node))
        for node in ast.walk(tree):
            assembled = isinstance(node, ast.JoinedStr) or (
                isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod))
            )
            if assembled and id(node) not in messages and KEYWORDS.search(" ".join(_pieces(node))):
                line = lines[node.lineno - 1].strip()
                yield (
                    path.relative_to(root).as_posix(),
                    node.lineno,
                    line,
                    "SQL keywords in assembled text",
                )


def _all(root: pathlib.Path = PACKAGE) -> list[tuple[str, int, str, str]]:
    return [*findings(root), *keyword_text(root)]


def _is_node(node: ast.expr) -> bool:
    """A sqlglot node built right there (``exp.Foo(...)`` / ``exp.foo(...)``) is not text."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and _name(node.func.value) == "exp"
    )


def test_no_sql_is_assembled_from_text() -> None:
    unreviewed = sorted({f for f in _all() if (f[0], f[2]) not in REVIEWED})
    assert not unreviewed, "SQL built from text (build it from sqlglot nodes):\n" + "\n".join(
        f"  paimon_sql/{path}:{line}: {problem}: {text}" for path, line, text, problem in unreviewed
    )


def test_reviewed_sites_still_exist() -> None:
    seen = {(f[0], f[2]) for f in _all()}
    stale = [site for site in REVIEWED if site not in seen]
    assert not stale, f"REVIEWED lists sites that are gone or changed (update the list): {stale}"


def test_the_scan_catches_text_sql(tmp_path: pathlib.Path) -> None:
    """The scanner itself: each pattern it exists for is found, nodes and constants are not."""
    (tmp_path / "m.py").write_text(
        "import sqlglot\n"
        "from sqlglot import exp\n"
        "def f(con, name, node):\n"
        "    sqlglot.parse_one(f'SELECT {name}')\n"
        "    con.execute('DROP TABLE ' + name)\n"
        "    con.sql('SELECT %s' % name)\n"
        "    con.sql('SELECT {}'.format(name))\n"
        "    exp.to_table(name)\n"
        "    exp.maybe_parse(name)\n"
        "    exp.Var(this=name)\n"
        "    exp.select('*').where(f'{name} = 1')\n"
        "    con.sql(node.sql('duckdb'))\n"
        "    exp.to_table('constant')\n"
        "    sqlglot.parse_one('SELECT 1')\n"
        "    exp.DataType.build(exp.DataType(this=exp.DataType.Type.INT))\n"
        "    exp.Anonymous(this=name)\n"
        "    exp.func(name, node)\n"
        "    exp.func('COALESCE', node)\n"
        "    Identifier.parse(name)\n"
        "    text = 'CREATE TEMP TABLE ' + name\n"
        "    other = f'SET memory_limit = {name}'\n"
        "    raise ValueError(f'use DROP TABLE {name} first')\n"
        "    label = f'table {name} has {node} rows'\n"
    )
    found = [(line, problem) for _, line, _, problem in findings(tmp_path)]
    assert sorted(line for line, _ in found) == [4, 5, 6, 7, 8, 9, 10, 11, 16, 17], found
    texts = sorted({line for _, line, _, _ in keyword_text(tmp_path)})
    assert texts == [4, 5, 6, 20, 21], texts
