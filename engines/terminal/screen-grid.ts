/**
 * The terminal screen as a grid of cells, read from the headless emulator's active buffer:
 * each cell's character and the style a person sees (effective colours after reverse video,
 * bold, dim, underline), plus the cursor, the alternate screen and the title. Everything the
 * observation reads goes through this one snapshot, so a screen is read once per observe.
 */

/** One cell as a person sees it. */
export interface Cell {
  /** The character, `' '` for an empty cell, `''` for the right half of a wide character. */
  char: string;
  /** The foreground colour key after reverse video (`d` default, `p<n>` palette, `r<hex>` true colour). */
  fg: string;
  /** The background colour key after reverse video (`d` default, `D` default foreground shown as background). */
  bg: string;
  bold: boolean;
  dim: boolean;
  underline: boolean;
  inverse: boolean;
}

/** A screen snapshot. */
export interface Grid {
  cols: number;
  rows: number;
  /** `cells[row][column]`. */
  cells: Cell[][];
  cursor: { x: number; y: number; visible: boolean };
  /** True while the program draws on the alternate screen (full-screen programs). */
  alternate: boolean;
  /** The window title the program set (OSC 0/2), empty when none. */
  title: string;
}

/** The part of an xterm buffer cell this module reads (`IBufferCell` of `@xterm/headless`). */
export interface BufferCellLike {
  getChars(): string;
  getWidth(): number;
  getFgColor(): number;
  getBgColor(): number;
  isFgDefault(): boolean;
  isBgDefault(): boolean;
  isFgRGB(): boolean;
  isBgRGB(): boolean;
  isBold(): number;
  isDim(): number;
  isUnderline(): number;
  isInverse(): number;
  isInvisible(): number;
}

/** The part of an xterm buffer this module reads. */
export interface BufferLike {
  readonly type: 'normal' | 'alternate';
  readonly cursorX: number;
  readonly cursorY: number;
  readonly viewportY: number;
  getLine(y: number): { getCell(x: number, cell?: BufferCellLike): BufferCellLike | undefined } | undefined;
  getNullCell(): BufferCellLike;
}

/** Palette colour keys, made once: a screen has thousands of cells and a few colours. */
const PALETTE_KEYS = Array.from({ length: 256 }, (_, index) => `p${index}`);

function colourKey(isDefault: boolean, isRgb: boolean, value: number): string {
  if (isDefault) return 'd';
  return isRgb ? `r${value.toString(16)}` : (PALETTE_KEYS[value] ?? `p${value}`);
}

/** A blank cell in default colours. */
export function blankCell(): Cell {
  return { char: ' ', fg: 'd', bg: 'd', bold: false, dim: false, underline: false, inverse: false };
}

/** Read the visible screen of `buffer` into a {@link Grid}. */
export function readGrid(buffer: BufferLike, size: { cols: number; rows: number }, extra: { cursorVisible: boolean; title: string }): Grid {
  const cells: Cell[][] = [];
  const scratch = buffer.getNullCell();
  for (let row = 0; row < size.rows; row++) {
    const line = buffer.getLine(buffer.viewportY + row);
    const out: Cell[] = [];
    for (let column = 0; column < size.cols; column++) {
      const cell = line?.getCell(column, scratch);
      if (cell === undefined) {
        out.push(blankCell());
        continue;
      }
      const inverse = cell.isInverse() !== 0;
      let fg = colourKey(cell.isFgDefault(), cell.isFgRGB(), cell.getFgColor());
      let bg = colourKey(cell.isBgDefault(), cell.isBgRGB(), cell.getBgColor());
      if (inverse) [fg, bg] = [bg === 'd' ? 'D' : bg, fg === 'd' ? 'D' : fg];
      const width = cell.getWidth();
      const chars = cell.isInvisible() !== 0 ? ' ' : cell.getChars();
      out.push({
        char: width === 0 ? '' : chars === '' ? ' ' : chars,
        fg,
        bg,
        bold: cell.isBold() !== 0,
        dim: cell.isDim() !== 0,
        underline: cell.isUnderline() !== 0,
        inverse,
      });
    }
    cells.push(out);
  }
  return {
    cols: size.cols,
    rows: size.rows,
    cells,
    cursor: { x: buffer.cursorX, y: buffer.cursorY, visible: extra.cursorVisible },
    alternate: buffer.type === 'alternate',
    title: extra.title,
  };
}

/** The text of cells `from` to `to` (exclusive) of a row; the right halves of wide characters add nothing. */
export function textOf(row: readonly Cell[], from: number, to: number): string {
  let text = '';
  for (let column = from; column < to; column++) text += row[column]?.char ?? '';
  return text;
}

/** A grid built from plain lines (tests and the bench): default colours, cursor hidden at 0,0. */
export function gridOfLines(lines: readonly string[], size: { cols: number; rows: number }): Grid {
  const cells: Cell[][] = [];
  for (let row = 0; row < size.rows; row++) {
    const characters = [...(lines[row] ?? '')];
    cells.push(Array.from({ length: size.cols }, (_, column) => ({ ...blankCell(), char: characters[column] ?? ' ' })));
  }
  return { cols: size.cols, rows: size.rows, cells, cursor: { x: 0, y: 0, visible: false }, alternate: false, title: '' };
}
