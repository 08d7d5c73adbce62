"""What the screens derive from a step: worked examples, comparisons, exports, vocabulary search, perplexity."""
