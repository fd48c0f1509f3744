import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { judgeAssert } from '../../executor/judgments.js';
import { createAgent } from '../../executor/create-agent.js';
import { secret } from '../../secrets/vault.js';
import type { StepContext } from '../../contract/step-contract.js';
import { memoryApp, onMemoryApp } from './support/memory-app.js';
import { callTools, findId, replyJson, replyText, scriptedModel, throwScriptErrors } from './support/scripted-model.js';
import { startAttempt } from '../support/attempt-harness.js';
import { scaledTimeout } from '../support/load-scaled.js';

afterEach(() => throwScriptErrors());

function appWithTodos(...titles: string[]) {
  const app = memoryApp();
  titles.forEach((title, index) => app.state.todos.push({ id: String(index + 1), title, done: index === 0 }));
  return app;
}

/** What `judgeAssert` answers for "Tea is listed" on the Milk and Tea list, asked of `model`. */
async function judgeTea(model: ReturnType<typeof scriptedModel>): Promise<Awaited<ReturnType<typeof judgeAssert>> | undefined> {
  let judged: Awaited<ReturnType<typeof judgeAssert>> | undefined;
  const executor = { name: 'probe', runStep: async (ctx: StepContext) => (judged = await judgeAssert(ctx, { question: 'Tea is listed', model })) };
  const { runner } = startAttempt(onMemoryApp(appWithTodos('Milk', 'Tea')), { executor, model });
  await runner.runStep('act', 'probe');
  return judged;
}

describe('assert judgments', () => {
  it.each([
    ['holds', 'passed', undefined],
    ['fails', 'failed', 'ASSERTION_FAILED'],
    ['inconclusive', 'failed', 'ASSERTION_INCONCLUSIVE'],
  ] as const)('turns "%s" into a %s verdict', async (verdict, status, errorCode) => {
    const model = scriptedModel([
      ({ text }) => {
        expect(text).toContain('Does this hold on the screen? one todo remains open');
        return replyJson({ verdict, reason: 'The counter says 1 items left.', evidence: [findId(text, 'status', '1 items left')] });
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(appWithTodos('Milk', 'Tea')), { model });
    const outcome = await runner.runStep('assert', 'one todo remains open');
    expect(outcome.verdict).toEqual({ status, summary: 'The counter says 1 items left.', ...(errorCode === undefined ? {} : { errorCode }) });
    expect(outcome.modelCalls).toBe(1);
  });

  it('repairs an answer that names ids not on the screen, and marks it not cacheable when they stay unknown', async () => {
    const model = scriptedModel([
      () => replyJson({ verdict: 'holds', reason: 'Tea is listed.', evidence: ['n999'] }),
      ({ latest }) => {
        expect(latest).toContain('These evidence ids are not on the screen: n999.');
        return replyJson({ verdict: 'holds', reason: 'Tea is listed.', evidence: ['#n999', 't2'] });
      },
    ]);
    expect(await judgeTea(model)).toMatchObject({ status: 'passed', evidence: { nodeIds: ['t2'], cacheable: false }, modelCalls: 2 });
  });

  it('takes the id of an evidence entry that cites a whole screen line', async () => {
    const model = scriptedModel([({ text }) => replyJson({ verdict: 'holds', reason: 'Tea is listed.', evidence: [`#${findId(text, 'listitem', 'Tea')} listitem "Tea"`] })]);
    expect(await judgeTea(model)).toMatchObject({ status: 'passed', evidence: { nodeIds: ['t2'], cacheable: true }, modelCalls: 1 });
  });

  it('keeps evidence and cacheability when the ids check out the first time', async () => {
    const model = scriptedModel([({ text }) => replyJson({ verdict: 'holds', reason: 'Tea is listed.', evidence: [`#${findId(text, 'listitem', 'Tea')}`] })]);
    expect(await judgeTea(model)).toMatchObject({ status: 'passed', evidence: { nodeIds: ['t2'], cacheable: true }, modelCalls: 1 });
  });

  it('fails with MODEL_OUTPUT_INVALID when the answer is unusable after the repair round', async () => {
    const model = scriptedModel([
      () => replyText('It looks fine to me.'),
      ({ latest }) => {
        expect(latest).toMatch(/The answer could not be read/);
        return replyJson({ verdict: 'maybe', reason: 'unsure', evidence: [] });
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(appWithTodos('Milk')), { model });
    const outcome = await runner.runStep('assert', 'Milk is listed');
    expect(outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'MODEL_OUTPUT_INVALID' });
    expect(outcome.modelCalls).toBe(2);
  });

  it('adds a masked screenshot for vision, and withholds it once a secret was typed', async () => {
    const app = appWithTodos('Milk');
    const hasImage = (options: { prompt: Array<{ role: string; content: unknown }> }) =>
      options.prompt.some((message) => Array.isArray(message.content) && message.content.some((part: { type: string }) => part.type === 'file'));
    const model = scriptedModel([
      ({ options, text }) => {
        expect(hasImage(options)).toBe(true);
        expect(text).not.toContain('#root document');
        return replyJson({ verdict: 'holds', reason: 'The page looks right.', evidence: [] });
      },
      ({ text }) => callTools(['type_secret', { target: findId(text, 'textbox', 'Password'), secret: 'password' }]),
      () => callTools(['complete_step', { status: 'passed', summary: 'Typed the password.' }]),
      ({ options, text }) => {
        expect(hasImage(options)).toBe(false);
        expect(text).toContain('screenshots are withheld after a secret was typed');
        expect(text).toContain('#root document');
        return replyJson({ verdict: 'holds', reason: 'Milk is listed.', evidence: [findId(text, 'listitem', 'Milk')] });
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { model, executor: createAgent({ model }), secrets: { password: 'hunter2' } });
    expect((await runner.runStep('assert', 'the page looks right', { vision: 'only' })).verdict.status).toBe('passed');
    expect((await runner.runStep('act', 'type the {password}', { params: { password: secret('password') } })).verdict.status).toBe('passed');
    expect((await runner.runStep('assert', 'Milk is listed', { vision: true })).verdict.status).toBe('passed');
  });
});

describe('waitFor judgments', () => {
  it('asks the model only when the screen changed, and passes once the condition holds', async () => {
    const app = memoryApp({ status: 'Loading' });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const model = scriptedModel([
      ({ text }) => {
        // The status turns Ready a while after the first judgment, however late that came: the looks between see no change.
        timer = setTimeout(() => (app.state.status = 'Ready'), 400);
        return replyJson({ verdict: 'fails', reason: 'Still loading.', evidence: [findId(text, 'status', 'Loading')] });
      },
      ({ text }) => replyJson({ verdict: 'holds', reason: 'It says Ready.', evidence: [findId(text, 'status', 'Ready')] }),
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { model });
    const outcome = await runner.runStep('waitFor', 'the status says Ready', { interval: 50 });
    clearTimeout(timer);
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'It says Ready.' });
    // About eight looks at an unchanged screen cost no model call.
    expect(outcome.modelCalls).toBe(2);
  });

  it('fails with the last answer when the condition never comes true in time', async () => {
    const model = scriptedModel([({ text }) => replyJson({ verdict: 'fails', reason: 'It says Ready, not Done.', evidence: [findId(text, 'status', 'Ready')] })]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { model });
    // Long enough for a first look on a busy machine; the condition never holds, so the step takes all of it.
    const timeout = scaledTimeout(600);
    const outcome = await runner.runStep('waitFor', 'the status says Done', { timeout, interval: 100 });
    expect(outcome.verdict.status).toBe('failed');
    expect(outcome.verdict.errorCode).toBe('ASSERTION_FAILED');
    expect(outcome.verdict.summary).toMatch(/^"the status says Done" did not come true within [\d.]+ s\. Last look: It says Ready, not Done\.$/);
    expect(outcome.modelCalls).toBe(1);
  });
});

describe('extract judgments', () => {
  it('returns the typed value after one repair round', async () => {
    const model = scriptedModel([
      () => replyJson({ found: true, value: { open: 'one' }, reason: 'The counter.', evidence: [] }),
      ({ latest, text }) => {
        expect(latest).toMatch(/could not be read/);
        return replyJson({ found: true, value: { open: 1 }, reason: 'The counter says 1 items left.', evidence: [findId(text, 'status', '1 items left')] });
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(appWithTodos('Milk', 'Tea')), { model });
    const outcome = await runner.runStep('extract', 'how many todos are open', { schema: z.object({ open: z.number() }) });
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'The counter says 1 items left.', value: { open: 1 } });
    expect(outcome.modelCalls).toBe(2);
  });

  it('fails inconclusive when the screen does not show the answer', async () => {
    const model = scriptedModel([() => replyJson({ found: false, value: null, reason: 'No prices on this page.', evidence: [] })]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { model });
    const outcome = await runner.runStep('extract', 'the price of milk', { schema: z.number() });
    expect(outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'ASSERTION_INCONCLUSIVE' });
    expect(outcome.verdict.summary).toContain('No prices on this page.');
  });
});
