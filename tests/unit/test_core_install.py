"""The core install: every Rally plugin and every command's module loads
where only the core's distributions can be imported.

``pip install rally-keystone-perf`` (no extra) holds the Rally plugins,
report/compare/gate/tasks and ``run --os-cloud`` (setup.cfg). This test
imports them in a child interpreter where every module of a distribution
outside the core's requirements (followed through their own requirements)
raises ImportError: Keystone, uwsgi, uv, redis, Locust, Nova... as on a
jump host. The slow tier installs the wheel itself
(tests/functional/test_core_wheel.py).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import metadata
from typing import Any

from packaging.requirements import Requirement

from rally_keystone_perf.deploy import extras

CHILD = r"""
import importlib, json, pkgutil, sys

BLOCKED = set(json.loads(sys.argv[1]))
BEFORE = set(sys.modules)  # a namespace package's .pth may make one at startup


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ImportError(f"{name}: not in the core install")
        return None


sys.meta_path.insert(0, Blocker())
failures = {}
from rally import plugins  # Rally's own load: its plugins, then ours

plugins.load()
import rally_keystone_perf.plugins as ours

for info in pkgutil.walk_packages(ours.__path__, ours.__name__ + "."):
    if info.name not in sys.modules:
        failures[info.name] = "not loaded by Rally"
import rally_keystone_perf.cli as cli
import rally_keystone_perf.report as report

for package in (cli, report):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except Exception as exc:
            failures[info.name] = f"{type(exc).__name__}: {exc}"
from rally_keystone_perf.cli.parser import build_parser

build_parser()
from rally.common.plugin import plugin

names = sorted(  # every kind: scenarios, runners, contexts, SLAs, hooks
    f"{p.__module__}:{p.get_name()}" for p in plugin.Plugin.get_all()
    if p.__module__.startswith("rally_keystone_perf.")
)
loaded = sorted(
    m for m in set(sys.modules) - BEFORE if m.partition(".")[0] in BLOCKED
)
print(json.dumps({"failures": failures, "plugins": names, "loaded": loaded}))
"""


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(requirements: list[Requirement]) -> set[str]:
    """The installed distributions ``requirements`` pull in, by key."""
    found: set[str] = set()
    todo = list(requirements)
    while todo:
        requirement = todo.pop()
        key = _key(requirement.name)
        if key in found or key == _key(extras.DISTRIBUTION):
            continue
        try:
            lines = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            continue
        found.add(key)
        wanted = {"", *requirement.extras}
        for line in lines:
            child = Requirement(line)
            if child.marker is None or any(
                child.marker.evaluate({"extra": extra}) for extra in wanted
            ):
                todo.append(child)
    return found


def _blocked_modules() -> set[str]:
    """The top-level modules of every installed distribution the core
    install does not pull in."""
    own = metadata.requires(extras.DISTRIBUTION) or []
    core = _closure([Requirement(r) for r in own if Requirement(r).marker is None])
    blocked = set()
    for module, dists in metadata.packages_distributions().items():
        keys = {_key(d) for d in dists}
        if keys & core or _key(extras.DISTRIBUTION) in keys:
            continue
        blocked.add(module)
    return blocked


def test_the_local_extras_modules_are_blocked() -> None:
    blocked = _blocked_modules()
    assert {"keystone", "uv", "redis", "pymysql", "pymemcache"} <= blocked
    assert not {"rally", "rally_openstack", "psutil", "scipy"} & blocked


def _load(blocked: list[str]) -> dict[str, Any]:
    """What a child interpreter loads with ``blocked``'s modules refused."""
    child = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(blocked)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    return dict(json.loads(child.stdout.strip().splitlines()[-1]))


def test_plugins_and_commands_load_on_the_core_install() -> None:
    core = _load(sorted(_blocked_modules()))
    assert core["failures"] == {}
    assert core["loaded"] == []
    full = _load([])  # this venv as it is: every extra
    assert core["plugins"] == full["plugins"]
    kinds = {name.split(".")[2] for name in core["plugins"]}
    assert kinds == {"contexts", "hooks", "runners", "scenarios", "sla"}
