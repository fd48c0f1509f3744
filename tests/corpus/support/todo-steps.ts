/**
 * The corpus's steps on TodoMVC: each instruction, a scripted executor that derives its
 * actions from the screen (as a model reading the screen would, and from where a replayed
 * prefix stopped), and the Playwright `expect` that verifies the step afterwards.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import type { ScreenNode } from '../../../contract/engine.js';
import type { StepContext, StepExecutor } from '../../../contract/step-contract.js';
import { allNodes } from '../../support/screen-tree.js';
import type { CorpusStep } from './corpus-step.js';

/** One step of the corpus flow. */
export type TodoStep = CorpusStep;

/** Todo items: list items holding a checkbox (the filter links sit in list items too). */
export function todoItems(page: Page): Locator {
  return page.getByRole('listitem').filter({ has: page.getByRole('checkbox') });
}

function todo(page: Page, title: string): Locator {
  return todoItems(page).filter({ hasText: title });
}

async function expectCount(locator: Locator, count: number): Promise<Locator> {
  await expect(locator).toHaveCount(count, { timeout: 2_000 });
  return locator;
}

/** The flow: add two, complete the first, filter Active and back, clear completed, rename. */
export const TODO_STEPS: readonly TodoStep[] = [
  { instruction: 'add todos "Buy milk" and "Walk the dog"', verify: (page) => expectCount(todoItems(page), 2) },
  {
    instruction: 'complete "Buy milk"',
    verify: async (page) => {
      // Dojo hides its plural "s" with CSS, so its text content reads "1 items left".
      const left = page.locator('#todo-count, .todo-count');
      await expect(left).toHaveText(/^\s*1\s+items?\s+left\s*$/, { timeout: 2_000 });
      return left;
    },
  },
  { instruction: 'show only active todos', verify: (page) => expectCount(todoItems(page), 1) },
  { instruction: 'show all todos', verify: (page) => expectCount(todoItems(page), 2) },
  { instruction: 'clear completed todos', verify: (page) => expectCount(todoItems(page), 1) },
  {
    instruction: 'rename "Walk the dog" to "Walk the cat"',
    verify: async (page) => {
      const renamed = todo(page, 'Walk the cat');
      await expect(renamed).toBeVisible({ timeout: 2_000 });
      return renamed;
    },
  },
];

async function tree(context: StepContext): Promise<ScreenNode> {
  return (await context.observe({ tree: true })).tree!;
}

const NEW_TODO = /what needs to be done/i;

function label(node: ScreenNode): string {
  return (node.name || node.text || '').trim();
}

function todoRows(root: ScreenNode): ScreenNode[] {
  return allNodes(root).filter((node) => node.role === 'listitem' && allNodes(node).some((inner) => inner.role === 'checkbox'));
}

function rowTitled(root: ScreenNode, title: string): ScreenNode | undefined {
  return todoRows(root).find((row) => label(row) === title || allNodes(row).some((inner) => inner !== row && label(inner) === title && inner.role !== 'textbox'));
}

function newTodoField(root: ScreenNode): ScreenNode | undefined {
  return allNodes(root).find((node) => node.role === 'textbox' && (NEW_TODO.test(node.name) || NEW_TODO.test(node.placeholder ?? '')));
}

function quoted(instruction: string): string[] {
  return [...instruction.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
}

/** What the scripted executor did, for the corpus table. */
export interface ScriptedTodoExecutor extends StepExecutor {
  calls: number;
}

/** Stands in for the model: reads the screen and does what the instruction asks, only what is still to do. */
export function todoExecutor(): ScriptedTodoExecutor {
  const executor: ScriptedTodoExecutor = {
    name: 'scripted-todomvc',
    version: '1.0.0',
    calls: 0,
    async runStep(context) {
      executor.calls++;
      const { instruction } = context.step;
      const fail = (summary: string) => ({ status: 'failed' as const, summary, errorCode: 'ACTION_FAILED' as const });
      if (instruction.startsWith('add todo')) {
        // `add todos "A" and "B"`, or with the completion in the same step: `add todo "A" and complete it`, `…, then complete "A"`.
        const [adding, completing] = instruction.split(/,? (?:and |then )+complete /) as [string, string | undefined];
        const titles = quoted(adding);
        for (const title of titles) {
          const root = await tree(context);
          if (rowTitled(root, title) !== undefined) continue;
          const field = newTodoField(root);
          if (field === undefined) return fail('There is no field for a new todo.');
          await context.actions.type({ id: field.id }, title, { replace: true });
          await context.actions.press({ id: field.id }, 'Enter');
        }
        if (completing === undefined) return { status: 'passed', summary: 'Added the todos.' };
        const done = completing === 'it' ? titles[titles.length - 1]! : quoted(completing)[0]!;
        const row = rowTitled(await tree(context), done);
        const toggle = row === undefined ? undefined : allNodes(row).find((node) => node.role === 'checkbox');
        if (toggle === undefined) return fail('The todo did not appear.');
        if (!toggle.states.includes('checked')) await context.actions.check({ id: toggle.id }, true);
        return { status: 'passed', summary: `Added the todos and completed ${done}.` };
      }
      if (instruction.startsWith('complete')) {
        const row = rowTitled(await tree(context), quoted(instruction)[0]!);
        const toggle = row === undefined ? undefined : allNodes(row).find((node) => node.role === 'checkbox');
        if (toggle === undefined) return fail('The todo is not on the screen.');
        if (!toggle.states.includes('checked')) await context.actions.check({ id: toggle.id }, true);
        return { status: 'passed', summary: 'Completed the todo.' };
      }
      if (instruction.startsWith('show')) {
        const name = instruction.includes('active') ? 'Active' : 'All';
        const link = allNodes(await tree(context)).find((node) => node.role === 'link' && label(node) === name);
        if (link === undefined) return fail(`There is no ${name} filter.`);
        await context.actions.tap({ id: link.id });
        return { status: 'passed', summary: `Showing ${name.toLowerCase()} todos.` };
      }
      if (instruction.startsWith('clear completed')) {
        const button = allNodes(await tree(context)).find((node) => node.role === 'button' && /^clear completed/i.test(label(node)));
        if (button === undefined) return fail('There is no Clear completed button.');
        await context.actions.tap({ id: button.id });
        return { status: 'passed', summary: 'Cleared the completed todos.' };
      }
      if (instruction.startsWith('rename')) {
        const [from, to] = quoted(instruction) as [string, string];
        let root = await tree(context);
        const editing = (): ScreenNode | undefined => allNodes(root).find((node) => node.role === 'textbox' && node.value === from && newTodoField(root) !== node);
        if (editing() === undefined && rowTitled(root, from) === undefined && rowTitled(root, to) !== undefined) return { status: 'passed', summary: `${from} is already ${to}.` };
        if (editing() === undefined) {
          const row = rowTitled(root, from);
          if (row === undefined) return fail('The todo is not on the screen.');
          const title = allNodes(row).find((node) => node !== row && label(node) === from) ?? row;
          await context.actions.doubleTap({ id: title.id });
          root = await tree(context);
        }
        const field = editing();
        if (field === undefined) return fail('No edit field opened.');
        await context.actions.type({ id: field.id }, to, { replace: true });
        await context.actions.press({ id: field.id }, 'Enter');
        return { status: 'passed', summary: `Renamed ${from} to ${to}.` };
      }
      return fail(`The scripted executor does not know "${instruction}".`);
    },
  };
  return executor;
}
