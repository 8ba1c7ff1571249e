"""How much of each prompt a provider's prefix cache can reuse, over a stream of questions (issue 26).

    python benchmarks/bench_prompt_cache.py            # both streams, every row (about a minute)
    python benchmarks/bench_prompt_cache.py --quick    # 40 questions per stream

Two streams over fixed corpora, each question answered from the top-k passages of a deterministic BM25
retriever over a fixed pool (no model, no network):

  nq   the first 200 questions of the NaturalQuestions-Open oracle file (`../shared/data/lost-in-the-middle/
       nq-open-oracle.jsonl.gz`) in file order; the pool is the gold passages of the first 600 entries (k = 5).
  hr   the bundled HR corpus (89 records): the 25 trap questions, then one question per record ("What does
       <doc> say about <section>?") in corpus order, then a second per record ("Is the rule on <section> still
       current, ...?"), 203 in all; neighbouring questions often touch the same policy (k = 6).

Every row renders the same retrieved passages in rank order (best first) as its framework's default RAG prompt
does, and evidencepack renders them under each order strategy (window large enough that all k fit, fixed
boundary key, as a service would keep one). Each request is tokenized whole with o200k (system prompt,
"\\n\\n", user message); the figure is the share of all prompt tokens (requests 2..N) that repeat the
longest common token prefix with the previous request, and the same share under OpenAI's rule (a prefix is
cached from 1,024 tokens, in 128-token steps). Rows:

  langchain-rag   LangChain's RAG tutorial prompt (hub `rlm/rag-prompt`: question, then context, one human
                  message), context = `format_document` with the default `{page_content}` prompt, "\\n\\n"-joined
  langchain-stuff LangChain's classic `stuff` QA chat prompt (system: instructions + context; human: question)
  llamaindex      LlamaIndex's `CHAT_TEXT_QA_PROMPT` (its default for `as_query_engine`), nodes with
                  `MetadataMode.LLM` content, joined by "\\n\\n" as its synthesizer does
  haystack        the RAG template of Haystack's `PromptBuilder` docs ("Given these documents, ...")
  ep-<order>      `evidencepack.assemble`, default layout with that order (boundary_scope "selection")
  ep-key-<order>  the same with boundary_scope="key" (one code per key, format and as_of date)
  ep-key-<o>+nq   and the conflict notice after the sources, by the question (notice_placement="question")
  ep-sticky       a stateful order, benchmark only: the records the previous request also selected first, in its
                  order, then the rest by id: the upper bound for "keep the shared records in a stable prefix"
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

from evidencepack import Budget, Layout, assemble, get_tokenizer  # noqa: E402
from evidencepack.data import corpus, traps  # noqa: E402
from evidencepack.passes.order import register_order  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NQ = ROOT.parent.parent / "shared" / "data" / "lost-in-the-middle" / "nq-open-oracle.jsonl.gz"
NQ_FALLBACK = Path("/work/shared/data/lost-in-the-middle/nq-open-oracle.jsonl.gz")
KEY = "benchmark-boundary-key-0123456789"
AS_OF = "2026-06-01"
ENC = get_tokenizer("o200k_base")
ORDERS = ("stable", "edges-authority", "edges", "ranked", "sticky")

# -- the stateful order (benchmark only) ---------------------------------------------------------------------

_PREVIOUS: list[str] = []


@register_order("sticky")
def _sticky(items: Sequence[Any], key: Callable[[Any], str], *, conflict_embedding_threshold: float | None = 0.9
            ) -> list[Any]:
    """Records the previous request also had come first, in its order; the rest by id."""
    seat = {k: i for i, k in enumerate(_PREVIOUS)}
    kept = sorted((x for x in items if key(x) in seat), key=lambda x: seat[key(x)])
    return kept + sorted((x for x in items if key(x) not in seat), key=key)


# -- corpora, streams, retriever -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    id: str
    text: str
    title: str
    meta: dict[str, Any]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


class BM25:
    def __init__(self, pool: Sequence[Passage], k1: float = 1.2, b: float = 0.75) -> None:
        self.pool, self.k1, self.b = pool, k1, b
        self.tf = [Counter(_words(p.title + " " + p.text)) for p in pool]
        self.len = [sum(t.values()) for t in self.tf]
        self.avg = sum(self.len) / len(self.len)
        df: Counter[str] = Counter(w for t in self.tf for w in t)
        self.idf = {w: math.log(1 + (len(pool) - n + 0.5) / (n + 0.5)) for w, n in df.items()}

    def top(self, question: str, k: int) -> list[Passage]:
        q = set(_words(question))
        scores = []
        for i, tf in enumerate(self.tf):
            norm = self.k1 * (1 - self.b + self.b * self.len[i] / self.avg)
            s = sum(self.idf[w] * tf[w] * (self.k1 + 1) / (tf[w] + norm) for w in q if w in tf)
            scores.append((-s, i))
        return [self.pool[i] for _, i in sorted(scores)[:k]]


def nq_stream(n: int) -> tuple[list[Passage], list[str]]:
    path = NQ if NQ.exists() else NQ_FALLBACK
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            rows.append(json.loads(line))
            if len(rows) >= 600:
                break
    pool, seen = [], set()
    for i, r in enumerate(rows):
        ctx = r["ctxs"][0]
        if ctx["text"] not in seen:
            seen.add(ctx["text"])
            pool.append(Passage(f"nq{i:04d}", ctx["text"], ctx["title"], {"doc": ctx["title"]}))
    return pool, [r["question"] for r in rows[:n]]


def hr_stream(n: int) -> tuple[list[Passage], list[str]]:
    pool = []
    for r in corpus():
        meta = {k: v for k, v in (("doc", r.doc), ("section", r.section), ("authority", r.authority),
                                  ("topic", r.topic), ("date", r.date.isoformat() if r.date else None),
                                  ("valid_from", r.valid_from.isoformat() if r.valid_from else None),
                                  ("valid_until", r.valid_until.isoformat() if r.valid_until else None))
                if v is not None}
        pool.append(Passage(r.id, r.text, r.doc or r.id, meta))
    questions = [t["question"] for t in traps()]
    about = [p.meta.get("section") or p.meta.get("topic") or "this" for p in pool]
    questions += [f"What does {p.title} say about {a}?" for p, a in zip(pool, about)]
    questions += [f"Is the rule on {a} still current, and who does it apply to?" for a in about]
    return pool, questions[:n]


# -- the rows -------------------------------------------------------------------------------------------------


def ep_row(order: str, k: int, scope: str = "selection", notice: str = "sources"
           ) -> Callable[[str, list[Passage]], str]:
    layout = Layout(order=order, boundary_scope=scope, notice_placement=notice)
    budget = Budget(context_window=32_768, max_records=k)

    def build(question: str, passages: list[Passage]) -> str:
        records = [{"id": p.id, "text": p.text, "rank": i, **p.meta} for i, p in enumerate(passages, start=1)]
        a = assemble(records, question, as_of=AS_OF, layout=layout, budget=budget, boundary_key=KEY,
                     tokenizer="o200k_base")
        if order == "sticky":
            _PREVIOUS[:] = [m.id for m in a.manifest]
        return a.prompt

    return build


def langchain_rows() -> dict[str, Callable[[str, list[Passage]], str]]:
    from langchain_core.documents import Document
    from langchain_core.prompts import ChatPromptTemplate, PromptTemplate, format_document

    doc_prompt = PromptTemplate.from_template("{page_content}")
    rag = ChatPromptTemplate.from_messages([("human", (
        "You are an assistant for question-answering tasks. Use the following pieces of retrieved context to "
        "answer the question. If you don't know the answer, just say that you don't know. Use three sentences "
        "maximum and keep the answer concise.\nQuestion: {question} \nContext: {context} \nAnswer:"))])
    stuff = ChatPromptTemplate.from_messages([
        ("system", "Use the following pieces of context to answer the user's question. \nIf you don't know the "
                   "answer, just say that you don't know, don't try to make up an answer.\n----------------\n"
                   "{context}"),
        ("human", "{question}")])

    def context(passages: list[Passage]) -> str:
        docs = [Document(page_content=p.text, metadata=p.meta) for p in passages]
        return "\n\n".join(format_document(d, doc_prompt) for d in docs)

    def render(tpl: ChatPromptTemplate) -> Callable[[str, list[Passage]], str]:
        return lambda q, ps: "\n\n".join(str(m.content) for m in tpl.format_messages(question=q, context=context(ps)))

    return {"langchain-rag": render(rag), "langchain-stuff": render(stuff)}


def llamaindex_row() -> Callable[[str, list[Passage]], str]:
    from llama_index.core.prompts.chat_prompts import CHAT_TEXT_QA_PROMPT
    from llama_index.core.schema import MetadataMode, TextNode

    def build(question: str, passages: list[Passage]) -> str:
        nodes = [TextNode(text=p.text, id_=p.id, metadata=p.meta) for p in passages]
        ctx = "\n\n".join(n.get_content(metadata_mode=MetadataMode.LLM) for n in nodes)
        return "\n\n".join(str(m.content) for m in CHAT_TEXT_QA_PROMPT.format_messages(context_str=ctx,
                                                                                        query_str=question))

    return build


def haystack_row() -> Callable[[str, list[Passage]], str]:
    from haystack import Document
    from haystack.components.builders import PromptBuilder

    builder = PromptBuilder(template=(
        "\nGiven these documents, answer the question.\nDocuments:\n{% for doc in documents %}\n    "
        "{{ doc.content }}\n{% endfor %}\n\nQuestion: {{query}}\nAnswer:\n"), required_variables=["query", "documents"])

    def build(question: str, passages: list[Passage]) -> str:
        docs = [Document(id=p.id, content=p.text, meta=p.meta) for p in passages]
        return str(builder.run(documents=docs, query=question)["prompt"])

    return build


# -- the measure ----------------------------------------------------------------------------------------------


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def openai_cached(prefix: int) -> int:
    return 0 if prefix < 1024 else 1024 + (prefix - 1024) // 128 * 128


def measure(build: Callable[[str, list[Passage]], str], stream: list[tuple[str, list[Passage]]]) -> dict[str, float]:
    _PREVIOUS.clear()
    previous: list[int] = []
    total = shared = cached = 0
    same_selection = same_selection_shared = 0
    last_ids: list[str] = []
    for i, (question, passages) in enumerate(stream):
        tokens = ENC.encode(build(question, passages))
        ids = sorted(p.id for p in passages)
        if i:
            lcp = common_prefix(previous, tokens)
            total += len(tokens)
            shared += lcp
            cached += openai_cached(lcp)
            if ids == last_ids:
                same_selection += 1
                same_selection_shared += lcp
        previous, last_ids = tokens, ids
    return {"tokens": total, "share": shared / total, "openai": cached / total,
            "per_request": total / (len(stream) - 1), "shared_per_request": shared / (len(stream) - 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--k", type=int, default=0, help="passages per question for both streams (default: nq 5, hr 6)")
    args = ap.parse_args()
    n = 40 if args.quick else 200
    streams = {"nq": (nq_stream(n), args.k or 5), "hr": (hr_stream(n), args.k or 6)}
    for name, ((pool, questions), k) in streams.items():
        retriever = BM25(pool)
        stream = [(q, retriever.top(q, k)) for q in questions]
        overlap = sum(len({p.id for p in a} & {p.id for p in b}) for (_, a), (_, b) in zip(stream, stream[1:]))
        print(f"\n{name}: {len(stream)} questions, pool {len(pool)}, k={k}, "
              f"mean records shared with the previous request {overlap / (len(stream) - 1):.2f}")
        rows: dict[str, Callable[[str, list[Passage]], str]] = {**langchain_rows(), "llamaindex": llamaindex_row(),
                                                                "haystack": haystack_row()}
        rows.update({f"ep-{o}": ep_row(o, k) for o in ORDERS})
        rows.update({f"ep-key-{o}": ep_row(o, k, "key") for o in ORDERS})
        rows.update({f"ep-key-{o}+nq": ep_row(o, k, "key", "question") for o in ("stable", "edges-authority",
                                                                                  "sticky")})
        results = {row: measure(build, stream) for row, build in rows.items()}
        best = max(r["share"] for row, r in results.items() if not row.startswith("ep-"))
        print(f"{'row':<24} {'tokens/req':>10} {'shared/req':>10} {'share':>7} {'openai':>7} {'x best fw':>9}")
        for row, r in results.items():
            print(f"{row:<24} {r['per_request']:>10.0f} {r['shared_per_request']:>10.0f} {r['share']:>7.1%} "
                  f"{r['openai']:>7.1%} {r['share'] / best:>9.2f}")


if __name__ == "__main__":
    main()
