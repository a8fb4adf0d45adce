"""Docstrings name what exists (issue 54, item 6).

Every docstring (module, class, function, method) of ``rally_keystone_perf/``
and ``benchmarks/`` is read with ``ast`` (:mod:`tests.unit.docrefs`; nothing
is imported, so this runs on the core install), and each reference in it
must resolve:

* the roles ``:mod:``, ``:func:``, ``:class:``, ``:meth:``, ``:data:``,
  ``:attr:`` and ``:exc:`` (a leading ``~`` or ``!`` and a trailing ``()``
  dropped; ``title <target>`` names target);
* a dotted name in double backquotes that starts with ``rally_keystone_perf``
  or ``benchmarks``.

A target resolves when its module exists (a package's ``__init__.py`` or a
module's file) and, when it goes on past the module, the next name is
defined at the module's top level (``def``, ``class``, an assignment,
annotated or not, an import) and the one after it, if any, in that class's
body (or as ``self.<name>`` in its methods); a name the module imports from
one of ours is followed there. A ``:mod:`` target must be a module.

Where a target is looked for, as Sphinx's Python domain reads it from the
docstring's module:

* absolute, when it starts with ``rally_keystone_perf`` or ``benchmarks``;
* relative, when it starts with dots: one dot is the module's package (a
  package's own ``__init__``: the package itself), each further dot one
  level up; a one-dot name may also be in the module itself or in the
  class the docstring stands in;
* bare (``report``, ``Step.resolution``): in the class the docstring stands
  in, then the module, then its package.

A bare name found nowhere is skipped only when its first part is outside
the suite: Python's builtins or standard library (``ValueError``,
``http.client``), or a top-level package one of the modules imports
(``rally.task.scenario``, ``keystoneauth1...``). Any other is broken, and
so is a target with a space in it (a role's text broken over two lines).
"""

from __future__ import annotations

import functools
from pathlib import Path

from tests.unit import docrefs

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("rally_keystone_perf", "benchmarks")


@functools.cache
def _index() -> docrefs.Index:
    return docrefs.Index(REPO, ROOTS)


def test_docstrings_name_what_exists() -> None:
    index = _index()
    found = list(index.references())
    broken = [ref.shown(REPO) for ref in found if index.broken(ref)]
    print(f"{len(found)} references checked, {len(broken)} broken")
    print("\n".join(broken))
    assert len(found) > 500  # the walk found the docstrings at all
    assert broken == [], "broken references:\n" + "\n".join(broken)


PLANTED = {
    "pkg/__init__.py": '"""The package: :mod:`.sub`, :mod:`.gone`."""\n',
    "pkg/sub/__init__.py": "",
    "pkg/sub/a.py": (
        '"""A module."""\n'
        "import yaml\n"
        "from pkg.sub.b import g as h\n"
        "X: int = 1\n"
        "def f():\n    pass\n"
        "class C:\n"
        '    """:meth:`m` and :attr:`x`, :meth:`.m`, :func:`f`, :func:`h`."""\n'
        "    def m(self):\n        self.x = 1\n"
    ),
    "pkg/sub/b.py": (
        '"""Good: :func:`..sub.a.f`, :func:`.a.f`, :meth:`pkg.sub.a.C.m`,\n'
        ":attr:`~pkg.sub.a.C.x`, :data:`pkg.sub.a.X`, :func:`pkg.sub.a.h`,\n"
        ":func:`g`, :class:`ValueError`, :mod:`json`, :func:`yaml.load`,\n"
        ":func:`the f <pkg.sub.a.f>`, ``pkg.sub.a.f``, :mod:`pkg.sub`.\n"
        "Bad: :func:`.nothere`, :mod:`pkg.sub.a.f`, :meth:`pkg.sub.a.C.nope`,\n"
        ":func:`..a.f`, :func:`lost`, :mod:`pkg\n.sub`, ``pkg.sub.zz``,\n"
        ':func:`title <pkg.sub.a.nope>`, :class:`elsewhere.Thing`."""\n'
        "def g():\n    pass\n"
    ),
}


def test_the_check_can_fail(tmp_path: Path) -> None:
    for name, text in PLANTED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    index = docrefs.Index(tmp_path, ("pkg",))
    broken = [ref.shown(tmp_path) for ref in index.references() if index.broken(ref)]
    assert broken == [
        "pkg/__init__.py:1: :mod: .gone",
        "pkg/sub/b.py:5: :func: .nothere",
        "pkg/sub/b.py:5: :mod: pkg.sub.a.f",
        "pkg/sub/b.py:5: :meth: pkg.sub.a.C.nope",
        "pkg/sub/b.py:6: :func: ..a.f",
        "pkg/sub/b.py:6: :func: lost",
        "pkg/sub/b.py:6: :mod: pkg .sub",
        "pkg/sub/b.py:7: `` pkg.sub.zz",
        "pkg/sub/b.py:8: :func: pkg.sub.a.nope",
        "pkg/sub/b.py:8: :class: elsewhere.Thing",
    ]
