/**
 * The checks of the engine contract itself (`contract/engine.ts`, `contract/host.ts`): what an
 * engine declares, what an observation is, ids that stay, typed failures, the scenario's effect,
 * change marks, screenshots, restart and close. Each is a named async function that throws
 * `ASSERTION_FAILED` on a violation.
 */
import { ENGINE_CONTRACT_VERSION, NODE_STATES, VERBS, isEngineError, type EngineInstance, type EngineObservation } from '../contract/engine.js';
import { allNodes, expectThat, findControl, openAttempt, requireControl, shows, startConfigOf, typeAndSubmit, violation, waitForScreen, DEFAULT_EFFECT_TIMEOUT_MS } from './engine-session.js';
import type { ConformanceSubject } from './subject.js';

/** One named check. */
export interface ConformanceCheck {
  /** A sentence about the behaviour checked. */
  name: string;
  run(): Promise<void>;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Run `work` on a fresh attempt of `subject`, closing it whatever happens. */
async function withAttempt<T>(subject: ConformanceSubject, work: (instance: EngineInstance) => Promise<T>): Promise<T> {
  const instance = await openAttempt(subject);
  try {
    return await work(instance);
  } finally {
    await instance.close().catch(() => undefined);
  }
}

/** The failure `work` ended with, or a violation when it did not fail. */
async function failureOf(work: Promise<unknown>, what: string): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw violation(`${what} succeeded; the contract says it fails.`);
}

/** The declaration: names, the contract version, verbs of the table, a valid location and delegate. */
async function declares(subject: ConformanceSubject): Promise<void> {
  const { engine } = subject;
  for (const field of ['name', 'version', 'platform'] as const) expectThat(typeof engine[field] === 'string' && engine[field].trim() !== '', `engine.${field} is a non-empty string (got ${JSON.stringify(engine[field])}).`);
  expectThat(engine.contractVersion === ENGINE_CONTRACT_VERSION, `engine.contractVersion is ${ENGINE_CONTRACT_VERSION}, the version this e2e implements (got ${String(engine.contractVersion)}).`);
  const unknown = engine.verbs.filter((verb) => !VERBS.includes(verb));
  expectThat(unknown.length === 0, `engine.verbs holds only verbs of the contract (VERBS); unknown: ${unknown.join(', ')}.`);
  expectThat(new Set(engine.verbs).size === engine.verbs.length, 'engine.verbs names each verb once.');
  for (const needed of ['type', 'press'] as const) expectThat(engine.verbs.includes(needed), `the scenario types and submits: engine.verbs includes ${needed}.`);
  expectThat(engine.location === undefined || engine.location === 'url', `engine.location is 'url' or absent (got ${JSON.stringify(engine.location)}).`);
  expectThat(engine.location === 'url' || !engine.verbs.includes('navigate'), 'an engine without a location declares no navigate verb.');
  if (engine.host?.app !== undefined && engine.location !== 'url') startConfigOf(subject, subject.app);
}

/** One observation's shape: a root, unique ids, a true node count, known states, a URL only with a location. */
function checkObservation(subject: ConformanceSubject, observation: EngineObservation): void {
  const nodes = allNodes(observation.root);
  const ids = nodes.map((node) => node.id);
  const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
  expectThat(repeated.length === 0, `ids are unique within a screen; repeated: ${[...new Set(repeated)].slice(0, 5).join(', ')}.`);
  expectThat(observation.nodeCount === nodes.length, `nodeCount (${observation.nodeCount}) counts the tree's nodes (${nodes.length}).`);
  for (const node of nodes) {
    expectThat(typeof node.id === 'string' && node.id !== '', 'every node has an id.');
    expectThat(typeof node.role === 'string' && node.role !== '', `node #${node.id} has a role.`);
    expectThat(typeof node.name === 'string', `node #${node.id} has a name (maybe empty).`);
    const odd = node.states.filter((state) => !NODE_STATES.includes(state));
    expectThat(odd.length === 0, `node #${node.id} holds only the contract's states (NODE_STATES); unknown: ${odd.join(', ')}.`);
    for (const child of node.children) expectThat(child.depth === node.depth + 1, `node #${child.id} sits one level below its parent (depth ${child.depth}, parent ${node.depth}).`);
  }
  expectThat(observation.root.depth === 0, 'the root has depth 0.');
  if (subject.engine.location === 'url') expectThat(/^[a-z][a-z0-9+.-]*:/i.test(observation.url), `an engine with the url location gives an absolute URL (got ${JSON.stringify(observation.url)}).`);
  else expectThat(observation.url === '', `an engine without a location gives no URL ('') (got ${JSON.stringify(observation.url)}).`);
}

/** Two observations of a screen that did not change: the same ids for the same nodes. */
async function keepsIds(subject: ConformanceSubject, instance: EngineInstance): Promise<void> {
  const first = await instance.observe();
  const second = await instance.observe();
  const key = (observation: EngineObservation) => new Map(allNodes(observation.root).map((node) => [node.id, `${node.role} "${node.name}"`]));
  const before = key(first);
  const field = findControl(first, subject.field);
  expectThat(field !== undefined && findControl(second, subject.field)?.id === field.id, `the ${subject.field.role} "${subject.field.name}" keeps its id from one observation to the next.`);
  for (const [id, label] of key(second)) {
    if (before.has(id)) expectThat(before.get(id) === label, `id #${id} names the same node in two observations of an unchanged screen (${before.get(id)} then ${label}).`);
  }
}

/** The checks of the engine contract for `subject`. */
export function engineChecks(subject: ConformanceSubject): ConformanceCheck[] {
  const timeoutMs = subject.timeoutMs ?? DEFAULT_EFFECT_TIMEOUT_MS;
  const checks: ConformanceCheck[] = [
    { name: 'declares a name, a version, the contract version, a platform, verbs of the contract and a valid location', run: () => declares(subject) },
    {
      name: 'observes a tree with unique ids, a true node count, known states, and a URL only with a location',
      run: () => withAttempt(subject, async (instance) => checkObservation(subject, await waitForScreen(subject, instance, (screen) => findControl(screen, subject.field) !== undefined, `the ${subject.field.role} "${subject.field.name}"`))),
    },
    { name: 'keeps the ids of the nodes of a screen that did not change', run: () => withAttempt(subject, async (instance) => {
      await requireControl(subject, instance, subject.field);
      await keepsIds(subject, instance);
    }) },
    {
      name: 'fails NODE_STALE, as a typed engine error, for an id that is not on the screen',
      run: () =>
        withAttempt(subject, async (instance) => {
          await instance.observe();
          const error = await failureOf(instance.perform({ id: 'no-such-node-e2e-conformance' }, { verb: 'type', value: 'x', replace: true }, { timeoutMs }), 'typing into an id that is not on the screen');
          expectThat(isEngineError(error), `the failure is an EngineError with an engine code (got ${String(error)}).`);
          expectThat(error.engineCode === 'NODE_STALE', `the failure's engine code is NODE_STALE (got ${error.engineCode}).`);
        }),
    },
    {
      name: 'types into a field, submits it, and the screen shows what was typed',
      run: () =>
        withAttempt(subject, async (instance) => {
          await typeAndSubmit(subject, instance, 'Conformance echo');
          await waitForScreen(subject, instance, (screen) => shows(screen, 'Conformance echo', subject.field), '"Conformance echo" outside the field after the submit');
        }),
    },
    {
      name: 'restarts into a fresh app: what an attempt did is gone',
      run: () =>
        withAttempt(subject, async (instance) => {
          await typeAndSubmit(subject, instance, 'Before restart');
          await waitForScreen(subject, instance, (screen) => shows(screen, 'Before restart', subject.field), '"Before restart" after the submit');
          await instance.session.restart();
          await instance.session.open(subject.engine.location === 'url' ? subject.app.open : undefined);
          const fresh = await waitForScreen(subject, instance, (screen) => findControl(screen, subject.field) !== undefined, `the ${subject.field.role} "${subject.field.name}" after the restart`);
          expectThat(!shows(fresh, 'Before restart', subject.field), 'after restart() and open, the screen no longer shows what the attempt typed before.');
        }),
    },
    {
      name: 'closes once and for all: close() may repeat, and an observation after it fails',
      run: async () => {
        const instance = await openAttempt(subject);
        await instance.observe();
        await instance.close();
        await instance.close();
        await failureOf(instance.observe(), 'observing after close()');
      },
    },
  ];
  if (subject.engine.verbs.includes('screenshot')) {
    checks.push({
      name: 'takes a screenshot as PNG bytes',
      run: () =>
        withAttempt(subject, async (instance) => {
          await instance.observe();
          const png = await instance.screenshot();
          expectThat(png instanceof Uint8Array && PNG_SIGNATURE.every((byte, index) => png[index] === byte), 'screenshot() answers PNG bytes.');
        }),
    });
  }
  checks.push({
    name: 'marks its change history, if it offers waitForChange: equal marks while nothing changes, a change after an action',
    run: () =>
      withAttempt(subject, async (instance) => {
        const wait = instance.waitForChange?.bind(instance);
        const first = await instance.observe();
        if (wait === undefined) {
          expectThat(first.mark === undefined, 'an engine without waitForChange sets no mark on its observations.');
          return;
        }
        expectThat(typeof first.mark === 'string', 'an engine with waitForChange sets a mark on every observation.');
        const quiet = await wait(first.mark, { until: 'quiet', maxMs: 2000, quietMs: 200 });
        const settled = await instance.observe();
        const still = await wait(settled.mark!, { until: 'change', maxMs: 0 });
        expectThat(still.changed === false && still.mark === settled.mark, `with nothing happening, waitForChange(mark, maxMs 0) answers unchanged and the same mark (got changed ${String(still.changed)}, ${still.mark} vs ${String(settled.mark)}; quiet wait ${quiet.changed ? 'saw a change' : 'was quiet'}).`);
        await typeAndSubmit(subject, instance, 'Marked change');
        const changed = await wait(settled.mark!, { until: 'change', maxMs: timeoutMs });
        expectThat(changed.changed, 'after typing and submitting, waitForChange(the mark before) reports a change.');
      }),
  });
  if (subject.secure !== undefined) {
    const secure = subject.secure;
    checks.push({
      name: 'never shows the value typed into a secure field, and marks it secure',
      run: () =>
        withAttempt(subject, async (instance) => {
          const field = await requireControl(subject, instance, secure);
          await instance.perform({ id: field.id }, { verb: 'type', value: 'conformance-s3cret-value', replace: true }, { timeoutMs });
          const after = await instance.observe();
          const node = findControl(after, secure);
          expectThat(node?.states.includes('secure') === true, `the ${secure.role} "${secure.name}" carries the secure state.`);
          const leaked = allNodes(after.root).filter((candidate) => [candidate.name, candidate.text ?? '', candidate.value ?? ''].some((text) => text.includes('conformance-s3cret-value')));
          expectThat(leaked.length === 0, `no node shows the typed secure value (it shows in #${leaked.map((item) => item.id).join(', #')}).`);
        }),
    });
  }
  return checks;
}
