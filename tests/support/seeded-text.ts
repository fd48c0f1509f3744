/** Deterministic text for tests and benches: the same seed gives the same characters on every machine. */

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** `length` characters of the base64 alphabet from a linear congruential sequence seeded by `seed` (a key's body). */
export function seededKey(length: number, seed: number): string {
  let state = seed;
  let text = '';
  for (let index = 0; index < length; index++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    text += BASE64_ALPHABET[state % BASE64_ALPHABET.length];
  }
  return text;
}
