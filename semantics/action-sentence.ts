/**
 * The one grammar of an action as a sentence (`tap button "Delete" in listitem "Walk the dog"`),
 * each verb's words from its row of the verb table (`contract/verbs.ts`):
 * the report, `ActResult.actions`, a hand-off's `replayedPrefix`, `e2e cache show` and
 * `e2e cache diff` all spell an action this way. A live action (`step/`) and a recorded one
 * (`recorder/`) only fill in what they know: a recording also knows a control's container and
 * twins, and where a typed value came from.
 */
import { secretPlaceholder } from '../contract/param-values.js';
import { clipLine } from '../contract/text.js';
import { verbRow, type SentenceWords } from '../contract/verbs.js';
import { uniquePlaceholder } from './unique-placeholders.js';
import { visibleFormatCharacters, visibleText } from './visible-text.js';

/** Longest quoted text in a sentence before it is shortened with `…`. */
export const MAX_QUOTED_CHARS = 80;

/** A text in quotes, on one line and shortened, hidden characters spelled out: `"Buy milk"`. */
export function quoteText(text: string): string {
  return visibleText(JSON.stringify(clipLine(visibleFormatCharacters(text), MAX_QUOTED_CHARS)));
}

/** What a sentence may say about a control. */
export interface SentenceNoun {
  role: string;
  name: string;
  text?: string | undefined;
  placeholder?: string | undefined;
  testId?: string | undefined;
  /** 0-based position among `twinCount` controls of the same role, name and container. */
  twinIndex?: number | undefined;
  twinCount?: number | undefined;
  states?: readonly string[] | undefined;
  container?: { role: string; name: string } | undefined;
}

function ordinal(position: number): string {
  const lastTwo = position % 100;
  const suffix = lastTwo >= 11 && lastTwo <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][position % 10] ?? 'th');
  return `${position}${suffix}`;
}

/**
 * A control as a noun phrase: `button "Apply"`, `textbox with placeholder "Email"`,
 * `button "Add to cart" (2nd of 3)`, `checkbox "Toggle" [checked] in listitem "Buy milk"`.
 */
export function nounPhrase(noun: SentenceNoun | undefined): string {
  if (noun === undefined) return 'an unknown control';
  let phrase: string;
  if (noun.name.trim() !== '') phrase = `${noun.role} ${quoteText(noun.name)}`;
  else if (noun.text !== undefined && noun.text.trim() !== '') phrase = `${noun.role} with text ${quoteText(noun.text)}`;
  else if (noun.placeholder !== undefined && noun.placeholder !== '') phrase = `${noun.role} with placeholder ${quoteText(noun.placeholder)}`;
  else if (noun.testId !== undefined && noun.testId !== '') phrase = `${noun.role} with test id ${quoteText(noun.testId)}`;
  else phrase = `unnamed ${noun.role}`;
  if (noun.twinCount !== undefined && noun.twinCount > 1) phrase += ` (${ordinal((noun.twinIndex ?? 0) + 1)} of ${noun.twinCount})`;
  if (noun.states !== undefined && noun.states.length > 0) phrase += ` [${noun.states.join(' ')}]`;
  // An unnamed landmark or dialog still tells controls apart when matching; in a sentence it would only add noise ("in main").
  if (noun.container !== undefined && noun.container.name !== '') phrase += ` in ${noun.container.role} ${quoteText(noun.container.name)}`;
  // Roles and states are entry text too: a forged entry can put an ESC there.
  return visibleText(phrase);
}

/** A typed value: the text itself, or where it comes from (a secret's or a `unique()` param's name). */
export type SentenceValue = { kind: 'literal'; value: string } | { kind: 'secret'; name: string } | { kind: 'unique'; param: string };

/** A typed value as a sentence shows it: `"Buy milk"`, `<secret:adminPassword>`, `{unique:email}`. */
export function valuePhrase(value: SentenceValue): string {
  switch (value.kind) {
    case 'literal':
      return quoteText(value.value);
    case 'secret':
      return secretPlaceholder(value.name);
    case 'unique':
      return uniquePlaceholder(value.param);
  }
}

interface Point {
  x: number;
  y: number;
}

/** What a sentence needs to know about an action. */
export interface SentenceInput {
  /** A `ctx.actions` verb, or `gap` (a recorded step the replay cannot repeat). */
  verb: string;
  target?: SentenceNoun | undefined;
  destination?: SentenceNoun | undefined;
  value?: SentenceValue | undefined;
  key?: string | undefined;
  url?: string | undefined;
  direction?: string | undefined;
  checked?: boolean | undefined;
  point?: Point | undefined;
  to?: Point | undefined;
  paths?: readonly string[] | undefined;
  /** A project tool's name (`runTool`, or the tool of a gap). */
  tool?: string | undefined;
  /** Why a recorded gap cannot be repeated. */
  rule?: string | undefined;
  /** Modifier keys held during a tap. */
  modifiers?: readonly string[] | undefined;
  /** A viewport size. */
  size?: { width: number; height: number } | undefined;
}

function at(point: Point | undefined): string {
  return point === undefined ? '()' : `(${Math.round(point.x)}, ${Math.round(point.y)})`;
}

/** One action as a sentence, hidden characters spelled out (`semantics/visible-text.ts`). */
export function describeSentence(input: SentenceInput): string {
  const sentence = plainSentence(input);
  return visibleText(input.modifiers === undefined || input.modifiers.length === 0 ? sentence : `${sentence} with ${input.modifiers.join('+')}`);
}

/** The words of the verb's row (`contract/verbs.ts`), phrased. */
function wordsOf(input: SentenceInput): SentenceWords {
  const target = nounPhrase(input.target);
  return {
    target,
    within: input.target === undefined ? '' : ` in ${target}`,
    hasTarget: input.target !== undefined,
    destination: nounPhrase(input.destination),
    value: input.value === undefined ? quoteText('') : valuePhrase(input.value),
    key: input.key ?? '',
    url: input.url ?? '',
    direction: input.direction ?? '',
    checked: input.checked,
    point: at(input.point),
    to: at(input.to),
    paths: (input.paths ?? []).map(quoteText).join(', '),
    size: input.size === undefined ? undefined : `${input.size.width}×${input.size.height}`,
  };
}

function plainSentence(input: SentenceInput): string {
  const row = verbRow(input.verb);
  if (row !== undefined) return row.sentence(wordsOf(input));
  // A project tool run and a recorded gap are no verbs of `ctx.actions`.
  switch (input.verb) {
    case 'tool':
      return `run tool ${input.tool ?? ''}`;
    case 'gap':
      return input.tool === undefined ? `gap: ${input.rule ?? ''}` : `gap: ${input.rule ?? ''} ${input.tool}`;
    default:
      return input.verb;
  }
}
