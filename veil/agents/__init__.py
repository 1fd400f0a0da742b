"""veil's agents: P-Evaluator, U-Evaluator, adversarial inferrer and optimizer, in two
families (engines): ``llm`` (OpenAI-compatible endpoint) and ``local`` (embedded, LLM-free)."""
