"""`passes.dedup`: the default threshold on labelled pairs, which copy is kept, what is never merged, embeddings."""

from dedup_pairs import DISTINCT, DUPLICATES, POLICY
from evidencepack import Record
from evidencepack.passes.dedup import DEFAULT_THRESHOLD, dedup, similarity
from evidencepack.records.candidates import Candidate, Dropped


def R(id, text="x", **kw):
    return Record(id=id, text=text, **kw)


def test_default_threshold_separates_labelled_pairs():
    """Why 0.85: every labelled duplicate scores well above it and every distinct pair well below."""
    dup_scores = [similarity(a, b) for a, b in DUPLICATES]
    distinct_scores = [similarity(a, b) for a, b in DISTINCT]
    assert min(dup_scores) >= 0.88, dup_scores
    assert max(distinct_scores) <= 0.80, distinct_scores
    assert max(distinct_scores) < DEFAULT_THRESHOLD <= min(dup_scores)


def _cands(*texts, **kw):
    return [Candidate(R(f"r{i}", t, **kw), i) for i, t in enumerate(texts, start=1)]


def test_dedup_keeps_the_higher_ranked_copy():
    out = list(dedup(_cands(POLICY, "Something else entirely.", POLICY.upper())))
    assert [o.id for o in out if isinstance(o, Candidate)] == ["r1", "r2"]
    assert [(d.id, d.duplicate_of) for d in out if isinstance(d, Dropped)] == [("r3", "r1")]


def test_dedup_never_merges_different_numbers_or_negations():
    a = "Employees may carry over up to 5 days of unused PTO into the next calendar year with approval."
    assert not [o for o in dedup(_cands(a, a.replace("5", "10"))) if isinstance(o, Dropped)]
    assert not [o for o in dedup(_cands(a, a.replace("may", "may not"))) if isinstance(o, Dropped)]


def test_dedup_by_embedding_cosine():
    recs = [Candidate(R("a", "alpha text here", embedding=(1.0, 0.0)), 1),
            Candidate(R("b", "completely different words", embedding=(0.99, 0.05)), 2),
            Candidate(R("c", "another different text", embedding=(0.0, 1.0)), 3)]
    out = list(dedup(recs))
    assert [(d.id, d.duplicate_of) for d in out if isinstance(d, Dropped)] == [("b", "a")]
    assert not [d for d in dedup(recs, embedding_cutoff=None) if isinstance(d, Dropped)]
