"""When the nova-fake stack is ready: its APIs answer, Neutron is warm, the
flavor and image the boot tasks name exist.
"""

from __future__ import annotations

import functools
import json
import subprocess
from typing import Any

from rally_keystone_perf.deploy import logtail, probes
from rally_keystone_perf.deploy.nova.config import (
    APIS,
    STEP_TIMEOUT,
    Api,
    StackError,
    StackPlan,
)
from rally_keystone_perf.layout.rundir import (
    RunDir,
)

FLAVOR = "ram64"  # seed 004's names, the bundled boot tasks' defaults
IMAGE = "TestVM"
IMAGE_BYTES = 4096
HTTP_TIMEOUT = 30.0  # seconds for each setup request to a service


def api_logs(run: RunDir, api: Api) -> str:
    """The tails of an API's logs: uwsgi's, the app's, its output."""
    return "\n".join(
        logtail.named_tail(run.logs / log)
        for log in (f"{api.name}-uwsgi.log", api.log, f"{api.name}-stdout.log")
        if (run.logs / log).exists()
    )


def wait_apis(
    run: RunDir, plan: StackPlan, procs: dict[str, subprocess.Popen[bytes]]
) -> None:
    """Wait until every API answers its version document (200 or 300)."""
    for api in APIS:
        root = f"http://{plan['host']}:{plan['ports'][api.name]}/"
        probes.wait_until(
            functools.partial(_answers, root),
            procs[api.name],
            api.name,
            STEP_TIMEOUT,
            functools.partial(api_logs, run, api),
        )


def _answers(url: str) -> bool:
    """True when ``url`` answers 200 or 300 (an API's version document)."""
    return probes.probe(url) in (200, 300)


def admin_session(run: RunDir, auth_url: str) -> Any:
    """A keystoneauth session as the run's admin (project-scoped)."""
    from keystoneauth1 import session  # costly: loads keystoneauth1 and requests
    from keystoneauth1.identity import v3  # costly: as above

    admin = json.loads(run.admin_secret.read_text())
    auth = v3.Password(
        auth_url=auth_url,
        username=admin["username"],
        password=admin["password"],
        project_name="admin",
        user_domain_id="default",
        project_domain_id="default",
    )
    return session.Session(auth=auth, timeout=HTTP_TIMEOUT)


def warm_up_neutron(
    run: RunDir, sess: Any, proc: subprocess.Popen[bytes], region: str
) -> None:
    """One authenticated ``GET /v2.0/networks``, then ``/v2.0/ports`` must work.

    Neutron 29.0.0 with no agents configures its SQLAlchemy mappers on a
    worker's first query: before that, ``GET /v2.0/ports`` answers 500
    ("'Port' has no attribute 'port_forwardings'") and every boot fails.
    """
    where = {"service_type": "network", "interface": "public", "region_name": region}
    neutron = next(api for api in APIS if api.name == "neutron-api")
    last: list[str] = []

    def status(path: str) -> int:
        try:
            response = sess.get(path, endpoint_filter=where, raise_exc=False)
        except Exception as exc:  # noqa: BLE001 - not listening yet, auth fails
            last[:] = [f"last error: {type(exc).__name__}: {exc}"]
            return 0
        last[:] = [f"last answer: {response.status_code}"]
        return int(response.status_code)

    probes.wait_until(
        lambda: status("/v2.0/networks") == 200,
        proc,
        "neutron-api",
        STEP_TIMEOUT,
        lambda: "\n".join([*last, api_logs(run, neutron)]),
        not_ready="Neutron did not answer an authenticated GET /v2.0/networks",
    )
    ports = status("/v2.0/ports")
    if ports != 200:
        raise StackError(
            f"Neutron answers GET /v2.0/ports with {ports} after its warm-up; "
            f"last lines of its logs:\n{api_logs(run, neutron)}"
        )


def create_flavor_and_image(sess: Any, region: str) -> None:
    """The public flavor and the tiny raw image the boot tasks name.

    The image data goes up with a Content-Length: uwsgi's HTTP router does
    not pass a chunked body on (glanceclient streams chunks).
    """
    from novaclient import client as nova_client  # costly: all of novaclient

    nova = nova_client.Client("2.1", session=sess, region_name=region)
    # disk 1 GB: a project member may not boot from a zero-disk flavor
    nova.flavors.create(FLAVOR, ram=64, vcpus=1, disk=1)
    image_api = {"service_type": "image", "interface": "public", "region_name": region}
    image = sess.post(
        "/v2/images",
        json={
            "name": IMAGE,
            "disk_format": "raw",
            "container_format": "bare",
            "visibility": "public",
        },
        endpoint_filter=image_api,
    ).json()
    sess.put(
        f"/v2/images/{image['id']}/file",
        data=b"\0" * IMAGE_BYTES,
        headers={"Content-Type": "application/octet-stream"},
        endpoint_filter=image_api,
    )
