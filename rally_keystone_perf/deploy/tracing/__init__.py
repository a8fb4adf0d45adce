"""``--trace`` on the deployment side: OSProfiler in every Keystone node.

:mod:`.profiler` (the ``--trace`` spec, Keystone's ``[profiler]``, the run's
redis), :mod:`.trace_driver` (OSProfiler's redis driver, one round trip per
request), :mod:`.trace_points` (the spans OSProfiler does not make) and
:mod:`.trace_store` (the traces copied into the run folder before redis
stops). The client's half is :mod:`rally_keystone_perf.client.tracing`, the
report's :mod:`rally_keystone_perf.report.readers.tracing`.
"""
