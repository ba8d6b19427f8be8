"""One Masker for the masking tests (built once: its patterns compiled)."""

from __future__ import annotations

import pytest

from service.masking import Masker, get_masker


@pytest.fixture(scope="session")
def masker() -> Masker:
    return get_masker()
