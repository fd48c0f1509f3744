/**
 * A scripted model for the coffee order at a terminal (examples/terminal/app/coffee.mjs),
 * answering on the wire of a real provider package (`chatResponder`): it reads the screen it is
 * sent, finds each control by role and name (never a fixed id) and holds no state between
 * requests; what it did so far is read off the conversation.
 */
import { exchangeText, type Brain, type ExchangeReply, type ExchangeRequest } from './model-exchange.js';

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The newest id the conversation shows for `role "name"` (a name case folded), or undefined. */
export function coffeeNodeId(text: string, role: string, name: string): string | undefined {
  return [...text.matchAll(new RegExp(`#(\\S+) ${escaped(role)} "${escaped(name)}"`, 'gi'))].at(-1)?.[1];
}

type Call = { name: string; arguments: Record<string, unknown> };

/** The tool calls to make for `instruction`, in order, on the screen in `text`; undefined for an instruction it has no plan for. */
function plan(instruction: string, text: string): Call[] | undefined {
  const at = (role: string, name: string): string => `#${coffeeNodeId(text, role, name) ?? `no-${role}-${name}`}`;
  const drink = /^pick (.+) from the drinks$/.exec(instruction);
  if (drink !== null) return [{ name: 'tap', arguments: { target: at('menuitem', drink[1]!) } }];
  // The button that confirms, whatever it is called: the newest button on the screen.
  const confirm: Call = { name: 'tap', arguments: { target: `#${[...text.matchAll(/#(\S+) button "/g)].at(-1)?.[1] ?? 'no-button'}` } };
  const extra = /^tick (.+?)( and confirm the extras)?$/.exec(instruction);
  if (extra !== null) return [{ name: 'check', arguments: { target: at('checkbox', extra[1]!), checked: true } }, ...(extra[2] === undefined ? [] : [confirm])];
  if (instruction === 'confirm the extras') return [confirm];
  const cup = /^give (.+) as the name for the cup$/.exec(instruction);
  if (cup !== null) {
    return [
      { name: 'type', arguments: { target: at('textbox', 'Name for the cup'), text: cup[1]! } },
      { name: 'press', arguments: { key: 'Enter' } },
    ];
  }
  return undefined;
}

function act(request: ExchangeRequest): ExchangeReply {
  const instruction = /Step \d+ \(act\): (.*)/.exec(request.messages[0]?.text ?? '')?.[1] ?? '';
  const moves = plan(instruction, exchangeText(request));
  if (moves === undefined) return { calls: [{ name: 'complete_step', arguments: { status: 'failed', summary: `No plan for: ${instruction}` } }] };
  // A replay that ran part of the step before it stopped: those moves are done.
  const replayed = Number(/It ran (\d+) of its \d+ actions/.exec(request.messages[0]?.text ?? '')?.[1] ?? 0);
  const made = request.messages.reduce((count, message) => count + message.toolCalls.length, 0);
  const next = moves[replayed + made];
  if (next === undefined) return { calls: [{ name: 'complete_step', arguments: { status: 'passed', summary: `Done: ${instruction}.` } }] };
  return { text: `Next: ${next.name}.`, calls: [next] };
}

/** "the order placed is a Latte with oat milk for Ada": holds when the order line says so. */
function judge(request: ExchangeRequest): ExchangeReply {
  const question = /Does this hold on the screen\? (.*)/.exec(request.messages[0]?.text ?? '')?.[1] ?? '';
  const expected = /the order placed is an? (.+)$/.exec(question)?.[1] ?? '';
  const line = [...exchangeText(request).matchAll(/#(\S+) text "Order placed: ([^"]*)"/g)].at(-1);
  const holds = line !== undefined && line[2]!.toLowerCase() === expected.toLowerCase();
  const answer = { verdict: holds ? 'holds' : 'fails', reason: line === undefined ? 'No order was placed.' : `The order line reads "${line[2]}".`, evidence: line === undefined ? [] : [`#${line[1]}`] };
  return { text: JSON.stringify(answer) };
}

/** The coffee model. */
export const coffeeModel: Brain = (request) => (request.tools.length === 0 ? judge(request) : act(request));
