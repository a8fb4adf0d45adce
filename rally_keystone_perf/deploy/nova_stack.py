"""The nova-fake mode's OpenStack services beside the local Keystone.

Real services from PyPI (the ``nova`` extra) and Debian, all on loopback,
all the run's own children: RabbitMQ (:mod:`.rabbitmq`); Placement, Glance
(file store), nova-api and a minimal Neutron API, each under uwsgi; then
nova-conductor, nova-scheduler and one or more nova-computes with the fake
virt driver (how OpenStack simulates compute hosts). The databases live on the
run's MariaDB.

Two phases around Keystone's start:

* :func:`prepare` while Keystone is stopped: ports, generated passwords
  (``private/stack.json``) and the catalog (:mod:`.service_catalog`).
* :func:`start` once Keystone answers: databases and their schemas,
  RabbitMQ, the services, the compute host's cell mapping, then the flavor
  and image the bundled boot tasks name (:data:`FLAVOR`, :data:`IMAGE`).

The services' configs hold passwords, so they are rendered under
``private/stack/``; their logs go to the run's ``logs/``.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import backends, rabbitmq, services
from rally_keystone_perf.deploy.nova_config import (
    APIS,
    DAEMONS,
    DB_USER,
    Api,
    StackError,
    check_computes,
    compute_hosts,
    endpoint,
    rabbit_node,
    render,
    stack_dir,
    template_values,
)
from rally_keystone_perf.deploy.rundir import (
    RunDir,
    private_umask,
    write_private_json,
)

Progress = Callable[[str], None]
STACK_JSON = "stack.json"
DATABASES = ("nova_api", "nova", "nova_cell0", "placement", "glance", "neutron")
FLAVOR = "ram64"  # seed 004's names, the bundled boot tasks' defaults
IMAGE = "TestVM"
IMAGE_BYTES = 4096
STEP_TIMEOUT = 300.0
HTTP_TIMEOUT = 30.0  # seconds for each setup request to a service
TIER = "openstack"  # the services stop together (see services.stop_all)


# cell mapping templates (nova.objects.cell_mapping formats them per service)
CELL_DB = "{scheme}://{username}:{password}@{hostname}:{port}/{path}?{query}"
CELL0_DB = "{scheme}://{username}:{password}@{hostname}:{port}/nova_cell0?{query}"
CELL_MQ = "{scheme}://{username}:{password}@{hostname}:{port}/"


def prepare(
    run: RunDir,
    host: str,
    keystone_config: list[Path],
    region: str,
    progress: Progress,
    computes: int = 1,
) -> dict[str, Any]:
    """Pick ports, generate passwords, register the catalog; return the plan.

    Keystone must be stopped (its managers run in a process of their own).
    ``computes`` fake compute hosts will be started.
    """
    check_computes(computes)
    # one pick for all: no two services get the same port
    keystone_port = run.read_state().get("options", {}).get("port")
    taken = {int(keystone_port)} if keystone_port else set()
    picked = rabbitmq.pick_low_ports(host, len(APIS) + rabbitmq.PORTS, taken)
    ports, rabbit_ports = picked[: len(APIS)], picked[len(APIS) :]
    node = rabbitmq.plan(host, stack_dir(run) / "rabbitmq", rabbit_ports)
    plan: dict[str, Any] = {
        "host": host,
        "region": region,
        "ports": {api.name: port for api, port in zip(APIS, ports, strict=True)},
        "rabbit": {
            "amqp_port": node.amqp_port,
            "dist_port": node.dist_port,
            "epmd_port": node.epmd_port,
            "nodename": node.nodename,
            "ctl_ports": list(node.ctl_ports),
        },
        "computes": computes,
        "service_password": secrets.token_urlsafe(24),
        "db_password": secrets.token_urlsafe(24),
        "rabbit_password": secrets.token_urlsafe(24),
    }
    stack_dir(run).mkdir(mode=0o700, exist_ok=True)
    write_private_json(run.private / STACK_JSON, plan)
    spec = {
        "region": region,
        "password": plan["service_password"],
        "services": [
            {"user": api.user, "type": api.service_type, "url": endpoint(plan, api)}
            for api in APIS
        ],
    }
    spec_file = run.private / "service-catalog.json"
    write_private_json(spec_file, spec)
    progress("registering compute, placement, image and network in the catalog")
    files = [arg for f in keystone_config for arg in ("--config-file", str(f))]
    module = "rally_keystone_perf.deploy.service_catalog"
    try:
        _run_logged(
            run,
            "service-catalog.log",
            [sys.executable, "-m", module, *files, "--spec", str(spec_file)],
            "registering the services in Keystone",
            env=services.QUIET_WARNINGS,
        )
    finally:
        spec_file.unlink()
    return plan


def load_plan(run: RunDir) -> dict[str, Any]:
    """The plan :func:`prepare` wrote (ports and passwords)."""
    return dict(json.loads((run.private / STACK_JSON).read_text()))


def secrets_of(run: RunDir) -> list[str]:
    """The stack's generated passwords (none when the run has no stack)."""
    try:
        plan = load_plan(run)
    except FileNotFoundError:
        return []
    return [plan["service_password"], plan["db_password"], plan["rabbit_password"]]


def _run_logged(
    run: RunDir,
    log_name: str,
    argv: list[str],
    what: str,
    env: dict[str, str] | None = None,
) -> str:
    """Run a setup command, its output appended to a log; return the output."""
    log_path = run.logs / log_name
    result = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        cwd=run.root,
    )
    with open(log_path, "a") as log:
        log.write(f"$ {Path(argv[0]).name} {' '.join(argv[1:])}\n")
        log.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise StackError(
            f"{what} failed (exit {result.returncode}); last lines of its log:\n"
            + backends.named_tail(log_path)
        )
    return result.stdout


def _exe(name: str) -> str:
    return str(paths.venv_bin(name))


def sync_databases(run: RunDir) -> None:
    """Create every schema (placement, glance, nova's three, neutron)."""
    top = stack_dir(run)
    nova = [_exe("nova-manage"), "--config-file", str(top / "nova" / "nova.conf")]
    steps = [
        (
            [_exe("placement-manage"), "--config-file"]
            + [str(top / "placement" / "placement.conf"), "db", "sync"],
            "placement-manage db sync",
        ),
        (
            [_exe("glance-manage"), "--config-file"]
            + [str(top / "glance" / "glance-api.conf"), "db_sync"],
            "glance-manage db_sync",
        ),
        ([*nova, "api_db", "sync"], "nova-manage api_db sync"),
        # the cell mappings hold URL templates that each service fills from
        # its own config: no password is stored in nova_api or typed here
        (
            [*nova, "cell_v2", "map_cell0", "--database_connection", CELL0_DB],
            "nova-manage cell_v2 map_cell0",
        ),
        (
            [*nova, "cell_v2", "create_cell", "--name", "cell1"]
            + ["--database_connection", CELL_DB, "--transport-url", CELL_MQ],
            "nova-manage cell_v2 create_cell",
        ),
        ([*nova, "db", "sync"], "nova-manage db sync"),
        (
            [_exe("neutron-db-manage"), "--config-file"]
            + [str(top / "neutron" / "neutron.conf"), "upgrade", "heads"],
            "neutron-db-manage upgrade heads",
        ),
    ]
    for argv, what in steps:
        _run_logged(run, "stack-manage.log", argv, what)


def start_services(
    run: RunDir, plan: dict[str, Any]
) -> dict[str, subprocess.Popen[bytes]]:
    """Start the uwsgi APIs, Nova's daemons, the computes; return them by name."""
    top = stack_dir(run)
    nova_conf = ["--config-file", str(top / "nova" / "nova.conf")]
    procs = {}
    for api in APIS:
        argv = [_exe("uwsgi"), "--ini", str(top / f"uwsgi-{api.name}.ini")]
        procs[api.name] = services.start(run, api.name, argv, tier=TIER)
    for daemon in DAEMONS:
        argv = [_exe(daemon), *nova_conf]
        procs[daemon] = services.start(run, daemon, argv, tier=TIER)
    for index in range(1, len(compute_hosts(plan)) + 1):
        own = ["--config-file", str(top / "nova" / f"compute-{index}.conf")]
        name = f"nova-compute-{index}"
        argv = [_exe("nova-compute"), *nova_conf, *own]
        procs[name] = services.start(run, name, argv, tier=TIER)
    return procs


def _api_logs(run: RunDir, api: Api) -> str:
    """The tails of an API's logs: uwsgi's, the app's, its output."""
    return "\n".join(
        backends.named_tail(run.logs / log)
        for log in (f"{api.name}-uwsgi.log", api.log, f"{api.name}-stdout.log")
        if (run.logs / log).exists()
    )


def wait_apis(
    run: RunDir, plan: dict[str, Any], procs: dict[str, subprocess.Popen[bytes]]
) -> None:
    """Wait until every API answers its version document (200 or 300)."""
    for api in APIS:
        root = f"http://{plan['host']}:{plan['ports'][api.name]}/"
        services.wait_until(
            functools.partial(_answers, root),
            procs[api.name],
            api.name,
            STEP_TIMEOUT,
            functools.partial(_api_logs, run, api),
        )


def _answers(url: str) -> bool:
    """True when ``url`` answers 200 or 300 (an API's version document)."""
    return services.probe(url) in (200, 300)


def admin_session(run: RunDir, auth_url: str) -> Any:
    """A keystoneauth session as the run's admin (project-scoped)."""
    from keystoneauth1 import session
    from keystoneauth1.identity import v3

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

    services.wait_until(
        lambda: status("/v2.0/networks") == 200,
        proc,
        "neutron-api",
        STEP_TIMEOUT,
        lambda: "\n".join([*last, _api_logs(run, neutron)]),
        not_ready="Neutron did not answer an authenticated GET /v2.0/networks",
    )
    ports = status("/v2.0/ports")
    if ports != 200:
        raise StackError(
            f"Neutron answers GET /v2.0/ports with {ports} after its warm-up; "
            f"last lines of its logs:\n{_api_logs(run, neutron)}"
        )


def map_compute_hosts(
    run: RunDir, plan: dict[str, Any], procs: dict[str, subprocess.Popen[bytes]]
) -> None:
    """Map the fake compute hosts to cell1 (``discover_hosts`` until listed).

    A compute that exits meanwhile fails the start at once, with its log.
    """
    nova = [
        _exe("nova-manage"),
        "--config-file",
        str(stack_dir(run) / "nova" / "nova.conf"),
        "cell_v2",
    ]
    hosts = compute_hosts(plan)

    computes = {n: p for n, p in procs.items() if n.startswith("nova-compute-")}

    def mapped() -> bool:
        for name, proc in computes.items():
            if proc.poll() is not None:
                raise StackError(
                    f"{name} exited with code {proc.returncode} while starting; "
                    f"last lines of its log:\n"
                    + backends.named_tail(run.logs / f"{name}.log")
                )
        _run_logged(run, "stack-manage.log", [*nova, "discover_hosts"], "discover")
        listed = _run_logged(run, "stack-manage.log", [*nova, "list_hosts"], "list")
        if all(f" {host} " in listed for host in hosts):
            return True
        time.sleep(2)
        return False

    services.wait_until(
        mapped,
        computes["nova-compute-1"],
        "nova-compute-1",
        STEP_TIMEOUT,
        lambda: backends.named_tail(run.logs / "nova-compute-1.log"),
        not_ready=f"the compute hosts {', '.join(hosts)} were not all mapped to a cell",
    )


def create_flavor_and_image(sess: Any, region: str) -> None:
    """The public flavor and the tiny raw image the boot tasks name.

    The image data goes up with a Content-Length: uwsgi's HTTP router does
    not pass a chunked body on (glanceclient streams chunks).
    """
    from novaclient import client as nova_client

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


def start(
    run: RunDir,
    plan: dict[str, Any],
    auth_url: str,
    executables: dict[str, Path],
    progress: Progress,
) -> dict[str, float]:
    """Bring the whole stack up; return the seconds of each phase.

    ``executables`` are the launcher's checked requirements (``mariadbd``,
    ``epmd``). Every process is recorded in run.json as it starts, so the
    launcher's stop ends them all, also after a failure here.
    """
    started = time.monotonic()
    timings: dict[str, float] = {}
    state = run.read_state()
    host = plan["host"]
    db_port = int(state["db_port"])
    socket_path = Path(state["sockets_dir"]) / "mariadb.sock"
    values = template_values(run, plan, auth_url, db_port)
    with private_umask():  # the configs hold the stack's passwords
        render(run, plan, values)
    node = rabbit_node(run, plan)
    progress(f"starting RabbitMQ on {host}:{node.amqp_port}")
    rabbit = rabbitmq.start(run, node, executables["epmd"])
    progress("creating the services' databases and schemas (about 40 s)")
    mark = time.monotonic()
    backends.create_databases(
        executables["mariadbd"],
        socket_path,
        host,
        list(DATABASES),
        DB_USER,
        plan["db_password"],
    )
    sync_databases(run)
    timings["databases"] = time.monotonic() - mark
    rabbitmq.wait_ready(run, node, rabbit, STEP_TIMEOUT)
    progress(
        "starting Placement, Glance, Neutron, nova-api, conductor, "
        "scheduler and compute"
    )
    mark = time.monotonic()
    procs = start_services(run, plan)
    wait_apis(run, plan, procs)
    sess = admin_session(run, auth_url)
    warm_up_neutron(run, sess, procs["neutron-api"], plan["region"])
    map_compute_hosts(run, plan, procs)
    timings["services"] = time.monotonic() - mark
    try:
        create_flavor_and_image(sess, plan["region"])
    except Exception as exc:  # noqa: BLE001 - any client error: say which step
        raise StackError(
            f"creating the flavor {FLAVOR} and the image {IMAGE} failed: "
            f"{type(exc).__name__}: {exc}\n{_api_logs(run, APIS[1])}\n"
            + backends.named_tail(run.logs / "nova-api.log")
        ) from None
    timings["total"] = time.monotonic() - started
    return timings


def memory_mb(run: RunDir) -> tuple[float, int]:
    """RSS (MB, summed) and count of every process of the run, Keystone included.

    A sum of RSS counts shared pages once per process: an upper bound.
    """
    total = 0
    count = 0
    for pid in (run.read_state().get("services") or {}).values():
        try:
            top = psutil.Process(int(pid))
            tree = [top, *top.children(recursive=True)]
        except psutil.Error:
            continue
        for proc in tree:
            try:
                total += proc.memory_info().rss
                count += 1
            except psutil.Error:
                continue
    return total / 2**20, count
