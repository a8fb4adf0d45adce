"""The launch options of a command's arguments: every option, none by hand."""

from __future__ import annotations

import argparse
import dataclasses

from rally_keystone_perf.cli import common
from rally_keystone_perf.cli.parser import build_parser
from rally_keystone_perf.deploy.options import LaunchOptions


def _dests() -> set[str]:
    """Every option's destination, over every subcommand."""
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {a.dest for p in sub.choices.values() for a in p._actions}


def test_every_field_is_an_option_or_said_why_not() -> None:
    fields = {field.name for field in dataclasses.fields(LaunchOptions)}
    unset = fields - _dests() - common._NOT_AS_GIVEN
    assert unset == set()  # a new field with no option: say how it is set


def test_the_options_given_are_the_launch_options() -> None:
    args = build_parser().parse_args(
        ["run", "--mode", "apache", "--processes", "3", "--cache", "memcached"]
        + ["--password-hash-rounds", "4", "--wsgi", "stock", "--trace", "sample:0.5"]
    )
    options = common.launch_options(args)
    assert (options.mode, options.processes, options.cache) == (
        "apache",
        3,
        "memcached",
    )
    assert (options.password_hash_rounds, options.wsgi) == (4, "stock")
    assert options.trace == "sample:0.5" and options.client_hosts == 0
    matrix = build_parser().parse_args(["matrix", "--nodes", "3,1"])
    assert common.launch_options(matrix).nodes == 1  # the smallest, for the checks
    assert common.launch_options(matrix).mode == LaunchOptions().mode
