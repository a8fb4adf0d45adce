"""A mix's operations in a deterministic weighted sequence.

Drawn by the ``KeystonePerf.mix`` scenario and by its replay recipe (the
instruction counts), both above this floor.

``KeystonePerf.mix`` draws iteration N's operation as the N-th term of this
sequence, so any iteration, in any process or thread and in any order,
draws the same operation as every other runner would, and after any
number of iterations each operation's count is within one of its share:
``|count_k(n) - n * w_k / W| < 1`` for every prefix ``n`` (one iteration's
grain).

Tijdeman's chairman-assignment algorithm (R. Tijdeman, "The chairman
assignment problem", Discrete Mathematics 32, 1980) guarantees it, where
the plain smooth weighted round robin (most behind goes next) drifts past
one with many operations of skewed weights: with ``K`` operations and
``s = 1 - 1/(2K - 2)``, step ``n`` takes, among the operations that would
not run ahead by ``s`` or more, the one whose next occurrence is due
first, ``(count_k + s) / p_k``. The seed orders the operations, and so
breaks ties (operations of equal weight take their turns in the seed's
order); the shares do not depend on it.
"""

from __future__ import annotations

import random
import threading
from array import array
from collections.abc import Mapping

EPSILON = 1e-9  # float slack of the eligibility test


class WeightError(ValueError):
    """Weights that cannot make a sequence; the message says why."""


def check_weights(weights: Mapping[str, object], known: tuple[str, ...]) -> None:
    """Refuse an empty mix, an unknown operation, a weight not above 0.

    :raises WeightError: naming the operation and the known ones.
    """
    if not weights:
        raise WeightError("weights: no operation given")
    for name, weight in weights.items():
        if name not in known:
            raise WeightError(
                f"weights: unknown operation {name!r} (known: {', '.join(known)})"
            )
        number = isinstance(weight, (int, float)) and not isinstance(weight, bool)
        if not number or not weight > 0:  # type: ignore[operator]
            raise WeightError(
                f"weights: {name} is {weight!r}, and a weight must be a number above 0"
            )


class WeightedSequence:
    """The mix's operations, term by term; thread-safe, grown on demand.

    Terms are kept once drawn (two bytes each), so each process draws every
    term once however many iterations ask.
    """

    def __init__(self, weights: Mapping[str, float], seed: int = 0) -> None:
        names = sorted(weights)
        random.Random(seed).shuffle(names)
        self.names = tuple(names)
        total = float(sum(weights.values()))
        self._shares = [float(weights[name]) / total for name in names]
        count = len(names)
        self._slack = 1.0 - 1.0 / (2 * (count - 1)) if count > 1 else 1.0
        self._counts = [0] * count
        self._terms = array("H")
        self._lock = threading.Lock()

    def share(self, name: str) -> float:
        """The share of ``name`` (its weight over the sum of weights)."""
        return self._shares[self.names.index(name)]

    def __getitem__(self, index: int) -> str:
        """The operation of term ``index`` (0-based)."""
        if index < 0:
            raise IndexError(index)
        with self._lock:
            while len(self._terms) <= index:
                self._terms.append(self._next(len(self._terms) + 1))
            return self.names[self._terms[index]]

    def _next(self, step: int) -> int:
        """Term ``step`` (1-based) by Tijdeman's rule; counted."""
        shares, counts, slack = self._shares, self._counts, self._slack
        chosen, due = -1, 0.0
        for k, share in enumerate(shares):
            if counts[k] + 1 - slack > step * share + EPSILON:
                continue  # would run ahead of its share by the slack or more
            when = (counts[k] + slack) / share
            if chosen < 0 or when < due - EPSILON:
                chosen, due = k, when
        if chosen < 0:  # never, by the theorem; the most behind, if floats err
            chosen = max(range(len(shares)), key=lambda k: step * shares[k] - counts[k])
        counts[chosen] += 1
        return chosen


_SEQUENCES: dict[tuple[tuple[tuple[str, float], ...], int], WeightedSequence] = {}
_SEQUENCES_LOCK = threading.Lock()


def sequence(weights: Mapping[str, float], seed: int = 0) -> WeightedSequence:
    """This process's sequence of these weights and seed (made once)."""
    key = (tuple(sorted((k, float(v)) for k, v in weights.items())), seed)
    with _SEQUENCES_LOCK:
        made = _SEQUENCES.get(key)
        if made is None:
            made = _SEQUENCES[key] = WeightedSequence(weights, seed)
        return made
