"""What the nova-fake stack is made of, and its config files.

The services (:data:`APIS` under uwsgi, :data:`DAEMONS` and the fake
computes), their folders and the rendering of ``deployments/nova-fake/``'s
templates into ``private/stack/`` (they hold the run's generated
passwords). :mod:`.stack` starts what is rendered here.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import TypedDict

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import access_logs, modes, services
from rally_keystone_perf.deploy.backends import rabbitmq
from rally_keystone_perf.layout.rundir import RunDir

DB_USER = "openstack"


SERVICE_HOST = "controller"  # host of the control services


COMPUTE_HOST = "fakehost{}"  # compute N's host


MAX_COMPUTES = 16
STEP_TIMEOUT = 300.0  # seconds for each step of the stack's start


TEMPLATES = "nova-fake"


@dataclass(frozen=True)
class Api:
    """A service API served by uwsgi: its catalog entry and its WSGI app."""

    name: str  # the uwsgi process and its logs
    user: str  # its Keystone service user
    service_type: str
    path: str  # the endpoint URL's path
    module: str
    config: str  # its config folder under private/stack/
    env: tuple[tuple[str, str], ...]  # values may use $config_dir

    @property
    def log(self) -> str:
        """The app's own log file (``log_file`` in its config)."""
        return "glance-api.log" if self.name == "glance" else f"{self.name}.log"


APIS = (
    Api(
        "placement",
        "placement",
        "placement",
        "",
        "placement.wsgi.api:application",
        "placement",
        (("OS_PLACEMENT_CONFIG_DIR", "$config_dir"),),
    ),
    Api(
        "glance",
        "glance",
        "image",
        "",
        "glance.wsgi.api:application",
        "glance",
        (("OS_GLANCE_CONFIG_DIR", "$config_dir"),),
    ),
    Api(
        "neutron-api",
        "neutron",
        "network",
        "",
        "neutron.wsgi.api:application",
        "neutron",
        (
            ("OS_NEUTRON_CONFIG_DIR", "$config_dir"),
            ("OS_NEUTRON_CONFIG_FILES", "neutron.conf"),
        ),
    ),
    Api(
        "nova-api",
        "nova",
        "compute",
        "/v2.1",
        "nova.wsgi.osapi_compute:application",
        "nova",
        (
            ("OS_NOVA_CONFIG_DIR", "$config_dir"),
            ("OS_NOVA_CONFIG_FILES", "api-paste.ini;nova.conf;nova-api.conf"),
        ),
    ),
)


DAEMONS = ("nova-conductor", "nova-scheduler")  # then the computes


# the config files each config folder gets: template -> file name
CONFIGS = {
    "placement": {"placement.conf.tmpl": "placement.conf"},
    "glance": {"glance-api.conf.tmpl": "glance-api.conf"},
    "neutron": {"neutron.conf.tmpl": "neutron.conf"},
    "nova": {"nova.conf.tmpl": "nova.conf", "nova-api.conf.tmpl": "nova-api.conf"},
    "rabbitmq": {},
}


# paste configs the packages install under <venv>/etc: folder -> files
PASTE = {
    "nova": ("nova/api-paste.ini",),
    "glance": ("glance/glance-api-paste.ini",),
    "neutron": ("neutron/api-paste.ini",),
}


class RabbitPlan(TypedDict):
    """The RabbitMQ node's ports and name (see :func:`rabbit_node`)."""

    amqp_port: int
    dist_port: int
    epmd_port: int
    nodename: str
    ctl_ports: list[int]


class StackPlan(TypedDict):
    """``private/stack.json``: the ports and passwords chosen for a stack."""

    host: str
    region: str
    ports: dict[str, int]  # API name -> port
    rabbit: RabbitPlan
    computes: int
    service_password: str
    db_password: str
    rabbit_password: str


class StackError(services.ServiceError):
    """A service of the stack could not be prepared or started."""


def stack_dir(run: RunDir) -> Path:
    """The services' config folders (private: they hold passwords)."""
    return run.private / "stack"


def state_dir(run: RunDir) -> Path:
    """The services' data: instances, the image store, locks."""
    return run.root / "stack"


def endpoint(plan: StackPlan, api: Api) -> str:
    """The catalog URL of ``api``."""
    return f"http://{plan['host']}:{plan['ports'][api.name]}{api.path}"


def check_computes(computes: int) -> None:
    """Refuse a fake compute count out of 1..:data:`MAX_COMPUTES`."""
    if not 1 <= computes <= MAX_COMPUTES:
        raise StackError(f"fake computes: 1 to {MAX_COMPUTES}, got {computes}")


def compute_hosts(plan: StackPlan) -> list[str]:
    """The fake compute hosts' names, ``fakehost1`` first."""
    return [COMPUTE_HOST.format(i) for i in range(1, int(plan["computes"]) + 1)]


def rabbit_node(run: RunDir, plan: StackPlan) -> rabbitmq.Node:
    """The RabbitMQ node of the plan, its files under ``private/stack/``."""
    rabbit = plan["rabbit"]
    return rabbitmq.Node(
        plan["host"],
        rabbit["amqp_port"],
        rabbit["dist_port"],
        rabbit["epmd_port"],
        rabbit["nodename"],
        stack_dir(run) / "rabbitmq",
        (rabbit["ctl_ports"][0], rabbit["ctl_ports"][1]),
    )


def _auth_section(user: str, auth_url: str, password: str) -> str:
    """keystoneauth password options of a service user (a config section's body)."""
    return (
        f"auth_url = {auth_url}\n"
        "auth_type = password\n"
        f"username = {user}\n"
        f"password = {password}\n"
        "project_name = service\n"
        "user_domain_name = Default\n"
        "project_domain_name = Default"
    )


def _authtoken_section(user: str, auth_url: str, password: str) -> str:
    """keystonemiddleware's ``[keystone_authtoken]`` body for a service."""
    return (
        "# the URL a 401 answer points clients to (default: none; kolla-ansible\n"
        "# sets it too), then the service user that validates tokens\n"
        f"www_authenticate_uri = {auth_url}\n" + _auth_section(user, auth_url, password)
    )


def template_values(
    run: RunDir, plan: StackPlan, auth_url: str, db_port: int
) -> dict[str, str]:
    """Every value the nova-fake templates use."""
    host = plan["host"]
    password = plan["service_password"]
    rabbit = plan["rabbit"]
    values = {
        "run_dir": str(run.root),
        "log_dir": str(run.logs),
        "stack_dir": str(stack_dir(run)),
        "state_dir": str(state_dir(run)),
        "venv": sys.prefix,
        "host": host,
        "region": plan["region"],
        "service_host": SERVICE_HOST,
        "db_url": f"mysql+pymysql://{DB_USER}:{plan['db_password']}@{host}:{db_port}",
        "transport_url": (
            f"rabbit://{rabbitmq.USER}:{plan['rabbit_password']}@{host}:"
            f"{rabbit['amqp_port']}/"
        ),
        "rabbit_user": rabbitmq.USER,
        "rabbit_password": plan["rabbit_password"],
        **access_logs.template_values(),
    }
    for api in APIS:
        values[f"authtoken_{api.user}"] = _authtoken_section(
            api.user, auth_url, password
        )
        values[f"service_auth_{api.user}"] = _auth_section(api.user, auth_url, password)
    return values


def render(run: RunDir, plan: StackPlan, values: dict[str, str]) -> None:
    """Write every config file under ``private/stack/`` and the data folders."""
    templates = paths.deployments_dir() / TEMPLATES
    top = stack_dir(run)
    for folder, files in CONFIGS.items():
        (top / folder).mkdir(parents=True, exist_ok=True)
        for template, target in files.items():
            text = Template((templates / template).read_text()).substitute(values)
            (top / folder / target).write_text(text)
    for folder, pastes in PASTE.items():
        for name in pastes:
            source = Path(sys.prefix) / "etc" / name
            if not source.is_file():
                raise StackError(
                    f"{source} is missing (install it with: {modes.NOVA_HINT})"
                )
            shutil.copy(source, top / folder / Path(name).name)
    compute_template = Template((templates / "compute.conf.tmpl").read_text())
    for index, name in enumerate(compute_hosts(plan), start=1):
        text = compute_template.substitute(
            values, compute_index=str(index), compute_host=name
        )
        (top / "nova" / f"compute-{index}.conf").write_text(text)
    uwsgi_template = Template((templates / "uwsgi-app.ini.tmpl").read_text())
    for api in APIS:
        config_dir = str(top / api.config)
        env_lines = "\n".join(
            f"env = {name}={Template(value).substitute(config_dir=config_dir)}"
            for name, value in api.env
        )
        text = uwsgi_template.substitute(
            values,
            app=api.name,
            module=api.module,
            env_lines=env_lines,
            app_port=str(plan["ports"][api.name]),
        )
        (top / f"uwsgi-{api.name}.ini").write_text(text)
    rabbit_conf = Template((templates / "rabbitmq.conf.tmpl").read_text())
    rabbitmq.write_files(rabbit_node(run, plan), rabbit_conf.substitute(values))
    data = state_dir(run)
    for sub in (
        *(f"nova-compute-{i}/instances" for i in range(1, plan["computes"] + 1)),
        "nova/instances",
        "images",
        "images-staging",
        "images-tasks",
        "neutron",
        "lock/nova",
        "lock/glance",
        "lock/neutron",
    ):
        (data / sub).mkdir(parents=True, exist_ok=True)
