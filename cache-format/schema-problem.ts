/**
 * Turns a zod failure on decoded cache bytes into a message that names where the entry
 * broke the schema without quoting it: field names the schema declares are shown, numeric
 * indices are shown, every other path segment (a record key, an unknown field) is `[…]`, and
 * zod's own messages (which can quote keys) are never used.
 */
import { z } from 'zod';

type Issue = z.core.$ZodIssue;

/** The field names declared anywhere in `schemas` (safe to print: they come from code). */
export function declaredFieldNames(...schemas: z.ZodType[]): ReadonlySet<string> {
  const names = new Set<string>();
  const seen = new Set<z.ZodType>();
  const visit = (schema: z.ZodType): void => {
    if (seen.has(schema)) return;
    seen.add(schema);
    if (schema instanceof z.ZodObject) {
      for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
        names.add(name);
        visit(field);
      }
    } else if (schema instanceof z.ZodArray) visit(schema.element as z.ZodType);
    else if (schema instanceof z.ZodUnion) for (const option of schema.options as z.ZodType[]) visit(option);
    else if (schema instanceof z.ZodOptional) visit(schema.unwrap() as z.ZodType);
    else if (schema instanceof z.ZodRecord) visit(schema.valueType as z.ZodType);
  };
  for (const schema of schemas) visit(schema);
  return names;
}

/** `actions[2].target.name`, with undeclared names as `[…]`; `the top level` for an empty path. */
export function describePath(path: readonly PropertyKey[], fieldNames: ReadonlySet<string>): string {
  if (path.length === 0) return 'the top level';
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && fieldNames.has(segment)) text += text === '' ? segment : `.${segment}`;
    else text += '[…]';
  }
  return `\`${text}\``;
}

function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'too_big':
      return `too large or too long: at most ${String(issue.maximum)}`;
    case 'too_small':
      return `too small or too short: at least ${String(issue.minimum)}`;
    case 'unrecognized_keys':
      return `${issue.keys.length === 1 ? 'a field' : `${issue.keys.length} fields`} the schema does not declare`;
    case 'invalid_value':
      return 'not one of the allowed values';
    case 'invalid_union':
      return 'matches none of the allowed shapes';
    case 'invalid_format':
      return `not a valid ${issue.format}`;
    default:
      return issue.code;
  }
}

/** One sentence for a failed parse: the first problem's path and kind, and how many more there are. */
export function describeSchemaError(error: z.ZodError, fieldNames: ReadonlySet<string>): string {
  const [first, ...rest] = error.issues;
  if (first === undefined) return 'it does not match the entry schema';
  const more = rest.length === 0 ? '' : ` (and ${rest.length} more problem${rest.length === 1 ? '' : 's'})`;
  return `it does not match the entry schema at ${describePath(first.path, fieldNames)}: ${describeIssue(first)}${more}`;
}
