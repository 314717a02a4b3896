"""Filter predicates as data, and what pruning may conclude from them.

A predicate is built from what the engine pushes down (comparisons of a column with a constant, IN,
IS [NOT] NULL, AND, OR, NOT). Pruning asks one question: *may* any row of a file, manifest or
partition match? It answers from value ranges (min, max, null count, row count) and must never say
no wrongly.

>>> p = And((Compare(("dt",), "=", "2024-01-01"), Compare(("v",), ">", 10)))
>>> sorted(p.columns())
['dt', 'v']
>>> may_match(p, {"dt": ValueRange.exact("2024-01-02")}.get)
False
>>> may_match(p, {"dt": ValueRange.exact("2024-01-01")}.get)
True
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class Predicate:
    """Base of the predicate tree."""

    def columns(self) -> set[str]:
        """Top-level column names the predicate reads."""
        return {node.path[0] for node in self.leaves()}

    def leaves(self) -> Iterator[Compare | InList | IsNull]:
        """The column tests in the tree."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Compare(Predicate):
    """``column <op> value`` with op one of = != < <= > >=."""

    path: tuple[str, ...]
    op: str
    value: Any

    def leaves(self) -> Iterator[Compare | InList | IsNull]:  # noqa: D102
        yield self


@dataclass(frozen=True, slots=True)
class InList(Predicate):
    """``column IN (values...)``."""

    path: tuple[str, ...]
    values: tuple[Any, ...]

    def leaves(self) -> Iterator[Compare | InList | IsNull]:  # noqa: D102
        yield self


@dataclass(frozen=True, slots=True)
class IsNull(Predicate):
    """``column IS NULL`` (or IS NOT NULL when `negated`)."""

    path: tuple[str, ...]
    negated: bool = False

    def leaves(self) -> Iterator[Compare | InList | IsNull]:  # noqa: D102
        yield self


@dataclass(frozen=True, slots=True)
class And(Predicate):
    """All children hold."""

    children: tuple[Predicate, ...]

    def leaves(self) -> Iterator[Compare | InList | IsNull]:  # noqa: D102
        for c in self.children:
            yield from c.leaves()


@dataclass(frozen=True, slots=True)
class Or(Predicate):
    """Any child holds."""

    children: tuple[Predicate, ...]

    def leaves(self) -> Iterator[Compare | InList | IsNull]:  # noqa: D102
        for c in self.children:
            yield from c.leaves()


@dataclass(frozen=True, slots=True)
class Not(Predicate):
    """The child does not hold."""

    child: Predicate

    def leaves(self) -> Iterator[Compare | InList | IsNull]:  # noqa: D102
        yield from self.child.leaves()


def conjuncts(predicate: Predicate | None) -> list[Predicate]:
    """The AND-ed parts of a predicate (flattened)."""
    if predicate is None:
        return []
    if isinstance(predicate, And):
        return [p for c in predicate.children for p in conjuncts(c)]
    return [predicate]


def and_all(predicates: list[Predicate]) -> Predicate | None:
    """AND of a list (None when empty)."""
    if not predicates:
        return None
    return predicates[0] if len(predicates) == 1 else And(tuple(predicates))


@dataclass(frozen=True, slots=True)
class ValueRange:
    """What statistics say about a column in some set of rows; None bounds are unknown."""

    min: Any = None
    max: Any = None
    null_count: int | None = None
    row_count: int | None = None

    @classmethod
    def exact(cls, value: Any, row_count: int = 1) -> ValueRange:
        """A column that holds `value` in every row (a partition column)."""
        if value is None:
            return cls(None, None, row_count, row_count)
        return cls(value, value, 0, row_count)

    @property
    def all_null(self) -> bool:
        """Every row is null."""
        return self.row_count is not None and self.null_count == self.row_count

    @property
    def no_null(self) -> bool:
        """No row is null."""
        return self.null_count == 0


def _normal(value: Any, like: Any) -> Any:
    # TIMESTAMP WITH TIME ZONE constants arrive as epoch microseconds.
    if isinstance(like, datetime.datetime) and isinstance(value, int) and like.tzinfo is not None:
        return datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(
            microseconds=value
        )
    return value


def _compare_may(rng: ValueRange, op: str, value: Any) -> bool:
    if rng.all_null:
        return False  # a comparison with NULL is never true
    lo, hi = rng.min, rng.max
    if lo is None or hi is None:
        return True
    if isinstance(lo, float) or isinstance(hi, float):
        return True  # NaN is not in float statistics but satisfies > in DuckDB
    value = _normal(value, lo)
    try:
        if op == "=":
            return bool(lo <= value <= hi)
        if op == "!=":
            return not (lo == hi == value)
        if op == "<":
            return bool(lo < value)
        if op == "<=":
            return bool(lo <= value)
        if op == ">":
            return bool(hi > value)
        if op == ">=":
            return bool(hi >= value)
    except TypeError:
        return True
    return True


def may_match(predicate: Predicate | None, stats: Callable[[str], ValueRange | None]) -> bool:
    """False only when no row described by `stats` can satisfy `predicate`."""
    if predicate is None:
        return True
    if isinstance(predicate, And):
        return all(may_match(c, stats) for c in predicate.children)
    if isinstance(predicate, Or):
        return any(may_match(c, stats) for c in predicate.children)
    if isinstance(predicate, Not):
        return _may_not_match(predicate.child, stats)
    if len(predicate.path) != 1:  # type: ignore[attr-defined]
        return True  # struct fields carry no statistics
    rng = stats(predicate.path[0])  # type: ignore[attr-defined]
    if rng is None:
        return True
    if isinstance(predicate, IsNull):
        return (not rng.no_null) if not predicate.negated else (not rng.all_null)
    if isinstance(predicate, InList):
        return any(_compare_may(rng, "=", v) for v in predicate.values)
    assert isinstance(predicate, Compare)
    return _compare_may(rng, predicate.op, predicate.value)


def _may_not_match(predicate: Predicate, stats: Callable[[str], ValueRange | None]) -> bool:
    """Whether some row may make `predicate` false (so NOT predicate may be true)."""
    if isinstance(predicate, Not):
        return may_match(predicate.child, stats)
    if isinstance(predicate, Or):
        return all(_may_not_match(c, stats) for c in predicate.children)
    if isinstance(predicate, And):
        return any(_may_not_match(c, stats) for c in predicate.children)
    leaf = predicate
    rng = stats(leaf.path[0]) if len(leaf.path) == 1 else None  # type: ignore[attr-defined]
    if rng is None:
        return True
    if isinstance(leaf, IsNull):
        return may_match(IsNull(leaf.path, not leaf.negated), stats)
    # NOT (x op v) is true only for non-null x outside the tested set; exact ranges decide.
    if rng.min is not None and rng.min == rng.max and rng.no_null:
        value = rng.min
        if isinstance(leaf, InList):
            return value not in leaf.values
        if isinstance(leaf, Compare):
            return not _holds(value, leaf.op, leaf.value)
    return not rng.all_null


def _holds(x: Any, op: str, value: Any) -> bool:
    value = _normal(value, x)
    try:
        return bool(
            {
                "=": x == value,
                "!=": x != value,
                "<": x < value,
                "<=": x <= value,
                ">": x > value,
                ">=": x >= value,
            }[op]
        )
    except TypeError:
        return False


def fixed_values(
    predicate: Predicate | None, columns: tuple[str, ...]
) -> list[tuple[Any, ...]] | None:
    """The value combinations of `columns` the predicate allows, if it fixes all by = / IN.

    >>> fixed_values(And((Compare(("a",), "=", 1), InList(("b",), (2, 3)))), ("a", "b"))
    [(1, 2), (1, 3)]
    """
    choices: dict[str, tuple[Any, ...]] = {}
    for part in conjuncts(predicate):
        if isinstance(part, Compare) and part.op == "=" and len(part.path) == 1:
            choices[part.path[0]] = (part.value,)
        elif isinstance(part, InList) and len(part.path) == 1:
            choices[part.path[0]] = part.values
    if not columns or any(c not in choices for c in columns):
        return None
    combos: list[tuple[Any, ...]] = [()]
    for c in columns:
        combos = [(*prefix, v) for prefix in combos for v in choices[c]]
        if len(combos) > 1024:
            return None
    return combos
