"""The package's shape: module and function sizes, import cycles, lazy imports.

An AST walk over ``rally_keystone_perf/`` (tests excepted): no module over
:data:`MAX_MODULE_LINES` lines, no function over :data:`MAX_FUNCTION_LINES`,
no import cycle between the package's modules (imports inside functions
included: a lazy import that hides a cycle is a cycle), and a lazy import
only where the module is costly to import, said by a comment on its line
(``# costly: ...``).

The floors (:data:`FLOORS`): the package's folders from the top of the
house to its bottom; a module imports only from its own floor or from a
lower one, so no two floors import each other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import rally_keystone_perf

PACKAGE = Path(rally_keystone_perf.__file__).parent
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
LAZY_MARK = "# costly:"
# The floors, top to bottom: a module belongs to the longest that prefixes it
# (``report.writers.html.kit`` to ``report.writers``); each imports downwards.
FLOORS = (
    "cli",  # parse arguments, call one function below, map errors to exit codes
    "report",  # the report, compare and gate pipelines (read, compute, write)
    "report.writers",  # documents x formats behind one registry
    "report.blocks",  # each document kind's blocks, built from its figures
    "report.figures",  # numbers computed from what the readers return
    "report.readers",  # the run folder's artefacts read back into records
    "run",  # a session, the Rally engine, the matrix, a study
    "plugins",  # only what Rally loads: scenarios, contexts, SLAs, hooks, runners
    "loadgen",  # load engines other than Rally's runner (Locust)
    "tasks",  # task files as data: parsed once, checked, generated
    "studies",  # the seeds' studies as data
    "deploy",  # options -> Deployment, preflight, Keystone, backends, clusters
    "client",  # the Keystone client library: one request per atomic action
    "layout",  # the run folder's files as data, shared by writers and readers
    "metrics",  # the statistics the SLAs, the report and the gate share
    "stop_signals",  # SIGTERM and SIGHUP stop a run as Ctrl-C does
    "paths",  # where the bundled files live
)


def _short(text: str) -> str:
    """``text`` without the package's name in front of its modules."""
    return text.replace(PACKAGE.name + ".", "")


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _function_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function's body (decorators and docstring excepted)."""
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
        and len(body) > 1
    ):
        body = body[1:]
    end = node.end_lineno or node.lineno
    return end - body[0].lineno + 1


def _imported(
    module: str, node: ast.Import | ast.ImportFrom, known: set[str]
) -> set[str]:
    """The package modules an import statement loads."""
    names: set[str] = set()
    if isinstance(node, ast.Import):
        candidates = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if not _modules()[module].name == "__init__.py":
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        candidates = [base] + [f"{base}.{alias.name}" for alias in node.names]
    for name in candidates:
        if name in known:
            names.add(name)
    return names


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _lazy_and_graph() -> tuple[dict[str, set[str]], set[str]]:
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    lazy: set[str] = set()
    for name, path in modules.items():
        tree = _parse(path)
        lines = path.read_text().splitlines()
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            targets = _imported(name, node, known)
            graph[name] |= targets - {name}
            in_function = id(node) not in top_level and not _under_type_checking(
                tree, node
            )
            if in_function and LAZY_MARK not in lines[node.lineno - 1]:
                lazy.add(_short(f"{name}: {ast.unparse(node)}"))
    return graph, lazy


def _under_type_checking(tree: ast.Module, target: ast.AST) -> bool:
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            if any(child is target for child in ast.walk(node)):
                return True
        if isinstance(node, ast.Try) and any(child is target for child in node.body):
            return True
    return False


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _without_packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph without edges into a package's ``__init__`` from inside it.

    ``from rally_keystone_perf.report import stats`` names the package and
    its submodule; only the submodule is loaded for what it holds, so the
    edge to the package itself is dropped when the package is an ancestor.
    """
    return {
        name: {t for t in targets if not name.startswith(t + ".")}
        for name, targets in graph.items()
    }


def floor_of(module: str) -> str | None:
    """The floor (of :data:`FLOORS`) a module of the package stands on."""
    short = _short(module)
    found = [f for f in FLOORS if short == f or short.startswith(f + ".")]
    return max(found, key=len) if found else None


def upward_imports(graph: dict[str, set[str]]) -> set[str]:
    """Each import from a floor to a higher one, or to a module on no floor."""
    upward = set()
    for name, targets in graph.items():
        if name == PACKAGE.name:
            continue
        for target in targets - {PACKAGE.name}:
            here, there = floor_of(name), floor_of(target)
            if here is None or there is None:
                upward.add(f"{_short(name)} -> {_short(target)} (no floor)")
            elif FLOORS.index(there) < FLOORS.index(here):
                upward.add(f"{_short(name)} ({here}) -> {_short(target)} ({there})")
    return upward


def floor_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of floors that import each other, through any of their modules."""
    floors: dict[str, set[str]] = {}
    for name, targets in graph.items():
        here = floor_of(name) or _short(name)
        floors.setdefault(here, set())
        for target in targets:
            there = floor_of(target) or _short(target)
            if there != here:
                floors[here].add(there)
                floors.setdefault(there, set())
    return _cycles(floors)


def test_no_module_is_too_long() -> None:
    long = {
        name
        for name, path in _modules().items()
        if len(path.read_text().splitlines()) > MAX_MODULE_LINES
    }
    assert long == set()


def test_no_function_is_too_long() -> None:
    long = set()
    for name, path in _modules().items():
        for node in _functions(_parse(path)):
            if _function_lines(node) > MAX_FUNCTION_LINES:
                long.add(f"{name}.{node.name}")
    assert long == set()


def test_no_import_cycle() -> None:
    graph, _ = _lazy_and_graph()
    assert _cycles(_without_packages(graph)) == []


def test_every_import_points_down_the_floors() -> None:
    graph, _ = _lazy_and_graph()
    assert upward_imports(_without_packages(graph)) == set()


def test_no_two_floors_import_each_other() -> None:
    graph, _ = _lazy_and_graph()
    assert floor_cycles(_without_packages(graph)) == []


def test_lazy_imports_say_why() -> None:
    _, lazy = _lazy_and_graph()
    assert lazy == set()


def test_the_checks_can_fail() -> None:
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    tree = ast.parse("def f():\n    '''doc'''\n" + "    x = 1\n" * 61)
    assert _function_lines(next(_functions(tree))) == 61
    package = PACKAGE.name
    planted = {
        f"{package}.client.tracing": {f"{package}.report.readers.traces"},
        f"{package}.report.readers.traces": {f"{package}.client.tracing"},
        f"{package}.report.figures.stats": {f"{package}.metrics"},
    }
    assert upward_imports(planted) == {
        "client.tracing (client) -> report.readers.traces (report.readers)"
    }
    assert floor_cycles(planted) == [["client", "report.readers"]]
    assert floor_of(f"{package}.report.writers.html.kit") == "report.writers"
