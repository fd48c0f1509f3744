/**
 * `unique()` values in recorded text. A control named after a run-time value (a list item
 * showing this run's fresh email) is recorded with `{unique:<param>}` in place of the value,
 * and replay fills in the current run's value before it compares.
 */

/** Shortest unique value that is masked; shorter ones would hit unrelated text. */
export const MIN_MASKED_UNIQUE_CHARS = 4;

/** The placeholder written for a `unique()` param. */
export function uniquePlaceholder(param: string): string {
  return `{unique:${param}}`;
}

/** Replace each occurrence of a `unique()` value (longest first) with its placeholder. */
export function maskUniqueValues(text: string, uniqueValues: Readonly<Record<string, string>>): string {
  const entries = Object.entries(uniqueValues)
    .filter(([, value]) => value.length >= MIN_MASKED_UNIQUE_CHARS)
    .sort(([, left], [, right]) => right.length - left.length);
  let result = text;
  for (const [param, value] of entries) result = result.split(value).join(uniquePlaceholder(param));
  return result;
}

/**
 * Replace `{unique:<param>}` placeholders with this run's values. A placeholder whose param
 * has no value is left as is, so it can never match live text by accident.
 */
export function fillUniquePlaceholders(text: string, uniqueValues: Readonly<Record<string, string>>): string {
  if (!text.includes('{unique:')) return text;
  return text.replace(/\{unique:([^{}]+)\}/g, (placeholder, param: string) =>
    Object.hasOwn(uniqueValues, param) ? uniqueValues[param]! : placeholder,
  );
}

/** Apply `transform` to every text field of a description-like record (not its role). */
export function mapTextFields<
  T extends { name: string; text?: string | undefined; placeholder?: string | undefined; container?: { role: string; name: string } | undefined },
>(
  value: T,
  transform: (text: string) => string,
): T {
  const result: T = { ...value, name: transform(value.name) };
  if (value.text !== undefined) result.text = transform(value.text);
  if (value.placeholder !== undefined) result.placeholder = transform(value.placeholder);
  if (value.container !== undefined) result.container = { role: value.container.role, name: transform(value.container.name) };
  return result;
}
