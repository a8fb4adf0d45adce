"""Tests of the report's figures."""
