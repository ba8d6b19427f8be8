"""The REST API: its routers (``routes``, ``account_routes``), its error mapping and the shared HTTP
dependencies (``deps``). The app that mounts it beside the web pages and Slack is ``service.app``."""
