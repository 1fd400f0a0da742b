"""veil's HTTP server: an OpenAI-compatible chat-completions API, a REST API and a trace viewer.
Start it with ``veil serve``; build the app with :func:`veil.server.app.create_app`."""

from veil.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]


def create_app(settings: ServerSettings | None = None):
    from veil.server.app import create_app as _create_app

    return _create_app(settings)
