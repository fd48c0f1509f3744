/**
 * What every policed action of one step shares: the attempt's services (`ActionHost`), the
 * step's session, and the small helpers each verb's call needs (the latest screen, a refusal
 * naming the engine's verbs, where a typed value came from).
 */
import { E2EError } from '../errors/index.js';
import type { EngineInstance, Verb } from '../contract/engine.js';
import type { Observation } from '../contract/step-contract.js';
import type { ActionEvent, RunnerObservation, ValueOrigin } from '../contract/step-seams.js';
import type { SecretVault } from '../secrets/vault.js';
import type { OriginPolicy } from './origin-policy.js';
import type { ScreenObserver } from './screen-observer.js';
import type { SettleMode } from './settle.js';
import type { StepSession } from './step-session.js';

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

/** One step's policed actions: the host, the session, and how far each action settles. */
export class PolicedScope {
  constructor(
    readonly host: ActionHost,
    readonly session: StepSession,
    readonly settleMode: SettleMode,
  ) {}

  redact(text: string): string {
    return this.host.vault.redact(text);
  }

  /** A fresh screen, timed as observing. */
  capture(): Promise<RunnerObservation> {
    return this.session.timed('observeMs', () => this.host.observer.capture(this.session.deadline.signal));
  }

  /** The newest screen the step saw, observing one when it saw none. */
  async latest(): Promise<RunnerObservation> {
    const screen = this.session.latest ?? (await this.capture());
    this.session.latest = screen;
    return screen;
  }

  /** A fresh screen for a failure message, or undefined when it cannot be read. */
  async currentScreen(): Promise<RunnerObservation | undefined> {
    try {
      const observation = await this.capture();
      this.session.latest = observation;
      return observation;
    } catch {
      return undefined;
    }
  }

  /** `UNSUPPORTED_CAPABILITY` for a verb (or a use of one) the engine does not offer. */
  unsupported(verb: string, why?: string): E2EError {
    return new E2EError(
      'UNSUPPORTED_CAPABILITY',
      `${verb} is not supported by the ${this.host.platform} engine${why === undefined ? '' : ` (${why})`}; offer the model only ctx.target.verbs: ${[...this.host.verbs].join(', ')}.`,
    );
  }

  /** Where a typed value came from: a `unique()` param's value, a literal param's, or neither. */
  origin(value: string): ValueOrigin {
    const sources = Object.entries(this.session.paramSources);
    for (const [name, source] of sources) {
      if (source.kind === 'unique' && source.value === value) return { kind: 'unique', param: name };
    }
    for (const [name, source] of sources) {
      if (source.kind === 'literal' && source.value === value) return { kind: 'param', name };
    }
    return { kind: 'literal' };
  }

  /** End the step with a policy refusal, and throw it. */
  deny(error: E2EError): never {
    this.session.stop(error);
    throw error;
  }
}
