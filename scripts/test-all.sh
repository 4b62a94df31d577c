#!/usr/bin/env bash
# The whole test suite, as CI runs it: types, lint, unit + component tests (Vitest), the
# end-to-end journeys (Playwright in Debian's Chromium) and the fidelity suite against real
# PostgreSQL and Redis. `npm run test:all`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci
bash scripts/ensure-services.sh
echo "== typecheck"; npm run typecheck
echo "== lint"; npm run lint
echo "== unit and component tests"; npm test
if [ -f playwright.config.ts ]; then echo "== end-to-end (Playwright)"; npm run test:e2e; fi
if [ -f fidelity/run.ts ]; then echo "== fidelity against real PostgreSQL and Redis"; npm run test:fidelity; fi
