import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { decisionExecutor } from '../../executor/decision-executor.js';
import { decisionOptions, parseScreenLines } from '../../executor/decision-options.js';
import { secret } from '../../secrets/vault.js';
import { MEMORY_APP_VERBS, memoryApp, onMemoryApp } from './support/memory-app.js';
import { replyJson, replyText, scriptedModel, throwScriptErrors, type TurnInput } from './support/scripted-model.js';
import { startAttempt } from '../support/attempt-harness.js';

afterEach(() => throwScriptErrors());

/** The closed enum the decision call offered, read from the JSON schema sent to the model. */
function offered(options: LanguageModelV3CallOptions): string[] {
  const format = options.responseFormat;
  if (format?.type !== 'json') throw new Error('expected a JSON response format');
  const schema = format.schema as { properties: { choice: { enum: string[] } } };
  return schema.properties.choice.enum;
}

/** Choose the offered option that starts with `prefix` (the script reads the options it got). */
const choose =
  (prefix: string, confidence = 0.9) =>
  ({ options }: TurnInput) => {
    const choice = offered(options).find((option) => option.startsWith(prefix));
    if (choice === undefined) throw new Error(`no option starts with ${prefix}: ${offered(options).join(' | ')}`);
    return replyJson({ choice, confidence, reason: `Chose ${choice}.` });
  };

describe('the decision executor', () => {
  it('chooses moves from a closed list, asks the text model what to type, and confirms done on a fresh screen', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      ({ options, text }) => {
        const choices = offered(options);
        expect(choices).toContain('tap #add button "Add"');
        expect(choices).toContain('type into #input textbox "What needs to be done?"');
        // The password field is offered only as a secret fill, never as free text.
        expect(choices.some((choice) => choice.startsWith('type into #password'))).toBe(false);
        expect(choices.slice(-2)).toEqual(['done', 'failed']);
        expect(text).toContain('Step 1 (act): add a todo "Buy milk"');
        return choose('type into #input')({ options, text } as TurnInput);
      },
      ({ text }) => {
        expect(text).toContain('Field: textbox "What needs to be done?"');
        return replyText('"Buy milk"');
      },
      choose('tap #add'),
      ({ options, text }) => {
        expect(text).toContain('- type into #input textbox "What needs to be done?" → ');
        return choose('done')({ options, text } as TurnInput);
      },
      ({ options, text }) => {
        expect(offered(options)).toEqual(['done', 'continue']);
        expect(text).toContain('You said the step is done.');
        return replyJson({ choice: 'done', confidence: 0.95, reason: 'Buy milk is in the list.' });
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: decisionExecutor({ model }) });
    const outcome = await runner.runStep('act', 'add a todo "Buy milk"');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'Buy milk is in the list.' });
    expect(app.state.todos.map((todo) => todo.title)).toEqual(['Buy milk']);
    expect(outcome.modelCalls).toBe(5);
  });

  it('fills a password field only with a secret by name', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      choose('type secret password into #password'),
      choose('tap #signin'),
      choose('done'),
      () => replyJson({ choice: 'done', confidence: 1, reason: 'Welcome back is shown.' }),
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: decisionExecutor({ model }), secrets: { password: 'hunter2' } });
    const outcome = await runner.runStep('act', 'sign in with {password}', { params: { password: secret('password') } });
    expect(outcome.verdict.status).toBe('passed');
    expect(app.state.signedIn).toBe(true);
    expect(model.prompts.join('\n')).not.toContain('hunter2');
  });

  it('keeps working when a fresh screen does not confirm done', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      choose('done'),
      () => replyJson({ choice: 'continue', confidence: 0.9, reason: 'The list is still empty.' }),
      ({ text, options }) => {
        expect(text).toContain('You said done, but a fresh look disagreed: The list is still empty.');
        return choose('failed')({ text, options } as TurnInput);
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: decisionExecutor({ model }) });
    const outcome = await runner.runStep('act', 'add a todo');
    expect(outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'ACTION_FAILED' });
  });

  it('stops without acting when the model is less confident than required', async () => {
    const app = memoryApp();
    const model = scriptedModel([choose('tap #add', 0.2)]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: decisionExecutor({ model, minConfidence: 0.6 }) });
    const outcome = await runner.runStep('act', 'add a todo');
    expect(outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'STEP_NO_CONCLUSION' });
    expect(outcome.verdict.summary).toMatch(/not confident enough to choose \(0\.2 < 0\.6\)/);
    expect(app.performed).toEqual([]);
  });

  it('offers check, select and Enter moves only for the controls and verbs that have them', () => {
    const text = [
      'Screen (revision 1, path /, 6 nodes):',
      '#root document "Shop"',
      ' #n1 checkbox "Gift wrap" [checked]',
      ' #n2 combobox "Size"',
      '  #n3 option "Small"',
      '  #n4 option "Large" [selected]',
      ' #n5 button "Buy" [disabled]',
    ].join('\n');
    const keys = [...decisionOptions(parseScreenLines(text), [...MEMORY_APP_VERBS, 'select', 'back'], [], 50).keys()];
    expect(keys).toEqual([
      'uncheck #n1 checkbox "Gift wrap"',
      'type into #n2 combobox "Size"',
      'press Enter in #n2 combobox "Size"',
      'select "Small" in #n2 combobox "Size"',
      'select "Large" in #n2 combobox "Size"',
      'tap #n3 option "Small"',
      'tap #n4 option "Large"',
      'scroll down',
      'scroll up',
      'go back',
      'done',
      'failed',
    ]);
  });
});
