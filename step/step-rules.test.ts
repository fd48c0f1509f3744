/**
 * The step rules: verdicts, budgets and their defaults, and instruction preparation.
 */
import { describe, expect, it } from 'vitest';
import { StepBudget, limitsFor } from './budgets.js';
import { prepareInstruction, requireInstruction } from './instruction.js';
import { SecretVault, secret, unique } from '../secrets/vault.js';
import { checkVerdict } from './verdict.js';

const noFacts = { budgetSpent: false, deadlinePassed: false, cancelled: false };

describe('checkVerdict', () => {
  it('accepts passed without a code and failed or blocked with one', () => {
    expect(checkVerdict({ status: 'passed', summary: 'ok' }, 'act', noFacts)).toEqual({ status: 'passed', summary: 'ok' });
    expect(checkVerdict({ status: 'blocked', summary: 'no', errorCode: 'AUTOMATION_UNSUPPORTED' }, 'act', noFacts)).toMatchObject({ errorCode: 'AUTOMATION_UNSUPPORTED' });
  });

  it('gives a failed verdict without a code the default code of its kind', () => {
    expect(checkVerdict({ status: 'failed', summary: 'no' }, 'assert', noFacts)).toMatchObject({ errorCode: 'ASSERTION_FAILED' });
    expect(checkVerdict({ status: 'failed', summary: 'no' }, 'act', noFacts)).toMatchObject({ errorCode: 'ACTION_FAILED' });
  });

  it('turns every misuse into MODEL_OUTPUT_INVALID', () => {
    const misuses = [
      { status: 'passed', summary: 'x', errorCode: 'ACTION_FAILED' },
      { status: 'blocked', summary: 'x' },
      { status: 'failed', summary: 'x', errorCode: 'STEP_BUDGET_EXHAUSTED' },
      { status: 'failed', summary: 'x', errorCode: 'STEP_TIMEOUT' },
      { status: 'blocked', summary: 'x', errorCode: 'CANCELLED' },
      { status: 'failed', summary: 'x', errorCode: 'NOT_A_CODE' },
      { status: 'done', summary: 'x' },
      undefined,
    ];
    for (const verdict of misuses) expect(checkVerdict(verdict, 'act', noFacts), JSON.stringify(verdict)).toMatchObject({ status: 'failed', errorCode: 'MODEL_OUTPUT_INVALID' });
  });

  it('accepts runtime-only codes when they are true', () => {
    expect(checkVerdict({ status: 'failed', summary: 'x', errorCode: 'STEP_BUDGET_EXHAUSTED' }, 'act', { ...noFacts, budgetSpent: true })).toMatchObject({ errorCode: 'STEP_BUDGET_EXHAUSTED' });
    expect(checkVerdict({ status: 'failed', summary: 'x', errorCode: 'STEP_TIMEOUT' }, 'act', { ...noFacts, deadlinePassed: true })).toMatchObject({ errorCode: 'STEP_TIMEOUT' });
    expect(checkVerdict({ status: 'blocked', summary: 'x', errorCode: 'CANCELLED' }, 'act', { ...noFacts, cancelled: true })).toMatchObject({ errorCode: 'CANCELLED' });
  });
});

describe('budgets', () => {
  it('defaults act to 25 actions, 25 model calls and the test timeout', () => {
    expect(limitsFor('act', { viaExecutor: false, entry: {}, call: {}, testTimeoutMs: 120_000 })).toEqual({ maxSteps: 25, maxModelCalls: 25, timeoutMs: 120_000 });
  });

  it('gives a custom executor assert the act budgets, and built-in judgments their own', () => {
    expect(limitsFor('assert', { viaExecutor: true, entry: { maxSteps: 5 }, call: {}, testTimeoutMs: 90_000 })).toEqual({ maxSteps: 5, maxModelCalls: 25, timeoutMs: 90_000 });
    expect(limitsFor('assert', { viaExecutor: false, entry: {}, call: {}, testTimeoutMs: 90_000 })).toMatchObject({ maxModelCalls: 2, timeoutMs: 30_000 });
    expect(limitsFor('extract', { viaExecutor: false, entry: {}, call: {}, testTimeoutMs: 90_000 })).toMatchObject({ maxModelCalls: 2, timeoutMs: 30_000 });
    expect(limitsFor('waitFor', { viaExecutor: false, entry: {}, call: { timeoutMs: 5000 }, testTimeoutMs: 90_000 })).toMatchObject({ maxModelCalls: 25, timeoutMs: 5000 });
  });

  it('lets the call override the entry', () => {
    expect(limitsFor('act', { viaExecutor: true, entry: { maxSteps: 5, timeoutMs: 1000 }, call: { maxSteps: 2 }, testTimeoutMs: 1 })).toEqual({ maxSteps: 2, maxModelCalls: 25, timeoutMs: 1000 });
  });

  it('counts actions, model calls and tokens, and refuses past the limits', () => {
    const budget = new StepBudget({ maxSteps: 1, maxModelCalls: 1, timeoutMs: 1000 });
    budget.takeActionSlot('a tap');
    expect(() => budget.takeActionSlot('a tap')).toThrow(expect.objectContaining({ code: 'STEP_BUDGET_EXHAUSTED' }) as Error);
    budget.recordModelCall({ inputTokens: 10, outputTokens: 2, cachedInputTokens: 4 });
    expect(() => budget.recordModelCall({ inputTokens: 99 })).toThrow('maxModelCalls');
    expect(budget.tokens()).toEqual({ input: 10, output: 2, cached: 4 });
    expect(budget.isSpent()).toBe(true);
  });
});

describe('prepareInstruction', () => {
  const vault = new SecretVault({ adminPassword: { value: 'hunter22' } });

  it('fills placeholders, shows secrets by name and remembers where values came from', () => {
    const prepared = prepareInstruction('sign up as {email} with {password}', { email: unique('a@b.c'), password: secret('adminPassword') }, vault, 'agent.act');
    expect(prepared).toMatchObject({
      template: 'sign up as {email} with {password}',
      instruction: 'sign up as a@b.c with <secret:adminPassword>',
      params: { email: 'a@b.c', password: '<secret:adminPassword>' },
      sources: { email: { kind: 'unique', value: 'a@b.c' }, password: { kind: 'secret', name: 'adminPassword' } },
      secretNames: ['adminPassword'],
    });
  });

  it('reads a secret value written into the instruction or a plain param as <secret:name>, warns naming the secret and the fix, and grants nothing', () => {
    // The seeds' behaviour (ctx.step reads <secret:name>); the warning says the value still sits in the test's source.
    const written = [
      prepareInstruction('log in with hunter22', undefined, vault, 'agent.act'),
      prepareInstruction('log in with HUNTER22 now', undefined, vault, 'agent.act'),
      prepareInstruction('log in with {pw}', { pw: 'hunter22' }, vault, 'agent.act'),
      prepareInstruction('log in with {pw}', { pw: unique('hunter22') }, vault, 'agent.act'),
      prepareInstruction('log in with hun{rest}', { rest: 'ter22' }, vault, 'agent.act'),
    ];
    for (const prepared of written) {
      expect(prepared.instruction).toContain('<secret:adminPassword>');
      expect(JSON.stringify({ instruction: prepared.instruction, params: prepared.params, sources: prepared.sources, warnings: prepared.warnings })).not.toMatch(/hunter22/i);
      expect(prepared.secretNames).toEqual([]);
      expect(prepared.warnings).toEqual([expect.stringContaining('holds the value of the secret `adminPassword`')]);
    }
    const param = written[2]!;
    expect(param).toMatchObject({ instruction: 'log in with <secret:adminPassword>', params: { pw: '<secret:adminPassword>' }, sources: { pw: { kind: 'literal', value: '<secret:adminPassword>' } } });
    expect(param.warnings).toEqual([
      "agent.act: param `pw` holds the value of the secret `adminPassword`; the step reads it as <secret:adminPassword>, and it grants no typing. Pass it by name instead: { params: { adminPassword: secret('adminPassword') } } and write {adminPassword} where it goes.",
    ]);
    expect(written[0]!.warnings[0]).toMatch(/^agent\.act: the instruction holds the value of the secret `adminPassword`/);
  });

  it('hands the executor the words as written: no secret mark where the test wrote none', () => {
    expect(prepareInstruction('type the secret word into the search box', undefined, vault, 'agent.act')).toMatchObject({ instruction: 'type the secret word into the search box', secretNames: [] });
  });

  it('grants only secrets handed over as secret() params, never a name, token or value in the words', () => {
    const words = ['type adminPassword into the field', 'open the forgot adminPassword help', 'type <secret:adminPassword> here', 'use {pw}'];
    const granted = words.map((text) => prepareInstruction(text, text.includes('{pw}') ? { pw: '<secret:adminPassword>' } : undefined, vault, 'agent.act').secretNames);
    expect(granted).toEqual([[], [], [], []]);
    expect(prepareInstruction('open the forgot adminPassword help with {pw}', { pw: secret('adminPassword') }, vault, 'agent.act').secretNames).toEqual(['adminPassword']);
  });

  it('names the fix for unknown placeholders, bad params and unknown secrets', () => {
    expect(() => prepareInstruction('add {titel}', { title: 'x' }, vault, 'agent.act')).toThrow('did you mean `title`');
    expect(() => prepareInstruction('add {title}', { title: [1] }, vault, 'agent.act')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error);
    expect(() => prepareInstruction('add', { password: secret('adminPasword') }, vault, 'agent.act')).toThrow(expect.objectContaining({ code: 'SECRET_UNAVAILABLE' }) as Error);
    expect(() => requireInstruction('  ', 'agent.act')).toThrow('non-empty instruction');
    expect(() => requireInstruction(undefined, 'agent.assert')).toThrow('as its first argument, not undefined');
  });
});
