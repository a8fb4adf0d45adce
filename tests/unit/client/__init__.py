"""Tests of the Keystone client library."""
