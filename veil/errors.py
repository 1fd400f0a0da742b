"""Typed errors. Library code raises these; the CLI and the HTTP server turn them into
exit codes and HTTP statuses at the edge (see veil/cli/__init__.py and veil/server/errors.py)."""

from __future__ import annotations


class VeilError(Exception):
    """Base class of every error veil raises on purpose."""

    http_status = 500
    code = "internal_error"


class UserInputError(VeilError):
    """The caller gave something veil cannot use (bad file, missing field, bad option)."""

    http_status = 400
    code = "invalid_request"


class NotFoundError(VeilError):
    http_status = 404
    code = "not_found"


class LLMError(VeilError):
    """An LLM call failed after its bounded retries."""

    http_status = 502
    code = "llm_error"


class LLMTimeoutError(LLMError):
    code = "llm_timeout"


class LLMUnavailableError(LLMError):
    """Connection refused, 5xx or 429 after every retry."""

    code = "llm_unavailable"


class LLMOutputError(LLMError):
    """The model answered, but not with valid JSON for the schema (or it was truncated)."""

    code = "llm_bad_output"


class LLMRejectedError(LLMOutputError):
    """The model answered valid JSON, but a guard rejected it (an echoed template, a copy with no
    edit, invented entities...) again after the retry at a higher temperature. ``reason`` says
    which guard; callers keep their best result so far and record it."""

    code = "llm_rejected_output"

    def __init__(self, message: str, *, reason: str = ""):
        super().__init__(message)
        self.reason = reason or message
