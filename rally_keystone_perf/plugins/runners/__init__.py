"""Runner plugins."""
