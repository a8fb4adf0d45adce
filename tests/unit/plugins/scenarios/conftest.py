"""Fixtures shared by the scenarios' tests."""

from __future__ import annotations

import pytest

from tests.unit.rally_fakes import TOKENS_URL


@pytest.fixture
def issue(requests_mock):
    """Keystone issuing a token (``NEW``) for every ``POST /v3/auth/tokens``."""
    requests_mock.post(
        TOKENS_URL, status_code=201, headers={"X-Subject-Token": "NEW"}, json={}
    )
    return requests_mock
