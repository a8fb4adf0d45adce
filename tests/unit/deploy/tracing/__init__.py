"""Tests of --trace on the deployment side."""
