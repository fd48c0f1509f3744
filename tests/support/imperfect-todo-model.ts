/**
 * A scripted model for TodoMVC that behaves like the imperfect models people run: it writes
 * prose around its JSON, fences it, adds keys nobody asked for, cites ids with `#`, puts
 * several tool calls in one turn with text beside them, sends booleans as strings, calls a
 * tool that does not exist, and asks for a screenshot. It derives every id from the screen
 * text it receives (never a hard-coded id), and holds no state between requests: what it
 * did so far is read off the conversation.
 */
import { exchangeText, type Brain, type ExchangeReply, type ExchangeRequest } from './model-exchange.js';

/** The last id the request shows for a node line of `role` and `name`. */
export function idOf(text: string, role: string, name: string): string | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const matches = [...text.matchAll(new RegExp(`#(\\S+) ${role} "${escaped}"`, 'g'))];
  return matches.at(-1)?.[1];
}

/** The id of the first `role` line after the last line naming `container`. */
function idInside(text: string, container: string, role: string): string | undefined {
  const escaped = container.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const lines = text.split('\n');
  let start = -1;
  lines.forEach((line, index) => {
    if (new RegExp(`#\\S+ listitem "${escaped}"`).test(line)) start = index;
  });
  if (start === -1) return undefined;
  for (const line of lines.slice(start + 1, start + 6)) {
    const match = new RegExp(`#(\\S+) ${role} `).exec(line);
    if (match !== null) return match[1];
  }
  return undefined;
}

function quoted(text: string): string[] {
  return [...text.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
}

function fenced(value: unknown, before: string): string {
  return `${before}\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\nLet me know if you need anything else.`;
}

/** Answer a judgment (a request without tools). */
function judge(request: ExchangeRequest): ExchangeReply {
  const opening = request.messages[0]?.text ?? '';
  const text = exchangeText(request);
  const read = /Read this from the screen: (.*)/.exec(opening)?.[1];
  if (read !== undefined) {
    const left = [...text.matchAll(/#(\S+) \w+ "(\d+) items? left"/g)].at(-1);
    if (left === undefined) return { text: 'I could not find it. {"found": "false", "value": null, "reason": "No counter on screen.", "evidence": []}' };
    const answer = { found: 'true', value: left[2], reason: `The footer says "${left[2]} left".`, evidence: [`#${left[1]}`], confidence: 0.97 };
    return { text: `Sure! The count is shown in the footer. ${JSON.stringify(answer)}` };
  }
  const question = /Does this hold on the screen\? (.*)/.exec(opening)?.[1] ?? '';
  const names = quoted(question);
  const ids = names.map((name) => idOf(text, 'listitem', name));
  const holds = ids.every((id) => id !== undefined);
  const answer = {
    verdict: holds ? 'holds' : 'fails',
    reason: holds ? `The list shows ${names.join(' and ')}.` : 'Some of them are not in the list.',
    evidence: ids.filter((id): id is string => id !== undefined).map((id) => `#${id}`),
    confidence: 'high',
    notes: { checkedAt: 'now' },
  };
  return { text: fenced(answer, 'Here is my judgment of the screen:') };
}

/** The tool calls the conversation already made, by name. */
function calls(request: ExchangeRequest): Array<{ name: string; arguments: Record<string, unknown> }> {
  return request.messages.flatMap((message) =>
    message.toolCalls.map((call) => {
      try {
        return { name: call.name, arguments: JSON.parse(call.arguments) as Record<string, unknown> };
      } catch {
        return { name: call.name, arguments: {} };
      }
    }),
  );
}

/** Answer an act turn (a request with tools). */
function act(request: ExchangeRequest): ExchangeReply {
  const text = exchangeText(request);
  const instruction = /Step \d+ \(act\): (.*)/.exec(request.messages[0]?.text ?? '')?.[1] ?? '';
  const made = calls(request);
  const reasoning = `Working on: ${instruction}`;
  if (request.toolChoice !== undefined && JSON.stringify(request.toolChoice).includes('complete_step')) {
    return { reasoning, calls: [{ name: 'complete_step', arguments: { status: 'failed', summary: 'Asked to conclude.' } }] };
  }
  if (/^add /.test(instruction)) {
    const textbox = idOf(text, 'textbox', 'What needs to be done?');
    const next = quoted(instruction).find((title) => !made.some((call) => call.name === 'type' && call.arguments['text'] === title));
    if (next !== undefined && textbox !== undefined) {
      return {
        reasoning,
        text: `I will type "${next}" and press Enter.`,
        calls: [
          { name: 'type', arguments: { target: `#${textbox}`, text: next, replace: 'true' } },
          { name: 'press', arguments: { key: 'Enter', target: `#${textbox}` } },
        ],
      };
    }
    return { reasoning, text: 'All added.', calls: [{ name: 'complete_step', arguments: { status: 'passed', summary: `Added ${quoted(instruction).join(' and ')}.` } }] };
  }
  if (/^complete /.test(instruction)) {
    const [title = ''] = quoted(instruction);
    if (!made.some((call) => call.name === 'click')) {
      // A tool that does not exist: the loop answers with the tools that do.
      return { reasoning, calls: [{ name: 'click', arguments: { target: title } }] };
    }
    if (!made.some((call) => call.name === 'screenshot')) return { reasoning, text: 'Let me look at the screen first.', calls: [{ name: 'screenshot', arguments: {} }] };
    const checkbox = idInside(text, title, 'checkbox');
    if (!made.some((call) => call.name === 'check') && checkbox !== undefined) {
      return { reasoning, calls: [{ name: 'check', arguments: { target: `#${checkbox}`, checked: 'true' } }] };
    }
    return { reasoning, calls: [{ name: 'complete_step', arguments: { status: 'passed', summary: `Completed "${title}".` } }] };
  }
  return { reasoning, calls: [{ name: 'complete_step', arguments: { status: 'failed', summary: `No script for: ${instruction}` } }] };
}

/** The imperfect TodoMVC model. */
export const imperfectTodoModel: Brain = (request) => (request.tools.length === 0 ? judge(request) : act(request));
