/**
 * One table of what each error code means to the parts that react to it: its exit class
 * (DESIGN §3) and the traits the step runner, the tool loop, the replayer and the attempt
 * cache decide by. A new code gets one row here and nowhere else.
 */
import type { ErrorCode, ExitClass } from './error-codes.js';

/** What one code means beyond its name. */
export interface CodeTraits {
  /** The run's exit code class when this code ends a test. */
  exit: ExitClass;
  /** Only the runtime may assert it: an executor's verdict may carry it only when it holds. */
  runtimeOnly: boolean;
  /** Ends the step whatever the model would try next: a tool loop rethrows it instead of telling the model. */
  hardStop: boolean;
  /** Ends a replay at once (the step, not just the replay): no hand-off to the agent. */
  endsReplay: boolean;
  /** Raised before anything reached the app: a failed action with it changed nothing. */
  preFlight: boolean;
  /** A refused or timed-out action may still have reached the app (the agent looks before repeating it). */
  mayHaveCommitted: boolean;
  /** No model answered: the attempt changes no cache entry. */
  noModel: boolean;
  /** After it no cache entry changes: no model answered, the run was model-free, or it was interrupted. */
  freezesCache: boolean;
}

type Trait = Exclude<keyof CodeTraits, 'exit'>;

/** A row: the exit class and the traits that hold (the rest are false). */
function row(exit: ExitClass, ...traits: Trait[]): CodeTraits {
  const has = (trait: Trait): boolean => traits.includes(trait);
  return {
    exit,
    runtimeOnly: has('runtimeOnly'),
    hardStop: has('hardStop'),
    endsReplay: has('endsReplay'),
    preFlight: has('preFlight'),
    mayHaveCommitted: has('mayHaveCommitted'),
    noModel: has('noModel'),
    freezesCache: has('freezesCache') || has('noModel'),
  };
}

/** Every code's traits. */
export const CODE_TRAITS: Readonly<Record<ErrorCode, CodeTraits>> = {
  // exit 1: test failure
  ASSERTION_FAILED: row(1),
  ASSERTION_INCONCLUSIVE: row(1),
  ACTION_FAILED: row(1),
  LOCATOR_NOT_FOUND: row(1),
  AUTOMATION_UNSUPPORTED: row(1),
  STEP_BUDGET_EXHAUSTED: row(1, 'runtimeOnly', 'hardStop', 'endsReplay'),
  STEP_TIMEOUT: row(1, 'runtimeOnly', 'hardStop', 'endsReplay', 'mayHaveCommitted'),
  STEP_NO_CONCLUSION: row(1),
  MODEL_OUTPUT_INVALID: row(1),
  CONTEXT_OVERFLOW: row(1),
  TEST_TIMEOUT: row(1, 'hardStop', 'endsReplay'),
  // exit 2: configuration
  INVALID_CONFIG: row(2),
  MODEL_UNAVAILABLE: row(2, 'hardStop', 'noModel'),
  AUTH_CREDENTIAL_INVALID: row(2),
  AUTH_CREDENTIAL_UNAVAILABLE: row(2),
  SECRET_UNAVAILABLE: row(2, 'hardStop', 'preFlight'),
  SEED_DATA_MISSING: row(2),
  TEST_SETUP_FAILED: row(2),
  POLICY_DENIED: row(2, 'hardStop', 'mayHaveCommitted'),
  REPLAY_STALE: row(2, 'freezesCache'),
  UNSUPPORTED_CAPABILITY: row(2, 'preFlight'),
  // exit 3: infrastructure
  ENVIRONMENT_UNAVAILABLE: row(3, 'hardStop'),
  APP_UNREACHABLE: row(3, 'hardStop'),
  MODEL_PROVIDER_FAILED: row(3, 'hardStop', 'noModel'),
  ENGINE_FAILURE: row(3, 'hardStop'),
  // exit 130
  CANCELLED: row(130, 'runtimeOnly', 'hardStop', 'endsReplay', 'freezesCache'),
  // programmer / argument errors (exit 2 when they reach the CLI)
  INVALID_ARGUMENT: row(2, 'preFlight'),
  INVALID_STATE: row(2, 'hardStop'),
  CACHE_WRITE_FAILED: row(3),
  CACHE_VERSION_UNSUPPORTED: row(2),
};

/** The traits of `code`. */
export function traitsOf(code: ErrorCode): CodeTraits {
  return CODE_TRAITS[code];
}

/** True when `code` has `trait` (false for no code). */
export function hasTrait(code: ErrorCode | undefined, trait: Trait): boolean {
  return code !== undefined && CODE_TRAITS[code][trait];
}

/** The codes with `trait`, in table order. */
export function codesWith(trait: Trait): ErrorCode[] {
  return (Object.keys(CODE_TRAITS) as ErrorCode[]).filter((code) => CODE_TRAITS[code][trait]);
}
