/**
 * The shape of a judgment's answer, for models that do not follow a schema on their own:
 * stated as a short field list (never a schema dump), and read back tolerantly where the
 * meaning is unambiguous: JSON inside prose or a code fence, extra keys, `"true"` / `"3"`
 * for booleans and numbers, one value where a list was asked for.
 */
import { z } from 'zod';

/** The subset of JSON Schema a zod schema renders to that the shape and the reading need. */
export interface JsonShape {
  type?: string | string[];
  properties?: Record<string, JsonShape>;
  required?: string[];
  additionalProperties?: boolean | JsonShape;
  items?: JsonShape | JsonShape[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonShape[];
  oneOf?: JsonShape[];
  description?: string;
}

/** The JSON Schema of `schema`, or undefined when zod cannot render it. */
export function jsonShapeOf(schema: z.ZodType): JsonShape | undefined {
  try {
    return z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonShape;
  } catch {
    return undefined;
  }
}

function typesOf(shape: JsonShape): string[] {
  if (shape.type === undefined) return [];
  return Array.isArray(shape.type) ? shape.type : [shape.type];
}

function alternativesOf(shape: JsonShape): JsonShape[] | undefined {
  return shape.anyOf ?? shape.oneOf;
}

/** A short type expression: `string`, `"a" or "b"`, `list of string`, `{ "n": number }`. */
export function typeExpression(shape: JsonShape, depth = 0): string {
  if (shape.const !== undefined) return JSON.stringify(shape.const);
  if (shape.enum !== undefined) return shape.enum.map((value) => JSON.stringify(value)).join(' or ');
  const alternatives = alternativesOf(shape);
  if (alternatives !== undefined) return alternatives.map((item) => typeExpression(item, depth)).join(' or ');
  const types = typesOf(shape);
  if (types.length > 1) return types.map((type) => typeExpression({ ...shape, type }, depth)).join(' or ');
  switch (types[0]) {
    case 'array': {
      const items = Array.isArray(shape.items) ? shape.items[0] : shape.items;
      return `list of ${items === undefined ? 'values' : typeExpression(items, depth + 1)}`;
    }
    case 'object': {
      if (shape.properties === undefined || depth > 3) return 'object';
      const required = new Set(shape.required ?? []);
      const fields = Object.entries(shape.properties).map(([key, value]) => `${JSON.stringify(key)}${required.has(key) ? '' : ' (optional)'}: ${typeExpression(value, depth + 1)}`);
      return `{ ${fields.join(', ')} }`;
    }
    case 'integer':
      return 'whole number';
    case undefined:
      return 'any value';
    default:
      return types[0];
  }
}

/**
 * The answer's shape as the prompt states it: one line per key of the top-level object
 * (`- "verdict": "holds" or "fails" — what decides it`), or one type expression.
 */
export function describeShape(shape: JsonShape | undefined): string {
  if (shape === undefined) return 'A JSON value.';
  if (typesOf(shape)[0] !== 'object' || shape.properties === undefined) return `A JSON value: ${typeExpression(shape)}.`;
  const required = new Set(shape.required ?? []);
  const lines = Object.entries(shape.properties).map(([key, value]) => {
    const note = value.description === undefined ? '' : ` (${value.description})`;
    return `- ${JSON.stringify(key)}${required.has(key) ? '' : ' (optional)'}: ${typeExpression(value)}${note}`;
  });
  return ['A JSON object with these keys:', ...lines].join('\n');
}

/** The JSON texts a reply may hold, most likely first: the whole reply, fenced blocks, then each balanced `{…}` / `[…]`. */
export function jsonCandidates(text: string): string[] {
  const candidates: string[] = [];
  const trimmed = text.trim();
  if (trimmed !== '') candidates.push(trimmed);
  for (const match of text.matchAll(/```[a-zA-Z]*\s*\n?([\s\S]*?)```/g)) candidates.push(match[1]!.trim());
  for (let start = 0; start < text.length; start++) {
    const open = text[start];
    if (open !== '{' && open !== '[') continue;
    const end = balancedEnd(text, start);
    if (end === undefined) continue;
    candidates.push(text.slice(start, end + 1));
    start = end;
  }
  return [...new Set(candidates)];
}

/** The index of the bracket closing the one at `start`, skipping strings. */
function balancedEnd(text: string, start: number): number | undefined {
  const stack: string[] = [];
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index]!;
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') stack.push('}');
    else if (char === '[') stack.push(']');
    else if (char === '}' || char === ']') {
      if (stack.pop() !== char) return undefined;
      if (stack.length === 0) return index;
    }
  }
  return undefined;
}

/**
 * `value` nudged toward `shape` where only one reading makes sense: unknown keys of a closed
 * object dropped, `"true"`/`"false"` and numeric strings turned into booleans and numbers,
 * `"null"` into null where null is allowed, a lone value wrapped where a list is asked for,
 * an option written in another case (`"Holds"`).
 * Anything else is left for the schema to judge.
 */
export function coerceToShape(value: unknown, shape: JsonShape | undefined): unknown {
  if (shape === undefined) return value;
  if (shape.enum !== undefined && typeof value === 'string' && !shape.enum.includes(value)) {
    // "Holds" for "holds": taken only when exactly one option matches.
    const matches = shape.enum.filter((option) => typeof option === 'string' && option.toLowerCase() === value.trim().toLowerCase());
    return matches.length === 1 ? matches[0] : value;
  }
  const alternatives = alternativesOf(shape);
  if (alternatives !== undefined) {
    if (value === null && alternatives.some((item) => typesOf(item).includes('null'))) return null;
    const concrete = alternatives.filter((item) => !typesOf(item).includes('null'));
    return concrete.length === 1 ? coerceToShape(value, concrete[0]) : value;
  }
  const types = typesOf(shape);
  if (types.length !== 1 && !(types.length === 2 && types.includes('null'))) return value;
  const type = types.find((item) => item !== 'null');
  if (value === 'null' && types.includes('null')) return null;
  switch (type) {
    case 'boolean':
      if (value === 'true') return true;
      if (value === 'false') return false;
      return value;
    case 'number':
    case 'integer':
      if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
      return value;
    case 'array': {
      const items = Array.isArray(shape.items) ? undefined : shape.items;
      const list = Array.isArray(value) ? value : value === undefined || value === null ? value : [value];
      return Array.isArray(list) ? list.map((item) => coerceToShape(item, items)) : list;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
      const properties = shape.properties;
      const open = shape.additionalProperties === true || typeof shape.additionalProperties === 'object';
      if (properties === undefined) return value;
      const result: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const property = properties[key];
        if (property !== undefined) result[key] = coerceToShape(item, property);
        else if (open) result[key] = item;
      }
      return result;
    }
    default:
      return value;
  }
}

/** What reading a reply gave. */
export type ReadAnswer<Value> = { kind: 'ok'; value: Value } | { kind: 'invalid'; problem: string };

function pathLabel(path: readonly PropertyKey[], root: string): string {
  return path.length === 0 ? root : `"${path.map(String).join('.')}"`;
}

/** Zod's issues as a short sentence naming each key that is missing or wrong (at most five); `root` names the whole value. */
export function describeIssues(error: z.ZodError, root = 'the answer'): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const where = pathLabel(issue.path, root);
    switch (issue.code) {
      case 'invalid_type':
        return issue.input === undefined ? `${where} is missing` : `${where} must be ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
      case 'invalid_value':
        return `${where} must be ${issue.values.map((value) => JSON.stringify(value)).join(' or ')}`;
      case 'unrecognized_keys':
        return `${where} ${root === where && root.endsWith('s') ? 'have' : 'has'} unknown keys ${issue.keys.map((key) => `"${key}"`).join(', ')}`;
      default:
        return `${where}: ${issue.message}`;
    }
  });
  const more = error.issues.length > 5 ? ` (and ${error.issues.length - 5} more)` : '';
  return `${parts.join('; ')}${more}`;
}

/**
 * Read a model's reply as a value of `schema`: the first JSON candidate that fits after
 * {@link coerceToShape} wins; otherwise the problem of the most promising one, in words.
 */
export function readAnswer<Value>(text: string, schema: z.ZodType<Value>, shape: JsonShape | undefined): ReadAnswer<Value> {
  let problem: string | undefined;
  for (const candidate of jsonCandidates(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(candidate);
    } catch {
      continue;
    }
    const result = schema.safeParse(coerceToShape(parsed, shape));
    if (result.success) return { kind: 'ok', value: result.data };
    problem ??= describeIssues(result.error);
  }
  if (problem !== undefined) return { kind: 'invalid', problem };
  return { kind: 'invalid', problem: text.trim() === '' ? 'the reply was empty' : 'the reply holds no JSON object' };
}
