"""A cluster of Keystone nodes behind haproxy (--nodes N)."""
