"""Power and false alarms of the A/B gate on this machine.

Builds Keystone three ways from the installed release's sdist (a git
repository in the work folder): as it is, and with a fixed extra CPU cost
inside token validation worth +10% and +20% of the validation's server CPU:
``GET /v3/auth/tokens``' handler (``keystone/api/auth.py``,
``AuthTokenResource.get``) runs a loop of a fixed number of iterations
before it validates the subject token, the count set from the loop's speed
in this interpreter and the first A/A's measured server CPU per validation.
Each cost is a branch of that repository (``slow-<percent>``), built as
``git+file://...@slow-<percent>``. Then runs A/Bs of a small task
(``validate_token`` of ``tasks/gate-tokens.json``: 60 validations at
concurrency 4 a round, users from the pool) with side A the unchanged
build: A/A ``--aa`` times, +10% ``--ten`` times, +20% ``--twenty`` times,
taken in turns so that the machine's drift falls on every kind. Each A/B is
gated as ``rally-keystone-perf gate AB_DIR --max-regression TOL --gate-on
ON`` judges it, for each ON of
:data:`benchmarks.calibration_table.GATES` (the median alone, the median
and the server's CPU per iteration together, the CPU alone; with counts,
the ready-made jobs' default), and the table prints, per kind and gate, how
often the gate failed or refused it (a false alarm for an A/A, a detection
otherwise), how often the median's interval excluded no change, the mean
estimate, the median interval width and the minutes per A/B.

``--count`` then counts each kind's two builds once (``ab --instructions
--rounds 0``, beside the neighbour too) and lends the counts to every A/B
of that kind (:func:`count_kinds`: counts do not drift, so one count
stands for every A/B of the same builds), which is then also gated with
``--gate-on median,cpu,instructions,statements`` at 1% more instructions
and no query more.

``--neighbour SEED`` runs each A/B beside a neighbour that comes and goes
(:mod:`benchmarks.neighbour`): a CPU-bound process (a Python busy loop, one
core) switched on and off at random intervals of 5 to 30 seconds, drawn
from ``SEED`` plus the A/B's index; the share of time it was on is kept
with each A/B. Give each condition its own ``--work``.

Resumable: every finished A/B is a line of ``<work>/calibration.jsonl``;
run it again and it goes on where it stopped (``--table`` prints the table
of what is there, each A/B gated again from its folder at
``--tolerance``). It prints figures; it asserts nothing.

Usage (from the repository root; about 75 minutes with the defaults)::

    python -m benchmarks.ab_calibration [--work runs/ab-calibration]
        [--aa 10] [--ten 10] [--twenty 5] [--rounds 8] [--tolerance 5%]
        [--neighbour SEED] [--count] [--table]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.calibration_table import KINDS, entries_of, judged, table
from benchmarks.neighbour import Neighbour
from rally_keystone_perf import paths
from rally_keystone_perf.cli.arguments import percentage
from rally_keystone_perf.deploy.builds import source
from rally_keystone_perf.layout.counts import COUNTS_FILE

# --- the slowed builds: an extra CPU cost in GET /v3/auth/tokens' handler
HANDLER = "class AuthTokenResource("
ANCHOR = (
    "        token_id = flask.request.headers.get(\n"
    "            authorization.SUBJECT_TOKEN_HEADER\n"
    "        )\n"
)
CALL = "        _calibration_extra_cost()  # rally-keystone-perf calibration\n"
FUNCTION = '''

def _calibration_extra_cost(iterations={iterations}):
    """rally-keystone-perf's A/B calibration: a fixed extra CPU cost."""
    total = 0
    for i in range(iterations):
        total += i * i
    return total
'''
# the loop timed as it runs in Keystone: a function's locals
LOOP = (
    FUNCTION.format(iterations=3_000_000)
    + """
import time
best = 0.0
for _ in range(3):
    start = time.process_time()
    _calibration_extra_cost()
    best = max(best, 3_000_000 / (time.process_time() - start))
print(best)
"""
)


def loop_rate(python: Path = Path(sys.executable)) -> float:
    """Iterations of the extra cost's loop per CPU second (best of 3)."""
    done = subprocess.run(
        [str(python), "-I", "-c", LOOP], capture_output=True, text=True, check=True
    )
    return float(done.stdout)


def patched(text: str, iterations: int) -> str:
    """``keystone/api/auth.py`` with the extra cost in token validation."""
    handler = text.index(HANDLER)
    anchor = text.index(ANCHOR, handler) + len(ANCHOR)
    return text[:anchor] + CALL + text[anchor:] + FUNCTION.format(iterations=iterations)


def slowed_branch(repo: Path, base_ref: str, percent: int, iterations: int) -> str:
    """Branch ``slow-<percent>`` of ``repo``: ``base_ref`` with the extra cost."""
    branch = f"slow-{percent}"
    source.git(repo, "checkout", "-q", "-B", branch, base_ref)
    auth = repo / "keystone" / "api" / "auth.py"
    auth.write_text(patched(auth.read_text(), iterations))
    source.commit(repo, f"calibration: +{percent}% ({iterations} loop iterations)")
    source.git(repo, "checkout", "-q", base_ref)
    return branch


# --- the A/Bs


def schedule(aa: int, ten: int, twenty: int) -> list[str]:
    """The A/Bs' kinds in turns: A/A first (it sets the extra costs)."""
    left = {"A/A": aa, "+10%": ten, "+20%": twenty}
    order: list[str] = []
    while any(left.values()):
        for kind in KINDS:
            if left[kind]:
                order.append(kind)
                left[kind] -= 1
    return order


def small_task(work: Path) -> Path:
    """The gate task's validate_token workload alone."""
    gate = json.loads((paths.tasks_dir() / "gate-tokens.json").read_text())
    subtasks = [s for s in gate["subtasks"] if "validate_token" in s["tags"]]
    task = {**gate, "title": "A/B calibration: validate_token", "subtasks": subtasks}
    path = work / "task.json"
    path.write_text(json.dumps(task, indent=2) + "\n")
    return path


def run_ab(
    args: argparse.Namespace,
    folder: Path,
    task: Path,
    b_ref: str,
    *more: str,
    rounds: int | None = None,
) -> float:
    """One A/B (base against ``b_ref``; ``more``: options of ``ab``;
    ``rounds``: None for ``--rounds``) in a child process; its minutes."""
    url = f"git+file://{args.work / 'keystone'}"
    base = source.installed_version()
    started = time.monotonic()
    code = subprocess.run(
        [
            *(sys.executable, "-m", "rally_keystone_perf.cli", "ab"),
            *("--task", str(task)),
            *("--rounds", str(args.rounds if rounds is None else rounds)),
            *("--ab-dir", str(folder), "--runs-dir", str(args.work / "runs")),
            *("--password-hash-rounds", "4", *more),
            f"--a=--keystone-build {url}@{base}",
            f"--b=--keystone-build {url}@{b_ref}",
        ],
        stdout=subprocess.DEVNULL,
    ).returncode
    if code not in (0, 2):
        raise SystemExit(f"the A/B in {folder} failed (exit {code})")
    return (time.monotonic() - started) / 60


def count_kinds(args: argparse.Namespace, task: Path, refs: dict[str, str]) -> None:
    """``--count``: each kind's two builds counted once (``ab --instructions
    --rounds 0``, beside the neighbour when there is one) into
    ``counts-<n>/``, then lent to every A/B of that kind (its folder gets the
    kind's ``instructions.json`` and ``counts-from.txt`` naming where from):
    counts do not drift, so one count stands for every A/B of the builds."""
    entries = entries_of(args.work / "calibration.jsonl")
    for n, kind in enumerate(k for k in KINDS if any(e["kind"] == k for e in entries)):
        folder = args.work / f"counts-{KINDS[kind]}"
        if not (folder / COUNTS_FILE).is_file():
            shutil.rmtree(folder, ignore_errors=True)
            print(f"counting {kind}'s builds in {folder}", flush=True)
            with (
                Neighbour(args.neighbour + 100 + n)
                if args.neighbour is not None
                else (contextlib.nullcontext())
            ):
                minutes = run_ab(
                    args, folder, task, refs[kind], "--instructions", rounds=0
                )
            print(f"{kind}: counted in {minutes:.1f} min", flush=True)
        for entry in (e for e in entries if e["kind"] == kind):
            lent = args.work / f"ab-{entry['index'] + 1:02d}"
            shutil.copyfile(folder / COUNTS_FILE, lent / COUNTS_FILE)
            (lent / "counts-from.txt").write_text(f"{folder / COUNTS_FILE}\n")


def extra_costs(work: Path, base_cpu: float | None) -> dict[str, str]:
    """The slowed branches, made once: kind -> git ref."""
    plan_file = work / "plan.json"
    if plan_file.is_file():
        return dict(json.loads(plan_file.read_text())["refs"])
    if not base_cpu:
        raise SystemExit("the first A/A measured no server CPU per validation")
    rate = loop_rate()
    refs, iterations = {"A/A": source.installed_version()}, {}
    for kind, percent in KINDS.items():
        if percent:
            iterations[kind] = round(base_cpu * percent / 100 * rate)
            refs[kind] = slowed_branch(
                work / "keystone", refs["A/A"], percent, iterations[kind]
            )
    plan = {"base_cpu_s": base_cpu, "loop_rate": rate, "iterations": iterations}
    plan_file.write_text(json.dumps(plan | {"refs": refs}, indent=2) + "\n")
    print(f"extra costs: {json.dumps(plan)}", flush=True)
    return refs


def measure(args: argparse.Namespace) -> None:
    """Run the A/Bs not yet in ``calibration.jsonl``."""
    args.work.mkdir(parents=True, exist_ok=True)
    if not (args.work / "keystone").exists():
        source.make_checkout(args.work / "keystone")
    task = small_task(args.work)
    results = args.work / "calibration.jsonl"
    done = entries_of(results)
    refs = None if not done else extra_costs(args.work, done[0]["server_cpu_a"])
    for index, kind in enumerate(schedule(args.aa, args.ten, args.twenty)):
        if index < len(done):
            continue
        b_ref = source.installed_version() if refs is None else refs[kind]
        folder = args.work / f"ab-{index + 1:02d}"
        shutil.rmtree(folder, ignore_errors=True)  # an A/B that did not finish
        neighbour = None
        if args.neighbour is None:
            minutes = run_ab(args, folder, task, b_ref)
        else:
            with Neighbour(args.neighbour + index) as neighbour:
                minutes = run_ab(args, folder, task, b_ref)
        entry: dict[str, Any] = {"index": index, "kind": kind}
        if neighbour is not None:
            entry["neighbour_on"] = round(neighbour.on_share(), 3)
        entry |= {"minutes": round(minutes, 2), "at": time.time()}
        entry |= judged(folder, args.tolerance)
        with results.open("a") as out:
            out.write(json.dumps(entry) + "\n")
        print(json.dumps(entry), flush=True)
        if refs is None:
            refs = extra_costs(args.work, entry["server_cpu_a"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("runs/ab-calibration"))
    parser.add_argument("--aa", type=int, default=10, help="A/As (default: 10)")
    parser.add_argument("--ten", type=int, default=10, help="+10%% A/Bs (10)")
    parser.add_argument("--twenty", type=int, default=5, help="+20%% A/Bs (5)")
    parser.add_argument("--rounds", type=int, default=8, help="rounds per A/B (8)")
    parser.add_argument(
        "--tolerance", type=percentage, default=0.05, help="the gate's (5%%)"
    )
    parser.add_argument(
        "--neighbour",
        type=int,
        default=None,
        metavar="SEED",
        help="run each A/B beside a CPU-bound neighbour switched on and off "
        "at random intervals of 5 to 30 s (seeded; default: none)",
    )
    parser.add_argument(
        "--count",
        action="store_true",
        help="after the A/Bs, count each kind's builds once (ab --instructions "
        "--rounds 0) and lend the counts to its A/Bs, which are then gated the "
        "ready-made jobs' way too (median,cpu,instructions,statements)",
    )
    parser.add_argument("--table", action="store_true", help="print, run nothing")
    args = parser.parse_args()
    args.work = args.work.resolve()  # the git URL of its repository is absolute
    if not args.table:
        measure(args)
    if args.count and not args.table:
        count_kinds(args, small_task(args.work), extra_costs(args.work, None))
    print(table(args.work, args.tolerance))
    plan = args.work / "plan.json"
    if plan.is_file():
        print(f"extra costs: {plan.read_text().strip()}")


if __name__ == "__main__":
    main()
