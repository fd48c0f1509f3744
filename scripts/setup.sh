#!/usr/bin/env bash
# Makes a fresh machine ready: npm dependencies, a Chromium for Playwright (Debian's `chromium`
# and `chromium-headless-shell`), and the Debian programs the terminal engine's tests drive
# (dialog, whiptail).
# Used by `npm test`, `npm run example` and .ci/run, so each README command stands alone.
set -euo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ ! -d node_modules/@playwright/test ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
# Debian packages still missing: a Chromium and the terminal programs (needed), and Chromium's
# headless shell (wanted: headless runs use it, about a third of the CPU per page; without it
# e2e runs headless on chromium).
needed=()
wanted=()
if [ -z "${E2E_CHROMIUM_PATH:-}" ]; then
  if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then needed+=(chromium); fi
  if ! command -v chromium-headless-shell >/dev/null 2>&1; then wanted+=(chromium-headless-shell); fi
fi
for program in dialog whiptail; do command -v "$program" >/dev/null 2>&1 || needed+=("$program"); done
packages=("${needed[@]}" "${wanted[@]}")
if [ "${#packages[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"
  elif [ "${#needed[@]}" -gt 0 ] && command -v sudo >/dev/null 2>&1; then
    sudo apt-get update
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"
  elif [ "${#needed[@]}" -gt 0 ]; then
    echo "e2e: missing Debian packages: ${needed[*]}. Install them (apt-get install -y ${packages[*]}), or set E2E_CHROMIUM_PATH to a Chromium." >&2
    exit 3
  else
    echo "e2e: headless runs would use less CPU with Chromium's headless shell (apt-get install -y chromium-headless-shell)." >&2
  fi
fi
