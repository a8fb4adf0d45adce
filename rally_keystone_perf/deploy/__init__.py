"""Local Keystone deployment: modes, rendering, launching."""
