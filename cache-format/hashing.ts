/**
 * The one xxhash instance of the cache: keys and content addresses are 64-bit xxhash (XXH64)
 * in 16 lower-case hex digits. The WebAssembly module is compiled once, lazily, on first use.
 */
import xxhash from 'xxhash-wasm';

type Hasher = Awaited<ReturnType<typeof xxhash>>;

let loading: Promise<Hasher> | undefined;
let ready: Hasher | undefined;

/**
 * Compiles the hashing module (once per process). Every hashing function awaits it by itself;
 * call this early only to take the one-off cost (a few milliseconds) out of a timed path.
 */
export async function initHashing(): Promise<void> {
  await loadHasher();
}

async function loadHasher(): Promise<Hasher> {
  if (ready !== undefined) return ready;
  loading ??= xxhash().then((hasher) => (ready = hasher));
  return loading;
}

/** XXH64 (seed 0) of `bytes` as 16 lower-case hex digits. */
export async function hash64Hex(bytes: Uint8Array): Promise<string> {
  const hasher = ready ?? (await loadHasher());
  return hasher.h64Raw(bytes).toString(16).padStart(16, '0');
}

const utf8 = new TextEncoder();

/** XXH64 (seed 0) of the UTF-8 bytes of `text` as 16 lower-case hex digits. */
export async function hashTextHex(text: string): Promise<string> {
  return hash64Hex(utf8.encode(text));
}
