"""Report step: Rally JSON task reports -> typed records -> statistics -> writers.

:mod:`.readers.rally_json` parses the file written by ``rally task report
UUID --json`` (format_version "1.2") and :mod:`.readers.source` finds it
from what a user names; :mod:`.figures.run_labels` labels runs by their
configuration; :mod:`.figures.stats` computes a workload's statistics on
the one definition of each in :mod:`rally_keystone_perf.metrics` (the SLA
plugins use it too) and reproduces Rally's ``MainStatsTable``;
:mod:`.figures.entries` computes a report's figures, :mod:`.figures.compare`
compares runs with a baseline, :mod:`.figures.gate` judges a run against
one, :mod:`.figures.combined` puts many runs in one table and
:mod:`.figures.server_view` adds the server's side. :mod:`.writers` writes
them all (:mod:`.writers.registry` names the formats) and :mod:`.api` runs
each pipeline (load -> compute -> write) for the CLI and the benchmarks.

Importing this package imports none of its modules.
"""
