/**
 * Where a typed value came from, and so whether a replay can type it again. The rules, first
 * match wins: recorder/README.md, "Typed values".
 */
import type { TypedValue } from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import { looksLikeDateOrTime, looksLikeMintedToken } from '../semantics/volatile-text.js';

/** Why a value cannot be repeated. */
export const VALUE_GAP_RULES = {
  containsUnique: 'value contains a unique() value',
  readOffScreen: 'value read off the screen',
  dateOrTime: 'value looks like a date or time',
  mintedToken: 'value looks like a minted token',
} as const;

/** A value gap rule. */
export type ValueGapRule = (typeof VALUE_GAP_RULES)[keyof typeof VALUE_GAP_RULES];

/** A typed value's provenance: repeatable ({@link TypedValue}) or a gap with its rule. */
export type ValueProvenance = TypedValue | { kind: 'gap'; rule: ValueGapRule };

/** What the classification knows about the step. */
export interface ValueContext {
  /** The instruction with params filled in (secrets as `<secret:name>`). */
  instruction: string;
  /** Params that are neither secrets nor `unique()`, by name. */
  literalParams?: Readonly<Record<string, string>>;
  /** This run's `unique()` values, by param name. */
  uniqueValues?: Readonly<Record<string, string>>;
  /** The secret's name when `value` is a configured secret's value. */
  secretNameOf?: (value: string) => string | undefined;
  /** The screen before the action (redacted tree). */
  screenBefore?: ScreenNode;
  /** The node typed into; its own value does not count as "on the screen". */
  targetId?: string;
  /** `select` values name the app's options and are always literal. Default `type`. */
  purpose?: 'type' | 'select';
}

/** Shortest value that can count as read off the screen; shorter ones appear everywhere. */
export const MIN_SCREEN_READ_CHARS = 3;

function folded(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Texts a person could read on the screen, except the target's own value and all placeholders. */
function* screenTexts(root: ScreenNode, targetId: string | undefined): Generator<string> {
  const stack: ScreenNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.name !== '') yield node.name;
    if (node.text !== undefined && node.text !== '') yield node.text;
    if (node.href !== undefined && node.href !== '') yield node.href;
    if (node.value !== undefined && node.value !== '' && node.id !== targetId) yield node.value;
    for (const child of node.children) stack.push(child);
  }
}

/** True when `value` occurs as a whole word sequence in some text on the screen. */
export function appearsOnScreen(value: string, root: ScreenNode, targetId?: string): boolean {
  const needle = folded(value);
  if (needle.length < MIN_SCREEN_READ_CHARS) return false;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(needle)}(?![\\p{L}\\p{N}])`, 'u');
  for (const text of screenTexts(root, targetId)) if (pattern.test(folded(text))) return true;
  return false;
}

/** Classify a typed or selected value (rules in recorder/README.md, "Typed values"). */
export function classifyTypedValue(value: string, context: ValueContext): ValueProvenance {
  const secretName = context.secretNameOf?.(value);
  if (secretName !== undefined) return { kind: 'secret', name: secretName };

  const uniqueEntries = Object.entries(context.uniqueValues ?? {}).sort(([left], [right]) => left.localeCompare(right));
  const uniqueMatch = uniqueEntries.find(([, current]) => current === value);
  if (uniqueMatch !== undefined) return { kind: 'unique', param: uniqueMatch[0] };
  if (uniqueEntries.some(([, current]) => current.length >= 4 && value.includes(current))) {
    return { kind: 'gap', rule: VALUE_GAP_RULES.containsUnique };
  }

  const needle = folded(value);
  const literal: TypedValue = { kind: 'literal', value };
  if (needle === '' || folded(context.instruction).includes(needle)) return literal;
  if (Object.values(context.literalParams ?? {}).some((param) => folded(param).includes(needle))) return literal;
  if (context.purpose === 'select') return literal;

  if (context.screenBefore !== undefined && appearsOnScreen(value, context.screenBefore, context.targetId)) {
    return { kind: 'gap', rule: VALUE_GAP_RULES.readOffScreen };
  }
  if (looksLikeDateOrTime(value)) return { kind: 'gap', rule: VALUE_GAP_RULES.dateOrTime };
  if (looksLikeMintedToken(value)) return { kind: 'gap', rule: VALUE_GAP_RULES.mintedToken };
  return literal;
}
