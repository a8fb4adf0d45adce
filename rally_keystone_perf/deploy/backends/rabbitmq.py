"""A private RabbitMQ node for the nova-fake mode (Debian's rabbitmq-server).

Debian's ``/usr/sbin/rabbitmq-server`` switches to the ``rabbitmq`` user
and its system-wide files; this module runs the server script under
``/usr/lib/rabbitmq/bin`` in the foreground instead, as the run's own child,
with every file (Erlang cookie, Mnesia database, logs, config) inside the
run folder and every port on loopback:

* its own ``epmd`` (Erlang's port mapper) started first, on a chosen port,
  so that no system-wide epmd is started or left behind;
* the AMQP port and the Erlang distribution port, both on loopback (the
  distribution port listens on every interface unless told otherwise).

The one user Nova connects as is created by the config file
(``default_user``/``default_pass``, private), never on a command line.
"""

from __future__ import annotations

import secrets
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.deploy import probes, services
from rally_keystone_perf.deploy.logtail import named_tail
from rally_keystone_perf.layout.rundir import PRIVATE_UMASK, RunDir

RABBIT_BIN = Path("/usr/lib/rabbitmq/bin")
USER = "nova"
# The node's ports are picked below the OS's ephemeral range (32768+), where
# the servers' own ports come from; rabbitmqctl's default range, 35672-35682,
# is in it (an AMQP port of 35672 once failed with eaddrinuse).
LOW_PORTS = range(20000, 32000)
PORTS = 5  # AMQP, distribution, epmd and two for rabbitmqctl


@dataclass(frozen=True)
class Node:
    """Where the node listens and how rabbitmqctl reaches it."""

    host: str
    amqp_port: int
    dist_port: int
    epmd_port: int
    nodename: str
    folder: Path  # its files: private (the cookie, the password)
    ctl_ports: tuple[int, int]  # the range rabbitmqctl's own node listens in

    def env(self) -> dict[str, str]:
        """The environment of the server and of rabbitmqctl for this node."""
        folder = self.folder
        loopback = (
            "-kernel inet_dist_use_interface {" + self.host.replace(".", ",") + "}"
        )
        return {
            "HOME": str(folder / "home"),  # .erlang.cookie
            "RABBITMQ_CONF_ENV_FILE": str(folder / "rabbitmq-env.conf"),
            "RABBITMQ_NODENAME": self.nodename,
            "RABBITMQ_NODE_IP_ADDRESS": self.host,
            "RABBITMQ_NODE_PORT": str(self.amqp_port),
            "RABBITMQ_DIST_PORT": str(self.dist_port),
            "ERL_EPMD_PORT": str(self.epmd_port),
            "ERL_EPMD_ADDRESS": self.host,
            "RABBITMQ_MNESIA_BASE": str(folder / "mnesia"),
            "RABBITMQ_LOG_BASE": str(folder / "log"),
            "RABBITMQ_CONFIG_FILE": str(folder / "rabbitmq.conf"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(folder / "advanced.config"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(folder / "enabled_plugins"),
            "RABBITMQ_PID_FILE": str(folder / "rabbit.pid"),
            "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": loopback,
            # every rabbitmqctl run is an Erlang node too: on loopback, on
            # ports of the plan (its default range is 35672-35682)
            "RABBITMQ_CTL_ERL_ARGS": loopback,
            "RABBITMQ_CTL_DIST_PORT_MIN": str(self.ctl_ports[0]),
            "RABBITMQ_CTL_DIST_PORT_MAX": str(self.ctl_ports[1]),
            "PATH": f"{RABBIT_BIN}:/usr/bin:/bin:/usr/sbin:/sbin",
        }


def _free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def pick_low_ports(host: str, count: int, exclude: set[int] | None = None) -> list[int]:
    """``count`` free ports below the OS's ephemeral range, from a random start.

    ``exclude``: ports taken by the run already (Keystone's ``--port``).
    """
    start = LOW_PORTS.start + secrets.randbelow(len(LOW_PORTS))
    found: list[int] = []
    for offset in range(len(LOW_PORTS)):
        port = LOW_PORTS.start + (start - LOW_PORTS.start + offset) % len(LOW_PORTS)
        if port not in (exclude or set()) and _free(host, port):
            found.append(port)
            if len(found) == count:
                return found
    raise services.ServiceError(f"no {count} free ports on {host} in {LOW_PORTS}")


def plan(host: str, folder: Path, ports: list[int]) -> Node:
    """A node on ``ports`` (:data:`PORTS` free ones) with its files in ``folder``."""
    amqp, dist, epmd, ctl_min, ctl_max = ports
    name = f"ksp{secrets.token_hex(3)}@localhost"
    return Node(host, amqp, dist, epmd, name, folder, (ctl_min, ctl_max))


def server_script() -> Path:
    """The foreground server script, or ServiceError saying how to install it."""
    script = RABBIT_BIN / "rabbitmq-server"
    if not script.exists():
        raise services.ServiceError(
            f"{script} is missing; install RabbitMQ with: apt-get install "
            "rabbitmq-server"
        )
    return script


def write_files(node: Node, config: str) -> None:
    """The node's folders and files; ``config`` is the rendered rabbitmq.conf."""
    for sub in ("home", "mnesia", "log"):
        (node.folder / sub).mkdir(parents=True, exist_ok=True)
    (node.folder / "rabbitmq.conf").write_text(config)
    (node.folder / "rabbitmq-env.conf").write_text("")  # not /etc/rabbitmq's
    (node.folder / "enabled_plugins").write_text("[].\n")
    (node.folder / "advanced.config").write_text("[].\n")


def start(run: RunDir, node: Node, epmd: Path) -> subprocess.Popen[bytes]:
    """Start epmd, then the node (in the foreground); return the node's process.

    Both are recorded in run.json, so the launcher's stop ends them.
    """
    script = server_script()
    epmd_proc = services.start(
        run,
        "epmd",
        [str(epmd), "-address", node.host, "-port", str(node.epmd_port)],
        node.env(),
        umask=PRIVATE_UMASK,
    )
    probes.wait_until(
        lambda: probes.port_open(node.host, node.epmd_port),
        epmd_proc,
        "epmd",
        10,
        lambda: named_tail(run.logs / "epmd-stdout.log"),
    )
    # its files (Mnesia: the user's password hash) are under private/
    return services.start(
        run, "rabbitmq", [str(script)], node.env(), umask=PRIVATE_UMASK
    )


def logs(run: RunDir, node: Node) -> str:
    """The tails of the node's own log and of its output."""
    log = node.folder / "log" / f"{node.nodename}.log"
    return named_tail(log) + "\n" + named_tail(run.logs / "rabbitmq-stdout.log")


def wait_ready(
    run: RunDir, node: Node, proc: subprocess.Popen[bytes], timeout: float
) -> float:
    """Wait until the node has booted (``rabbitmqctl await_startup``); seconds.

    ``await_startup`` fails at once until the node registered with epmd, so
    it is retried.
    """
    # not /usr/sbin's wrapper: as root it would switch to the rabbitmq user,
    # who has another Erlang cookie
    ctl = RABBIT_BIN / "rabbitmqctl"
    started = time.monotonic()

    def booted() -> bool:
        left = max(1, int(timeout - (time.monotonic() - started)))
        result = subprocess.run(
            [
                str(ctl),
                "-q",
                "-n",
                node.nodename,
                "await_startup",
                "--timeout",
                str(min(left, 30)),
            ],
            env=node.env(),
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode != 0:
            time.sleep(0.5)
        return result.returncode == 0

    return probes.wait_until(booted, proc, "RabbitMQ", timeout, lambda: logs(run, node))
