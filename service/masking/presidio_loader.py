"""Import Presidio and spaCy without the Hugging Face and torch imports they would drag in.

``presidio_analyzer.nlp_engine`` imports its Hugging Face engine, which imports ``transformers`` (and,
through it, torch); spaCy's ``thinc`` imports torch too. Both imports are guarded by ``except
ImportError`` in those libraries, so ``import_presidio`` imports them with ``transformers`` and
``torch`` hidden (about 6 s and 400 MB saved). A process that has already imported them keeps them.

A leaf module (it imports nothing of crashdoc), so that ``checks`` (the IBAN check) and ``presidio``
(the parity engine) can both import it at the top.
"""

from __future__ import annotations

import sys

_HIDDEN = ("transformers", "torch")


def import_presidio() -> None:
    hidden = [name for name in _HIDDEN if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` now raises ImportError
    try:
        import presidio_analyzer
        import presidio_analyzer.nlp_engine  # noqa: F401
        import presidio_anonymizer  # noqa: F401
        import spacy  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]
