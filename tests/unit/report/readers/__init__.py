"""Tests of the report's readers."""
