/**
 * `ctx.actions` (DESIGN §3): every call checked, authorized, counted, serialized, bounded,
 * settled and reported. The steps: step/README.md, "Policed actions".
 */
import { E2EError, hasTrait, isE2EError, type ErrorCode, messageOf } from '../errors/index.js';
import { describeSentence, type SentenceInput, type SentenceNoun } from '../semantics/action-sentence.js';
import { EDITABLE_ROLES, findNode, nodeAtPoint, normalizeRef, requirePoint, requireString } from './action-targets.js';
import { ACTION_TIMEOUT_MS, engineTimeoutFor } from './budgets.js';
import { isEngineError, KEY_MODIFIERS, type EngineAction, type EngineInstance, type KeyModifier, type NodeRef, type ScreenNode, type ScrollDirection, type SessionAction, type Verb } from '../contract/engine.js';
import { OriginPolicy, describeUrl } from './origin-policy.js';
import { actionOutcome, type ScreenObserver } from './screen-observer.js';
import type { SettleMode } from './settle.js';
import type { SecretVault } from '../secrets/vault.js';
import type { ActionOutcome, Observation, ScrollUntilOptions, StepActions, TapOptions } from '../contract/step-contract.js';
import type { ActionEvent, ActionVerb, RunnerObservation, ValueOrigin } from '../contract/step-seams.js';
import type { StepSession } from './step-session.js';
import { checkUploadPaths } from './upload-policy.js';

/** Attempt-level services the actions need. */
export interface ActionHost {
  engine: EngineInstance;
  verbs: ReadonlySet<Verb>;
  /** True when the engine's taps take modifier keys. */
  tapModifiers: boolean;
  platform: string;
  vault: SecretVault;
  policy: OriginPolicy;
  projectRoot: string;
  observer: ScreenObserver;
  /** Called right before a secret value is typed (pixels are withheld from then on). */
  markSecretFilled(): void;
  /** Deliver an event to the listener. */
  emit(event: ActionEvent): void;
  /** The observation the executor sees (tree only when asked). */
  present(observation: RunnerObservation, options: { tree?: boolean | undefined }): Observation;
}

/** Everything one call needs. */
interface ActionSpec {
  verb: ActionVerb;
  /** The engine verb the call needs. */
  needs: Verb;
  target?: NodeRef | undefined;
  destination?: NodeRef | undefined;
  args: Record<string, unknown>;
  value?: ValueOrigin | undefined;
  sentence: Omit<SentenceInput, 'verb' | 'target' | 'destination'>;
  /** Checks that need the authorized node (policies); throw to refuse. */
  authorize?: ((node: ScreenNode | undefined) => Promise<void> | void) | undefined;
  run(options: { timeoutMs: number; signal: AbortSignal }): Promise<void>;
}

/** A live node as a sentence names it (its states are not part of what the action did). */
function nounOf(node: ScreenNode | undefined): SentenceNoun | undefined {
  return node === undefined ? undefined : { role: node.role, name: node.name, text: node.text, placeholder: node.placeholder, testId: node.testId };
}

/** Default most scrolls of `scrollUntil`. */
export const DEFAULT_MAX_SCROLLS = 10;

/** The modifier keys of a tap's options, checked. */
function requireModifiers(options: unknown, label: string): KeyModifier[] {
  if (options === undefined) return [];
  const modifiers = (options as { modifiers?: unknown } | null)?.modifiers;
  if (modifiers === undefined) return [];
  if (!Array.isArray(modifiers) || !modifiers.every((key): key is KeyModifier => (KEY_MODIFIERS as readonly unknown[]).includes(key))) {
    throw new E2EError('INVALID_ARGUMENT', `${label}: modifiers are a list of ${KEY_MODIFIERS.join(', ')}.`);
  }
  return [...new Set(modifiers)];
}

/** Options of {@link createPolicedActions}. */
export interface PolicedActionsOptions {
  /** How far each action settles before it returns. Default `full`. */
  settle?: SettleMode;
}

/** Build `ctx.actions` for one step. */
export function createPolicedActions(host: ActionHost, session: StepSession, options: PolicedActionsOptions = {}): StepActions {
  const redact = (text: string) => host.vault.redact(text);
  const settleMode = options.settle ?? 'full';
  const capture = (): Promise<RunnerObservation> => session.timed('observeMs', () => host.observer.capture(session.deadline.signal));

  function unsupported(verb: string, why?: string): E2EError {
    return new E2EError(
      'UNSUPPORTED_CAPABILITY',
      `${verb} is not supported by the ${host.platform} engine${why === undefined ? '' : ` (${why})`}; offer the model only ctx.target.verbs: ${[...host.verbs].join(', ')}.`,
    );
  }

  function origin(value: string): ValueOrigin {
    for (const [name, source] of Object.entries(session.paramSources)) {
      if (source.kind === 'unique' && source.value === value) return { kind: 'unique', param: name };
    }
    for (const [name, source] of Object.entries(session.paramSources)) {
      if (source.kind === 'literal' && source.value === value) return { kind: 'param', name };
    }
    return { kind: 'literal' };
  }

  async function currentScreen(): Promise<RunnerObservation | undefined> {
    try {
      const observation = await capture();
      session.latest = observation;
      return observation;
    } catch {
      return undefined;
    }
  }

  function eventStep(): ActionEvent['step'] {
    return { index: session.info.index, kind: session.info.kind, instruction: session.info.instruction };
  }

  function emit(event: ActionEvent): void {
    if (!session.ended) host.emit(event);
  }

  function failureCode(error: unknown): { code: ErrorCode; mayHaveCommitted: boolean } {
    if (isEngineError(error)) {
      return { code: error.code, mayHaveCommitted: error.engineCode === 'ACTION_MAY_HAVE_COMMITTED' || error.engineCode === 'OPERATION_TIMEOUT' };
    }
    if (isE2EError(error)) return { code: error.code, mayHaveCommitted: hasTrait(error.code, 'mayHaveCommitted') };
    return { code: 'ENGINE_FAILURE', mayHaveCommitted: true };
  }

  async function perform(spec: ActionSpec): Promise<ActionOutcome> {
    const label = `ctx.actions.${spec.verb}`;
    session.assertUsable(label);
    if (!host.verbs.has(spec.needs)) throw unsupported(spec.verb);
    return session.serialize(async () => {
      session.assertUsable(label);
      const before = session.latest ?? (await capture());
      session.latest = before;
      if (before.treeUnavailable === true && (spec.target !== undefined || spec.destination !== undefined)) {
        const id = (spec.target ?? spec.destination)!.id;
        throw new E2EError(
          'ACTION_FAILED',
          `${label}: #${id} cannot be used: the latest screen (revision ${before.revision}) has no tree, so node ids from earlier screens are invalid. Act on a point of a screenshot (tapAt), or observe again.`,
        );
      }
      const node = spec.target === undefined ? undefined : findNode(before.tree, spec.target.id);
      const destination = spec.destination === undefined ? undefined : findNode(before.tree, spec.destination.id);
      const missing = (spec.target !== undefined && node === undefined) || (spec.destination !== undefined && destination === undefined);
      if (missing) {
        const id = node === undefined ? spec.target!.id : spec.destination!.id;
        const screen = await currentScreen();
        throw new E2EError(
          'ACTION_FAILED',
          `${label}: #${id} is not on the latest screen; act only on ids from the newest observation.${screen === undefined ? '' : `\n${screen.text}`}`,
        );
      }
      await spec.authorize?.(node);
      try {
        session.budget.takeActionSlot(label);
      } catch (error) {
        if (isE2EError(error)) session.stop(error);
        throw error;
      }
      const sentence = redact(describeSentence({ ...spec.sentence, verb: spec.verb, target: nounOf(node), destination: nounOf(destination) }));
      const base = { step: eventStep(), verb: spec.verb, args: spec.args, sentence, before } as const;
      const withTarget = {
        ...base,
        ...(spec.target === undefined ? {} : { ref: spec.target }),
        ...(node === undefined ? {} : { node }),
        ...(spec.value === undefined ? {} : { value: spec.value }),
      };
      const bound = session.deadline.child(
        ACTION_TIMEOUT_MS,
        () => new E2EError('ACTION_FAILED', `${sentence} did not finish within ${ACTION_TIMEOUT_MS / 1000} s.`),
      );
      try {
        await session.timed('actionMs', () => bound.race(spec.run({ timeoutMs: engineTimeoutFor(bound.remainingMs()), signal: bound.signal })));
      } catch (error) {
        const { code, mayHaveCommitted } = failureCode(error);
        const screen = await currentScreen();
        emit({ ...withTarget, ...(screen === undefined ? {} : { after: screen }), outcome: code, mayHaveCommitted });
        const message = messageOf(error);
        if (isE2EError(error) && session.hardStop === error) throw error;
        throw new E2EError(code, redact(`${sentence} failed: ${message}${screen === undefined ? '' : `\nCurrent screen:\n${screen.text}`}`));
      } finally {
        bound.dispose();
      }
      let after: RunnerObservation;
      try {
        after = await session.timed('observeMs', () => host.observer.settle(before, session.deadline.signal, { mode: settleMode }));
      } catch (error) {
        const stop = session.hardStop ?? session.deadline.reason();
        if (stop !== undefined) {
          emit({ ...withTarget, outcome: stop.code, mayHaveCommitted: true });
          throw stop;
        }
        throw error;
      }
      if (session.hardStop !== undefined) {
        emit({ ...withTarget, after, outcome: session.hardStop.code, mayHaveCommitted: true });
        throw session.hardStop;
      }
      session.latest = after;
      session.sentences.push(sentence);
      emit({ ...withTarget, after, outcome: 'ok', mayHaveCommitted: true });
      return actionOutcome(() => host.observer.changes(before, after), host.present(after, { tree: true }));
    });
  }

  function node(verb: ActionVerb, needs: Verb, target: unknown, action: EngineAction, extra: Partial<ActionSpec> = {}): Promise<ActionOutcome> {
    const ref = normalizeRef(target, `ctx.actions.${verb}`);
    return perform({
      verb,
      needs,
      target: ref,
      args: {},
      sentence: {},
      run: (options) => host.engine.perform(ref, action, options),
      ...extra,
    });
  }

  function page(verb: ActionVerb, needs: Verb, action: SessionAction, extra: Partial<ActionSpec> = {}): Promise<ActionOutcome> {
    return perform({ verb, needs, args: {}, sentence: {}, run: (options) => host.engine.performOnPage(action, options), ...extra });
  }

  function denySecret(reason: string): never {
    const error = new E2EError('POLICY_DENIED', `typeSecret refused: ${reason}.`);
    session.stop(error);
    throw error;
  }

  function authorizeSecret(name: string) {
    return (target: ScreenNode | undefined) => {
      if (!session.info.secrets.includes(name)) {
        denySecret(`the secret \`${name}\` was not handed to this step (its name or value in the instruction is no grant); pass it as a param, e.g. { params: { ${name}: secret('${name}') } }`);
      }
      try {
        host.vault.resolve(name);
      } catch (error) {
        if (isE2EError(error)) session.stop(error);
        throw error;
      }
      if (target !== undefined) {
        const editable = EDITABLE_ROLES.has(target.role) || target.states.includes('secure');
        if (!editable) denySecret(`#${target.id} is a ${target.role}, and secrets are typed only into editable fields`);
        if (target.states.includes('disabled')) {
          throw new E2EError('ACTION_FAILED', `typeSecret: #${target.id} is disabled; wait until the field is enabled.`);
        }
      }
      const decision = host.policy.checkSecret(name, host.engine.session.url(), host.vault.allowedOrigins(name));
      if (!decision.allowed) denySecret(decision.reason);
      host.markSecretFilled();
    };
  }

  function typeSecret(target: unknown, name: unknown): Promise<ActionOutcome> {
    const secretName = requireString(name, 'ctx.actions.typeSecret(target, name): name');
    const ref = normalizeRef(target, 'ctx.actions.typeSecret');
    return perform({
      verb: 'typeSecret',
      needs: 'type',
      target: ref,
      args: { name: secretName, replace: true },
      value: { kind: 'secret', name: secretName },
      sentence: { value: { kind: 'secret', name: secretName } },
      authorize: authorizeSecret(secretName),
      run: (options) => host.engine.perform(ref, { verb: 'type', value: host.vault.resolve(secretName), replace: true }, options),
    });
  }

  function type(target: unknown, value: unknown, options?: { replace?: boolean }): Promise<ActionOutcome> {
    const text = requireString(value, 'ctx.actions.type(target, value): value');
    const secretName = host.vault.nameOfValue(text);
    if (secretName !== undefined) return typeSecret(target, secretName);
    if (host.vault.containsSecret(text)) {
      const error = new E2EError('POLICY_DENIED', 'type refused: the value contains a configured secret; type secrets alone with typeSecret(target, name).');
      session.stop(error);
      return Promise.reject(error);
    }
    const replace = options?.replace ?? false;
    return node('type', 'type', target, { verb: 'type', value: text, replace }, {
      args: { value: text, replace },
      value: origin(text),
      sentence: { value: { kind: 'literal', value: text } },
    });
  }

  function pointAction(verb: 'tapAt' | 'hoverAt', point: unknown): Promise<ActionOutcome> {
    const where = requirePoint(point, `ctx.actions.${verb}`);
    const fallback: Verb = verb === 'tapAt' ? 'tap' : 'hover';
    if (host.engine.performAt !== undefined && host.verbs.has(verb)) {
      const performAt = host.engine.performAt.bind(host.engine);
      // The listed control under the point, when known, becomes the event's target for the recorder.
      const under = session.latest === undefined ? undefined : nodeAtPoint(session.latest.tree, where);
      return perform({
        verb,
        needs: verb,
        target: under === undefined ? undefined : { id: under.id },
        args: { point: where },
        sentence: { point: where },
        run: (options) => performAt(where, { verb }, options),
      });
    }
    if (!host.verbs.has(fallback)) return Promise.reject(unsupported(verb));
    return session.serialize(async () => {
      session.assertUsable(`ctx.actions.${verb}`);
      const screen = session.latest ?? (await capture());
      session.latest = screen;
      const under = nodeAtPoint(screen.tree, where);
      if (under === undefined) {
        throw new E2EError('ACTION_FAILED', `ctx.actions.${verb}: no listed control at (${where.x}, ${where.y}).\n${screen.text}`);
      }
      return under;
    }).then((under) =>
      node(verb, fallback, { id: under.id }, { verb: fallback }, { args: { point: where }, sentence: { point: where } }),
    );
  }

  function tapLike(verb: 'tap' | 'doubleTap' | 'secondaryTap', target: unknown, options: TapOptions | undefined): Promise<ActionOutcome> {
    let modifiers: KeyModifier[];
    try {
      modifiers = requireModifiers(options, `ctx.actions.${verb}`);
    } catch (error) {
      return Promise.reject(error);
    }
    if (modifiers.length === 0) return node(verb, verb, target, { verb });
    if (!host.tapModifiers) return Promise.reject(unsupported(`${verb} with modifiers`, 'ctx.target.tapModifiers is false'));
    return node(verb, verb, target, { verb, modifiers }, { args: { modifiers }, sentence: { modifiers } });
  }

  async function scrollUntil(direction: ScrollDirection, until: unknown, options: ScrollUntilOptions | undefined): Promise<ActionOutcome> {
    const label = 'ctx.actions.scrollUntil';
    if (!['up', 'down', 'left', 'right'].includes(direction)) throw new E2EError('INVALID_ARGUMENT', `${label} takes a direction: up, down, left or right.`);
    if (typeof until !== 'function') throw new E2EError('INVALID_ARGUMENT', `${label}(direction, until) needs a function (observation) => boolean as \`until\`.`);
    const maxScrolls = options?.maxScrolls ?? DEFAULT_MAX_SCROLLS;
    if (!Number.isInteger(maxScrolls) || maxScrolls < 1 || maxScrolls > 100) throw new E2EError('INVALID_ARGUMENT', `${label}: maxScrolls must be a whole number from 1 to 100.`);
    const target = options?.target === undefined ? undefined : normalizeRef(options.target, label);
    if (!host.verbs.has('scroll')) throw unsupported('scrollUntil');
    const holds = until as (observation: Observation) => boolean;
    session.assertUsable(label);
    const start = await session.serialize(async () => {
      const screen = await capture();
      session.latest = screen;
      return screen;
    });
    let observation = host.present(start, { tree: true });
    if (holds(observation)) return { changes: `${label}: the condition already holds; nothing was scrolled.`, observation };
    for (let scrolled = 1; scrolled <= maxScrolls; scrolled++) {
      const previous = JSON.stringify(observation.tree ?? observation.text);
      observation = (await actions.scroll(direction, target)).observation;
      const changes = session.latest === undefined ? observation.text : host.observer.changes(start, session.latest);
      if (holds(observation)) return { changes, observation };
      if (JSON.stringify(observation.tree ?? observation.text) === previous) {
        throw new E2EError('ACTION_FAILED', `${label}: scrolling ${direction} no longer changes the screen after ${scrolled} scroll(s), and the condition does not hold.\n${observation.text}`);
      }
    }
    throw new E2EError('ACTION_FAILED', `${label}: the condition does not hold after ${maxScrolls} scrolls ${direction}; raise maxScrolls or scroll another way.\n${observation.text}`);
  }

  const actions: StepActions = {
    tap: (target, options) => tapLike('tap', target, options),
    doubleTap: (target, options) => tapLike('doubleTap', target, options),
    longPress: (target) => node('longPress', 'longPress', target, { verb: 'longPress' }),
    secondaryTap: (target, options) => tapLike('secondaryTap', target, options),
    hover: (target) => node('hover', 'hover', target, { verb: 'hover' }),
    type,
    typeSecret,
    press: (target, key) => {
      const pressed = requireString(key, 'ctx.actions.press(target, key): key');
      const extra = { args: { key: pressed }, sentence: { key: pressed } };
      return target === undefined
        ? page('press', 'press', { verb: 'press', key: pressed }, extra)
        : node('press', 'press', target, { verb: 'press', key: pressed }, extra);
    },
    select: (target, value) => {
      const option = requireString(value, 'ctx.actions.select(target, value): value');
      return node('select', 'select', target, { verb: 'select', value: option }, {
        args: { value: option },
        value: origin(option),
        sentence: { value: { kind: 'literal', value: option } },
      });
    },
    check: (target, checked = true) =>
      node('check', 'check', target, { verb: 'check', checked }, { args: { checked }, sentence: { checked } }),
    scroll: (direction, target) => {
      if (!['up', 'down', 'left', 'right'].includes(direction)) {
        return Promise.reject(new E2EError('INVALID_ARGUMENT', 'ctx.actions.scroll takes a direction: up, down, left or right.'));
      }
      const extra = { args: { direction }, sentence: { direction } };
      return target === undefined
        ? page('scroll', 'scroll', { verb: 'scroll', direction }, extra)
        : node('scroll', 'scroll', target, { verb: 'scroll', direction }, extra);
    },
    scrollTo: (target) => node('scrollTo', 'scrollTo', target, { verb: 'scrollTo' }),
    scrollUntil: (direction, until, options) => scrollUntil(direction, until, options),
    upload: (target, paths) => {
      const ref = normalizeRef(target, 'ctx.actions.upload');
      let checked: string[] = [];
      return perform({
        verb: 'upload',
        needs: 'upload',
        target: ref,
        args: { paths: [...(Array.isArray(paths) ? paths : [])] },
        sentence: { paths: Array.isArray(paths) ? paths : [] },
        authorize: async () => {
          try {
            checked = await checkUploadPaths(paths, host.projectRoot);
          } catch (error) {
            if (isE2EError(error) && error.code === 'POLICY_DENIED') session.stop(error);
            throw error;
          }
        },
        run: (options) => host.engine.perform(ref, { verb: 'upload', paths: checked }, options),
      });
    },
    drag: (target, destination) => {
      const to = normalizeRef(destination, 'ctx.actions.drag(target, destination): destination');
      return node('drag', 'drag', target, { verb: 'drag', destination: to }, { destination: to, args: { destination: to } });
    },
    navigate: (url) => {
      const text = requireString(url, 'ctx.actions.navigate(url)');
      let absolute: string;
      try {
        absolute = new URL(text, host.engine.session.url() === 'about:blank' ? undefined : host.engine.session.url()).href;
      } catch {
        return Promise.reject(new E2EError('INVALID_ARGUMENT', `ctx.actions.navigate: \`${redact(text)}\` is not a URL.`));
      }
      const shown = redact(describeUrl(absolute));
      return page('navigate', 'navigate', { verb: 'navigate', url: absolute }, {
        args: { url: redact(absolute) },
        sentence: { url: shown },
        authorize: () => {
          const decision = host.policy.check(absolute);
          if (!decision.allowed) {
            const error = new E2EError('POLICY_DENIED', redact(`Navigation to ${shown} refused: ${decision.reason}.`));
            session.stop(error);
            throw error;
          }
        },
      });
    },
    back: () => page('back', 'back', { verb: 'back' }),
    resize: (size) => {
      const width = (size as { width?: unknown } | undefined)?.width;
      const height = (size as { height?: unknown } | undefined)?.height;
      const valid = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 10_000;
      if (!valid(width) || !valid(height)) {
        return Promise.reject(new E2EError('INVALID_ARGUMENT', 'ctx.actions.resize takes { width, height } in whole CSS pixels from 1 to 10000.'));
      }
      return page('resize', 'resize', { verb: 'resize', width, height }, { args: { width, height }, sentence: { size: { width, height } } });
    },
    typeText: (value) => {
      const text = requireString(value, 'ctx.actions.typeText(value)');
      if (host.vault.containsSecret(text)) {
        const error = new E2EError('POLICY_DENIED', 'typeText refused: the value contains a configured secret; use typeSecret(target, name).');
        session.stop(error);
        return Promise.reject(error);
      }
      return page('typeText', 'type', { verb: 'typeText', value: text }, { args: { value: text }, value: origin(text), sentence: { value: { kind: 'literal', value: text } } });
    },
    pressKey: (key) => {
      const pressed = requireString(key, 'ctx.actions.pressKey(key)');
      return page('pressKey', 'press', { verb: 'press', key: pressed }, { args: { key: pressed }, sentence: { key: pressed } });
    },
    dismissKeyboard: () => Promise.reject(unsupported('dismissKeyboard', 'it shows no on-screen keyboard')),
    tapAt: (point) => pointAction('tapAt', point),
    hoverAt: (point) => pointAction('hoverAt', point),
    dragAt: (from, to) => {
      const start = requirePoint(from, 'ctx.actions.dragAt(from, to): from');
      const end = requirePoint(to, 'ctx.actions.dragAt(from, to): to');
      if (host.engine.performAt !== undefined && host.verbs.has('dragAt')) {
        const performAt = host.engine.performAt.bind(host.engine);
        return perform({
          verb: 'dragAt',
          needs: 'dragAt',
          args: { from: start, to: end },
          sentence: { point: start, to: end },
          run: (options) => performAt(start, { verb: 'dragAt', to: end }, options),
        });
      }
      if (!host.verbs.has('drag')) return Promise.reject(unsupported('dragAt'));
      const screen = session.latest;
      const source = screen === undefined ? undefined : nodeAtPoint(screen.tree, start);
      const target = screen === undefined ? undefined : nodeAtPoint(screen.tree, end);
      if (source === undefined || target === undefined || source.id === target.id) {
        return Promise.reject(unsupported('dragAt', 'the points must land on two different listed controls of the latest observation'));
      }
      return node('dragAt', 'drag', { id: source.id }, { verb: 'drag', destination: { id: target.id } }, {
        destination: { id: target.id },
        args: { from: start, to: end },
        sentence: { point: start, to: end },
      });
    },
    hitTest: (point) => {
      const where = requirePoint(point, 'ctx.actions.hitTest');
      session.assertUsable('ctx.actions.hitTest');
      return session.serialize(async () => {
        if (host.engine.hitTest !== undefined) return host.engine.hitTest(where);
        const screen = session.latest ?? (await capture());
        session.latest = screen;
        const under = nodeAtPoint(screen.tree, where);
        return under === undefined ? undefined : { id: under.id };
      });
    },
  };
  return actions;
}
