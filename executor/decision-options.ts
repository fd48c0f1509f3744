/**
 * The closed list of moves a decision model chooses from: verb × node of the current screen,
 * plus done and failed. Built from the screen text, so it works on every engine.
 */
import type { Verb } from '../contract/engine.js';
import { EDITABLE_ROLES, TAPPABLE_ROLES, TOGGLE_ROLES } from '../contract/roles.js';

/** One node line of a screen text. */
export interface ScreenLine {
  id: string;
  role: string;
  name: string;
  depth: number;
  states: string[];
  secure: boolean;
}

const LINE = /^( *)#(\S+) (\S+)(?: "((?:[^"\\]|\\.)*)")?(.*)$/;

/** Parse the node lines of a screen text (the header line and anything else is skipped). */
export function parseScreenLines(text: string): ScreenLine[] {
  const lines: ScreenLine[] = [];
  for (const raw of text.split('\n')) {
    const match = LINE.exec(raw);
    if (match === null) continue;
    const rest = match[5] ?? '';
    const bracket = /\[([a-z ]+)\]\s*$/.exec(rest);
    const states = bracket === null ? [] : bracket[1]!.split(' ').filter((state) => state !== '');
    lines.push({
      depth: match[1]!.length,
      id: match[2]!,
      role: match[3]!,
      name: (match[4] ?? '').replace(/\\"/g, '"'),
      states,
      secure: states.includes('secure') || rest.includes('value=<secure>'),
    });
  }
  return lines;
}

/** A move the model can choose. */
export type DecisionMove =
  | { kind: 'node'; verb: 'tap' | 'check' | 'uncheck' | 'type' | 'press-enter'; id: string; line: ScreenLine }
  | { kind: 'secret'; id: string; secret: string; line: ScreenLine }
  | { kind: 'select'; id: string; value: string; line: ScreenLine }
  | { kind: 'scroll'; direction: 'up' | 'down' }
  | { kind: 'back' }
  | { kind: 'done' }
  | { kind: 'failed' };

const NAME_LIMIT = 60;

function label(line: ScreenLine): string {
  const name = line.name.length > NAME_LIMIT ? `${line.name.slice(0, NAME_LIMIT)}…` : line.name;
  return `#${line.id} ${line.role} "${name}"`;
}

/** The offered moves, keyed by the exact option string the model returns. */
export function decisionOptions(
  lines: readonly ScreenLine[],
  verbs: readonly Verb[],
  secrets: readonly string[],
  maxOptions: number,
): Map<string, DecisionMove> {
  const has = new Set(verbs);
  const options = new Map<string, DecisionMove>();
  const add = (key: string, move: DecisionMove): void => {
    if (options.size < maxOptions && !options.has(key)) options.set(key, move);
  };
  lines.forEach((line, index) => {
    if (line.states.includes('disabled')) return;
    if (has.has('tap') && TAPPABLE_ROLES.has(line.role)) add(`tap ${label(line)}`, { kind: 'node', verb: 'tap', id: line.id, line });
    if (has.has('check') && TOGGLE_ROLES.has(line.role)) {
      const checked = line.states.includes('checked');
      const verb = checked ? 'uncheck' : 'check';
      if (!(checked && line.role === 'radio')) add(`${verb} ${label(line)}`, { kind: 'node', verb, id: line.id, line });
    }
    if (has.has('type') && EDITABLE_ROLES.has(line.role)) {
      if (line.secure) for (const secret of secrets) add(`type secret ${secret} into ${label(line)}`, { kind: 'secret', id: line.id, secret, line });
      else add(`type into ${label(line)}`, { kind: 'node', verb: 'type', id: line.id, line });
      if (has.has('press')) add(`press Enter in ${label(line)}`, { kind: 'node', verb: 'press-enter', id: line.id, line });
    }
    if (has.has('select') && (line.role === 'combobox' || line.role === 'listbox')) {
      for (const child of lines.slice(index + 1)) {
        if (child.depth <= line.depth) break;
        if (child.role === 'option' && child.name !== '') add(`select "${child.name}" in ${label(line)}`, { kind: 'select', id: line.id, value: child.name, line });
      }
    }
  });
  if (has.has('scroll')) {
    add('scroll down', { kind: 'scroll', direction: 'down' });
    add('scroll up', { kind: 'scroll', direction: 'up' });
  }
  if (has.has('back')) add('go back', { kind: 'back' });
  options.set('done', { kind: 'done' });
  options.set('failed', { kind: 'failed' });
  return options;
}
