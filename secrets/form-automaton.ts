/**
 * An Aho–Corasick automaton over the squeezed forms of every secret (squeezed-text.ts): one
 * pass over a text finds every form of every secret, in time linear in the text plus the
 * matches, and is built in time linear in the total length of the forms. No regular
 * expression is built from a secret, so a 64 KiB private key costs what its length costs.
 *
 * Besides whole forms it knows, per node, the longest suffix read so far that is a *start* of
 * a clippable form at least `clipFrom` long (a clipped copy before `…`/`...`) and the longest
 * that is a shorter start of the value itself (the piece an engine's clip may leave before `…`).
 */

/** One form to find. */
export interface FormPattern {
  /** The squeezed, folded form. */
  readonly codes: Uint16Array;
  /** Index of the secret it belongs to. */
  readonly secret: number;
  /** A start of the form at least this long, then an ellipsis, counts as a copy; undefined: never. */
  readonly clipFrom?: number | undefined;
  /** Starts shorter than `clipFrom` are pieces a clip before `…` must not leave. */
  readonly pieces?: boolean | undefined;
}

/** A span of the squeezed text (inclusive) that holds a form of `secret`; `secret` -1: a piece to drop. */
export interface FormMatch {
  start: number;
  end: number;
  secret: number;
  /** Length of the form found, to pick the placeholder of the longest among overlapping ones. */
  weight: number;
}

const NONE = -1;
const ROOT = 0;
const ELLIPSIS = 0x2026;
const DOT = 0x2e;

/** The automaton; see the file comment. */
export class FormAutomaton {
  readonly #character: Int32Array;
  readonly #firstChild: Int32Array;
  readonly #nextSibling: Int32Array;
  readonly #fail: Int32Array;
  readonly #depth: Int32Array;
  readonly #rootChild = new Int32Array(65536).fill(NONE);
  /** Longest whole form ending at the node (its own or through the failure chain). */
  readonly #matchSecret: Int32Array;
  readonly #matchLength: Int32Array;
  /** Nearest node on the failure chain that is a clippable start, and whose. */
  readonly #clipNear: Int32Array;
  readonly #clipSecret: Int32Array;
  /** Nearest node on the failure chain that is a short start of a value, and whose. */
  readonly #pieceNear: Int32Array;
  readonly #pieceSecret: Int32Array;

  constructor(patterns: readonly FormPattern[]) {
    let size = 1;
    for (const pattern of patterns) size += pattern.codes.length;
    this.#character = new Int32Array(size);
    this.#firstChild = new Int32Array(size).fill(NONE);
    this.#nextSibling = new Int32Array(size).fill(NONE);
    this.#fail = new Int32Array(size);
    this.#depth = new Int32Array(size);
    this.#matchSecret = new Int32Array(size).fill(NONE);
    this.#matchLength = new Int32Array(size);
    this.#clipNear = new Int32Array(size).fill(NONE);
    this.#clipSecret = new Int32Array(size).fill(NONE);
    this.#pieceNear = new Int32Array(size).fill(NONE);
    this.#pieceSecret = new Int32Array(size).fill(NONE);
    let nodes = 1;
    for (const pattern of patterns) {
      let node = ROOT;
      const length = pattern.codes.length;
      const clipFrom = pattern.clipFrom ?? Number.POSITIVE_INFINITY;
      for (let index = 0; index < length; index++) {
        const code = pattern.codes[index]!;
        let next = this.#child(node, code);
        if (next === NONE) {
          next = nodes++;
          this.#character[next] = code;
          this.#depth[next] = index + 1;
          if (node === ROOT) this.#rootChild[code] = next;
          this.#nextSibling[next] = this.#firstChild[node]!;
          this.#firstChild[node] = next;
        }
        node = next;
        const depth = index + 1;
        if (depth < length && depth >= clipFrom && this.#clipSecret[node] === NONE) this.#clipSecret[node] = pattern.secret;
        if (pattern.pieces === true && depth < length && depth < clipFrom && this.#pieceSecret[node] === NONE) this.#pieceSecret[node] = pattern.secret;
      }
      // Patterns come longest secret first: a form two secrets share names the longer one.
      if (length > 0 && this.#matchSecret[node] === NONE) {
        this.#matchSecret[node] = pattern.secret;
        this.#matchLength[node] = length;
      }
    }
    this.#link(nodes);
  }

  /** Failure links, breadth first, and the nearest-match links that ride on them. */
  #link(nodes: number): void {
    const queue = new Int32Array(nodes);
    let head = 0;
    let tail = 0;
    for (let child = this.#firstChild[ROOT]!; child !== NONE; child = this.#nextSibling[child]!) {
      this.#fail[child] = ROOT;
      queue[tail++] = child;
    }
    while (head < tail) {
      const node = queue[head++]!;
      const fail = this.#fail[node]!;
      if (this.#matchSecret[node] === NONE && fail !== ROOT) {
        this.#matchSecret[node] = this.#matchSecret[fail]!;
        this.#matchLength[node] = this.#matchLength[fail]!;
      }
      this.#clipNear[node] = this.#clipSecret[node] !== NONE ? node : fail === ROOT ? NONE : this.#clipNear[fail]!;
      this.#pieceNear[node] = this.#pieceSecret[node] !== NONE ? node : fail === ROOT ? NONE : this.#pieceNear[fail]!;
      for (let child = this.#firstChild[node]!; child !== NONE; child = this.#nextSibling[child]!) {
        this.#fail[child] = this.#step(fail, this.#character[child]!);
        queue[tail++] = child;
      }
    }
  }

  #child(node: number, code: number): number {
    if (node === ROOT) return this.#rootChild[code]!;
    for (let child = this.#firstChild[node]!; child !== NONE; child = this.#nextSibling[child]!) if (this.#character[child] === code) return child;
    return NONE;
  }

  /** The state after reading `code` in state `node`. */
  #step(node: number, code: number): number {
    let state = node;
    for (;;) {
      const next = this.#child(state, code);
      if (next !== NONE) return next;
      if (state === ROOT) return ROOT;
      state = this.#fail[state]!;
    }
  }

  /**
   * Every match in `codes[0..length)`, in order of their ends: whole forms, clipped starts
   * before an ellipsis, and (with `clippedAtEnd`) the short piece of a value before a final `…`.
   */
  matches(codes: Uint16Array, length: number, clippedAtEnd: boolean): FormMatch[] {
    const found: FormMatch[] = [];
    let state = ROOT;
    for (let index = 0; index < length; index++) {
      const code = codes[index]!;
      if (state !== ROOT && (code === ELLIPSIS || (code === DOT && index + 2 < length && codes[index + 1] === DOT && codes[index + 2] === DOT))) {
        const clip = this.#clipNear[state]!;
        if (clip !== NONE) found.push({ start: index - this.#depth[clip]!, end: index - 1, secret: this.#clipSecret[clip]!, weight: this.#depth[clip]! });
        else if (clippedAtEnd && index === length - 1 && code === ELLIPSIS) {
          const piece = this.#pieceNear[state]!;
          if (piece !== NONE) found.push({ start: index - this.#depth[piece]!, end: index - 1, secret: NONE, weight: 0 });
        }
      }
      state = this.#step(state, code);
      const matched = this.#matchLength[state]!;
      if (matched > 0) found.push({ start: index - matched + 1, end: index, secret: this.#matchSecret[state]!, weight: matched });
    }
    return found;
  }
}
