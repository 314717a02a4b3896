"""Whether a data file's file index lets a predicate skip it (Java's ``FileIndexPredicate``).

Leaves (comparisons, IN, IS [NOT] NULL) go to the column's indexes; AND and OR combine their
results as Java does (row sets of bitmap and bsi indexes intersect and unite, so ``a = 1 AND b = 2``
can skip a file where both values occur, but never in one row). NOT and struct fields are never
answered: the file remains.

>>> from paimon_sql.format.file_index import FileIndex, encode_file_index
>>> from paimon_sql.plan.predicate import And, Compare
>>> from paimon_sql.types import DataType
>>> t = DataType(root="INT")
>>> idx = FileIndex.decode(
...     encode_file_index([("a", "bitmap", [1, 2]), ("b", "bitmap", [3, 4])], {"a": t, "b": t}, {}),
...     "f",
... )
>>> cols = {"a": ("a", t), "b": ("b", t)}
>>> index_may_match(idx, And((Compare(("a",), "=", 1), Compare(("b",), "=", 3))), cols)
True
>>> index_may_match(idx, And((Compare(("a",), "=", 1), Compare(("b",), "=", 4))), cols)
False
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.format.file_index import REMAIN
from paimon_sql.plan.predicate import And, Compare, InList, IsNull, Or

if TYPE_CHECKING:
    from collections.abc import Mapping

    from paimon_sql.format.file_index import FileIndex, IndexResult
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.types import DataType


def index_may_match(
    index: FileIndex, predicate: Predicate | None, columns: Mapping[str, tuple[str, DataType]]
) -> bool:
    """False only when `index` proves no row of its file satisfies `predicate`.

    `columns` maps a predicate column to its name and type in the data file (schema evolution:
    the same field id); other columns are not looked up.
    """
    if predicate is None:
        return True
    return _test(index, predicate, columns).remain


def _test(
    index: FileIndex, p: Predicate, columns: Mapping[str, tuple[str, DataType]]
) -> IndexResult:
    if isinstance(p, And | Or):
        result: IndexResult | None = None
        for child in p.children:
            r = _test(index, child, columns)
            if result is None:
                result = r
            elif isinstance(p, Or):
                result = result.or_(r)
            else:
                result = result.and_(r)
            if isinstance(p, And) and not result.remain:
                return result
        return REMAIN if result is None else result
    if not isinstance(p, Compare | InList | IsNull) or len(p.path) != 1:
        return REMAIN
    found = columns.get(p.path[0])
    if found is None:
        return REMAIN
    name, t = found
    if isinstance(p, IsNull):
        return index.test(name, t, "is not null" if p.negated else "is null")
    if isinstance(p, InList):
        return index.test(name, t, "in", p.values)
    return index.test(name, t, p.op, (p.value,))
