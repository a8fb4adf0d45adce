"""The slow tier: tests marked ``slow`` run only with ``--run-slow``.

A slow test checks a measurement's quality (how close a search comes, how
repeatable a figure is) at a size CI's 45 minutes cannot hold; the
behaviour it also covers is kept in the default run by a smaller test.
``tox -e slow`` runs them (``CI_SLOW=1 bash .ci/run`` too):
doc/source/contributor/ci.rst.
"""

from __future__ import annotations

import pytest

RUN_SLOW = "--run-slow"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--run-slow``: run the slow tier's tests too."""
    parser.addoption(
        RUN_SLOW,
        action="store_true",
        default=False,
        help="also run the tests marked slow (tox -e slow)",
    )


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Skip the slow tier's tests unless ``--run-slow`` asks for them."""
    if config.getoption(RUN_SLOW):
        return
    skip = pytest.mark.skip(reason="slow tier: tox -e slow (CI_SLOW=1 .ci/run)")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)
