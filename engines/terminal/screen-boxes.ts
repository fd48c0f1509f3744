/**
 * Boxes drawn with line characters (dialogs, frames, panels): found as rectangles whose four
 * corners and edges are drawn, with the title written into the top edge. A box is a region of
 * the observation; boxes nest.
 */
import { textOf, type Grid } from './screen-grid.js';

const TOP_LEFT = new Set(['┌', '┏', '╔', '╭', '┍', '┎', '╒', '╓']);
const TOP_RIGHT = new Set(['┐', '┓', '╗', '╮', '┑', '┒', '╕', '╖']);
const BOTTOM_LEFT = new Set(['└', '┗', '╚', '╰', '┕', '┖', '╘', '╙']);
const BOTTOM_RIGHT = new Set(['┘', '┛', '╝', '╯', '┙', '┚', '╛', '╜']);
const VERTICAL = new Set(['│', '┃', '║', '├', '┤', '┣', '┫', '╠', '╣', '╟', '╢', '╞', '╡', '┝', '┥', '┠', '┨']);
/** Line characters of a horizontal edge (titles sit between them). */
export const HORIZONTAL = new Set(['─', '━', '═', '┬', '┴', '┳', '┻', '╦', '╩', '╤', '╧', '┤', '├', '┫', '┣', '╡', '╞']);
const LEFT_TEE = new Set(['├', '┣', '╠', '╟', '╞', '┝', '┠']);
const RIGHT_TEE = new Set(['┤', '┫', '╣', '╢', '╡', '┥', '┨']);

/** One drawn box; `top`/`left`/`bottom`/`right` are its border cells. */
export interface Box {
  top: number;
  left: number;
  bottom: number;
  right: number;
  /** The text written into the top edge, trimmed; empty when none. */
  title: string;
  /** Rows of horizontal separators (`├───┤`) inside the box. */
  separators: number[];
  parent: Box | undefined;
  children: Box[];
}

/** True when the cell at (row, column) is inside `box` (not on its border). */
export function inside(box: Box, row: number, column: number): boolean {
  return row > box.top && row < box.bottom && column > box.left && column < box.right;
}

function charAt(grid: Grid, row: number, column: number): string {
  return grid.cells[row]?.[column]?.char ?? ' ';
}

function boxAt(grid: Grid, top: number, left: number): Box | undefined {
  // The top edge: line characters and a title, up to the first top-right corner.
  let right = -1;
  let lineCells = 0;
  for (let column = left + 1; column < grid.cols; column++) {
    const char = charAt(grid, top, column);
    if (TOP_RIGHT.has(char)) {
      right = column;
      break;
    }
    if (HORIZONTAL.has(char)) lineCells++;
    else if (TOP_LEFT.has(char)) return undefined;
  }
  if (right < left + 2 || lineCells < Math.min(2, right - left - 1)) return undefined;
  let bottom = -1;
  for (let row = top + 1; row < grid.rows; row++) {
    const char = charAt(grid, row, left);
    if (BOTTOM_LEFT.has(char)) {
      bottom = row;
      break;
    }
    if (!VERTICAL.has(char)) return undefined;
  }
  if (bottom < top + 1 || !BOTTOM_RIGHT.has(charAt(grid, bottom, right))) return undefined;
  for (let row = top + 1; row < bottom; row++) if (!VERTICAL.has(charAt(grid, row, right))) return undefined;
  for (let column = left + 1; column < right; column++) {
    const char = charAt(grid, bottom, column);
    if (!HORIZONTAL.has(char) && char !== ' ') return undefined;
  }
  const row = grid.cells[top] ?? [];
  const title = [...textOf(row, left + 1, right)]
    .map((char) => (HORIZONTAL.has(char) ? ' ' : char))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  const separators: number[] = [];
  for (let line = top + 1; line < bottom; line++) {
    if (LEFT_TEE.has(charAt(grid, line, left)) && RIGHT_TEE.has(charAt(grid, line, right))) separators.push(line);
  }
  return { top, left, bottom, right, title, separators, parent: undefined, children: [] };
}

function contains(outer: Box, inner: Box): boolean {
  return inner.top > outer.top && inner.bottom < outer.bottom && inner.left > outer.left && inner.right < outer.right;
}

/** The boxes of a grid, outermost first, each with its parent and children set. */
export function findBoxes(grid: Grid): Box[] {
  const found: Box[] = [];
  for (let row = 0; row < grid.rows; row++) {
    for (let column = 0; column < grid.cols; column++) {
      if (!TOP_LEFT.has(charAt(grid, row, column))) continue;
      const box = boxAt(grid, row, column);
      if (box !== undefined) found.push(box);
    }
  }
  // Largest first, so each box's parent is the smallest box already placed that contains it.
  found.sort((a, b) => (b.bottom - b.top) * (b.right - b.left) - (a.bottom - a.top) * (a.right - a.left));
  for (const [index, box] of found.entries()) {
    for (let candidate = index - 1; candidate >= 0; candidate--) {
      const outer = found[candidate]!;
      if (contains(outer, box) && (box.parent === undefined || contains(box.parent, outer))) box.parent = outer;
    }
    box.parent?.children.push(box);
  }
  return found;
}

/** True when the cell is part of a box's border (edges, corners, separators). */
export function onBorder(boxes: readonly Box[], row: number, column: number): boolean {
  return boxes.some(
    (box) =>
      ((row === box.top || row === box.bottom) && column >= box.left && column <= box.right) ||
      ((column === box.left || column === box.right) && row >= box.top && row <= box.bottom) ||
      (box.separators.includes(row) && column > box.left && column < box.right),
  );
}

/** The innermost box whose inside holds the cell, or undefined for the bare screen. */
export function innermostBox(boxes: readonly Box[], row: number, column: number): Box | undefined {
  let best: Box | undefined;
  for (const box of boxes) if (inside(box, row, column) && (best === undefined || contains(best, box))) best = box;
  return best;
}

/** Where every cell sits: the innermost box whose inside holds it (an index into the boxes, -1 for none), and whether it is border. */
export interface BoxMap {
  owner: Int32Array;
  border: Uint8Array;
  cols: number;
}

/** The {@link BoxMap} of a grid's boxes (outermost first, as {@link findBoxes} gives them). */
export function mapBoxes(boxes: readonly Box[], size: { cols: number; rows: number }): BoxMap {
  const owner = new Int32Array(size.cols * size.rows).fill(-1);
  const border = new Uint8Array(size.cols * size.rows);
  // Outermost first: an inner box overwrites the cells of the box around it.
  for (const [index, box] of boxes.entries()) {
    for (let row = box.top; row <= box.bottom; row++) {
      for (let column = box.left; column <= box.right; column++) {
        const at = row * size.cols + column;
        if (row === box.top || row === box.bottom || column === box.left || column === box.right || box.separators.includes(row)) border[at] = 1;
        else owner[at] = index;
      }
    }
  }
  return { owner, border, cols: size.cols };
}
