"""The documentation (README.rst, doc/source) against the code it describes.

Every CLI option has help and every ``--flag`` the pages name exists; every
deployment folder, benchmark, study, report format and option choice has
its page. The pages themselves are built by ``tox -e docs``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.cli.parser import build_parser
from rally_keystone_perf.deploy import modes
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.studies.registry import STUDIES

ROOT = paths.resource_root()
DOC = ROOT / "doc" / "source"
README_LINES = 300
FLAG = re.compile(r"(?<![\w/-])--[a-z][a-z0-9-]*[a-z0-9]")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
# flags the pages name that belong to other programs, and why they are there
OTHER_PROGRAMS = {
    "--from-sysenv": "rally env create",
    "--name": "rally env create",
    "--spec": "rally env create",
    "--json": "rally task report",
    "--notest": "tox",
    "--run-slow": "pytest: the slow tier (tests/conftest.py)",
    "--durations": "pytest",
    "--dist": "pytest-xdist",
    "--wsrep-recover": "mariadbd, run by the Galera recovery",
    "--help": "every command",
    "--make-baseline": "ci/keystone-gate.sh",
    "--change": "ci/keystone-gate.sh",
    "--base": "ci/keystone-gate.sh",
    "--dry-run": "pip install, which resolves a build",
    "--report": "pip install, which resolves a build",
    "--tool": "valgrind, which counts instructions",
    "--task-args": "rally task start",
    "--config-files": "Keystone's own eventlet server (oslo.config)",
    "--wsrep-new-cluster": "mariadbd, the first Galera member",
    "--wsrep-start-position": "mariadbd, a rejoining Galera member",
    "--no-sandbox": "chromium",
    "--headless": "chromium",
    "--exclude-newer": "uv pip install, which installs a build as of a date",
}


def _pages() -> dict[Path, str]:
    """README.rst, every doc page and every README they include."""
    found = [ROOT / "README.rst", *DOC.rglob("*.rst")]
    found += (ROOT / "deployments").glob("*/README.rst")
    return {path: path.read_text() for path in found}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the parser has no commands")


def _options() -> list[tuple[str, argparse.Action]]:
    return [
        (name, action)
        for name, sub in _subparsers(build_parser()).items()
        for action in sub._actions
        if action.option_strings
    ]


def _benchmark_flags() -> set[str]:
    text = "".join(p.read_text() for p in (ROOT / "benchmarks").glob("*.py"))
    return set(re.findall(r'add_argument\(\s*"(--[a-z0-9-]+)"', text))


def test_every_option_has_help() -> None:
    missing = [
        f"{command} {action.option_strings[0]}"
        for command, action in _options()
        if not (action.help or "").strip() or action.help == argparse.SUPPRESS
    ]
    assert not missing, f"options without help: {missing}"


def test_every_documented_option_exists() -> None:
    known = {flag for _, action in _options() for flag in action.option_strings}
    known |= _benchmark_flags() | set(OTHER_PROGRAMS)
    unknown = {
        f"{path.relative_to(ROOT)}: {flag}"
        for path, text in _pages().items()
        for flag in FLAG.findall(text)
        if flag not in known
    }
    assert not unknown, sorted(unknown)


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.rst").read_text().splitlines()
    assert len(lines) <= README_LINES
    assert max(len(line) for line in lines) <= 79


def test_every_deployment_folder_has_a_page() -> None:
    index = (DOC / "user" / "deployments.rst").read_text()
    for folder in sorted(
        p.parent.name for p in paths.deployments_dir().glob("*/README.rst")
    ):
        page = DOC / "user" / "deployments" / f"{folder}.rst"
        assert page.is_file(), folder
        assert f"deployments/{folder}/README.rst" in page.read_text()
        assert f"deployments/{folder}\n" in index, folder


def test_every_benchmark_has_a_page() -> None:
    index = (DOC / "benchmarks" / "index.rst").read_text()
    for module in sorted((ROOT / "benchmarks").glob("*.py")):
        helpers = ("__init__", "harness", "neighbour", "calibration_table")
        if module.stem in helpers:
            continue
        page = DOC / "benchmarks" / f"{module.stem}.rst"
        assert page.is_file(), module.stem
        text = page.read_text()
        assert f".. automodule:: benchmarks.{module.stem}" in text
        figures = text.split("\nFigures\n-------\n", 1)[-1]
        assert "\nFigures\n" in text and DATE.search(figures), module.stem
        assert f"benchmarks.{module.stem}" in figures, module.stem
        assert f"\n   {module.stem}\n" in index, module.stem


@pytest.mark.parametrize("seed", sorted(STUDIES))
def test_every_study_has_a_page(seed: str) -> None:
    text = (DOC / "studies" / f"seed{seed}.rst").read_text()
    assert f"rally-keystone-perf study {seed}" in text
    assert DATE.search(text)
    assert f"\n   seed{seed}\n" in (DOC / "studies" / "index.rst").read_text()


def test_every_report_format_is_documented() -> None:
    text = (DOC / "user" / "reports.rst").read_text()
    for fmt in registry.FORMATS:
        assert fmt in text, fmt


def test_every_option_choice_is_documented() -> None:
    text = "\n".join(_pages().values())
    choices = {
        "--mode": modes.MODES,
        "--cache": modes.CACHES,
        "--db": modes.DATABASES,
        "--identity": modes.IDENTITIES,
        "--token-provider": modes.TOKEN_PROVIDERS,
    }
    missing = [
        f"{option} {choice}"
        for option, known in choices.items()
        for choice in known
        if f"{option} {choice}" not in text
    ]
    assert not missing, missing


def test_every_plugin_is_documented() -> None:
    from rally import plugins  # costly: all of rally
    from rally.task import context, hook, runner, scenario, sla  # costly: rally

    plugins.load()
    kinds = (scenario.Scenario, context.Context, sla.SLA, hook.HookAction)
    ours = [
        cls
        for base in (*kinds, runner.ScenarioRunner)
        for cls in base.get_all()
        if cls.__module__.startswith("rally_keystone_perf.")
    ]
    assert len(ours) >= 15
    for cls in ours:
        info = cls.get_info()
        assert info["title"] and info["description"], info["name"]
    reference = (DOC / "reference" / "plugins.rst").read_text()
    for kind in ("scenario", "context", "sla", "hook", "runner"):
        assert f".. keystone-perf-plugins:: {kind}\n" in reference


def test_the_install_page_lists_what_ci_installs() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    listed = re.search(r"for pkg in (.*?); do", ci, re.S)
    assert listed
    ci_packages = set(listed.group(1).replace("\\", " ").split())
    install = (DOC / "install.rst").read_text()
    block = re.search(r"    apt-get install (.*?)\n\n", install, re.S)
    assert block
    assert set(block.group(1).replace("\\", " ").split()) == ci_packages


def test_every_commands_help_is_plain_text() -> None:
    """``--help`` is read in a terminal: no doubled percent signs (a
    description is not %-formatted) and no reStructuredText markup."""
    leftovers = {
        f"{name}: {mark}"
        for name, sub in _subparsers(build_parser()).items()
        for mark in ("%%", "``", ":mod:", ":func:", ":class:", ":data:", ":doc:")
        if mark in sub.format_help()
    }
    assert not leftovers, sorted(leftovers)


INSTALL = re.compile(r"pip\s+install\s+(\S+)")


def test_every_install_of_the_suite_is_spelled_one_way() -> None:
    """``pip install 'rally-keystone-perf[EXTRA]'`` (or ``'.[EXTRA]'`` from
    a clone), quoted for every shell, with extras setup.cfg defines."""
    setup = (ROOT / "setup.cfg").read_text()
    extras = set(
        re.findall(r"^(\w+) =$", setup.split("[options.extras_require]")[1], re.M)
    )
    wrong = []
    for path, text in _pages().items():
        for spec in INSTALL.findall(" ".join(text.split())):
            if spec.startswith("..."):  # a list elided in the prose
                continue
            spec = spec.lstrip("`(").rstrip("`:;,.)")
            named = re.fullmatch(r"'(?:rally-keystone-perf|\.)\[([\w,]+)\]'", spec)
            if named and (set(named[1].split(",")) <= extras or named[1] == "EXTRA"):
                continue
            if spec in (
                "rally-keystone-perf",
                "tox",
                "...",
                "--dry-run",
            ) or spec.startswith("-"):
                continue
            wrong.append(f"{path.relative_to(ROOT)}: pip install {spec}")
    assert not wrong, wrong
