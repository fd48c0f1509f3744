/**
 * The end-state proof of a replay (DESIGN §6, step 4). A replay finished only when the live
 * page sits on the recorded end route, every control that appeared during the recording is
 * present with its recorded states, every control that went away is absent, AND at least one
 * of those changes happened during this replay: an outcome that was already on the screen
 * when the replay started proves nothing. Text compares with volatile parts as placeholders.
 */
import type { ActEntry, StateControl } from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import { describeStateControl } from '../recorder/describe-action.js';
import { sameRouteShape, routeOf } from '../recorder/route-of.js';
import { countStateControl, statesOfLookalikes } from '../recorder/state-controls.js';
import { indexTree, type TreeIndex } from '../recorder/tree-index.js';
import { fillUniquePlaceholders, mapTextFields } from '../contract/unique-placeholders.js';
import { matchRoute } from './route-match.js';

/** A screen for the end check. */
export interface EndCheckScreen {
  tree: ScreenNode | TreeIndex;
  url: string;
}

/** What the end check compares. */
export interface EndCheckInput {
  entry: Pick<ActEntry, 'startRoute' | 'endRoute' | 'appeared' | 'gone'>;
  /** The screen when the replay started. */
  replayStart: EndCheckScreen;
  /** The screen now. */
  end: EndCheckScreen;
  /** This run's `unique()` values, filled into `{unique:<param>}` placeholders. */
  uniqueValues?: Readonly<Record<string, string>>;
}

/** The outcome of the end check. */
export type EndCheckResult = { ok: true } | { ok: false; reason: 'end-mismatch'; detail: string };

function asIndex(tree: ScreenNode | TreeIndex): TreeIndex {
  return 'byId' in tree ? tree : indexTree(tree);
}

function mismatch(detail: string): EndCheckResult {
  return { ok: false, reason: 'end-mismatch', detail };
}

/** A hint for a missing appeared control that is present in other states. */
function statesHint(index: TreeIndex, control: StateControl): string {
  const lookalikes = statesOfLookalikes(index, control);
  if (lookalikes.length === 0) return '';
  return ` (present as ${lookalikes.map((states) => `[${states.join(' ') || 'no state'}]`).join(', ')})`;
}

/** Check the end state of a replay. */
export function checkEndState(input: EndCheckInput): EndCheckResult {
  const { entry } = input;
  const route = matchRoute(entry.endRoute, input.end.url);
  if (route.kind === 'mismatch') return mismatch(`end route ${route.detail}`);

  const uniqueValues = input.uniqueValues ?? {};
  const fill = (control: StateControl): StateControl => mapTextFields(control, (text) => fillUniquePlaceholders(text, uniqueValues));
  const appeared = entry.appeared.map(fill);
  const gone = entry.gone.map(fill);
  const startIndex = asIndex(input.replayStart.tree);
  const endIndex = asIndex(input.end.tree);

  let changedDuringReplay = false;
  for (const control of appeared) {
    const atEnd = countStateControl(endIndex, control);
    if (atEnd === 0) return mismatch(`${describeStateControl(control)} did not appear${statesHint(endIndex, control)}`);
    if (atEnd > countStateControl(startIndex, control)) changedDuringReplay = true;
  }
  for (const control of gone) {
    if (countStateControl(endIndex, control) > 0) return mismatch(`${describeStateControl(control)} is still on the screen`);
    if (countStateControl(startIndex, control) > 0) changedDuringReplay = true;
  }
  if (!changedDuringReplay && !sameRouteShape(entry.startRoute, entry.endRoute)) {
    const startRoute = routeOf(input.replayStart.url);
    changedDuringReplay = startRoute === undefined || !sameRouteShape(startRoute, entry.endRoute);
  }
  if (!changedDuringReplay) {
    const first = appeared[0] ?? gone[0];
    const example = first === undefined ? '' : `: ${describeStateControl(first)} was already ${appeared[0] === undefined ? 'gone' : 'on the screen'} when the replay started`;
    return mismatch(`no recorded change happened during the replay${example}`);
  }
  return { ok: true };
}
