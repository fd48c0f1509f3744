#!/usr/bin/env bash
# The same steps as e2e.yml for any CI: replay one shard model-free; on failure, heal into a
# proposal folder when a model key is present; print the cache diff for review.
# Usage: SHARD=1/4 bash examples/ci/ci.sh   (BASE=origin/main for the diff)
set -euo pipefail
npm ci
status=0
npx e2e replay ${SHARD:+--shard "$SHARD"} || status=$?
if [ "$status" -ne 0 ] && [ -n "${OPENAI_API_KEY:-}${ANTHROPIC_API_KEY:-}${E2E_OPENAI_COMPATIBLE_URL:-}" ]; then
  npx e2e run --propose proposal ${SHARD:+--shard "$SHARD"} || true
  echo "Healed recordings are in ./proposal; review with: npx e2e cache diff .e2e/cache proposal"
  echo "and merge them with: npx e2e cache accept proposal"
fi
npx e2e cache diff "${BASE:-HEAD~1}" HEAD --format markdown || true
exit "$status"
