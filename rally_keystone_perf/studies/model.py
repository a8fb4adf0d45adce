"""A seed's study: the deployments it compared, its figures, its ratios."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# the figures a seed row may give (seconds, but success: a fraction, count,
# throughput: iterations per second)
FIGURES = (
    "min",
    "median",
    "avg",
    "max",
    "p90",
    "p95",
    "success",
    "count",
    "throughput",
)
TOTAL = ""  # a row's action: the workload's total (not one atomic action)


@dataclass(frozen=True)
class Config:
    """One deployment the seed compared, and its modern equivalent here."""

    label: str  # ours: eventlet-1w (also the study's folder for it)
    seed_label: str  # the seed's words: keystone-all, public_workers 1
    mode: str
    options: dict[str, Any] = field(default_factory=dict)  # LaunchOptions'
    # size -> task file patterns when not the study's (seed 001's parts)
    patterns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # the folder of its task files under tasks/ ("" for tasks/ itself) when
    # not the mode's own (nova-fake's boot-server files are in tasks/)
    task_folder: str | None = None

    @property
    def nodes(self) -> int:
        """Keystone nodes (more than 1: a cluster behind haproxy)."""
        return int(self.options.get("nodes", 1))


@dataclass(frozen=True)
class SeedRow:
    """One row of the seed's table: a deployment at a concurrency level."""

    config: str  # Config.label
    concurrency: int
    figures: dict[str, float]  # of FIGURES; seconds, success 0-1
    outcome: str = ""  # the seed's words when it gave no figure (003)
    action: str = TOTAL  # an atomic action's row (keystone.create_user)


@dataclass(frozen=True)
class Ratio:
    """How much faster ``faster`` is than ``slower`` at each level: the
    slower's avg over the faster's, or the faster's throughput over the
    slower's (``figure``)."""

    name: str  # 4 workers vs 1
    faster: str  # Config.label
    slower: str  # Config.label
    seed_words: str = ""  # what the seed said when it gave no figure
    action: str = TOTAL  # the rows compared: the totals or an atomic action's
    figure: str = "avg"  # or "throughput"

    @property
    def counted_scenario(self) -> str | None:
        """The scenario whose instruction count is this ratio's: its atomic
        action's (``keystone.create_token``: ``KeystonePerf.create_token``);
        None for a ratio of the tasks' totals."""
        if self.action == TOTAL:
            return None
        return f"KeystonePerf.{self.action.split('.')[-1]}"


@dataclass(frozen=True)
class CapacitySpec:
    """A study's capacity row per config (``study --capacity``): the highest
    arrival rate each config sustains under ``slo``, found by ``capacity``'s
    search on the one workload of the task file ``pattern`` (its runner and
    SLA replaced by the search's steps)."""

    pattern: str  # a task file pattern of the study's size: list-projects-c10
    slo: str  # p95<1000ms,success>=99.9%
    unit: str  # what a rate counts: project lists
    configs: tuple[str, ...] = ()  # the configs searched (empty: all)
    seed_rates: dict[str, float] = field(default_factory=dict)  # the seed's /s
    seed_words: str = ""  # what the seed measured, when it gave rates
    start: float = 5.0  # the search's first rate a second
    step_seconds: float = 10.0  # each step's load; its second half judged
    repeats: int = 1  # steps at each middle rate (the quick study's: one)
    precision: float = 0.1  # the bracket's width at which it stops


@dataclass(frozen=True)
class Study:
    """A seed's study: its deployments, task files, table and ratios."""

    seed: str  # 000
    title: str
    source: str  # the seed's file and section the table comes from
    configs: tuple[Config, ...]
    patterns: dict[str, tuple[str, ...]]  # size -> task file patterns (--tasks)
    rows: tuple[SeedRow, ...]
    ratios: tuple[Ratio, ...] = ()
    compared: tuple[str, ...] = ("avg", "p95", "success")  # the table's columns
    differs: str = ""  # what differs from the seed here
    conclusion: str = ""  # the seed's conclusion, in its words
    # size -> each round's share of a task file's load, when measured in
    # rounds (1.0 where not named: every round runs the whole file)
    round_scale: dict[str, float] = field(default_factory=dict)
    # size -> the levels run when --levels names none (default: every file's)
    default_levels: dict[str, tuple[int, ...]] = field(default_factory=dict)
    capacity: CapacitySpec | None = None  # its capacity rows (--capacity)

    @property
    def in_rounds(self) -> bool:
        """Whether its configs are measured in rounds taken in turns, all up
        at once: two or more, none a cluster (clusters of several sizes, seed
        001's, still run one after the other, as a matrix each)."""
        return len(self.configs) > 1 and all(c.nodes == 1 for c in self.configs)

    def patterns_of(self, config: Config, size: str) -> tuple[str, ...]:
        """The task file patterns ``config`` runs at ``size``."""
        return (config.patterns or self.patterns)[size]

    def config(self, label: str) -> Config:
        """The config named ``label``.

        :raises KeyError: no such config.
        """
        for config in self.configs:
            if config.label == label:
                return config
        raise KeyError(label)

    def narrowed(self, labels: Sequence[str]) -> Study:
        """This study with only the configs ``labels`` (their rows, the
        ratios between them).

        :raises KeyError: a label that is not one of its configs.
        """
        known = [config.label for config in self.configs]
        unknown = [label for label in labels if label not in known]
        if unknown:
            raise KeyError(
                f"study {self.seed} has no config {', '.join(unknown)} "
                f"(its configs: {', '.join(known)})"
            )
        return dataclasses.replace(
            self,
            configs=tuple(c for c in self.configs if c.label in labels),
            rows=tuple(row for row in self.rows if row.config in labels),
            ratios=tuple(r for r in self.ratios if {r.faster, r.slower} <= set(labels)),
        )

    def capacity_configs(self) -> list[Config]:
        """The configs its capacity rows search (none without a spec)."""
        if self.capacity is None:
            return []
        chosen = self.capacity.configs
        return [c for c in self.configs if not chosen or c.label in chosen]

    def levels(self) -> list[int]:
        """The concurrency levels of the seed's rows, ascending."""
        return sorted({row.concurrency for row in self.rows})
