"""ALTER TABLE as pure schema changes, and how they evolve a `TableSchema` (paimon-format §2).

The SQL surface (`paimon_sql.sql.ddl.parse_alter_table`) turns a statement into an `AlterTable`;
`apply_alter` checks each change against the current schema and returns the next one. No SQL, no
I/O: the catalog writes the result as ``schema-<id+1>``.

>>> from paimon_sql.format.schema import TableSchema
>>> from paimon_sql.types import parse_type
>>> n = DataField(id=0, name="n", type=parse_type("INT"))
>>> s0 = TableSchema(id=0, fields=(n,), highest_field_id=0)
>>> s1 = apply_alter(s0, AlterTable(identifier=(None, "t"), changes=(
...     UpdateColumnType("n", parse_type("BIGINT")), RenameColumn("n", "total"))))
>>> [(f.id, f.name, type_sql(f.type)) for f in s1.fields]
[(0, 'total', 'BIGINT')]
>>> apply_alter(s1, AlterTable(identifier=(None, "t"), changes=(
...     UpdateColumnType("total", parse_type("INT")),)))  # doctest: +ELLIPSIS
Traceback (most recent call last):
paimon_sql.errors.SchemaError: cannot change column 'total' from BIGINT to INT: only widening ...
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from paimon_sql.errors import SchemaError
from paimon_sql.format.option_registry import normalise_options, validate_options
from paimon_sql.format.options import CoreOptions
from paimon_sql.format.schema import CURRENT_VERSION
from paimon_sql.types import (
    INTEGER_DIGITS,
    INTEGER_RANK,
    DataField,
    FieldIds,
    refuse_case_clashes,
    type_sql,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from paimon_sql.format.schema import TableSchema
    from paimon_sql.types import DataType

__all__ = [
    "IMMUTABLE_OPTIONS",
    "AddColumn",
    "AlterTable",
    "DropColumn",
    "MoveColumn",
    "Position",
    "RenameColumn",
    "RenameTable",
    "ResetOptions",
    "SchemaChange",
    "SetOptions",
    "UpdateColumnComment",
    "UpdateColumnType",
    "UpdateComment",
    "apply_alter",
]


# ------------------------------------------------------------------------------- the changes


@dataclass(frozen=True, slots=True)
class Position:
    """Where a column goes: FIRST, or AFTER `column`."""

    first: bool = False
    after: str | None = None


@dataclass(frozen=True, slots=True)
class SetOptions:
    """SET ('k' = 'v') / SET TBLPROPERTIES."""

    options: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ResetOptions:
    """RESET ('k') / UNSET TBLPROPERTIES [IF EXISTS].

    `must_exist`: a key that is not set is an error (Spark's UNSET TBLPROPERTIES without IF
    EXISTS), not a change of nothing.
    """

    keys: tuple[str, ...]
    must_exist: bool = False


@dataclass(frozen=True, slots=True)
class UpdateComment:
    """The table's comment (None removes it).

    COMMENT ON TABLE, and the ``comment`` key of SET / RESET, which Flink and Spark treat as the
    comment, not as an option.
    """

    comment: str | None


@dataclass(frozen=True, slots=True)
class AddColumn:
    """ADD [COLUMN] name TYPE [COMMENT …] [FIRST | AFTER x]; nested ids are given when applied."""

    name: str
    type: DataType
    description: str | None = None
    position: Position | None = None


@dataclass(frozen=True, slots=True)
class DropColumn:
    """DROP [COLUMN] name."""

    name: str


@dataclass(frozen=True, slots=True)
class RenameColumn:
    """RENAME [COLUMN] old TO new."""

    old: str
    new: str


@dataclass(frozen=True, slots=True)
class UpdateColumnType:
    """ALTER COLUMN c TYPE t / MODIFY c t (NOT NULL in `type` is part of the change)."""

    name: str
    type: DataType


@dataclass(frozen=True, slots=True)
class UpdateColumnComment:
    """ALTER COLUMN c COMMENT '…'."""

    name: str
    comment: str | None


@dataclass(frozen=True, slots=True)
class MoveColumn:
    """ALTER COLUMN c FIRST | AFTER x."""

    name: str
    position: Position


@dataclass(frozen=True, slots=True)
class RenameTable:
    """RENAME TO [db.]t: a catalog change, not a schema change (`apply_alter` ignores it)."""

    identifier: tuple[str | None, str]


SchemaChange = (
    SetOptions | ResetOptions | AddColumn | DropColumn | RenameColumn | UpdateColumnType
    | UpdateColumnComment | MoveColumn | RenameTable | UpdateComment
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class AlterTable:
    """A parsed ALTER TABLE: the table and its changes, in statement order."""

    identifier: tuple[str | None, str]
    if_exists: bool = False
    changes: tuple[SchemaChange, ...] = ()


# ------------------------------------------------------------------------- schema evolution


#: Options that name columns (comma lists): renames follow them, drops are refused while they do.
_COLUMN_OPTIONS = (
    "bucket-key", "sequence.field", "rowkind.field", "record-level.time-field",
    "changelog-producer.row-deduplicate-ignore-fields",
)  # fmt: skip
#: Options fixed at creation (Paimon marks them immutable): SET/RESET may not change them.
IMMUTABLE_OPTIONS = frozenset(
    {
        "primary-key",
        "partition",
        "bucket-key",
        "merge-engine",
        "sequence.field",
        "rowkind.field",
        "data-evolution.enabled",  # @Immutable in Java 1.3's CoreOptions
    }
)


@dataclass
class _Draft:
    """The schema being evolved (local, mutable; `apply_alter` returns a frozen TableSchema)."""

    fields: list[DataField]
    highest: int
    primary_keys: list[str]
    partition_keys: tuple[str, ...]
    options: dict[str, str]
    comment: str | None = None

    def index(self, name: str) -> int:
        for i, f in enumerate(self.fields):
            if f.name == name:
                return i
        near = difflib.get_close_matches(name, [f.name for f in self.fields], n=2)
        hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
        raise SchemaError(f"column {name!r} does not exist{hint}")

    def place(self, column: DataField, position: Position | None) -> None:
        if position is None:
            self.fields.append(column)
        elif position.first:
            self.fields.insert(0, column)
        else:
            self.fields.insert(self.index(position.after or "") + 1, column)


def _column_refs(options: Mapping[str, str], name: str) -> list[str]:
    keys = [k for k in _COLUMN_OPTIONS if name in _names(options.get(k, ""))]
    keys += [k for k in options if k.startswith("fields.") and name in _names(_field_part(k))]
    keys += [k for k, v in options.items() if k.endswith(".sequence-group") and name in _names(v)]
    keys += [
        k
        for k, v in options.items()
        if k.startswith("file-index.") and k.endswith(".columns") and name in _names(v)
    ]
    return list(dict.fromkeys(keys))


def _names(value: str) -> list[str]:
    return [v.strip() for v in value.split(",")]


def _field_part(key: str) -> str:
    return key[len("fields.") :].rsplit(".", 1)[0] if key.count(".") >= 2 else ""


def _renamed(value: str, old: str, new: str) -> str:
    return ",".join(new if v == old else v for v in _names(value))


def _rename_in_options(options: dict[str, str], old: str, new: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in options.items():
        if key.startswith("fields.") and old in _names(_field_part(key)):
            key = "fields." + _renamed(_field_part(key), old, new) + "." + key.rsplit(".", 1)[1]
        if (
            key in _COLUMN_OPTIONS
            or key.endswith(".sequence-group")
            or (key.startswith("file-index.") and key.endswith(".columns"))
        ):
            value = _renamed(value, old, new)
        out[key] = value
    return out


def _reassign(t: DataType, ids: FieldIds) -> DataType:
    """The same type with fresh ids for its nested ROW fields."""
    return replace(
        t,
        element=_reassign(t.element, ids) if t.element else None,
        key=_reassign(t.key, ids) if t.key else None,
        value=_reassign(t.value, ids) if t.value else None,
        fields=tuple(replace(f, id=ids.take(), type=_reassign(f.type, ids)) for f in t.fields),
    )


def _widens(old: DataType, new: DataType) -> bool:
    """True when every `old` value fits `new` exactly (the type changes we allow)."""
    o, n = old.root, new.root
    if o in INTEGER_RANK and n in INTEGER_RANK:
        return INTEGER_RANK[n] >= INTEGER_RANK[o]
    if o in INTEGER_RANK and n == "DECIMAL":
        return (new.precision or 0) - (new.scale or 0) >= INTEGER_DIGITS[o]
    if o == "DECIMAL" and n == "DECIMAL":
        whole = (old.precision or 0) - (old.scale or 0)
        return (new.scale or 0) >= (old.scale or 0) and (new.precision or 0) - (
            new.scale or 0
        ) >= whole
    if (o, n) in {("FLOAT", "DOUBLE"), ("TINYINT", "FLOAT"), ("SMALLINT", "FLOAT")}:
        return True
    if o in ("TINYINT", "SMALLINT", "INT") and n == "DOUBLE":
        return True
    if (o in ("CHAR", "VARCHAR") and n == "VARCHAR") or (
        o in ("BINARY", "VARBINARY") and n == "VARBINARY"
    ):
        return (new.length or 0) >= (old.length or 0)
    if o == n and o in ("TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
        return (new.precision or 0) >= (old.precision or 0)
    return type_sql(old.with_nullable(True)) == type_sql(new.with_nullable(True))


def _not_a_key(d: _Draft, name: str, verb: str) -> None:
    if name in d.partition_keys:
        raise SchemaError(f"cannot {verb} partition column {name!r}: partition keys never change")
    if name in d.primary_keys and verb != "rename":
        raise SchemaError(f"cannot {verb} primary-key column {name!r}: primary keys never change")


def _set_options(d: _Draft, change: SetOptions) -> None:
    # Each value is checked (type, range, known key) before the rules about changing it read it.
    for key, value in normalise_options(change.options).items():
        old = d.options.get(key)
        if key in IMMUTABLE_OPTIONS and old != value.strip():
            raise SchemaError(
                f"option {key!r} is fixed when the table is created; it cannot change"
            )
        if key == "bucket":
            old_bucket, new_bucket = CoreOptions(d.options).bucket, int(value)
            if (old_bucket > 0) != (new_bucket > 0) or new_bucket < -2:
                raise SchemaError(
                    f"cannot change 'bucket' from {old_bucket} to {value}: only a fixed bucket "
                    "count can be rescaled to another fixed count"
                )
        d.options[key] = value


def _reset_options(d: _Draft, change: ResetOptions) -> None:
    for key in change.keys:
        if key in IMMUTABLE_OPTIONS or key == "bucket":
            raise SchemaError(f"option {key!r} cannot be reset")
        if change.must_exist and key not in d.options:
            raise SchemaError(
                f"option {key!r} is not set on the table, so it cannot be unset; set options: "
                f"{', '.join(sorted(d.options)) or 'none'} (UNSET TBLPROPERTIES IF EXISTS skips "
                "keys that are not set)"
            )
        d.options.pop(key, None)


def _add_column(d: _Draft, change: AddColumn) -> None:
    if change.name in {f.name for f in d.fields}:
        raise SchemaError(f"column {change.name!r} already exists")
    refuse_case_clashes(
        [*(f.name for f in d.fields), change.name], "of the table", "choose another name"
    )
    if not change.type.nullable:
        raise SchemaError(
            f"new column {change.name!r} cannot be NOT NULL: existing rows have no value"
        )
    ids = FieldIds(d.highest + 1)
    column_id = ids.take()
    column = DataField(
        id=column_id,
        name=change.name,
        type=_reassign(change.type, ids),
        description=change.description,
    )
    d.highest = ids.next_id - 1
    d.place(column, change.position)


def _drop_column(d: _Draft, change: DropColumn) -> None:
    index = d.index(change.name)
    _not_a_key(d, change.name, "drop")
    refs = _column_refs(d.options, change.name)
    if refs:
        raise SchemaError(f"column {change.name!r} is used by options {refs}; change them first")
    if len(d.fields) == 1:
        raise SchemaError(f"cannot drop {change.name!r}, the last column")
    del d.fields[index]


def _rename_column(d: _Draft, change: RenameColumn) -> None:
    index = d.index(change.old)
    _not_a_key(d, change.old, "rename")
    if change.new in {f.name for f in d.fields}:
        raise SchemaError(f"cannot rename {change.old!r} to {change.new!r}: that column exists")
    others = [f.name for f in d.fields if f.name != change.old]
    refuse_case_clashes([*others, change.new], "of the table", "choose another name")
    d.fields[index] = replace(d.fields[index], name=change.new)
    d.primary_keys = [change.new if k == change.old else k for k in d.primary_keys]
    d.options = _rename_in_options(d.options, change.old, change.new)


def _update_type(d: _Draft, change: UpdateColumnType) -> None:
    index = d.index(change.name)
    _not_a_key(d, change.name, "change the type of")
    old = d.fields[index].type
    if old.nullable and not change.type.nullable:
        raise SchemaError(
            f"cannot make column {change.name!r} NOT NULL: existing rows may hold nulls"
        )
    ids = FieldIds(d.highest + 1)
    new_type = _evolved(old, change.type, ids, f"column {change.name!r}")
    d.highest = ids.next_id - 1
    d.fields[index] = replace(d.fields[index], type=new_type)


_WIDENING = (
    "only widening changes are allowed (INT→BIGINT, FLOAT→DOUBLE, DECIMAL precision up, VARCHAR "
    "length up, …)"
)


def _evolved(old: DataType, new: DataType, ids: FieldIds, where: str) -> DataType:
    """`old` changed to `new`, nested ROW fields keeping their ids (Flink's MODIFY of a column).

    Inside a ROW (also in an ARRAY or MAP) fields are matched by name as Flink's catalog
    matches them: a field only in `new` is added with the next id (nullable, as a new column),
    one only in `old` is dropped, the fields in both keep their order and change type by the
    same widening rules as a column. Readers follow the ids, so a field dropped and added again
    is NULL in the rows written before.

    >>> from paimon_sql.types import parse_type
    >>> old = parse_type({"type": "ROW", "fields": [{"id": 2, "name": "a", "type": "INT"},
    ...                                             {"id": 3, "name": "b", "type": "STRING"}]})
    >>> new = parse_type({"type": "ROW", "fields": [{"id": 0, "name": "c", "type": "STRING"},
    ...                                             {"id": 0, "name": "a", "type": "BIGINT"}]})
    >>> [(f.id, f.name, type_sql(f.type)) for f in _evolved(old, new, FieldIds(4), "r").fields]
    [(4, 'c', 'STRING'), (2, 'a', 'BIGINT')]
    """
    if old.nullable and not new.nullable:
        raise SchemaError(f"cannot make {where} NOT NULL: existing rows may hold nulls")
    if old.root == new.root == "ROW":
        return replace(old, nullable=new.nullable, fields=_evolved_fields(old, new, ids, where))
    if old.root == new.root == "ARRAY" and old.element and new.element:
        element = _evolved(old.element, new.element, ids, f"the elements of {where}")
        return replace(old, nullable=new.nullable, element=element)
    if old.root == new.root == "MAP" and old.key and new.key and old.value and new.value:
        key = _evolved(old.key, new.key, ids, f"the keys of {where}")
        value = _evolved(old.value, new.value, ids, f"the values of {where}")
        return replace(old, nullable=new.nullable, key=key, value=value)
    same = type_sql(old.with_nullable(True)) == type_sql(new.with_nullable(True))
    if (old.is_nested or new.is_nested) and not same:
        raise SchemaError(
            f"cannot change {where} from {type_sql(old)} to {type_sql(new)}: a nested type keeps "
            "its kind (ROW, ARRAY, MAP, MULTISET); inside a ROW fields may be added, dropped or "
            "widened"
        )
    if not _widens(old, new):
        raise SchemaError(
            f"cannot change {where} from {type_sql(old)} to {type_sql(new)}: {_WIDENING}"
        )
    return old.with_nullable(new.nullable) if old.is_nested else new


def _evolved_fields(
    old: DataType, new: DataType, ids: FieldIds, where: str
) -> tuple[DataField, ...]:
    """The fields of ROW `new`, matched with `old`'s by name (see `_evolved`)."""
    refuse_case_clashes([f.name for f in new.fields], f"of {where}", "choose another name")
    olds = {f.name: f for f in old.fields}
    kept = [f.name for f in new.fields if f.name in olds]
    if kept != [f.name for f in old.fields if f.name in olds and f.name in kept]:
        raise SchemaError(
            f"cannot change the order of the fields of {where} ({', '.join(kept)}): fields that "
            "stay keep their order, as in Java; new fields may go anywhere"
        )
    fields = []
    for f in new.fields:
        was = olds.get(f.name)
        if was is not None:
            nested = _evolved(was.type, f.type, ids, f"field {f.name!r} of {where}")
            fields.append(replace(was, type=nested))
            continue
        if not f.type.nullable:
            raise SchemaError(
                f"new field {f.name!r} of {where} cannot be NOT NULL: existing rows have no value"
            )
        field_id = ids.take()
        fields.append(replace(f, id=field_id, type=_reassign(f.type, ids)))
    return tuple(fields)


def _update_comment(d: _Draft, change: UpdateColumnComment) -> None:
    index = d.index(change.name)
    d.fields[index] = replace(d.fields[index], description=change.comment)


def _move_column(d: _Draft, change: MoveColumn) -> None:
    if change.position.after == change.name:
        raise SchemaError(f"cannot move column {change.name!r} after itself")
    column = d.fields.pop(d.index(change.name))
    d.place(column, change.position)


_APPLY = {
    SetOptions: _set_options,
    ResetOptions: _reset_options,
    AddColumn: _add_column,
    DropColumn: _drop_column,
    RenameColumn: _rename_column,
    UpdateColumnType: _update_type,
    UpdateColumnComment: _update_comment,
    MoveColumn: _move_column,
    RenameTable: lambda d, c: None,
    UpdateComment: lambda d, c: setattr(d, "comment", c.comment),
}


def apply_alter(
    schema: TableSchema, alter: AlterTable, *, time_millis: int | None = None
) -> TableSchema:
    """The next schema (id + 1) after `alter`'s changes, applied in order (paimon-format §2).

    Field ids survive renames and type changes; new columns get ``highestFieldId + 1`` on; ids are
    never reused. RENAME TO is the catalog's business and is ignored here.

    >>> from paimon_sql.format.schema import TableSchema
    >>> from paimon_sql.types import parse_type
    >>> s0 = TableSchema(id=0, highest_field_id=1, fields=(
    ...     DataField(id=0, name="k", type=parse_type("INT")),
    ...     DataField(id=1, name="v", type=parse_type("INT"))))
    >>> add = AddColumn("w", parse_type("INT"), position=Position(first=True))
    >>> s1 = apply_alter(s0, AlterTable(identifier=(None, "t"), changes=(add,)))
    >>> s1.id, [(f.id, f.name) for f in s1.fields], s1.highest_field_id
    (1, [(2, 'w'), (0, 'k'), (1, 'v')], 2)
    """
    draft = _Draft(
        fields=list(schema.fields),
        highest=schema.highest_field_id,
        primary_keys=list(schema.primary_keys),
        partition_keys=tuple(schema.partition_keys),
        options=dict(schema.options),
        comment=schema.comment,
    )
    for change in alter.changes:
        _APPLY[type(change)](draft, change)  # type: ignore[operator]
    options = validate_options(
        draft.options,
        fields=draft.fields,
        primary_keys=draft.primary_keys,
        partition_keys=draft.partition_keys,
    )
    return replace(
        schema,
        version=CURRENT_VERSION,
        id=schema.id + 1,
        fields=tuple(draft.fields),
        highest_field_id=draft.highest,
        primary_keys=tuple(draft.primary_keys),
        options=MappingProxyType(options),
        comment=draft.comment,
        time_millis=schema.time_millis if time_millis is None else time_millis,
    )
