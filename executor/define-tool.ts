/**
 * Project tools (DESIGN §5): AI SDK tools a project adds to the built-in agent's vocabulary,
 * for work outside the screen (seeding data, reading an inbox). Each call runs inside
 * `ctx.budgets.runTool`, so it is counted and recorded; a mutating one takes an action slot
 * and leaves a gap in the recording that a replay cannot fill by itself.
 */
import type { Tool, ToolSet } from 'ai';
import { E2EError } from '../errors/index.js';
import type { StepContext } from '../contract/step-contract.js';
import type { Guard } from './tool-loop.js';

const PROJECT_TOOL = Symbol.for('e2e.project-tool');

/** A project tool: an AI SDK tool and whether it changes the app's state. */
export interface ProjectTool {
  readonly [PROJECT_TOOL]: true;
  /** The AI SDK tool (description, input schema, execute). */
  readonly tool: Tool;
  /** True when the tool changes state the app can see (it then leaves a gap in the recording). */
  readonly mutates: boolean;
  /** Longest result text the model sees; longer results are cut. */
  readonly maxOutputChars: number;
}

/** Options of {@link defineTool}. */
export interface DefineToolOptions {
  /** Does the tool change state the app can see? Required: a wrong `false` would make replays lie. */
  mutates: boolean;
  /** Longest result text the model sees. Default 8,000 characters. */
  maxOutputChars?: number;
}

/** Declare a project tool for an agent entry's `tools`. The tool needs an `execute`. */
export function defineTool(definition: Tool, options: DefineToolOptions): ProjectTool {
  if (typeof definition.execute !== 'function') {
    throw new E2EError('INVALID_CONFIG', 'A project tool needs an execute function; the agent runs it inside the step budgets.');
  }
  return { [PROJECT_TOOL]: true, tool: definition, mutates: options.mutates, maxOutputChars: options.maxOutputChars ?? 8_000 };
}

/** True for a value made by {@link defineTool}, across module copies. */
export function isProjectTool(value: unknown): value is ProjectTool {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PROJECT_TOOL] === true;
}

function bounded(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}\n[… ${text.length - limit} more characters cut]` : text;
}

/**
 * The project tools bound to one step: each `execute` runs inside `guard` and
 * `ctx.budgets.runTool({ name, mutates })`, and its result reaches the model as redacted,
 * size-capped text. Tool names must not clash with `reserved` (the built-in tools).
 */
export function bindProjectTools(
  ctx: StepContext,
  tools: Readonly<Record<string, ProjectTool>>,
  helpers: { guard: Guard },
  reserved: Iterable<string> = [],
): ToolSet {
  const taken = new Set(reserved);
  const bound: ToolSet = {};
  for (const [name, project] of Object.entries(tools)) {
    if (!isProjectTool(project)) {
      throw new E2EError('INVALID_CONFIG', `The agent tool "${name}" was not declared with defineTool(tool, { mutates }).`);
    }
    if (taken.has(name)) throw new E2EError('INVALID_CONFIG', `The agent tool "${name}" has the name of a built-in tool; rename it.`);
    const execute = project.tool.execute!;
    bound[name] = {
      ...project.tool,
      execute: (input: unknown, options: Parameters<typeof execute>[1]) =>
        helpers.guard(async () => {
          const result: unknown = await ctx.budgets.runTool({ name, mutates: project.mutates }, async () => {
            const value: unknown = await execute(input, options);
            if (value !== null && typeof value === 'object' && Symbol.asyncIterator in value) {
              let last: unknown;
              for await (const item of value as AsyncIterable<unknown>) last = item;
              return last;
            }
            return value;
          });
          const text = typeof result === 'string' ? result : result === undefined ? 'Done.' : (JSON.stringify(result) ?? 'null');
          return bounded(ctx.redact(text), project.maxOutputChars);
        }),
      toModelOutput: ({ output }: { output: unknown }) => ({ type: 'text', value: typeof output === 'string' ? output : JSON.stringify(output) }),
    } as Tool;
  }
  return bound;
}
