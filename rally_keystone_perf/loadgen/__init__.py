"""Load generators other than Rally's own runner: Locust's master and workers.

Below the Rally plugins (the ``keystone_perf_locust`` runner hands a
workload to :mod:`.locust.master`) and above the task files and the
deployment; the workers use the client library.
"""
