/**
 * How a step is named wherever a person reads it (Playwright step titles, screenshot labels,
 * the run's list of unverified steps): `agent.act "add two todos"`, on one line, at most 80
 * characters of instruction, quoted the way the test wrote it so quotes inside need no
 * escaping (`agent.act 'add a todo "Buy milk"'`).
 */
import type { StepKind } from '../contract/step-contract.js';
import { visibleFormatCharacters, visibleText } from '../semantics/visible-text.js';

/** The longest instruction a title shows. */
const MAX_INSTRUCTION = 80;

/** The instruction on one line, shortened and quoted. */
export function quotedInstruction(instruction: string): string {
  // Page or entry text can reach an instruction (a param): hidden characters are spelled out.
  const single = visibleText(visibleFormatCharacters(instruction).replace(/\s+/g, ' ').trim());
  const short = single.length > MAX_INSTRUCTION ? `${single.slice(0, MAX_INSTRUCTION - 1)}…` : single;
  if (!short.includes('"')) return `"${short}"`;
  if (!short.includes("'")) return `'${short}'`;
  return JSON.stringify(short);
}

/** `agent.act "add two todos"`; the instruction must already be redacted. */
export function stepTitle(kind: StepKind, instruction: string): string {
  return `agent.${kind} ${quotedInstruction(instruction)}`;
}
