/** What a call threw or a promise rejected with, for tests that look at the error itself. */

/** The error `action` threw, or undefined when it returned. */
export function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The reason `promise` rejected with, or undefined when it resolved. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}
