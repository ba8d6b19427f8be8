"""The eval suite: labelled crash logs in ``evals/cases``, scored by ``crashdoc eval``."""
