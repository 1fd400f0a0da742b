"""Bearer API keys.

Keys come from ``VEIL_API_KEYS`` (comma-separated) and/or ``--api-keys-file`` (one per line,
``#`` comments). Only their SHA-256 hashes are kept in memory; the hash is also the ``owner`` of
the runs a key creates, so a run is visible to the key that created it and to no other (another
key gets 404, as if the run did not exist). Keys are never stored or logged.

A request presents its key as ``Authorization: Bearer KEY`` (what OpenAI clients send). So that
a browser can open a trace page, ``/traces/...`` also accepts ``?key=KEY`` (the page then sets
an HttpOnly, SameSite=Strict cookie ``veil_key`` so the key need not stay in the URL) or that
cookie.

With no key configured, auth is off and every run belongs to ``local``; the server then only
binds to a loopback address unless started with ``--insecure-no-auth`` (see ``veil serve``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass
from pathlib import Path

from fastapi import Request

from veil.errors import UserInputError
from veil.server.errors import APIError

COOKIE = "veil_key"
ANONYMOUS_OWNER = "local"


def key_hash(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()


def load_keys(env_value: str | None = None, keys_file: str | Path | None = None) -> list[str]:
    keys: list[str] = []
    env_value = os.environ.get("VEIL_API_KEYS") if env_value is None else env_value
    if env_value:
        keys += [k.strip() for k in env_value.split(",") if k.strip()]
    if keys_file:
        path = Path(keys_file)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise UserInputError(f"{path}: cannot read the API keys file ({e.strerror})") from e
        keys += [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]
    return keys


@dataclass(frozen=True)
class Principal:
    owner: str  # the hash of the key (or "local" when auth is off)


class KeyChecker:
    def __init__(self, keys: list[str]):
        self._hashes = [key_hash(k) for k in keys]

    @property
    def enabled(self) -> bool:
        return bool(self._hashes)

    def check(self, key: str | None) -> Principal | None:
        if not self.enabled:
            return Principal(ANONYMOUS_OWNER)
        if not key:
            return None
        h = key_hash(key)
        ok = False
        for known in self._hashes:  # compare with every key: no early exit
            ok |= hmac.compare_digest(h, known)
        return Principal(h) if ok else None


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _unauthorized(message: str) -> APIError:
    return APIError(401, message, code="invalid_api_key", headers={"WWW-Authenticate": "Bearer"})


async def require_key(request: Request) -> Principal:
    """Dependency of the API routes: a valid ``Authorization: Bearer`` key."""
    checker: KeyChecker = request.app.state.keys
    token = _bearer(request)
    principal = checker.check(token)
    if principal is None:
        raise _unauthorized("missing API key: send 'Authorization: Bearer KEY'" if not token else "invalid API key")
    return principal


async def require_key_browser(request: Request) -> Principal:
    """Dependency of the trace pages: the key as Bearer header, ``?key=`` or the ``veil_key`` cookie."""
    checker: KeyChecker = request.app.state.keys
    token = _bearer(request) or request.query_params.get("key") or request.cookies.get(COOKIE)
    principal = checker.check(token)
    if principal is None:
        raise _unauthorized("missing API key: open the page with ?key=KEY" if not token else "invalid API key")
    return principal
