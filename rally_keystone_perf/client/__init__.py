"""The Keystone client library, at the bottom of the house.

One request per atomic action (:mod:`.keystone_v3`; its management calls,
projects, users, roles and application credentials, in
:mod:`.keystone_admin`), over a lean HTTP/1.1
transport (:mod:`.lean_http`, :mod:`.http_wire`) or keystoneauth's; the
trace headers of ``--trace`` (:mod:`.tracing`); the atomic actions' names
and routes (:mod:`.atomics`). Rally's plugins, the Locust workers, the
deployment's checks, the studies and the report all use it; it imports
nothing of the suite above it.
"""
