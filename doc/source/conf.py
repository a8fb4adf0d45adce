"""Sphinx configuration of rally-keystone-perf's documentation (tox -e docs)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))
# the benchmarks package, for the benchmark pages' module docstrings
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

project = "rally-keystone-perf"
author = "the rally-keystone-perf developers"
copyright = "2026, the rally-keystone-perf developers"
extensions = [
    "sphinx.ext.autodoc",
    "keystone_perf_docs",
]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {"description": "Benchmark OpenStack Keystone honestly"}
html_static_path: list[str] = []
# the docs build on the core install (tox -e docs): a benchmark's module
# that imports Keystone (the local extra's) is documented all the same
autodoc_mock_imports = ["keystone"]
# a ``literal`` written with single backquotes is a mistake, not a reference
default_role = "literal"
nitpicky = False
# option names keep their two hyphens (--trace, not an en dash)
smartquotes = False
