"""One Masker for the masking tests (building it loads Presidio and spaCy: seconds, not milliseconds)."""

from __future__ import annotations

import pytest

from service.masking import Masker, get_masker


@pytest.fixture(scope="session")
def masker() -> Masker:
    return get_masker()
