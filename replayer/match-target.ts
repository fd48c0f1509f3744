/**
 * Re-find a recorded target on a live screen, most evidence first (test id, role + name, name in
 * its container, twins, markup churn). The tiers: replayer/README.md, "Re-finding a target".
 */
import type { TargetDescription } from '../cache-format/entry.js';
import { OMITTED_ROLE, type ScreenNode } from '../contract/engine.js';
import { nearestName } from '../errors/index.js';
import { describeTargetPhrase } from '../semantics/describe-action.js';
import { childLabelOf, containerKey, indexTree, labelOf, sitsInContainer, type IndexedNode, type TreeIndex } from '../semantics/tree-index.js';
import { comparableText } from '../semantics/volatile-text.js';
import { targetNeedles } from '../semantics/target-needles.js';
import { CONTENT_NAMED_CONTAINERS } from '../contract/roles.js';

/** Which evidence found the target. */
export type MatchEvidence = 'test id + role' | 'role + name' | 'role + name + container' | 'name within container' | 'position among twins' | 'despite markup churn';

/** The outcome of re-finding a target. */
export type TargetMatch =
  | { kind: 'found'; id: string; evidence: MatchEvidence }
  | { kind: 'ambiguous'; detail: string }
  | { kind: 'not-found'; detail: string };

/** Role families: a control may change role within its family and still be itself. */
const ROLE_FAMILIES: readonly (readonly string[])[] = [
  ['button', 'link', 'menuitem', 'tab', 'option', 'treeitem', 'gridcell'],
  ['textbox', 'searchbox', 'combobox', 'spinbutton'],
  ['checkbox', 'switch', 'menuitemcheckbox', 'radio', 'menuitemradio'],
  ['listbox', 'combobox'],
];

function sameFamily(recorded: string, live: string): boolean {
  return recorded === live || ROLE_FAMILIES.some((family) => family.includes(recorded) && family.includes(live));
}

function recordedLabel(target: TargetDescription): string {
  return labelOf({ name: target.name, text: target.text ?? '', placeholder: target.placeholder ?? '' });
}

interface Wanted {
  target: TargetDescription;
  label: string;
  comparableLabel: string;
  containerKey: string;
}

function inContainer(wanted: Wanted, candidate: IndexedNode): boolean {
  return wanted.target.container === undefined || containerKey(candidate.container) === wanted.containerKey;
}

function literalMatch(wanted: Wanted, candidate: IndexedNode): boolean {
  if (candidate.label !== wanted.label) return false;
  const recorded = wanted.target.container;
  return recorded === undefined || (candidate.container?.role === recorded.role && candidate.container.name === recorded.name);
}

type Decision = { kind: 'found'; node: IndexedNode; byPosition: boolean } | { kind: 'ambiguous' | 'not-found'; detail: string };

/**
 * Decide among equally good candidates (tier 4). A position proves a twin only when as many
 * twins are on the screen as were recorded: one live match of a control recorded "3rd of 3" may
 * be any of the three (the same-named button under a modal), so it is not taken.
 */
function decideAmongTwins(wanted: Wanted, candidates: readonly IndexedNode[], shownTwins: () => readonly IndexedNode[] = () => []): Decision {
  const { twinIndex, twinCount } = wanted.target;
  // Prefer candidates that sit where the recording had no container, when it had none.
  const unplaced =
    wanted.target.container === undefined && candidates.some((candidate) => candidate.container === undefined)
      ? candidates.filter((candidate) => candidate.container === undefined)
      : candidates;
  if (twinCount <= 1) {
    if (unplaced.length === 1) return { kind: 'found', node: unplaced[0]!, byPosition: false };
    const literal = unplaced.filter((candidate) => literalMatch(wanted, candidate));
    if (literal.length === 1) return { kind: 'found', node: literal[0]!, byPosition: false };
    return { kind: 'ambiguous', detail: `${unplaced.length} controls match ${describeTargetPhrase(wanted.target)}, recorded as ${twinIndex + 1} of ${twinCount}` };
  }
  for (const pool of [unplaced, candidates]) {
    if (pool.length !== twinCount) continue;
    const literal = pool.filter((candidate) => literalMatch(wanted, candidate));
    if (literal.length === 1) return { kind: 'found', node: literal[0]!, byPosition: false };
    return { kind: 'found', node: pool[twinIndex]!, byPosition: true };
  }
  // Fewer same-named twins than recorded: a twin that shows the recorded label as its text (a renamed button still reading "Authorize") counts.
  if (candidates.length < twinCount) {
    const shown = shownTwins();
    if (shown.length === twinCount) return { kind: 'found', node: shown[twinIndex]!, byPosition: true };
  }
  const phrase = describeTargetPhrase(wanted.target);
  if (candidates.length < twinCount) {
    return { kind: 'not-found', detail: `only ${candidates.length} of the ${twinCount} twins ${phrase} on the screen: a position among fewer twins proves nothing` };
  }
  return { kind: 'ambiguous', detail: `${candidates.length} controls match ${phrase}, recorded as ${twinIndex + 1} of ${twinCount}` };
}

function resolve(wanted: Wanted, candidates: readonly IndexedNode[], evidence: MatchEvidence, shownTwins?: () => readonly IndexedNode[]): TargetMatch | undefined {
  if (candidates.length === 0) return undefined;
  const decision = decideAmongTwins(wanted, candidates, shownTwins);
  if (decision.kind !== 'found') return decision;
  return { kind: 'found', id: decision.node.node.id, evidence: decision.byPosition ? 'position among twins' : evidence };
}

/** The text a node shows: its own text, else its name. */
function shownText(candidate: IndexedNode): string {
  const text = candidate.node.text ?? '';
  return comparableText(text.trim() === '' ? candidate.node.name : text);
}

/** The shortest label that contains the recorded one or is contained in it (`Apply` → `Apply now`). */
function overlappingLabel(label: string, candidates: Iterable<string>): string | undefined {
  const wanted = label.toLowerCase();
  let best: string | undefined;
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    if ((lower.includes(wanted) || wanted.includes(lower)) && (best === undefined || candidate.length < best.length)) best = candidate;
  }
  return best;
}

function notFoundDetail(wanted: Wanted, index: TreeIndex): string {
  const sameRole = new Set(index.nodes.filter((candidate) => candidate.node.role === wanted.target.role && candidate.label !== '').map((candidate) => candidate.label));
  const nearest = wanted.label === '' ? undefined : (nearestName(wanted.label, sameRole) ?? overlappingLabel(wanted.label, sameRole));
  return `no ${describeTargetPhrase(wanted.target)} on the screen${nearest === undefined ? '' : ` (nearest: ${wanted.target.role} ${JSON.stringify(nearest)})`}`;
}

/** A text as an engine compares the words it was asked to read in full: runs of whitespace as one space, trimmed, lower case. */
function wordKey(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * Why the target cannot be told apart on this screen, when the engine left out nodes holding its
 * words (more nodes of one run held words it was asked to read in full than it reads, so the
 * rest stayed placeholders whose `omitted.holding` names those words): any of them may be the
 * target or its lookalike, so no tier's answer on the nodes read would be proof. A part of the
 * target's words counts too (the replay may have asked for a shorter word that covers them), so
 * this may call a target ambiguous that a whole read would find: never the other way round.
 */
function unreadLookalikes(target: TargetDescription, index: TreeIndex): string | undefined {
  let needles: string[] | undefined;
  let word: string | undefined;
  let count = 0;
  for (const candidate of index.nodes) {
    const omitted = candidate.node.omitted;
    if (omitted?.holding === undefined || candidate.node.role !== OMITTED_ROLE) continue;
    needles ??= (targetNeedles(target) ?? []).map(wordKey);
    // A node holding the target's words holds every part of them: a part left out unread may be the target.
    const held = omitted.holding.find((part) => needles!.some((needle) => needle.includes(part)));
    if (held === undefined) continue;
    word ??= held;
    count += omitted.count;
  }
  if (word === undefined) return undefined;
  return `${describeTargetPhrase(target)} cannot be told apart: more nodes hold ${JSON.stringify(word)} than a screen reads, and ${count.toLocaleString('en-US')} left out unread may hold it`;
}

/** Re-find `target` on a live tree (or an index of one). The order of evidence: replayer/README.md, "Re-finding a target". */
export function matchTarget(target: TargetDescription, tree: ScreenNode | TreeIndex): TargetMatch {
  const index = 'byId' in tree ? tree : indexTree(tree);
  const unread = unreadLookalikes(target, index);
  if (unread !== undefined) return { kind: 'ambiguous', detail: unread };
  const label = recordedLabel(target);
  const wanted: Wanted = {
    target,
    label,
    comparableLabel: comparableText(label),
    containerKey: containerKey(target.container),
  };

  if (target.testId !== undefined) {
    // The container still counts: a shared test id ("delete" in every row) must not pick another row.
    const byTestId = index.nodes.filter(
      (candidate) => candidate.node.testId === target.testId && candidate.node.role === target.role && inContainer(wanted, candidate),
    );
    if (byTestId.length === 1) return { kind: 'found', id: byTestId[0]!.node.id, evidence: 'test id + role' };
    if (byTestId.length > 1) {
      const narrowed = byTestId.filter((candidate) => candidate.comparableLabel === wanted.comparableLabel);
      const found = resolve(wanted, narrowed.length > 0 ? narrowed : byTestId, 'test id + role');
      if (found !== undefined) return found;
    }
  }

  const sameLabel = index.nodes.filter((candidate) => candidate.comparableLabel === wanted.comparableLabel && inContainer(wanted, candidate));
  const sameRole = sameLabel.filter((candidate) => candidate.node.role === target.role);
  const shows = (text: string) => (candidate: IndexedNode) =>
    candidate.node.role === target.role && inContainer(wanted, candidate) && (candidate.comparableLabel === text || shownText(candidate) === text);
  // The text the control showed tells apart a control from a same-named newcomer (an expand arrow beside each summary button).
  const recordedText = target.text === undefined || target.name === '' ? '' : comparableText(target.text);
  const showingText = recordedText === '' ? [] : index.nodes.filter(shows(recordedText));
  const byText = showingText.length > 0 ? resolve(wanted, showingText, target.container === undefined ? 'role + name' : 'role + name + container') : undefined;
  if (byText?.kind === 'found') return byText;
  // Looked for only when fewer same-named twins are on the screen than were recorded.
  const shownTwins = (): IndexedNode[] => (label === '' ? [] : index.nodes.filter(shows(wanted.comparableLabel)));
  const byRole = resolve(wanted, sameRole, target.container === undefined ? 'role + name' : 'role + name + container', shownTwins);
  if (byRole !== undefined) return byRole;

  if (label !== '') {
    const byFamily = resolve(
      wanted,
      sameLabel.filter((candidate) => sameFamily(target.role, candidate.node.role)),
      'name within container',
    );
    if (byFamily !== undefined) return byFamily;
  }
  const despiteChurn = resolve(wanted, churnCandidates(wanted, index), 'despite markup churn');
  if (despiteChurn !== undefined) return despiteChurn;
  return { kind: 'not-found', detail: notFoundDetail(wanted, index) };
}

/** Candidates that fit the recorded control once markup churn is allowed for (tier 5). */
function churnCandidates(wanted: Wanted, index: TreeIndex): IndexedNode[] {
  const { target } = wanted;
  // A control recorded without a label is only ever re-found inside its container.
  if (wanted.label === '' && target.container === undefined) return [];
  const itemRole = CONTENT_NAMED_CONTAINERS.has(target.role);
  return index.nodes.filter((candidate) => {
    if (!sameFamily(target.role, candidate.node.role)) return false;
    if (target.container !== undefined && !sitsInContainer(candidate, target.container)) return false;
    if (wanted.label === '') return true;
    if (candidate.comparableLabel === wanted.comparableLabel) return true;
    return itemRole && candidate.label === '' && comparableText(childLabelOf(candidate.node)) === wanted.comparableLabel;
  });
}
