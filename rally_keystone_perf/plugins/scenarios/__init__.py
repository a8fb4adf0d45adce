"""KeystonePerf scenarios plugins."""
