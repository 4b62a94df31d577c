#!/usr/bin/env bash
# The whole test suite, as CI runs it: types, lint, unit + component tests (Vitest), the
# end-to-end journeys (Playwright in Debian's Chromium) and the fidelity suite against real
# PostgreSQL and Redis. `npm run test:all`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci
bash scripts/ensure-services.sh
suites=0
echo "== typecheck"; npm run typecheck; suites=$((suites + 1))
echo "== lint"; npm run lint; suites=$((suites + 1))
echo "== unit and component tests"; npm test; suites=$((suites + 1))
if [ -f playwright.config.ts ]; then echo "== end-to-end (Playwright)"; npm run test:e2e; suites=$((suites + 1)); fi
if [ -f fidelity/run.ts ]; then echo "== fidelity against real PostgreSQL and Redis"; npm run test:fidelity; suites=$((suites + 1)); fi
# set -e stops at the first failing suite, so reaching here means every suite passed.
echo "suites: ${suites} passed, 0 failed"
