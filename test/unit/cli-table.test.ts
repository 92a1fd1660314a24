import { describe, expect, it } from 'vitest';
import { renderTable } from '../../apps/cli/src/table';

const rows = [
  { id: 'text_stats', description: 'Counts characters, words and sentences of a text' },
  { id: 'echo', description: 'Returns its input' },
];
const columns = [
  { header: 'ID', value: (row: (typeof rows)[number]) => row.id },
  { header: 'DESCRIPTION', value: (row: (typeof rows)[number]) => row.description, shrink: true },
];

describe('skillrun tables', () => {
  it('aligns columns under their headers', () => {
    expect(renderTable(columns, rows, 200)).toEqual([
      'ID          DESCRIPTION',
      'text_stats  Counts characters, words and sentences of a text',
      'echo        Returns its input',
    ]);
  });

  it('truncates the shrinkable column to fit the width', () => {
    const lines = renderTable(columns, rows, 30);
    expect(lines.every((line) => line.length <= 30)).toBe(true);
    expect(lines[1]).toBe('text_stats  Counts characters…');
  });
});
