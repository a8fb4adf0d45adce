"""The names of a cluster's hosts, one spelling everywhere.

``node<K>`` (1-based) is Keystone host K: haproxy's server, the prefix of
its services (``node2-uwsgi``, ``node2-memcached``), its logs folder, its
cgroup, a fault target and the report's tier. ``galera<K>`` is Galera
member K the same way (its service, datadir, log and tier).
"""

from __future__ import annotations

import re

NODE = re.compile(r"node([1-9]\d*)")
GALERA_MEMBER = re.compile(r"galera([1-9]\d*)")
NODE_SERVICE = re.compile(rf"({NODE.pattern})-.+")  # node2-uwsgi: node2, 2


def node_name(index: int) -> str:
    """Node ``index``'s (0-based) name."""
    return f"node{index + 1}"


def member_name(index: int) -> str:
    """Galera member ``index``'s (0-based) name."""
    return f"galera{index + 1}"


def number(name: str, pattern: re.Pattern[str]) -> int | None:
    """K of ``node<K>`` or ``galera<K>`` (``pattern``: :data:`NODE` or
    :data:`GALERA_MEMBER`); None for another name."""
    match = pattern.fullmatch(name)
    return int(match[1]) if match else None
