"""``MERGE INTO`` a Paimon table: DuckDB's and Spark's statement, one snapshot per statement.

``MERGE INTO t [AS a] USING <table | (query)> [AS s] ON <cond> | USING (cols)`` then any number
of clauses, tried in order, the first whose condition holds acts on a row:

* ``WHEN MATCHED [AND c] THEN UPDATE SET col = e, … | UPDATE [SET *] | DELETE | DO NOTHING``
* ``WHEN NOT MATCHED [BY TARGET] [AND c] THEN INSERT [(cols)] VALUES (…) | INSERT [*] |
  INSERT BY NAME | DO NOTHING``
* ``WHEN NOT MATCHED BY SOURCE [AND c] THEN UPDATE SET … | DELETE | DO NOTHING`` (DuckDB's)

How it runs: one DuckDB query joins the target (its latest snapshot) with the source (a full
outer join) and computes, per pair, which clause acts and the row it leaves; the result is
materialised once, checked, then written as one commit:

* primary-key tables: the updated and inserted rows (``+U`` / ``+I``) and the deleted ones
  (``-D``) in one write (a key both deleted and inserted keeps the inserted row); UPDATE and
  DELETE clauses need a merge engine that applies them, as the UPDATE and DELETE statements;
* append tables with ``deletion-vectors.enabled``: the updated and deleted target rows marked in
  deletion vectors, the updated and inserted rows appended (`paimon_sql.sql.statements.append_dv`);
* other append tables: copy-on-write of the partitions holding an updated or deleted row (the
  rest of their rows are kept), plus the inserted rows; a concurrent commit to those partitions
  fails the statement instead of losing rows.

The target rows are those of the latest snapshot when the statement starts, as for UPDATE and
DELETE: a concurrent commit to a partition an append-table MERGE rewrites fails the MERGE (no
snapshot); on a primary-key table the MERGE's rows are written over a concurrent commit's.

Decisions where DuckDB and Spark differ or are silent:

* A target row matched by several source rows is an error when a MATCHED clause updates or deletes
  one of those pairs (DuckDB's message; Spark refuses such a statement too). Pairs no clause acts
  on are fine (DuckDB's rule).
* ``INSERT *`` / ``UPDATE SET *`` take the source's columns by position, as DuckDB does; Spark takes
  them by name. When the source has the target's column names in another order the two readings
  differ, so the statement is refused (write ``INSERT BY NAME`` or list the columns).
* UPDATE cannot change a primary-key column (Java's rule); ``SET k = t.k``, ``SET k = s.x`` under
  ``ON t.k = s.x`` (matched rows) and ``SET *`` may assign it its current value. A partition
  column outside the key may change: the row moves, as in Java (copy-on-write rewrites the
  partitions rows leave).
* ``THEN ERROR`` and ``RETURNING`` are refused by name.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import duckdb
from sqlglot import exp

from paimon_sql.commit.plan import refuse_row_rewrite
from paimon_sql.engine.context import hidden_name
from paimon_sql.errors import ExecutionError, SchemaError, SqlError, UnsupportedFeatureError
from paimon_sql.format.binary_row import encode_row
from paimon_sql.sql.statements import dml
from paimon_sql.sql.statements.append_dv import LiveRows, uses_vectors
from paimon_sql.sql.statements.target import assignments, write_table
from paimon_sql.sqlnodes import conjuncts, create_temp_table, drop, table_node
from paimon_sql.types import RowKind, duckdb_type_node

if TYPE_CHECKING:
    from paimon_sql.catalog import Identifier, Table
    from paimon_sql.engine.relation import Relation
    from paimon_sql.sql._context import Context

#: Hidden columns of the joined rows: the target row's number, the two presence markers, the
#: acting clause (1-based, NULL: none) and whether a ``SET *`` would move a key.
_RID, _T, _S, _ACTION, _MOVED, _KIND = (
    "__paimon_rid",
    "__paimon_t",
    "__paimon_s",
    "__paimon_action",
    "__paimon_moved",
    "__paimon_kind",
)

#: Prefix of the hidden columns holding a target row's partition values before the MERGE (an
#: append table's copy-on-write rewrites the partitions rows leave).
_OLD = "__paimon_old_"

_CARDINALITY = (
    "Invalid Input Error: MERGE INTO command cannot affect the same target row more than once. "
    "A target row of {table} matched more than one source row; ensure the source rows are "
    "deduplicated or the ON condition is specific enough"
)


@dataclasses.dataclass
class _Clause:
    """One WHEN clause: which rows it sees, its condition and what it does."""

    side: str  # "matched", "not_matched" (by target), "by_source"
    condition: exp.Expr | None
    action: str  # "update", "delete", "insert", "nothing"
    values: dict[str, exp.Expr] = dataclasses.field(default_factory=dict)
    #: SET * columns that must keep their value (key and partition columns)
    pinned: dict[str, exp.Expr] = dataclasses.field(default_factory=dict)


class _Merge:
    """One MERGE statement on `table`, its clauses resolved against the table's columns."""

    def __init__(self, ctx: Context, ident: Identifier, table: Table, statement: exp.Merge) -> None:
        self.ctx = ctx
        self.table = table
        self.schema = table.latest_schema
        #: The snapshot a keyed MERGE computes its rows from: taken before any read of the target
        #: is bound (`dml.read_before`).
        self.read_at = dml.read_before(table)
        target = statement.this
        self.alias = target.alias or ident.table
        self.ident = ident
        #: Written as ``UPDATE … FROM`` (`dml.update_from_as_merge`): errors speak of that.
        self.update_from = bool(statement.meta.get(dml.UPDATE_FROM))
        using = statement.args["using"]
        # DuckDB's name for a subquery without an alias
        self.source_alias = using.alias_or_name or "unnamed_subquery"
        if self.source_alias.lower() == self.alias.lower():
            raise SqlError(
                f"MERGE INTO {table.name}: the target and the source are both named "
                f"{self.alias!r}; give one an alias (MERGE INTO {table.name} AS t USING … AS s)"
            )
        self.using = using
        self.with_ = statement.args.get("with_")
        self.on = self._condition(statement)
        self.source_columns = self._source_columns()
        self.clauses = [self._clause(w) for w in statement.args["whens"].expressions]
        #: An append table with deletion vectors: its live rows with their file positions, read
        #: instead of the table (`paimon_sql.sql.statements.append_dv.LiveRows`).
        self.positions: str | None = None

    # --- reading the statement --------------------------------------------------------------------

    def _qualified(self, node: exp.Expr) -> exp.Expr:
        """`node` with ``db.table.col`` of the target or the source table as ``alias.col``."""
        copied = node.copy()
        for column in list(copied.find_all(exp.Column)):
            if column.args.get("db") is None:
                continue
            if (column.db, column.table) == (self.ident.database, self.ident.table):
                short = exp.column(column.name, table=self.alias, quoted=True)
            elif column.table == self.source_alias:
                # ``d.a.col`` of a source table ``d.a`` (already bound: a subquery named ``a``)
                short = exp.column(column.name, table=self.source_alias, quoted=True)
            else:
                continue
            if column is copied:  # the whole expression is the column (SET v = d.a.v)
                return short
            column.replace(short)
        return copied

    def _condition(self, statement: exp.Merge) -> exp.Expr:
        on = statement.args.get("on")
        if isinstance(on, exp.Expr):
            return self._qualified(on)
        names = statement.args.get("using_cond") or []
        if not names:
            raise SqlError("MERGE INTO needs ON <condition> or USING (columns)")
        return exp.and_(
            *[
                exp.EQ(
                    this=exp.column(n.name, table=self.alias, quoted=True),
                    expression=exp.column(n.name, table=self.source_alias, quoted=True),
                )
                for n in names
            ]
        )

    def _source_columns(self) -> list[str]:
        probe = exp.select(exp.Star()).from_(self.using.copy()).limit(0)
        if self.with_ is not None:
            probe.set("with_", self.with_.copy())
        self.ctx.bind(probe)
        try:
            return list(self.ctx.engine.con.sql(probe.sql("duckdb")).columns)
        except duckdb.Error as err:
            raise self.ctx.engine.translate(err) from err

    def _field(self, name: str) -> str:
        return dml.field_named(self.table, name, "MERGE INTO")

    def _clause(self, when: exp.When) -> _Clause:
        side = (
            "by_source"
            if when.args.get("source")
            else ("matched" if when.args.get("matched") else "not_matched")
        )
        condition = when.args.get("condition")
        condition = None if condition is None else self._qualified(condition)
        then = when.args["then"]
        if isinstance(then, exp.Var):
            word = then.name.upper()
            if word == "DELETE" and side != "not_matched":
                return _Clause(side, condition, "delete")
            if word == "DO NOTHING":
                return _Clause(side, condition, "nothing")
            raise SqlError(f"MERGE: WHEN {_side_words(side)} THEN {word} is not allowed")
        if isinstance(then, exp.Update) and side != "not_matched":
            return self._update(side, condition, then)
        if isinstance(then, exp.Insert) and side == "not_matched":
            return _Clause(side, condition, "insert", self._insert(then))
        raise SqlError(
            f"MERGE: WHEN {_side_words(side)} cannot {then.key.upper()}; WHEN MATCHED and WHEN "
            "NOT MATCHED BY SOURCE update or delete, WHEN NOT MATCHED inserts"
        )

    def _source(self, name: str) -> exp.Column:
        return exp.column(name, table=self.source_alias, quoted=True)

    def _positional(self, what: str) -> dict[str, exp.Expr]:
        """``INSERT *`` / ``UPDATE SET *``: the source's columns by position (DuckDB's reading)."""
        fields = list(self.schema.field_names)
        source = self.source_columns
        if len(source) != len(fields):
            raise ExecutionError(
                f'Binder Error: table "{self.table.name}" has {len(fields)} columns but '
                f"{len(source)} values were supplied ({what} takes the source's columns by "
                "position)"
            )
        lowered = [c.lower() for c in source]
        if sorted(lowered) == sorted(f.lower() for f in fields) and lowered != [
            f.lower() for f in fields
        ]:
            raise SqlError(
                f"MERGE … {what}: the source has the columns of {self.table.name} in another "  # noqa: S608 - a message
                f"order ({', '.join(source)}); DuckDB takes them by position, Spark by name. "
                "Write INSERT BY NAME, or list the columns (INSERT (a, b) VALUES (s.a, s.b), "
                "UPDATE SET a = s.a)"
            )
        out: dict[str, exp.Expr] = {}
        for f, c in zip(fields, source, strict=True):
            out[f] = self._source(c)
        return out

    def _insert(self, then: exp.Insert) -> dict[str, exp.Expr]:
        columns = then.this
        values = then.args.get("expression")
        if isinstance(columns, exp.Star) or (columns is None and not values):
            return self._positional("INSERT *")
        if isinstance(columns, exp.Tuple) and _is_by_name(columns):
            out: dict[str, exp.Expr] = {}
            for c in self.source_columns:
                out[self._field(c)] = self._source(c)
            return out
        names = (
            [self._field(c.name) for c in columns.expressions]
            if isinstance(columns, exp.Tuple)
            else list(self.schema.field_names)
        )
        given = values.expressions if isinstance(values, exp.Tuple) else []
        if len(given) != len(names):
            raise ExecutionError(
                f'Binder Error: Column name/value mismatch for insert on "{self.table.name}": '  # noqa: S608 - a message
                f"expected {len(names)} columns but {len(given)} values were supplied"
            )
        if len(set(names)) != len(names):
            raise SqlError(f"MERGE … INSERT names a column twice: {', '.join(names)}")
        return {n: self._qualified(v) for n, v in zip(names, given, strict=True)}

    def fixed(self) -> list[str]:
        """The columns an UPDATE clause cannot change: the primary key, as Java's MERGE.

        A partition column outside the key may change: the row moves to another partition.
        """
        return list(self.schema.primary_keys)

    def _update(self, side: str, condition: exp.Expr | None, then: exp.Update) -> _Clause:
        pairs = assignments(then.expressions, self.table.name, "MERGE … UPDATE")
        fixed = set(self.fixed())
        if not pairs or any(isinstance(a, exp.Star) for a in pairs):
            star = self._positional("UPDATE SET *")
            values = {f: v for f, v in star.items() if f not in fixed}
            pinned = {f: v for f, v in star.items() if f in fixed}
            return _Clause(side, condition, "update", values, pinned)
        values = {}
        for eq in pairs:
            if not isinstance(eq, exp.EQ) or not isinstance(eq.this, exp.Column):
                raise SqlError(f"MERGE … UPDATE SET expects column = value, got {eq.sql()!r}")
            name = self._field(eq.this.name)
            value = self._qualified(eq.expression)
            if name in self.schema.primary_keys and self._unchanged(side, name, value):
                continue  # SET k = s.k with ON t.k = s.k: the key keeps its value (Java allows it)
            if name in fixed:
                raise SchemaError(
                    f"MERGE … UPDATE cannot change primary-key column {name!r} of {self.table.name}"
                )
            values[name] = value
        return _Clause(side, condition, "update", values)

    def _unchanged(self, side: str, name: str, value: exp.Expr) -> bool:
        """Whether assigning `value` to target column `name` keeps its value on every row.

        ``SET k = t.k``, or, on matched rows, ``SET k = s.x`` where the ON condition requires
        ``t.k = s.x`` (Spark's MERGE allows both on a key column).
        """
        if _names_column(value, self.alias, name):
            return True
        if side != "matched" or not isinstance(value, exp.Column):
            return False
        for conjunct in conjuncts(self.on):
            if not isinstance(conjunct, exp.EQ):
                continue
            left, right = conjunct.this, conjunct.expression
            for mine, theirs in ((left, right), (right, left)):
                if _names_column(mine, self.alias, name) and _names_column(
                    theirs, value.table, value.name
                ):
                    return True
        return False

    # --- the joined rows --------------------------------------------------------------------------

    def _present(self, side: str) -> exp.Expr:
        t = exp.column(_T, table=self.alias, quoted=True)
        s = exp.column(_S, table=self.source_alias, quoted=True)
        if side == "matched":
            return exp.and_(t, s)
        if side == "not_matched":
            return exp.and_(s, exp.Is(this=t, expression=exp.null()))
        return exp.and_(t, exp.Is(this=s, expression=exp.null()))

    def _when(self, clause: _Clause) -> exp.Expr:
        present = self._present(clause.side)
        if clause.condition is None:
            return present
        return exp.and_(present, exp.func("COALESCE", clause.condition.copy(), exp.false()))

    def joined(self) -> exp.Select:
        """Every (target, source) pair of the full outer join, the acting clause and its row."""
        # an append table's rows are told apart by their number; a primary-key table's by the key
        # (no window over the whole table)
        rid: exp.Expr = (
            exp.cast(exp.null(), "BIGINT")
            if self.schema.primary_keys
            else exp.Window(this=exp.RowNumber())
        )
        target_rows = exp.select(
            exp.Star(),
            exp.alias_(exp.true(), _T, quoted=True),
            exp.alias_(rid, _RID, quoted=True),
        ).from_(
            table_node(self.ident.database, self.ident.table)
            if self.positions is None
            else exp.table_(self.positions, quoted=True)
        )
        source_rows = exp.select(exp.Star(), exp.alias_(exp.true(), _S, quoted=True)).from_(
            self.using.copy()
        )
        whens = [self._when(c) for c in self.clauses]
        action = exp.Case(
            ifs=[exp.If(this=w.copy(), true=exp.Literal.number(i + 1)) for i, w in enumerate(whens)]
        )
        outputs: list[exp.Expr] = [
            exp.alias_(action, _ACTION, quoted=True),
            exp.column(_RID, table=self.alias, quoted=True),
            exp.column(_T, table=self.alias, quoted=True),
            exp.column(_S, table=self.source_alias, quoted=True),
        ]
        if self.positions is not None:
            outputs += [
                exp.column(c, table=self.alias, quoted=True) for c in (LiveRows.FILE, LiveRows.POS)
            ]
        elif not self.schema.primary_keys:  # copy-on-write: the partitions the rows come from
            outputs += [
                exp.alias_(exp.column(p, table=self.alias, quoted=True), f"{_OLD}{i}", quoted=True)
                for i, p in enumerate(self.schema.partition_keys)
            ]
        for f in self.schema.fields:
            kept = exp.column(f.name, table=self.alias, quoted=True)
            values = [self._value(c, f.name) for c in self.clauses]
            column: exp.Expr = kept
            if any(v is not None for v in values):
                # the first clause that holds decides, also for a column it leaves as it is
                to = duckdb_type_node(f.type)
                ifs = [
                    exp.If(this=when.copy(), true=kept.copy() if v is None else exp.cast(v, to))
                    for when, v in zip(whens, values, strict=True)
                ]
                column = exp.Case(ifs=ifs, default=kept)
            outputs.append(exp.alias_(column, f.name, quoted=True))
        moved = [
            exp.and_(
                when.copy(),
                exp.NullSafeNEQ(
                    this=exp.cast(v.copy(), duckdb_type_node(self.schema.field(f).type)),
                    expression=exp.column(f, table=self.alias, quoted=True),
                ),
            )
            for clause, when in zip(self.clauses, whens, strict=True)
            for f, v in clause.pinned.items()
        ]
        moved_flag = exp.func("COALESCE", exp.or_(*moved), exp.false()) if moved else exp.false()
        outputs.append(exp.alias_(moved_flag, _MOVED, quoted=True))
        query = (
            exp.select(*outputs)
            .from_(exp.Subquery(this=target_rows, alias=exp.TableAlias(this=_quoted(self.alias))))
            .join(
                exp.Subquery(
                    this=source_rows, alias=exp.TableAlias(this=_quoted(self.source_alias))
                ),
                on=self.on.copy(),
                join_type="FULL OUTER",
            )
        )
        if self.with_ is not None:
            query.set("with_", self.with_.copy())
        return query

    def _value(self, clause: _Clause, name: str) -> exp.Expr | None:
        """The value `clause` gives column `name` (None: the target row's own)."""
        if clause.action == "insert":
            return clause.values[name].copy() if name in clause.values else exp.null()
        if clause.action == "update" and name in clause.values:
            return clause.values[name].copy()
        return None

    def indexes(self, *actions: str, sides: tuple[str, ...] = ()) -> list[int]:
        """The 1-based numbers of the clauses doing one of `actions` (on one of `sides`)."""
        return [
            i + 1
            for i, c in enumerate(self.clauses)
            if c.action in actions and (not sides or c.side in sides)
        ]


def _is_by_name(columns: exp.Tuple) -> bool:
    """Sqlglot reads DuckDB's ``INSERT BY NAME`` as ``INSERT ("BY" AS NAME)``."""
    items = columns.expressions
    return (
        len(items) == 1
        and isinstance(items[0], exp.Alias)
        and items[0].this.name.upper() == "BY"
        and items[0].alias.upper() == "NAME"
    )


def _side_words(side: str) -> str:
    return {
        "matched": "MATCHED",
        "not_matched": "NOT MATCHED",
        "by_source": "NOT MATCHED BY SOURCE",
    }[side]


def _quoted(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _in(column: str, values: list[int]) -> exp.Expr:
    if not values:
        return exp.false()
    return exp.In(
        this=exp.column(column, quoted=True), expressions=[exp.Literal.number(v) for v in values]
    )


def merge(ctx: Context, ident: Identifier, statement: exp.Merge) -> Relation:
    """MERGE INTO a Paimon table (see the module): the number of rows inserted, updated, deleted."""
    if statement.args.get("returning") is not None:
        raise UnsupportedFeatureError(
            "MERGE … RETURNING on a Paimon table is not supported; run a SELECT of the rows "
            "before or after the MERGE"
        )
    table = write_table(ctx, ident, statement, "MERGE")
    plan = _Merge(ctx, ident, table, statement)
    pk = bool(plan.schema.primary_keys)
    if not pk:
        refuse_row_rewrite(plan.schema.options, table.name, "MERGE INTO")
    if pk and plan.indexes("update"):
        dml.row_level_supported(table, "UPDATE")
    if pk and plan.indexes("delete"):
        dml.row_level_supported(table, "DELETE")
    live = LiveRows(ctx, table) if uses_vectors(table) else None
    try:
        return _merge(ctx, plan, pk, live)
    finally:
        if live is not None:
            live.close()


def _merge(ctx: Context, plan: _Merge, pk: bool, live: LiveRows | None) -> Relation:
    table = plan.table
    if live is not None and live.name is None:  # nothing to match: the same as an empty table
        live.name = hidden_name("__paimon_merge_empty_")
        empty = exp.select(
            *[
                exp.alias_(exp.cast(exp.null(), duckdb_type_node(f.type)), f.name, quoted=True)
                for f in plan.schema.fields
            ],
            exp.alias_(exp.cast(exp.null(), "BIGINT"), LiveRows.FILE, quoted=True),
            exp.alias_(exp.cast(exp.null(), "BIGINT"), LiveRows.POS, quoted=True),
        ).where(exp.false())
        ctx.engine.con.execute(create_temp_table(live.name, empty).sql("duckdb"))
        live.temporary = True
    plan.positions = None if live is None else live.name
    pinned = None if pk or live is not None else dml.live_files(table)
    joined = plan.joined()
    ctx.bind(joined)
    acting = plan.indexes("update", "delete", "insert")
    # kept: the pairs a clause acts on, the matched pairs (the cardinality check) and, for an
    # append table's copy-on-write, every target row
    target = exp.column(_T, quoted=True)
    keep = exp.or_(
        exp.not_(exp.Is(this=exp.column(_ACTION, quoted=True), expression=exp.null())),
        exp.and_(target, exp.column(_S, quoted=True)) if pk or live is not None else target,
    )
    staged = hidden_name("__paimon_merge_")
    name = exp.Table(this=_quoted(staged))
    con = ctx.engine.con
    try:
        select = exp.select(exp.Star()).from_(exp.Subquery(this=joined)).where(keep)
        try:
            con.execute(create_temp_table(staged, select).sql("duckdb"))
        except dml.BAD_VALUE as err:
            raise SchemaError(
                f"a value of the MERGE does not fit its column of {table.name}: "
                f"{ctx.engine.translate(err)}"
            ) from err
        except duckdb.Error as err:
            raise ctx.engine.translate(err) from err
        _check(ctx, plan, name)
        (changed,) = ctx.engine.fetch(
            exp.select(exp.Count(this=exp.Star())).from_(name.copy()).where(_in(_ACTION, acting))
        )[0]
        if changed:
            if pk:
                _write_keyed(ctx, plan, name)
            elif live is not None:
                _write_vectors(ctx, plan, name, live)
            else:
                _write_copy(ctx, plan, name, pinned)
    finally:
        con.execute(drop("TABLE", table_node(staged)).sql("duckdb"))
    return dml.count(ctx, int(changed))


def _check(ctx: Context, plan: _Merge, name: exp.Table) -> None:
    """A target row changed by several source rows, or a ``SET *`` moving a key: refused."""
    changing = plan.indexes("update", "delete", sides=("matched",))
    if changing:
        keys = plan.schema.primary_keys  # (a MERGE never changes them)
        rows = [exp.column(k, quoted=True) for k in keys] or [exp.column(_RID, quoted=True)]
        probe = (
            exp.select(exp.Literal.number(1))
            .from_(name.copy())
            .where(exp.and_(exp.column(_T, quoted=True), exp.column(_S, quoted=True)))
            .group_by(*rows)
            .having(
                exp.and_(
                    exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)),
                    exp.func("bool_or", _in(_ACTION, changing)),
                )
            )
            .limit(1)
        )
        if ctx.engine.fetch(probe):  # one query, whichever statement it was written as
            if plan.update_from:
                raise SqlError(
                    f"UPDATE {plan.table.name} … FROM: a row of {plan.table.name} matched more "
                    "than one row of FROM (DuckDB would take one of them at random; paimon-sql "
                    "refuses); make the WHERE condition match one row, or deduplicate the FROM rows"
                )
            raise ExecutionError(_CARDINALITY.format(table=plan.table.name))
    moved = (
        exp.select(exp.Literal.number(1)).from_(name.copy()).where(exp.column(_MOVED, quoted=True))
    )
    if ctx.engine.fetch(moved.limit(1)):
        raise SchemaError(
            f"MERGE … UPDATE SET * would change primary-key or partition column(s) "
            f"{', '.join(plan.fixed())} of {plan.table.name}; list the columns to update"
        )


def _names_column(node: exp.Expr, table: str, name: str) -> bool:
    """Whether `node` is the column `table`.`name` (names compared as DuckDB does, any case)."""
    return (
        isinstance(node, exp.Column)
        and node.name.lower() == name.lower()
        and node.table.lower() == table.lower()
    )


def _write_keyed(ctx: Context, plan: _Merge, name: exp.Table) -> None:
    """Primary-key table: upserts and deletions in one write (`RowKind` per row)."""
    deletes = plan.indexes("delete")
    upserts = plan.indexes("update", "insert")
    inserts = plan.indexes("insert")
    is_delete = _in(_ACTION, deletes)
    kind = exp.Case(
        ifs=[
            exp.If(this=is_delete.copy(), true=exp.Literal.number(int(RowKind.DELETE))),
            exp.If(this=_in(_ACTION, inserts), true=exp.Literal.number(int(RowKind.INSERT))),
        ],
        default=exp.Literal.number(int(RowKind.UPDATE_AFTER)),
    )
    keys = [exp.column(k, quoted=True) for k in plan.schema.primary_keys]
    upserted = exp.Window(this=exp.func("bool_or", exp.not_(is_delete.copy())), partition_by=keys)
    select = (
        exp.select(
            *[exp.column(f, quoted=True) for f in plan.schema.field_names],
            exp.alias_(kind, _KIND, quoted=True),
        )
        .from_(name.copy())
        .where(_in(_ACTION, [*deletes, *upserts]))
        # a key the statement deletes and inserts keeps the inserted row
        .qualify(exp.not_(exp.and_(is_delete.copy(), upserted)))
    )
    dml.write_rows(
        ctx, plan.table, select, kind=exp.column(_KIND, quoted=True), read_at=plan.read_at
    )


def _write_vectors(ctx: Context, plan: _Merge, name: exp.Table, live: LiveRows) -> None:
    """Append table with deletion vectors: mark the updated and deleted rows, add the new ones."""
    changing = plan.indexes("update", "delete")
    written = plan.indexes("update", "insert")
    hits = []
    if changing:
        query = (
            exp.select(
                exp.column(LiveRows.FILE, quoted=True), exp.column(LiveRows.POS, quoted=True)
            )
            .from_(name.copy())
            .where(exp.and_(exp.column(_T, quoted=True), _in(_ACTION, changing)))
            .distinct()
        )
        hits = ctx.engine.fetch(query)
    new_rows = None
    if written:
        new_rows = (
            exp.select(*[exp.column(f, quoted=True) for f in plan.schema.field_names])
            .from_(name.copy())
            .where(_in(_ACTION, written))
        )
    live.commit(hits, new_rows)


def _write_copy(ctx: Context, plan: _Merge, name: exp.Table, pinned: Any) -> None:
    """Append table: rewrite the partitions holding changed rows, add the inserted rows."""
    schema = plan.schema
    changing = plan.indexes("update", "delete")
    written = plan.indexes("update", "insert")
    parts = list(schema.partition_keys)
    unchanged = exp.and_(
        exp.column(_T, quoted=True),
        exp.or_(
            exp.Is(this=exp.column(_ACTION, quoted=True), expression=exp.null()),
            _in(_ACTION, plan.indexes("nothing")),
        ),
    )
    touched: set[bytes] | None = None
    rewrite = False
    where: exp.Expr = _in(_ACTION, written)
    if changing:
        changed_rows = exp.select(exp.Literal.number(1)).from_(name.copy())
        rewrite = bool(ctx.engine.fetch(changed_rows.where(_in(_ACTION, changing)).limit(1)))
    if rewrite and parts:
        part_types = [schema.field(p).type for p in parts]
        # the partitions the changed rows leave (an updated row may land in another one, which
        # then only gains a file)
        query = (
            exp.select(*[exp.column(f"{_OLD}{i}", quoted=True) for i in range(len(parts))])
            .from_(name.copy())
            .where(_in(_ACTION, changing))
            .distinct()
        )
        values = ctx.engine.fetch(query)
        touched = {encode_row(row, part_types) for row in values}
        in_touched = (
            exp.Tuple(expressions=[exp.column(p, quoted=True) for p in parts])
            if len(parts) > 1
            else exp.column(parts[0], quoted=True)
        )
        options = [
            exp.Tuple(expressions=[dml.lit(v) for v in row]) if len(parts) > 1 else dml.lit(row[0])
            for row in values
        ]
        unchanged = exp.and_(unchanged, exp.In(this=in_touched, expressions=options))
    if rewrite:
        where = exp.or_(where, unchanged)
    rid = exp.column(_RID, quoted=True)
    once = exp.or_(
        exp.Is(this=rid, expression=exp.null()),
        exp.EQ(
            this=exp.Window(this=exp.RowNumber(), partition_by=[rid.copy()]),
            expression=exp.Literal.number(1),
        ),
    )
    select = (
        exp.select(*[exp.column(f, quoted=True) for f in schema.field_names])
        .from_(name.copy())
        .where(where)
        .qualify(once)
    )
    overwrite = None
    if rewrite:
        table = plan.table

        def overwrite(_messages: Any) -> Any:
            return dml.pinned_overwrite(table, pinned, touched)

    dml.write_rows(ctx, plan.table, select, overwrite=overwrite)


__all__ = ["merge"]
