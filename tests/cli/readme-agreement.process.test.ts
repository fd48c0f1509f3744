/**
 * The README, `--help`, `e2e init`'s config and `examples/` agree word for word: every command
 * of the README's command table exists with the arguments and options it shows, the options
 * table of `record`/`replay`/`run` is exactly what `--help` offers beside Playwright's options,
 * and the environment variables that choose a model have the same names everywhere.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_TEMPLATE } from '../../cli/init-templates.js';
import { playwrightOptions } from '../../cli/playwright-options.js';
import { ensureBuilt, ROOT } from '../runner/support/build.js';
import { E2E_BIN } from '../runner/support/e2e-process.js';
import { scaledTimeout } from '../support/load-scaled.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** `e2e <path> --help` as the binary prints it, one process per command path (the text does not change between tests). */
const helpTexts = new Map<string, string>();

function help(path: string[]): string {
  const known = helpTexts.get(path.join(' '));
  if (known !== undefined) return known;
  const result = spawnSync(process.execPath, [E2E_BIN, ...path, '--help'], { encoding: 'utf8' });
  expect(result.status, `e2e ${path.join(' ')} --help`).toBe(0);
  helpTexts.set(path.join(' '), result.stdout);
  return result.stdout;
}

/** The flags column of a commander help text. */
function helpFlags(text: string): string[] {
  return text
    .split('\n')
    .map((line) => /^ {2}(-[^ ].*?)(?: {2,}|$)/.exec(line)?.[1])
    .filter((flags): flags is string => flags !== undefined);
}

/** The command names of a help text's Commands section. */
function helpCommands(text: string): string[] {
  const section = text.split('\nCommands:\n')[1] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {2}([a-z][a-z-]*)\b/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
}

/** Rows of the Markdown table that follows `heading` (cells split on unescaped pipes). */
function tableAfter(heading: string): string[][] {
  const start = README.indexOf(heading);
  expect(start, heading).toBeGreaterThan(-1);
  const lines = README.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}

interface ReadmeCommand {
  path: string[];
  args: string[];
  options: string[];
}

/** `e2e cache ls` / `stats` / `show [entry]` → three commands; siblings share the parent. */
function readmeCommands(): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  for (const [cell] of tableAfter('## Commands')) {
    let parent: string[] = [];
    for (const span of codeSpans(cell ?? '')) {
      const tokens = span.replace(/…/g, '...').split(' ');
      const own = tokens[0] === 'e2e' ? tokens.slice(1) : [...parent, ...tokens];
      const word = /^[a-z][a-z-]*$/;
      const words = own.filter((token) => word.test(token));
      const path = own.slice(0, own.findIndex((token) => !word.test(token)) === -1 ? own.length : own.findIndex((token) => !word.test(token)));
      expect(path.length, span).toBeGreaterThan(0);
      if (tokens[0] === 'e2e') parent = path.slice(0, -1);
      const rest = own.slice(path.length).join(' ');
      const options = [...rest.matchAll(/\[(--[\w-]+)[^\]]*\]/g)].map((match) => match[1]!);
      const args = rest
        .replace(/\[--[^\]]*\]/g, '')
        .split(' ')
        .filter((token) => token !== '');
      expect(words.length).toBeGreaterThanOrEqual(path.length);
      commands.push({ path, args, options });
    }
  }
  return commands;
}

beforeAll(() => {
  ensureBuilt();
}, scaledTimeout(300_000));

describe('the README agrees with the binary', () => {
  // One `--help` process per command: a minute or more on a busy 2-core machine.
  it('lists exactly the commands `e2e --help` and `e2e cache --help` have, with their arguments and options', () => {
    const commands = readmeCommands();
    const top = helpCommands(help([]));
    const cache = helpCommands(help(['cache'])).map((name) => `cache ${name}`);
    const inHelp = [...top.filter((name) => name !== 'cache'), ...cache].sort();
    expect(commands.map((command) => command.path.join(' ')).sort()).toEqual(inHelp);
    for (const command of commands) {
      const text = help(command.path);
      const usage = /^Usage: e2e (.*)$/m.exec(text)?.[1] ?? '';
      expect(usage.replace(/ \[options\]/, ''), command.path.join(' ')).toBe([...command.path, ...command.args].join(' '));
      const flags = helpFlags(text).flatMap((entry) => entry.split(/[ ,]+/).filter((token) => token.startsWith('-')));
      for (const option of command.options) expect(flags, `${command.path.join(' ')} ${option}`).toContain(option);
    }
  }, scaledTimeout(300_000));

  it("has the options table of record, replay and run that --help shows beside Playwright's own", () => {
    const rows = tableAfter('Options of `record`, `replay` and `run`');
    const passedOn = new Set(playwrightOptions().map((option) => option.flags));
    for (const command of ['record', 'replay', 'run']) {
      const ours = helpFlags(help([command])).filter((flags) => !passedOn.has(flags) && flags !== '-h, --help');
      const documented = rows.filter(([, on]) => (on ?? '').split(', ').includes(command)).map(([flags]) => codeSpans(flags ?? '')[0]);
      expect(documented, command).toEqual(ours);
    }
  });

  it('names only real Playwright options in the paragraph after the table', () => {
    const start = README.indexOf('Every other option of `playwright test`');
    const paragraph = README.slice(start, README.indexOf('\n\n', start));
    const named = codeSpans(paragraph).filter((span) => span.startsWith('-') && span !== '--' && !span.includes('--debug'));
    expect(named.length).toBeGreaterThan(20);
    const offered = helpFlags(help(['record']));
    for (const flags of named) expect(offered, flags).toContain(flags);
  });

  it("uses the same environment variable names for the model in the README, init's config and examples/shop", () => {
    const names = (text: string) => new Set(text.match(/\b(?:OPENAI_API_KEY|ANTHROPIC_API_KEY|E2E_[A-Z0-9_]+)\b/g) ?? []);
    const init = [...names(CONFIG_TEMPLATE)].filter((name) => name !== 'E2E_APP_URL').sort();
    const example = [...names(readFileSync(join(ROOT, 'examples', 'shop', 'support', 'model.ts'), 'utf8'))].filter((name) => name !== 'E2E_EXAMPLE_STAND_IN').sort();
    expect(init).toEqual(['ANTHROPIC_API_KEY', 'E2E_MODEL', 'E2E_OPENAI_COMPATIBLE_KEY', 'E2E_OPENAI_COMPATIBLE_URL', 'OPENAI_API_KEY']);
    expect(example).toEqual(init);
    const readme = names(README);
    for (const name of init) expect(readme.has(name), name).toBe(true);
    const exampleScript = names(readFileSync(join(ROOT, 'scripts', 'example.sh'), 'utf8'));
    for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'E2E_OPENAI_COMPATIBLE_URL', 'E2E_MODEL']) expect(exampleScript.has(name), name).toBe(true);
  });
});
