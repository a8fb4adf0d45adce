"""The report reads a run folder without importing the code that wrote it.

No module under ``rally_keystone_perf/report/`` imports from ``run/`` or
``deploy/`` when it is imported: what a run folder holds, the report
imports from ``layout/``. An import inside a function (said costly, see
``tests/unit/test_layout.py``) or under ``if TYPE_CHECKING:`` runs nothing
at import time and is allowed; anything else the module runs when it is
imported (its top-level statements, with their ``if``, ``try``, ``with``
and class bodies) is checked.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import rally_keystone_perf

PACKAGE = Path(rally_keystone_perf.__file__).parent
REPORT = PACKAGE / "report"
FORBIDDEN = ("run", "deploy")  # below the package: the code that writes a run


def _is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _run_on_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` that run when the module is imported:
    nested blocks entered, functions and ``if TYPE_CHECKING:`` left out."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _run_on_import(node.orelse)
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, []):
                if isinstance(child, ast.stmt):
                    yield from _run_on_import([child])
                else:  # an except handler or a match case: its body
                    yield from _run_on_import(child.body)


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted names an import statement loads (relative ones resolved)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".")[: -node.level]
        base = ".".join([*package, base] if base else package)
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def _forbidden(name: str) -> bool:
    package = PACKAGE.name
    return any(
        name == f"{package}.{floor}" or name.startswith(f"{package}.{floor}.")
        for floor in FORBIDDEN
    )


def forbidden_imports(module: str, source: str) -> list[str]:
    """Each import of ``run/`` or ``deploy/`` that ``module`` (dotted; a
    package's ``__init__`` named as ``pkg.__init__``) runs when imported,
    as ``module:line: statement``."""
    found = []
    for node in _run_on_import(ast.parse(source).body):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if any(_forbidden(name) for name in _targets(module, node)):
            found.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    return found


def _report_modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(REPORT.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        yield ".".join(parts), path


def test_the_report_imports_nothing_of_run_or_deploy() -> None:
    found = []
    for module, path in _report_modules():
        found += forbidden_imports(module, path.read_text())
    assert found == []


def test_the_check_finds_every_way_in() -> None:
    package = PACKAGE.name
    module = f"{package}.report.readers.ab_folder"
    source = f"""
from typing import TYPE_CHECKING
import {package}.deploy.sampler
from {package}.run.ab import SIDES
from {package} import run
from ...deploy import sampler
from ..figures import ab
try:
    from {package}.deploy.cluster import names
except ImportError:
    from {package}.run import ab as other
if TYPE_CHECKING:
    from {package}.run.releases import Failure
else:
    from {package}.run import releases
class Page:
    from {package}.run.capacity import StepRun
def export():
    from {package}.run import rally_runner
"""
    lines = [entry.split(": ")[0] for entry in forbidden_imports(module, source)]
    assert lines == [f"{module}:{n}" for n in (3, 4, 5, 6, 9, 11, 15, 17)]
    assert forbidden_imports(module, f"from {package}.layout import ab_state") == []
    assert forbidden_imports(module, f"from {package} import runners") == []
