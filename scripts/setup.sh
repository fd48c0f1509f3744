#!/usr/bin/env bash
# Makes a fresh machine ready: npm dependencies, a Chromium for Playwright (Debian's), and the
# Debian programs the terminal engine's tests drive (dialog, whiptail).
# Used by `npm test`, `npm run example` and .ci/run, so each README command stands alone.
set -euo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ ! -d node_modules/@playwright/test ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
if [ -z "${E2E_CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  else
    echo "e2e: no Chromium found. Install one (apt-get install -y chromium) or set E2E_CHROMIUM_PATH." >&2
    exit 3
  fi
fi
missing=()
for program in dialog whiptail; do command -v "$program" >/dev/null 2>&1 || missing+=("$program"); done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  else
    echo "e2e: the terminal tests need ${missing[*]}. Install them (apt-get install -y ${missing[*]})." >&2
    exit 3
  fi
fi
