"""File systems and object stores: NFS silly-renamed files that block a delete."""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "nfs-silly-rename-busy",
        "nfs-silly-rename-busy",
        (
            # shutil.rmtree unlinking (by name, dir_fd=...) a silly-renamed file still open on this client:
            # "OSError: [Errno 16] Device or resource busy: '.nfs000000000a3c71f500000042'"; os.remove(path) names the path
            r"\[Errno 16\] Device or resource busy: '(?:[^']*/)?\.nfs[0-9a-fA-F]{8,}",
        ),
        0.9,
    ),
    Rule(
        "nfs-silly-rename-not-empty",
        "nfs-silly-rename-busy",
        (
            # the rmdir after it: "OSError: [Errno 39] Directory not empty: '/nfs/runs/x/checkpoint-1500'"
            r"\[Errno 39\] Directory not empty: '",
        ),
        0.7,
        # only when the log shows the silly-renamed file that kept the directory from being empty
        needs=(r"\.nfs[0-9a-fA-F]{8,}",),
    ),
)
