/**
 * Runs independent pieces of work a few at a time: for tests whose time goes on waits that are
 * meant to run out (a replay waiting for a control a planted regression removed), which leave the
 * processor idle; the results keep the order of the items.
 */

/** `run` over `items`, at most `limit` at once; the results in the items' order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}
