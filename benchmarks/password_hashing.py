"""The CPU one password check costs, at each bcrypt cost.

Keystone checks a password on every ``POST /v3/auth/tokens`` by password,
with its own bcrypt hasher (``keystone.common.password_hashers.bcrypt``,
12 rounds by default: ``[identity] password_hash_rounds``). This hashes one
password at each cost with that hasher and times its ``verify`` in CPU
seconds of this process (``time.process_time``), the median of
``--repeat`` checks, so the figure is the check's own CPU and not the
machine's load. It prints figures; it asserts nothing.

Usage (from the repository root)::

    python -m benchmarks.password_hashing [--rounds 4,10,12] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import time

from prettytable import PrettyTable


def check_seconds(rounds: int, repeat: int) -> float:
    """Median CPU seconds of one check of a password hashed at ``rounds``."""
    # costly: Keystone's package, imported only by this benchmark's run
    from keystone.common.password_hashers.bcrypt import Bcrypt

    password = b"benchmark-password"
    hashed = Bcrypt.hash(password, rounds=rounds)
    spent = []
    for _ in range(repeat):
        start = time.process_time()
        if not Bcrypt.verify(password, hashed):
            raise SystemExit("Keystone's bcrypt hasher refused its own hash")
        spent.append(time.process_time() - start)
    return statistics.median(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", default="4,10,12", help="bcrypt costs, comma-separated"
    )
    parser.add_argument("--repeat", type=int, default=7, help="checks per cost")
    args = parser.parse_args()
    table = PrettyTable(["bcrypt rounds", "CPU ms per check"], align="r")
    for rounds in (int(r) for r in args.rounds.split(",")):
        table.add_row([rounds, f"{check_seconds(rounds, args.repeat) * 1000:.1f}"])
    print(table)


if __name__ == "__main__":
    main()
