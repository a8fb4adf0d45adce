"""Keystone's CPU instructions per request, counted under valgrind.

Timings on a shared machine drift by tens of percent; instruction counts do
not. :mod:`.site` prepares a Keystone that runs inside one process (SQLite,
its keys, the workload's users), :mod:`.replay` replays a workload's requests
through Keystone's WSGI application in that process, and :mod:`.count` runs
the replay under callgrind and reads the counts back: instructions per
iteration of each workload, start-up and warm-up excluded.
"""
