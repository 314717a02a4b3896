"""The tests run from a plain ``git clone``: no path of a developer's machine in them, and what they
fetch or build goes under the one cache folder, ``$PAIMON_SQL_CACHE`` (``make clean-cache``).
"""

from __future__ import annotations

import re

from tests.fixtures import REPO

#: A literal that names a place on some machine rather than in the repository or a temp folder.
_MACHINE_PATH = re.compile(r"""["'](?:/work|/home|/root|/Users|/mnt|/opt|/data|[A-Z]:\\\\)[/\\]""")
_SIBLING = re.compile(r"\.\./shared|shared/fixtures")
#: Where a home-folder cache may be named: the helpers that resolve ``$PAIMON_SQL_CACHE``.
_HOME = re.compile(r"Path\.home\(\)|expanduser\(|\$HOME|~/\.")


def _sources():
    for path in sorted([*REPO.glob("tests/**/*.py"), REPO / "conftest.py"]):
        yield path.relative_to(REPO), path.read_text(encoding="utf-8")


def test_no_absolute_or_sibling_paths_in_the_tests():
    found = [
        f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m[0]}"
        for name, text in _sources()
        for pattern in (_MACHINE_PATH, _SIBLING)
        for m in pattern.finditer(text)
        if name.name != "test_plain_clone.py"
    ]
    assert found == []


def test_caches_in_the_home_folder_go_through_paimon_sql_cache():
    found = [
        str(name)
        for name, text in _sources()
        if _HOME.search(text) and "PAIMON_SQL_CACHE" not in text
    ]
    assert found == []


def test_make_sends_pip_and_maven_downloads_to_the_cache():
    makefile = (REPO / "Makefile").read_text()
    assert "export PIP_CACHE_DIR ?= $(CACHE)/pip" in makefile
    assert "-Dmaven.repo.local=$(CACHE)/m2" in makefile
    assert 'rm -rf "$(CACHE)"' in makefile
