"""Context that makes a share of the iterations carry OSProfiler traces."""

from __future__ import annotations

from pathlib import Path

from rally import exceptions
from rally.task import context

from rally_keystone_perf.client import tracing


@context.configure(name=tracing.CONTEXT_NAME, platform="openstack", order=160)
class KeystonePerfTrace(context.Context):
    """Trace a share of the iterations inside Keystone with OSProfiler.

    Each sampled iteration sends OSProfiler's trace headers, signed with the
    HMAC key read from ``hmac_key_file``, on every request it makes; a
    Keystone with ``[profiler] enabled`` and the same key records its spans
    (SQL statements included with ``trace_sqlalchemy``) under the trace id
    the iteration keeps in its output ("OSProfiler Trace-ID"). ``sample``:
    the share of iterations traced, spread evenly without a period (1:
    every one). The suite's ``--trace`` adds this context to every
    workload, with the run's key; iterations not sampled send nothing more
    than without it.
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {
            "sample": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 1,
                "description": "Share of the iterations traced (0-1].",
            },
            "hmac_key_file": {
                "type": "string",
                "description": "File holding Keystone's [profiler] hmac_keys "
                "key (its first line).",
            },
        },
        "required": ["hmac_key_file"],
        "additionalProperties": False,
    }

    DEFAULT_SAMPLE = 1.0
    DEFAULT_CONFIG = {"sample": DEFAULT_SAMPLE}

    def setup(self) -> None:
        """Read the key; scenarios find it with the share in the context."""
        path = Path(self.config["hmac_key_file"])
        try:
            key = path.read_text().splitlines()[0].strip()
        except (OSError, IndexError):
            raise exceptions.RallyException(
                f"{tracing.CONTEXT_NAME}: cannot read an HMAC key from {path}"
            ) from None
        self.context[tracing.CONTEXT_NAME] = {
            "sample": float(self.config.get("sample", self.DEFAULT_SAMPLE)),
            "hmac_key": key,
        }

    def cleanup(self) -> None:
        """Nothing to undo: the traces stay in Keystone's backend."""

    def __repr__(self) -> str:  # never show the key
        sample = self.config.get("sample", self.DEFAULT_SAMPLE)
        return f"<{tracing.CONTEXT_NAME} sample={sample}>"
