"""Start and stop a real local Keystone: orchestration only (no Rally imports).

:func:`up` resolves the options (:mod:`.options`), checks what it needs
(:mod:`.preflight`), renders the configs (:mod:`.keystone.config`),
initialises Keystone (:mod:`.keystone.init`), then starts the backends,
Keystone and a mode's stack (:mod:`.services`, :mod:`.backends`,
:mod:`.nova.stack`); :func:`stop` ends every process a run recorded.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

from rally_keystone_perf import stop_signals
from rally_keystone_perf.deploy import modes, orphans, preflight, services
from rally_keystone_perf.deploy.backends import galera, startup
from rally_keystone_perf.deploy.builds import prepare, runtime
from rally_keystone_perf.deploy.cluster import cgroups, client_hosts, network
from rally_keystone_perf.deploy.cluster import startup as cluster_startup
from rally_keystone_perf.deploy.keystone import config, init
from rally_keystone_perf.deploy.keystone.processes import (
    start_processes,
    wait_healthy,
)
from rally_keystone_perf.deploy.nova import stack as nova_stack
from rally_keystone_perf.deploy.nova.config import StackPlan
from rally_keystone_perf.deploy.options import (
    Deployment,
    LaunchError,
    Progress,
)
from rally_keystone_perf.deploy.tracing import trace_store
from rally_keystone_perf.layout import names
from rally_keystone_perf.layout.rundir import RunDir, new_run_dir, write_private_json

VERSIONED = ("keystone", "uwsgi", "rally", "oslo.service", "eventlet", "mod-wsgi")


def _quiet(_: str) -> None:
    """Progress sink that prints nothing."""


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _sockets_dir() -> Path:
    """A short folder for unix sockets (paths are capped at 107 bytes).

    0755: servers that drop root (mod_wsgi's daemons) must reach it; each
    socket sets its own permissions.
    """
    folder = Path(tempfile.mkdtemp(prefix="ksp-"))
    folder.chmod(0o755)
    return folder


def _check(
    deployment: Deployment, runs_root: Path, progress: Progress
) -> tuple[dict[str, Path], int]:
    """Everything checked before a run folder exists; the executables and port."""
    preflight.check_fake_computes(deployment)
    preflight.check_cluster(deployment)
    client_hosts.check(deployment.options.client_hosts)
    executables = preflight.check_requirements(preflight.requirements(deployment))
    executables["keystone-manage"] = runtime.executable(
        deployment.options, "keystone-manage", executables["keystone-manage"]
    )
    preflight.check_modules(deployment)
    preflight.check_server_user(
        deployment.mode,
        runtime.python(deployment.options),
        runtime.package_parent(deployment.options),
    )
    preflight.check_backend_users(deployment.options, runs_root)
    orphans.stop_all(runs_root, stop, progress)  # what a killed run left
    port = preflight.pick_port(deployment.options.host, deployment.options.port)
    return executables, port


def _versions(deployment: Deployment) -> dict[str, str | None]:
    """The versions of the suite's servers, and the build's Keystone if any."""
    versions = {d: _version(d) for d in VERSIONED}
    built = runtime.build(deployment.options)
    if built is not None:
        versions["keystone"] = str(built.info.get("version"))
    return versions


def _build_record(deployment: Deployment) -> dict[str, object] | None:
    """What run.json says of the Keystone build (None: the suite's Keystone)."""
    built = runtime.build(deployment.options)
    if built is None:
        return None
    keep = ("spec", "kind", "version", "source", "key", "venv")
    return {k: built.info.get(k) for k in keep}


def _record_start(
    run: RunDir, deployment: Deployment, url: str, port: int, sockets: Path
) -> None:
    """The run's first run.json: what is being started, with which settings."""
    options, settings = deployment.options, deployment.settings
    run.write_state(
        status="preparing",
        driver_pid=os.getpid(),  # its death orphans the run (deploy/orphans.py)
        mode=deployment.mode.name,
        url=url,
        auth_url=f"{url}/v3",
        options=asdict(options)
        | {
            "port": port,
            "processes": settings.processes,
            "threads": settings.threads,
            "listen_backlog": settings.listen_backlog,
        },
        # what --cache rendered, in the report's words (request-local for none)
        keystone_cache=modes.CACHE_LABELS[options.cache],
        profile_values=settings.values,
        somaxconn=settings.somaxconn,
        sockets_dir=str(sockets),
        versions=_versions(deployment),
        keystone_build=_build_record(deployment),
        cpus=os.cpu_count(),
        created_at=time.time(),
    )


def up(
    runs_root: Path,
    deployment: Deployment,
    progress: Progress = _quiet,
    run: RunDir | None = None,
) -> RunDir:
    """Prepare and start Keystone in a new run folder; stop everything on failure.

    ``deployment`` is the run's options resolved once (:func:`.options.resolve`).
    A mode with a ``stack`` (nova-fake) then starts its services too. A
    ``--keystone-build`` is installed first (:mod:`.builds`), or taken from
    its cache.
    """
    deployment = prepare.prepare(deployment, progress)  # a build: its own lines
    began = time.monotonic()
    executables, port = _check(deployment, runs_root, progress)
    if run is None:
        run = new_run_dir(runs_root, deployment.mode.name)
    else:
        run.create()
    try:
        deployment = client_hosts.make(run, deployment, progress)  # --worker-hosts
    except LaunchError:
        run.write_state(status="failed")
        raise
    url = f"http://{deployment.options.host}:{port}"
    sockets = _sockets_dir()
    _record_start(run, deployment, url, port, sockets)
    password = secrets.token_urlsafe(24)
    write_private_json(
        run.admin_secret, {"username": init.ADMIN_USER, "password": password}
    )
    try:
        starting = startup.Starting(run, deployment, executables, sockets, progress)
        waited = _prepare_and_start(starting, url, port, password)
    except services.ServiceError as exc:
        progress("stopping what was started")
        stop(run)
        run.write_state(status="failed")
        raise LaunchError(str(exc)) from None
    except BaseException:
        progress("stopping what was started")
        stop(run)
        run.write_state(status="failed")
        raise
    init.write_env_spec(run, f"{url}/v3", password, init.first_pool_user(run))
    ready = time.monotonic() - began
    run.write_state(
        status="running", started_in=round(waited, 3), ready_in=round(ready, 1)
    )
    progress(
        f"ready in {ready:.1f} s: {ready - waited:.1f} s preparing (checks, "
        "backends, configuration, keystone-manage, user pool, services beside "
        f"Keystone) and {waited:.1f} s until Keystone answered"
    )
    return run


def _prepare_and_start(
    starting: startup.Starting, url: str, port: int, password: str
) -> float:
    """Backends, configs, Keystone's init, its start; seconds until healthy."""
    run, deployment, progress = starting.run, starting.deployment, starting.progress
    executables, sockets = starting.executables, starting.sockets
    options, mode = deployment.options, deployment.mode
    _make_cpu_quota(run, deployment, progress)
    runtime.link_suite_code(run, options)
    if options.clustered:
        return cluster_startup.prepare_and_start(starting, url, port, password)
    started = startup.start(starting, password)
    progress(f"rendering {mode.name} configuration in {run.conf}")
    values = config.template_values(
        run, deployment, port, executables, sockets, *started
    )
    config.render_templates(run, mode, values, options.keystone_conf_template)
    keys = "fernet and JWS keys" if options.token_provider == "jws" else "fernet keys"
    progress(f"initialising Keystone (db_sync, {keys}, bootstrap, user pool)")
    runs_as = deployment.runs_as
    if runs_as is not None:
        preflight.check_run_folder(deployment, run.conf / "keystone.conf", run.root)
        init.give_keys_to(run, runs_as)
    # always at least one user in the pool: Rally's env then lists it as an
    # existing user, and Rally's default users context (added to every
    # OpenStack workload) takes it instead of creating and deleting one (~15 s)
    init.init_keystone(
        run,
        executables["keystone-manage"],
        f"{url}/v3",
        password,
        runs_as,
        options.token_provider,
        pool=deployment,
        progress=progress,
    )
    stack = None
    if mode.stack == "nova":
        stack = nova_stack.prepare(
            run,
            options.host,
            config.config_files(run),
            init.REGION,
            progress,
            options.fake_computes,
        )
    if runs_as is not None:
        init.grant_server_user(run, runs_as)
    settings = deployment.settings
    progress(
        f"starting {mode.name} ({settings.processes} processes x "
        f"{settings.threads} threads) on {url}"
    )
    timeout = deployment.start_timeout
    prefix = cgroups.host_prefix(run, names.node_name(0))  # with --node-cpus
    proc = start_processes(run, mode, values, timeout, prefix=prefix)
    run.write_state(status="starting")
    waited = wait_healthy(f"{url}/v3", proc, run, timeout)
    progress(f"Keystone is up at {url}/v3 (healthy after {waited:.1f} s)")
    if stack is not None:
        _start_nova_stack(run, stack, f"{url}/v3", executables, progress)
    return waited


def _make_cpu_quota(run: RunDir, deployment: Deployment, progress: Progress) -> None:
    """A cgroup per Keystone host and one for the database, with their CPU
    quotas (``--node-cpus``, ``--db-cpus``), recorded in run.json."""
    options = deployment.options
    if options.node_cpus is None and options.db_cpus is None:
        return
    quotas = {names.node_name(k): options.node_cpus for k in range(options.nodes)}
    databases = [cgroups.DB_GROUP]
    if options.db == "galera":  # each member a host of its own
        databases = [names.member_name(k) for k in range(galera.MEMBERS)]
    quotas |= dict.fromkeys(databases, options.db_cpus)
    try:
        quota = cgroups.create(secrets.token_hex(2), quotas)
    except cgroups.CgroupError as exc:
        raise LaunchError(str(exc)) from None
    run.write_state(cpu_quota=quota.to_json())
    held = [f"each node {options.node_cpus:g} CPU"] if options.node_cpus else []
    held += [f"the database {options.db_cpus:g} CPU"] if options.db_cpus else []
    progress(f"CPU quotas ({quota.version} cgroups): {', '.join(held)}")


def _start_nova_stack(
    run: RunDir,
    stack: StackPlan,
    auth_url: str,
    executables: dict[str, Path],
    progress: Progress,
) -> None:
    """Start the nova-fake services; print and record their time and memory."""
    timings = nova_stack.start(run, stack, auth_url, executables, progress)
    memory, count = nova_stack.memory_mb(run)
    run.write_state(
        stack={
            "kind": "nova",
            "computes": stack["computes"],
            "seconds": {k: round(v, 1) for k, v in timings.items()},
            "rss_mb": round(memory),
            "processes": count,
        }
    )
    progress(
        f"Nova stack ({stack['computes']} fake compute hosts) up in "
        f"{timings['total']:.0f} s (databases "
        f"{timings['databases']:.0f} s, services {timings['services']:.0f} s); "
        f"memory: {memory:.0f} MB RSS over {count} processes, Keystone and "
        "MariaDB included"
    )


def stop(run: RunDir, timeout: float = 20.0) -> bool:
    """Stop every process of the run, last started first; True if one ran."""
    state = run.state()
    was_running = False
    if state.services or state.server_pid:
        with stop_signals.shielded():  # a stop cut short leaves processes
            trace_store.collect_before_stop(run)  # --trace: before redis stops
            was_running = services.stop_all(run, timeout)
    if state.sockets_dir:
        shutil.rmtree(state.sockets_dir, ignore_errors=True)
    if state.cluster:  # after its processes: the namespaces they ran in
        network.teardown(network.Network.from_json(state.cluster["network"]))
    client_hosts.teardown(run)
    if state.cpu_quota:  # after its processes: a group with members stays
        quota = cgroups.CpuQuota.from_json(state.cpu_quota)
        cgroups.kill_members(quota)  # any run.json never recorded
        left = cgroups.remove(quota)
        if left:
            print(
                f"cgroups still in use, not removed: {', '.join(left)}", file=sys.stderr
            )
    if not was_running and not state.services and not state.server_pid:
        return False
    run.write_state(
        status="stopped",
        server_pid=None,
        services={},
        service_order=[],
        service_tiers={},
        service_specs={},
        stopped_at=time.time(),
    )
    return was_running


def is_running(run: RunDir) -> bool:
    """True when the run's Keystone process is alive."""
    pid = run.state().server_pid
    return pid is not None and services.alive(int(pid))
