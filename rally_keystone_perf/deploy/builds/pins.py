"""The libraries a build shares with the suite: the suite's own versions.

A build's venv gets the build's Keystone and, for every other library, the
version installed beside the suite (a pip constraints file made from this
interpreter's distributions): the only difference between two sides is the
Keystone asked for. The suite's server-side code also needs a few libraries
Keystone does not require (:data:`SERVER_LIBRARIES`); those the suite has are
installed into the build too, at the suite's versions.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import metadata

from packaging.utils import canonicalize_name

# never pinned: the build brings its own Keystone; the suite is not installed
NOT_PINNED = frozenset({"keystone", "rally-keystone-perf"})
# what the suite's code inside Keystone's processes imports beyond Keystone's
# own requirements: the eventlet mode's server, --trace's driver, the
# MariaDB, memcached, PostgreSQL and LDAP drivers the backends load
SERVER_LIBRARIES = (
    "oslo.service",
    "eventlet",
    "osprofiler",
    "redis",
    "PyMySQL",
    "pymemcache",
    "psycopg2-binary",
    "python-ldap",
    "ldappool",
)


@cache
def installed() -> dict[str, str]:
    """Every distribution beside the suite, canonical name -> version."""
    versions: dict[str, str] = {}
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"] or "")
        if name and name not in NOT_PINNED:
            versions.setdefault(name, dist.version)
    return dict(sorted(versions.items()))


def constraints() -> str:
    """A pip constraints file pinning every library to the suite's version."""
    return "".join(f"{name}=={version}\n" for name, version in installed().items())


def server_requirements() -> list[str]:
    """The server-side libraries the suite has, as ``name==version``."""
    versions = installed()
    return [
        f"{name}=={versions[canonicalize_name(name)]}"
        for name in SERVER_LIBRARIES
        if canonicalize_name(name) in versions
    ]


def digest() -> str:
    """sha256 of the pins and the server libraries: part of a build's key."""
    text = constraints() + "".join(server_requirements())
    return hashlib.sha256(text.encode()).hexdigest()
