// Minimal ANSI styling. Renderers receive `color` from the caller (TTY and NO_COLOR are decided at
// the edge), so the same function gives plain text for pipes, files and tests.

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

const wrap =
  (open: number, close: number) =>
  (text: string): string =>
    `\u001b[${open}m${text}\u001b[${close}m`;

const COLORED: Style = {
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  red: wrap(31, 39),
  yellow: wrap(33, 39),
  green: wrap(32, 39),
  cyan: wrap(36, 39),
};

const identity = (text: string): string => text;

const PLAIN: Style = {
  bold: identity,
  dim: identity,
  red: identity,
  yellow: identity,
  green: identity,
  cyan: identity,
};

export function styleFor(color: boolean): Style {
  return color ? COLORED : PLAIN;
}
