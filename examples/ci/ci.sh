#!/usr/bin/env bash
# The same steps as e2e.yml for any CI (after `npm ci` and `npx playwright install chromium`).
#
#   SHARD=1/4 bash examples/ci/ci.sh shard
#       on each machine: replay the shard model-free; when it fails and a model key is set, heal
#       into proposal/ (the cache stays read-only). Collect the machine's blob-report/ and
#       proposal/ folders into one folder per machine (e.g. shards/1/).
#   BASE=origin/main bash examples/ci/ci.sh merge shards/*
#       on one machine, in the project's checkout: one HTML report, one .e2e/report.json and one
#       summary from every blob report; every proposal accepted in one command; one review of
#       the cache change against BASE (default HEAD) in .e2e/cache-diff.md, for the PR comment.
#
# Exits like the run: the shard's replay status, or the merged run's for merge.
set -euo pipefail
case "${1:-}" in
  shard)
    status=0
    npx e2e replay --shard "$SHARD" --reporter blob,list || status=$?
    if [ "$status" -ne 0 ] && [ -n "${OPENAI_API_KEY:-}${ANTHROPIC_API_KEY:-}${E2E_OPENAI_COMPATIBLE_URL:-}" ]; then
      npx e2e run --propose proposal --shard "$SHARD" --reporter blob,list || true
    fi
    exit "$status"
    ;;
  merge)
    shift
    blobs=()
    proposals=()
    for machine in "$@"; do
      if [ -d "$machine/blob-report" ]; then blobs+=("$machine/blob-report"); fi
      if [ -d "$machine/proposal" ]; then proposals+=("$machine/proposal"); fi
    done
    status=0
    npx e2e merge-reports "${blobs[@]}" || status=$?
    if [ ${#proposals[@]} -gt 0 ]; then npx e2e cache accept "${proposals[@]}"; fi
    mkdir -p .e2e
    npx e2e cache diff "${BASE:-HEAD}" --format markdown > .e2e/cache-diff.md
    cat .e2e/cache-diff.md
    exit "$status"
    ;;
  *)
    echo "usage: SHARD=<i>/<n> bash $0 shard | bash $0 merge <machine folder>..." >&2
    exit 2
    ;;
esac
