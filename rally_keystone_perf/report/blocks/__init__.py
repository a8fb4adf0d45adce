"""Documents as blocks: what a page says, before any format.

:mod:`.model` holds the block types (heading, table with typed columns,
lines, plot, blocks for some formats only) and :class:`.model.Document`;
one module per document kind builds its document from that kind's figures
(:mod:`.releases`, :mod:`.ab`, :mod:`.study`, :mod:`.capacity`,
:mod:`.gate`, :mod:`.trends`, :mod:`.combined`, :mod:`.scaling`), with
the parts some share (:mod:`.study_capacity`, :mod:`.study_plots`,
:mod:`.saturation`). The writers render any document in any format
(:mod:`rally_keystone_perf.report.writers.render`).
"""
