/**
 * What the built-in agent sends a provider with every request, seen on the wire: the real
 * `@ai-sdk/openai-compatible` package talks to a loopback server of our own while the agent
 * acts on a real page in Chromium.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../executor/create-agent.js';
import { createGrammarTools } from '../../executor/grammar-tools.js';
import { listedTools } from '../../executor/unlisted-tool.js';
import type { Engine, EngineInstance } from '../../contract/engine.js';
import type { StepContext } from '../../contract/step-contract.js';
import { testWeb } from '../support/test-browser.js';
import { secret } from '../../secrets/vault.js';
import { requestText, startOpenAIServer, type ChatRequest, type OpenAIServer, type ScriptedReply } from '../support/openai-server.js';
import { htmlPages, serveStatic, type StaticServer } from '../support/static-server.js';
import { findId } from './support/scripted-model.js';
import { startAttempt, startPoliced } from '../support/attempt-harness.js';

/** A pad that says which pointer gesture reached it, and a sign-in field. */
const PAD_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Pad</title></head><body><main>
<button type="button" id="pad">Pad</button><p role="status" id="seen">none</p>
<label>Password <input type="password" id="password"></label>
<script>
  const seen = document.getElementById('seen');
  const pad = document.getElementById('pad');
  let downAt = 0;
  pad.addEventListener('dblclick', () => { seen.textContent = 'double'; });
  pad.addEventListener('contextmenu', (event) => { event.preventDefault(); seen.textContent = 'right'; });
  pad.addEventListener('mouseenter', () => { seen.textContent = 'hover'; });
  pad.addEventListener('mousedown', () => { downAt = performance.now(); });
  pad.addEventListener('mouseup', () => { if (performance.now() - downAt > 300) seen.textContent = 'long'; });
</script></main></body></html>`;

let site: StaticServer;
let engine: Engine;
const instances: EngineInstance[] = [];
const servers: OpenAIServer[] = [];

beforeAll(async () => {
  site = await serveStatic(undefined);
  site.route(htmlPages(new Map([['/pad', PAD_PAGE]])));
  engine = testWeb();
});

afterEach(async () => {
  await Promise.all(instances.splice(0).map((instance) => instance.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await engine.dispose?.();
  await site.close();
});

/** The pad page in a fresh attempt, with the built-in agent on a loopback model that `reply` scripts. */
async function padWithModel(reply: (request: ChatRequest) => ScriptedReply, secrets: Record<string, string> = {}) {
  const server = await startOpenAIServer(reply);
  servers.push(server);
  const model = createOpenAICompatible({ baseURL: server.url, name: 'lean', apiKey: 'test-key' }).chatModel('scripted');
  const { instance, police } = await startPoliced(engine, site.url);
  instances.push(instance);
  await instance.session.open(`${site.origin}/pad`);
  const { runner } = police(startAttempt({ instance, engine, origin: site.origin }, { executor: createAgent({ model }), secrets }));
  return { runner, server };
}

const call = (name: string, input: unknown): ScriptedReply => ({ kind: 'tool-calls', calls: [{ name, input }] });
const systemOf = (request: ChatRequest): string => {
  const content = request.messages.find((message) => message.role === 'system')?.content;
  return typeof content === 'string' ? content : '';
};

describe('the prompt the built-in agent sends', () => {
  it('groups the rarer pointer verbs as kinds of tap, each reaching its own verb', async () => {
    // Hover first: the pointer has not reached the pad yet, so the page sees it arrive.
    const kinds: Array<[kind: string, seen: string]> = [
      ['hover', 'hover'],
      ['double_tap', 'double'],
      ['right_click', 'right'],
      ['long_press', 'long'],
    ];
    const { runner, server } = await padWithModel((request) => {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      const kind = kinds[turn];
      if (kind === undefined) return call('complete_step', { status: 'passed', summary: 'Every gesture reached the pad.' });
      return call('tap', { target: findId(requestText(request), 'button', 'Pad'), kind: kind[0] });
    });
    const outcome = await runner.runStep('act', 'try every gesture on the pad');
    expect(outcome.verdict.status).toBe('passed');
    const first = server.requests[0]!;
    expect(first.tools).toEqual(expect.arrayContaining(['tap', 'type', 'press', 'check', 'scroll', 'navigate', 'screenshot', 'find']));
    // DESIGN's double_tap…hover are kinds of tap, tap_at is tap({ x, y }), scroll_to a scroll with a target alone, back navigate('back').
    for (const folded of ['pointer', 'double_tap', 'tap_at', 'scroll_to', 'back']) expect(first.tools).not.toContain(folded);
    // Each result is labelled with the verb's own name, and shows the gesture the page saw.
    const results = server.requests.slice(1).map((request) => String(request.messages[request.messages.length - 1]?.content ?? ''));
    kinds.forEach(([kind, seen], index) => {
      expect(results[index]).toMatch(new RegExp(`^${kind} #\\S+: done\\.`));
      expect(results[index]).toContain(`status "" text="${seen}"`);
    });
    expect(outcome.actions.length).toBe(4);
  });

  it('sends schemas without $schema, and ignores a key the tool does not take, naming it in the result and using the known ones', async () => {
    const { runner, server } = await padWithModel((request) => {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      if (turn === 0) return call('tap', { target: findId(requestText(request), 'button', 'Pad'), note: 'typing' });
      return call('complete_step', { status: 'passed', summary: 'Tapped the pad.' });
    });
    const outcome = await runner.runStep('act', 'tap the pad');
    const tools = server.requests[0]!.body['tools'] as Array<{ function: { name: string; parameters: Record<string, unknown> } }>;
    for (const definition of tools) expect(Object.keys(definition.function.parameters)).not.toContain('$schema');
    const tap = tools.find((definition) => definition.function.name === 'tap')!;
    expect(tap.function.parameters).toEqual({
      type: 'object',
      properties: {
        target: { type: 'string' },
        kind: { type: 'string', enum: ['double_tap', 'long_press', 'right_click', 'hover'] },
        x: { type: 'number' },
        y: { type: 'number' },
      },
    });
    expect(outcome.verdict.status).toBe('passed');
    expect(outcome.actions).toEqual([expect.stringMatching(/^tap button "Pad"/)]);
    const result = String(server.requests[1]!.messages[server.requests[1]!.messages.length - 1]?.content ?? '');
    expect(result).toContain('(Ignored the key "note": tap does not take it.)');
    expect(result).not.toContain('was not valid');
  });

  it('names type_secret only in the brief of a step that has a secret, and keeps the system prompt byte for byte', async () => {
    const { runner, server } = await padWithModel(
      (request) => {
        const turn = request.messages.filter((message) => message.role === 'assistant').length;
        const text = requestText(request);
        if (turn === 0 && text.includes('Secrets this step may type')) return call('type_secret', { target: findId(text, 'textbox', 'Password'), secret: 'password' });
        return call('complete_step', { status: 'passed', summary: 'Done.' });
      },
      { password: 'hunter2' },
    );
    expect((await runner.runStep('act', 'look at the pad')).verdict.status).toBe('passed');
    expect((await runner.runStep('act', 'sign in with {password}', { params: { password: secret('password') } })).verdict.status).toBe('passed');
    const [plain, withSecret] = [server.requests[0]!, server.requests.find((request) => request.tools.includes('type_secret'))!];
    expect(systemOf(plain)).not.toContain('type_secret');
    expect(plain.tools).not.toContain('type_secret');
    expect(requestText(plain)).not.toContain('type_secret');
    expect(withSecret.tools).toContain('type_secret');
    expect(requestText(withSecret)).toContain('Secrets this step may type, by name with type_secret: password');
    expect(systemOf(withSecret)).toBe(systemOf(plain));
    expect(server.requests.map((request) => JSON.stringify(request.body)).join('\n')).not.toContain('hunter2');
  });

  it('offers one tool per pointer verb, named as in DESIGN, when asked for separate tools', () => {
    const ctx = {
      target: { name: 'web', platform: 'web', verbs: ['tap', 'doubleTap', 'longPress', 'secondaryTap', 'hover'] },
      step: { secrets: [] },
      attempt: { secretFilled: () => false },
    } as unknown as StepContext;
    const guard = <T,>(body: () => Promise<T>) => body();
    expect(Object.keys(listedTools(createGrammarTools(ctx, { guard }))).sort()).toEqual(['find', 'tap']);
    // The folded DESIGN tools still run when a model calls them by name; they are not offered.
    expect(Object.keys(createGrammarTools(ctx, { guard })).sort()).toEqual(['double_tap', 'find', 'hover', 'long_press', 'pointer', 'right_click', 'tap']);
    expect(Object.keys(createGrammarTools(ctx, { guard, pointer: 'separate' })).sort()).toEqual(['double_tap', 'find', 'hover', 'long_press', 'right_click', 'tap']);
  });
});
