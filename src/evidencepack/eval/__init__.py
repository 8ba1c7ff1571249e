"""evidencepack.eval: measure what assembly changes, on any LLM.

Two experiments (the stale-guidance trap set and the lost-in-the-middle position sweep), backends for any
OpenAI-compatible endpoint or a local GGUF, an answer cache, a rule-based judge, and reports with intervals.
Depends on the library; the library never imports this package.
"""

from .backends import Completion, HTTPBackend, LlamaBackend, Sampling, ScriptedBackend, make_backend
from .cache import AnswerCache
from .datasets import DatasetError, TrapQuestion, kv_questions, load_traps, nq_questions, sweep_items
from .experiments import SweepRun, TrapRun
from .judge import Judgement, LLMJudge, agreement, judge
from .report import wilson

__all__ = [
    "AnswerCache", "Completion", "DatasetError", "HTTPBackend", "Judgement", "LLMJudge", "LlamaBackend",
    "Sampling", "ScriptedBackend", "SweepRun", "TrapQuestion", "TrapRun", "agreement", "judge", "kv_questions",
    "load_traps", "make_backend", "nq_questions", "sweep_items", "wilson",
]
