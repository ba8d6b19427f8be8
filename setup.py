"""Packaging: pyproject.toml says everything except one step, which needs code.

kb/ and prompts/ live at the top of the repository (they are content, edited as such). A wheel carries
a copy of them inside the ``service`` package, under ``service/_content/``, where ``service.settings``
finds them when crashdoc is installed without the repository. An editable install reads them in place.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# (folder at the top of the repository, the files of it that the service reads)
CONTENT = (("kb", "*.md"), ("kb/triage", "*.md"), ("prompts", "*.j2"))


class build_py_with_content(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads kb/ and prompts/ in place
            return
        for folder, pattern in CONTENT:
            target = Path(self.build_lib) / "service" / "_content" / folder
            target.mkdir(parents=True, exist_ok=True)
            for path in sorted((ROOT / folder).glob(pattern)):
                shutil.copyfile(path, target / path.name)


setup(cmdclass={"build_py": build_py_with_content})
