/**
 * How the conformance checks drive an engine: start an attempt on one of the subject's apps as
 * the test host would (its `app` checked by the engine's delegate, the host's services handed
 * in), open it, find the scenario's controls, and wait (bounded) for the screen to show an
 * effect. A check that fails throws `ASSERTION_FAILED` saying what the engine did instead.
 */
import { E2EError } from '../errors/index.js';
import type { EngineInstance, EngineObservation, EngineStartOptions, ScreenNode } from '../contract/engine.js';
import type { ConformanceApp, ConformanceControl, ConformanceSubject } from './subject.js';

/** Default bound of a wait for an effect. */
export const DEFAULT_EFFECT_TIMEOUT_MS = 10_000;

/** A failed check: what the contract asks, and what the engine did. */
export function violation(message: string): E2EError {
  return new E2EError('ASSERTION_FAILED', message);
}

/** Throw {@link violation} unless `condition` holds. */
export function expectThat(condition: boolean, message: string): asserts condition {
  if (!condition) throw violation(message);
}

/** The target's `app` as the engine takes it in `start()`: checked by its delegate (engines without a location), else as it is. */
export function startConfigOf(subject: ConformanceSubject, app: ConformanceApp): unknown {
  const check = subject.engine.host?.app;
  if (subject.engine.location === 'url' || check === undefined) return app.app;
  const checked = check.call(subject.engine.host, app.app);
  if (!checked.ok) throw violation(`${subject.name}: the engine's host.app refused the subject's own app: ${checked.problem}`);
  return checked.app.config;
}

/** Start an attempt on `app` and open it; close the instance when done. */
export async function openAttempt(subject: ConformanceSubject, app: ConformanceApp = subject.app): Promise<EngineInstance> {
  await app.prepare?.();
  const host = subject.host === undefined ? undefined : await subject.host();
  const options: EngineStartOptions = { app: startConfigOf(subject, app), ...(host === undefined ? {} : { host }) };
  if (subject.engine.location === 'url') {
    if (app.open === undefined) throw violation(`${subject.name}: a subject whose engine has the url location names the URL to open (app.open).`);
    options.baseUrl = app.open;
  }
  const instance = await subject.engine.start(options);
  try {
    await instance.session.open(subject.engine.location === 'url' ? app.open : undefined);
  } catch (error) {
    await instance.close().catch(() => undefined);
    throw error;
  }
  return instance;
}

/** Every node of a tree, depth first. */
export function allNodes(root: ScreenNode): ScreenNode[] {
  const nodes: ScreenNode[] = [];
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    nodes.push(node);
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index]!);
  }
  return nodes;
}

/** The node of `control` on the screen (its role and accessible name), if there is one. */
export function findControl(observation: EngineObservation, control: ConformanceControl): ScreenNode | undefined {
  return allNodes(observation.root).find((node) => node.role === control.role && node.name === control.name);
}

/** The node of `control`, or a violation naming what the screen had instead. */
export async function requireControl(subject: ConformanceSubject, instance: EngineInstance, control: ConformanceControl): Promise<ScreenNode> {
  const observation = await waitForScreen(subject, instance, (screen) => findControl(screen, control) !== undefined, `a ${control.role} named "${control.name}"`);
  return findControl(observation, control)!;
}

/** True when a node other than the scenario's field shows `text` in its name or text (not as a field's value). */
export function shows(observation: EngineObservation, text: string, field: ConformanceControl): boolean {
  return allNodes(observation.root).some((node) => !(node.role === field.role && node.name === field.name) && (node.name.includes(text) || (node.text ?? '').includes(text)));
}

/** A few lines of the screen, for a failure message. */
function outline(observation: EngineObservation): string {
  return allNodes(observation.root)
    .slice(0, 25)
    .map((node) => `${node.role} "${node.name}"${node.text === undefined ? '' : ` text="${node.text}"`}`)
    .join('; ');
}

/** Observe until `holds` (bounded by the subject's timeout); the last observation, or a violation. */
export async function waitForScreen(subject: ConformanceSubject, instance: EngineInstance, holds: (observation: EngineObservation) => boolean, what: string): Promise<EngineObservation> {
  const deadline = Date.now() + (subject.timeoutMs ?? DEFAULT_EFFECT_TIMEOUT_MS);
  for (;;) {
    const observation = await instance.observe();
    if (holds(observation)) return observation;
    if (Date.now() >= deadline) throw violation(`${subject.name}: the screen never showed ${what} within ${subject.timeoutMs ?? DEFAULT_EFFECT_TIMEOUT_MS} ms; it showed: ${outline(observation)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Type `text` into the scenario's field and submit it. */
export async function typeAndSubmit(subject: ConformanceSubject, instance: EngineInstance, text: string): Promise<void> {
  const field = await requireControl(subject, instance, subject.field);
  const timeoutMs = subject.timeoutMs ?? DEFAULT_EFFECT_TIMEOUT_MS;
  await instance.perform({ id: field.id }, { verb: 'type', value: text, replace: true }, { timeoutMs });
  const again = await requireControl(subject, instance, subject.field);
  await instance.perform({ id: again.id }, { verb: 'press', key: subject.submit ?? 'Enter' }, { timeoutMs });
}
