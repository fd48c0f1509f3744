/**
 * No hidden text in what a reviewer reads: entries recorded on real Chromium from a page whose
 * control names carry terminal escapes, bidi overrides, OSC 8 hyperlinks, lone carriage
 * returns and zero-width characters, and forged entries (ESC in the test id, target, agent,
 * summary, origins, written with the store API), rendered by every review output: `cache ls`,
 * `stats`, `show` (text, JSON, `--textconv` for git), `diff` (text, Markdown, JSON), `accept`,
 * `mv`, `prune`, error messages, and the run's step titles and summary lines. Every output is
 * scanned by a detector written apart from `semantics/visible-text.ts`; the Markdown is
 * rendered by markdown-it (a CommonMark renderer) and must hold no element, link, image or
 * mention that the page or an entry supplied.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import MarkdownIt from 'markdown-it';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeKey, FileCacheStore, type ActEntry, type Entry } from '../../cache-format/index.js';
import { registerCacheCommands } from '../../cli/cache-commands.js';
import { diffCache } from '../../review/cache-diff.js';
import { renderDiff } from '../../review/cache-diff-render.js';
import { pruneCache, renderPrune, renderPruneJson } from '../../review/cache-prune.js';
import { runCommandWork, type CommandIo } from '../../cli/command-io.js';
import { initProject } from '../../cli/init-command.js';
import type { StepContext, StepExecutor } from '../../contract/step-contract.js';
import { summaryLines, unverifiedStepLines } from '../../runner/report.js';
import { actionStepTitle } from '../../runner/step-details.js';
import { stepTitle } from '../../step/step-title.js';
import { actEntry, assertEntry, commitAll, control, git, stateControl, writeEntries } from '../support/cache-fixtures.js';
import { startAttempt, HARNESS_TEST_ID } from '../support/attempt-harness.js';
import { liveScreenPerFile, type LiveScreen } from '../support/live-screen.js';
import { allNodes } from '../support/screen-tree.js';
import { htmlPages } from '../support/static-server.js';
import { tempFolders } from '../support/temp-folders.js';
import { CACHE_CLI } from './support/run-cli.js';
import { scaledTimeout } from '../support/load-scaled.js';

/** Raw characters a reviewer must never receive: C0 but the line break, DEL, C1, bidi controls, zero-width and invisible format characters. */
const RAW_HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad\u2028\u2029]/u;

/** Where `text` carries a raw hidden character, as `U+001B at 12`; empty when none. */
function rawHiddenIn(text: string): string[] {
  const found: string[] = [];
  for (let index = 0; index < text.length; index++) {
    if (RAW_HIDDEN.test(text[index]!)) found.push(`U+${text.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')} at ${index}`);
  }
  return found;
}

const ESC = '\u001b';
const NAMES = {
  erase: `Safe${ESC}[2K${ESC}[1AHIDDEN`,
  bidi: 'Pay \u202eBIDI-RLO\u202c now',
  hyperlink: `${ESC}]8;;https://evil.example/${ESC}\\Docs${ESC}]8;;${ESC}\\`,
  zeroWidth: 'Ze\u200bro\u200dWidth\ufeff\u2066x\u2069',
  markup: '</details><img src="https://evil.example/pixel.png"> @someone #123 ![x](https://evil.example/i.png) [y](javascript:alert(1))',
};
/** A line a forged value tries to print as a line of its own (a fake risk, a fake heading). */
const FORGED_LINE = '! FORGED-LINE';
/** A lone CR (kept in a test id attribute and a typed value, where no whitespace folding happens). */
const CARRIAGE = 'row\r## Injected <h2>heading</h2>\r<details><summary>@someone</summary>';

const HOSTILE_PAGE = `<!doctype html><html><head><title>Hostile</title></head><body>
<main>
  <h1 id="title"></h1>
  <button id="erase"></button>
  <button id="pay"></button>
  <a id="docs" href="#docs"></a>
  <label>Note <input id="note"></label>
  <p id="markup"></p>
  <div id="status" role="status"></div>
</main>
<script>
  const names = ${JSON.stringify(NAMES)};
  document.getElementById('title').textContent = names.markup;
  document.getElementById('erase').textContent = names.erase;
  document.getElementById('erase').setAttribute('data-testid', ${JSON.stringify(CARRIAGE)});
  document.getElementById('pay').textContent = names.bidi;
  document.getElementById('docs').textContent = names.hyperlink;
  document.getElementById('note').setAttribute('placeholder', names.zeroWidth);
  document.getElementById('markup').textContent = names.markup;
  document.getElementById('pay').addEventListener('click', () => {
    const done = document.createElement('p');
    done.textContent = 'Paid ' + names.bidi + ' ' + names.erase;
    document.getElementById('status').append(done);
  });
</script>
</body></html>`;

let live: LiveScreen;
liveScreenPerFile((started) => (live = started));
const tempFolder = tempFolders('e2e-hostile-review-');

/** Stands in for the model: taps the erase button, types the param, taps Pay; its summary quotes the page, as a model's does. */
function hostileExecutor(): StepExecutor {
  return {
    name: `scripted${ESC}[2K`,
    version: '1.0.0',
    async runStep(context: StepContext) {
      const tree = (await context.observe({ tree: true })).tree!;
      const nodes = allNodes(tree);
      const erase = nodes.find((node) => node.role === 'button' && node.name.includes('HIDDEN'))!;
      const pay = nodes.find((node) => node.role === 'button' && node.name.includes('BIDI'))!;
      const note = nodes.find((node) => node.role === 'textbox')!;
      await context.actions.tap({ id: erase.id });
      await context.actions.type({ id: note.id }, context.step.params['value'] ?? '', { replace: true });
      await context.actions.tap({ id: pay.id });
      return { status: 'passed', summary: `Tapped ${erase.name} and ${pay.name}\r${NAMES.markup}` };
    },
  };
}

/** Forged entries: hidden characters wherever an entry holds text, written with the store API. */
async function forgedEntries(): Promise<Entry[]> {
  const testId = `tests/evil${ESC}[2K.e2e.ts::evil \u202etset › pays\r# Heading @someone\n${FORGED_LINE} in the test id`;
  const act = await actEntry({
    testId,
    target: `web${ESC}[1A`,
    instruction: `pay ${NAMES.bidi}\r<img src=x>\n${FORGED_LINE} in the instruction`,
    params: { [`amount${ESC}`]: `100\u202e00` },
    actions: [
      { verb: 'tap', target: control('button', NAMES.erase, { testId: CARRIAGE }) },
      { verb: 'type', target: control('textbox', NAMES.zeroWidth), value: { kind: 'literal', value: `x${ESC}]8;;https://evil.example/${ESC}\\y` }, replace: true },
      { verb: 'navigate', url: `http://127.0.0.1:4173/${ESC}[2K\u202e` },
      { verb: 'press', key: `Enter${ESC}[1A` },
    ],
    appeared: [stateControl('status', `Paid ${NAMES.bidi}`)],
    origins: ['http://127.0.0.1:4173', '@someone', `http://127.0.0.1:4174/\u202e${ESC}[2K`],
    summary: `Paid${ESC}[2K${ESC}[1A all good \u202e @someone #1\n${FORGED_LINE} in the summary`,
  });
  const agentParts = { ...act.keyParts, agent: `default${ESC}[2K\u200b` };
  const withAgent: ActEntry = { ...act, keyParts: agentParts, key: await computeKey(agentParts), provenance: { ...act.provenance, executor: `e2e/agent${ESC}[31m` } };
  const judged = await assertEntry(testId, [withAgent.key], `the status reads ${NAMES.bidi}`);
  const judgment: Entry = { ...judged, summary: `Seen ${NAMES.erase}`, evidence: [{ control: stateControl('status', `Paid ${NAMES.erase}`), expect: 'present' }] };
  return [withAgent, judgment];
}

interface Printed {
  name: string;
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
}

/** Runs `e2e <args>` in-process on a fresh commander program, as the binary does; returns what it printed. */
async function run(cwd: string, args: string[]): Promise<Printed> {
  let stdout = '';
  let stderr = '';
  let exitCode: number | undefined;
  const io: CommandIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, cwd, env: {}, exit: (code: number) => (exitCode = code) };
  const program = new Command('e2e');
  registerCacheCommands(program, io);
  await program.parseAsync(['node', 'e2e', ...args]).catch(() => undefined);
  return { name: args.join(' '), stdout, stderr, exitCode };
}

/** Files under `folder`, relative paths. */
function filesUnder(folder: string, prefix = ''): string[] {
  return readdirSync(join(folder, prefix)).flatMap((name) => {
    const path = prefix === '' ? name : `${prefix}/${name}`;
    return statSync(join(folder, path)).isDirectory() ? filesUnder(folder, path) : [path];
  });
}

const outputs: Printed[] = [];
let hostileKeys: string[] = [];
let markdown = '';
let rawEntries = '';

beforeAll(async () => {
  live.server.route(htmlPages(new Map([['/hostile.html', HOSTILE_PAGE]])));
  const repository = tempFolder();
  const cacheDir = join(repository, '.e2e', 'cache');
  const cacheFlags = ['--cache-dir', cacheDir, '--hits-dir', join(repository, '.e2e', 'hits')];
  git(repository, 'init', '-q');
  await initProject(repository);
  git(repository, 'config', 'diff.e2e-cache.textconv', `${CACHE_CLI.join(' ')} cache show --textconv`);
  await writeEntries(cacheDir, [await actEntry({ testId: 'tests/plain.e2e.ts::plain', instruction: 'go', actions: [{ verb: 'tap', target: control('button', 'Go') }] })]);
  commitAll(repository, 'base cache');

  // Recorded on Chromium from the hostile page, into the working tree's cache.
  await live.open('hostile.html');
  const attempt = startAttempt(live, { cache: { store: new FileCacheStore(cacheDir) }, executor: hostileExecutor() });
  const outcome = await attempt.act('pay on the hostile page with {value}', { value: `Line\rOVERWRITE${ESC}[2K @someone` });
  expect(outcome.verdict.status).toBe('passed');
  attempt.verify();
  const reports = await attempt.finish(true);
  expect(reports[0]?.outcome).toMatchObject({ write: 'saved' });

  // The run's own words about that step: step titles, action titles, the summary lines.
  const runLines = [
    stepTitle('act', 'pay on the hostile page with Line\rOVERWRITE\u001b[2K @someone'),
    ...outcome.actions.map((sentence) => actionStepTitle({ sentence, outcome: 'ok' })),
    ...unverifiedStepLines({ tests: [{ file: 'hostile.e2e.ts', titlePath: [NAMES.erase], attempts: [{ status: 'passed', steps: [{ kind: 'act', instruction: NAMES.bidi, location: `hostile.e2e.ts:3${ESC}[2K`, cache: { mode: 'missed', reason: 'no-entry', write: 'unconfirmed' } }] }] }] } as never),
    ...summaryLines({ tests: { passed: 1, failed: 0, flaky: 0, skipped: 0 }, modelCalls: 0, tokens: { input: 0, output: 0, cached: 0 }, cache: { replayed: 0, handedOff: 0, recorded: 1, missed: 0, unverified: 1 } } as never),
  ];
  outputs.push({ name: 'run step titles and summary lines', stdout: runLines.join('\n'), stderr: '', exitCode: 0 });

  // Forged entries arrive through a proposal folder, so `cache accept` lists them too.
  const proposal = join(repository, 'proposal');
  await writeEntries(proposal, await forgedEntries());
  outputs.push(await run(repository, ['cache', 'accept', proposal, ...cacheFlags]));
  outputs.push(await run(repository, ['cache', 'accept', proposal, '--json', ...cacheFlags]));

  const store = new FileCacheStore(cacheDir, { readOnly: true });
  const refs = await store.list();
  hostileKeys = refs.map((ref) => ref.key);
  const entries = await Promise.all(refs.map(async (ref) => store.read(ref.key)));
  rawEntries = entries.map((result) => (result.kind === 'hit' ? `${result.entry.keyParts.testId} ${JSON.stringify(result.entry)}` : '')).join('\n');

  for (const args of [['ls'], ['ls', '--json'], ['stats'], ['stats', '--json'], ['diff'], ['diff', '--format', 'markdown'], ['diff', '--format', 'json']]) {
    outputs.push(await run(repository, ['cache', ...args, ...cacheFlags]));
  }
  markdown = outputs.find((printed) => printed.name.startsWith('cache diff --format markdown'))!.stdout;
  // The renderers alone, without the commands' output guard behind them.
  const diff = await diffCache({ cwd: repository, cacheDirectory: cacheDir, base: undefined, head: undefined });
  outputs.push({ name: 'renderDiff text (no output guard)', stdout: renderDiff(diff, 'text'), stderr: '', exitCode: 0 });
  outputs.push({ name: 'renderDiff --format markdown (no output guard)', stdout: renderDiff(diff, 'markdown'), stderr: '', exitCode: 0 });
  for (const ref of refs) {
    outputs.push(await run(repository, ['cache', 'show', ref.key, ...cacheFlags]));
    outputs.push(await run(repository, ['cache', 'show', ref.key, '--json', ...cacheFlags]));
  }
  for (const file of filesUnder(cacheDir)) outputs.push(await run(repository, ['cache', 'show', '--textconv', join(cacheDir, file)]));
  const forgedTestId = (await forgedEntries())[0]!.keyParts.testId;
  const movedId = `${forgedTestId.split('::')[0]!}::moved ${NAMES.bidi}\u200b`;
  // Error messages: a near-miss test id names the hostile ones (did you mean …).
  outputs.push(await run(repository, ['cache', 'mv', `${forgedTestId}x`, 'elsewhere', ...cacheFlags]));
  outputs.push(await run(repository, ['cache', 'mv', forgedTestId, movedId, '--dry-run', ...cacheFlags]));
  outputs.push(await run(repository, ['cache', 'mv', forgedTestId, movedId, ...cacheFlags]));
  outputs.push(await run(repository, ['cache', 'diff', ...cacheFlags]));
  outputs.push(await run(repository, ['cache', 'diff', '--format', 'markdown', ...cacheFlags]));

  // Prune through the same output path as the command, with an inventory that reaches only the plain test.
  for (const render of [renderPrune, renderPruneJson]) {
    let stdout = '';
    const io: CommandIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => true }, cwd: repository, env: {}, exit: () => undefined };
    await runCommandWork(io, async () => {
      const result = await pruneCache({ location: { cacheDirectory: cacheDir, hitsDirectory: join(repository, '.e2e', 'hits') }, inventory: { tests: [{ testId: 'tests/plain.e2e.ts::plain', project: 'web' }] } as never, dryRun: true });
      return { outcome: 'passed', text: render(result) };
    });
    outputs.push({ name: `cache prune --dry-run (${render.name})`, stdout, stderr: '', exitCode: 0 });
  }
  // git diff through the textconv, as `e2e init` sets it up.
  commitAll(repository, 'hostile cache');
  outputs.push({ name: 'git diff through the textconv', stdout: git(repository, 'diff', 'HEAD~1', 'HEAD', '--', '.e2e/cache'), stderr: '', exitCode: 0 });
}, scaledTimeout(600_000));

describe('every review output of hostile and forged entries', () => {
  it('the detector finds a planted character and the entries really carry them', () => {
    expect(rawHiddenIn(`planted ${ESC}[2K here`)).toEqual(['U+001B at 8']);
    expect(rawHiddenIn('plain text, Čaj 茶 🍵\nnext line')).toEqual([]);
    // The recorded and forged entries hold every kind: C0, bidi, zero-width.
    for (const code of ['U+001B', 'U+000D', 'U+202E', 'U+200B', 'U+FEFF', 'U+2066']) expect(rawHiddenIn(rawEntries).some((hit) => hit.startsWith(code))).toBe(true);
    expect(hostileKeys.length).toBeGreaterThanOrEqual(4);
  });

  it('print no raw control, bidi or zero-width character anywhere', () => {
    expect(outputs.length).toBeGreaterThan(20);
    const leaks = outputs.flatMap((printed) => [...rawHiddenIn(printed.stdout), ...rawHiddenIn(printed.stderr)].map((hit) => `${printed.name}: ${hit}`));
    expect(leaks).toEqual([]);
    for (const printed of outputs) expect(`${printed.name}: ${printed.stdout}${printed.stderr}`.length).toBeGreaterThan(printed.name.length + 2);
  });

  it('never let a line break inside a value start a line of its own', () => {
    expect(rawEntries).toContain(`\n${FORGED_LINE}`);
    const forgedLines = outputs.flatMap((printed) =>
      `${printed.stdout}\n${printed.stderr}`
        .split('\n')
        .filter((line) => /^[-+ ]?\s*(?:[-*>#|]\s*)*! FORGED-LINE/.test(line))
        .map((line) => `${printed.name.slice(0, 40)}: ${line}`),
    );
    expect(forgedLines).toEqual([]);
    expect(outputs.some((printed) => printed.stdout.includes(`\\n${FORGED_LINE}`))).toBe(true);
  });

  it('show the hidden characters spelled out, and flag them in the diff', () => {
    const show = outputs.filter((printed) => printed.name.startsWith('cache show') && !printed.name.includes('--json')).map((printed) => printed.stdout).join('\n');
    expect(show).toContain('Safe\\u001b[2K\\u001b[1AHIDDEN');
    expect(show).toContain('Pay ⟨U+202E⟩BIDI-RLO⟨U+202C⟩ now');
    expect(show).toContain('Ze⟨U+200B⟩ro⟨U+200D⟩Width⟨U+FEFF⟩⟨U+2066⟩x⟨U+2069⟩');
    expect(show).toContain('pays\\r# Heading @someone');
    const diff = outputs.find((printed) => printed.name.startsWith('cache diff --cache-dir'))!.stdout;
    expect(diff).toMatch(/! .*carries control, bidi or zero-width characters \(shown spelled out\) in keyParts\.testId/);
    expect(diff).toContain('actions[0].target.name');
    const json = JSON.parse(outputs.find((printed) => printed.name.startsWith('cache diff --format json'))!.stdout) as { risks: Array<{ kind: string }> };
    expect(json.risks.filter((risk) => risk.kind === 'hidden-characters').length).toBeGreaterThanOrEqual(3);
    // JSON output keeps the data: the escapes parse back to the recorded name.
    const shownJson = outputs.filter((printed) => printed.name.startsWith('cache show') && printed.name.includes('--json')).map((printed) => JSON.stringify(JSON.parse(printed.stdout)));
    expect(shownJson.some((text) => text.includes(JSON.stringify(NAMES.erase).slice(1, -1)))).toBe(true);
  });

  it('render Markdown that holds no element, link, image or mention from the page or an entry', () => {
    const renderer = new MarkdownIt({ html: true, linkify: true });
    for (const printed of outputs.filter((output) => output.name.includes('--format markdown'))) {
      const text = printed.stdout;
      expect(text).toContain('e2e cache diff');
      const html = renderer.render(text);
      expect(html).not.toMatch(/<(?!\/?(?:h3|h4|p|strong|code|pre|ul|li|blockquote)\b)[a-z]/i);
      const tokens = renderer.parse(text, {});
      const flat = tokens.flatMap((token) => [token, ...(token.children ?? [])]);
      expect(flat.filter((token) => ['html_block', 'html_inline', 'image', 'link_open'].includes(token.type)).map((token) => token.content)).toEqual([]);
      expect(flat.filter((token) => token.type === 'heading_open').map((token) => token.tag).every((tag) => tag === 'h3' || tag === 'h4')).toBe(true);
      // GitHub links @name and #1 in plain text whatever the escapes: they must sit in code only.
      const plainText = flat.filter((token) => token.type === 'text').map((token) => token.content).join('\n');
      expect(plainText).not.toMatch(/@\w|#\d/);
      expect(text).toContain('@someone');
    }
    expect(markdown).toContain('Safe\\u001b[2K');
  });
});
