"""Writers: the report, compare, gate and combined documents in every format.

Each writer is a function ``(document, stream) -> None``; :mod:`.registry`
names them by format, one table per document kind. :mod:`.common` holds the
cells, tables, CSV and JSON pieces they share, :mod:`.text` the terminal and
markdown report, :mod:`.data` its CSV and JSON, :mod:`.server` the server
side of a report, :mod:`.compare` and :mod:`.gate` those documents and
:mod:`.html` the self-contained HTML pages.
"""
