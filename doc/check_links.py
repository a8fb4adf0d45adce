"""Check every internal link of the built HTML documentation, and that no
page shows a docutils error (a "problematic" span Sphinx let through).

Usage: python doc/check_links.py doc/build/html

Every ``href`` and ``src`` of every page that is not an external address
(``http:``, ``https:``, ``mailto:``) must name a file of the build, and its
``#fragment``, if any, an ``id`` of that page. Prints each broken link and
exits 1 when there is one, 0 otherwise. No network: external addresses are
not checked.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

EXTERNAL = ("http", "https", "mailto", "data", "javascript")


class _Page(HTMLParser):
    """The links and the ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.problems = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "class" and value and "problematic" in value.split():
                self.problems += 1
            if name == "id" and value:
                self.ids.add(value)
            elif name == "name" and tag == "a" and value:
                self.ids.add(value)
            elif name in ("href", "src") and value is not None:
                self.links.append(value)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(root: Path) -> list[str]:
    """Every broken internal link under ``root``, as ``page: link (why)``."""
    pages = {path: _parse(path) for path in sorted(root.rglob("*.html"))}
    broken = []
    for path, page in pages.items():
        if page.problems:
            broken.append(f"{path.relative_to(root)}: {page.problems} docutils errors")
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme in EXTERNAL or parts.netloc:
                continue
            target = (
                (path.parent / unquote(parts.path)).resolve() if parts.path else path
            )
            where = f"{path.relative_to(root)}: {link}"
            if not target.exists():
                broken.append(f"{where} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where} (no such anchor)")
    return broken


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = Path(argv[0]).resolve()
    broken = broken_links(root)
    for line in broken:
        print(f"broken link: {line}")
    pages = len(list(root.rglob("*.html")))
    print(f"{pages} pages, {len(broken)} broken internal links")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
