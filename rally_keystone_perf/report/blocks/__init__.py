"""Documents as blocks: what a page says, before any format.

:mod:`.model` holds the block types (heading, table with typed columns,
lines, plot) and :class:`.model.Document`; one module per document kind
builds its document from that kind's figures (:mod:`.releases`). The
writers render any document in any format
(:mod:`rally_keystone_perf.report.writers.render`).
"""
