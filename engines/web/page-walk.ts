/**
 * The in-page observation: one function, serialized into the page and run by one
 * `evaluate` (no per-node round trips, no CDP accessibility dump). It walks the composed
 * tree (open shadow roots, slots, same-origin iframes), keeps what a user perceives, and
 * returns compact JSON. Everything it uses lives inside the function body or comes in as
 * `semantics` (see page-semantics.ts), whose source is sent along in the same evaluate.
 */
import type { PageSemantics } from './page-semantics.js';

/** Arguments of {@link walkPage}. */
export interface WalkArguments {
  /** Attribute holding test ids (`data-testid` by default). */
  testIdAttribute: string;
  /** The lowest id number this walk may hand out, so ids never repeat within an attempt. */
  firstId: number;
  /** Longest name or text kept, in characters. */
  textLimit: number;
  /** Longest value kept, in characters. */
  valueLimit: number;
  /** {@link STILL_GAP_MS}. */
  stillGapMs: number;
  /** A run of more than this many same-tag sibling elements is read in part (0: read everything). */
  maxRun: number;
  /** Read in full inside such runs: elements whose words contain one of these (lower case, whitespace collapsed). */
  includeText: string[];
  /** Read in full inside such runs: the elements these ids of the previous walk stand for. */
  includeIds: string[];
  /** {@link RUN_HEAD}, {@link RUN_TAIL}, {@link RUN_NEAR_VIEWPORT} (the walk sees only its arguments). */
  runHead: number;
  runTail: number;
  runNearViewport: number;
}

/** What a run read in part keeps besides the included: its first and last elements. */
export const RUN_HEAD = 20;
export const RUN_TAIL = 5;
/** Most elements near the viewport a run read in part keeps. */
export const RUN_NEAR_VIEWPORT = 60;

/**
 * Two box samples prove an element held still only this far apart on the page's animation
 * clock (see pointer-ready.ts): a sample read outside frames can come a few microseconds
 * before the next frame's time, and a CSS animation moves too little in between to show.
 */
export const STILL_GAP_MS = 8;

/** One node as the page returns it; short keys keep the JSON small. */
export interface WalkedNode {
  /** id */
  i: string;
  /** role */
  r: string;
  /** name */
  n: string;
  /** text */
  t?: string;
  /** value */
  v?: string;
  /** test id */
  d?: string;
  /** href (absolute) */
  h?: string;
  /** placeholder */
  p?: string;
  /** states bitmask: checked 1, disabled 2, selected 4, expanded 8, pressed 16, focused 32, secure 64 */
  s: number;
  /** rect: x, y, width, height (integers) */
  b?: [number, number, number, number];
  /** children */
  c?: WalkedNode[];
  /**
   * On a placeholder (role `omitted`): how many siblings it stands for, their role, the first's
   * and the last's words, and the included texts some of them hold (left out past the cap).
   */
  o?: [number, string, string, string] | [number, string, string, string, string[]];
}

/** What the walk returns (after `JSON.parse`). */
export interface WalkResult {
  root: WalkedNode;
  title: string;
  /** The next id number, for the following walk. */
  nextId: number;
  /** The viewport's width and height. */
  viewport: [number, number];
  /** True when more elements matched `includeText` in one run than `maxRun`: some were left out. */
  partial?: boolean;
}

/**
 * Walk the page and return a JSON string of {@link WalkResult}. Runs inside the browser.
 * `watch` is told of every open shadow root and same-origin frame document it enters.
 * Ids live in a per-document WeakMap under `Symbol.for('e2e.observer')` (the global symbol
 * registry is shared by all realms), so an element keeps its id for as long as it lives.
 */
export function walkPage(args: WalkArguments, semantics: PageSemantics, watch: (root: Node) => void = () => undefined): string {
  interface IdState {
    ids: WeakMap<Node, string>;
    elements: Map<string, Node>;
    counter: { next: number };
    /** Top document only: the exact box each element id had in the latest walk (see pointer-ready.ts). */
    boxes?: Map<string, [number, number, number, number]>;
    /** Top document only: whether a frame was drawn since the latest walk, at a later clock time. */
    frameSinceWalk?: { seen: boolean };
    /** By a long run's first element: which of its elements held the included texts, while nothing under their parent changed. */
    included?: WeakMap<Element, IncludedRun>;
    /**
     * Top document only: the elements of the run being planned (see `plannedChildren`) and its
     * keep marks, kept from walk to walk and emptied after each use. A run of 200,000 rows made
     * fresh arrays of that size on every walk: garbage that brought on the page's major garbage
     * collections, each tracing every node of such a page (hundreds of milliseconds).
     */
    runBuffer?: Array<Element | null>;
    keepBuffer?: Uint8Array;
    /** Top document only: parents proven to hold one run of all their children (see `wholeRunOf`), while none came or went. */
    wholeRuns?: WeakMap<Element, { watch: MutationObserver; changed: boolean }>;
  }
  interface IncludedRun {
    key: string;
    found: Set<Element>;
    length: number;
    last: Element;
    changed: boolean;
    watch: MutationObserver;
  }
  interface Fragment {
    text: string;
    source: Text | null;
    scope: Scope;
  }
  type Item = WalkedNode | Fragment | null;
  interface Scope {
    state: IdState;
    view: Window;
    offsetX: number;
    offsetY: number;
  }

  const { FULL_CONTENT, OWN_TEXT, COLLAPSED, INTERACTIVE, SKIPPED_TAGS, collapse, referencedText, roleOf, nativeName } = semantics;
  const stateKey = Symbol.for('e2e.observer');
  const stateHost = window as unknown as Record<symbol, IdState | undefined>;
  const topState: IdState = stateHost[stateKey] ?? { ids: new WeakMap(), elements: new Map(), counter: { next: args.firstId } };
  stateHost[stateKey] = topState;
  topState.counter.next = Math.max(topState.counter.next, args.firstId);
  const previousElements = topState.elements;
  topState.elements = new Map();
  const boxes = new Map<string, [number, number, number, number]>();
  topState.boxes = boxes;

  const itemsByNode = new WeakMap<WalkedNode, Item[]>();
  const leafContent = new WeakMap<WalkedNode, string>();
  const contentMemo = new WeakMap<WalkedNode, string>();
  const consumed = new WeakSet<Element>();

  const clip = (text: string, limit: number): string => (text.length > limit ? text.slice(0, limit - 1) + '…' : text);

  const idFor = (state: IdState, node: Node): string => {
    let id = state.ids.get(node);
    if (id === undefined) {
      id = 'n' + String(state.counter.next++);
      state.ids.set(node, id);
    }
    state.elements.set(id, node);
    return id;
  };

  // The focused element, followed through shadow roots and same-origin iframes.
  let focused: Element | null = document.activeElement;
  for (;;) {
    if (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
    else if (focused?.localName === 'iframe' && (focused as HTMLIFrameElement).contentDocument?.activeElement) focused = (focused as HTMLIFrameElement).contentDocument?.activeElement ?? null;
    else break;
  }

  // Runs read in part keep what holds the focus or an included id: those elements and their ancestors.
  const kept = new Set<Node>();
  const keepWithAncestors = (start: Node | null | undefined): void => {
    for (let node: Node | null | undefined = start; node !== null && node !== undefined && !kept.has(node); ) {
      kept.add(node);
      const parent: Node | null = node.parentNode;
      if (parent === null) node = null;
      else if (parent.nodeType === 11) node = (parent as ShadowRoot).host ?? null;
      else if (parent.nodeType === 9) node = (parent as Document).defaultView?.frameElement ?? null;
      else node = parent;
    }
  };
  if (args.maxRun > 0) {
    keepWithAncestors(focused);
    for (const id of args.includeIds) keepWithAncestors(previousElements.get(id));
  }
  let partial = false;
  /** A run's element left out past the cap though its words hold an included text (see `plannedChildren`). */
  const LEFT_OUT_HOLDING = 2;
  let placeholders = 0;
  const WORD_ATTRIBUTES = ['aria-label', 'title', 'alt', 'placeholder', 'value', args.testIdAttribute];

  /** The words an element and its descendants could be found by, as `find` compares them. */
  const findableWords = (element: Element): string => {
    const parts = [element.textContent ?? ''];
    const addOwn = (each: Element): void => {
      // Most rows of a long list carry no attribute: one call instead of seven.
      if (each.hasAttributes()) {
        for (const name of WORD_ATTRIBUTES) {
          const value = each.getAttribute(name);
          if (value !== null && value !== '') parts.push(value);
        }
        if (each.hasAttribute('aria-labelledby')) parts.push(referencedText(each, 'aria-labelledby'));
      }
      const tag = each.localName;
      if (tag === 'input' || tag === 'textarea' || tag === 'select') parts.push((each as HTMLInputElement).value);
    };
    addOwn(element);
    if (element.firstElementChild !== null) for (const each of Array.from(element.querySelectorAll('*'))) addOwn(each);
    return collapse(parts.join(' ')).toLowerCase();
  };

  /**
   * Each included text as a pattern over raw text: case folded (`iu`), each space standing for a
   * run of whitespace. Wherever `collapse(text).toLowerCase()` holds the included text, the raw
   * text matches it (case folding equates what lower-casing does, final sigma included); the one
   * lower-casing folding does not follow, `İ` to `i̇`, is let through by {@link mayHoldIncluded}.
   * Undefined when an included text holds U+0307 (the dot of that `i̇`): then every element is
   * tested on its words.
   */
  const includePatterns = args.includeText.some((needle) => needle.includes('\u0307'))
    ? undefined
    : args.includeText.map((needle) => new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'), 'iu'));
  /** Whether a stretch of raw text may hold an included text (never false where one of its elements' words does). */
  const mayHoldIncluded = (text: string): boolean => includePatterns === undefined || text.includes('\u0130') || includePatterns.some((pattern) => pattern.test(text));
  /** Elements whose words are not only their text (word attributes, form values). */
  const wordHolders = [...WORD_ATTRIBUTES, 'aria-labelledby'].map((name) => `[${CSS.escape(name)}]`).join(',') + ',input,textarea,select';

  /** Whether `document.evaluate` is the browser's own (a page may replace it). */
  const nativeEvaluate = (document: Document | null): document is Document =>
    document !== null && typeof document.evaluate === 'function' && /\[native code\]/.test(Function.prototype.toString.call(document.evaluate));
  /** Whether `MutationObserver` is the browser's own, so an observer of the walk's own sees every change. */
  const nativeObserver = (): boolean => typeof MutationObserver === 'function' && /\[native code\]/.test(Function.prototype.toString.call(MutationObserver));
  /** A string as an XPath literal. */
  const quoted = (text: string): string =>
    !text.includes("'") ? `'${text}'` : !text.includes('"') ? `"${text}"` : `concat(${text.split("'").map((part) => `'${part}'`).join(`, "'", `)})`;

  /** Most matches of the included texts in one run's whole text that {@link textHoldersOf} looks up. */
  const MAX_TEXT_MATCHES = 200;
  /**
   * The children of `parent` whose text may hold an included text, found without a string per
   * child (200,000 short-lived strings make the page collect garbage for a second): every match of
   * the included texts' patterns in the whole text, at every position, and then the browser's own
   * XPath `contains` over the children for those exact strings (and `İ`, which {@link mayHoldIncluded}
   * lets through). A child's text is a stretch of the whole, and a pattern of words with single
   * spaces between matches the same string wherever it starts, so a child's text matches a pattern
   * exactly when it holds one of those strings. Undefined (test each child) when the parent is no
   * element, the page replaced `document.evaluate`, a text is not of that shape, or the whole holds
   * more than {@link MAX_TEXT_MATCHES} matches.
   */
  const textHoldersOf = (parent: Node, whole: string): Set<Element> | undefined => {
    const document = parent.ownerDocument;
    if (parent.nodeType !== 1 || includePatterns === undefined || !nativeEvaluate(document)) return undefined;
    if (!args.includeText.every((needle) => /^\S(?:.*\S)?$/su.test(needle) && !/[^\S ]| {2}/u.test(needle))) return undefined;
    const literals = new Set<string>();
    if (whole.includes('\u0130')) literals.add('\u0130');
    let matches = 0;
    for (const pattern of includePatterns) {
      const every = new RegExp(pattern.source, 'giu');
      for (let match = every.exec(whole); match !== null; match = every.exec(whole)) {
        if (++matches > MAX_TEXT_MATCHES) return undefined;
        literals.add(match[0]);
        // On from the next code point, so matches starting inside this one are found too.
        const high = whole.charCodeAt(match.index);
        const low = whole.charCodeAt(match.index + 1);
        every.lastIndex = match.index + (high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff ? 2 : 1);
      }
    }
    const found = new Set<Element>();
    if (literals.size === 0) return found;
    const expression = `./*[${Array.from(literals, (literal) => `contains(., ${quoted(literal)})`).join(' or ')}]`;
    // 7: ORDERED_NODE_SNAPSHOT_TYPE (the constant of the element's own window).
    const result = document.evaluate(expression, parent, null, 7, null);
    for (let index = 0; index < result.snapshotLength; index++) found.add(result.snapshotItem(index) as Element);
    return found;
  };

  /** What may change an element's words unseen by a mutation observer: form values, labels referenced from elsewhere. */
  const UNWATCHABLE = 'input,textarea,select,[aria-labelledby]';
  /**
   * Whether the words of `element`, one of a long run of `parent`'s children, hold an included
   * text. The test on the words is exact; a run whose whole text cannot hold one (one read of
   * the parent's text) tests only the elements carrying word attributes or form values, and an
   * element whose own text cannot hold one is not tested further, so a read makes one string per
   * element at most, not the several that become garbage to collect on a list of 200,000 rows.
   * Gives `test`, and when known `candidates` (the only children of the parent that may hold
   * one, found natively) and `unwatchable` (whether anything under the parent matches
   * {@link UNWATCHABLE}; such elements are word holders too).
   */
  const includedTest = (parent: Node): { test: (element: Element) => boolean; candidates?: Set<Element>; unwatchable?: boolean } => {
    const exact = (element: Element): boolean => {
      const words = findableWords(element);
      return args.includeText.some((needle) => words.includes(needle));
    };
    if (includePatterns === undefined) return { test: exact };
    const whole = parent.textContent;
    let unwatchable: boolean | undefined;
    const holdersIn = (): Set<Element> => {
      const holders = new Set<Element>();
      if (parent.nodeType === 1 || parent.nodeType === 11) {
        const found = Array.from((parent as ParentNode).querySelectorAll(wordHolders));
        // Every element matching UNWATCHABLE is among them: a few are asked, many leave the question to the caller.
        if (found.length <= 1000) unwatchable = found.some((holder) => holder.matches(UNWATCHABLE));
        for (const holder of found) {
          let child: Node = holder;
          while (child.parentNode !== null && child.parentNode !== parent) child = child.parentNode;
          if (child.nodeType === 1) holders.add(child as Element);
        }
      }
      return holders;
    };
    // Found natively, or none (the whole holds no included text): only those and the word holders are tested.
    const textHolders = whole === null ? undefined : textHoldersOf(parent, whole);
    if (textHolders === undefined && whole !== null && !mayHoldIncluded(whole)) {
      const holders = holdersIn();
      return { test: (element) => holders.has(element) && exact(element), candidates: holders, ...(unwatchable === undefined ? {} : { unwatchable }) };
    }
    if (textHolders !== undefined) {
      const candidates = holdersIn();
      for (const element of textHolders) candidates.add(element);
      return { test: (element) => candidates.has(element) && exact(element), candidates, ...(unwatchable === undefined ? {} : { unwatchable }) };
    }
    const test = (element: Element): boolean => {
      if (mayHoldIncluded(element.textContent ?? '')) return exact(element);
      // Words beyond the text (word attributes, form values): rows of long lists rarely carry any.
      const tag = element.localName;
      if (element.firstElementChild === null && !element.hasAttributes() && tag !== 'input' && tag !== 'textarea' && tag !== 'select') return false;
      return (element.matches(wordHolders) || element.querySelector(wordHolders) !== null) && exact(element);
    };
    return { test };
  };

  /**
   * The elements of a long run whose words hold an included text. Kept for the next walks while
   * nothing under the run's parent changes (a mutation observer of its own says so; one that
   * fires stops watching), so the screens after an action that changed something else (a status
   * line) do not read 200,000 texts again. Not kept where words could change unseen: a form
   * value, a label referenced from elsewhere, or a page whose MutationObserver is not the browser's.
   */
  const includedIn = (parent: Node, at: (index: number) => Element, length: number, wholeRun: boolean, state: IdState): Set<Element> => {
    const key = args.includeText.join('\n');
    const runs = (state.included ??= new WeakMap<Element, IncludedRun>());
    const first = at(0);
    const last = at(length - 1);
    const cached = runs.get(first);
    if (cached !== undefined) {
      if (cached.watch.takeRecords().length > 0) cached.changed = true;
      if (!cached.changed && cached.key === key && cached.length === length && cached.last === last) return cached.found;
      cached.watch.disconnect();
      runs.delete(first);
    }
    const { test, candidates, unwatchable } = includedTest(parent);
    const found = new Set<Element>();
    // The candidates are children of the parent; in a run of all its children, only they need the test.
    if (wholeRun && candidates !== undefined) {
      for (const element of candidates) if (test(element)) found.add(element);
    } else {
      for (let index = 0; index < length; index++) {
        const element = at(index);
        if (test(element)) found.add(element);
      }
    }
    if (nativeObserver() && (parent.nodeType === 1 || parent.nodeType === 11) && !(unwatchable ?? (parent as ParentNode).querySelector(UNWATCHABLE) !== null)) {
      const watch = new MutationObserver(() => {
        entry.changed = true;
        watch.disconnect();
      });
      const entry: IncludedRun = { key, found, length, last, changed: false, watch };
      watch.observe(parent, { subtree: true, childList: true, characterData: true, attributes: true });
      runs.set(first, entry);
    }
    return found;
  };

  /** Words shown for a left-out element on its placeholder: a hint, clipped. */
  const hintOf = (element: Element): string => clip(collapse(element.getAttribute('aria-label') ?? element.textContent ?? ''), 60);

  /**
   * The element children of `parent` when they are all its children and all of one tag: one run
   * that needs no look at each child (no JS object made for each of 200,000 rows). Undefined (go
   * child by child) for any text or comment child, for a parent that is no element, or where the
   * page replaced `document.evaluate`. XPath's local-name() is the exact `localName`, as the walk
   * compares them. The proof holds for the next walks while a mutation observer of the walk's
   * own sees no child come or go (a child's tag never changes).
   */
  const wholeRunOf = (parent: Node, count: number): HTMLCollection | undefined => {
    if (parent.nodeType !== 1) return undefined;
    const element = parent as Element;
    const proven = (topState.wholeRuns ??= new WeakMap());
    const earlier = proven.get(element);
    if (earlier !== undefined) {
      if (earlier.watch.takeRecords().length > 0) earlier.changed = true;
      if (!earlier.changed) return element.children;
      earlier.watch.disconnect();
      proven.delete(element);
    }
    if (element.childNodes.length !== count || !nativeEvaluate(element.ownerDocument)) return undefined;
    const tag = element.firstElementChild!.localName;
    // 9: FIRST_ORDERED_NODE_TYPE.
    const other = element.ownerDocument.evaluate(`./*[local-name() != ${quoted(tag)}]`, element, null, 9, null).singleNodeValue;
    if (other !== null) return undefined;
    if (nativeObserver()) {
      const watch = new MutationObserver(() => {
        entry.changed = true;
        watch.disconnect();
      });
      const entry = { watch, changed: false };
      watch.observe(element, { childList: true });
      proven.set(element, entry);
    }
    return element.children;
  };

  /** Most elements of a whole run (see {@link wholeRunOf}) that are found by a search each; past that, the run is gone through. */
  const MAX_SEARCHED = 64;
  /** The index of `element` among `children`, a search in document order; -1 when not there. */
  const indexAmong = (children: HTMLCollection, element: Element): number => {
    let low = 0;
    let high = children.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const at = children[middle]!;
      if (at === element) return middle;
      // 4: DOCUMENT_POSITION_FOLLOWING.
      if ((at.compareDocumentPosition(element) & 4) !== 0) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  };

  /**
   * Into `planned`: a run of more than `maxRun` same-tag elements (`at(0)` … `at(length - 1)`, all
   * of the parent's children when `whole` is given), reading its first and last, those near the
   * viewport, those holding the focus or an included id, and those whose words contain an
   * included text; each stretch left out becomes one placeholder.
   */
  const planRun = (parent: Node, at: (index: number) => Element, length: number, whole: HTMLCollection | undefined, scope: Scope, planned: Array<Node | WalkedNode>): void => {
    // 1: read; 0: left out; LEFT_OUT_HOLDING: left out though its words hold an included text.
    // The marks go into a buffer kept from walk to walk (no array per run or walk).
    if (topState.keepBuffer === undefined || topState.keepBuffer.length < length) topState.keepBuffer = new Uint8Array(length);
    const keep = topState.keepBuffer;
    keep.fill(0, 0, length);
    for (let index = 0; index < Math.min(args.runHead, length); index++) keep[index] = 1;
    for (let index = Math.max(0, length - args.runTail); index < length; index++) keep[index] = 1;
    // Near the viewport: the first element reaching down to one screen above it (the run is laid
    // out top to bottom), then on until one screen below it.
    const height = scope.view.innerHeight;
    let low = 0;
    let high = length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (at(middle).getBoundingClientRect().bottom + scope.offsetY < -height) low = middle + 1;
      else high = middle;
    }
    for (let index = low, near = 0; index < length && near < args.runNearViewport; index++, near++) {
      if (at(index).getBoundingClientRect().top + scope.offsetY > 2 * height) break;
      keep[index] = 1;
    }
    const included = args.includeText.length > 0 ? includedIn(parent, at, length, whole !== undefined, scope.state) : undefined;
    // More elements hold included texts than a run reads: each text gets at most maxRun of its
    // holders read (in document order), so a text few rows hold is never crowded out by one that
    // many hold; a holder of only texts past their cap is left out, and remembered with them.
    const capped = included !== undefined && included.size > args.maxRun;
    const holders = new Map<string, number>();
    const leftHolding = new Map<number, string[]>();
    const look = (index: number, element: Element): void => {
      if (kept.has(element)) keep[index] = 1;
      else if (keep[index] === 0 && included !== undefined && included.has(element)) {
        if (!capped) {
          keep[index] = 1;
          return;
        }
        const words = findableWords(element);
        const held = args.includeText.filter((needle) => words.includes(needle));
        if (held.length === 0 || held.some((needle) => (holders.get(needle) ?? 0) < args.maxRun)) keep[index] = 1;
        else {
          keep[index] = LEFT_OUT_HOLDING;
          leftHolding.set(index, held);
          partial = true;
        }
        for (const needle of held) holders.set(needle, (holders.get(needle) ?? 0) + 1);
      }
    };
    // Only elements kept or included need a look; in a whole run, a few are found by a search
    // each (in document order, as a look at every element would take them).
    if (kept.size > 0 || (included !== undefined && included.size > 0)) {
      const searched: Element[] = [];
      if (whole !== undefined) {
        for (const node of kept) if (node.parentNode === parent && node.nodeType === 1) searched.push(node as Element);
        for (const element of included ?? []) if (!kept.has(element)) searched.push(element);
      }
      if (whole !== undefined && searched.length <= MAX_SEARCHED) {
        const indexes: number[] = [];
        for (const element of searched) {
          const index = indexAmong(whole, element);
          if (index >= 0 && !indexes.includes(index)) indexes.push(index);
        }
        indexes.sort((left, right) => left - right);
        for (const index of indexes) look(index, at(index));
      } else for (let index = 0; index < length; index++) look(index, at(index));
    }
    for (let index = 0; index < length; ) {
      if (keep[index] === 1) {
        planned.push(at(index));
        index++;
        continue;
      }
      const start = index;
      const holding = new Set<string>();
      for (; index < length && keep[index] !== 1; index++) {
        if (keep[index] !== LEFT_OUT_HOLDING) continue;
        for (const needle of leftHolding.get(index)!) holding.add(needle);
      }
      const first = at(start);
      const last = at(index - 1);
      const omitted: [number, string, string, string] = [index - start, roleOf(first, first.localName), hintOf(first), hintOf(last)];
      const held = args.includeText.filter((needle) => holding.has(needle));
      planned.push({ i: 'omitted' + String(++placeholders), r: 'omitted', n: '', s: 0, o: held.length === 0 ? omitted : [...omitted, held] });
    }
  };

  /**
   * The children of `parent` to visit: all of them, except that a run of more than `maxRun`
   * same-tag elements is read in part (see {@link planRun}).
   */
  const plannedChildren = (parent: Node, scope: Scope): Array<Node | WalkedNode> | null => {
    // Counting walks the children: not when every run is read whole.
    if (args.maxRun <= 0) return null;
    const count = (parent as Element | DocumentFragment).childElementCount;
    if (count === undefined || count <= args.maxRun) return null;
    const planned: Array<Node | WalkedNode> = [];
    const whole = wholeRunOf(parent, count);
    if (whole !== undefined) {
      planRun(parent, (index) => whole[index]!, count, whole, scope, planned);
      return planned;
    }
    // Child by child: a run's elements go into a buffer kept from walk to walk (no array per run
    // or walk), made once at its full size; `length` of them count.
    if (topState.runBuffer === undefined || topState.runBuffer.length < count) topState.runBuffer = new Array<Element | null>(count).fill(null);
    const run = topState.runBuffer;
    const at = (index: number): Element => run[index]!;
    let length = 0;
    let used = 0;
    const flush = (): void => {
      used = Math.max(used, length);
      if (length <= args.maxRun) for (let index = 0; index < length; index++) planned.push(run[index]!);
      else planRun(parent, at, length, undefined, scope, planned);
      length = 0;
    };
    try {
      for (let child = parent.firstChild; child !== null; child = child.nextSibling) {
        if (child.nodeType === 1) {
          const element = child as Element;
          if (length > 0 && run[0]!.localName !== element.localName) flush();
          run[length++] = element;
        } else if (child.nodeType === 3 && !/\S/.test((child as Text).data)) {
          // Whitespace between the elements of a run belongs to the run.
          if (length === 0) planned.push(child);
        } else {
          flush();
          planned.push(child);
        }
      }
      flush();
    } finally {
      // The buffer keeps no element past its use (the page may drop them).
      run.fill(null, 0, Math.max(used, length));
    }
    return planned;
  };

  const contentOfItems = (items: Item[]): string => {
    const parts: string[] = [];
    let run = '';
    for (const item of items) {
      if (item === null) {
        parts.push(run);
        run = '';
      } else if ('text' in item) run += item.text;
      else {
        parts.push(run, contentOfNode(item));
        run = '';
      }
    }
    parts.push(run);
    return collapse(parts.join(' '));
  };

  /** The words of a walked node, its nested nodes' first (a stack, not recursion: content may nest deep). */
  const contentOfNode = (node: WalkedNode): string => {
    // Most nodes asked for are known, words or controls: no stack for those.
    const memo = contentMemo.get(node);
    if (memo !== undefined) return memo;
    const leaf = node.r === 'text' ? node.n : leafContent.get(node);
    if (leaf !== undefined) {
      contentMemo.set(node, leaf);
      return leaf;
    }
    const pending: WalkedNode[] = [node];
    while (pending.length > 0) {
      const current = pending[pending.length - 1]!;
      if (contentMemo.has(current)) {
        pending.pop();
        continue;
      }
      const leaf = leafContent.get(current);
      if (current.r === 'text' || leaf !== undefined) {
        contentMemo.set(current, current.r === 'text' ? current.n : leaf!);
        pending.pop();
        continue;
      }
      const items = itemsByNode.get(current) ?? [];
      let waiting = false;
      for (const item of items) {
        if (item !== null && !('text' in item) && !contentMemo.has(item)) {
          pending.push(item);
          waiting = true;
        }
      }
      if (waiting) continue;
      contentMemo.set(current, contentOfItems(items));
      pending.pop();
    }
    return contentMemo.get(node)!;
  };

  // Fragments between nodes and breaks become `text` nodes; ids and rects come later (assignTextIds).
  const textSources = new WeakMap<WalkedNode, { first: Fragment; last: Fragment }>();
  const assignTextIds = (nodes: WalkedNode[]): void => {
    for (const node of nodes) {
      const run = textSources.get(node);
      if (run === undefined || run.first.source === null || run.last.source === null) continue;
      node.i = idFor(run.first.scope.state, run.first.source);
      const range = run.first.source.ownerDocument.createRange();
      range.setStart(run.first.source, 0);
      range.setEnd(run.last.source, run.last.source.length);
      const box = range.getBoundingClientRect();
      if (box.width > 0 && box.height > 0) node.b = rectOf(box, run.first.scope);
    }
  };
  const textNodes = (items: Item[]): WalkedNode[] => {
    const nodes: WalkedNode[] = [];
    let run = '';
    let first: Fragment | null = null;
    let last: Fragment | null = null;
    const flush = (): void => {
      const text = collapse(run);
      if (text !== '' && first !== null && last !== null) {
        const node: WalkedNode = { i: '', r: 'text', n: clip(text, args.textLimit), s: 0 };
        textSources.set(node, { first, last });
        nodes.push(node);
      }
      run = '';
      first = null;
      last = null;
    };
    for (const item of items) {
      if (item === null) flush();
      else if ('text' in item) {
        run += item.text;
        if (item.source !== null) {
          if (first === null) first = item;
          last = item;
        }
      } else {
        flush();
        nodes.push(item);
      }
    }
    flush();
    return nodes;
  };

  const ownText = (items: Item[]): string => {
    let text = '';
    for (const item of items) if (item === null) text += ' ';
    else if ('text' in item) text += item.text;
    return collapse(text);
  };

  const rectOf = (rect: DOMRect, scope: Scope): [number, number, number, number] => [
    Math.round(rect.left + scope.offsetX),
    Math.round(rect.top + scope.offsetY),
    Math.round(rect.width),
    Math.round(rect.height),
  ];

  // The walk keeps its own stack of work, never the call stack: a page may nest thousands of
  // elements deep (each level was three calls) or hold hundreds of thousands of siblings.
  // Its entries are plain records of one shape, reused by stack position, with no closures: a
  // closure and a record per element made the walk ~10-25% dearer in CPU than the recursive one.
  /** Visit `next` and the siblings after it, each into `out`. */
  const SIBLINGS = 0;
  /** Visit `list` (a slot's assigned nodes, a `<details>` summary, a planned run) from `index`. */
  const LIST = 1;
  /** Finish `element` (see {@link finishElement}) once its children were visited. */
  const FINISH = 2;
  /** End a block of words in `out`. */
  const BREAK = 3;
  /** A label naming its control: only the nodes nested in it (`items`) go to `out`, then a break unless `inline`. */
  const NESTED = 4;
  /** One entry of the stack; which fields count depends on `kind`. */
  interface Task {
    kind: number;
    next: Node | null;
    list: ReadonlyArray<Node | WalkedNode> | null;
    index: number;
    /** Where the visited nodes or the finished element go. */
    out: Item[];
    scope: Scope;
    /** Whether the parent of the nodes visited is visible; for FINISH, whether the element is. */
    visible: boolean;
    element: Element | null;
    tag: string;
    role: string;
    testId: string | null;
    display: string;
    box: DOMRect | null;
    hasArea: boolean;
    walked: WalkedNode | null;
    /** FINISH: the element's children as visited; NESTED: the label's. */
    items: Item[] | null;
    inline: boolean;
  }
  const tasks: Task[] = [];
  let depth = 0;
  /** Put an entry on the stack, reusing the one an earlier entry at that position left. */
  const pushTask = (kind: number, out: Item[], scope: Scope, visible: boolean): Task => {
    let task: Task;
    if (depth === tasks.length) {
      task = { kind, next: null, list: null, index: 0, out, scope, visible, element: null, tag: '', role: '', testId: null, display: '', box: null, hasArea: false, walked: null, items: null, inline: false };
      tasks.push(task);
    } else {
      task = tasks[depth]!;
      task.kind = kind;
      task.out = out;
      task.scope = scope;
      task.visible = visible;
    }
    depth++;
    return task;
  };

  const visitChildren = (parent: Node, out: Item[], scope: Scope, visible: boolean): void => {
    const planned = plannedChildren(parent, scope);
    if (planned !== null) {
      visitList(planned, out, scope, visible);
      return;
    }
    const first = parent.firstChild;
    if (first === null) return;
    // A lone text child (most links, buttons and inline words) is taken at once: no entry on the stack.
    if (first.nodeType === 3 && first.nextSibling === null) visitNode(first, out, scope, visible);
    else pushTask(SIBLINGS, out, scope, visible).next = first;
  };
  const visitList = (list: ReadonlyArray<Node | WalkedNode>, out: Item[], scope: Scope, visible: boolean): void => {
    const task = pushTask(LIST, out, scope, visible);
    task.list = list;
    task.index = 0;
  };

  // Light children when there is no shadow root; the shadow tree (with slots) when there is.
  const visitComposedChildren = (element: Element, out: Item[], scope: Scope, visible: boolean): void => {
    if (element.localName === 'slot') {
      const assigned = (element as HTMLSlotElement).assignedNodes();
      if (assigned.length > 0) {
        visitList(assigned, out, scope, visible);
        return;
      }
    }
    if (element.shadowRoot !== null) watch(element.shadowRoot);
    visitChildren(element.shadowRoot ?? element, out, scope, visible);
  };

  // Same-origin iframe content, nested under the iframe node, in top-viewport coordinates.
  const visitFrame = (frame: HTMLIFrameElement, box: DOMRect, out: Item[], scope: Scope): void => {
    let frameDocument: Document | null = null;
    try {
      frameDocument = frame.contentDocument;
    } catch {
      frameDocument = null;
    }
    const frameView = frameDocument?.defaultView;
    if (frameDocument?.body === null || frameDocument?.body === undefined || frameView === null || frameView === undefined) return;
    watch(frameDocument);
    const frameHost = frameView as unknown as Record<symbol, IdState | undefined>;
    const frameState: IdState = frameHost[stateKey] ?? { ids: new WeakMap(), elements: new Map(), counter: topState.counter };
    frameHost[stateKey] = frameState;
    frameState.counter = topState.counter;
    frameState.elements = new Map();
    const frameStyle = scope.view.getComputedStyle(frame);
    const frameScope: Scope = {
      state: frameState,
      view: frameView,
      offsetX: box.left + scope.offsetX + frame.clientLeft + parseFloat(frameStyle.paddingLeft),
      offsetY: box.top + scope.offsetY + frame.clientTop + parseFloat(frameStyle.paddingTop),
    };
    visitChildren(frameDocument.body, out, frameScope, true);
  };

  /** Visit one node: text is taken at once; an element queues its children, then its own finish. */
  const visitNode = (node: Node, out: Item[], scope: Scope, parentVisible: boolean): void => {
    if (node.nodeType === 3) {
      if (parentVisible) {
        const data = (node as Text).data;
        if (/\S/.test(data)) out.push({ text: data, source: node as Text, scope });
        else if (data.length > 0) out.push({ text: ' ', source: null, scope });
      }
      return;
    }
    if (node.nodeType !== 1) return;
    const element = node as Element;
    const tag = element.localName;
    if (SKIPPED_TAGS.has(tag)) {
      if (tag === 'br') out.push(null);
      return;
    }
    if (element.getAttribute('aria-hidden') === 'true' || consumed.has(element)) return;
    let role = roleOf(element, tag);
    const testId = element.getAttribute(args.testIdAttribute);
    const style = scope.view.getComputedStyle(element);
    const display = style.display;
    if (display === 'none') return;
    const visible = style.visibility === 'visible';
    // Inline boxes (inline-block, inline-flex…) are boxes of their own: their words form a separate run.
    const inline = display === 'inline' || display === 'contents';
    // A role-less modal overlay (a fixed layer over the whole viewport, stacked above the rest, holding
    // content) is a dialog in all but name: a container its controls are found in, as with a dialog role.
    // A fixed element's display is blockified (never inline…): most wrappers need no position read.
    if (role === 'generic' && !display.startsWith('inline') && element.getAttribute('role') === null && style.position === 'fixed' && Number.parseInt(style.zIndex, 10) > 0 && element.childElementCount > 0) {
      const layer = element.getBoundingClientRect();
      if (layer.width >= scope.view.innerWidth * 0.9 && layer.height >= scope.view.innerHeight * 0.9) role = 'dialog';
    }
    if (COLLAPSED.has(role) && testId === null) {
      // Wrappers only need the zero-size check, and inline boxes never clip.
      // The overflow first: most wrappers do not clip, and then their size needs no layout read.
      if (display !== 'inline' && display !== 'contents' && tag !== 'slot' && style.overflow !== 'visible') {
        const html = element as HTMLElement;
        const empty = html.offsetWidth === undefined ? element.getClientRects().length === 0 : html.offsetWidth === 0 || html.offsetHeight === 0;
        if (empty) return;
      }
      if (!inline) out.push(null);
      const control = tag === 'label' ? (element as HTMLLabelElement).control : null;
      if (control !== null && control.getClientRects().length > 0) {
        // The label names its control; keep only nested nodes, not its words.
        const nested: Item[] = [];
        const task = pushTask(NESTED, out, scope, visible);
        task.items = nested;
        task.inline = inline;
        visitComposedChildren(element, nested, scope, visible);
        return;
      }
      const end = inline ? null : pushTask(BREAK, out, scope, visible);
      if (tag === 'details' && !(element as HTMLDetailsElement).open) {
        const summary = element.querySelector(':scope > summary');
        if (summary !== null) visitList([summary], out, scope, visible);
      } else visitComposedChildren(element, out, scope, visible);
      // Nothing left to visit inside: end at once rather than through the stack.
      if (end !== null && tasks[depth - 1] === end) {
        depth--;
        out.push(null);
      }
      return;
    }
    const box = element.getBoundingClientRect();
    const hasArea = box.width > 0 && box.height > 0;
    if (!hasArea && display !== 'contents' && style.overflow !== 'visible') return;
    if (COLLAPSED.has(role)) role = 'generic';
    if (role === 'none') return;

    const walked: WalkedNode = { i: idFor(scope.state, element), r: role, n: '', s: 0 };
    const items: Item[] = [];
    if (tag === 'fieldset' || tag === 'table') {
      // The legend or caption names its group; it is not repeated as text.
      const caption = element.querySelector(tag === 'fieldset' ? ':scope > legend' : ':scope > caption');
      if (caption !== null) consumed.add(caption);
    }
    const finish = pushTask(FINISH, out, scope, visible);
    finish.element = element;
    finish.tag = tag;
    finish.role = role;
    finish.testId = testId;
    finish.display = display;
    finish.box = box;
    finish.hasArea = hasArea;
    finish.walked = walked;
    finish.items = items;
    if (role === 'iframe') visitFrame(element as HTMLIFrameElement, box, items, scope);
    else if (tag === 'select') {
      for (const option of Array.from((element as HTMLSelectElement).options)) {
        items.push({ i: idFor(scope.state, option), r: 'option', n: clip(collapse(option.label), args.textLimit), s: (option.selected ? 4 : 0) | (option.disabled ? 2 : 0) });
      }
    } else if (tag === 'details' && !(element as HTMLDetailsElement).open) {
      const summary = element.querySelector(':scope > summary');
      if (summary !== null) visitList([summary], items, scope, visible);
    } else if (role !== 'textbox' && tag !== 'textarea' && tag !== 'input') visitComposedChildren(element, items, scope, visible);
    // Nothing left to visit inside (a field, words only): finish at once rather than through the stack.
    if (tasks[depth - 1] === finish) {
      depth--;
      finishElement(finish);
    }
  };

  /** Whether an item is a node (not words, not a break). */
  const isNode = (item: Item): item is WalkedNode => item !== null && !('text' in item);
  const isInteractive = (node: WalkedNode): boolean => INTERACTIVE.has(node.r);

  /** An element once its children were visited (a FINISH entry): its name, states, value and children, into `out`. */
  const finishElement = (visited: Task): void => {
    const { tag, role, testId, visible, display, hasArea, out, scope } = visited;
    const element = visited.element!;
    const box = visited.box!;
    const walked = visited.walked!;
    const items = visited.items!;
    // Hidden or box-less elements stay only as structure for visible descendants.
    const hasDescendantNodes = items.some(isNode);
    if ((!visible || (!hasArea && display !== 'contents')) && !hasDescendantNodes) {
      for (const item of items) if (item !== null && 'text' in item && item.source !== null) out.push(item);
      return;
    }

    // Name, by accname precedence: labelledby, aria-label, native, content, title, placeholder.
    let name = element.hasAttribute('aria-labelledby') ? referencedText(element, 'aria-labelledby') : '';
    if (name === '') name = collapse(element.getAttribute('aria-label') ?? '');
    if (name === '') name = nativeName(element, tag);
    let nameFromContent = false;
    if (name === '' && FULL_CONTENT.has(role)) {
      name = contentOfItems(items);
      nameFromContent = true;
    } else if (name === '' && OWN_TEXT.has(role)) {
      name = ownText(items);
      nameFromContent = true;
    }
    if (name === '') name = collapse(element.getAttribute('title') ?? '');
    const placeholder = element.getAttribute('placeholder') ?? element.getAttribute('aria-placeholder');
    if (placeholder !== null && placeholder !== '') walked.p = clip(collapse(placeholder), args.textLimit);
    if (name === '' && walked.p !== undefined && (role === 'textbox' || role === 'searchbox' || role === 'combobox')) name = walked.p;
    // An unnamed image tells the reader nothing.
    if (role === 'img' && name === '') return;
    walked.n = clip(name, args.textLimit);
    itemsByNode.set(walked, items);

    let states = 0;
    const input = element as HTMLInputElement;
    const isToggle = tag === 'input' && (input.type === 'checkbox' || input.type === 'radio');
    if (isToggle ? input.checked : element.getAttribute('aria-checked') === 'true') states |= 1;
    const formControl = tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'fieldset';
    if (formControl ? element.matches(':disabled') : element.getAttribute('aria-disabled') === 'true') states |= 2;
    if (element.getAttribute('aria-selected') === 'true') states |= 4;
    if (element.getAttribute('aria-expanded') === 'true' || (tag === 'summary' && (element.parentElement as HTMLDetailsElement | null)?.open === true)) states |= 8;
    if (element.getAttribute('aria-pressed') === 'true') states |= 16;
    if (element === focused) states |= 32;
    const secure = tag === 'input' && input.type === 'password';
    if (secure) states |= 64;
    walked.s = states;

    // Value: a password field's value is never read.
    let value: string | undefined;
    if (!secure) {
      if (tag === 'input' && !isToggle && input.type !== 'submit' && input.type !== 'reset' && input.type !== 'button' && input.type !== 'image') {
        value = input.type === 'file' ? Array.from(input.files ?? [], (file) => file.name).join(', ') : input.value;
      } else if (tag === 'textarea') value = (element as HTMLTextAreaElement).value;
      else if (tag === 'select') value = Array.from((element as HTMLSelectElement).selectedOptions, (option) => option.label).join(', ');
      else if (tag === 'progress' || tag === 'meter') value = String((element as HTMLProgressElement).value);
      else if (role === 'textbox') value = collapse((element as HTMLElement).innerText ?? '');
      else if (element.hasAttribute('aria-valuetext') || element.hasAttribute('aria-valuenow')) value = element.getAttribute('aria-valuetext') ?? element.getAttribute('aria-valuenow') ?? '';
    }
    if (value !== undefined && value !== '') walked.v = clip(value, args.valueLimit);
    // Controls contribute their value (or name) to an enclosing name, never their inner DOM.
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || role === 'img' || role === 'textbox') leafContent.set(walked, value !== undefined && value !== '' ? value : walked.n);

    if (testId !== null && testId !== '') walked.d = testId;
    if (role === 'link') {
      // The browser resolves an anchor's href; other link elements are resolved by hand.
      const resolved = (element as HTMLAnchorElement).href;
      if (typeof resolved === 'string' && resolved !== '') walked.h = resolved;
      else {
        const href = element.getAttribute('href');
        if (href !== null) {
          try {
            walked.h = new URL(href, element.ownerDocument.baseURI).href;
          } catch {
            walked.h = href;
          }
        }
      }
    }
    if (hasArea) {
      walked.b = rectOf(box, scope);
      if (scope.state === topState) boxes.set(walked.i, [box.left, box.top, box.width, box.height]);
    }

    // Children: name-from-content roles keep only interactive descendants; containers keep text.
    let children: WalkedNode[];
    if (FULL_CONTENT.has(role)) {
      children = items.filter(isNode).filter(isInteractive);
      if (!nameFromContent) {
        const words = contentOfItems(items);
        if (words !== '' && words !== walked.n) walked.t = clip(words, args.textLimit);
      }
    } else if (OWN_TEXT.has(role) && nameFromContent && name.length <= args.textLimit) {
      children = items.filter(isNode);
    } else {
      children = textNodes(items);
      const only = children[0];
      if (children.length === 1 && only !== undefined && only.r === 'text' && role !== 'iframe') {
        walked.t = only.n;
        children = [];
      } else assignTextIds(children);
    }
    if (children.length > 0) walked.c = children;
    out.push(walked);
  };

  /** Run the queued work until none is left. */
  const drain = (): void => {
    while (depth > 0) {
      const task = tasks[depth - 1]!;
      const kind = task.kind;
      if (kind === SIBLINGS) {
        const node = task.next;
        if (node === null) depth--;
        else {
          task.next = node.nextSibling;
          visitNode(node, task.out, task.scope, task.visible);
        }
      } else if (kind === LIST) {
        const list = task.list!;
        if (task.index >= list.length) depth--;
        else {
          const node = list[task.index++]!;
          // A placeholder for a stretch of a run left out goes in as it is.
          if ((node as Partial<Node>).nodeType === undefined) task.out.push(node as WalkedNode);
          else visitNode(node as Node, task.out, task.scope, task.visible);
        }
      } else {
        // The entry is done with before anything can reuse it: finishing pushes no work.
        depth--;
        if (kind === FINISH) finishElement(task);
        else if (kind === BREAK) task.out.push(null);
        else {
          for (const item of task.items!) if (isNode(item)) task.out.push(item);
          if (!task.inline) task.out.push(null);
        }
      }
    }
  };

  const topScope: Scope = { state: topState, view: window, offsetX: 0, offsetY: 0 };
  const rootItems: Item[] = [];
  if (document.body !== null) {
    visitChildren(document.body, rootItems, topScope, true);
    drain();
  }
  const root: WalkedNode = { i: 'root', r: 'document', n: clip(collapse(document.title), args.textLimit), s: 0 };
  topState.elements.set('root', document.documentElement);
  const rootChildren = textNodes(rootItems);
  assignTextIds(rootChildren);
  if (rootChildren.length > 0) root.c = rootChildren;
  // A box that is the same after a later frame as in this walk held still across a frame. That
  // frame must run at least stillGapMs later on the animation clock: the walk can run at a
  // time just short of the next frame's, and that frame then shows nearly the walk's boxes.
  const frameSinceWalk = { seen: false };
  topState.frameSinceWalk = frameSinceWalk;
  const walkClock = Number(document.timeline.currentTime);
  let framesAsked = 0;
  const askFrame = (): void => {
    framesAsked++;
    requestAnimationFrame(() => {
      if (Number(document.timeline.currentTime) - walkClock >= args.stillGapMs) frameSinceWalk.seen = true;
      else if (framesAsked < 3) askFrame();
    });
  };
  askFrame();
  const result: WalkResult = { root, title: document.title, nextId: topState.counter.next, viewport: [window.innerWidth, window.innerHeight] };
  if (partial) result.partial = true;
  return JSON.stringify(result);
}
