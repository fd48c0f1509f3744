/**
 * The release corpus's steps on Swagger UI: each instruction, a scripted executor that derives
 * its actions from the screen (as a model reading it would, from whatever a replayed prefix
 * left), the Playwright `expect` that verifies the step, and which controls the step may touch,
 * as the page's own listener names them (`LANDING_LISTENER`).
 */
import { expect, type Locator, type Page } from '@playwright/test';
import type { ScreenNode } from '../../../contract/engine.js';
import type { StepContext, StepExecutor } from '../../../contract/step-contract.js';
import { allNodes } from '../../support/screen-tree.js';
import type { CorpusStep } from './corpus-step.js';

/** One step of the flow. */
export interface SwaggerStep extends CorpusStep {
  /** The controls (names from `LANDING_LISTENER`) the step's actions may land on. */
  lands: readonly string[];
}

const OPERATION = 'operations-pets-addPet';
/** The request body the flow types. */
export const PET_BODY = '{"name":"Rex"}';
/** The API key the flow types. */
export const API_KEY = 'k-123';

async function visible(locator: Locator): Promise<Locator> {
  await expect(locator).toBeVisible({ timeout: 5_000 });
  return locator;
}

/** Open an operation, try it out, type a body, authorize, execute. */
export const SWAGGER_STEPS: readonly SwaggerStep[] = [
  { instruction: 'open the "Add a pet" operation', lands: [`${OPERATION}: summary`], verify: (page) => visible(page.locator(`#${OPERATION} .try-out__btn`)) },
  { instruction: 'try it out', lands: [`${OPERATION}: try it out`], verify: (page) => visible(page.locator(`#${OPERATION} .execute`)) },
  {
    instruction: `set the request body to ${PET_BODY}`,
    lands: [`${OPERATION}: request body`],
    verify: async (page) => {
      const body = page.locator(`#${OPERATION} textarea`).first();
      await expect(body).toHaveValue(PET_BODY, { timeout: 5_000 });
      return body;
    },
  },
  {
    instruction: `authorize with the key "${API_KEY}"`,
    lands: ['page: authorize', 'modal: key field', 'modal: authorize', 'modal: close'],
    verify: (page) => visible(page.locator(`#${OPERATION}`).getByRole('button', { name: 'authorization button locked' })),
  },
  {
    instruction: 'execute the request',
    lands: [`${OPERATION}: execute`],
    verify: async (page) => {
      const status = page.locator(`#${OPERATION} .live-responses-table td.response-col_status:not(.col_header)`).first();
      await expect(status).toHaveText(/201/, { timeout: 5_000 });
      return status;
    },
  },
];

/**
 * A capture listener installed in the page: every trusted click, double click, input and key
 * press is logged with the control it landed on, named by the page's own structure (stable
 * across releases), and prefixed `under the modal:` when a modal was open over it.
 */
export const LANDING_LISTENER = `(() => {
  if (window.__landed) return;
  window.__landed = [];
  const describe = (target) => {
    const element = target instanceof Element ? target : target.parentElement;
    if (!element) return 'nothing';
    const tag = element.tagName.toLowerCase() + (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '');
    const modal = element.closest('.modal-ux');
    if (modal) {
      if (element.closest('input')) return 'modal: key field';
      const button = element.closest('button');
      if (button && button.classList.contains('authorize')) return 'modal: authorize';
      if (button && /close/i.test(button.textContent || '') && !button.classList.contains('close-modal')) return 'modal: close';
      if (button && button.classList.contains('close-modal')) return 'modal: x';
      return 'modal: other ' + tag;
    }
    let name;
    if (element.closest('.topbar')) name = element.closest('input') ? 'top bar: url field' : 'top bar: ' + tag;
    else if (element.closest('.auth-wrapper')) name = 'page: authorize';
    else {
      const operation = element.closest('.opblock');
      if (!operation) name = 'page: ' + tag;
      else {
        const id = operation.id;
        if (element.closest('.opblock-control-arrow')) name = id + ': expand arrow';
        else if (element.closest('.authorization__btn')) name = id + ': lock';
        else if (element.closest('.opblock-summary')) name = id + ': summary';
        else if (element.closest('.try-out__btn')) name = id + ': try it out';
        else if (element.closest('textarea')) name = id + ': request body';
        else if (element.closest('.execute')) name = id + ': execute';
        else name = id + ': other ' + tag;
      }
    }
    return document.querySelector('.modal-ux') ? 'under the modal: ' + name : name;
  };
  for (const type of ['click', 'dblclick', 'input', 'keydown']) {
    document.addEventListener(type, (event) => {
      if (event.isTrusted) window.__landed.push(type + ' ' + describe(event.target));
    }, true);
  }
})()`;

async function tree(context: StepContext): Promise<ScreenNode> {
  return (await context.observe({ tree: true })).tree!;
}

/** Name and text as a reader sees them: zero-width spaces dropped, spacing collapsed, case folded. */
function shown(node: ScreenNode): string {
  return `${node.name} ${node.text ?? ''}`.replace(/\u200b/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

function button(root: ScreenNode, wanted: RegExp, after?: ScreenNode): ScreenNode | undefined {
  const nodes = allNodes(root);
  const start = after === undefined ? 0 : nodes.indexOf(after) + 1;
  return nodes.slice(start).find((node) => node.role === 'button' && wanted.test(shown(node)));
}

/** What the scripted executor did. */
export interface ScriptedSwaggerExecutor extends StepExecutor {
  calls: number;
}

/** Stands in for the model: reads the screen and does what the instruction asks, only what is still to do. */
export function swaggerExecutor(): ScriptedSwaggerExecutor {
  const executor: ScriptedSwaggerExecutor = {
    name: 'scripted-swagger',
    version: '1.0.0',
    calls: 0,
    async runStep(context) {
      executor.calls++;
      const { instruction } = context.step;
      const fail = (summary: string) => ({ status: 'failed' as const, summary, errorCode: 'ACTION_FAILED' as const });
      const passed = (summary: string) => ({ status: 'passed' as const, summary });
      const root = await tree(context);
      if (instruction.startsWith('open')) {
        // The summary shows the operation's title; an expand arrow beside it does not.
        const summary = button(root, /add a pet/);
        if (summary === undefined) return fail('There is no "Add a pet" operation.');
        if (!summary.states.includes('expanded')) await context.actions.tap({ id: summary.id });
        return passed('Opened the operation.');
      }
      if (instruction.startsWith('try it out')) {
        const tryOut = button(root, /^try it out$/);
        if (tryOut !== undefined) await context.actions.tap({ id: tryOut.id });
        else if (button(root, /^cancel$/) === undefined) return fail('There is no "Try it out" button.');
        return passed('Trying it out.');
      }
      if (instruction.startsWith('set the request body')) {
        const body = allNodes(root).find((node) => node.role === 'textbox' && /"name"/.test(node.value ?? ''));
        if (body === undefined) return fail('There is no request body field.');
        if (body.value !== PET_BODY) await context.actions.type({ id: body.id }, PET_BODY, { replace: true });
        return passed('Set the body.');
      }
      if (instruction.startsWith('authorize')) {
        let screen = root;
        const dialogHeading = (): ScreenNode | undefined => allNodes(screen).find((node) => node.role === 'heading' && /available authorizations/i.test(node.name));
        if (dialogHeading() === undefined) {
          const open = button(screen, /^authorize$/);
          if (open === undefined) return fail('There is no Authorize button.');
          await context.actions.tap({ id: open.id });
          screen = await tree(context);
        }
        const heading = dialogHeading();
        if (heading === undefined) return fail('The authorization dialog did not open.');
        if (button(screen, /logout/, heading) === undefined) {
          const nodes = allNodes(screen);
          const field = nodes.slice(nodes.indexOf(heading)).find((node) => node.role === 'textbox');
          if (field === undefined) return fail('There is no key field.');
          await context.actions.type({ id: field.id }, API_KEY, { replace: true });
          const apply = button(screen, /authorize/, field);
          if (apply === undefined) return fail('There is no button to apply the key.');
          await context.actions.tap({ id: apply.id });
          screen = await tree(context);
        }
        const close = button(screen, /^close$/, dialogHeading());
        if (close === undefined) return fail('There is no Close button.');
        await context.actions.tap({ id: close.id });
        return passed('Authorized.');
      }
      if (instruction.startsWith('execute')) {
        const execute = button(root, /^execute$/);
        if (execute === undefined) return fail('There is no Execute button.');
        await context.actions.tap({ id: execute.id });
        return passed('Executed the request.');
      }
      return fail(`The scripted executor does not know "${instruction}".`);
    },
  };
  return executor;
}
