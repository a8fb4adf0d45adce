"""Load-generator hosts: namespaces the Locust engine's workers run in.

``--worker-hosts netns:K`` gives the run K hosts of its own for the load
(``ksp<tag>c1..K``, each on a veth of a bridge, 198.18.0.0/15 as the
cluster's), so that the requests come from other addresses than the
server's and cross a network stack. Keystone (or the cluster's haproxy)
then listens on the bridge's address instead of 127.0.0.1: the workers
reach it over their veth, Rally reaches it as a local address. The network
is made before Keystone binds and removed when the run stops
(:func:`teardown` through run.json's ``client_network``).
"""

from __future__ import annotations

import dataclasses
import secrets

from rally_keystone_perf.deploy.cluster import network
from rally_keystone_perf.deploy.options import Deployment, LaunchError, Progress
from rally_keystone_perf.layout.rundir import RunDir

KIND = "c"  # namespaces ksp<tag>c<K>
MAX_HOSTS = network.MAX_NODES


def check(count: int) -> None:
    """Refuse before anything starts what cannot be made here."""
    if not 0 <= count <= MAX_HOSTS:
        raise LaunchError(
            f"--worker-hosts netns:K takes 1 to {MAX_HOSTS} hosts, not {count}"
        )
    if count:
        refused = network.can_create_namespaces()
        if refused is not None:
            raise LaunchError(
                f"--worker-hosts netns:{count} needs network namespaces, and this "
                f"machine refuses them ({refused}); run the workers here with "
                "--workers N instead"
            )


def make(run: RunDir, deployment: Deployment, progress: Progress) -> Deployment:
    """The hosts' network, recorded in run.json; the deployment now listening
    on the bridge's address (unchanged without worker hosts)."""
    count = deployment.options.client_hosts
    if not count:
        return deployment
    try:
        net = network.create(
            secrets.token_hex(2), network.free_subnet(), count, node_kind=KIND
        )
    except network.NetworkError as exc:
        raise LaunchError(f"cannot make the worker hosts' network: {exc}") from None
    run.write_state(client_network=net.to_json())
    progress(
        f"worker hosts: {count} namespaces ({', '.join(net.node_addresses)}) on "
        f"bridge {net.bridge}; Keystone listens on {net.shared_address}"
    )
    options = dataclasses.replace(deployment.options, host=net.shared_address)
    return dataclasses.replace(deployment, options=options)


def teardown(run: RunDir) -> None:
    """Remove the hosts' network, when the run has one."""
    recorded = run.state().client_network
    if recorded:
        network.teardown(network.Network.from_json(recorded))
