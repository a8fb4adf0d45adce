"""The options several commands share, and the checks of their values."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from rally_keystone_perf.cli.common import DEFAULT_RUNS
from rally_keystone_perf.deploy import modes
from rally_keystone_perf.deploy.user_pool import parse_size
from rally_keystone_perf.report.writers.registry import FORMATS

Group = argparse._ActionsContainer


def at_least(minimum: int) -> Callable[[str], int]:
    """argparse type of a whole number no smaller than ``minimum``."""

    def whole_number(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    whole_number.__name__ = "int"  # argparse names the type in its errors
    return whole_number


positive = at_least(1)


def checked(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type of ``parse``, keeping its ValueError's words."""

    def parsed(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parsed


def _pool(text: str) -> str:
    """``--user-pool``: ``auto``, ``none`` or ``TxU`` (parse_size says why not)."""
    choice = text.strip().lower()
    if choice not in ("auto", "none"):
        parse_size(choice)
    return choice


pool_choice = checked(_pool)


def task_args(text: str) -> dict[str, Any]:
    """argparse type of ``--task-args``: a JSON or YAML mapping, as Rally's."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        problem = str(exc).replace("\n", " ")
        raise argparse.ArgumentTypeError(f"not JSON or YAML: {problem}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a mapping, got {text!r}")
    return value


def mode_list(text: str) -> list[str]:
    """argparse type of ``--modes``: ``all`` or a comma-separated list."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [n for n in names if n not in modes.MODES and n != "all"]
    if unknown or not names:
        named = ", ".join(unknown) or repr(text)
        raise argparse.ArgumentTypeError(
            f"unknown mode(s) {named}; choose from "
            f"{', '.join(sorted(modes.MODES))} or all"
        )
    return names


def name_list(choices: Sequence[str]) -> Callable[[str], list[str]]:
    """argparse type of a comma-separated list of ``choices``."""

    def names(text: str) -> list[str]:
        found = [name.strip() for name in text.split(",") if name.strip()]
        unknown = [n for n in found if n not in choices]
        if unknown or not found:
            named = ", ".join(unknown) or repr(text)
            raise argparse.ArgumentTypeError(
                f"unknown {named}; choose from {', '.join(choices)}"
            )
        return list(dict.fromkeys(found))

    names.__name__ = "list"
    return names


def node_counts(text: str) -> list[int]:
    """argparse type of ``matrix --nodes``: node counts, comma-separated."""
    try:
        counts = [int(word) for word in text.split(",") if word.strip()]
    except ValueError:
        counts = []
    if not counts:
        raise argparse.ArgumentTypeError(f"not node counts: {text!r} (e.g. 1,2,3,4)")
    return list(dict.fromkeys(counts))


def percentage(text: str) -> float:
    """argparse type of ``--max-regression``: ``10%`` or ``10`` -> 0.10."""
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not 0 <= value < 1000:
        raise argparse.ArgumentTypeError(f"must be between 0% and 1000%, got {text}")
    return value / 100


def alpha(text: str) -> float:
    """argparse type of ``--alpha``: a float strictly between 0 and 1."""
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value:g}")
    return value


def add_command(
    sub: Any, name: str, func: Callable[..., int], help_text: str
) -> argparse.ArgumentParser:
    """Subcommand ``name``, run by ``func`` (its docstring the description
    ``--help`` prints), ``help_text`` its line in the commands' list."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help_text, description=func.__doc__
    )
    parser.set_defaults(func=func)
    return parser


def add_runs_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--runs-dir",
        type=Path,
        default=DEFAULT_RUNS,
        help="folder holding run folders (default: ./%(default)s)",
    )


def add_mismatch_option(parser: argparse.ArgumentParser, refusal: str) -> None:
    """``--allow-concurrency-mismatch`` of ``compare`` and ``gate``."""
    parser.add_argument(
        "--allow-concurrency-mismatch",
        action="store_true",
        help="compare a workload even when the concurrency its runner reached "
        "(peak iterations in flight; iterations started per second for rps) "
        f"differs from the baseline's by more than 10%% ({refusal})",
    )


def add_output_options(
    parser: argparse.ArgumentParser, formats: Sequence[str] = FORMATS
) -> None:
    """``--format`` (one of ``formats``) and ``--out`` of the commands that
    write a document (``report``, ``compare``, ``gate``)."""
    unrounded = ""
    if "csv" in formats:
        unrounded = "; csv and json keep numbers unrounded, json has a versioned schema"
    parser.add_argument(
        "--format",
        choices=formats,
        default="table",
        help=f"output format (default: %(default)s){unrounded}",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="FILE",
        help="write to FILE instead of standard output",
    )


def add_alpha(parser: argparse.ArgumentParser, tests: str) -> None:
    """``--alpha``: the significance level of ``tests``."""
    parser.add_argument(
        "--alpha",
        type=alpha,
        default=0.05,
        help=f"significance level of {tests} (default: %(default)s)",
    )
