"""What ``create_app`` needs: built from ``veil serve`` flags or directly in tests."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veil.llm import LLMSettings

DEFAULT_MAX_BODY_BYTES = 1 << 20  # 1 MiB


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8080
    engine: str = "local"
    llm: LLMSettings | None = None
    engine_options: dict[str, Any] = field(default_factory=dict)
    db_path: Path | None = None
    api_keys: list[str] = field(default_factory=list)
    insecure_no_auth: bool = False
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    concurrency: int = 16  # documents of one /v1/anonymize request in flight at once
    max_running: int = 64  # documents in flight over the whole server (protects the LLM endpoint)
    max_queued: int = 256  # documents accepted beyond max_running; past that a request gets 429
    retry_after_s: int = 5  # the Retry-After of a 429
