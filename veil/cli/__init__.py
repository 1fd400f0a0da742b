"""The ``veil`` command. Each sub-command lives in its own module with ``register(sub)``;
typed :class:`~veil.errors.VeilError` becomes a one-line message and a non-zero exit here,
at the edge, so users never see a traceback for their own mistakes."""

from __future__ import annotations

import argparse
import importlib
import sys

from veil import __version__
from veil.errors import LLMError, UserInputError, VeilError

# sub-command modules, in the order `veil --help` lists them
COMMANDS = ("anonymize", "trace", "eval", "audit", "serve", "purge")

EXIT_USER = 2
EXIT_LLM = 3
EXIT_OTHER = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="veil", description="Anonymize text against LLM re-identification.")
    parser.add_argument("--version", action="version", version=f"veil {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"veil.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"veil.cli.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USER
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("veil: interrupted; finished documents are saved, run the same command again to resume", file=sys.stderr)
        return 130
    except UserInputError as e:
        print(f"veil: error: {e}", file=sys.stderr)
        return EXIT_USER
    except LLMError as e:
        print(f"veil: LLM error: {e}", file=sys.stderr)
        return EXIT_LLM
    except VeilError as e:
        print(f"veil: {e}", file=sys.stderr)
        return EXIT_OTHER
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
