"""rally-keystone-perf: Rally plugins and tooling that benchmark OpenStack Keystone."""
