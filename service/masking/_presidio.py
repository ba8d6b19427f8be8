"""Import Presidio without the machine-learning stacks it offers and this masker does not use.

``presidio_analyzer.nlp_engine`` imports its Hugging Face engine, which imports ``transformers`` (and,
through it, torch); spaCy's ``thinc`` imports torch too. Both imports are guarded by ``except
ImportError`` in those libraries, and crashdoc only runs pattern recognizers over a blank spaCy
pipeline. Importing them with ``transformers`` and ``torch`` hidden saves about 6 s of start-up and
400 MB of memory in every process that masks (the CLI, each service worker). A process that has
already imported them (the index export needs torch) keeps them: nothing is hidden then.
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
