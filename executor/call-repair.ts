/**
 * Tool calls the AI SDK could not accept, made usable where the meaning is unambiguous:
 * `"true"` / `"3"` for a boolean or a number, `"null"` or null for an optional argument,
 * arguments sent as a JSON string, a key the tool does not take (ignored and named, so an
 * imperfect model's `"note": "typing"` does not cost the call). What stays wrong is answered
 * with what exists: the tool list for an unknown tool, the argument names and types for a bad
 * or missing argument.
 * Checked against each tool's own schema, so custom tools get the same treatment.
 */
import { asSchema, type ToolSet } from 'ai';
import { coerceToShape, describeIssues, typeExpression, type JsonShape } from './answer-shape.js';
import { listedTools } from './unlisted-tool.js';

/** What became of an invalid call: runnable with these arguments, or a text for the model. */
export type Repair = { kind: 'repaired'; input: unknown; ignored: string[] } | { kind: 'refused'; text: string };

/** The tools the model may call, for an answer to an unknown name. */
function toolList(tools: ToolSet): string {
  return Object.keys(listedTools(tools)).join(', ');
}

function withoutNulls(value: unknown, shape: JsonShape): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || shape.properties === undefined) return value;
  const required = new Set(shape.required ?? []);
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // A model that fills every parameter writes null for the ones it means to leave out.
    if ((item === null || item === 'null') && !required.has(key)) continue;
    result[key] = item;
  }
  return result;
}

/** The input without the top-level keys a closed object schema does not declare, and their names. */
function withoutUnknownKeys(value: unknown, shape: JsonShape): { value: unknown; ignored: string[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || shape.properties === undefined || shape.additionalProperties !== false) return { value, ignored: [] };
  const known = new Set(Object.keys(shape.properties));
  const kept: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (known.has(key)) kept[key] = item;
    else ignored.push(key);
  }
  return { value: kept, ignored };
}

/** The note a tool result carries when keys of its call were ignored. */
export function ignoredKeysNote(toolName: string, ignored: readonly string[]): string {
  const names = ignored.map((key) => JSON.stringify(key)).join(', ');
  return `(Ignored ${ignored.length === 1 ? 'the key' : 'the keys'} ${names}: ${toolName} does not take ${ignored.length === 1 ? 'it' : 'them'}.)`;
}

function parsedInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input === '' ? '{}' : input);
  } catch {
    return undefined;
  }
}

function describeFailure(error: unknown): string {
  if (typeof error === 'object' && error !== null && Array.isArray((error as { issues?: unknown }).issues)) return describeIssues(error as never, 'the arguments');
  return error instanceof Error ? error.message : String(error);
}

/**
 * Try to make an invalid call runnable. `tools` is the loop's vocabulary (with
 * `complete_step`); the repaired input passed the tool's own schema.
 */
export async function repairCall(tools: ToolSet, call: { toolName: string; input: unknown }): Promise<Repair> {
  const definition = tools[call.toolName];
  if (definition === undefined) {
    return { kind: 'refused', text: `There is no tool named "${call.toolName}". The tools are: ${toolList(tools)}.` };
  }
  const schema = asSchema(definition.inputSchema);
  const shape = (await schema.jsonSchema) as JsonShape;
  const takes = `${call.toolName} takes ${typeExpression(shape)}.`;
  let input = parsedInput(call.input);
  // Arguments double-encoded as a JSON string inside the object's place.
  if (typeof input === 'string') input = parsedInput(input);
  if (input === undefined) return { kind: 'refused', text: `The arguments of ${call.toolName} are not valid JSON. ${takes}` };
  const known = withoutUnknownKeys(input, shape);
  const candidate = coerceToShape(withoutNulls(known.value, shape), { ...shape, additionalProperties: true });
  const checked = schema.validate === undefined ? { success: true as const, value: candidate } : await schema.validate(candidate);
  if (checked.success) return { kind: 'repaired', input: checked.value, ignored: known.ignored };
  const ignored = known.ignored.length === 0 ? '' : ` ${ignoredKeysNote(call.toolName, known.ignored)}`;
  return { kind: 'refused', text: `The call to ${call.toolName} was not valid: ${describeFailure(checked.error)}.${ignored} ${takes}` };
}
