/**
 * Redaction bench (issue 26: secrets of any length). A 64 KiB secret (a private key, a long
 * JWT) and a 2 KiB one, each redacted from a 1 MiB text that holds it raw, base64-embedded,
 * JSON-escaped, grouped in fours and clipped, between ordinary report lines; the time of the
 * same text with twice the length shows the cost grows with the text, not faster.
 *
 * Figures (milliseconds, median of the timed runs):
 * - `redact_ms_64k_secret`: redacting the 1 MiB text with the 64 KiB secret configured;
 * - `redact_build_ms_64k_secret`: building that redactor (every form of the value, once);
 * - `redact_ms_2k_secret`: the same text with a 2 KiB secret;
 * - `redact_growth_2x_text`: time for twice the text / time for the text (linear: about 2).
 *
 * Run alone with `node --import tsx bench/redact.ts`; in `npm run bench` it is the section
 * {@link redactSection} (listed in `bench/run.ts`).
 */
import { pathToFileURL } from 'node:url';
import { createSecretRedactor, type SecretRedactor } from '../secrets/redactor.js';
import { seededKey } from '../tests/support/seeded-text.js';
import type { BenchSection } from './run.js';

const TEXT_BYTES = 1 << 20;
const TIMED_RUNS = 7;

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** About `bytes` of report-like text with the value in five renderings spread through it. */
function textHolding(value: string, bytes: number): string {
  const renderings = [
    value,
    `Authorization: Basic ${Buffer.from(`user:${value}`).toString('base64')}`,
    JSON.stringify({ token: value }),
    (value.match(/.{1,4}/g) ?? []).join(' '),
    `${value.slice(0, Math.ceil(value.length / 2))}…`,
  ];
  const filler = '  ✓ 12 [web] › todos.e2e.ts:4:1 › adds and completes todos (1.2s) · cache: replayed, no model call\n';
  const parts: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index++) {
    const part = index % 40 === 20 ? `${renderings[(index / 40) % renderings.length | 0]}\n` : filler;
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

function medianMs(redactor: SecretRedactor, text: string): number {
  const durations: number[] = [];
  for (let warmup = 0; warmup < 3; warmup++) redactor.redact(text);
  for (let run = 0; run < TIMED_RUNS; run++) {
    const started = performance.now();
    const redacted = redactor.redact(text);
    durations.push(performance.now() - started);
    if (redacted === text) throw new Error('bench text was not redacted');
  }
  durations.sort((left, right) => left - right);
  return durations[Math.floor(durations.length / 2)]!;
}

/** Run the redaction bench; `log` gets progress lines. */
export function runRedactBench(log: (line: string) => void = () => {}): Record<string, number> {
  const long = seededKey(64 * 1024, 64);
  const started = performance.now();
  const longRedactor = createSecretRedactor([['privateKey', long]]);
  const buildMs = performance.now() - started;
  log(`redact: built the 64 KiB secret's redactor in ${round(buildMs)} ms`);
  const text = textHolding(long, TEXT_BYTES);
  const longMs = medianMs(longRedactor, text);
  const doubledMs = medianMs(longRedactor, textHolding(long, 2 * TEXT_BYTES));
  const short = seededKey(2 * 1024, 2);
  const shortMs = medianMs(createSecretRedactor([['jwt', short]]), textHolding(short, TEXT_BYTES));
  return {
    redact_ms_64k_secret: round(longMs),
    redact_build_ms_64k_secret: round(buildMs),
    redact_ms_2k_secret: round(shortMs),
    redact_growth_2x_text: round(doubledMs / longMs),
  };
}

/** The redaction section of `npm run bench`. */
export const redactSection: BenchSection = {
  name: 'redact',
  run: (context) => Promise.resolve(runRedactBench(context.log)),
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(runRedactBench((line) => process.stderr.write(`${line}\n`)), null, 2)}\n`);
}
