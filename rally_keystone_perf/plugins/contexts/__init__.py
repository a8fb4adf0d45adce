"""KeystonePerf contexts plugins."""
