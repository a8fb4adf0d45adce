"""The nova-fake mode's OpenStack services beside the local Keystone.

Real services from PyPI (the ``nova`` extra) and Debian, all on loopback,
all the run's own children: RabbitMQ (:mod:`..backends.rabbitmq`);
Placement, Glance (file store), nova-api and a minimal Neutron API, each
under uwsgi; then nova-conductor, nova-scheduler and one or more
nova-computes with the fake virt driver (how OpenStack simulates compute
hosts). The databases live on the run's MariaDB.

Two phases around Keystone's start:

* :func:`prepare` while Keystone is stopped: ports, generated passwords
  (``private/stack.json``) and the catalog (:mod:`..service_catalog`).
* :func:`start` once Keystone answers: databases and their schemas,
  RabbitMQ, the services, the compute host's cell mapping, then the flavor
  and image the bundled boot tasks name (:data:`.ready.FLAVOR`, :data:`.ready.IMAGE`).

The services' configs hold passwords, so they are rendered under
``private/stack/``; their logs go to the run's ``logs/``.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil

from rally_keystone_perf.deploy import logtail, services
from rally_keystone_perf.deploy.backends import mariadb, rabbitmq
from rally_keystone_perf.deploy.keystone.config import config_args
from rally_keystone_perf.deploy.nova import manage, ready
from rally_keystone_perf.deploy.nova.config import (
    APIS,
    DAEMONS,
    DB_USER,
    STEP_TIMEOUT,
    StackError,
    StackPlan,
    check_computes,
    compute_hosts,
    endpoint,
    rabbit_node,
    render,
    stack_dir,
    template_values,
)
from rally_keystone_perf.layout.rundir import (
    RunDir,
    private_umask,
    write_private_json,
)

Progress = Callable[[str], None]
STACK_JSON = "stack.json"  # run.stack_plan's name
DATABASES = ("nova_api", "nova", "nova_cell0", "placement", "glance", "neutron")
TIER = "openstack"  # the services stop together (see services.stop_all)


def prepare(
    run: RunDir,
    host: str,
    keystone_config: list[Path],
    region: str,
    progress: Progress,
    computes: int = 1,
) -> StackPlan:
    """Pick ports, generate passwords, register the catalog; return the plan.

    Keystone must be stopped (its managers run in a process of their own).
    ``computes`` fake compute hosts will be started.
    """
    check_computes(computes)
    # one pick for all: no two services get the same port
    keystone_port = (run.state().options or {}).get("port")
    taken = {int(keystone_port)} if keystone_port else set()
    picked = rabbitmq.pick_low_ports(host, len(APIS) + rabbitmq.PORTS, taken)
    ports, rabbit_ports = picked[: len(APIS)], picked[len(APIS) :]
    node = rabbitmq.plan(host, stack_dir(run) / "rabbitmq", rabbit_ports)
    plan: StackPlan = {
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
    write_private_json(run.stack_plan, plan)
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
    files = config_args(keystone_config)
    module = "rally_keystone_perf.deploy.service_catalog"
    try:
        manage.run_logged(
            run,
            "service-catalog.log",
            [sys.executable, "-m", module, *files, "--spec", str(spec_file)],
            "registering the services in Keystone",
            env=services.QUIET_WARNINGS,
        )
    finally:
        spec_file.unlink()
    return plan


def start_services(run: RunDir, plan: StackPlan) -> dict[str, subprocess.Popen[bytes]]:
    """Start the uwsgi APIs, Nova's daemons, the computes; return them by name."""
    top = stack_dir(run)
    nova_conf = ["--config-file", str(top / "nova" / "nova.conf")]
    procs = {}
    for api in APIS:
        argv = [manage.exe("uwsgi"), "--ini", str(top / f"uwsgi-{api.name}.ini")]
        procs[api.name] = services.start(run, api.name, argv, tier=TIER)
    for daemon in DAEMONS:
        argv = [manage.exe(daemon), *nova_conf]
        procs[daemon] = services.start(run, daemon, argv, tier=TIER)
    for index in range(1, len(compute_hosts(plan)) + 1):
        own = ["--config-file", str(top / "nova" / f"compute-{index}.conf")]
        name = f"nova-compute-{index}"
        argv = [manage.exe("nova-compute"), *nova_conf, *own]
        procs[name] = services.start(run, name, argv, tier=TIER)
    return procs


def start(
    run: RunDir,
    plan: StackPlan,
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
    state = run.state()
    host = plan["host"]
    if state.db_port is None or state.sockets_dir is None:
        raise StackError("the run records no MariaDB (db_port, sockets_dir)")
    db_port = state.db_port
    socket_path = Path(state.sockets_dir) / "mariadb.sock"
    values = template_values(run, plan, auth_url, db_port)
    with private_umask():  # the configs hold the stack's passwords
        render(run, plan, values)
    node = rabbit_node(run, plan)
    progress(f"starting RabbitMQ on {host}:{node.amqp_port}")
    rabbit = rabbitmq.start(run, node, executables["epmd"])
    progress("creating the services' databases and schemas (about 40 s)")
    mark = time.monotonic()
    mariadb.create_databases(
        executables["mariadbd"],
        socket_path,
        host,
        list(DATABASES),
        DB_USER,
        plan["db_password"],
    )
    manage.sync_databases(run)
    timings["databases"] = time.monotonic() - mark
    rabbitmq.wait_ready(run, node, rabbit, STEP_TIMEOUT)
    progress(
        "starting Placement, Glance, Neutron, nova-api, conductor, "
        "scheduler and compute"
    )
    mark = time.monotonic()
    procs = start_services(run, plan)
    ready.wait_apis(run, plan, procs)
    sess = ready.admin_session(run, auth_url)
    ready.warm_up_neutron(run, sess, procs["neutron-api"], plan["region"])
    manage.map_compute_hosts(run, plan, procs)
    timings["services"] = time.monotonic() - mark
    try:
        ready.create_flavor_and_image(sess, plan["region"])
    except Exception as exc:  # noqa: BLE001 - any client error: say which step
        raise StackError(
            f"creating the flavor {ready.FLAVOR} and the image {ready.IMAGE} failed: "
            f"{type(exc).__name__}: {exc}\n{ready.api_logs(run, APIS[1])}\n"
            + logtail.named_tail(run.logs / "nova-api.log")
        ) from None
    timings["total"] = time.monotonic() - started
    return timings


def memory_mb(run: RunDir) -> tuple[float, int]:
    """RSS (MB, summed) and count of every process of the run, Keystone included.

    A sum of RSS counts shared pages once per process: an upper bound.
    """
    total = 0
    count = 0
    for pid in (run.state().services or {}).values():
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
