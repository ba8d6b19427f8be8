"""The CI kit's Python side: post the PR-comment markdown on a GitHub PR or a GitLab MR, one comment per key."""
