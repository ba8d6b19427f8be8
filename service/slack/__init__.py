"""Slack: the ``/crashdoc`` slash command and its follow-up button, on the same pipeline as the API.

    verify.py    every request signed by Slack (slack_sdk's SignatureVerifier), 5-minute replay window
    commands.py  the command text -> what was asked (the subcommands, listed once)
    handlers.py  diagnose(), ask() and the KB index, nothing of their own
    blocks.py    Block Kit messages within Slack's limits; the one Slack mapping of the error tree
    respond.py   posting to the response_url (hooks.slack.com only) from a background task
    routes.py    POST /slack/commands, POST /slack/interactions

The package imports nothing itself: the job kinds (``service.jobs.kinds``) use blocks, handlers and respond,
and routes imports the jobs, so the routes are imported by the app factory as ``service.slack.routes``.
"""
