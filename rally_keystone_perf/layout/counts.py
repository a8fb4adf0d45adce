"""``instructions.json``: an A/B's instruction counts, in the A/B folder.

``rally-keystone-perf ab --instructions`` writes it
(:mod:`rally_keystone_perf.run.instructions`), the report reads it back
(:mod:`rally_keystone_perf.report.readers.instructions`). Its ``version`` is
:data:`COUNTS_VERSION`; a reader refuses another. Beside it, ``conditions``
(what the counts cover, in words) and ``sides``: per side its build and the
counts of each workload (``position``, ``scenario``, ``per_request``,
``spread``, and ``statements_per_request`` by kind: absent from counts made
before statements were counted, which a reader takes as not counted).
"""

from __future__ import annotations

COUNTS_FILE = "instructions.json"
COUNTS_VERSION = 1

# a statement's kind (``statements_per_request``'s keys), by its first word
# (:func:`rally_keystone_perf.deploy.instructions.statements.kind`)
READ, WRITE, TRANSACTION, PRAGMA, OTHER = STATEMENT_KINDS = (
    "read",
    "write",
    "transaction",
    "pragma",
    "other",
)
QUERIES = (READ, WRITE)  # what a database server answers with Keystone's rows
