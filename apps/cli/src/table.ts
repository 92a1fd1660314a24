export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** This column gives up width (its cells truncated with …) when the table is too wide. */
  shrink?: boolean;
}

const GAP = '  ';
const MIN_SHRUNK = 10;

/**
 * Rows as aligned columns that fit in `width` (the shrinkable column is truncated), headers first:
 * what `gh` and `temporal` print. `header` styles the header line (colour on a terminal).
 */
export function renderTable<Row>(
  columns: Column<Row>[],
  rows: Row[],
  width: number,
  header: (text: string) => string = (text) => text,
): string[] {
  const cells = rows.map((row) => columns.map((column) => oneLine(column.value(row))));
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...cells.map((line) => (line[index] ?? '').length)),
  );
  const total = widths.reduce((sum, each) => sum + each, 0) + GAP.length * (columns.length - 1);
  const shrinking = columns.findIndex((column) => column.shrink);
  if (total > width && shrinking !== -1) {
    const current = widths[shrinking] ?? 0;
    widths[shrinking] = Math.max(MIN_SHRUNK, current - (total - width));
  }
  const line = (values: string[]) =>
    values
      .map((value, index) => {
        const fitted = truncate(value, widths[index] ?? value.length);
        return index === values.length - 1 ? fitted : fitted.padEnd(widths[index] ?? 0);
      })
      .join(GAP)
      .trimEnd();
  return [header(line(columns.map((column) => column.header))), ...cells.map(line)];
}

export function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
