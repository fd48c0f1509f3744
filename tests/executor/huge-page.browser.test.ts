/**
 * A page of 200,000 list items in Chromium (a log viewer with no virtualisation), as issue 34
 * tried it: the built-in agent, on the real `@ai-sdk/openai-compatible` package against a
 * loopback model of our own, sees a bounded screen that says what it left out, taps "Last", and
 * reaches an item only `find` can reach; both steps are recorded and then replayed with no
 * model call, on a freshly loaded page.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import { createAgent } from '../../executor/create-agent.js';
import { surfaceOf } from '../../engines/web/index.js';
import type { Engine, EngineInstance } from '../../contract/engine.js';
import type { ReportStep } from '../../runner/report.js';
import { startAttempt, startPoliced } from '../support/attempt-harness.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { requestText, startOpenAIServer, type ChatRequest, type OpenAIServer, type ScriptedReply } from '../support/openai-server.js';
import { serveStatic, type StaticServer } from '../support/static-server.js';
import { tempFolders } from '../support/temp-folders.js';
import { testWeb } from '../support/test-browser.js';
import { findId } from './support/scripted-model.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'engines', 'web', 'fixtures');
const tempFolder = tempFolders('e2e-huge-page-');

let site: StaticServer;
let engine: Engine;
let model: OpenAIServer;
/** The screens each request of the model showed, by step. */
const seen: { last: string[]; find: string[] } = { last: [], find: [] };

const calls = (...list: Array<[name: string, input: unknown]>): ScriptedReply => ({ kind: 'tool-calls', calls: list.map(([name, input]) => ({ name, input })) });
const latestOf = (request: ChatRequest): string => {
  const content = request.messages[request.messages.length - 1]?.content;
  return typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => part.text ?? '').join('\n') : '';
};

/** The model: taps "Last" and concludes in the same call; or finds "Item 150,000", then taps it and concludes. */
function reply(request: ChatRequest): ScriptedReply {
  const text = requestText(request);
  // A later step's prompt names the steps before it: the step is the one named last.
  if (!text.includes('select item 150,000')) {
    seen.last.push(text);
    return calls(['tap', { target: findId(text, 'button', 'Last') }], ['complete_step', { status: 'passed', summary: 'Went to the last item.' }]);
  }
  seen.find.push(text);
  const latest = latestOf(request);
  if (!latest.startsWith('Found ')) return calls(['find', { text: 'item 150,000' }]);
  return calls(['tap', { target: findId(latest, 'listitem', 'Item 150,000') }], ['complete_step', { status: 'passed', summary: 'Selected item 150,000.' }]);
}

beforeAll(async () => {
  site = await serveStatic(FIXTURES);
  engine = testWeb();
  model = await startOpenAIServer(reply);
});

afterAll(async () => {
  await engine.dispose?.();
  await model.close();
  await site.close();
});

/** A fresh attempt on the page of 200,000 items, loaded. */
async function hugePage(): Promise<{ instance: EngineInstance; police: Awaited<ReturnType<typeof startPoliced>>['police'] }> {
  const started = await startPoliced(engine, site.url);
  // Building 200,000 items takes Chromium a while on a loaded machine: longer than the engine's 30 s for a page load.
  // Rows without list markers, as a log viewer shows them: the markers' layout alone cost ~3.5 CPU-s a load.
  await surfaceOf(engine).page().goto(`${site.origin}/huge.html?bullets=none`, { waitUntil: 'domcontentloaded', timeout: scaledTimeout(60_000) });
  return started;
}

describe('the built-in agent on a page of 200,000 items in Chromium', () => {
  it('sees what the bounded screen left out, taps "Last" and an item only find reaches, and replays both steps model-free', { timeout: scaledTimeout(120_000) }, async () => {
    const store = new FileCacheStore(join(tempFolder(), 'cache'));
    const agent = createAgent({ model: createOpenAICompatible({ baseURL: model.url, name: 'huge', apiKey: 'test-key' }).chatModel('scripted') });

    const recording = await hugePage();
    const recorder = recording.police(startAttempt({ instance: recording.instance, engine, origin: site.origin }, { executor: agent, cache: { store } }));
    const last = await recorder.act('go to the last item');
    expect(last.verdict).toEqual({ status: 'passed', summary: 'Went to the last item.' });
    expect(last.modelCalls).toBe(1);
    recorder.verify();
    const picked = await recorder.act('select item 150,000 of the log');
    expect(picked.verdict).toEqual({ status: 'passed', summary: 'Selected item 150,000.' });
    expect(picked.modelCalls).toBe(2);
    recorder.verify();
    const writes = await recorder.finish();
    expect(writes.map((write) => write.outcome.write)).toEqual(['saved', 'saved']);
    await recording.instance.close();
    // report.json says what the screens the model read left out, for each step.
    const recordedSteps = JSON.parse(recorder.reportSteps()) as ReportStep[];
    expect(recordedSteps).toHaveLength(2);
    for (const step of recordedSteps) {
      expect(step.leftOut?.screens).toBeGreaterThanOrEqual(1);
      expect(step.leftOut?.most).toBeGreaterThan(190_000);
    }

    // The screen the model saw is bounded, says what it left out and how to reach it, and keeps the controls after the list.
    const firstScreen = seen.last[0]!;
    expect(firstScreen).toMatch(/nodes shown, [\d,]+ left out\):/);
    expect(firstScreen).toMatch(/… [\d,]+ more listitem in list "Log" \("Item \d[\d,]*" … "Item [\d,]+"\) — use find to reach one/);
    expect(firstScreen).toContain('button "Last"');
    expect(firstScreen).not.toContain('"Item 150,000"');
    expect(firstScreen.length).toBeLessThan(60_000);
    // find answered with the item the screen had left out.
    expect(latestOf(model.requests[model.requests.length - 1]!)).toMatch(/^Found 1 node showing "item 150,000"/);
    const requestsWhenRecorded = model.requests.length;

    const replaying = await hugePage();
    const replayer = replaying.police(startAttempt({ instance: replaying.instance, engine, origin: site.origin }, { executor: agent, cache: { store, waitForTargetMs: 10_000 } }));
    const lastAgain = await replayer.act('go to the last item');
    expect(lastAgain.verdict.status).toBe('passed');
    expect(lastAgain.cache?.mode).toBe('self-finalized');
    const pickedAgain = await replayer.act('select item 150,000 of the log');
    expect(pickedAgain.verdict.status).toBe('passed');
    expect(pickedAgain.cache?.mode).toBe('self-finalized');
    await replayer.finish();
    // A replay renders no screen as text: nothing was left out of what anyone read.
    expect((JSON.parse(replayer.reportSteps()) as ReportStep[]).map((step) => step.leftOut)).toEqual([undefined, undefined]);
    const status = await replaying.instance.observe({ bounds: { maxRun: 100 }, include: { text: ['Selected Item 150,000'] } });
    expect(JSON.stringify(status.root)).toContain('Selected Item 150,000');
    await replaying.instance.close();
    expect(model.requests).toHaveLength(requestsWhenRecorded);
  });
});
