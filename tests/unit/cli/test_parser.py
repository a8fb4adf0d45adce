"""Every subcommand registered one way: its module's add_*_command."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

from rally_keystone_perf import cli
from rally_keystone_perf.cli import parser

CLI = Path(cli.__file__).parent


def _subcommands(built: argparse.ArgumentParser) -> list[str]:
    (sub,) = [a for a in built._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_the_commands_are_those_the_registrations_add() -> None:
    names: list[str] = []
    for add in parser.COMMANDS:
        probe = argparse.ArgumentParser()
        sub = probe.add_subparsers()
        add(sub)
        names += _subcommands(probe)
        assert add.__name__.startswith("add_") and "_command" in add.__name__
    assert _subcommands(parser.build_parser()) == names
    assert len(names) == len(set(names)) == 15


def test_no_module_adds_a_subcommand_outside_its_registration() -> None:
    """``sub.add_parser`` only inside an ``add_*_command(s)`` function."""
    strays = []
    for path in sorted(CLI.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            calls = [
                node
                for node in ast.walk(function)
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_parser"
            ]
            if calls and not function.name.startswith("add_"):
                strays.append(f"{path.name}:{function.name}")
    assert strays == []
