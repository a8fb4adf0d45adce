"""Every plugin's docstring as Rally reads it (``rally plugin show``).

Rally takes a plugin's docstring apart with
``rally.common.plugin.info.parse_docstring``: a title (its first line), a
description, and a ``:param NAME:`` for each argument. Its description is
reStructuredText read without Sphinx, so a Sphinx role (``:mod:``) is an
error there. The rules are rally-openstack's own docstring test's
(``tests/unit/doc/test_docstrings.py``), with the description parsed.
"""

from __future__ import annotations

import inspect

import pytest
from docutils import frontend, nodes, utils
from docutils.parsers import rst
from rally import plugins
from rally.common.plugin import plugin
from rally.task import scenario


def _ours() -> list[type[plugin.Plugin]]:
    plugins.load()
    found = [
        p
        for p in plugin.Plugin.get_all()
        if p.__module__.startswith("rally_keystone_perf.")
    ]
    return sorted(found, key=lambda p: p.get_name())


def rst_problems(text: str) -> list[str]:
    """What plain docutils says of ``text`` (warnings and errors)."""
    settings = frontend.get_default_settings(rst.Parser)
    settings.report_level = 5  # collect the messages, print nothing
    settings.halt_level = 5
    document = utils.new_document("<docstring>", settings)
    rst.Parser().parse(text, document)
    return [
        message.astext().splitlines()[0]
        for message in document.findall(nodes.system_message)
        if message["level"] >= 2
    ]


PLUGINS = _ours()


def test_the_suite_has_plugins_of_every_kind() -> None:
    kinds = {p.__module__.split(".")[2] for p in PLUGINS}
    assert kinds == {"contexts", "hooks", "runners", "scenarios", "sla"}


@pytest.mark.parametrize("plugin_cls", PLUGINS, ids=lambda p: p.get_name())
def test_a_plugins_docstring_reads_in_rally(plugin_cls: type[plugin.Plugin]) -> None:
    info = plugin_cls.get_info()
    assert info["title"], "no docstring"
    assert not info["title"].startswith("Test"), info["title"]
    assert info["description"], "a title alone: say what it does and when"
    assert rst_problems(info["description"]) == []
    if issubclass(plugin_cls, scenario.Scenario):
        wanted = [
            p for p in inspect.signature(plugin_cls.run).parameters if p != "self"
        ]
        documented = [p["name"] for p in info["parameters"]]
        assert [p for p in wanted if p not in documented] == []


def test_a_sphinx_role_is_caught() -> None:
    assert rst_problems("Percentiles from :mod:`metrics`.")
    assert rst_problems("Plain ``literal`` text.") == []
