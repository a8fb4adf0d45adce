"""The HTML page kit: the document, its inline style sheet, escaping, tables."""

from __future__ import annotations

import html
from collections.abc import Iterable

CSP = "default-src 'none'; style-src 'unsafe-inline'"
INDENT_EM = 1.5

# the plots' own rules: in every page, and in a plot written as an SVG file
PLOT_STYLE = """
svg.plot { background: #fff; border: 1px solid #e3e8ed; border-radius: 4px;
           max-width: 100%; height: auto; }
svg.plot text { font-family: inherit; font-size: 12px; fill: #1d2328; }
svg.plot text.title { font-size: 13px; font-weight: 600; }
svg.plot .axis { stroke: #6b7580; stroke-width: 1; }
svg.plot .grid { stroke: #e3e8ed; stroke-width: 1; }
"""

STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans",
       sans-serif; margin: 0; color: #1d2328; background: #fff; line-height: 1.4; }
main { max-width: 1600px; margin: 0 auto; padding: 16px 16px 48px; }
h1 { font-size: 1.6em; margin: 0.4em 0; }
h2 { font-size: 1.3em; margin: 1.6em 0 0.4em; padding-bottom: 4px;
     border-bottom: 2px solid #d0d7de; word-break: break-all; }
section.workload, section.group, section.series {
  border: 1px solid #d0d7de; border-radius: 6px; padding: 6px 12px 12px;
  margin: 16px 0; }
.meta, .config, .summary { color: #4a545e; margin: 0.3em 0; }
.note { color: #8a4b00; font-weight: 600; margin: 0.3em 0; }
.config span { display: inline-block; margin-right: 1.2em; }
.config b { font-weight: 600; color: #1d2328; }
nav ul { columns: 2; margin: 0.3em 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.86em;
        font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; font-weight: 600; font-size: 1.12em;
          padding: 6px 0 8px; word-break: break-word; }
th, td { border: 1px solid #d0d7de; padding: 3px 5px; text-align: right;
         white-space: nowrap; }
th { background: #eef1f4; white-space: normal; vertical-align: bottom; }
th.text, td.text { text-align: left; }
tbody tr:nth-child(even) { background: #f7f9fb; }
tr.total td { font-weight: 600; }
tr.nested td.text { color: #4a545e; }
tr.first-run td { border-top: 2px solid #9aa5b1; }
td.v-faster { color: #1b5e20; font-weight: 600; }
td.v-slower { color: #b71c1c; font-weight: 600; }
td.v-baseline { color: #4a545e; }
td.v-ns { color: #4a545e; }
ul.errors { margin: 0.2em 0; color: #8a1c1c; }
ul.errors li { word-break: break-word; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 8px; }
td.wrap { white-space: normal; min-width: 24em; max-width: 60em;
          word-break: break-word; }
details.task { margin: 8px 0; }
details.task pre { background: #f7f9fb; border: 1px solid #e3e8ed; padding: 8px;
                   overflow-x: auto; font-size: 0.86em; }
td a { color: #1f6fb4; }
""".strip()


def esc(value: object) -> str:
    """``value`` as text escaped for HTML and SVG (quotes included)."""
    return html.escape(str(value), quote=True)


def page(title: str, body: Iterable[str]) -> str:
    """A complete HTML5 document with the inline style sheet."""
    head = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">',
        '<meta name="generator" content="rally-keystone-perf">',
        f"<title>{esc(title)}</title>",
        f"<style>\n{STYLE}\n{PLOT_STYLE.strip()}\n</style>",
        "</head>",
        "<body>",
        "<main>",
        f"<h1>{esc(title)}</h1>",
    ]
    return "\n".join([*head, *body, "</main>", "</body>", "</html>"]) + "\n"


def class_attr(*names: str) -> str:
    """`` class="..."`` of the non-empty ``names``, or nothing."""
    joined = " ".join(name for name in names if name)
    return f' class="{joined}"' if joined else ""


def config_line(config: dict[str, str]) -> str:
    """``key value`` pairs of a configuration on one line."""
    if not config:
        return ""
    pairs = "".join(
        f"<span><b>{esc(key)}</b> {esc(value)}</span>" for key, value in config.items()
    )
    return f'<p class="config">{pairs}</p>'
