#!/usr/bin/env bash
# The main job: an example suite replayed model-free from its committed cache.
# `scripts/example.sh [replay|record] [shop|terminal]`: `record` records it instead (needs a
# model: see examples/shop/support/model.ts); the second word picks the example (default shop).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
npm run --silent build
cd "examples/${2:-shop}"
if [ "${1:-replay}" = "record" ]; then
  if [ -z "${OPENAI_API_KEY:-}${ANTHROPIC_API_KEY:-}${E2E_OPENAI_COMPATIBLE_URL:-}" ] && [ "${E2E_EXAMPLE_STAND_IN:-}" != "1" ]; then
    echo "e2e: recording needs a model. Set OPENAI_API_KEY, ANTHROPIC_API_KEY or E2E_OPENAI_COMPATIBLE_URL" >&2
    echo "     (E2E_MODEL picks the model), or E2E_EXAMPLE_STAND_IN=1 for the example's stand-in model." >&2
    exit 2
  fi
  exec node ../../dist/cli/main.js record
fi
exec node ../../dist/cli/main.js replay
