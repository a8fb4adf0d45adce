"""Repeatability and power of the instruction counts (``ab --instructions``).

Builds Keystone from the installed release's sdist (a git repository in
the work folder, as :mod:`benchmarks.ab_calibration` does) twice: as it is,
and with a fixed extra cost in token validation worth +2% of a
validation's instructions (the calibration's loop in
``AuthTokenResource.get``, its iterations set from the loop's own count
under callgrind). Then, with ``tasks/gate-tokens.json``'s workloads:

1. **Repeatability**: the unchanged build's ``validate_token`` counted
   ``--repeats`` times with the other core idle, then as many times with it
   busy (a Python busy loop), each count in a fresh folder and, as ``ab
   --instructions`` counts, the mean of 4 memory layouts: each count's
   instructions per request, and the spread (largest - smallest) / median
   per condition and overall.
2. **Detection**: ``--detections`` A/Bs of counts, the unchanged build
   against the +2% one: B/A each time, detected when above 1% (the
   threshold ``gate --max-instruction-increase 1%`` uses).
3. **Time**: the whole gate task counted once on one side, in seconds.
4. **Timings** (unless ``--no-timed``): one timed ``ab`` of the same two
   builds (``--rounds`` rounds of the validation workload), whose verdict
   says whether the timings see the 2%.

It prints figures and exits 2 when a target is missed (a spread of 1% or
more, a +2% A/B not detected, a side over 5 minutes).

Usage (from the repository root; about 35 minutes)::

    python -m benchmarks.instruction_counts [--work runs/instruction-counts]
        [--repeats 5] [--detections 3] [--rounds 8] [--no-timed]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks import ab_calibration
from rally_keystone_perf import cli, paths
from rally_keystone_perf.deploy.builds import prepare, source
from rally_keystone_perf.deploy.instructions import count, markers, site
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.report.figures import ab, verdicts
from rally_keystone_perf.report.readers import ab_folder
from rally_keystone_perf.tasks.model import TaskFile

EXTRA_PERCENT = 2
THRESHOLD = 0.01  # gate --max-instruction-increase 1%
MAX_SPREAD = 0.01
MAX_SIDE_SECONDS = 300.0
BUSY = "while True: pass"


def gate_specs() -> list[dict[str, Any]]:
    """The gate task's workloads, as the count replays them."""
    task = TaskFile.load(paths.tasks_dir() / "gate-tokens.json")
    return count.workload_specs(task.workloads())


def built(work: Path, ref: str) -> LaunchOptions:
    """A count's options for ``ref`` of the work repository, built."""
    options = LaunchOptions(
        keystone_build=f"git+file://{work / 'keystone'}@{ref}",
        build_cache=str(work / "builds"),
    )
    return site.count_options(prepare.prepare(resolve(options), print).options)


def per_request(work: Path, name: str, options: LaunchOptions, specs: list) -> float:
    """One fresh count of ``specs[0]``: instructions per request."""
    found = count.count_side(work / name, options, specs, count.CountPlan(), print)
    return found.workloads[0].per_request


def loop_instructions(work: Path) -> float:
    """Instructions per iteration of the calibration's loop under callgrind."""
    library = markers.build(work / "markers")
    program = (
        ab_calibration.FUNCTION.format(iterations=0)
        + f"""
import ctypes
lib = ctypes.CDLL({str(library)!r})
lib.ksp_dump.argtypes = [ctypes.c_char_p]
_calibration_extra_cost(1000)
lib.ksp_start()
for n in (20000, 40000):
    lib.ksp_zero()
    _calibration_extra_cost(n)
    lib.ksp_dump(b"segment-%d" % n)
"""
    )
    out = work / "loop"
    out.mkdir(parents=True, exist_ok=True)
    argv = [str(count.valgrind()), "--tool=callgrind", "--instr-atstart=no"]
    argv += [f"--callgrind-out-file={out / 'loop'}.out", sys.executable, "-c", program]
    subprocess.run(argv, check=True, capture_output=True)
    totals = count.segment_totals(out, "loop")
    return (totals["segment-40000"] - totals["segment-20000"]) / 20000


@contextmanager
def other_core_busy() -> Iterator[None]:
    """A Python busy loop on the other core while the block runs."""
    busy = subprocess.Popen([sys.executable, "-c", BUSY])
    try:
        yield
    finally:
        busy.kill()
        busy.wait()


def spread(values: list[float]) -> float:
    return (max(values) - min(values)) / statistics.median(values)


def repeatability(work: Path, base: LaunchOptions, repeats: int) -> dict[str, Any]:
    """``validate_token`` counted ``repeats`` times idle, then loaded."""
    specs = gate_specs()[1:]  # validate_token
    # names of one length: a path's length moves the process's memory layout
    idle = [per_request(work, f"idle-{n}", base, specs) for n in range(repeats)]
    with other_core_busy():
        loaded = [per_request(work, f"busy-{n}", base, specs) for n in range(repeats)]
    return {"idle": idle, "loaded": loaded}


def detection(
    work: Path, base: LaunchOptions, slow: LaunchOptions, times: int
) -> list[float]:
    """B/A of ``validate_token``'s count, the +2% build against the base."""
    specs = gate_specs()[1:]
    return [
        per_request(work, f"slow-{n}", slow, specs)
        / per_request(work, f"base-{n}", base, specs)
        for n in range(times)
    ]


def timed_verdict(work: Path, base_ref: str, slow_ref: str, rounds: int) -> str:
    """The timed A/B's verdict on the median, base against +2%."""
    url, folder = f"git+file://{work / 'keystone'}", work / "timed-ab"
    task = ab_calibration.small_task(work)
    argv = ["ab", "--task", str(task), "--rounds", str(rounds)]
    argv += ["--ab-dir", str(folder), "--password-hash-rounds", "4"]
    argv += ["--build-cache", str(work / "builds")]
    argv += [f"--a=--keystone-build {url}@{base_ref}"]
    argv += [f"--b=--keystone-build {url}@{slow_ref}"]
    cli.main(argv)
    (workload,) = ab.workloads(ab_folder.load(folder))
    return verdicts.describe(verdicts.judge(workload.estimate(ab.MEDIAN)))


def report(found: dict[str, Any]) -> bool:
    """Print the figures; whether every target was met."""
    rep = found["repeatability"]
    every = rep["idle"] + rep["loaded"]
    print("instructions per request, validate_token (millions):")
    for name in ("idle", "loaded"):
        values = ", ".join(f"{v / 1e6:.3f}" for v in rep[name])
        print(f"  other core {name}: {values}; spread {spread(rep[name]):.3%}")
    print(f"  all {len(every)} counts: spread {spread(every):.3%}")
    ratios = found["detection"]
    detected = sum(r - 1 > THRESHOLD for r in ratios)
    shown = ", ".join(f"{r:.4f}" for r in ratios)
    print(
        f"+{EXTRA_PERCENT}% build, B/A: {shown}; detected {detected} of {len(ratios)}"
    )
    print(f"the gate task counted on one side in {found['side_seconds']:.0f} s")
    if found.get("timed"):
        print(f"timed A/B of the same builds: {found['timed']}")
    return (
        spread(every) < MAX_SPREAD
        and detected == len(ratios)
        and found["side_seconds"] < MAX_SIDE_SECONDS
    )


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Every figure, written to ``<work>/figures.json`` as well."""
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "keystone").exists():
        source.make_checkout(work / "keystone")
    base_ref = source.installed_version()
    base = built(work, base_ref)
    started = time.monotonic()
    count.count_side(work / "gate-task", base, gate_specs(), count.CountPlan(), print)
    side_seconds = time.monotonic() - started
    found: dict[str, Any] = {"side_seconds": side_seconds}
    found["repeatability"] = repeatability(work, base, args.repeats)
    validation = statistics.median(found["repeatability"]["idle"])
    per_loop = loop_instructions(work)
    iterations = round(validation * EXTRA_PERCENT / 100 / per_loop)
    slow_ref = ab_calibration.slowed_branch(
        work / "keystone", base_ref, EXTRA_PERCENT, iterations
    )
    found["extra"] = {"loop_instructions": per_loop, "iterations": iterations}
    slow = built(work, slow_ref)
    found["detection"] = detection(work, base, slow, args.detections)
    if args.timed:
        found["timed"] = timed_verdict(work, base_ref, slow_ref, args.rounds)
    found["options"] = dataclasses.asdict(base)
    (work / "figures.json").write_text(json.dumps(found, indent=2) + "\n")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("runs/instruction-counts"))
    parser.add_argument("--repeats", type=int, default=5, help="per condition (5)")
    parser.add_argument("--detections", type=int, default=3, help="+2%% A/Bs (3)")
    parser.add_argument("--rounds", type=int, default=8, help="timed A/B's (8)")
    parser.add_argument("--no-timed", dest="timed", action="store_false")
    args = parser.parse_args()
    args.work = args.work.resolve()  # the git URL of its repository is absolute
    return 0 if report(measure(args)) else 2


if __name__ == "__main__":
    sys.exit(main())
