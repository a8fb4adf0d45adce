"""Tests of the load generators."""
