"""Cross-references in docstrings, found and resolved with ``ast`` alone.

Nothing here imports the modules it reads: a module's file is found from
its dotted name and its names from its syntax tree, so the check runs on
the core install (the keystone, uwsgi and locust extras may be missing).

A module's names are what its top level defines (``def``, ``class``, an
assignment, annotated or not, an ``import`` or ``from ... import``, also
inside a top-level ``if``, ``try``, ``with`` or ``for``); a class's names
are what its body defines and the ``self.<name>`` its methods assign.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROLES = ("mod", "func", "class", "meth", "data", "attr", "exc")
ROLE = re.compile(r":(" + "|".join(ROLES) + r"):`([^`]+)`")
# Python's own names: a bare name starting with one is not ours to check
PYTHON_NAMES = frozenset(dir(builtins)) | frozenset(sys.stdlib_module_names)
_BLOCKS = (ast.If, ast.Try, ast.With, ast.For, ast.While)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class Module:
    """One module's dotted name, file and the names it defines."""

    name: str
    path: Path
    package: bool
    names: set[str] = field(default_factory=set)
    imports: dict[str, str] = field(default_factory=dict)
    classes: dict[str, set[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Reference:
    """A reference met in a docstring, with where it stands."""

    path: Path
    line: int
    role: str
    target: str
    module: str
    scope: str = ""

    def shown(self, root: Path) -> str:
        """``path:line: role target``, the form a failure is told in."""
        where = self.path.relative_to(root)
        return f"{where}:{self.line}: {self.role} {self.target}"


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every module under ``root``'s ``packages`` by dotted name."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    """The dotted name a ``from`` import's module part stands for."""
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    if not module.package:
        base = base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _targets(node: ast.AST) -> Iterator[str]:
    """The plain names an assignment's target binds (tuples unpacked)."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Tuple | ast.List):
        for element in node.elts:
            yield from _targets(element)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)


def _bound(module: Module, node: ast.stmt) -> Iterator[str]:
    """The names one statement binds in its scope."""
    if isinstance(node, _DEFS):
        yield node.name
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _targets(target)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        yield from _targets(node.target)
    elif isinstance(node, ast.Import):
        for alias in node.names:
            local = alias.asname or alias.name.split(".")[0]
            module.imports[local] = alias.name if alias.asname else local
            yield local
    elif isinstance(node, ast.ImportFrom):
        base = _absolute(module, node)
        for alias in node.names:
            if alias.name != "*":
                module.imports[alias.asname or alias.name] = f"{base}.{alias.name}"
                yield alias.asname or alias.name


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a scope, blocks opened, functions and classes not."""
    for node in body:
        yield node
        if isinstance(node, _BLOCKS):
            for name in ("body", "orelse", "finalbody"):
                yield from _statements(getattr(node, name, []))
            for handler in getattr(node, "handlers", []):
                yield from _statements(handler.body)


def _class_names(module: Module, node: ast.ClassDef, prefix: str) -> None:
    """Record a class's own names (and its nested classes') in ``module``."""
    qualified = f"{prefix}{node.name}"
    names = module.classes.setdefault(qualified, set())
    for child in _statements(node.body):
        names.update(_bound(Module(module.name, module.path, False), child))
        if isinstance(child, ast.ClassDef):
            _class_names(module, child, qualified + ".")
    for child in ast.walk(node):
        if (
            isinstance(child, ast.Attribute)
            and isinstance(child.ctx, ast.Store)
            and isinstance(child.value, ast.Name)
            and child.value.id == "self"
        ):
            names.add(child.attr)


def read_module(name: str, path: Path) -> tuple[Module, ast.Module]:
    """A module's names, read from its syntax tree, and the tree."""
    tree = ast.parse(path.read_text(), filename=str(path))
    module = Module(name, path, path.name == "__init__.py")
    for node in _statements(tree.body):
        module.names.update(_bound(module, node))
        if isinstance(node, ast.ClassDef):
            _class_names(module, node, "")
    return module, tree


def _docstring(node: ast.AST) -> ast.Constant | None:
    """The docstring's constant of a module, class or function, if any."""
    body = getattr(node, "body", None)
    if not isinstance(node, (ast.Module, *_DEFS)) or not body:
        return None
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return first.value if isinstance(first.value.value, str) else None
    return None


def docstrings(node: ast.AST, scope: str = "") -> Iterator[tuple[ast.Constant, str]]:
    """Every docstring under ``node``, with the class it stands in (if any)."""
    doc = _docstring(node)
    if doc is not None:
        yield doc, scope
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            yield from docstrings(child, f"{scope}.{child.name}".lstrip("."))
        else:
            yield from docstrings(child, scope)


def role_target(text: str) -> str:
    """A role's target: ``title <target>`` names target; ``~`` and ``!`` go."""
    text = " ".join(text.split())
    titled = re.fullmatch(r".*<([^<>]+)>", text)
    if titled:
        text = titled.group(1)
    return text.lstrip("~!").removesuffix("()")


def references(
    module: Module, tree: ast.Module, roots: tuple[str, ...]
) -> Iterator[Reference]:
    """Every role and every dotted literal naming one of ``roots`` in ``tree``."""
    literal = re.compile(r"``((?:" + "|".join(roots) + r")(?:\.\w+)*)(?:\(\))?``")
    for doc, scope in docstrings(tree):
        text = doc.value
        found = [
            (m.start(), f":{m.group(1)}:", role_target(m.group(2)))
            for m in ROLE.finditer(text)
        ] + [(m.start(), "``", m.group(1)) for m in literal.finditer(text)]
        for start, role, target in sorted(found):
            line = doc.lineno + text[:start].count("\n")
            yield Reference(module.path, line, role, target, module.name, scope)


def imported_heads(trees: Iterable[ast.Module]) -> set[str]:
    """The top-level names of what ``trees`` import, anywhere, absolutely."""
    heads: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                heads.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                heads.add(node.module.split(".")[0])
    return heads


class Index:
    """The modules under ``root``'s ``roots`` and what their names resolve to."""

    def __init__(self, root: Path, roots: tuple[str, ...]) -> None:
        self.root = root
        self.roots = roots
        self.modules: dict[str, Module] = {}
        self.trees: dict[str, ast.Module] = {}
        for name, path in module_files(root, roots).items():
            self.modules[name], self.trees[name] = read_module(name, path)
        self.outside_names = PYTHON_NAMES | (
            imported_heads(self.trees.values()) - set(roots)
        )

    def references(self) -> Iterator[Reference]:
        """Every reference in every docstring of every module."""
        for name, module in self.modules.items():
            yield from references(module, self.trees[name], self.roots)

    def resolves(self, dotted: str, module_only: bool = False, depth: int = 0) -> bool:
        """Whether ``dotted`` (absolute) names a module of ours or one's name."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            module = self.modules.get(".".join(parts[:cut]))
            if module is not None:
                rest = parts[cut:]
                return not rest if module_only else self._member(module, rest, depth)
        return False

    def _member(self, module: Module, rest: list[str], depth: int) -> bool:
        """Whether ``rest`` names something ``module`` defines or imports."""
        if not rest:
            return True
        if rest[0] in module.imports and depth < 8:
            origin = module.imports[rest[0]]
            if origin.split(".")[0] not in self.roots:
                return True  # an outside name: what follows it is not ours
            return self.resolves(".".join([origin, *rest[1:]]), depth=depth + 1)
        for cut in range(len(rest), 0, -1):
            members = module.classes.get(".".join(rest[:cut]))
            if members is not None:
                tail = rest[cut:]
                return not tail or (len(tail) == 1 and tail[0] in members)
        return len(rest) == 1 and rest[0] in module.names

    def _package(self, name: str) -> str:
        """The package a module stands in (a package stands in itself)."""
        return name if self.modules[name].package else name.rpartition(".")[0]

    def candidates(self, ref: Reference) -> list[str]:
        """The absolute names ``ref`` may mean: any one that resolves will do."""
        target, here = ref.target, ref.module
        if target.startswith("."):
            rest = target.lstrip(".")
            package = self._package(here).split(".")
            base = package[: len(package) - (len(target) - len(rest)) + 1]
            found = [".".join([*base, rest])] if base else []
            if target.startswith(".."):
                return found
            scoped = [f"{here}.{ref.scope}.{rest}"] if ref.scope else []
            return [*found, f"{here}.{rest}", *scoped]
        if target.split(".")[0] in self.roots:
            return [target]
        scoped = [f"{here}.{ref.scope}.{target}"] if ref.scope else []
        return [*scoped, f"{here}.{target}", f"{self._package(here)}.{target}"]

    def outside(self, ref: Reference) -> bool:
        """Whether ``ref`` is a bare name that starts with an outside name.

        Outside: Python's builtins and standard library, and the top-level
        packages the modules import (``rally``, ``keystoneauth1``, ...).
        """
        if ref.target.startswith("."):
            return False
        head = ref.target.split(".")[0]
        return head not in self.roots and head in self.outside_names

    def resolved(self, ref: Reference) -> bool:
        """Whether one of the names ``ref`` may mean exists."""
        module_only = ref.role == ":mod:"
        return any(self.resolves(name, module_only) for name in self.candidates(ref))

    def broken(self, ref: Reference) -> bool:
        """Whether ``ref`` names nothing: not ours that exists, not outside."""
        if not ref.target or any(space in ref.target for space in " \t\n"):
            return True  # a role's text broken over two lines names nothing
        return not self.resolved(ref) and not self.outside(ref)
