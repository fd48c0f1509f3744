/**
 * The zoo of imperfect models: a TodoMVC suite (`todomvc`'s vanillajs example, served from
 * node_modules) recorded through the real `e2e` binary with three agents, one per provider
 * package, each talking to a loopback server that answers like an imperfect model (prose
 * and fences around JSON, extra keys, `#` ids, several calls per turn, string booleans, an
 * unknown tool, a screenshot), then replayed with every model server stopped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportStep } from '../../runner/report.js';
import { startAnthropicServer, type AnthropicServer } from '../support/anthropic-server.js';
import { imperfectTodoModel } from '../support/imperfect-todo-model.js';
import { carriesBase64Text, chatResponder, type ExchangeRequest } from '../support/model-exchange.js';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.js';
import { startResponsesServer, type ResponsesServer } from '../support/responses-server.js';
import { serveStatic, type StaticServer } from '../support/static-server.js';
import { ensureBuilt, ROOT } from './support/build.js';
import { runE2E, type E2ERun } from './support/e2e-process.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/provider-zoo/', import.meta.url));
const AGENTS = ['compatible', 'responses', 'anthropic'] as const;

let todomvc: StaticServer;
let chat: OpenAIServer;
const chatRequests: ExchangeRequest[] = [];
let responses: ResponsesServer;
let anthropic: AnthropicServer;
let work: string;
let env: Record<string, string>;
let recorded: E2ERun;

function output(run: E2ERun): string {
  return `${run.stdout}\n${run.stderr}`;
}

function stepsOf(run: E2ERun, agent: string, title: string): ReportStep[] {
  const found = run.report?.tests.find((test) => test.titlePath.slice(-2).join(' › ') === `${agent} › ${title}`);
  if (found === undefined) throw new Error(`no test "${agent} › ${title}" in the report:\n${output(run)}`);
  return found.attempts.at(-1)?.steps ?? [];
}

function requestsOf(agent: (typeof AGENTS)[number]): ExchangeRequest[] {
  return agent === 'compatible' ? chatRequests : agent === 'responses' ? responses.requests : anthropic.requests;
}

beforeAll(async () => {
  ensureBuilt();
  todomvc = await serveStatic(join(ROOT, 'node_modules', 'todomvc', 'examples'));
  chat = await startOpenAIServer(chatResponder(imperfectTodoModel, chatRequests));
  responses = await startResponsesServer(imperfectTodoModel);
  anthropic = await startAnthropicServer(imperfectTodoModel);
  work = mkdtempSync(join(tmpdir(), 'e2e-provider-zoo-'));
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  env = {
    E2E_FIXTURE_APP_URL: todomvc.origin,
    E2E_FIXTURE_CACHE_DIR: join(work, 'cache'),
    E2E_ZOO_CHAT_URL: chat.url,
    E2E_ZOO_RESPONSES_URL: responses.url,
    E2E_ZOO_ANTHROPIC_URL: anthropic.url,
  };
  recorded = await runE2E(['record'], { cwd: FIXTURE, env });
}, scaledTimeout(240_000));

afterAll(async () => {
  await Promise.all([todomvc?.close(), chat?.close(), responses?.close(), anthropic?.close()]);
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('a TodoMVC suite on a zoo of imperfect models', () => {
  it('records every test through the three provider packages, saving each verified step', () => {
    expect(recorded.exitCode, output(recorded)).toBe(0);
    expect(recorded.report?.tests.map((test) => test.outcome)).toEqual(Array(6).fill('expected'));
    for (const agent of AGENTS) {
      expect(stepsOf(recorded, agent, 'adds two todos').map((step) => [step.kind, step.status, (step.cache as { write?: string } | undefined)?.write])).toEqual([
        ['act', 'passed', 'saved'],
        ['assert', 'passed', 'saved'],
      ]);
      expect(stepsOf(recorded, agent, 'completes a todo').map((step) => [step.kind, step.status])).toEqual([
        ['act', 'passed'],
        ['act', 'passed'],
        ['extract', 'passed'],
      ]);
      // The imperfections really happened: two calls in a turn with a string boolean, and an unknown tool answered with the list.
      const messages = requestsOf(agent).flatMap((request) => request.messages);
      expect(messages.some((message) => message.toolCalls.length === 2 && message.toolCalls[0]!.arguments.includes('"replace":"true"'))).toBe(true);
      expect(messages.some((message) => message.role === 'tool' && message.text.includes('There is no tool named "click". The tools are: tap,'))).toBe(true);
      // Judgments: structured output where the provider has it, JSON mode (no schema) on the compatible defaults.
      const judgments = requestsOf(agent).filter((request) => request.tools.length === 0);
      expect(judgments.length).toBeGreaterThanOrEqual(2);
      expect(new Set(judgments.map((request) => request.responseFormat))).toEqual(new Set([agent === 'compatible' ? 'json' : 'schema']));
    }
  });

  it('sends every picture as an image, never as base64 text, and prints no AI SDK warning', () => {
    for (const agent of AGENTS) {
      const requests = requestsOf(agent);
      expect(requests.some(carriesBase64Text)).toBe(false);
      const withPictures = requests.flatMap((request) => request.messages.filter((message) => message.images > 0).map((message) => message.role));
      expect(withPictures.length).toBeGreaterThan(0);
      expect(new Set(withPictures)).toEqual(new Set([agent === 'compatible' ? 'user' : 'tool']));
    }
    expect(output(recorded)).not.toMatch(/AI SDK Warning|AI_SDK_LOG_WARNINGS/);
  });

  it('replays the whole suite with every model server stopped: zero model calls', async () => {
    await Promise.all([chat.close(), responses.close(), anthropic.close()]);
    const counts = AGENTS.map((agent) => requestsOf(agent).length);
    const replayed = await runE2E(['replay'], { cwd: FIXTURE, env });
    expect(replayed.exitCode, output(replayed)).toBe(0);
    expect(replayed.report?.summary).toMatchObject({ modelCalls: 0, cache: { replayed: 15, handedOff: 0, missed: 0 } });
    expect(AGENTS.map((agent) => requestsOf(agent).length)).toEqual(counts);
  }, scaledTimeout(240_000));
});
