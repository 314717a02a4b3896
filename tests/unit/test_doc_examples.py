"""Every public function of the documented surface has a runnable example.

The documented surface is what a user calls: the names `paimon_sql.__all__` exports, every public
method and property of `Session`, `Catalog`, `Table` and `Identifier`, and every SQL macro in
``functions/``. A Python example is a ``>>>`` doctest in the docstring (run by
``--doctest-modules``); a macro's is a ``-- try:`` header line, which runs on the tiny warehouse
that its file's ``-- setup:`` lines build (run by tests/unit/test_functions_examples.py).

Run as a script to print the counts, for this surface and for the whole package::

    python -m tests.unit.test_doc_examples
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from typing import TYPE_CHECKING

import pytest

import paimon_sql
from paimon_sql.sql.install import functions_dir

if TYPE_CHECKING:
    from types import ModuleType

_CLASSES = ("Session", "Catalog", "Table", "Identifier")
_MACRO = re.compile(r"^CREATE OR REPLACE MACRO (\w+)\s*\(", re.IGNORECASE | re.MULTILINE)


def _has_example(obj: object) -> bool:
    doc = inspect.getdoc(obj) or ""
    return ">>>" in doc


def _members(cls: type) -> dict[str, object]:
    """Public methods and properties that `cls` defines (its docstring covers the constructor)."""
    out: dict[str, object] = {}
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property) or inspect.isfunction(value):
            out[name] = value
    return out


def _macros() -> dict[str, bool]:
    """Each macro of functions/ and whether its header block holds a ``-- try:`` example."""
    out: dict[str, bool] = {}
    for path in sorted(functions_dir().glob("*.sql")):
        block: list[str] = []
        for line in path.read_text().splitlines():
            macro = _MACRO.match(line)
            if macro:
                out[macro[1]] = any(b.startswith("-- try:") for b in block)
                block = []
            elif line.startswith("--"):
                block.append(line)
            elif not line.strip():
                continue
            else:
                block = []
    return out


def surface() -> dict[str, bool]:
    """``qualified name -> has a runnable example`` for the documented surface."""
    out: dict[str, bool] = {}
    for name in paimon_sql.__all__:
        out[f"paimon_sql.{name}"] = _has_example(getattr(paimon_sql, name))
    for cls_name in _CLASSES:
        cls = getattr(paimon_sql, cls_name)
        for name, member in _members(cls).items():
            out[f"{cls_name}.{name}"] = _has_example(member)
    for name, has in _macros().items():
        out[f"functions/{name}"] = has
    return out


def _package_modules() -> list[ModuleType]:
    modules = [paimon_sql]
    for info in pkgutil.walk_packages(paimon_sql.__path__, "paimon_sql."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        try:
            modules.append(importlib.import_module(info.name))
        except ImportError:  # an optional extra (pyspark) that is not installed
            continue
    return modules


def package() -> dict[str, bool]:
    """``qualified name -> has a runnable example`` for every public function of the package.

    That is: the functions and classes defined in public modules, and the public methods of those
    classes; a class counts through its docstring.
    """
    out: dict[str, bool] = {}
    for module in _package_modules():
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(value):
                out[f"{module.__name__}.{name}"] = _has_example(value)
            elif inspect.isclass(value):
                out[f"{module.__name__}.{name}"] = _has_example(value)
                for member_name, member in _members(value).items():
                    out[f"{module.__name__}.{name}.{member_name}"] = _has_example(member)
    return out


def test_every_public_function_of_the_surface_has_an_example():
    missing = sorted(name for name, has in surface().items() if not has)
    assert not missing, "no runnable example (add a >>> doctest, or a -- try: line): " + (
        ", ".join(missing)
    )


def test_the_surface_is_not_empty():
    found = surface()
    for cls_name in _CLASSES:
        assert any(name.startswith(cls_name + ".") for name in found), cls_name
    assert any(name.startswith("functions/") for name in found)


@pytest.mark.parametrize("name", ["paimon_sql.connect", "Catalog.load_table", "Table.snapshot"])
def test_known_names_are_counted(name):
    assert name in surface()


def _report(what: str, found: dict[str, bool]) -> None:
    with_example = sum(found.values())
    print(f"{what}: {with_example} of {len(found)} public functions have a runnable example")


if __name__ == "__main__":
    _report("surface (Session, Catalog, Table, Identifier, __all__, functions/)", surface())
    _report("package (every public module)", package())
    for name, has in sorted(surface().items()):
        if not has:
            print("  missing:", name)
