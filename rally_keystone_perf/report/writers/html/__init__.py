"""The report and the comparison as one self-contained HTML page each.

The page needs nothing but itself: styles are inline, there is no script,
font, image or link to anything outside the file, and a Content Security
Policy (``default-src 'none'``) makes the browser refuse any such resource.
Plots are inline SVG drawn here (:mod:`.charts`, no plotting library).

The tables hold the same cells as the ``table`` format (same rounding, same
columns, the same row builders for the comparison); every table's caption
names its scenario. All text (scenario names, file names, error messages) is
escaped with :func:`html.escape` (:func:`.kit.esc`); tracebacks are never
shown.

:mod:`.report` shows, per workload, Rally's statistics table, the load
duration and throughput, the concurrency asked and reached, the error
summary and the iteration durations over time. :mod:`.comparison` shows one
table per matched workload and, for every latency-vs-concurrency series, its
table and plots of the latency percentiles, the throughput and the success
rate against concurrency. :mod:`.kit` is the page, its style sheet and its
tables.
"""
