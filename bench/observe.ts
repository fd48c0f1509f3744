/**
 * Bench section `observe`: the web engine's observation speed and size on generated pages of
 * ~100, ~1,000 and ~10,000 elements served from 127.0.0.1, and the engine's per-action time
 * against a plain Playwright script doing the same actions on the same page, in one run.
 */
import type { Page } from '@playwright/test';
import { surfaceOf, web } from '../engines/web/index.js';
import type { EngineInstance, ScreenNode } from '../contract/engine.js';
import { renderScreen } from '../step/screen-text.js';
import { htmlPages, serveStatic } from '../tests/support/static-server.js';
import type { BenchContext, BenchSection } from './run.js';

/**
 * A page of roughly `elements` elements: a list of item rows marked up the way component
 * libraries render them (utility classes, wrapper divs, a decorative icon), so the HTML
 * size per element is typical of real apps rather than hand-minimal.
 */
export function generatedPage(elements: number): string {
  const rows: string[] = [];
  // Each row is 12 elements: li, div, svg, path, span, b, a, label, input, button, p, em.
  for (let index = 0; rows.length * 12 < elements - 12; index++) {
    rows.push(
      `<li class="group flex items-center justify-between gap-3 rounded-md px-4 py-2 hover:bg-gray-50" data-row="${index}">` +
        `<div class="flex min-w-0 items-center gap-2"><svg class="h-4 w-4 shrink-0 text-gray-400" viewBox="0 0 20 20" fill="currentColor" aria-hidden="true"><path d="M4 4h12v12H4z"/></svg>` +
        `<span class="truncate text-sm font-medium text-gray-900">Item <b>${index}</b></span></div> ` +
        `<a class="text-sm text-indigo-600 hover:underline" href="/items/${index}?ref=list">open</a> ` +
        `<label class="inline-flex items-center gap-1 text-sm"><input class="h-4 w-4 rounded border-gray-300" type="checkbox"> done</label> ` +
        `<button class="rounded bg-red-50 px-2 py-1 text-xs text-red-700" type="button" data-testid="delete-${index}">Delete</button>` +
        `<p class="text-xs text-gray-500">Added by <em>someone</em> on day ${index % 28}</p></li>`,
    );
  }
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>Items</title></head><body class="bg-white antialiased">` +
    `<header class="border-b"><nav class="flex gap-4 px-4 py-2"><a href="/">Home</a> <a href="/about">About</a></nav></header>` +
    `<main class="mx-auto max-w-3xl"><h1 class="text-xl font-semibold">Items</h1><ul class="divide-y">${rows.join('')}</ul></main></body></html>`
  );
}

/** The page the action comparison runs on (a 1,000-element page plus a small form). */
function actionPage(): string {
  return generatedPage(1000).replace(
    '<main class="mx-auto max-w-3xl">',
    '<main class="mx-auto max-w-3xl"><form onsubmit="event.preventDefault(); this.querySelector(\'output\').textContent = this.elements.note.value">' +
      '<label>Note <input name="note"></label> <label><input type="checkbox" name="urgent"> Urgent</label> ' +
      '<button type="button" onclick="this.dataset.count = Number(this.dataset.count || 0) + 1">Count</button> <output></output></form>',
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Median milliseconds of `runs` observations after two warm-up ones. */
async function observeMedian(instance: EngineInstance, runs: number): Promise<{ milliseconds: number; nodes: number; root: ScreenNode; url: string }> {
  await instance.observe();
  await instance.observe();
  const times: number[] = [];
  let last = await instance.observe();
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    last = await instance.observe();
    times.push(performance.now() - started);
  }
  return { milliseconds: median(times), nodes: last.nodeCount, root: last.root, url: last.url };
}

/** The first node matching role and name. */
function find(root: ScreenNode, role: string, name: string): ScreenNode {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined) break;
    if (node.role === role && node.name === name) return node;
    stack.push(...node.children);
  }
  throw new Error(`bench page lost ${role} "${name}"`);
}

const ROUNDS = 25;

/** Total milliseconds of `ROUNDS` rounds of four actions through the engine, and through Playwright, interleaved. */
async function compareActions(instance: EngineInstance, page: Page): Promise<{ engine: number; playwright: number; actions: number }> {
  const screen = await instance.observe();
  const note = find(screen.root, 'textbox', 'Note');
  const urgent = find(screen.root, 'checkbox', 'Urgent');
  const count = find(screen.root, 'button', 'Count');
  const options = { timeoutMs: 15_000 };
  let engine = 0;
  let playwright = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now();
    await instance.perform(note, { verb: 'type', value: `engine ${round}`, replace: true }, options);
    await instance.perform(note, { verb: 'press', key: 'Enter' }, options);
    await instance.perform(urgent, { verb: 'check', checked: round % 2 === 0 }, options);
    await instance.perform(count, { verb: 'tap' }, options);
    engine += performance.now() - started;

    started = performance.now();
    await page.getByRole('textbox', { name: 'Note' }).fill(`script ${round}`);
    await page.getByRole('textbox', { name: 'Note' }).press('Enter');
    await page.getByRole('checkbox', { name: 'Urgent' }).setChecked(round % 2 === 1);
    await page.getByRole('button', { name: 'Count' }).click();
    playwright += performance.now() - started;
  }
  return { engine, playwright, actions: ROUNDS * 4 };
}

/** The `observe` section. */
export const observeSection: BenchSection = {
  name: 'observe',
  async run(context: BenchContext): Promise<Record<string, number>> {
    const pages = new Map<string, string>([
      ['/100', generatedPage(100)],
      ['/1k', generatedPage(1000)],
      ['/10k', generatedPage(10_000)],
      ['/actions', actionPage()],
    ]);
    const server = await serveStatic(undefined);
    server.route(htmlPages(pages));
    const engine = web({ env: { PATH: context.env['PATH'], E2E_CHROMIUM_PATH: context.env['E2E_CHROMIUM_PATH'] } });
    const figures: Record<string, number> = {};
    try {
      const instance = await engine.start({ baseUrl: server.url });
      const page = surfaceOf(engine).page();
      for (const [path, key, runs] of [
        ['/100', '100', 21],
        ['/1k', '1k', 21],
        ['/10k', '10k', 9],
      ] as const) {
        await instance.session.open(server.origin + path);
        const elements = await page.evaluate(() => document.querySelectorAll('*').length);
        const measured = await observeMedian(instance, runs);
        const text = renderScreen({ root: measured.root, url: measured.url }, { revision: 1 });
        const htmlBytes = Buffer.byteLength(await page.content());
        const textBytes = Buffer.byteLength(text);
        figures[`observe_ms_${key}`] = Number(measured.milliseconds.toFixed(2));
        figures[`observe_elements_${key}`] = elements;
        figures[`observe_nodes_${key}`] = measured.nodes;
        figures[`observe_text_bytes_${key}`] = textBytes;
        figures[`observe_html_bytes_${key}`] = htmlBytes;
        if (key === '1k') figures['observe_text_vs_html_ratio'] = Number((textBytes / htmlBytes).toFixed(3));
        context.log(`  ${key}: ${elements} elements → ${measured.nodes} nodes in ${measured.milliseconds.toFixed(1)} ms; text ${textBytes} B vs HTML ${htmlBytes} B`);
      }
      await instance.session.open(server.origin + '/actions');
      await compareActions(instance, page); // warm-up round trip for both paths
      const compared = await compareActions(instance, page);
      figures['engine_action_ms'] = Number((compared.engine / compared.actions).toFixed(2));
      figures['playwright_action_ms'] = Number((compared.playwright / compared.actions).toFixed(2));
      figures['engine_action_vs_playwright_ratio'] = Number((compared.engine / compared.playwright).toFixed(3));
      await instance.close();
    } finally {
      await engine.dispose?.();
      await server.close();
    }
    return figures;
  },
};
