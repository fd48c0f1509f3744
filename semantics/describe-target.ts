/**
 * Describe a control semantically, enough to re-find it on a later, changed screen: role,
 * accessible name, test id, text, placeholder, link path, the nearest named container, and
 * its position among identical twins.
 */
import type { TargetDescription } from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import { MAX_NAME_CHARS, MAX_TEXT_CHARS, clipText, indexTree, type IndexedNode, type TreeIndex } from './tree-index.js';

/** Longest test id, placeholder or container name the entry schema takes. */
const MAX_SHORT_CHARS = 1024;
/** Longest link path kept. */
const MAX_HREF_CHARS = 4096;

/**
 * A link target without query and fragment (both often carry tokens or state), as the
 * observation text shows it. Relative or unparsable hrefs are cut at `?` or `#`.
 */
export function hrefPath(href: string): string {
  const cut = href.search(/[?#]/);
  return cut === -1 ? href : href.slice(0, cut);
}

/** Describe an already indexed node. */
export function describeIndexedNode(index: TreeIndex, indexed: IndexedNode): TargetDescription {
  const { node } = indexed;
  const twins = index.twins.get(indexed.twinKey) ?? [indexed];
  const description: TargetDescription = {
    role: clipText(node.role, MAX_SHORT_CHARS),
    name: clipText(node.name, MAX_NAME_CHARS),
    twinIndex: Math.max(0, twins.indexOf(indexed)),
    twinCount: Math.max(1, twins.length),
  };
  const testId = clipText(node.testId ?? '', MAX_SHORT_CHARS);
  if (testId !== '') description.testId = testId;
  const text = clipText(node.text ?? '', MAX_TEXT_CHARS);
  if (text !== '' && text !== description.name) description.text = text;
  const placeholder = clipText(node.placeholder ?? '', MAX_SHORT_CHARS);
  if (placeholder !== '') description.placeholder = placeholder;
  if (node.href !== undefined) {
    const path = hrefPath(node.href);
    if (path !== '' && path.length <= MAX_HREF_CHARS) description.href = path;
  }
  if (indexed.container !== undefined) description.container = { ...indexed.container };
  return description;
}

/**
 * Describe node `nodeId` of a tree (or of an index built with {@link indexTree}); undefined
 * when the tree has no such node.
 */
export function describeTarget(tree: ScreenNode | TreeIndex, nodeId: string): TargetDescription | undefined {
  const index = 'byId' in tree ? tree : indexTree(tree);
  const indexed = index.byId.get(nodeId);
  return indexed === undefined ? undefined : describeIndexedNode(index, indexed);
}
