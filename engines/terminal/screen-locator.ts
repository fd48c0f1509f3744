/**
 * What a terminal locator finds: the steps of `screen.getByRole(…).filter(…).first()` and how
 * they resolve on one observation's node tree, with Playwright's text rules (a string matches
 * case-insensitively as a substring, whitespace collapsed; `exact` matches the whole text, case
 * and all; a RegExp is tested on the text). Nothing here waits or reads a program.
 */
import type { ScreenNode } from '../../contract/engine.js';

/** A text to look for: a string (Playwright's rules) or a regular expression. */
export type TextMatch = string | RegExp;

/** Options of `getByRole`, as Playwright names them. */
export interface RoleOptions {
  name?: TextMatch;
  exact?: boolean;
  checked?: boolean;
  selected?: boolean;
  disabled?: boolean;
}

/** One step of a locator. */
export type LocatorStep =
  | { kind: 'root' }
  | { kind: 'role'; role: string; options: RoleOptions }
  | { kind: 'text'; text: TextMatch; exact: boolean }
  | { kind: 'label'; text: TextMatch; exact: boolean }
  | { kind: 'nth'; index: number }
  | { kind: 'filter'; hasText?: TextMatch; hasNotText?: TextMatch };

/** Roles a label names (a field by its question, a mark by its label). */
const LABELLED_ROLES: ReadonlySet<string> = new Set(['textbox', 'checkbox', 'radio', 'combobox', 'switch']);

/** Whitespace collapsed to one space, trimmed. */
export function normalizeSpace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Playwright's text rule: substring and case-insensitive unless `exact`; a RegExp is tested as it is. */
export function textMatches(text: string, expected: TextMatch, exact: boolean): boolean {
  const actual = normalizeSpace(text);
  if (typeof expected !== 'string') {
    expected.lastIndex = 0;
    return expected.test(actual);
  }
  const wanted = normalizeSpace(expected);
  return exact ? actual === wanted : actual.toLowerCase().includes(wanted.toLowerCase());
}

function descendants(node: ScreenNode): ScreenNode[] {
  const out: ScreenNode[] = [];
  const stack = [...node.children].reverse();
  while (stack.length > 0) {
    const next = stack.pop()!;
    out.push(next);
    for (let index = next.children.length - 1; index >= 0; index--) stack.push(next.children[index]!);
  }
  return out;
}

/**
 * The text a node shows: a leaf its name (a field: its question; its answer is its value), a
 * region the text of its leaves, one per line.
 */
export function nodeText(node: ScreenNode): string {
  if (node.children.length === 0) return node.name;
  return descendants(node)
    .filter((each) => each.children.length === 0 && each.name !== '')
    .map((each) => each.name)
    .join('\n');
}

function roleMatches(node: ScreenNode, role: string, options: RoleOptions): boolean {
  if (node.role !== role) return false;
  if (options.name !== undefined && !textMatches(node.name, options.name, options.exact === true)) return false;
  if (options.checked !== undefined && node.states.includes('checked') !== options.checked) return false;
  if (options.selected !== undefined && node.states.includes('selected') !== options.selected) return false;
  if (options.disabled !== undefined && node.states.includes('disabled') !== options.disabled) return false;
  return true;
}

function unique(nodes: ScreenNode[]): ScreenNode[] {
  const seen = new Set<string>();
  return nodes.filter((node) => (seen.has(node.id) ? false : (seen.add(node.id), true)));
}

/** The nodes `steps` find on the tree of `root`, in screen order. */
export function resolveSteps(root: ScreenNode, steps: readonly LocatorStep[]): ScreenNode[] {
  let found: ScreenNode[] = [root];
  for (const step of steps) {
    switch (step.kind) {
      case 'root':
        found = [root];
        break;
      case 'role':
        found = unique(found.flatMap(descendants).filter((node) => roleMatches(node, step.role, step.options)));
        break;
      case 'text':
        found = unique(found.flatMap(descendants).filter((node) => node.children.length === 0 && node.name !== '' && textMatches(node.name, step.text, step.exact)));
        break;
      case 'label':
        found = unique(found.flatMap(descendants).filter((node) => LABELLED_ROLES.has(node.role) && textMatches(node.name, step.text, step.exact)));
        break;
      case 'nth': {
        const picked = step.index < 0 ? found.at(step.index) : found[step.index];
        found = picked === undefined ? [] : [picked];
        break;
      }
      case 'filter':
        found = found.filter((node) => {
          const text = nodeText(node);
          if (step.hasText !== undefined && !textMatches(text, step.hasText, false)) return false;
          if (step.hasNotText !== undefined && textMatches(text, step.hasNotText, false)) return false;
          return true;
        });
        break;
    }
  }
  return found;
}

function quoted(text: TextMatch): string {
  return typeof text === 'string' ? `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(text);
}

/** A locator as a Playwright user writes it: `getByRole('menuitem', { name: 'Banana' }).first()`. */
export function describeSteps(steps: readonly LocatorStep[]): string {
  const parts: string[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case 'root':
        parts.push("locator(':root')");
        break;
      case 'role': {
        const options = Object.entries(step.options)
          .filter(([, value]) => value !== undefined)
          .map(([key, value]) => `${key}: ${typeof value === 'boolean' ? String(value) : quoted(value as TextMatch)}`);
        parts.push(`getByRole('${step.role}'${options.length === 0 ? '' : `, { ${options.join(', ')} }`})`);
        break;
      }
      case 'text':
      case 'label':
        parts.push(`${step.kind === 'text' ? 'getByText' : 'getByLabel'}(${quoted(step.text)}${step.exact ? ', { exact: true }' : ''})`);
        break;
      case 'nth':
        parts.push(step.index === 0 ? 'first()' : step.index === -1 ? 'last()' : `nth(${step.index})`);
        break;
      case 'filter': {
        const options = [step.hasText === undefined ? '' : `hasText: ${quoted(step.hasText)}`, step.hasNotText === undefined ? '' : `hasNotText: ${quoted(step.hasNotText)}`].filter((part) => part !== '');
        parts.push(`filter({ ${options.join(', ')} })`);
        break;
      }
    }
  }
  return parts.join('.');
}

function selectorText(text: TextMatch, exact: boolean): string {
  return typeof text === 'string' ? `${JSON.stringify(text)}${exact ? 's' : 'i'}` : `/${text.source}/${text.flags}`;
}

/**
 * The same locator in Playwright's selector syntax (`internal:role=menuitem[name="Banana"i]`),
 * from which Playwright's report writes the subtitle of an `expect` step.
 */
export function selectorOf(steps: readonly LocatorStep[]): string {
  const parts: string[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case 'root':
        parts.push(':root');
        break;
      case 'role': {
        const { name, exact, checked, selected, disabled } = step.options;
        let selector = `internal:role=${step.role}`;
        if (name !== undefined) selector += `[name=${selectorText(name, exact === true)}]`;
        if (checked !== undefined) selector += `[checked=${String(checked)}]`;
        if (selected !== undefined) selector += `[selected=${String(selected)}]`;
        if (disabled !== undefined) selector += `[disabled=${String(disabled)}]`;
        parts.push(selector);
        break;
      }
      case 'text':
        parts.push(`internal:text=${selectorText(step.text, step.exact)}`);
        break;
      case 'label':
        parts.push(`internal:label=${selectorText(step.text, step.exact)}`);
        break;
      case 'nth':
        parts.push(`nth=${step.index}`);
        break;
      case 'filter':
        if (step.hasText !== undefined) parts.push(`internal:has-text=${selectorText(step.hasText, false)}`);
        if (step.hasNotText !== undefined) parts.push(`internal:has-not-text=${selectorText(step.hasNotText, false)}`);
        break;
    }
  }
  return parts.join(' >> ');
}
