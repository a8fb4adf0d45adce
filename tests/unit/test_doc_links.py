"""doc/check_links.py, the built documentation's link check, on small pages."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from rally_keystone_perf import paths

SPEC = importlib.util.spec_from_file_location(
    "check_links", paths.resource_root() / "doc" / "check_links.py"
)
assert SPEC and SPEC.loader
check_links = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(check_links)


def _site(root: Path, pages: dict[str, str]) -> Path:
    for name, body in pages.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"<html><body>{body}</body></html>")
    return root


def test_good_links_pass(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "index.html": '<a href="user/a.html#run">a</a> <a href="https://x.org/">x</a>',
            "user/a.html": '<h1 id="run">run</h1><a href="../index.html">up</a>'
            '<img src="../_static/p.png"> <a href="#run">here</a>',
            "_static/p.png": "",
        },
    )
    assert check_links.broken_links(site) == []
    assert check_links.main([str(site)]) == 0


def test_missing_files_anchors_and_docutils_errors_are_named(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "index.html": '<a href="gone.html">g</a> <a href="a.html#nowhere">n</a>',
            "a.html": '<span class="problematic" id="p1">*</span>',
        },
    )
    found = check_links.broken_links(site)
    assert "index.html: gone.html (no such file)" in found
    assert "index.html: a.html#nowhere (no such anchor)" in found
    assert "a.html: 1 docutils errors" in found
    assert check_links.main([str(site)]) == 1
