"""Table references of a statement bound to what DuckDB runs: a planned scan, inlined or streamed.

`Binder.bind` walks a sqlglot AST and replaces each ``"db"."table"`` that names a Paimon table by
its planned scan: local Parquet tables become the merge SQL itself, inlined, so one DuckDB engine
runs the whole query (filters pushed into the file scans, aggregates next to them); other tables
(ORC, Avro, remote) become a streaming source. The statement's WHERE prunes partitions, buckets and
files while planning (`paimon_sql.engine.pushdown`); ``VERSION AS OF`` and friends pin a snapshot
(`paimon_sql.engine.travel`); ``t$snapshots`` and ``sys.tables`` become Arrow tables built by the
`SystemTables` the binder is given.

>>> import sqlglot
>>> early_stop(sqlglot.parse_one("SELECT * FROM db.t LIMIT 3").find(exp.Table))
True
>>> early_stop(sqlglot.parse_one("SELECT * FROM db.t ORDER BY k LIMIT 3").find(exp.Table))
False
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from paimon_sql.catalog import Identifier
from paimon_sql.catalog.names import SYSTEM_TABLE_SPLITTER, table_name
from paimon_sql.engine.pushdown import table_predicate
from paimon_sql.engine.source import PaimonSource, SystemTables
from paimon_sql.engine.travel import (
    TimeTravel,
    select_travel,
    strip_travel,
    travel_of,
    travel_of_options,
)
from paimon_sql.errors import (
    DatabaseNotFoundError,
    PaimonSqlError,
    SqlError,
    UnsupportedFeatureError,
)
from paimon_sql.plan.explain import explain_rows
from paimon_sql.plan.scan import ScanPlan, plan_scan
from paimon_sql.sqlnodes import (
    explain_sql,
    pivot_sources_hoisted,
    select_all,
    table_node,
    unqualify,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    import pyarrow as pa

    from paimon_sql.catalog import Table
    from paimon_sql.engine.context import Engine
    from paimon_sql.engine.relation import Relation
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.predicate import Predicate


#: Clauses of a table reference its replacement (a hidden table or a subquery) keeps: DuckDB
#: applies them to either as to the table (``TABLESAMPLE``, ``PIVOT (…)``, the joins of a
#: parenthesised ``(t JOIN u …)``).
_CARRIED = ("sample", "pivots", "joins", "laterals")
#: Clauses the binder itself reads before replacing the reference (its name, time travel).
_READ = frozenset({"this", "alias", "db", "catalog", "version", "when"})


def _hoist_inner_pivots(statement: exp.Expression, pivoted: bool) -> None:
    """`pivot_sources_hoisted` for the PIVOT statements inside `statement`, in place.

    `pivoted`: whether the statement had a PIVOT before it was bound (binding adds none; its
    scans make the tree too large to search for nothing on every statement). A write renders
    its query itself; a PIVOT statement that is the whole statement is `Binder.render`'s to
    hoist (its root changes).
    """
    if pivoted and not isinstance(statement, exp.Pivot):
        pivot_sources_hoisted(statement)


def _carried(node: exp.Table, replacement: exp.Table | exp.Subquery) -> exp.Table | exp.Subquery:
    """`replacement` of a table reference, with the reference's clauses (else lost).

    Those of `_CARRIED`; any other (``WITH ORDINALITY``, ``ONLY`` …) is refused by name rather
    than dropped.
    """
    for key, value in node.args.items():
        if value in (None, False, []) or key in _READ or key in _CARRIED:
            continue
        name = ".".join(p.name for p in node.parts)
        raise UnsupportedFeatureError(
            f"{key.upper().replace('_', ' ')} on Paimon table {name} is not supported; read the "
            "table in a subquery and apply it there"
        )
    for key in _CARRIED:
        value = node.args.get(key)
        if value:
            replacement.set(key, value)
    return replacement


@dataclass(frozen=True, slots=True, weakref_slot=True)
class _Inlined:
    """One inlined scan as built for a statement: what it was built from and what it is."""

    table: Table
    snapshot: Snapshot
    schema: TableSchema
    options: Mapping[str, str]
    predicate: Predicate | None
    plan: ScanPlan
    query: exp.Select
    params: dict[str, Any]


class _InlineCache:
    """Inlined scans of a session, kept for the next statement that reads the same snapshot.

    A scan is a function of immutable metadata: the snapshot (its manifest lists and index
    manifest are files never rewritten), the schema and the pruning predicate. A statement reads
    the table's latest snapshot first, as without the cache, and reuses a scan only when that
    snapshot, the read schema, the table's options and the predicate all equal the ones it was
    built from: a commit (by anyone) makes a new snapshot, an ``ALTER TABLE`` a new schema, so
    neither is served a stale scan. A snapshot id written again after a rollback differs in its
    manifest lists. Only scans whose deletion vectors and file lists are statement parameters (no
    table registered on the connection) are kept; the data files are checked again on reuse
    (`SplitReader.check_files`). The tree is copied for each statement (callers may rewrite it).

    >>> cache = _InlineCache()
    >>> len(cache.entries), cache.LIMIT
    (0, 32)
    """

    #: Scans kept (least recently used dropped first).
    LIMIT = 32

    def __init__(self) -> None:
        """An empty cache."""
        self.entries: OrderedDict[tuple[int, int], _Inlined] = OrderedDict()

    def get(
        self, table: Table, snapshot: Snapshot, schema: TableSchema, predicate: Predicate | None
    ) -> _Inlined | None:
        """The scan built from exactly these, if kept."""
        entry = self.entries.get((id(table), snapshot.id))
        if (
            entry is None
            or entry.table is not table
            or entry.snapshot != snapshot
            or (entry.schema is not schema and entry.schema != schema)
            or entry.options != table.latest_schema.options
            or entry.predicate != predicate
        ):
            return None
        self.entries.move_to_end((id(table), snapshot.id))
        return entry

    def put(self, entry: _Inlined) -> None:
        """Keep `entry` (replacing the table's scan of the same snapshot id)."""
        key = (id(entry.table), entry.snapshot.id)
        self.entries[key] = entry
        self.entries.move_to_end(key)
        while len(self.entries) > self.LIMIT:
            self.entries.popitem(last=False)


def _same(kept: Sequence[weakref.ref[Any]], used: Sequence[object]) -> bool:
    """Whether `used` are the very objects `kept` refers to (identity, in order; none dropped).

    >>> class A: pass
    >>> a, b = A(), A()
    >>> refs = (weakref.ref(a), weakref.ref(b))
    >>> _same(refs, [a, b]), _same(refs[:1], [a, b]), _same(refs, [b, a])
    (True, False, False)
    """
    return len(kept) == len(used) and all(x() is y for x, y in zip(kept, used, strict=True))


def _other(replaced: bool, used: list[object] | None) -> bool:
    """`replaced`; a replacement that is no kept inlined scan is noted in `used` (`Binder.bind`).

    >>> used = []
    >>> _other(True, used), _other(False, used), used
    (True, False, [None])
    """
    if replaced and used is not None:
        used.append(None)
    return replaced


class Binder:
    """Binds the Paimon table references of statements run on `engine`."""

    def __init__(
        self,
        engine: Engine,
        system: SystemTables,
        hints: Callable[[str], Mapping[str, str] | None],
        incremental: Callable[[Table, Mapping[str, str], bool], pa.Table | None] | None = None,
        changes: Callable[[Table, str, str, str], pa.Table] | None = None,
        table_reads: Callable[[Table], Mapping[str, str] | None] | None = None,
    ) -> None:
        """Bind on `engine`'s connection; metadata tables come from `system`.

        `hints` reads a table's ``/*+ OPTIONS(…) */`` comment (the SQL layer's dialect);
        `incremental` answers a hint that asks for an incremental read (``incremental-between``
        …: the changed rows, `paimon_sql.changes`), None for any other hint; `changes` answers
        the table function ``paimon_changes(table, start, end [, mode := …])``; `table_reads`
        gives the read options a table's own options set (``scan.snapshot-id`` …), which a
        reference without time travel or hint honours as a hint's.
        """
        self.engine = engine
        self.system = system
        self.hints = hints
        self.incremental = incremental
        self.changes = changes
        self.table_reads = table_reads
        self.inlined = _InlineCache()
        # statement text -> (the kept scans it was bound to, its rendered SQL)
        # (weak: a scan the inline cache dropped is not kept alive here, and is never matched)
        self._rendered: OrderedDict[str, tuple[tuple[weakref.ref[Any], ...], str]] = OrderedDict()
        #: ``db.table`` of each table the last `bind` replaced by its scan (bare names qualified)
        self.bound: list[str] = []

    #: Rendered statements remembered (`render`), least recently used dropped first.
    RENDERED = 64

    def render(self, text: str, statement: exp.Expression, used: list[object]) -> str:
        """DuckDB's SQL of `statement`, which `bind` bound with `used` (`text`: its source text).

        A statement whose every replacement is a kept inlined scan renders the same way each time
        it is bound to the same kept scans: that SQL is remembered per `text` and returned without
        rendering again. Otherwise rendered from a copy (kept scans' trees are shared).

        >>> binder = Binder.__new__(Binder)
        >>> binder._rendered = OrderedDict()
        >>> binder.render("SELECT 1", exp.select("1"), [])
        'SELECT 1'
        """
        pure = bool(used) and all(e is not None for e in used)
        known = self._rendered.get(text) if pure else None
        if known is not None and _same(known[0], used):
            self._rendered.move_to_end(text)
            return known[1]
        tree = statement.copy() if used else statement
        if isinstance(tree, exp.Pivot):  # a PIVOT statement (`bind` hoisted any inner one)
            tree = pivot_sources_hoisted(tree)
        sql = tree.sql("duckdb", copy=False)
        if pure:
            self._rendered[text] = (tuple(weakref.ref(e) for e in used), sql)
            self._rendered.move_to_end(text)
            while len(self._rendered) > self.RENDERED:
                self._rendered.popitem(last=False)
        return sql

    def bind(
        self,
        statement: exp.Expression,
        *,
        inline: bool = True,
        params: dict[str, Any] | None = None,
        used: list[object] | None = None,
    ) -> bool:
        """Replace each Paimon table `statement` names by its planned scan, in place.

        Whether any was.

        `inline`: a local Parquet table may become the merge SQL itself (a view outlives the
        statement, so it must re-plan on every read: it gets streaming sources). `params`: the
        file lists of inlined scans become named parameters of the statement, added to it (the
        caller runs the statement with them); without it they are literals in the text.

        `used` (a caller that only renders the statement, never changes it): gets one item per
        replacement, the kept inlined scan it is (`_InlineCache`) or None for anything else; a
        kept scan's tree is then placed in the statement as it is kept, not copied. The same
        statement text bound to the same kept scans renders to the same SQL.
        """
        changed = False
        self.bound = []
        ctes = {cte.alias_or_name.lower() for cte in statement.find_all(exp.CTE)}
        pivoted = statement.find(exp.Pivot) is not None
        for node in list(statement.find_all(exp.Table)):
            if isinstance(node.this, exp.Anonymous):  # a table function
                changed |= _other(self._table_function(node, node.this), used)
                continue
            if not node.db and not self._qualify_bare(node, ctes):
                continue
            branch = None
            if "$" in node.name and node.db != "sys":
                parts = table_name(node.name)
                if parts.branch is not None and parts.system is None:
                    branch = parts.branch  # ``t$branch_b``: the branch's rows, as Java reads them
            if branch is None and ("$" in node.name or node.db == "sys"):
                changed |= _other(self._system(node), used)
                continue
            database = self.engine.database_named(node.db)
            if database is None:
                continue  # not a Paimon database: DuckDB resolves (or reports) it
            base = node.name if branch is None else table_name(node.name).table
            try:
                table = self.engine.table_named(database, base)
            except DatabaseNotFoundError:
                continue  # not a Paimon database: DuckDB resolves (or reports) it
            _spell(node, table)
            if branch is not None:
                table = table.branch_table(branch)
            travel, own = self._travel(node, table, None if branch else Identifier(node.db, base))
            if _other(self._incremental(node, table, own=own), used):
                changed = True
                continue
            if travel is None:
                snapshot, pinned = table.latest_snapshot(), False
            else:
                snapshot, pinned = select_travel(table, travel), True
            early = early_stop(node)
            latest = travel is not None and travel.latest_schema
            unqualify(statement, node)
            self.bound.append(f"{node.db}.{node.name}")
            self._replace(
                node,
                table,
                snapshot,
                pinned,
                inline and not early,
                first_rows=early,
                latest_schema=latest,
                params=params,
                used=used,
            )
            changed = True
        self._refuse_stray(statement)
        _hoist_inner_pivots(statement, pivoted)
        return changed

    def _refuse_stray(self, statement: exp.Expression) -> None:
        """An ``OPTIONS`` hint or ``VERSION AS OF`` left on a table that is no Paimon table.

        On a DuckDB table, a view (of a Paimon table too) or a CTE, DuckDB gives a hint no
        meaning (it would be silently ignored), and cannot parse Spark's time travel.
        """
        for node in statement.find_all(exp.Table):
            name = exp.table_name(node)
            version = node.args.get("version")
            if isinstance(version, exp.Version):
                raise SqlError(
                    f"{name} {version.sql('spark')}: {name} is no Paimon table (a DuckDB table, "
                    "view or CTE), and only Paimon tables travel in time this way; name the "
                    "Paimon table (… FROM db.t VERSION AS OF 3)"
                )
            for comment in node.comments or []:
                try:
                    stray = self.hints(comment) is not None
                except PaimonSqlError:  # options no Paimon read takes: a hint all the same
                    stray = True
                if stray:
                    raise SqlError(
                        f"the hint /*+ {comment.strip().lstrip('+').strip()} */ is on {name}, "
                        "which is no Paimon table (a DuckDB table, view or CTE reads no hints): "
                        "put it after the Paimon table's name (… FROM db.t /*+ OPTIONS(…) */)"
                    )

    def _table_function(self, node: exp.Table, call: exp.Anonymous) -> bool:
        """``paimon_changes(…)`` bound (`_changes`), the debug functions' table qualified.

        Whether the statement changed (False for any other table function: DuckDB's).
        """
        name = call.name.lower()
        if name == "paimon_changes":
            return self._changes(node, call)
        return name in _TABLE_ARGUMENT and self._qualify_argument(call)

    def _qualify_argument(self, call: exp.Anonymous) -> bool:
        """``paimon_diff('t', …)``: a table named without its database is in USE's one.

        The functions resolve the name while DuckDB runs them, where the current database is not
        known; so the literal gets it here (`Engine.default_database`), as a new literal. Whether
        it did.
        """
        first = call.expressions[0] if call.expressions else None
        if not isinstance(first, exp.Literal) or not first.is_string or "." in first.this:
            return False
        database = self.engine.default_database()
        first.replace(exp.Literal.string(f"{database}.{first.this}"))
        return True

    def _qualify_bare(self, node: exp.Table, ctes: set[str]) -> bool:
        """Give a bare ``t`` (``t$snapshots`` …) the Paimon database DuckDB would find it in.

        After ``USE db`` such a name reads the table ``db.t`` (`Engine.bare_table`); qualified, it
        is bound like ``db.t``: time travel, hints, system tables and the inlined scan apply.
        Whether it was: not for a name that is written or created (only FROM, JOIN and MERGE
        USING read), a common table expression of that name, a temporary table, a table
        function, or outside a Paimon database.
        """
        if node.args.get("catalog") is not None or not isinstance(node.this, exp.Identifier):
            return False
        if not _scanned(node) or node.name.lower() in ctes:
            return False
        base, sep, suffix = node.name.partition(SYSTEM_TABLE_SPLITTER)
        ident = self.engine.bare_table(base)
        if ident is None:
            return False
        quoted = node.this.args.get("quoted")
        node.set("this", exp.to_identifier(ident.table + sep + suffix, quoted=quoted))
        node.set("db", exp.to_identifier(ident.database, quoted=True))
        return True

    def replace_variables(
        self, statement: exp.Expression, lookup: Callable[[str], object | None]
    ) -> bool:
        """DuckDB's replacement scans, for the caller's variables: whether any was replaced.

        A bare name in ``FROM`` / ``JOIN`` / ``MERGE … USING`` that names no table, view or CTE
        (Paimon's through ``USE`` included: as in DuckDB, a table wins over a variable) and that
        `lookup` resolves to a pandas or polars DataFrame or an Arrow table, batch, reader or
        dataset, is registered under a hidden name (errors name the variable) and read from there.
        `lookup` sees the caller's frame: statements are rewritten and run from paimon-sql's
        frames, where DuckDB's own replacement scan would look.
        """
        ctes = {cte.alias_or_name.lower() for cte in statement.find_all(exp.CTE)}
        changed = False
        for node in list(statement.find_all(exp.Table)):
            if node.args.get("db") or node.args.get("catalog"):
                continue
            if not isinstance(node.this, exp.Identifier) or not _scanned(node):
                continue
            name = node.name
            if name.lower() in ctes:
                continue
            value = lookup(name)
            if value is None or not scannable(value) or self._known(name):
                continue
            hidden = self.engine.register_arrow(value, name)  # type: ignore[arg-type]
            alias = node.args.get("alias") or exp.TableAlias(
                this=exp.to_identifier(name, quoted=True)
            )
            node.replace(
                _carried(node, exp.Table(this=exp.to_identifier(hidden, quoted=True), alias=alias))
            )
            changed = True
        return changed

    def _known(self, name: str) -> bool:
        """Whether `name` is a table or view DuckDB (or ``USE``'s Paimon database) resolves."""
        schema = self.engine.current_schema()
        catalog = self.engine.catalog
        if schema is not None and catalog.has_database(schema) and name in catalog.tables(schema):
            return True
        # a bare name resolves in the schemas of DuckDB's search path (``d.orders`` does not hide
        # a DataFrame ``orders``)
        searched = exp.and_(
            exp.In(
                this=exp.column("schema_name"),
                query=exp.select(
                    exp.Unnest(expressions=[exp.func("current_schemas", exp.true())])
                ).subquery(),
            ),
            exp.In(
                this=exp.column("database_name"),
                expressions=[
                    exp.func("current_database"),
                    exp.Literal.string("temp"),
                    exp.Literal.string("system"),
                ],
            ),
        )

        def named(column: str) -> exp.Expr:
            return exp.and_(
                exp.EQ(
                    this=exp.func("lower", exp.column(column)),
                    expression=exp.Literal.string(name.lower()),
                ),
                searched.copy(),
            )

        tables = (
            exp.select(exp.Literal.number(1)).from_("duckdb_tables()").where(named("table_name"))
        )
        views = exp.select(exp.Literal.number(1)).from_("duckdb_views()").where(named("view_name"))
        return bool(self.engine.fetch(exp.union(tables, views).limit(1)))

    def _changes(self, node: exp.Table, call: exp.Anonymous) -> bool:
        """``paimon_changes('db.t', start, end [, mode := 'diff'])``: the changes, as Arrow."""
        if self.changes is None:
            return False
        positional: list[str] = []
        named: dict[str, str] = {}
        for arg in call.expressions:
            value = arg.expression if isinstance(arg, exp.PropertyEQ) else arg
            if not isinstance(value, exp.Literal):
                raise SqlError(
                    f"paimon_changes: its arguments must be constants, got {value.sql('duckdb')}"
                )
            if isinstance(arg, exp.PropertyEQ):
                named[arg.this.name.lower()] = str(value.this)
            else:
                positional.append(str(value.this))
        if len(positional) != 3 or set(named) - {"mode"}:
            raise SqlError(
                "paimon_changes takes the table ('db.t'), the start (exclusive) and the end, and "
                "optionally mode := 'auto' | 'delta' | 'changelog' | 'diff'"
            )
        table = self.engine.table(positional[0])
        content = self.changes(table, positional[1], positional[2], named.get("mode", "auto"))
        hidden = self.engine.register_arrow(content, table.name)
        alias = node.args.get("alias") or exp.TableAlias(
            this=exp.to_identifier("paimon_changes", quoted=True)
        )
        node.replace(
            _carried(node, exp.Table(this=exp.to_identifier(hidden, quoted=True), alias=alias))
        )
        return True

    def _travel(
        self, node: exp.Table, table: Table, ident: Identifier | None
    ) -> tuple[TimeTravel | None, Mapping[str, str] | None]:
        """The time travel of a reference to `table`, and the table's own read options it honours.

        Its own options (``scan.snapshot-id`` … set on the table, `table_reads`) count when the
        reference asks for no time travel itself, as Java's batch reads honour them; not for a
        branch (`ident` None) nor for the table a write statement is writing (it reads the
        latest snapshot).
        """
        travel = travel_of(node, self.hints)
        if travel is not None or ident is None or self.table_reads is None:
            return travel, None
        if self.engine.writing == ident:
            return None, None
        own = self.table_reads(table)
        return (travel_of_options(own) if own else None), own

    def _incremental(
        self,
        node: exp.Table,
        table: Table,
        *,
        row_kinds: bool = False,
        own: Mapping[str, str] | None = None,
    ) -> bool:
        """An ``incremental-between`` hint: the changed rows, as an Arrow table.

        With `row_kinds` (``t$audit_log``) every change and its ``rowkind``; `own`: the table's
        own read options (`_travel`), read after the hint.
        """
        if self.incremental is None:
            return False
        for options in [*(self.hints(c) for c in node.comments or []), own]:
            content = None if options is None else self.incremental(table, options, row_kinds)
            if content is None:
                continue
            hidden = self.engine.register_arrow(content, table.name)
            alias = node.args.get("alias") or exp.TableAlias(
                this=exp.to_identifier(node.name, quoted=True)
            )
            strip_travel(node)
            node.replace(
                _carried(node, exp.Table(this=exp.to_identifier(hidden, quoted=True), alias=alias))
            )
            return True
        return False

    def _system(self, node: exp.Table) -> bool:
        """``"db"."t$snapshots"`` … and ``sys.tables`` / ``sys.partitions``.

        Metadata as Arrow tables.
        """
        catalog = self.engine.catalog
        if node.db == "sys" and "$" not in node.name:
            if "sys" in catalog.databases():
                return False  # a real database called sys wins
            content = self.system.catalog_table(catalog, node.name)
        else:
            base, name = self.system.split_name(node.name)
            database = self.engine.database_named(node.db)
            if database is None:
                return False
            try:
                table = self.engine.table_named(database, base)
            except DatabaseNotFoundError:
                return False
            _spell(node, table)
            if name == "audit_log" and self._incremental(node, table, row_kinds=True):
                return True
            travel = travel_of(node, self.hints)
            snapshot = None
            if travel is not None:
                snapshot = select_travel(table, travel)
            assert name is not None
            content = self.system.table(table, name, snapshot)
        hidden = self.engine.register_arrow(content, f"{node.db}.{node.name}")
        alias = node.args.get("alias") or exp.TableAlias(
            this=exp.to_identifier(node.name, quoted=True)
        )
        strip_travel(node)
        node.replace(
            _carried(node, exp.Table(this=exp.to_identifier(hidden, quoted=True), alias=alias))
        )
        return True

    def _replace(
        self,
        node: exp.Table,
        table: Table,
        snapshot: Snapshot | None,
        pinned: bool,
        inline: bool,
        *,
        first_rows: bool = False,
        latest_schema: bool = False,
        params: dict[str, Any] | None = None,
        used: list[object] | None = None,
    ) -> None:
        """Replace `node` by a read of `table` at `snapshot` (inlined SQL, else a source).

        `latest_schema`: a pinned snapshot read in the table's latest schema (Flink's hints).
        `used`: as `bind`'s.
        """
        engine = self.engine
        schema = (
            table.schema(snapshot.schema_id)
            if pinned and snapshot is not None and not latest_schema
            else table.latest_schema
        )
        alias = node.args.get("alias") or exp.TableAlias(
            this=exp.to_identifier(node.name, quoted=True)
        )
        predicate = table_predicate(
            node, set(schema.field_names), {f.name: f.type for f in schema.fields}
        )
        inline = inline and not table.latest_schema.options.get("scan.fallback-branch")
        kept = None
        if inline and params is not None and snapshot is not None:
            kept = self.inlined.get(table, snapshot, schema, predicate)
        entry: _Inlined | None = None
        if kept is not None:
            plan, entry = kept.plan, kept
            engine.reader.check_files(plan)
            params.update(kept.params)  # type: ignore[union-attr]
            # placed as kept only once per statement, for a caller that never changes it
            shared = used is not None and all(e is not kept for e in used)
            query = kept.query if shared else kept.query.copy()
            inlined: tuple[exp.Select, list[str]] | None = (query, [])
        else:
            plan = plan_scan(table, snapshot, predicate, schema)
            inlined = None
            if inline:
                before = set(params) if params is not None else set()
                inlined = engine.reader.inline(engine.con, plan, predicate, params)
                if inlined is not None and not inlined[1] and params is not None and snapshot:
                    entry = _Inlined(
                        table=table,
                        snapshot=snapshot,
                        schema=schema,
                        options=dict(table.latest_schema.options),
                        predicate=predicate,
                        plan=plan,
                        query=inlined[0].copy(),
                        params={k: v for k, v in params.items() if k not in before},
                    )
                    self.inlined.put(entry)
        if used is not None:
            used.append(entry if inlined is not None else None)
        if inlined is not None:
            query, registered = inlined
            engine.hold(registered)
            for name in registered:
                engine.log.name(name, table.name)
            engine.last[table.name] = plan
            engine.log.reading(plan)
            node.replace(_carried(node, exp.Subquery(this=query, alias=alias)))
            return
        source = engine.source(
            table, snapshot, pinned=pinned, first_rows=first_rows, latest_schema=latest_schema
        )
        hidden = engine.register(source, table.name)
        engine.last[table.name] = source
        strip_travel(node)
        node.replace(
            _carried(node, exp.Table(this=exp.to_identifier(hidden, quoted=True), alias=alias))
        )

    def explain(self, statement: exp.Expression) -> list[tuple[str, str, str]] | None:
        """EXPLAIN lines (scope, property, value) of a query over Paimon tables.

        None if it reads none.
        """
        engine = self.engine
        before = dict(engine.last)
        if not self.bind(statement):
            return None
        rows: list[tuple[str, str, str]] = []
        for name in dict.fromkeys(self.bound):
            last = engine.last.get(name)
            if last is None or last is before.get(name):
                continue
            plan = last if isinstance(last, ScanPlan) else None
            if plan is None:
                assert isinstance(last, PaimonSource)
                plan = plan_scan(last.table, last.snapshot())
                rows.append((name, "reader", "streamed (ORC/Avro/remote files)"))
            else:
                rows.append((name, "reader", "inlined SQL"))
            rows.extend((name, key, value) for key, value in explain_rows(plan))
        physical = engine.con.sql(explain_sql(statement)).fetchall()
        rows.extend(("duckdb", str(kind), str(text)) for kind, text in physical)
        return rows

    def scan(self, table: Table, travel: TimeTravel) -> Relation:
        """A relation over `table` at the snapshot `travel` selects.

        The latest when it selects none.
        """
        chosen = select_travel(table, travel)
        source = self.engine.source(table, chosen, pinned=True)
        hidden = self.engine.register(source, table.name)
        return self.engine.run(select_all(table_node(hidden)).sql("duckdb"))


#: (module, class) of the Python objects DuckDB scans (what ``con.register`` accepts).
_SCANNABLE = {
    ("pandas", "DataFrame"),
    ("polars", "DataFrame"),
    ("polars", "LazyFrame"),
    ("pyarrow", "Table"),
    ("pyarrow", "RecordBatch"),
    ("pyarrow", "RecordBatchReader"),
    ("pyarrow", "Dataset"),
    ("pyarrow", "FileSystemDataset"),
    ("pyarrow", "UnionDataset"),
    ("pyarrow", "InMemoryDataset"),
}


def scannable(value: object) -> bool:
    """Whether DuckDB can scan `value` as a table (a DataFrame, an Arrow table ...).

    >>> import pyarrow as pa
    >>> scannable(pa.table({"x": [1]})), scannable([1, 2])
    (True, False)
    """
    kind = type(value)
    return (kind.__module__.split(".")[0], kind.__name__) in _SCANNABLE


#: The table functions of `functions/debug.sql` whose first argument names a table.
_TABLE_ARGUMENT = frozenset({"paimon_diff", "paimon_explain_key"})


def _spell(node: exp.Table, table: Table) -> None:
    """Write `node`'s database and table as `table` spells them (they may differ in case)."""
    database, name = table.name.split(".", 1)
    if node.db != database:
        node.set("db", exp.to_identifier(database, quoted=True))
    base, sep, suffix = node.name.partition(SYSTEM_TABLE_SPLITTER)
    if base != name:
        quoted = node.this.args.get("quoted")
        node.set("this", exp.to_identifier(name + sep + suffix, quoted=quoted))


def _scanned(node: exp.Table) -> bool:
    """Whether `node` is read (FROM, JOIN, MERGE USING), not written or created."""
    parent = node.parent
    if isinstance(parent, (exp.From, exp.Join)):
        return True
    return isinstance(parent, exp.Merge) and parent.args.get("using") is node


def early_stop(node: exp.Table) -> bool:
    """A plain ``SELECT … FROM t [WHERE …] LIMIT n``.

    The streaming source stops after the first splits.
    """
    select = node.parent_select
    if select is None or select.args.get("limit") is None:
        return False
    blockers = ("order", "group", "joins", "distinct", "having", "qualify")
    if any(select.args.get(b) for b in blockers):
        return False
    return not any(select.find_all(exp.AggFunc, exp.Window))


__all__ = ["Binder", "SystemTables", "TimeTravel", "early_stop", "scannable"]
