"""Serve Keystone on oslo.service's eventlet WSGI server with N worker processes.

The way ``keystone-all`` ran before Keystone dropped it (seed 000's
``public_workers``): eventlet monkey-patches the process the way keystone-all
did (``os=False``, no green DNS), the app is built once in the parent, and
oslo.service's process launcher forks the workers, which all accept on one
listening socket. SIGTERM stops every worker.

The access log gets one line per request in the launcher's format
(``<start us> <METHOD> <URI> <status> <server us> <pid>``), computed from
eventlet's wall time of the request.

Usage: ``python -m rally_keystone_perf.deploy.eventlet_server --config-files
A;B --host 127.0.0.1 --port 5000 --workers 2 --access-log FILE``
"""

# ruff: noqa: E402 - eventlet must patch the process before any other import
import os

os.environ.setdefault("EVENTLET_NO_GREENDNS", "yes")

import eventlet

eventlet.monkey_patch(os=False, select=True, socket=True, thread=True, time=True)

import argparse
import importlib
import logging
import re
import sys
from collections.abc import Sequence

ACCESS_LOGGER = "eventlet.wsgi.server"
# what eventlet writes per request; ACCESS_FORMATTER turns it into our line
WSGI_LOG_FORMAT = "%(request_line)s|%(status_code)s|%(wall_seconds).6f"
_LINE = re.compile(r"^(\S+) (\S+) [^|]*\|(\d+)\|([0-9.]+)$")


class AccessFormatter(logging.Formatter):
    """eventlet's request line -> ``start_us METHOD URI status server_us pid``.

    Other messages of the logger (start-up, exit) pass through unchanged.
    """

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        match = _LINE.match(message)
        if match is None:
            return f"# {message}"
        method, uri, status, wall = match.groups()
        seconds = float(wall)
        start = int((record.created - seconds) * 1e6)
        return f"{start} {method} {uri} {status} {int(seconds * 1e6)} {record.process}"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The server's command line."""
    parser = argparse.ArgumentParser(
        prog="python -m rally_keystone_perf.deploy.eventlet_server",
        description="Serve Keystone on oslo.service's eventlet WSGI server.",
    )
    parser.add_argument(
        "--config-files",
        required=True,
        help="keystone config files separated by ';' (later files win)",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--backlog", type=int, default=128)
    parser.add_argument("--access-log", default=None)
    parser.add_argument(
        "--app",
        default="rally_keystone_perf.deploy.wsgi_app:application",
        help="the WSGI application, module:name (--wsgi: the suite's wrapper "
        "or keystone.wsgi.api:application)",
    )
    return parser.parse_args(argv)


def _access_log(path: str) -> None:
    handler = logging.FileHandler(path)
    handler.setFormatter(AccessFormatter())
    logger = logging.getLogger(ACCESS_LOGGER)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # request lines stay out of keystone.log


def main(argv: Sequence[str] | None = None) -> None:
    """Build Keystone's app, then serve it with ``--workers`` processes."""
    args = parse_args(argv)
    # Keystone's loader reads its files from the environment and parses
    # sys.argv with oslo.config, which would reject our options
    os.environ["OS_KEYSTONE_CONFIG_FILES"] = args.config_files
    os.environ.pop("OS_KEYSTONE_CONFIG_DIR", None)
    sys.argv = sys.argv[:1]

    import keystone.conf  # costly: loads all of Keystone's options (0.8 s)
    from oslo_service import service, wsgi  # costly: eventlet and oslo (0.5 s)

    module, _, name = args.app.partition(":")
    application = getattr(importlib.import_module(module), name)

    conf = keystone.conf.CONF
    wsgi.register_opts(conf)
    conf.set_default("wsgi_log_format", WSGI_LOG_FORMAT)
    if args.access_log:
        _access_log(args.access_log)
    server = wsgi.Server(
        conf,
        "keystone",
        application,
        host=args.host,
        port=args.port,
        backlog=args.backlog,
        logger_name=ACCESS_LOGGER,
    )
    launcher = service.launch(conf, server, workers=args.workers)
    launcher.wait()


if __name__ == "__main__":
    main()
