/**
 * What a person sees on a terminal screen, read from the grid: lines of text, buttons drawn as
 * `< OK >` or `[ Save ]`, check marks (`[ ]`, `[x]`, `( )`, `(*)`, `◯`, `◉`), the field the
 * cursor sits in with its question, and list rows. Rows of a list are told apart as a person
 * does: the current one is drawn differently (reverse video or another background colour) or
 * carries a pointer (`❯`). Roles are the ARIA words the rest of e2e reads (`menuitem`,
 * `checkbox`, `button`, `textbox`), so recording and replay work unchanged.
 */
import { findBoxes, mapBoxes, type Box, type BoxMap } from './screen-boxes.js';
import type { Cell, Grid } from './screen-grid.js';

/** The kinds of thing found on a line. */
export type ElementKind = 'text' | 'button' | 'mark' | 'field' | 'item';

/** One thing on the screen, with the cells it covers (`from` inclusive, `to` exclusive). */
export interface ScreenElement {
  kind: ElementKind;
  role: string;
  name: string;
  value?: string;
  placeholder?: string;
  states: Set<'checked' | 'disabled' | 'selected' | 'focused' | 'secure'>;
  row: number;
  from: number;
  to: number;
  box: Box | undefined;
  /** For list rows: the list they belong to. */
  list?: ScreenList;
}

/** Rows that form one list (a menu, a checklist). */
export interface ScreenList {
  role: 'menu' | 'group';
  name: string;
  box: Box | undefined;
  items: ScreenElement[];
  /** The row a key press acts on, when the screen shows one. */
  current: ScreenElement | undefined;
  /** True when the current row is marked by a pointer glyph rather than by style. */
  pointer: boolean;
}

/** A read screen. */
export interface ScreenReading {
  boxes: Box[];
  /** Every element, in reading order (row, then column). */
  elements: ScreenElement[];
  lists: ScreenList[];
}

const POINTERS = new Set(['❯', '›', '>', '➜', '→', '▸', '▶', '»', '➤', '●']);
const MARK_PATTERN = /^(\[[ xX*✓✔]\]|\([ *oO•●]\)|[◉◯◎○◻◼☐☑☒])\s*/u;
/** Glyphs prompt libraries put before a question or an answered one (`? Name`, `✔ Name Ada`); not part of the text. */
const TEXT_PREFIX = /^[?✔✖✗✓×◆◇◈•]\s+/u;
/** A choice hint before an answer: `(Y/n) y`. */
const ANSWER_HINT = /^\((?:y\/n|Y\/n|y\/N|yes\/no)\)\s*/i;
const CHECKED_MARKS = /[xX*✓✔oO•●◉◎◼☑☒]/u;
const BUTTON_PATTERN = /<\s*([A-Za-z0-9][^<>]{0,24}?)\s*>|\[ +([A-Za-z][^[\]]{0,24}?) +\]/g;
const POINTER_PREFIX = /^[❯›>➜→▸▶»➤]\s?/u;
const PROMPT_PREFIX = /^[?✔✖✗✓×!◆◇◈│>»•*]\s+/u;
const SECRET_QUESTION = /pass(word|phrase|code)?\b|secret|\bpin\b|token|api key/i;
/** Trailing hints a prompt library adds to a question: `(Use arrow keys)`, `(y/N)`. */
const HINT = /\s*\((?:use arrow keys|y\/n|y\/N|Y\/n|press <[^>]*>[^)]*|[^)]{0,40}to select[^)]*)\)\s*$/i;

/** Whitespace collapsed and trimmed. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cellText(cells: readonly Cell[], from: number, to: number): string {
  let text = '';
  for (let column = from; column < to; column++) text += cells[column]?.char ?? '';
  return text;
}

/** The background most cells inside `box` (or outside every box) have. */
function baseBackground(grid: Grid, map: BoxMap, boxIndex: number): string {
  const counts = new Map<string, number>();
  for (let row = 0; row < grid.rows; row++) {
    const cells = grid.cells[row]!;
    for (let column = 0; column < grid.cols; column++) {
      const at = row * map.cols + column;
      if (map.border[at] === 1 || map.owner[at] !== boxIndex) continue;
      const bg = cells[column]!.bg;
      counts.set(bg, (counts.get(bg) ?? 0) + 1);
    }
  }
  let best = 'd';
  let most = -1;
  for (const [bg, count] of counts) if (count > most) [best, most] = [bg, count];
  return best;
}

/** A run of cells of one row inside one box, trimmed. */
interface Chunk {
  box: Box | undefined;
  row: number;
  from: number;
  to: number;
  text: string;
}

function chunksOf(grid: Grid, boxes: readonly Box[], map: BoxMap): Chunk[] {
  const chunks: Chunk[] = [];
  for (let row = 0; row < grid.rows; row++) {
    const cells = grid.cells[row]!;
    const offset = row * map.cols;
    let column = 0;
    while (column < grid.cols) {
      if (map.border[offset + column] === 1) {
        column++;
        continue;
      }
      const owner = map.owner[offset + column]!;
      let end = column;
      while (end < grid.cols && map.border[offset + end] !== 1 && map.owner[offset + end] === owner) end++;
      // One chunk per run: the text from its first to its last visible character.
      let start = column;
      while (start < end && cells[start]!.char === ' ') start++;
      let stop = end;
      while (stop > start && (cells[stop - 1]!.char === ' ' || cells[stop - 1]!.char === '')) stop--;
      if (stop > start) chunks.push({ box: owner < 0 ? undefined : boxes[owner], row, from: start, to: stop, text: cellText(cells, start, stop) });
      column = end;
    }
  }
  return chunks;
}

function highlighted(cells: readonly Cell[], from: number, to: number, base: string): boolean {
  for (let column = from; column < to; column++) {
    const cell = cells[column]!;
    if (cell.char === ' ' && cell.bg === base) continue;
    if (cell.bg !== base || cell.inverse) return true;
  }
  return false;
}

/** The backgrounds of a row's visible characters, as a signature to compare rows by. */
function signature(cells: readonly Cell[], from: number, to: number): string {
  const backgrounds = new Set<string>();
  for (let column = from; column < to; column++) {
    const cell = cells[column]!;
    if (cell.char !== ' ' || cell.bg !== cells[from]!.bg) backgrounds.add(`${cell.bg}${cell.inverse ? '!' : ''}`);
  }
  return [...backgrounds].sort().join(',');
}

function allDim(cells: readonly Cell[], from: number, to: number): boolean {
  let any = false;
  for (let column = from; column < to; column++) {
    const cell = cells[column]!;
    if (cell.char === ' ') continue;
    if (!cell.dim) return false;
    any = true;
  }
  return any;
}

/** The question of a prompt line, and where its answer starts (a column), from its style and punctuation. */
function splitPrompt(cells: readonly Cell[], from: number, to: number): { question: string; answerFrom: number } {
  const text = cellText(cells, from, to);
  const prefix = PROMPT_PREFIX.exec(text);
  const start = from + (prefix === null ? 0 : [...prefix[0]].length);
  // A question drawn in its own style (bold or coloured) ends where that style ends.
  const first = cells[start];
  if (first !== undefined && (first.bold || first.fg !== 'd')) {
    let end = start;
    while (end < to && (cells[end]!.char === ' ' || (cells[end]!.bold === first.bold && cells[end]!.fg === first.fg && cells[end]!.dim === first.dim))) end++;
    let questionEnd = end;
    while (questionEnd > start && cells[questionEnd - 1]!.char === ' ') questionEnd--;
    if (end < to || questionEnd < to) return { question: collapse(cellText(cells, start, questionEnd)), answerFrom: end };
  }
  // Else the last `: `, `? `, `› ` or `> ` ends the question.
  const rest = cellText(cells, start, to);
  const match = /^(.*?[:?›>])(\s|$)/u.exec(rest);
  if (match !== null) {
    const questionLength = [...match[1]!].length;
    return { question: collapse(match[1]!.replace(/[:›>]$/u, '')), answerFrom: start + questionLength };
  }
  return { question: collapse(rest), answerFrom: to };
}

/** A field's text without the fill characters some programs draw its empty part with (`Ada_____`). */
function withoutFill(text: string): string {
  return collapse(text.replace(/[_░▒.]{2,}\s*$/u, '').replace(/_+$/u, ''));
}

/** True when a chunk is mostly buttons (`<  OK  >    <Cancel>`). */
function isButtons(text: string): boolean {
  const buttons = [...text.matchAll(BUTTON_PATTERN)];
  return buttons.length > 0 && buttons.map((match) => match[0].replace(/\s/g, '')).join('').length >= text.replace(/\s/g, '').length * 0.6;
}

function withoutHint(question: string): string {
  return collapse(question.replace(HINT, ''));
}

/** Read a grid. */
export function readScreen(grid: Grid): ScreenReading {
  const boxes = findBoxes(grid);
  const map = mapBoxes(boxes, grid);
  const bases = new Map<Box | undefined, string>();
  const baseOf = (box: Box | undefined): string => {
    let base = bases.get(box);
    if (base === undefined) bases.set(box, (base = baseBackground(grid, map, box === undefined ? -1 : boxes.indexOf(box))));
    return base;
  };
  const boxAt = (row: number, column: number): Box | undefined => {
    const owner = map.owner[row * map.cols + column] ?? -1;
    return owner < 0 ? undefined : boxes[owner];
  };
  const elements: ScreenElement[] = [];
  const cursor = grid.cursor;
  let fieldPlaced = false;
  const chunks = chunksOf(grid, boxes, map);

  // The field the cursor sits in: a prompt line ending at the cursor, or a coloured field in a box.
  const cursorBox = cursor.visible ? boxAt(cursor.y, cursor.x) : undefined;
  // A prompt line: the cursor at its end (where typing goes), or anywhere in a line that starts like a prompt.
  const fieldChunk = cursor.visible
    ? chunks
        .filter(
          (chunk) =>
            chunk.row === cursor.y &&
            chunk.box === cursorBox &&
            (cursorBox === undefined || cursorBox.bottom - cursorBox.top !== 2) &&
            chunk.from <= cursor.x &&
            cursor.x <= chunk.to + 2 &&
            (cursor.x >= chunk.to || PROMPT_PREFIX.test(chunk.text)) &&
            !isButtons(chunk.text) &&
            MARK_PATTERN.exec(chunk.text.replace(POINTER_PREFIX, '')) === null,
        )
        .sort((a, b) => a.from - b.from)[0]
    : undefined;

  for (const chunk of chunks) {
    const cells = grid.cells[chunk.row]!;
    const base = baseOf(chunk.box);
    // Buttons, possibly several in a chunk.
    const buttons = [...chunk.text.matchAll(BUTTON_PATTERN)];
    if (chunk !== fieldChunk && isButtons(chunk.text)) {
      for (const match of buttons) {
        const from = chunk.from + [...chunk.text.slice(0, match.index)].length;
        const to = from + [...match[0]].length;
        const label = collapse(match[1] ?? match[2] ?? '');
        const states = new Set<ScreenElement['states'] extends Set<infer S> ? S : never>();
        const inner = from + 1 + (match[0].length - match[0].trimStart().length);
        const under = cursor.visible && cursor.y === chunk.row && cursor.x >= from && cursor.x < to;
        if (highlighted(cells, inner, to - 1, base) || highlighted(cells, from, to, base) || under) states.add('focused');
        elements.push({ kind: 'button', role: 'button', name: label, states, row: chunk.row, from, to, box: chunk.box });
      }
      continue;
    }
    if (chunk === fieldChunk) {
      const prompt = splitPrompt(cells, chunk.from, Math.max(chunk.to, cursor.x));
      const typed = cellText(cells, prompt.answerFrom, Math.max(chunk.to, cursor.x));
      const dim = allDim(cells, prompt.answerFrom, chunk.to);
      const question = withoutHint(prompt.question);
      const states: ScreenElement['states'] = new Set(['focused']);
      if (SECRET_QUESTION.test(question)) states.add('secure');
      const hint = ANSWER_HINT.exec(collapse(typed));
      const answer = hint === null ? typed : collapse(typed).slice(hint[0].length);
      const field: ScreenElement = { kind: 'field', role: 'textbox', name: question, value: dim ? '' : withoutFill(answer), states, row: chunk.row, from: chunk.from, to: Math.max(chunk.to, cursor.x + 1), box: chunk.box };
      if (dim && collapse(typed) !== '') field.placeholder = collapse(typed);
      else if (hint !== null) field.placeholder = collapse(hint[0]);
      if (question === '' && chunk.box !== undefined) field.name = '';
      elements.push(field);
      fieldPlaced = true;
      continue;
    }
    const mark = MARK_PATTERN.exec(chunk.text.replace(POINTER_PREFIX, ''));
    if (mark !== null) {
      const pointerOffset = chunk.text.length - chunk.text.replace(POINTER_PREFIX, '').length;
      const label = collapse(chunk.text.slice(pointerOffset + mark[0].length));
      const symbol = mark[1]!;
      const states: ScreenElement['states'] = new Set();
      if (CHECKED_MARKS.test(symbol.replace(/^[[(]|[\])]$/g, '')) && symbol !== '◯' && symbol !== '○' && symbol !== '◻' && symbol !== '☐') states.add('checked');
      if (allDim(cells, chunk.from, chunk.to)) states.add('disabled');
      elements.push({ kind: 'mark', role: symbol.startsWith('(') ? 'radio' : 'checkbox', name: label, states, row: chunk.row, from: chunk.from, to: chunk.to, box: chunk.box });
      continue;
    }
    elements.push({ kind: 'text', role: 'text', name: collapse(chunk.text).replace(TEXT_PREFIX, ''), states: new Set(), row: chunk.row, from: chunk.from, to: chunk.to, box: chunk.box });
  }

  // A field in a box drawn as a coloured run the cursor sits in, with no text before it (dialog's input box).
  const onControl = elements.some((element) => element.kind !== 'text' && element.row === cursor.y && cursor.x >= element.from && cursor.x < element.to);
  if (cursor.visible && !fieldPlaced && cursorBox !== undefined && !onControl) {
    const cells = grid.cells[cursor.y]!;
    const fieldBg = cells[cursor.x]!.bg;
    // A one-row box is a field drawn as a frame; otherwise a run in its own colour.
    const framed = cursorBox.bottom - cursorBox.top === 2;
    if (framed || fieldBg !== baseOf(cursorBox)) {
      let from = cursor.x;
      let to = cursor.x;
      if (framed) [from, to] = [cursorBox.left + 1, cursorBox.right];
      while (!framed && from > cursorBox.left + 1 && cells[from - 1]!.bg === fieldBg) from--;
      while (!framed && to < cursorBox.right && cells[to]!.bg === fieldBg) to++;
      for (let index = elements.length - 1; index >= 0; index--) {
        const element = elements[index]!;
        if (element.row === cursor.y && element.from >= from && element.to <= to) elements.splice(index, 1);
      }
      const around = framed ? cursorBox.parent : cursorBox;
      const question = [...elements].reverse().find((element) => element.kind === 'text' && element.row < cursor.y && (around === undefined || element.row > around.top) && (element.box === cursorBox || element.box === around));
      const name = question === undefined ? '' : withoutHint(question.name);
      const states: ScreenElement['states'] = new Set(['focused']);
      if (SECRET_QUESTION.test(name)) states.add('secure');
      elements.push({ kind: 'field', role: 'textbox', name, value: withoutFill(cellText(cells, from, to)), states, row: cursor.y, from, to, box: cursorBox });
    }
  }

  elements.sort((a, b) => a.row - b.row || a.from - b.from);
  const lists = findLists(grid, elements, baseOf);
  return { boxes, elements, lists };
}

interface RowCandidate {
  element: ScreenElement;
  labelStart: number;
  pointer: boolean;
}

function candidateOf(grid: Grid, element: ScreenElement): RowCandidate | undefined {
  if (element.kind !== 'text' && element.kind !== 'mark') return undefined;
  const cells = grid.cells[element.row]!;
  const first = cells[element.from]!.char;
  if (POINTERS.has(first)) {
    let start = element.from + 1;
    while (start < element.to && cells[start]!.char === ' ') start++;
    return { element, labelStart: start, pointer: true };
  }
  return { element, labelStart: element.from, pointer: false };
}

function findLists(grid: Grid, elements: ScreenElement[], baseOf: (box: Box | undefined) => string): ScreenList[] {
  const lists: ScreenList[] = [];
  // The first element of each row per box is the row's candidate; rows with buttons or a field are not list rows.
  const byRow = new Map<string, ScreenElement[]>();
  for (const element of elements) {
    const key = `${element.row}:${boxKey(element.box)}`;
    byRow.set(key, [...(byRow.get(key) ?? []), element]);
  }
  const runs: RowCandidate[][] = [];
  let run: RowCandidate[] = [];
  const rows = [...byRow.values()].filter((row) => row.length === 1).map((row) => candidateOf(grid, row[0]!)).filter((candidate) => candidate !== undefined);
  rows.sort((a, b) => boxKey(a.element.box).localeCompare(boxKey(b.element.box)) || a.element.row - b.element.row);
  for (const candidate of rows) {
    const last = run.at(-1);
    const aligned = last !== undefined && last.element.box === candidate.element.box && last.element.row + 1 === candidate.element.row && Math.abs(last.labelStart - candidate.labelStart) <= (last.pointer || candidate.pointer ? 0 : 0) && last.element.kind === candidate.element.kind;
    if (!aligned) {
      if (run.length > 0) runs.push(run);
      run = [];
    }
    run.push(candidate);
  }
  if (run.length > 0) runs.push(run);

  for (const group of runs) {
    if (group.length < 2) continue;
    const box = group[0]!.element.box;
    const base = baseOf(box);
    const pointed = group.filter((candidate) => candidate.pointer);
    let current: RowCandidate | undefined;
    let pointer = false;
    if (pointed.length === 1) {
      current = pointed[0];
      pointer = true;
    } else if (pointed.length === 0) {
      const signatures = group.map((candidate) => signature(grid.cells[candidate.element.row]!, candidate.labelStart, candidate.element.to));
      const counts = new Map<string, number>();
      for (const key of signatures) counts.set(key, (counts.get(key) ?? 0) + 1);
      const odd = group.filter((_, index) => counts.get(signatures[index]!) === 1);
      if (group.length > 2 && odd.length === 1 && counts.size === 2) current = odd[0];
      else if (group.length === 2 && counts.size === 2) current = group.find((candidate) => highlighted(grid.cells[candidate.element.row]!, candidate.labelStart, candidate.element.to, base));
      const cursorRow = grid.cursor.visible ? group.find((candidate) => candidate.element.row === grid.cursor.y && grid.cursor.x >= candidate.element.from && grid.cursor.x <= candidate.element.to) : undefined;
      if (current === undefined && cursorRow !== undefined && group[0]!.element.kind === 'mark') current = cursorRow;
      if (current === undefined && cursorRow !== undefined && group[0]!.element.box !== undefined && grid.cursor.x === cursorRow.element.from) current = cursorRow;
    }
    const marks = group[0]!.element.kind === 'mark';
    if (current === undefined && !marks) continue;
    const list: ScreenList = { role: marks ? 'group' : 'menu', name: '', box, items: [], current: undefined, pointer };
    for (const candidate of group) {
      const element = candidate.element;
      if (!marks) {
        element.kind = 'item';
        element.role = 'menuitem';
        element.name = collapse(cellText(grid.cells[element.row]!, candidate.labelStart, element.to));
        if (allDim(grid.cells[element.row]!, candidate.labelStart, element.to)) element.states.add('disabled');
        element.name = element.name.replace(/\s*\(disabled\)$/i, '');
      }
      element.list = list;
      list.items.push(element);
    }
    if (current !== undefined) {
      list.current = current.element;
      current.element.states.add(marks ? 'focused' : 'selected');
    }
    list.name = listName(elements, list);
    lists.push(list);
  }
  return lists;
}

function boxKey(box: Box | undefined): string {
  return box === undefined ? '-' : `${box.top}.${box.left}`;
}

/** The question above a list: the nearest text line above its first row, in its box or a box around it, at most 3 rows up. */
function listName(elements: readonly ScreenElement[], list: ScreenList): string {
  const top = list.items[0]!.row;
  const left = list.items[0]!.from;
  let best: ScreenElement | undefined;
  for (const element of elements) {
    if (element.kind !== 'text' || element.row >= top || top - element.row > 3) continue;
    if (!sameOrAround(element.box, list.box)) continue;
    if (element.to <= left - 40) continue;
    if (best === undefined || element.row > best.row) best = element;
  }
  if (best === undefined) return '';
  const prompt = best.name.replace(PROMPT_PREFIX, '');
  return withoutHint(prompt);
}

function sameOrAround(outer: Box | undefined, inner: Box | undefined): boolean {
  for (let box = inner; ; box = box.parent) {
    if (box === outer) return true;
    if (box === undefined) return false;
  }
}
