"""KeystonePerf sla plugins."""
