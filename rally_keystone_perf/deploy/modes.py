"""The one list of deployment modes: name -> what to render and start.

A mode names the templates it renders into the run folder's ``conf/``, the
executables it needs, the processes it starts (argv as ``$name`` templates
filled with the same values as the config templates) and its profiles: the
process/thread counts and tuning it starts with unless the user says
otherwise. ``stock`` is what a fresh install of that server looks like;
``tuned`` is seed 003's tuned setup where a mode has one.

The cache and database backends are orthogonal to the mode: see
:data:`CACHES` and :data:`DATABASES`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Requirement:
    """An executable a mode needs, and how a user gets it.

    ``in_venv`` False: a system program (from a Debian package), looked up on
    PATH and in the sbin folders, then in ``search_globs`` (folders off PATH,
    e.g. PostgreSQL's versioned ``/usr/lib/postgresql/*/bin``).
    """

    executable: str
    install_hint: str
    in_venv: bool = True
    search_globs: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModuleRequirement:
    """A Python module a backend's Keystone driver imports, and its install."""

    module: str
    install_hint: str


@dataclass(frozen=True)
class Process:
    """A long-running process a mode starts, in order.

    ``argv`` items are :class:`string.Template` strings. ``runs_keystone``
    marks the process whose tree runs Keystone's code (its CPU and memory are
    sampled, its pid is the run's ``server_pid``); ``ready_socket`` names a
    template value holding a unix socket path to wait for before the next
    process starts.
    """

    name: str
    argv: tuple[str, ...]
    runs_keystone: bool = False
    ready_socket: str | None = None


@dataclass(frozen=True)
class Profile:
    """Default parallelism and tuning of a mode.

    ``values`` are extra template values (e.g. nginx's worker_connections).
    """

    processes: int
    threads: int
    listen_backlog: int
    values: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Mode:
    """A way of serving Keystone locally.

    ``templates`` maps a template under ``deployments/`` to the file it is
    rendered to inside the run folder's ``conf/``; ``run_dirs`` are folders
    the servers expect to exist in the run folder. ``drops_root_to`` names
    the user a server started as root runs Keystone as (Apache's workers).
    """

    name: str
    description: str
    templates: dict[str, str]
    requirements: tuple[Requirement, ...]
    processes: tuple[Process, ...]
    profiles: dict[str, Profile]
    threads_configurable: bool = True
    run_dirs: tuple[str, ...] = ()
    drops_root_to: str | None = None
    stack: str | None = None
    database: str | None = None


KEYSTONE_MANAGE = Requirement(
    "keystone-manage", "pip install 'rally-keystone-perf[local]'"
)
UWSGI = Requirement("uwsgi", "pip install 'rally-keystone-perf[local]'")
NGINX = Requirement("nginx", "apt-get install nginx", in_venv=False)
APACHE = Requirement("apache2", "apt-get install apache2", in_venv=False)
MOD_WSGI = Requirement(
    "mod_wsgi-express",
    "apt-get install apache2-dev && pip install 'rally-keystone-perf[apache]'",
)
MEMCACHED = Requirement("memcached", "apt-get install memcached", in_venv=False)
MARIADB = Requirement("mariadbd", "apt-get install mariadb-server", in_venv=False)
MARIADB_INSTALL_DB = Requirement(
    "mariadb-install-db", "apt-get install mariadb-server", in_venv=False
)

# Debian's PostgreSQL keeps its server programs in a versioned folder off PATH
POSTGRES_BIN = ("/usr/lib/postgresql/*/bin",)
POSTGRES = Requirement(
    "postgres", "apt-get install postgresql", in_venv=False, search_globs=POSTGRES_BIN
)
INITDB = Requirement(
    "initdb", "apt-get install postgresql", in_venv=False, search_globs=POSTGRES_BIN
)
REDIS = Requirement("redis-server", "apt-get install redis-server", in_venv=False)
SLAPD = Requirement("slapd", "apt-get install slapd", in_venv=False)
HAPROXY = Requirement("haproxy", "apt-get install haproxy", in_venv=False)
# --db galera: Debian's Galera provider (a library, found in its folder), the
# SST script (mariadb-server's) and rsync, which it runs
GALERA = Requirement(
    "libgalera_smm.so",
    "apt-get install galera-4",
    in_venv=False,
    search_globs=("/usr/lib/galera", "/usr/lib64/galera"),
)
WSREP_SST_RSYNC = Requirement(
    "wsrep_sst_rsync", "apt-get install mariadb-server", in_venv=False
)
RSYNC = Requirement("rsync", "apt-get install rsync", in_venv=False)
IPROUTE = Requirement("ip", "apt-get install iproute2", in_venv=False)
SLAPADD = Requirement("slapadd", "apt-get install slapd", in_venv=False)

KEYSTONE_CONF = {"common/keystone.conf.tmpl": "keystone.conf"}
NOVA_HINT = "pip install 'rally-keystone-perf[nova]'"
NOVA = tuple(
    Requirement(name, NOVA_HINT)
    for name in (
        "nova-manage",
        "nova-conductor",
        "nova-scheduler",
        "nova-compute",
        "placement-manage",
        "glance-manage",
        "neutron-db-manage",
    )
)
RABBITMQ = Requirement(
    "rabbitmq-server", "apt-get install rabbitmq-server", in_venv=False
)
EPMD = Requirement("epmd", "apt-get install rabbitmq-server", in_venv=False)
UWSGI_PROCESS = Process(
    "uwsgi", ("$exe_uwsgi", "--ini", "$conf_dir/uwsgi.ini"), runs_keystone=True
)

MODES: dict[str, Mode] = {
    mode.name: mode
    for mode in (
        Mode(
            name="uwsgi",
            description="Keystone under uwsgi's HTTP router (Connection: close), "
            "N processes x M threads",
            templates={**KEYSTONE_CONF, "uwsgi/uwsgi.ini.tmpl": "uwsgi.ini"},
            requirements=(KEYSTONE_MANAGE, UWSGI),
            processes=(UWSGI_PROCESS,),
            profiles={"stock": Profile(2, 1, 100)},
        ),
        Mode(
            name="nova-fake",
            description="the uwsgi mode's Keystone (on MariaDB) with a real Nova "
            "beside it: nova-api, conductor, scheduler and a compute with the "
            "fake virt driver, Placement, Glance, a minimal Neutron, RabbitMQ",
            templates={**KEYSTONE_CONF, "uwsgi/uwsgi.ini.tmpl": "uwsgi.ini"},
            requirements=(KEYSTONE_MANAGE, UWSGI, *NOVA, RABBITMQ, EPMD),
            processes=(UWSGI_PROCESS,),
            profiles={"stock": Profile(2, 1, 100)},
            stack="nova",
            database="mysql",
        ),
        Mode(
            name="nginx-uwsgi",
            description="nginx in front of uwsgi (uwsgi protocol on a unix "
            "socket), N uwsgi processes x M threads",
            templates={
                **KEYSTONE_CONF,
                "nginx-uwsgi/uwsgi.ini.tmpl": "uwsgi.ini",
                "nginx-uwsgi/nginx.conf.tmpl": "nginx.conf",
                "nginx-uwsgi/uwsgi_params.tmpl": "uwsgi_params",
            },
            requirements=(KEYSTONE_MANAGE, UWSGI, NGINX),
            processes=(
                Process(
                    "uwsgi",
                    ("$exe_uwsgi", "--ini", "$conf_dir/uwsgi.ini"),
                    runs_keystone=True,
                    ready_socket="uwsgi_socket",
                ),
                Process(
                    "nginx",
                    ("$exe_nginx", "-p", "$run_dir", "-c", "$conf_dir/nginx.conf"),
                ),
            ),
            run_dirs=("nginx-tmp",),
            profiles={
                "stock": Profile(
                    2,
                    1,
                    100,
                    {"nginx_workers": "auto", "worker_connections": "768"},
                ),
                # seed 003: 38 uwsgi workers x 5 threads, deep listen queues
                "tuned": Profile(
                    38,
                    5,
                    4096,
                    {"nginx_workers": "auto", "worker_connections": "4096"},
                ),
            },
        ),
        Mode(
            name="apache",
            description="Apache httpd (mpm_event) with mod_wsgi in daemon mode, "
            "N daemon processes x M threads",
            templates={
                **KEYSTONE_CONF,
                "apache/httpd.conf.tmpl": "httpd.conf",
                "apache/keystone.wsgi.tmpl": "keystone.wsgi",
            },
            requirements=(KEYSTONE_MANAGE, APACHE, MOD_WSGI),
            processes=(
                Process(
                    "apache2",
                    ("$exe_apache2", "-f", "$conf_dir/httpd.conf", "-DFOREGROUND"),
                    runs_keystone=True,
                ),
            ),
            run_dirs=("httpd-run",),
            drops_root_to="www-data",
            profiles={
                # Keystone's reference wsgi-keystone.conf: 5 processes, 1 thread;
                # keep-alive and mpm_event limits as Apache and Debian ship them
                "stock": Profile(
                    5,
                    1,
                    511,
                    {
                        "keepalive": "On",
                        "max_keepalive_requests": "100",
                        "server_limit": "16",
                        "threads_per_child": "25",
                        "max_request_workers": "150",
                    },
                ),
                # seed 003: 38 processes x 4 threads, raised mpm_event limits
                "tuned": Profile(
                    38,
                    4,
                    4096,
                    {
                        "keepalive": "On",
                        "max_keepalive_requests": "10000",
                        "server_limit": "40",
                        "threads_per_child": "25",
                        "max_request_workers": "1000",
                    },
                ),
            },
        ),
        Mode(
            name="eventlet",
            description="Keystone's WSGI app on oslo.service's eventlet WSGI "
            "server with N worker processes (keystone-all's public_workers)",
            templates=dict(KEYSTONE_CONF),
            requirements=(KEYSTONE_MANAGE,),
            processes=(
                Process(
                    "eventlet",
                    (
                        "$python",
                        "-m",
                        "rally_keystone_perf.deploy.eventlet_server",
                        "--config-files",
                        "$keystone_config_files",
                        "--host",
                        "$host",
                        "--port",
                        "$port",
                        "--workers",
                        "$processes",
                        "--backlog",
                        "$listen_backlog",
                        "--access-log",
                        "$log_dir/access.log",
                        "--app",
                        "$wsgi_module",
                    ),
                    runs_keystone=True,
                ),
            ),
            profiles={"stock": Profile(2, 1, 128)},
            threads_configurable=False,
        ),
    )
}

# modes that serve Keystone alone: the token/identity tasks and the matrix
KEYSTONE_MODES = tuple(name for name, mode in MODES.items() if mode.stack is None)
DEFAULT_MODE = "uwsgi"
DEFAULT_PROFILE = "stock"

CACHES: dict[str, tuple[Requirement, ...]] = {
    "none": (),
    "memcached": (MEMCACHED,),
    "disabled": (),
}
# what each --cache choice is, as the report's cache column names it
CACHE_LABELS = {
    "none": "request-local",  # Keystone's default: oslo.cache on, null backend
    "memcached": "memcached",
    "disabled": "disabled",  # [cache] enabled = false: request-local off too
}
DEFAULT_CACHE = "none"
DEFAULT_TOKEN_EXPIRATION = 3600  # Keystone's [token] expiration default
# [token] provider: fernet (Keystone's default: encrypted) or jws (signed,
# not encrypted: the successor of the PKI tokens seed 001 measured)
TOKEN_PROVIDERS = ("fernet", "jws")
DEFAULT_TOKEN_PROVIDER = "fernet"
# --wsgi: the application the servers load. suite: Keystone's app inside the
# suite's wrapper (deploy/wsgi_app.py: the policy rules loaded before the
# first request, SQLite's writers in turn, an escaping exception answered
# 500, --trace's spans); stock: Keystone's own entry point, nothing around it
WSGI_APPS = {
    "suite": "rally_keystone_perf.deploy.wsgi_app:application",
    "stock": "keystone.wsgi.api:application",
}
DEFAULT_WSGI = "suite"
DATABASES: dict[str, tuple[Requirement, ...]] = {
    "sqlite": (),
    "mysql": (MARIADB, MARIADB_INSTALL_DB),
    "postgresql": (POSTGRES, INITDB),
    # 3 members (deploy/cluster/galera.py) behind their own haproxy
    "galera": (MARIADB, MARIADB_INSTALL_DB, GALERA, WSREP_SST_RSYNC, RSYNC, HAPROXY),
}
# modes a cluster (--nodes N > 1) runs on every node, behind haproxy
CLUSTER_MODES = ("uwsgi", "nginx-uwsgi", "apache")
CLUSTER_REQUIREMENTS = (HAPROXY, IPROUTE)
MAX_NODES = 8
# [identity] driver of the default domain: sql (Keystone's default) or ldap
# (a local slapd, read-only as Keystone's LDAP driver is since Mitaka)
IDENTITIES: dict[str, tuple[Requirement, ...]] = {
    "sql": (),
    "ldap": (SLAPD, SLAPADD),
}
DEFAULT_IDENTITY = "sql"
# Python modules a choice's Keystone driver imports (PyMySQL is always in),
# or the load engine runs on (--engine locust: Locust's master and workers)
MODULES: dict[str, tuple[ModuleRequirement, ...]] = {
    "locust": (
        ModuleRequirement("locust", "pip install 'rally-keystone-perf[locust]'"),
    ),
    "postgresql": (
        ModuleRequirement("psycopg2", "pip install 'rally-keystone-perf[postgresql]'"),
    ),
    "ldap": (
        ModuleRequirement("ldap", "pip install 'rally-keystone-perf[ldap]'"),
        ModuleRequirement("ldappool", "pip install 'rally-keystone-perf[ldap]'"),
    ),
}


def get_mode(name: str) -> Mode:
    """Return the mode called ``name`` or raise ValueError listing the known ones."""
    try:
        return MODES[name]
    except KeyError:
        known = ", ".join(sorted(MODES))
        raise ValueError(f"unknown mode {name!r} (known modes: {known})") from None


def get_profile(mode: Mode, name: str) -> Profile:
    """Return ``mode``'s profile ``name`` or raise ValueError listing its own."""
    try:
        return mode.profiles[name]
    except KeyError:
        known = ", ".join(mode.profiles)
        raise ValueError(
            f"mode {mode.name} has no profile {name!r} (its profiles: {known})"
        ) from None
