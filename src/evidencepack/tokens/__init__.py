"""Counting as the target model counts: tokenizers (bundled tiktoken encodings, offline), the target model
(its tokenizer and chat framing), and the readers for Hugging Face directories and GGUF files."""
