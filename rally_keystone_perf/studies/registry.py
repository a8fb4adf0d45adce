"""Every seed's study by its number (``study --list``)."""

from __future__ import annotations

from rally_keystone_perf.studies import seed000, seed001, seed002, seed003, seed004
from rally_keystone_perf.studies.model import Study

STUDIES: dict[str, Study] = {
    s.seed: s
    for s in (seed000.STUDY, seed001.STUDY, seed002.STUDY, seed003.STUDY, seed004.STUDY)
}


def study(seed: str) -> Study:
    """The study of seed ``seed`` (``000`` or ``0``).

    :raises KeyError: no such study, with the ones there are.
    """
    key = seed.zfill(3)
    if key not in STUDIES:
        raise KeyError(f"no study of seed {seed!r} (there are: {', '.join(STUDIES)})")
    return STUDIES[key]
