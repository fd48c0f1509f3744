/**
 * A scripted judge for judgment-cache tests: an AI SDK mock model (`MockLanguageModelV3`)
 * that answers each judgment from the screen in its prompt. A rule per question decides
 * the verdict and cites node ids it finds on that screen, as a real judge would.
 */
import { replyJson, repeatingModel } from '../../executor/support/scripted-model.js';

/** One line of a text screen. */
export interface ScreenLine {
  id: string;
  role: string;
  name: string;
  text: string;
  /** The true states (`checked`, `focused`…). */
  states: string[];
  /** Indentation depth. */
  depth: number;
  /** The id of the line it sits under. */
  parent: string | undefined;
}

/** The node lines of the latest screen in `prompt`. */
export function screenLines(prompt: string): ScreenLine[] {
  const start = prompt.lastIndexOf('Screen (revision');
  const lines: ScreenLine[] = [];
  const stack: ScreenLine[] = [];
  for (const raw of prompt.slice(start).split('\n')) {
    const match = /^( *)#(\S+) (\S+) "((?:[^"\\]|\\.)*)"(?: text="((?:[^"\\]|\\.)*)")?/.exec(raw);
    if (match === null) continue;
    const depth = match[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.depth >= depth) stack.pop();
    const states = /\[([a-z ]+)\]$/.exec(raw)?.[1]?.split(' ') ?? [];
    const line: ScreenLine = { id: match[2]!, role: match[3]!, name: match[4]!, text: match[5] ?? '', states, depth, parent: stack[stack.length - 1]?.id };
    lines.push(line);
    stack.push(line);
  }
  return lines;
}

/** What a rule sees: the screen's lines and a finder over them. */
export interface Screen {
  lines: ScreenLine[];
  /** Ids of lines with `role` and `label` (name, else text), optionally under the line `under`. */
  all(role: string, label?: string, under?: string): string[];
  /** The one id of such a line, or throws (a script must find what it cites). */
  id(role: string, label?: string, under?: string): string;
}

function screenOf(prompt: string): Screen {
  const lines = screenLines(prompt);
  const all = (role: string, label?: string, under?: string): string[] =>
    lines.filter((line) => line.role === role && (label === undefined || (line.name || line.text) === label) && (under === undefined || line.parent === under)).map((line) => line.id);
  return {
    lines,
    all,
    id: (role, label, under) => {
      const found = all(role, label, under);
      if (found.length !== 1) throw new Error(`The judge found ${found.length} ${role} "${label ?? ''}" lines on the screen.`);
      return found[0]!;
    },
  };
}

/** A judge's answer to an assert or waitFor. */
export interface VerdictAnswer {
  verdict: 'holds' | 'fails' | 'inconclusive';
  reason: string;
  evidence: string[];
}

/** A judge's answer to an extract. */
export interface ExtractAnswer {
  found: boolean;
  value: unknown;
  reason: string;
  evidence: string[];
}

/** A rule: the answer to one question on a screen. */
export type JudgeRule = (screen: Screen, call: { latest: string }) => VerdictAnswer | ExtractAnswer;

/** The scripted judge: `calls` counts model calls, `questions` the questions it was asked. */
export type ScreenJudge = ReturnType<typeof repeatingModel> & { calls(): number; questions: string[] };

/** A judge that answers each question by its rule; an unknown question fails the test. */
export function screenJudge(rules: Record<string, JudgeRule>): ScreenJudge {
  const questions: string[] = [];
  const model = repeatingModel(({ text, latest }) => {
    const question = /(?:Does this hold on the screen\? |Read this from the screen: )(.+)/.exec(text)?.[1]?.trim() ?? '';
    questions.push(question);
    const rule = rules[question];
    if (rule === undefined) throw new Error(`The judge has no rule for "${question}".`);
    return replyJson(rule(screenOf(text), { latest }));
  });
  return Object.assign(model, { calls: () => model.prompts.length, questions });
}
