"""Writers: every document kind in every format.

Each writer is a function ``(figures, stream) -> None``; :mod:`.registry`
names them by format, one table per document kind. A kind built as a
document (:mod:`rally_keystone_perf.report.blocks`) is rendered by
:mod:`.render`, one renderer per format, its values written by
:mod:`.cells`. :mod:`.common` holds the cells, tables, CSV and JSON pieces
they share, :mod:`.junit` the gate as JUnit XML and :mod:`.html` the
report's self-contained HTML page.
"""
