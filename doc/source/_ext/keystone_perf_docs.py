"""Reference pages generated from the code, so that they cannot drift.

Directives:

``.. keystone-perf-cli::``
    Every command and option of ``rally-keystone-perf``, from its argparse
    parser: the same text as ``--help``.
``.. keystone-perf-plugins:: KIND``
    Every Rally plugin of the suite of one kind (scenario, context, sla,
    hook, runner): its name, docstring and argument schema, as Rally's
    ``rally plugin show`` has them.
``.. keystone-perf-tasks::``
    The task files under ``tasks/``: the hand-written ones with their
    descriptions, the generated ones with their scenario, runner and modes.
``.. keystone-perf-exit-codes::``
    The exit codes every command shares (``cli/common.EXIT_CODES``).
``.. keystone-perf-run-folder::``
    What a run folder holds (``layout/rundir.LAYOUT``).
``.. keystone-perf-requirements::``
    What each mode and each option's choice needs installed, from the
    requirements the preflight checks (``deploy/modes.py``).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

REPO = Path(__file__).resolve().parents[3]
TASKS = REPO / "tasks"


def _plugin_bases() -> dict[str, Any]:
    """Rally's base class of each plugin kind, with every plugin loaded."""
    from rally import plugins
    from rally.task import context, hook, runner, scenario, sla

    plugins.load()
    return {
        "scenario": scenario.Scenario,
        "context": context.Context,
        "sla": sla.SLA,
        "hook": hook.HookAction,
        "runner": runner.ScenarioRunner,
    }


def _indent(text: str, by: str = "   ") -> list[str]:
    return [by + line if line else "" for line in text.splitlines()]


def plugin_lines(kind: str) -> list[str]:
    """RST for every plugin of the suite of ``kind``, sorted by name."""
    base = _plugin_bases()[kind]
    ours = [
        cls
        for cls in base.get_all()
        if cls.__module__.startswith("rally_keystone_perf.")
    ]
    lines: list[str] = []
    for cls in sorted(ours, key=lambda c: c.get_name()):
        info = cls.get_info()
        name = info["name"]
        lines += [name, "~" * len(name), ""]
        lines += [info["title"], ""]
        if info["description"]:
            lines += [info["description"], ""]
        lines += [
            f"Module: ``{info['module']}``; platform: ``{info['platform']}``.",
            "",
        ]
        for param in info.get("parameters") or ():
            lines += [
                f"``{param['name']}``",
                *_indent(param["doc"] or "(undocumented)"),
            ]
        if info.get("parameters"):
            lines.append("")
        if info.get("schema"):
            schema = json.dumps(info["schema"], indent=2, sort_keys=True)
            lines += ["Arguments (JSON schema):", "", ".. code-block:: json", ""]
            lines += _indent(schema) + [""]
    return lines


def _escaped(text: str) -> str:
    """``text`` as plain RST: no inline markup, one line."""
    return re.sub(r"([\\*`|_])", r"\\\1", " ".join(text.split()))


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def option_help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """An option's help as ``--help`` prints it (defaults expanded)."""
    formatter = parser._get_formatter()
    return formatter._expand_help(action) if action.help else ""


def cli_lines() -> list[str]:
    """RST for every command of the CLI: description, usage, options."""
    from rally_keystone_perf.cli.parser import build_parser

    top = build_parser()
    lines: list[str] = []
    for name, parser in _subcommands(top).items():
        title = f"{top.prog} {name}"
        lines += [title, "~" * len(title), ""]
        for paragraph in re.split(r"\n\s*\n", parser.description or ""):
            lines += [_escaped(paragraph), ""] if paragraph.strip() else []
        usage = parser.format_usage().strip()
        lines += [".. code-block:: text", "", *_indent(usage), ""]
        for group in parser._action_groups:
            actions = [a for a in group._group_actions if a.help != argparse.SUPPRESS]
            if not actions:
                continue
            lines += [f"**{_escaped(group.title or '')}**", ""]
            if group.description:
                lines += [_escaped(group.description), ""]
            for action in actions:
                names = ", ".join(action.option_strings) or action.dest
                metavar = parser._get_formatter()._format_args(
                    action, action.dest.upper()
                )
                term = f"{names} {metavar}" if action.nargs != 0 else names
                lines += [
                    f"``{term}``",
                    f"   {_escaped(option_help(parser, action))}",
                    "",
                ]
    return lines


def _runner_text(runner: dict[str, Any]) -> str:
    ((kind, args),) = runner.items()
    shown = ", ".join(f"{k} {v}" for k, v in sorted(args.items()))
    return f"``{kind}`` ({shown})" if shown else f"``{kind}``"


def _workloads(task: dict[str, Any]) -> Iterable[dict[str, Any]]:
    for subtask in task.get("subtasks", ()):
        yield from subtask.get("workloads", ())


def _task(path: Path) -> dict[str, Any]:
    """A task file as Rally reads it: rendered with its Jinja2 defaults."""
    from rally_keystone_perf.tasks.model import load_document

    return dict(load_document(path))


def _summary(path: Path) -> tuple[str, str]:
    """A task file's scenarios and runners, each joined on one line."""
    task = _task(path)
    scenarios = sorted({name for w in _workloads(task) for name in w["scenario"]})
    runners = sorted({_runner_text(w["runner"]) for w in _workloads(task)})
    return ", ".join(f"``{s}``" for s in scenarios), "; ".join(runners)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A list-table directive of ``rows``."""
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in (header, *rows):
        lines.append(f"   * - {row[0]}")
        lines += [f"     - {cell}" for cell in row[1:]]
    return lines + [""]


def task_lines() -> list[str]:
    """RST tables of the bundled task files."""
    own = sorted(TASKS.glob("*.json"))
    rows = []
    for path in own:
        description = _task(path).get("description", "")
        scenarios, runners = _summary(path)
        rows.append([f"``tasks/{path.name}``", scenarios, runners, description])
    lines = ["Written by hand:", ""]
    lines += _table(("file", "scenarios", "runner", "description"), rows)
    by_name: dict[str, list[str]] = {}
    for path in sorted(TASKS.glob("*/*.json")):
        by_name.setdefault(path.name, []).append(path.parent.name)
    generated = []
    for name, modes in sorted(by_name.items()):
        scenarios, runners = _summary(TASKS / modes[0] / name)
        generated.append([f"``{name}``", scenarios, runners, ", ".join(modes)])
    lines += [
        f"Generated by ``rally-keystone-perf tasks --write`` "
        f"({sum(len(m) for m in by_name.values())} files, "
        "``tasks/<mode>/<name>``):",
        "",
    ]
    return lines + _table(("name", "scenarios", "runner", "modes"), generated)


def exit_code_lines() -> list[str]:
    from rally_keystone_perf.cli.common import EXIT_CODES

    rows = [[f"``{code}``", meaning] for code, meaning in EXIT_CODES]
    return _table(("exit code", "meaning"), rows)


def run_folder_lines() -> list[str]:
    from rally_keystone_perf.layout.rundir import LAYOUT

    rows = [[f"``{path}``", meaning] for path, meaning in LAYOUT]
    return _table(("path", "what it holds"), rows)


def _needs(requirements: Iterable[Any]) -> str:
    """Each install command once, with the programs (or modules) it brings."""
    by_hint: dict[str, list[str]] = {}
    for r in requirements:
        name = getattr(r, "executable", None) or r.module
        by_hint.setdefault(r.install_hint, []).append(name)
    return (
        "; ".join(
            f"``{hint}`` ({', '.join(programs)})" for hint, programs in by_hint.items()
        )
        or "nothing more"
    )


def requirement_lines() -> list[str]:
    """RST table: each mode and option choice, the programs it needs."""
    from rally_keystone_perf.deploy import modes

    rows = [
        [f"``--mode {name}``", _needs(mode.requirements)]
        for name, mode in modes.MODES.items()
    ]
    for option, table in (
        ("--cache", modes.CACHES),
        ("--db", modes.DATABASES),
        ("--identity", modes.IDENTITIES),
    ):
        rows += [[f"``{option} {k}``", _needs(v)] for k, v in table.items()]
    rows.append(["``--nodes N`` (N > 1)", _needs(modes.CLUSTER_REQUIREMENTS)])
    rows.append(["``--trace``", _needs((modes.REDIS,))])
    for choice, needed in modes.MODULES.items():
        rows.append([f"Python modules of ``{choice}``", _needs(needed)])
    return _table(
        ("choice", "how to install what it needs (the programs or modules)"), rows
    )


class _Generated(SphinxDirective):
    """A directive whose content is the RST a function makes of its argument."""

    optional_arguments = 1
    make: Callable[..., list[str]]

    def run(self) -> list[nodes.Node]:
        container = nodes.section()
        container.document = self.state.document
        source = f"<{self.name} in {self.env.docname}>"
        lines = type(self).make(*self.arguments)
        nested_parse_with_titles(self.state, StringList(lines, source), container)
        return list(container.children)


DIRECTIVES: dict[str, Callable[..., list[str]]] = {
    "keystone-perf-cli": cli_lines,
    "keystone-perf-plugins": plugin_lines,
    "keystone-perf-tasks": task_lines,
    "keystone-perf-exit-codes": exit_code_lines,
    "keystone-perf-run-folder": run_folder_lines,
    "keystone-perf-requirements": requirement_lines,
}


def setup(app: Sphinx) -> dict[str, Any]:
    for name, make in DIRECTIVES.items():
        directive = type(name, (_Generated,), {"make": staticmethod(make)})
        app.add_directive(name, directive)
    return {"parallel_read_safe": True, "version": "1"}
