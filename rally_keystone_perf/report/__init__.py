"""Report step: Rally JSON task reports -> typed records -> statistics -> writers.

``load`` parses the file written by ``rally task report UUID --json``
(format_version "1.2") and ``source`` finds it from what a user names;
``config`` labels runs by their configuration; ``stats`` holds the one
definition of every statistic (the SLA plugins use it too) and reproduces
Rally's ``MainStatsTable``; ``entries`` computes a report's figures,
``compare`` compares runs with a baseline, ``gate`` judges a run against
one, ``combined`` puts many runs in one table and ``server_view`` adds the
server's side. ``writers`` writes them all (``writers.registry`` names the
formats) and ``api`` runs each pipeline (load -> compute -> write) for the
CLI and the benchmarks.

Importing this package imports nothing: the SLA plugins load
``report.stats`` inside Rally.
"""
