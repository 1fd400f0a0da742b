"""Test utilities shipped with veil (a scripted OpenAI-compatible endpoint)."""
