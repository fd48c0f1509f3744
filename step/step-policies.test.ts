/**
 * The step runner's policies: the deadline primitive, secrets and redaction, the origin
 * allowlist and upload paths.
 */
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2EError } from '../errors/index.js';
import { Deadline, sleep } from '../contract/deadline.js';
import { OriginPolicy, describeUrl } from './origin-policy.js';
import { redactDeep } from '../secrets/redactor.js';
import { SecretVault, environmentVariableFor, isSecretRef, secret, unique } from '../secrets/vault.js';
import { checkUploadPaths } from './upload-policy.js';

describe('Deadline', () => {
  it('rejects a race at the deadline even when the work never settles', async () => {
    const deadline = Deadline.start({ timeoutMs: 20, onTimeout: () => new E2EError('STEP_TIMEOUT', 'too slow') });
    await expect(deadline.race(new Promise(() => undefined))).rejects.toMatchObject({ code: 'STEP_TIMEOUT', message: 'too slow' });
    expect(deadline.timeIsUp()).toBe(true);
    expect(deadline.signal.aborted).toBe(true);
  });

  it('ends a child no later than its parent and passes the parent reason down', async () => {
    const parent = Deadline.start({ timeoutMs: 1000 });
    const child = parent.child(60_000);
    expect(child.expiresAt).toBe(parent.expiresAt);
    parent.abort(new E2EError('CANCELLED', 'stopped'));
    expect(child.reason()).toMatchObject({ code: 'CANCELLED' });
    expect(child.remainingMs()).toBe(0);
    await expect(sleep(10_000, child)).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('keeps the first abort reason', () => {
    const deadline = Deadline.start();
    deadline.abort(new E2EError('POLICY_DENIED', 'first'));
    deadline.abort(new E2EError('CANCELLED', 'second'));
    expect(() => deadline.throwIfStopped()).toThrow('first');
    expect(deadline.remainingMs()).toBe(0);
  });
});

describe('secrets', () => {
  const vault = new SecretVault({ adminPassword: { value: 'Pa ss/w+rd' }, empty: { value: undefined } });

  it('secret() prints only the name wherever it is serialized', () => {
    const reference = secret('adminPassword');
    expect(isSecretRef(reference)).toBe(true);
    expect(JSON.stringify({ reference })).toBe('{"reference":"<secret:adminPassword>"}');
    expect(String(reference)).toBe('<secret:adminPassword>');
    expect(inspect(reference)).toBe('<secret:adminPassword>');
    expect(() => secret('has space')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error);
  });

  it('unique() keeps its value and makes a fresh one without an argument', () => {
    expect(unique('user-1').value).toBe('user-1');
    expect(unique().value).not.toBe(unique().value);
  });

  it('redacts every configured value, raw, encoded, base64 and in any case', () => {
    const value = 'Pa ss/w+rd';
    const text = [value, value.toUpperCase(), encodeURIComponent(value), Buffer.from(value).toString('base64'), JSON.stringify(value)].join(' | ');
    const redacted = vault.redact(text);
    expect(redacted).toBe('<secret:adminPassword> | <secret:adminPassword> | <secret:adminPassword> | <secret:adminPassword> | "<secret:adminPassword>"');
    expect(redactDeep({ nested: [{ text: `x ${value}` }] }, (item) => vault.redact(item))).toEqual({ nested: [{ text: 'x <secret:adminPassword>' }] });
  });

  it('resolves by name and names the fix when it cannot', () => {
    expect(vault.resolve('adminPassword')).toBe('Pa ss/w+rd');
    expect(() => vault.resolve('adminPasword')).toThrow('did you mean `adminPassword`');
    expect(() => vault.resolve('empty')).toThrow('E2E_SECRET_EMPTY');
    expect(environmentVariableFor('adminPassword')).toBe('E2E_SECRET_ADMIN_PASSWORD');
  });
});

describe('OriginPolicy', () => {
  const policy = new OriginPolicy(['http://127.0.0.1:4173/', 'https://example.test']);

  it('allows the listed origins over http(s) and about:blank', () => {
    expect(policy.check('http://127.0.0.1:4173/todos?x=1')).toEqual({ allowed: true });
    expect(policy.check('https://example.test/a')).toEqual({ allowed: true });
    expect(policy.check('about:blank')).toEqual({ allowed: true });
  });

  it('refuses other origins and other schemes, naming the fix', () => {
    expect(policy.check('http://127.0.0.1:4174/')).toMatchObject({ allowed: false, reason: expect.stringContaining('add it to `origins`') as string });
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,hi']) expect(policy.check(url).allowed).toBe(false);
  });

  it('narrows a secret to its own origins', () => {
    expect(policy.checkSecret('pw', 'https://example.test/login', ['https://example.test']).allowed).toBe(true);
    expect(policy.checkSecret('pw', 'http://127.0.0.1:4173/login', ['https://example.test']).allowed).toBe(false);
  });

  it('describes a URL without its query', () => {
    expect(describeUrl('http://127.0.0.1:4173/a?token=abc#x')).toBe('http://127.0.0.1:4173/a?…');
  });
});

describe('checkUploadPaths', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'e2e-upload-'));
    await mkdir(join(root, 'files', '.private'), { recursive: true });
    await writeFile(join(root, 'files', 'a.txt'), 'a');
    await writeFile(join(root, 'files', '.private', 'b.txt'), 'b');
    await writeFile(join(root, '..', 'e2e-upload-outside.txt'), 'outside');
    await symlink(join(root, '..', 'e2e-upload-outside.txt'), join(root, 'files', 'link.txt'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(join(root, '..', 'e2e-upload-outside.txt'), { force: true });
  });

  it('accepts files inside the project root', async () => {
    expect(await checkUploadPaths(['files/a.txt'], root)).toHaveLength(1);
  });

  it('refuses paths outside the root, hidden paths and links out, and reports missing files', async () => {
    await expect(checkUploadPaths(['../e2e-upload-outside.txt'], root)).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    await expect(checkUploadPaths(['files/.private/b.txt'], root)).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    await expect(checkUploadPaths(['files/link.txt'], root)).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    await expect(checkUploadPaths(['files/none.txt'], root)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(checkUploadPaths([], root)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
