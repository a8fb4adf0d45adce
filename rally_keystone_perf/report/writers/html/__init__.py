"""The report as one self-contained HTML page, and what every page shares.

The page needs nothing but itself: styles are inline, there is no script,
font, image or link to anything outside the file, and a Content Security
Policy (``default-src 'none'``) makes the browser refuse any such resource.
Plots are inline SVG drawn here (:mod:`.charts`, no plotting library).

The tables hold the same cells as the ``table`` format (same rounding, same
columns); every table's caption names its scenario. All text (scenario
names, file names, error messages) is escaped with :func:`html.escape`
(:func:`.kit.esc`); tracebacks are never shown.

:mod:`.report` shows, per workload, Rally's statistics table, the load
duration and throughput, the concurrency asked and reached, the error
summary and the iteration durations over time;
:mod:`rally_keystone_perf.report.blocks.overview` the top of the page, for
runs at several levels their latency-vs-concurrency series as
the comparison draws them
(:func:`rally_keystone_perf.report.blocks.compare.series_section`).
:mod:`.kit` is the page, its style sheet and its tables. The document kinds
(:mod:`rally_keystone_perf.report.blocks`) have their HTML from
:func:`rally_keystone_perf.report.writers.render.render_html`.
"""
