/**
 * The one way a recording becomes an entry, for `act` and judgment entries alike: the strict
 * schema, the size cap, and no configured secret value anywhere in it.
 */
import type { ZodType } from 'zod';
import { MAX_ENTRY_BYTES } from '../cache-format/entry.js';

/** An entry ready to write, or why the step cannot be cached. */
export type EntryResult<E> = { kind: 'entry'; entry: E } | { kind: 'not-cacheable'; reason: string };

/** Longest verdict summary an entry keeps. */
export const MAX_SUMMARY_CHARS = 1024;

/** Validate `candidate` with `schema`; `clean` (the attempt's outbound boundary) must find no secret in it. Never throws on bad input. */
export function validateEntry<E>(schema: ZodType<E>, candidate: unknown, clean?: (text: string) => boolean): EntryResult<E> {
  const parsed = schema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // Name where, never what: the offending value may be anything the page showed.
    return { kind: 'not-cacheable', reason: `the entry does not validate at ${issue?.path.join('.') ?? 'its root'}: ${issue?.code ?? 'invalid'}` };
  }
  const text = JSON.stringify(parsed.data);
  if (text.length > MAX_ENTRY_BYTES) return { kind: 'not-cacheable', reason: `the entry is larger than ${MAX_ENTRY_BYTES} bytes` };
  if (clean !== undefined && !clean(text)) return { kind: 'not-cacheable', reason: 'the entry would contain a secret value' };
  return { kind: 'entry', entry: parsed.data };
}
