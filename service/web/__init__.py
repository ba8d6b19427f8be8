"""The web pages: server-rendered templates, a little JavaScript, no build step, nothing external.

``routes`` (the pages), ``forms`` (the paste-or-drop form, in memory), ``encyclopedia`` (phases, library
hubs, search), ``templating`` (Jinja, static assets, filters), ``markdown`` (safe rendering).
"""

from service.web.routes import router

__all__ = ["router"]
