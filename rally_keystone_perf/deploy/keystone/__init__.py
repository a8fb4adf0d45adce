"""Keystone itself: its configuration (config) and its first state (init)."""
