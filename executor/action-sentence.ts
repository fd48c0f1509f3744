/**
 * Actions as short sentences (`tap button "Apply"`, `type "Buy milk" into textbox "New todo"`),
 * the form the report, `ActResult.actions` and replay hand-offs show them in.
 */
import type { Point, ScreenNode } from '../contract/engine.js';

const MAX_NAME = 60;

function clip(text: string): string {
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length > MAX_NAME ? `${single.slice(0, MAX_NAME - 1)}…` : single;
}

/** `button "Apply"`, or the role with the test id or text when the node has no name. */
export function describeNode(node: Pick<ScreenNode, 'role' | 'name' | 'testId' | 'text'> | undefined): string {
  if (node === undefined) return 'an unknown control';
  if (node.name.trim() !== '') return `${node.role} "${clip(node.name)}"`;
  if (node.testId !== undefined && node.testId !== '') return `${node.role} [testid=${clip(node.testId)}]`;
  if (node.text !== undefined && node.text.trim() !== '') return `${node.role} with text "${clip(node.text)}"`;
  return node.role;
}

/** What a sentence needs to know about an action. */
export interface SentenceInput {
  verb: string;
  node?: Pick<ScreenNode, 'role' | 'name' | 'testId' | 'text'> | undefined;
  destination?: Pick<ScreenNode, 'role' | 'name' | 'testId' | 'text'> | undefined;
  /** Typed text, already redacted (`<secret:name>` for secrets). */
  value?: string | undefined;
  key?: string | undefined;
  url?: string | undefined;
  direction?: string | undefined;
  checked?: boolean | undefined;
  point?: Point | undefined;
  to?: Point | undefined;
  paths?: readonly string[] | undefined;
  tool?: string | undefined;
}

function quote(text: string): string {
  return text.startsWith('<secret:') ? text : `"${clip(text)}"`;
}

function at(point: Point | undefined): string {
  return point === undefined ? '' : `(${Math.round(point.x)}, ${Math.round(point.y)})`;
}

/** One action as a sentence. */
export function describeAction(input: SentenceInput): string {
  const target = describeNode(input.node);
  switch (input.verb) {
    case 'tap':
    case 'hover':
    case 'scrollTo':
      return `${input.verb === 'scrollTo' ? 'scroll to' : input.verb} ${target}`;
    case 'doubleTap':
      return `double-tap ${target}`;
    case 'longPress':
      return `long-press ${target}`;
    case 'secondaryTap':
      return `right-click ${target}`;
    case 'type':
    case 'typeSecret':
      return `type ${quote(input.value ?? '')} into ${target}`;
    case 'typeText':
      return `type ${quote(input.value ?? '')}`;
    case 'press':
      return input.node === undefined ? `press ${input.key ?? ''}` : `press ${input.key ?? ''} in ${target}`;
    case 'pressKey':
      return `press ${input.key ?? ''}`;
    case 'dismissKeyboard':
      return 'dismiss the keyboard';
    case 'select':
      return `select ${quote(input.value ?? '')} in ${target}`;
    case 'check':
      return `${input.checked === false ? 'uncheck' : 'check'} ${target}`;
    case 'scroll':
      return input.node === undefined ? `scroll ${input.direction ?? ''}` : `scroll ${input.direction ?? ''} in ${target}`;
    case 'upload':
      return `upload ${(input.paths ?? []).join(', ')} to ${target}`;
    case 'drag':
      return `drag ${target} to ${describeNode(input.destination)}`;
    case 'navigate':
      return `navigate to ${input.url ?? ''}`;
    case 'back':
      return 'go back';
    case 'tapAt':
      return input.node === undefined ? `tap at ${at(input.point)}` : `tap ${target} at ${at(input.point)}`;
    case 'hoverAt':
      return input.node === undefined ? `hover at ${at(input.point)}` : `hover ${target} at ${at(input.point)}`;
    case 'dragAt':
      return `drag from ${at(input.point)} to ${at(input.to)}`;
    case 'tool':
      return `run tool ${input.tool ?? ''}`;
    default:
      return input.verb;
  }
}
