/**
 * What to ask an engine that leaves nodes out (a list of 200,000 rows read in part) so that a
 * target, and every node that could be taken for it, is read: words each such node contains.
 * Recording and replay ask the same question, so both judge a target on the same nodes and the
 * matching rules stay exactly those of a whole screen.
 */
import { labelOf } from './tree-index.js';
import { comparableText } from './volatile-text.js';

/** A placeholder of {@link comparableText}: the volatile parts that differ from run to run. */
const PLACEHOLDER = /\{(?:datetime|date|ago|time|duration|id)\}/;
/** Shortest literal part worth asking for (shorter ones match nearly everything). */
const MIN_NEEDLE_CHARS = 2;

/** What a target is known by: a recorded description or a live node. */
export interface NeedleSource {
  name: string;
  text?: string | undefined;
  placeholder?: string | undefined;
  testId?: string | undefined;
}

/**
 * Words every node that could be `target` or its twin contains: the longest part of its label
 * that is not volatile (case folded, so compare without case), and its test id. Undefined when
 * there are none to ask for (no label, or a label all volatile): then only reading every node
 * is exact.
 */
export function targetNeedles(target: NeedleSource): string[] | undefined {
  const label = labelOf({ name: target.name, text: target.text ?? '', placeholder: target.placeholder ?? '' });
  const parts = comparableText(label)
    .split(PLACEHOLDER)
    // A name the engine clipped ends in `…`, which the page's own words do not hold.
    .map((part) => part.replace(/…$/, '').trim())
    .filter((part) => part.length >= MIN_NEEDLE_CHARS)
    .sort((left, right) => right.length - left.length);
  const needle = parts[0];
  if (needle === undefined) return undefined;
  const needles = [needle];
  if (target.testId !== undefined && target.testId !== '') needles.push(target.testId);
  return needles;
}
