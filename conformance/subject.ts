/**
 * What an engine's author hands the conformance suite (`e2e/conformance`): the engine, how to
 * open its app, and one small scenario every engine can play — a field that takes typed text
 * and a key that submits it, after which the text shows on the screen — on the app and on a
 * broken copy of it where submitting does nothing (the planted regression the cache must not
 * pass).
 */
import type { Engine } from '../contract/engine.js';
import type { HostServices } from '../contract/host.js';

/** A control of the scenario, found on the screen by its role and accessible name. */
export interface ConformanceControl {
  role: string;
  name: string;
}

/** One app the checks open: the target's `app` and, for an engine with the `url` location, the URL to open. */
export interface ConformanceApp {
  /** The target's `app` as a config gives it (`{ url }` for a `url` engine; checked by the engine's `host.app` otherwise). */
  app: unknown;
  /** Engines with the `url` location: the absolute URL `session.open` goes to. Ignored otherwise (`session.open()` starts the app). */
  open?: string;
  /**
   * Run before each attempt on this app starts, e.g. to put the broken build in place where the
   * app runs (a URL engine's broken app must sit at the same route as the app, or its replay
   * drifts instead of finding the regression).
   */
  prepare?: () => void | Promise<void>;
}

/** The engine under test and its scenario. */
export interface ConformanceSubject {
  /** Shown in check titles, e.g. `web`. */
  name: string;
  /** The engine. Every check starts (and closes) attempts of its own on it; dispose it after the checks. */
  engine: Engine;
  /** What the host hands `start()` (a browser for a web-based engine). Default: nothing, as outside a test host. */
  host?: () => HostServices | Promise<HostServices>;
  /** The app the scenario runs on. */
  app: ConformanceApp;
  /** The same app with the submit broken: typing works, submitting shows nothing. */
  broken: ConformanceApp;
  /** The field the scenario types into. */
  field: ConformanceControl;
  /** The key that submits the field. Default `Enter`. */
  submit?: string;
  /** A field whose typed value must never show (a password), when the app has one. */
  secure?: ConformanceControl;
  /** How long a check waits for the screen to show an effect. Default 10 s. */
  timeoutMs?: number;
  /**
   * How long a replay waits for a recorded control or outcome (the replayer's target wait).
   * The broken app's replay waits it out, since the outcome never comes. Default 3 s.
   */
  replayWaitMs?: number;
}
