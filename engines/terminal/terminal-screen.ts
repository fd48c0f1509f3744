/**
 * The `screen` fixture on a terminal target: the program's screen as a Playwright user reads a
 * page. `screen.getByRole('menuitem', { name: 'Banana' })`, `getByText`, `getByLabel` and
 * `locator(':root')` (the whole screen) give locators that Playwright's own `expect` takes,
 * retrying until the screen shows what is asked or the expect's timeout ends:
 *
 * ```ts
 * await expect(screen.getByText('Order for Ada: Banana')).toBeVisible();
 * await expect(screen.getByRole('checkbox', { name: 'Nuts' })).toBeChecked();
 * await expect(screen.locator(':root')).toContainText('placed: yes');
 * ```
 *
 * A terminal locator speaks the protocol Playwright's web-first matchers use with their
 * receiver (`_apiName` and `_expect`), so the matchers, their messages, `expect.soft`,
 * `.not`, `expect.configure({ timeout })` and the report's steps are Playwright's; each check
 * is evaluated on a fresh observation of the screen (the same node tree the agent sees, with
 * the same ids), re-read whenever the screen changed. A passing one tells the recording what it
 * looked at, as a locator assertion does on the web (see the attempt's `lookedAt`).
 */
import { EngineError, type ChangeMark, type ChangeWaitOptions, type ChangeWaitResult, type EngineObservation, type ScreenNode } from '../../contract/engine.js';
import { describeSteps, nodeText, normalizeSpace, resolveSteps, selectorOf, textMatches, type LocatorStep, type RoleOptions, type TextMatch } from './screen-locator.js';

/** What the screen reads from the attempt it belongs to. */
export interface ScreenSource {
  /** A fresh observation (the node tree the agent sees). */
  observe(): Promise<EngineObservation>;
  waitForChange(since: ChangeMark, options: ChangeWaitOptions): Promise<ChangeWaitResult>;
  /** The screen as drawn, one string per row (trailing blanks and rows cut). */
  lines(): Promise<string[]>;
  press(key: string): Promise<void>;
  type(text: string): Promise<void>;
}

/** A text value as Playwright's matchers send it (`serializeExpectedTextValues`). */
interface ExpectedText {
  string?: string;
  regexSource?: string;
  regexFlags?: string;
  matchSubstring?: boolean;
  ignoreCase?: boolean;
  normalizeWhiteSpace?: boolean;
}

/** The options Playwright's matchers pass to their receiver's `_expect`. */
interface ExpectOptions {
  expectedText?: ExpectedText[];
  expectedNumber?: number;
  expectedValue?: { checked?: boolean; indeterminate?: boolean };
  isNot?: boolean;
  timeout?: number;
  signal?: AbortSignal;
}

/** What `_expect` answers (the shape Playwright's matchers read). */
interface ExpectResult {
  matches: boolean;
  received?: { value: unknown };
  log?: string[];
  timedOut?: boolean;
  errorMessage?: string;
}

/** One evaluation of an expression on one screen. */
interface Evaluation {
  matches: boolean;
  received?: unknown;
  /** A failure that waiting cannot mend (strict mode, an unsupported matcher). */
  errorMessage?: string;
}

/** Expressions that need exactly one node (Playwright's strict mode). */
const SINGLE_NODE_EXPRESSIONS: ReadonlySet<string> = new Set([
  'to.be.checked',
  'to.be.unchecked',
  'to.be.disabled',
  'to.be.enabled',
  'to.be.editable',
  'to.be.empty',
  'to.be.focused',
  'to.have.text',
  'to.have.value',
  'to.have.accessible.name',
  'to.have.role',
]);

function expectedMatches(actual: string, expected: ExpectedText): boolean {
  const text = expected.normalizeWhiteSpace === true ? normalizeSpace(actual) : actual;
  if (expected.regexSource !== undefined) return new RegExp(expected.regexSource, expected.regexFlags ?? '').test(text);
  let wanted = expected.string ?? '';
  if (expected.normalizeWhiteSpace === true) wanted = normalizeSpace(wanted);
  const [left, right] = expected.ignoreCase === true ? [text.toLowerCase(), wanted.toLowerCase()] : [text, wanted];
  return expected.matchSubstring === true ? left.includes(right) : left === right;
}

/** `toContainText([...])`: each expected text in a node of its own, in order. */
function containsInOrder(texts: readonly string[], expected: readonly ExpectedText[]): boolean {
  let at = 0;
  for (const wanted of expected) {
    while (at < texts.length && !expectedMatches(texts[at]!, wanted)) at++;
    if (at === texts.length) return false;
    at++;
  }
  return true;
}

function strictViolation(description: string, nodes: readonly ScreenNode[]): string {
  const listed = nodes.slice(0, 10).map((node, index) => `    ${index + 1}) ${node.role} "${node.name}"`);
  return `Error: strict mode violation: ${description} resolved to ${nodes.length} elements:\n${listed.join('\n')}`;
}

function evaluate(expression: string, nodes: readonly ScreenNode[], options: ExpectOptions, description: string): Evaluation {
  if (SINGLE_NODE_EXPRESSIONS.has(expression) && nodes.length > 1) return { matches: false, errorMessage: strictViolation(description, nodes) };
  const node = nodes[0];
  const expected = options.expectedText ?? [];
  switch (expression) {
    case 'to.be.visible':
    case 'to.be.attached':
      if (nodes.length > 1) return { matches: false, errorMessage: strictViolation(description, nodes) };
      return { matches: node !== undefined, received: node === undefined ? 'hidden' : 'visible' };
    case 'to.be.hidden':
    case 'to.be.detached':
      if (nodes.length > 1) return { matches: false, errorMessage: strictViolation(description, nodes) };
      return { matches: node === undefined, received: node === undefined ? 'hidden' : 'visible' };
    case 'to.have.count':
      return { matches: nodes.length === options.expectedNumber, received: nodes.length };
    case 'to.have.text':
      return node === undefined ? { matches: false, received: '' } : { matches: expected[0] !== undefined && expectedMatches(nodeText(node), expected[0]), received: nodeText(node) };
    case 'to.have.text.array': {
      const texts = nodes.map(nodeText);
      return { matches: texts.length === expected.length && texts.every((text, index) => expectedMatches(text, expected[index]!)), received: texts };
    }
    case 'to.contain.text.array': {
      const texts = nodes.map(nodeText);
      return { matches: containsInOrder(texts, expected), received: texts };
    }
    case 'to.have.value': {
      const value = node?.states.includes('secure') === true ? '' : (node?.value ?? '');
      return { matches: node !== undefined && expected[0] !== undefined && expectedMatches(value, expected[0]), received: value };
    }
    case 'to.have.accessible.name':
      return { matches: node !== undefined && expected[0] !== undefined && expectedMatches(node.name, expected[0]), received: node?.name ?? '' };
    case 'to.have.role':
      return { matches: node !== undefined && expected[0] !== undefined && expectedMatches(node.role, expected[0]), received: node?.role ?? '' };
    case 'to.be.checked': {
      const checked = node?.states.includes('checked') === true;
      const wanted = options.expectedValue?.checked ?? true;
      return { matches: node !== undefined && checked === wanted, received: checked ? 'checked' : 'unchecked' };
    }
    case 'to.be.focused': {
      const focused = node !== undefined && (node.states.includes('focused') || node.states.includes('selected'));
      return { matches: focused, received: focused ? 'focused' : 'inactive' };
    }
    case 'to.be.disabled':
    case 'to.be.enabled': {
      const disabled = node?.states.includes('disabled') === true;
      return { matches: node !== undefined && disabled === (expression === 'to.be.disabled'), received: disabled ? 'disabled' : 'enabled' };
    }
    case 'to.be.empty': {
      const empty = node !== undefined && (node.role === 'textbox' ? (node.value ?? '') === '' : nodeText(node) === '');
      return { matches: empty, received: empty ? 'empty' : 'not empty' };
    }
    default:
      return { matches: false, errorMessage: `Error: ${expression.replace(/\./g, ' ')} is not something a terminal screen can check; it checks text, counts, values, check marks, focus and disabled rows.` };
  }
}

/** Playwright's own first waits between tries when nothing on the screen says it changed. */
const RETRY_MS = 1000;

/** The screen of one terminal attempt. */
export class TerminalScreen {
  readonly #source: ScreenSource;
  /** The keys a person presses, sent as they are (the agent's steps are not involved). */
  readonly keyboard: { press(key: string): Promise<void>; type(text: string): Promise<void> };

  constructor(source: ScreenSource) {
    this.#source = source;
    this.keyboard = { press: (key) => source.press(key), type: (text) => source.type(text) };
  }

  /** Controls and regions by role: `menuitem`, `checkbox`, `radio`, `button`, `textbox`, `dialog`, `menu`, `group`, `text`. */
  getByRole(role: string, options: RoleOptions = {}): TerminalLocator {
    return new TerminalLocator(this, [{ kind: 'role', role, options }]);
  }

  /** Lines, rows and labels showing `text` (a substring, case folded, unless `exact`). */
  getByText(text: TextMatch, options: { exact?: boolean } = {}): TerminalLocator {
    return new TerminalLocator(this, [{ kind: 'text', text, exact: options.exact === true }]);
  }

  /** Fields by their question, check marks by their label. */
  getByLabel(text: TextMatch, options: { exact?: boolean } = {}): TerminalLocator {
    return new TerminalLocator(this, [{ kind: 'label', text, exact: options.exact === true }]);
  }

  /**
   * The whole screen: `locator(':root')` (or `'body'`, as a web test would write it).
   * @throws E2EError `UNSUPPORTED_CAPABILITY` for any other selector.
   */
  locator(selector: string): TerminalLocator {
    if (selector !== ':root' && selector !== 'body' && selector !== 'html') {
      throw new EngineError('UNSUPPORTED_CAPABILITY', `A terminal screen has no CSS; locator("${selector}") cannot be read. Use locator(':root') for the whole screen, or getByRole, getByText, getByLabel.`);
    }
    return new TerminalLocator(this, [{ kind: 'root' }]);
  }

  /** The screen as drawn, one line per row (for a message or a log). */
  async text(): Promise<string> {
    return (await this.#source.lines()).join('\n');
  }

  /** The window title the program set, else the command's name. */
  async title(): Promise<string> {
    return (await this.#source.observe()).root.name;
  }

  /** The nodes `steps` find on a fresh observation. */
  async nodes(steps: readonly LocatorStep[]): Promise<{ nodes: ScreenNode[]; observation: EngineObservation }> {
    const observation = await this.#source.observe();
    return { nodes: resolveSteps(observation.root, steps), observation };
  }

  /**
   * Evaluate `expression` until it comes out as asked (`matches` is `!isNot`) or `timeout` ends:
   * once now, then again each time the screen changed and held still (at most every second).
   */
  async expect(steps: readonly LocatorStep[], expression: string, options: ExpectOptions): Promise<ExpectResult> {
    const description = describeSteps(steps);
    const wanted = options.isNot !== true;
    const timeout = options.timeout ?? 5000;
    const deadline = timeout > 0 ? performance.now() + timeout : Number.POSITIVE_INFINITY;
    const log = [`  - waiting for ${description} on the terminal screen`];
    for (;;) {
      const { nodes, observation } = await this.nodes(steps);
      const result = evaluate(expression, nodes, options, description);
      if (result.errorMessage !== undefined) return { matches: !wanted, errorMessage: result.errorMessage, log };
      if (result.matches === wanted) return { matches: result.matches, received: { value: result.received }, log };
      const left = deadline - performance.now();
      if (left <= 0 || options.signal?.aborted === true) {
        log.push('  - the screen showed:', ...(await this.#source.lines()).map((line) => `    ${line}`));
        return { matches: result.matches, received: { value: result.received }, log, timedOut: true };
      }
      const changed = await this.#source.waitForChange(observation.mark ?? '', { until: 'change', maxMs: Math.min(left, RETRY_MS) });
      if (changed.changed) await this.#source.waitForChange(changed.mark, { until: 'quiet', maxMs: Math.max(0, Math.min(deadline - performance.now(), RETRY_MS)), quietMs: 0 });
    }
  }
}

/**
 * Nodes of a terminal screen, found afresh on every use (as Playwright's locators are), for
 * Playwright's `expect` and for reading. Strict like Playwright's: a check of one node fails
 * when the locator finds several.
 */
export class TerminalLocator {
  /** What Playwright's matchers check their receiver by. */
  readonly _apiName = 'Locator';
  /** The locator in Playwright's selector syntax, which its report shows. */
  readonly _selector: string;
  readonly #screen: TerminalScreen;
  readonly #steps: readonly LocatorStep[];

  constructor(screen: TerminalScreen, steps: readonly LocatorStep[]) {
    this.#screen = screen;
    this.#steps = steps;
    this._selector = selectorOf(steps);
  }

  /** The screen this locator reads. */
  get screen(): TerminalScreen {
    return this.#screen;
  }

  /** The steps that find its nodes. */
  get steps(): readonly LocatorStep[] {
    return this.#steps;
  }

  #then(step: LocatorStep): TerminalLocator {
    return new TerminalLocator(this.#screen, [...this.#steps, step]);
  }

  getByRole(role: string, options: RoleOptions = {}): TerminalLocator {
    return this.#then({ kind: 'role', role, options });
  }

  getByText(text: TextMatch, options: { exact?: boolean } = {}): TerminalLocator {
    return this.#then({ kind: 'text', text, exact: options.exact === true });
  }

  getByLabel(text: TextMatch, options: { exact?: boolean } = {}): TerminalLocator {
    return this.#then({ kind: 'label', text, exact: options.exact === true });
  }

  first(): TerminalLocator {
    return this.#then({ kind: 'nth', index: 0 });
  }

  last(): TerminalLocator {
    return this.#then({ kind: 'nth', index: -1 });
  }

  nth(index: number): TerminalLocator {
    return this.#then({ kind: 'nth', index });
  }

  /** Keep the nodes whose text has (or has not) `hasText`. */
  filter(options: { hasText?: TextMatch; hasNotText?: TextMatch }): TerminalLocator {
    return this.#then({ kind: 'filter', ...(options.hasText === undefined ? {} : { hasText: options.hasText }), ...(options.hasNotText === undefined ? {} : { hasNotText: options.hasNotText }) });
  }

  async #found(): Promise<ScreenNode[]> {
    return (await this.#screen.nodes(this.#steps)).nodes;
  }

  async #one(): Promise<ScreenNode | undefined> {
    const nodes = await this.#found();
    if (nodes.length > 1) throw new EngineError('NOT_ACTIONABLE', strictViolation(this.toString(), nodes).replace(/^Error: /, ''));
    return nodes[0];
  }

  /** How many nodes it finds now. */
  async count(): Promise<number> {
    return (await this.#found()).length;
  }

  /** One locator per node it finds now. */
  async all(): Promise<TerminalLocator[]> {
    return Array.from({ length: await this.count() }, (_, index) => this.nth(index));
  }

  /** The text of its node (a region: its lines), or null when there is none. */
  async textContent(): Promise<string | null> {
    const node = await this.#one();
    return node === undefined ? null : nodeText(node);
  }

  /** The text of its node. @throws EngineError `NOT_ACTIONABLE` when none is on the screen. */
  async innerText(): Promise<string> {
    const text = await this.textContent();
    if (text === null) throw new EngineError('NOT_ACTIONABLE', `${this.toString()} is not on the screen.`);
    return text;
  }

  async allTextContents(): Promise<string[]> {
    return (await this.#found()).map(nodeText);
  }

  async allInnerTexts(): Promise<string[]> {
    return this.allTextContents();
  }

  async isVisible(): Promise<boolean> {
    return (await this.#one()) !== undefined;
  }

  async isHidden(): Promise<boolean> {
    return (await this.#one()) === undefined;
  }

  async isChecked(): Promise<boolean> {
    return (await this.#one())?.states.includes('checked') === true;
  }

  /** A field's answer ('' for a secure one). */
  async inputValue(): Promise<string> {
    const node = await this.#one();
    return node === undefined || node.states.includes('secure') ? '' : (node.value ?? '');
  }

  /** True when its text matches (Playwright's text rules). */
  async hasText(text: TextMatch): Promise<boolean> {
    const found = await this.textContent();
    return found !== null && textMatches(found, text, false);
  }

  /** Playwright's matchers call this; see {@link TerminalScreen.expect}. */
  _expect(expression: string, options: ExpectOptions): Promise<ExpectResult> {
    return this.#screen.expect(this.#steps, expression, options);
  }

  toString(): string {
    return describeSteps(this.#steps);
  }
}

// Playwright 1.56 and its near releases tell a Locator by its constructor's name (later ones by `_apiName`): the oldest Playwright in our range takes this one too.
Object.defineProperty(TerminalLocator, 'name', { value: 'Locator' });
