"""The user's own Keystone: a cloud from clouds.yaml, probed, never started.

``target`` reads the cloud with openstacksdk's own config loader, ``probe``
checks it before any load (version document, credentials, roles, the APIs a
task needs), ``sweep`` finds and deletes what a run's Rally tasks created
and left (their generated names carry the task's id).
"""
