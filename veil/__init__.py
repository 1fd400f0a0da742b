"""veil: text anonymization against LLM re-identification."""

__version__ = "0.1.0"
