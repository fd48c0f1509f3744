/**
 * `find`: nodes by their words, also ones a bounded screen leaves out (issue 34). The engine is
 * asked to read every node whose words contain the text (`ObserveRequest.include`); this file
 * decides, on the tree it returned, which nodes match and what the model is told about them.
 */
import { OMITTED_ROLE, type ScreenNode } from '../contract/engine.js';
import type { FoundNodes } from '../contract/step-contract.js';

/** Most ids a {@link FoundNodes} lists. */
export const MAX_FOUND = 50;
/** Longest text `find` takes. */
export const MAX_FIND_CHARS = 200;

/** A text as `find` compares it: runs of whitespace as one space, trimmed, lower case. */
export function findKey(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The words of a node `find` looks in: name, text, value, placeholder and test id. */
function wordsOf(node: ScreenNode): string {
  return findKey([node.name, node.text ?? '', node.states.includes('secure') ? '' : (node.value ?? ''), node.placeholder ?? '', node.testId ?? ''].join('\n'));
}

/** The nodes of `root` (not the root, not placeholders) whose words contain `query`, in document order. */
export function findNodes(root: ScreenNode, query: string): ScreenNode[] {
  const needle = findKey(query);
  const found: ScreenNode[] = [];
  if (needle === '') return found;
  const stack: ScreenNode[] = [];
  for (let index = root.children.length - 1; index >= 0; index--) stack.push(root.children[index]!);
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.role !== OMITTED_ROLE && wordsOf(node).includes(needle)) found.push(node);
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index]!);
  }
  return found;
}

/** What a find on `root` came to. */
export function foundOn(root: ScreenNode, query: string, partial: boolean): FoundNodes {
  const matches = findNodes(root, query);
  const found: FoundNodes = { query, ids: matches.slice(0, MAX_FOUND).map((node) => node.id), total: matches.length };
  if (partial) found.partial = true;
  return found;
}
