/**
 * `audit`: does each cache entry notice a broken app? `e2e cache audit` plans model-free mutants
 * of every entry (an action skipped or its handlers silenced, a judgment's evidence hidden),
 * runs them through `launch/` (one Playwright project per target, a copy of the test per
 * mutant, each test's unmutated control run in the test itself), judges each from the run's report, scores the suite and notes each entry's last
 * audit; `e2e record --audit` then ties each end outcome to the actions whose mutants removed
 * it (causal end checks) and audits again. How an attempt applies a mutant is the runner's,
 * the cache's and the engine's job (`runner/audit-mutants.ts`, `contract/mutation.ts`,
 * `engines/web/page-mutations.ts`).
 */
export { renderAudit, renderAuditJson, startAudit, type AuditHandle, type AuditOptions, type AuditResult } from './cache-audit.js';
export { parseMinScore } from './min-score.js';
export { renderCausalAudit, startCausalAudit } from './causal-record.js';
