/**
 * The host delegate (DESIGN §8): what the test host (the runner, on Playwright Test) needs from
 * an engine's platform, and what it hands an engine in return. The runner asks these questions
 * of whichever engine a target names and imports none of them, so engines are siblings: `web()`
 * asks for a browser, `terminal()` for nothing, a user's engine for what it needs.
 *
 * Nothing here knows a browser's API. A browser travels as `unknown`; the engine that asked for
 * it knows what it is (on the web, Playwright's `Browser` of the project's own Playwright).
 */
import type { MutationSurface } from './mutation.js';

/** The environment variables the host passes on (the runner entry reads `process.env`; engines never do). */
export type HostEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * The browser a web-based engine asks the host for, once per worker, on the first attempt
 * that needs it. `launch`: the host launches it with its own Playwright, these options beneath
 * the project's `use.launchOptions` (which win). `connect`: the host connects to a remote
 * Playwright browser server. The project's `use.connectOptions`, when set, win over both.
 */
export type BrowserRequest =
  | { kind: 'launch'; executablePath?: string; args?: readonly string[]; headless?: boolean }
  | { kind: 'connect'; wsEndpoint: string; headers?: Readonly<Record<string, string>>; timeoutMs?: number };

/** How the host will run the browser it asks for: `headless` false when the project shows the window (`--headed`, `use.headless`). */
export interface BrowserWants {
  headless: boolean;
}

/** A target's `app`, as its engine checked it. */
export type AppCheck = { ok: true; app: CheckedApp } | { ok: false; problem: string };

/** What an engine made of a target's `app`. */
export interface CheckedApp {
  /** The app's cache identity (a key part: entries of another identity never replay here). */
  identity: string;
  /** The config as the engine wants it back in {@link import('./engine.js').EngineStartOptions.app}. */
  config: unknown;
}

/**
 * What an engine tells the host about its platform. Every member is optional: an engine
 * without a delegate gets no browser, and its target's `app` is taken as it is (a plain
 * object; `identity`, when a string, is its cache identity, else the engine's name).
 * Engines with the `url` location (see `Engine.location`) have their `app` checked by the
 * host instead: `{ url, identity? }`, http(s).
 */
export interface EngineHost {
  /**
   * Check a target's `app` (engines without a location). `problem` is one line naming the
   * key and the fix; the config load fails `INVALID_CONFIG` with it.
   */
  app?(config: unknown): AppCheck;
  /**
   * The browser this engine drives, when the host should start it (web-based engines). Called
   * in a worker when its first attempt starts; may throw `ENVIRONMENT_UNAVAILABLE` with the fix
   * (no browser found). Engines that do not declare it never cause a browser to start.
   * `wants` says how the project runs it (a headless shell cannot show a window); hosts
   * before it was added pass none.
   */
  browser?(environment: HostEnvironment, wants?: BrowserWants): BrowserRequest;
}

/** A recording the host asks an attempt to make (the test's `use.video`). */
export interface RecordingRequest {
  /** Folder the engine records into (one attempt's own). */
  dir: string;
  /** Frame size, when the test set one. */
  size?: { width: number; height: number };
}

/** A file an attempt recorded, attached to the test by the host (withheld after a secret fill). */
export interface RecordedFile {
  /** Attachment name, e.g. `video`. */
  name: string;
  path: string;
  contentType: string;
}

/** What the host hands an engine when an attempt starts. */
export interface HostServices {
  /**
   * The worker's browser, started on the first call with the engine's {@link BrowserRequest}
   * and shared by the worker's attempts (and the test's own `page` and `browser` fixtures).
   * Present only for engines whose delegate declares `browser`. Rejects
   * `ENVIRONMENT_UNAVAILABLE` with the fix when it does not start.
   */
  browser?(): Promise<unknown>;
  /** Set when the test records video of this attempt (`use.video`). */
  recording?: RecordingRequest;
  /**
   * The host's environment variables (the runner entry's `process.env`), for an engine that
   * starts a program and hands it an environment; engines never read `process.env` themselves.
   */
  environment?: HostEnvironment;
}

/** What the host needs from one running attempt (all optional; an engine offers what it has). */
export interface AttemptHost {
  /**
   * The value of the test's `screen` fixture: on the web the attempt's Playwright `Page`, so
   * every locator works. Absent: `screen` throws `UNSUPPORTED_CAPABILITY` when used.
   */
  readonly screen?: unknown;
  /**
   * What `e2e cache audit` does to the live app (`contract/mutation.ts`). Absent: the audit's
   * `break-handlers` and `hide-evidence` mutants are not run on this engine (`skip-action` is).
   */
  readonly mutations?: MutationSurface;
  /**
   * The ids, in the engine's latest observation, of the nodes a passed assertion's subject
   * matches (on the web: a Playwright `Locator`), so the recording rests its end check on what
   * the test checked. Undefined when the subject is not the engine's or matches nothing.
   */
  lookedAt?(subject: unknown): Promise<readonly string[] | undefined>;
  /** Files the attempt recorded (a video), complete once the attempt closed. */
  recordings?(): Promise<readonly RecordedFile[]>;
}
