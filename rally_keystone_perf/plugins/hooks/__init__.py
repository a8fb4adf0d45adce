"""Rally hook plugins of rally-keystone-perf."""
