"""Every ``rally-keystone-perf`` command the README and the docs show works
as shown.

The examples are collected from README.rst, doc/source and the deployment
READMEs (the reference pages generated from the code are left out): each
line of a literal block that starts with the command (a ``$`` prompt
stripped, backslash continuations joined) and each inline literal that
does. Each example:

- parses with the CLI's own parser (shell quoting kept: ``--a='--x 1'``);
- names only repository files that exist;
- against someone else's cloud (``--os-cloud``) without ``--allow-writes``,
  gets a read-only plan (computed from the task alone, no network): else
  the command is refused before any request.

What the user supplies is written in capitals, as ``--help`` writes it: a
placeholder (``FILE``, ``runs/BASELINE``, ``HOST:PORT``, ``COMMAND``) is
neither looked for nor planned. A comment ``.. example: fails`` before a
literal block says its commands are shown failing.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.cli import ab_commands, cloud_commands
from rally_keystone_perf.cli.common import task_files
from rally_keystone_perf.cli.parser import build_parser
from rally_keystone_perf.run import matrix
from rally_keystone_perf.tasks import own_cloud
from rally_keystone_perf.tasks.model import TaskFile

ROOT = paths.resource_root()
PROGRAM = "rally-keystone-perf"
# pages made from the code (their examples are the code's own)
GENERATED = ("doc/source/reference/cli.rst", "doc/source/reference/plugins.rst")
PLACEHOLDER = re.compile(r"(?<![a-z])[A-Z][A-Z0-9_]+(?![a-z])")
MARK = re.compile(r"^\s*\.\. example: (fails)\s*$")
INLINE = re.compile(r"``(rally-keystone-perf(?: [^`]*)?)``", re.S)
FILE_LIKE = re.compile(r"\.(json|ya?ml|log|xml|html|md|csv|rst|sh|py)$")
# a placeholder whose option checks its type, and a value of that type
SAMPLES = {"HOST:PORT": "127.0.0.1:5557"}
# options whose value the command makes (a folder or a file it writes)
OUTPUTS = {"out", "junit", "ab_dir", "runs_dir", "matrix_dir", "study_dir"}
OUTPUTS |= {"release_dir", "build_cache", "run", "show", "bisect_dir"}


@dataclass(frozen=True)
class Example:
    """One command line shown in the docs."""

    page: str
    line: int
    text: str
    fails: bool = False

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"

    def argv(self) -> list[str]:
        """The arguments after the program's name, as a shell splits them."""
        return shlex.split(self.text, comments=True)[1:]


def _pages() -> list[Path]:
    found = [ROOT / "README.rst", *sorted((ROOT / "doc" / "source").rglob("*.rst"))]
    found += sorted((ROOT / "deployments").glob("*/README.rst"))
    return [p for p in found if str(p.relative_to(ROOT)) not in GENERATED]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _opens_block(line: str) -> bool:
    text = line.strip()
    if text.startswith(".. code-block::"):
        return True
    return text.endswith("::") and not text.startswith("..")


def _blocks(lines: list[str]) -> Iterator[tuple[str | None, list[tuple[int, str]]]]:
    """Each literal block's mark (``fails`` or None) and lines."""
    mark = None
    index = 0
    while index < len(lines):
        found = MARK.match(lines[index])
        if found:
            mark = found[1]
        if not _opens_block(lines[index]):
            index += 1
            continue
        indent = _indent(lines[index])
        end = index + 1
        block = []
        while end < len(lines) and (
            not lines[end].strip() or _indent(lines[end]) > indent
        ):
            block.append((end + 1, lines[end]))
            end += 1
        yield mark, block
        mark, index = None, end


def _commands(block: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """The block's command lines, continuations joined; in a block with
    ``$`` prompts, the prompted lines alone (the rest is output)."""
    prompted = any(raw.strip().startswith("$ ") for _, raw in block)
    current, start = "", 0
    for number, raw in block:
        text = raw.strip()
        if prompted and not current:
            if not text.startswith("$ "):
                continue
            text = text[2:]
        if current:
            current += " " + text
        elif text.startswith(PROGRAM + " "):
            current, start = text, number
        else:
            continue
        if current.endswith("\\"):
            current = current[:-1].rstrip()
            continue
        yield start, current
        current = ""


def examples() -> list[Example]:
    """Every example of every page, in page order."""
    found = []
    for path in _pages():
        page = str(path.relative_to(ROOT))
        text = path.read_text()
        for mark, block in _blocks(text.splitlines()):
            for number, command in _commands(block):
                found.append(Example(page, number, command, mark == "fails"))
        for match in INLINE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(Example(page, line, " ".join(match[1].split())))
    return found


def _parse(argv: list[str]) -> argparse.Namespace:
    """The CLI's parse of ``argv`` (a typed placeholder given its sample);
    a usage error raised as ValueError."""
    argv = [SAMPLES.get(arg, arg) for arg in argv]
    try:
        return build_parser().parse_args(argv)
    except SystemExit as exc:
        if exc.code == 0:  # --help
            return argparse.Namespace(command="help")
        raise ValueError("does not parse") from None


def _all_commands(example: Example) -> list[list[str]]:
    """The example's argv; a placeholder command stands for every one."""
    argv = example.argv()
    if argv and PLACEHOLDER.fullmatch(argv[0]):
        return [[name, *argv[1:]] for name in sorted(_command_names())]
    return [argv]


def _command_names() -> set[str]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    raise AssertionError("no commands")


def _named_files(args: argparse.Namespace) -> Iterator[str]:
    """The values of ``args`` that name a file or folder the user reads
    (an A/B side's options split as the shell would)."""
    for name, value in vars(args).items():
        if name in OUTPUTS or name == "func" or value is None:
            continue
        items = value if isinstance(value, list) else [value]
        if name in ab_commands.ab.SIDES:
            items = shlex.split(value)
        for item in items:
            text = str(item)
            if isinstance(item, Path) or "/" in text or FILE_LIKE.search(text):
                yield text


def _is_users(text: str) -> bool:
    """A path the user has (absolute, home, variables, URLs, runs/...)."""
    return (
        text.startswith(("/", "~", "$", "runs/"))
        or "://" in text
        or bool(PLACEHOLDER.search(text))
        or str(paths.tasks_dir()) in text  # a default: the bundled folder
    )


def missing_files(example: Example) -> list[str]:
    """The repository files ``example`` names that do not exist."""
    args = _parse(_all_commands(example)[0])
    return [
        text
        for text in _named_files(args)
        if not _is_users(text) and not (ROOT / text).exists()
    ]


ALL_USERS = 10**6  # --existing-users: the user's file holds enough users


def _cloud_sides(args: argparse.Namespace) -> list[argparse.Namespace]:
    """The parts of the command that run on someone else's cloud."""
    if args.command == "ab":
        sides = [ab_commands.side_arguments(args, s) for s in ab_commands.ab.SIDES]
        return [side for side in sides if side.os_cloud]
    return [args] if getattr(args, "os_cloud", None) else []


def _cloud_tasks(args: argparse.Namespace) -> list[TaskFile]:
    """The task files the command would run on the cloud."""
    if args.command == "matrix":
        folder = args.tasks_dir or paths.tasks_dir()
        cells = matrix.plan([cloud_commands.CLOUD_TASKS], args.tasks, args.size, folder)
        return [TaskFile.load(cell.task) for cell in cells]
    found = [args.task] if args.command in ("capacity", "ab") else task_files(args)
    return [TaskFile.load(Path(p), cloud_commands.task_args(args)) for p in found]


def refused_writes(example: Example) -> list[str]:
    """What ``example`` would write to a cloud without ``--allow-writes``."""
    refused = []
    for side in _cloud_sides(_parse(_all_commands(example)[0])):
        task = getattr(side, "task", None)
        task = task if isinstance(task, list) else [task]
        if side.allow_writes or any(PLACEHOLDER.search(str(t)) for t in task):
            continue
        given = ALL_USERS if side.existing_users else 0
        plan = own_cloud.build_plan(_cloud_tasks(side), given)
        if plan.writes:
            refused += [w.name for w in plan.workloads if w.writes or w.stays]
    return refused


EXAMPLES = examples()


def test_the_docs_show_examples() -> None:
    pages = {example.page for example in EXAMPLES}
    assert len(EXAMPLES) >= 50 and "README.rst" in pages


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_an_example_works_as_shown(example: Example) -> None:
    problems = []
    for argv in _all_commands(example):
        try:
            _parse(argv)
        except ValueError as exc:
            problems.append(f"{shlex.join(argv)}: {exc}")
    if not problems:
        problems += [f"no such file: {f}" for f in missing_files(example)]
    if not problems:
        problems += [
            f"refused without --allow-writes: {w}" for w in refused_writes(example)
        ]
    if example.fails:
        assert problems, f"{example}: marked as failing, but works"
    else:
        assert not problems, f"{example}: {problems}"


def test_the_collection_rules() -> None:
    page = """Shown failing:

.. example: fails

.. code-block:: console

   $ rally-keystone-perf ab --a='--processes 1' \\
       --rounds 4   # a comment
   ab: output that is not a command
   rally-keystone-perf output line

A literal block without prompts::

    rally-keystone-perf report runs/current
"""
    found = [(mark, list(_commands(b))) for mark, b in _blocks(page.splitlines())]
    joined = f"{PROGRAM} ab --a='--processes 1' --rounds 4   # a comment"
    assert found == [
        ("fails", [(7, joined)]),
        (None, [(14, "rally-keystone-perf report runs/current")]),
    ]
    example = Example("page", 7, found[0][1][0][1])
    assert example.argv() == ["ab", "--a=--processes 1", "--rounds", "4"]


def test_a_failing_example_is_caught() -> None:
    written = Example("page", 1, f"{PROGRAM} run --task tasks/uwsgi/nothing.json")
    assert missing_files(written) == ["tasks/uwsgi/nothing.json"]
    writes = Example("page", 1, f"{PROGRAM} run --os-cloud c --task tasks/smoke.json")
    assert refused_writes(writes)
    reads = Example(
        "page",
        1,
        f"{PROGRAM} run --os-cloud c --task tasks/uwsgi/list-projects-c10-quick.json",
    )
    assert refused_writes(reads) == []
    with pytest.raises(ValueError):
        _parse(Example("page", 1, f"{PROGRAM} run --no-such-flag").argv())
