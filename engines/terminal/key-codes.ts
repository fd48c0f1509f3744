/**
 * Keys and chords as the bytes a terminal sends for them (xterm's encoding, what
 * `TERM=xterm-256color` programs expect). Names follow Playwright's (`Enter`, `ArrowDown`,
 * `Control+C`, `Shift+Tab`), so a step reads the same on both engines.
 */
import { EngineError } from '../../contract/engine.js';

/** What decides how cursor keys are sent: the program's application cursor mode (DECCKM). */
export interface KeyModes {
  applicationCursorKeys: boolean;
}

const CURSOR: Record<string, string> = { ArrowUp: 'A', ArrowDown: 'B', ArrowRight: 'C', ArrowLeft: 'D', Home: 'H', End: 'F' };
const TILDE: Record<string, string> = { Insert: '2', Delete: '3', PageUp: '5', PageDown: '6', F5: '15', F6: '17', F7: '18', F8: '19', F9: '20', F10: '21', F11: '23', F12: '24' };
const SS3: Record<string, string> = { F1: 'P', F2: 'Q', F3: 'R', F4: 'S' };
const PLAIN: Record<string, string> = { Enter: '\r', Tab: '\t', Escape: '\x1b', Backspace: '\x7f', Space: ' ' };
const ALIASES: Record<string, string> = {
  Return: 'Enter',
  Esc: 'Escape',
  Up: 'ArrowUp',
  Down: 'ArrowDown',
  Left: 'ArrowLeft',
  Right: 'ArrowRight',
  PgUp: 'PageUp',
  PgDn: 'PageDown',
  Del: 'Delete',
  ' ': 'Space',
};
const MODIFIERS: Record<string, 'Control' | 'Alt' | 'Shift' | 'Meta'> = {
  Control: 'Control',
  Ctrl: 'Control',
  ControlOrMeta: 'Control',
  Alt: 'Alt',
  Option: 'Alt',
  Meta: 'Alt',
  Shift: 'Shift',
};

/** The names of keys this module knows, for messages. */
export const KNOWN_KEYS = [...Object.keys(PLAIN), ...Object.keys(CURSOR), ...Object.keys(TILDE), ...Object.keys(SS3)];

function unknown(key: string): EngineError {
  return new EngineError('NOT_ACTIONABLE', `The terminal has no key "${key}". Use a character, one of ${KNOWN_KEYS.join(', ')}, or a chord such as Control+C or Shift+Tab.`);
}

/** The bytes for `key` (a name, a character, or a chord `Control+Alt+X`). @throws EngineError `NOT_ACTIONABLE` for an unknown key. */
export function keyBytes(key: string, modes: KeyModes): string {
  const parts = key === '+' ? ['+'] : key.split('+').map((part, index, all) => (part === '' && index === all.length - 1 ? '+' : part));
  const held = new Set<string>();
  for (const part of parts.slice(0, -1)) {
    const modifier = MODIFIERS[part];
    if (modifier === undefined) throw unknown(key);
    held.add(modifier);
  }
  const last = parts.at(-1) ?? '';
  const name = ALIASES[last] ?? last;
  const modifierCode = 1 + (held.has('Shift') ? 1 : 0) + (held.has('Alt') ? 2 : 0) + (held.has('Control') ? 4 : 0);
  const cursor = CURSOR[name];
  if (cursor !== undefined) {
    if (modifierCode > 1) return `\x1b[1;${modifierCode}${cursor}`;
    return (modes.applicationCursorKeys ? '\x1bO' : '\x1b[') + cursor;
  }
  const tilde = TILDE[name];
  if (tilde !== undefined) return modifierCode > 1 ? `\x1b[${tilde};${modifierCode}~` : `\x1b[${tilde}~`;
  const ss3 = SS3[name];
  if (ss3 !== undefined) return modifierCode > 1 ? `\x1b[1;${modifierCode}${ss3}` : `\x1bO${ss3}`;
  if (name === 'Tab' && held.has('Shift')) return '\x1b[Z';
  let bytes = PLAIN[name] ?? ([...name].length === 1 ? name : undefined);
  if (bytes === undefined) throw unknown(key);
  if (held.has('Shift') && bytes.length === 1) bytes = bytes.toUpperCase();
  if (held.has('Control')) {
    if (name === 'Space' || bytes === '@') bytes = '\x00';
    else if (/^[a-zA-Z[\\\]^_]$/.test(bytes)) bytes = String.fromCharCode(bytes.toUpperCase().charCodeAt(0) & 0x1f);
    else if (bytes !== '\r' && bytes !== '\t' && bytes !== '\x1b' && bytes !== '\x7f') throw unknown(key);
  }
  return held.has('Alt') ? `\x1b${bytes}` : bytes;
}

/** The bytes that type `text` as keystrokes: line breaks become Enter. */
export function textBytes(text: string): string {
  return text.replace(/\r?\n/g, '\r');
}
