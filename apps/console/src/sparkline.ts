const SVG = 'http://www.w3.org/2000/svg';

/**
 * A small line of counts (oldest first), as an SVG image whose label reads the numbers out, so that
 * a screen reader gets what the line shows.
 */
export function sparkline(counts: number[], label: string, kind: 'ok' | 'error'): SVGSVGElement {
  const width = 120;
  const height = 24;
  const top = Math.max(1, ...counts);
  const step = counts.length > 1 ? width / (counts.length - 1) : width;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${label}: ${counts.join(', ')}`);
  svg.setAttribute('class', `sparkline sparkline-${kind}`);
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute(
    'points',
    counts
      .map(
        (count, index) =>
          `${(index * step).toFixed(1)},${(height - 2 - (count / top) * (height - 4)).toFixed(1)}`,
      )
      .join(' '),
  );
  line.setAttribute('fill', 'none');
  line.setAttribute('stroke-width', '2');
  svg.append(line);
  return svg;
}
