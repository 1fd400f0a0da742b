"""structlog set-up. veil logs ids, sizes, scores and timings; never input text."""

from __future__ import annotations

import logging
import os
import sys

import structlog

_configured = False


def configure(level: str | None = None, json: bool | None = None) -> None:
    global _configured
    if _configured:
        return
    level = (level or os.environ.get("VEIL_LOG_LEVEL", "WARNING")).upper()
    json = json if json is not None else os.environ.get("VEIL_LOG_JSON", "1") != "0"
    logging.basicConfig(stream=sys.stderr, level=level, format="%(message)s")
    for handler in logging.getLogger().handlers:
        # records propagated from a library that sets its own logger to DEBUG on import (bm25s
        # does) pass the root logger's level: the handler's level holds them back
        handler.setLevel(level)
    quiet_third_party()
    renderer = structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level, logging.WARNING)),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    _configured = True


# Libraries whose DEBUG/INFO records carry input text: aiosqlite logs every call with its SQL
# parameters (the texts written to veil.db and the checkpoints), httpx/httpcore/openai the
# request bodies and URLs sent to the LLM endpoint. They are held at WARNING whatever the level.
QUIET_LOGGERS = ("aiosqlite", "httpx", "httpcore", "openai", "openai._base_client", "urllib3", "hpack",
                 "presidio-analyzer", "presidio_analyzer", "sentence_transformers", "langgraph", "multipart", "bm25s",
                 "transformers", "transformers.modeling_utils")


def quiet_third_party() -> None:
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def get_logger(name: str):
    configure()
    return structlog.get_logger(name)
