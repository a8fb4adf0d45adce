"""Rally plugins of rally-keystone-perf (loaded via the rally_plugins entry point)."""
