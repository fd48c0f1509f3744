/**
 * Does the evidence a passing judge rested on still hold on the live screen? See
 * replayer/README.md, "Judgment evidence".
 */
import type { EvidenceCheck, JudgmentEntry } from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import { nearestName } from '../errors/index.js';
import { describeEvidenceCheck } from '../semantics/describe-evidence.js';
import { comparableText } from '../semantics/volatile-text.js';
import { countEvidenceMatches, evidenceHolds, nodeMatchesEvidence } from '../semantics/evidence-match.js';
import { stateControlLabel, statesOfLookalikes } from '../semantics/state-controls.js';
import { indexTree, type TreeIndex } from '../semantics/tree-index.js';
import { fillUniquePlaceholders, mapTextFields } from '../semantics/unique-placeholders.js';
import { matchRoute } from './route-match.js';

/** A live screen to check evidence on. */
export interface EvidenceScreen {
  tree: ScreenNode | TreeIndex;
  url: string;
}

/** The outcome of checking a judgment's evidence. */
export type EvidenceResult = { ok: true } | { ok: false; detail: string };

/** A check with this run's `unique()` values filled in. */
export function fillEvidenceCheck(check: EvidenceCheck, uniqueValues: Readonly<Record<string, string>>): EvidenceCheck {
  const fill = (text: string): string => fillUniquePlaceholders(text, uniqueValues);
  const filled: EvidenceCheck = { ...check, control: mapTextFields(check.control, fill) };
  if (check.value !== undefined) filled.value = fill(check.value);
  return filled;
}

/** What the screen shows instead, for a control check that found nothing. */
function missingHint(index: TreeIndex, check: EvidenceCheck): string {
  if (check.match === 'role') return '';
  const lookalikes = statesOfLookalikes(index, check.control);
  if (lookalikes.length > 0) return ` (present as ${lookalikes.map((states) => `[${states.join(' ') || 'no state'}]`).join(', ')})`;
  const labels = new Set(index.nodes.filter((indexed) => indexed.node.role === check.control.role && indexed.label !== '').map((indexed) => indexed.label));
  const label = check.control.name !== '' ? check.control.name : (check.control.text ?? '');
  const nearest = label === '' ? undefined : nearestName(label, labels);
  return nearest === undefined ? '' : ` (nearest: ${check.control.role} ${JSON.stringify(nearest)})`;
}

function failure(index: TreeIndex, check: EvidenceCheck, count: number): string {
  const sentence = describeEvidenceCheck(check);
  if (check.expect === 'absent') return `${sentence}, but ${count} ${count === 1 ? 'is' : 'are'} on the screen`;
  if (count === 0) return `${sentence}, but there is none${missingHint(index, check)}`;
  return `${sentence}, but there ${count === 1 ? 'is' : 'are'} ${count}`;
}

/** Check a judgment entry's route and evidence on a live screen. */
export function checkEvidence(
  entry: Pick<JudgmentEntry, 'route' | 'evidence'>,
  screen: EvidenceScreen,
  uniqueValues: Readonly<Record<string, string>> = {},
): EvidenceResult {
  const route = matchRoute(entry.route, screen.url);
  if (route.kind === 'mismatch') return { ok: false, detail: `route ${route.detail}` };
  const index = 'byId' in screen.tree ? screen.tree : indexTree(screen.tree);
  for (const recorded of entry.evidence) {
    const check = fillEvidenceCheck(recorded, uniqueValues);
    const count = countEvidenceMatches(index, check);
    if (!evidenceHolds(check, count)) return { ok: false, detail: failure(index, check, count) };
  }
  return { ok: true };
}

/** The ids of the nodes on `tree` that the entry's present checks count: what its answer rests on. */
export function evidenceNodeIds(entry: Pick<JudgmentEntry, 'evidence'>, tree: ScreenNode | TreeIndex, uniqueValues: Readonly<Record<string, string>> = {}): string[] {
  const index = 'byId' in tree ? tree : indexTree(tree);
  const ids = new Set<string>();
  for (const recorded of entry.evidence) {
    if (recorded.expect !== 'present') continue;
    const check = fillEvidenceCheck(recorded, uniqueValues);
    const label = check.match === 'role' || check.exact === true ? undefined : comparableText(stateControlLabel(check.control));
    for (const indexed of index.nodes) if (nodeMatchesEvidence(indexed, check, label)) ids.add(indexed.node.id);
  }
  return [...ids];
}
