/**
 * The built-in agent on a terminal screen, through the real step runner (the attempt harness):
 * it is offered only the verbs the terminal engine declares, acts by the ids on the screen it
 * was shown, and never sees a configured secret the program echoes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../executor/create-agent.js';
import type { TerminalApp } from '../../../engines/terminal/index.js';
import { startAttempt, type AttemptScreen } from '../../support/attempt-harness.js';
import { openTerminal, orderScript, type OpenTerminal } from '../../support/terminal-programs.js';
import { callTools, findId, scriptedModel, throwScriptErrors } from '../../executor/support/scripted-model.js';

const open: OpenTerminal[] = [];
afterEach(async () => {
  throwScriptErrors();
  await Promise.all(open.splice(0).map((each) => each.close()));
});

async function terminalScreen(app: TerminalApp, options: Parameters<typeof openTerminal>[1] = {}): Promise<AttemptScreen> {
  const program = await openTerminal(app, options);
  open.push(program);
  await program.settled();
  return { instance: program.instance, engine: program.engine, origin: 'order' };
}

function toolNames(options: { tools?: ReadonlyArray<{ name: string }> }): string[] {
  return (options.tools ?? []).map((tool) => tool.name).sort();
}

describe('the built-in agent on a terminal', () => {
  it('is offered the terminal verbs only (and find, which only observes), and picks a fruit and a topping by the ids on the screen', async () => {
    const offered: string[][] = [];
    const model = scriptedModel([
      ({ text, options }) => {
        offered.push(toolNames(options as never));
        return callTools(['tap', { target: findId(text, 'menuitem', 'c Cherry') }]);
      },
      ({ text }) => {
        expect(text).toContain('group "Toppings"');
        return callTools(['check', { target: findId(text, 'checkbox', 'nuts Nuts') }]);
      },
      ({ text }) => callTools(['tap', { target: findId(text, 'button', 'OK') }]),
      ({ latest }) => {
        expect(latest).toContain('textbox "Your name"');
        return callTools(['complete_step', { status: 'passed', summary: 'Cherry with nuts; the name is asked next.' }]);
      },
    ]);
    const screen = await terminalScreen(orderScript('dialog'));
    const { runner } = startAttempt(screen, { executor: createAgent({ model }), context: 'An order program in a terminal.' });
    const outcome = await runner.runStep('act', 'order cherries with nuts');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'Cherry with nuts; the name is asked next.' });
    expect(outcome.actions).toEqual(['tap menuitem "c Cherry"', 'check checkbox "nuts Nuts"', 'tap button "OK"']);
    expect(offered[0]).toEqual(['check', 'complete_step', 'find', 'press', 'scroll', 'tap', 'type']);
  });

  it('is not offered tap or check when the engine declares taps off', async () => {
    let offered: string[] = [];
    const model = scriptedModel([
      ({ options }) => {
        offered = toolNames(options as never);
        return callTools(['press', { key: 'ArrowDown' }]);
      },
      () => callTools(['press', { key: 'Enter' }]),
      ({ text }) => {
        expect(text).toContain('Toppings');
        return callTools(['complete_step', { status: 'passed', summary: 'Banana picked with the keys.' }]);
      },
    ]);
    const screen = await terminalScreen(orderScript('whiptail'), { tap: 'off' });
    const { runner } = startAttempt(screen, { executor: createAgent({ model }), context: 'An order program in a terminal.' });
    const outcome = await runner.runStep('act', 'pick a banana');
    expect(outcome.verdict.status).toBe('passed');
    expect(offered).not.toContain('tap');
    expect(offered).not.toContain('check');
    expect(offered).toContain('press');
  });

  it('sees <secret:name> where the program echoes a configured secret', async () => {
    const token = 'sk-live-4242-terminal';
    const echo: TerminalApp = { command: 'bash', args: ['-c', `printf 'Your token is ${token}\\n'; read -p 'Continue? ' answer; echo "done $answer"`], cols: 80, rows: 24 };
    const model = scriptedModel([
      ({ text }) => {
        expect(text).not.toContain(token);
        expect(text).toContain('Your token is <secret:apiToken>');
        return callTools(['complete_step', { status: 'passed', summary: 'The token is shown.' }]);
      },
    ]);
    const screen = await terminalScreen(echo);
    const { runner, handouts } = startAttempt(screen, { executor: createAgent({ model }), secrets: { apiToken: token }, debug: true });
    const outcome = await runner.runStep('act', 'read the token');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'The token is shown.' });
    expect(JSON.stringify(handouts)).not.toContain(token);
  });
});
