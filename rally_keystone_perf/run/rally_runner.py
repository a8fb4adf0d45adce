"""Drive the ``rally`` command against one run folder's own Rally database.

Rally runs as a child process with a private config (its database lives in the
run folder, not in the user's ``~/.rally``), in its own session so a terminal
Ctrl-C reaches us first: we then ask Rally to abort the task, which stops the
load, runs every context's cleanup (users and projects it created are deleted)
and keeps the results gathered so far.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from rally_keystone_perf import paths
from rally_keystone_perf.client import lean_http
from rally_keystone_perf.deploy import sampler, services
from rally_keystone_perf.deploy.faults import RUN_ENV
from rally_keystone_perf.deploy.user_pool import POOL_ENV
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import workload_label

ENV_NAME = "keystone-perf"
EXIT_INTERRUPTED = 130
# its name among the run's processes (run.json): the sampled client's root
RALLY_SERVICE = sampler.CLIENT_SERVICE
# Rally writes its database (the env's admin password) under private/: 0600
PRIVATE_UMASK = 0o077
_TASK_STARTED = re.compile(r"Task\s+(?:\[tags: .*?\]\s+)?([0-9a-f-]{36}): started")
_ITER_END = re.compile(r"\| ITER: (\d+) END: (\w+)")
# the Locust runner's line per batch of records (plugins/runners/locust_engine)
_BATCH_END = re.compile(r"\| ITERATIONS: (\d+) END: (\d+) failed")
_SHOWN = re.compile(
    r"(Running workload|Context \S+ (setup|cleanup)\(\)\s+finished|"
    r"Load duration is|Finished workload|Task validation|ERROR|CRITICAL|"
    r"locust: )"
)
# lines that end the collection of a workload's logged config
_OWN_LINE = re.compile(rf"{_TASK_STARTED.pattern}|{_ITER_END.pattern}|{_SHOWN.pattern}")
PROGRESS_EVERY = 25

Echo = Callable[[str], None]


class RallyError(Exception):
    """Rally could not be prepared or its output could not be exported."""


def find_rally() -> str:
    """The ``rally`` command of this virtualenv.

    :raises RallyError: it is not installed.
    """
    candidate = paths.venv_bin("rally")
    if candidate.is_file():
        return str(candidate)
    raise RallyError("the rally command is not installed; pip install rally")


def export_args(uuid: str, out: Path) -> list[str]:
    """``rally`` arguments that write task ``uuid``'s JSON report (format 1.2)."""
    return ["task", "report", uuid, "--json", "--out", str(out)]


class Redactor:
    """Replaces known secrets in text before it is shown or logged."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text


@dataclass(frozen=True)
class TaskOutcome:
    """How one ``rally task start`` ended."""

    task_file: Path
    uuid: str | None
    exit_code: int
    report: Path | None
    interrupted: bool = False

    @classmethod
    def cut_short(cls) -> TaskOutcome:
        """A Ctrl-C or SIGTERM outside any task's run (exit 130)."""
        return cls(Path("-"), None, EXIT_INTERRUPTED, None, True)


class RallyRunner:
    """Rally CLI calls scoped to one run folder."""

    def __init__(self, run: RunDir, redact: Redactor, echo: Echo) -> None:
        self.run = run
        self.redact = redact
        self.echo = echo
        self.config = run.private / "rally.conf"
        self.log = run.logs / "rally.log"
        self.rally = find_rally()
        self.task_ids: list[str] = []  # every task started, even if aborted
        # what runs around each task's load: the session's resource sampler,
        # paused between tasks when the Keystone idles among others
        self.around_task: Callable[[], AbstractContextManager[None]] = nullcontext

    def _cmd(self, *args: str) -> list[str]:
        return [self.rally, "--config-file", str(self.config), *args]

    def _env(self) -> dict[str, str]:
        """Rally's environment: ours, naming the run's user pool when it has one."""
        env = {k: v for k, v in os.environ.items() if k != POOL_ENV}
        if self.run.user_pool.is_file():
            env[POOL_ENV] = str(self.run.user_pool)
        env[RUN_ENV] = str(self.run.root)  # the keystone_perf_fault hook's run
        env[lean_http.RUN_NAME_ENV] = self.run.root.name  # the requests' User-Agent
        return env

    def _log(self, text: str) -> None:
        with open(self.log, "a") as log:
            log.write(self.redact(text))

    def _call(self, *args: str) -> None:
        """Run a short Rally command; its (redacted) output goes to rally.log."""
        result = subprocess.run(
            self._cmd(*args),
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,
            umask=PRIVATE_UMASK,
        )
        self._log(f"$ rally {' '.join(args)}\n{result.stdout}{result.stderr}")
        if result.returncode != 0:
            tail = "\n".join(
                self.redact(result.stdout + result.stderr).splitlines()[-15:]
            )
            raise RallyError(f"rally {args[0]} {args[1]} failed:\n{tail}")

    def prepare(self) -> None:
        """Create the run's Rally database and its environment for this Keystone.

        Rally's users/roles contexts and cleanup keep their parallel workers on
        every database, SQLite included: its writers wait their turn
        (:mod:`rally_keystone_perf.deploy.keystone.sqlite_writers`).
        """
        db = self.run.private / "rally.sqlite"
        config = f"[database]\nconnection = sqlite:///{db}\n"
        self.config.write_text(config)
        os.chmod(self.config, 0o600)
        if not db.exists():
            self._setup(self.run.env_spec)

    def _setup(self, spec: Path) -> None:
        """Rally's database and env in one process (:mod:`.rally_setup`)."""
        args = [str(self.config), str(spec), ENV_NAME]
        result = subprocess.run(
            [sys.executable, "-m", "rally_keystone_perf.run.rally_setup", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,
            umask=PRIVATE_UMASK,
        )
        output = self.redact(result.stdout)
        self._log(output)
        if result.returncode != 0:
            tail = "\n".join(output.splitlines()[-15:])
            raise RallyError(f"rally db create and env create failed:\n{tail}")

    def start_task(self, task_file: Path, tags: Iterable[str] = ()) -> TaskOutcome:
        """Run one task file to the end (or until Ctrl-C) and export its JSON."""
        args = ["task", "start", str(task_file), "--env", ENV_NAME, "--no-use"]
        for tag in tags:
            args += ["--tag", tag]
        self._log(f"$ rally {' '.join(args)}\n")
        with self.around_task():
            return self._run_task(args, task_file)

    def _run_task(self, args: list[str], task_file: Path) -> TaskOutcome:
        proc = subprocess.Popen(
            services.dying_with_parent(self._cmd(*args)),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            bufsize=1,
            start_new_session=True,
            env=self._env(),
            umask=PRIVATE_UMASK,
        )
        # recorded: `down` and the next run stop it if this command is killed
        services.record(self.run, RALLY_SERVICE, proc.pid)
        watcher = _ProgressWatcher(self.echo)
        interrupted = False
        try:
            self._pump(proc.stdout, watcher)
            code = proc.wait()
        except KeyboardInterrupt:
            interrupted = True
            code = self._abort(proc, watcher)
        services.forget(self.run, RALLY_SERVICE)
        report = None
        if watcher.uuid:
            self.task_ids.append(watcher.uuid)
            report = self.export_json(watcher.uuid, task_file.stem)
        return TaskOutcome(
            task_file=task_file,
            uuid=watcher.uuid,
            exit_code=EXIT_INTERRUPTED if interrupted else code,
            report=report,
            interrupted=interrupted,
        )

    def _pump(self, stream: IO[str] | None, watcher: _ProgressWatcher) -> None:
        assert stream is not None
        with open(self.log, "a") as log:
            for line in stream:
                clean = self.redact(line)
                log.write(clean)
                watcher.feed(clean.rstrip("\n"))

    def _abort(self, proc: subprocess.Popen[str], watcher: _ProgressWatcher) -> int:
        self.echo(
            "interrupted: aborting the Rally task; its contexts delete the users "
            "and projects they created and the results so far are kept "
            "(Ctrl-C again to kill Rally at once)"
        )
        try:
            if watcher.uuid:
                subprocess.run(
                    self._cmd("task", "abort", watcher.uuid),
                    capture_output=True,
                    stdin=subprocess.DEVNULL,
                    check=False,
                    timeout=60,
                )
            else:
                proc.send_signal(signal.SIGINT)
            self._pump(proc.stdout, watcher)
            return proc.wait()
        except (KeyboardInterrupt, subprocess.TimeoutExpired):
            self.echo("killing Rally")
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return proc.wait()

    def export_json(self, uuid: str, name: str) -> Path | None:
        """Write Rally's JSON report (format 1.2) of a task into results/."""
        out = self.run.results / f"{name}-{uuid[:8]}.json"
        try:
            self._call(*export_args(uuid, out))
        except RallyError as exc:
            self.echo(f"could not export the results of task {uuid}: {exc}")
            return None
        return out if out.exists() else None


class _ProgressWatcher:
    """Turns Rally's log lines into short progress messages.

    Iterations end one per line from Rally's runners (``ITER: N END:``) or
    a batch per line from the Locust runner (``ITERATIONS: N END: F
    failed``); a message every :data:`PROGRESS_EVERY` iterations.
    """

    def __init__(self, echo: Echo) -> None:
        self.echo = echo
        self.uuid: str | None = None
        self.done = 0
        self.failed = 0
        self.label = workload_label.WorkloadLabel()

    def _count(self, done: int, failed: int) -> None:
        before = self.done
        self.done += done
        self.failed += failed
        if self.done // PROGRESS_EVERY > before // PROGRESS_EVERY:
            self.echo(f"  {self.done} iterations done ({self.failed} failed)")

    def feed(self, line: str) -> None:
        if self.label.collecting and not _OWN_LINE.search(line):
            found = self.label.feed(line)
            if found is not None:
                self.echo(f"  Running workload: {found or '(name not logged)'}")
            return
        if self.label.collecting:  # Rally's config did not end as expected
            self.label.stop()
            self.echo("  Running workload: (name not logged)")
        started = _TASK_STARTED.search(line)
        if started and not self.uuid:
            self.uuid = started.group(1)
            self.echo(f"rally task {self.uuid} started")
            return
        ended = _ITER_END.search(line)
        if ended:
            self._count(1, ended.group(2) != "OK")
            return
        batch = _BATCH_END.search(line)
        if batch:
            self._count(int(batch.group(1)), int(batch.group(2)))
            return
        if _SHOWN.search(line):
            message = line.split(" [-] ", 1)[-1]
            if message.startswith(workload_label.START):
                self.done = self.failed = 0
                self.label.start()  # named once its config is logged
                return
            self.echo(f"  {message}")
