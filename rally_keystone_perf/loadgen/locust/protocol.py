"""What the Rally runner plugin, the Locust master and its workers say.

Three processes take part in a Locust workload: Rally's (the
``keystone_perf_locust`` runner plugin), the master it starts (a child
process, so that Locust's gevent monkeypatching never enters Rally) and the
workers (``rally-keystone-perf worker``, local or on other hosts). This
module holds what they share and imports neither Rally nor Locust:

- the setup the plugin hands the master on its stdin: the workload's
  scenario, arguments, load plan and Rally context (users, pre-issued tokens:
  secrets, so it travels only over the pipe and Locust's ZeroMQ link, never
  through a file or a log);
- the lines the master writes on its stdout: each iteration's Rally record
  and the events around them (workers connected, a worker lost, the end);
- the Locust message types between the master and the workers.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

# the Rally runner plugin that hands a workload to Locust; its config keeps
# the task's own runner as ``runner_type`` and ``runner``
LOCUST_RUNNER = "keystone_perf_locust"

# Locust custom messages (master -> worker)
SETUP = "ksp_setup"  # the workload: scenario, args, context, load
GO = "ksp_go"  # start now: this worker's budget, iteration ids, the master's t0
STOP = "ksp_stop"  # start no new iteration; finish the ones in flight
# (worker -> master)
READY = "ksp_ready"  # the setup is loaded (or its error)
RECORDS = "ksp_records"  # a batch of finished iterations
FINISHED = "ksp_finished"  # no iteration left to run or in flight

# the key a Locust iteration record adds to Rally's: its unique id in the
# workload (1-based, as Rally's ``context["iteration"]``); Rally's JSON keeps
# it, its report ignores it
ITERATION_KEY = "iteration"
STOP_LINE = "stop"  # the plugin's line on the master's stdin: abort
ENGINE_DIR = "engine"  # results/engine/<workload uuid>.json: how the load ran


@dataclass(frozen=True)
class Setup:
    """One workload, as the runner plugin hands it to the master."""

    scenario: str  # Rally's scenario name (KeystonePerf.*)
    module: str  # where its class is defined: the workers import it
    qualname: str
    args: dict[str, Any]
    context: dict[str, Any]  # Rally's context, the task object replaced by its uuid
    users: int
    times: int | None = None
    duration: float | None = None
    rate: float | None = None
    timeout: float = 600.0
    arrivals: str | None = None  # open model: constant or poisson; None: closed
    seed: int = 0  # of a poisson schedule
    workers: int = 1  # local worker processes the master starts
    worker_hosts: list[str] = field(default_factory=list)  # netns names, one each
    expect_workers: int = 0  # workers started elsewhere that the master waits for
    bind_host: str = "127.0.0.1"
    bind_port: int = 0  # 0: a free port
    web_ui: str | None = None  # HOST:PORT of Locust's web UI, None: none
    run_dir: str | None = None  # the run folder: the workers' log files
    run_name: str | None = None  # the User-Agent's run name (client.lean_http)


class _Pickler(pickle.Pickler):
    """Pickles Rally's credentials the way they copy themselves.

    rally-openstack's ``OpenStackCredential`` is a dict whose ``__getattr__``
    answers None for any name, so pickle's own protocol breaks on it; its
    ``__deepcopy__`` rebuilds it as ``cls(**to_dict())``, and so does this.
    """

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if isinstance(obj, dict) and cls is not dict and "to_dict" in vars(cls):
            return _rebuild, (cls, vars(cls)["to_dict"](obj))
        return NotImplemented


def _rebuild(cls: type, items: dict[str, Any]) -> Any:
    return cls(**items)


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (the master's); :class:`ValueError` naming what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port)


def encode(value: Any) -> str:
    """One line of ASCII holding ``value`` (pickled: Rally's credentials are
    dict subclasses that JSON would flatten)."""
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return base64.b64encode(buffer.getvalue()).decode()


def decode(line: str | bytes) -> Any:
    """The value of an :func:`encode` line (from our own processes only)."""
    return pickle.loads(base64.b64decode(line))


def setup_line(setup: Setup) -> str:
    """The master's first stdin line (a shallow dict: ``asdict`` would copy
    Rally's credentials through their constructor, which needs arguments)."""
    return encode({f.name: getattr(setup, f.name) for f in fields(setup)}) + "\n"


def read_setup(line: str) -> Setup:
    """The :class:`Setup` of the master's first stdin line."""
    return Setup(**decode(line.strip()))


def event_line(kind: str, **fields: Any) -> str:
    """One JSON line on the master's stdout."""
    return json.dumps({"event": kind, **fields}, separators=(",", ":")) + "\n"


def read_event(line: str) -> dict[str, Any] | None:
    """The event of a stdout line, None for a line that is not one (a log)."""
    if not line.startswith('{"event":'):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def shift_record(record: Mapping[str, Any], offset: float) -> dict[str, Any]:
    """``record`` with its clocks moved by ``offset`` seconds (a worker's
    clock onto the master's), the atomic actions' nested ones too."""
    shifted = dict(record)
    shifted["timestamp"] = record["timestamp"] + offset
    shifted["atomic_actions"] = [
        _shift_action(action, offset) for action in record.get("atomic_actions", [])
    ]
    return shifted


def _shift_action(action: Mapping[str, Any], offset: float) -> dict[str, Any]:
    moved = dict(action)
    for key in ("started_at", "finished_at"):
        if isinstance(moved.get(key), int | float):
            moved[key] = moved[key] + offset
    moved["children"] = [_shift_action(c, offset) for c in action.get("children", [])]
    return moved
