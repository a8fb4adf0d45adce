"""What every HTML page shares.

The page needs nothing but itself: styles are inline, there is no script,
font, image or link to anything outside the file, and a Content Security
Policy (``default-src 'none'``) makes the browser refuse any such resource.
Plots are inline SVG drawn here (:mod:`.charts`, no plotting library).

The tables hold the same cells as the ``table`` format (same rounding, same
columns); every table's caption names its scenario. All text (scenario
names, file names, error messages) is escaped with :func:`html.escape`
(:func:`.kit.esc`); tracebacks are never shown.

:mod:`.kit` is the page, its style sheet and its tables, :mod:`.charts`
the plots, :mod:`.tracing` a traced iteration's waterfall. Every document
kind (:mod:`rally_keystone_perf.report.blocks`), the report page
(:mod:`rally_keystone_perf.report.blocks.report`) included, has its HTML
from :func:`rally_keystone_perf.report.writers.render.render_html`.
"""
