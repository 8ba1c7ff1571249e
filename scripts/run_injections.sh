#!/usr/bin/env bash
# Issue 28: run the injection evaluation for one served model, dev split then held-out split.
#   scripts/run_injections.sh MODEL_ALIAS OUTDIR
# Needs an OpenAI-compatible server at http://127.0.0.1:8765/v1 serving MODEL_ALIAS. Sample: one task per
# attack category (positions taken in turn), eight conditions; conditions that leave a prompt unchanged share
# its cached answer. Expected calls with an empty cache: dev 145, heldout 152, as printed by --count-calls below.
set -euo pipefail
MODEL=${1:?usage: $0 MODEL_ALIAS OUTDIR}
OUT=${2:?usage: $0 MODEL_ALIAS OUTDIR}
PY=${PYTHON:-python}
CONDS=flat,structured,structured+keep-flagged,structured+datamark+keep-flagged,structured+datamark-flagged,structured+screen,structured+withhold+keep-flagged,structured+sandwich+keep-flagged
COMMON=(--conditions "$CONDS" --per-category 1 --max-tokens 200 --temperature 0 --seed 0)
for SPLIT in dev heldout; do
  echo "== $SPLIT: expected calls"
  $PY -m evidencepack.eval.cli eval injections --count-calls --split "$SPLIT" "${COMMON[@]}"
  # one cache for both splits: a rerun after an interruption resumes
  $PY -m evidencepack.eval.cli eval injections --backend http --base-url http://127.0.0.1:8765/v1 \
    --model "$MODEL" --split "$SPLIT" "${COMMON[@]}" --cache "$OUT/cache" --out "$OUT/$SPLIT" --no-plots
done
