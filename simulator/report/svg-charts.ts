/**
 * SVG chart primitives for the simulation report, as strings: scales, axes, lines, bars, markers and legends. No
 * `xmlns` attribute: inline SVG in HTML5 needs none, and the report must hold no http(s) URL at all.
 */

export type Point = [number, number];
export type Scale = (value: number) => number;
export type MarkerShape = 'circle' | 'square' | 'diamond' | 'triangle-up' | 'triangle-down';

export interface Margin {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

export interface Plot {
  width: number;
  height: number;
  margin: Margin;
  xDomain: [number, number];
  yDomain: [number, number];
  x: Scale;
  y: Scale;
}

const DEFAULT_MARGIN: Margin = { top: 16, right: 16, bottom: 40, left: 72 };

/**
 * Escapes text for HTML and SVG, attributes included. "://" is broken up too, so that a URL written in a
 * scenario's name or description cannot make the file look like it loads something (the file is checked for none).
 */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/:\/\//g, ':&#47;&#47;');
}

/** Coordinates with two decimals: enough for a screen, and keeps a 7,200-point path small. */
export function coord(value: number): string {
  return String(Math.round(value * 100) / 100);
}

export function linearScale(domain: [number, number], range: [number, number]): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0;
  if (span === 0) return () => (r0 + r1) / 2;
  return (value) => r0 + ((value - d0) / span) * (r1 - r0);
}

/** The smallest and largest finite value, widened by `pad` of the span (or of the value when all are equal). */
export function paddedDomain(values: readonly number[], pad = 0.05): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    if (!Number.isFinite(value)) continue;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (min === Infinity) return [0, 1];
  if (min === max) {
    const half = min === 0 ? 1 : Math.abs(min) * pad;
    return [min - half, max + half];
  }
  const margin = (max - min) * pad;
  return [min - margin, max + margin];
}

/** Round tick values (steps of 1, 2 or 5 times a power of ten) inside [min, max], about `count` of them. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max) || count < 1) return [];
  if (min === max) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  // The nearest of 1, 2, 5, 10 on a log scale, so the count stays close to the one asked for either way.
  const step =
    (fraction >= Math.sqrt(50) ? 10 : fraction >= Math.sqrt(10) ? 5 : fraction >= Math.sqrt(2) ? 2 : 1) *
    power;
  const ticks: number[] = [];
  for (let i = Math.ceil(min / step); i * step <= max + step * 1e-9; i++) {
    // Multiplying the index (not adding steps) keeps 0.1 + 0.2 noise out of the labels.
    ticks.push(Number((i * step).toPrecision(12)));
  }
  return ticks;
}

/** Labels for tick values: up to 6 significant digits, thousands grouped (150,000 and 50,000 read alike). */
export function tickLabel(value: number): string {
  return Number(value.toPrecision(6)).toLocaleString('en-US', { maximumFractionDigits: 20 });
}

export function plotArea(options: {
  width: number;
  height: number;
  xDomain: [number, number];
  yDomain: [number, number];
  margin?: Margin;
}): Plot {
  const margin = options.margin ?? DEFAULT_MARGIN;
  const { width, height, xDomain, yDomain } = options;
  return {
    width,
    height,
    margin,
    xDomain,
    yDomain,
    x: linearScale(xDomain, [margin.left, width - margin.right]),
    y: linearScale(yDomain, [height - margin.bottom, margin.top]),
  };
}

/** A whole chart: `title` is its accessible name (and a tooltip), `body` the elements drawn inside. */
export function svgChart(plot: Plot, title: string, body: string): string {
  return (
    `<svg class="chart" viewBox="0 0 ${plot.width} ${plot.height}" width="${plot.width}" height="${plot.height}"` +
    ` role="img" aria-label="${escapeXml(title)}"><title>${escapeXml(title)}</title>${body}</svg>`
  );
}

/** Frame, grid lines, tick labels and axis titles. `xTicks` replaces the computed ticks (categories). */
export function axes(
  plot: Plot,
  labels: { x: string; y: string },
  options: { xTicks?: Array<{ value: number; label: string }> } = {},
): string {
  const { margin, width, height } = plot;
  const left = margin.left;
  const right = width - margin.right;
  const top = margin.top;
  const bottom = height - margin.bottom;
  const parts: string[] = [
    `<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" class="frame"/>`,
  ];
  for (const value of niceTicks(plot.yDomain[0], plot.yDomain[1], 5)) {
    const y = coord(plot.y(value));
    parts.push(`<line x1="${left}" x2="${right}" y1="${y}" y2="${y}" class="grid"/>`);
    parts.push(
      `<text x="${left - 6}" y="${y}" class="tick" text-anchor="end" dy="0.32em">${tickLabel(value)}</text>`,
    );
  }
  const xTicks =
    options.xTicks ??
    niceTicks(plot.xDomain[0], plot.xDomain[1], 8).map((value) => ({ value, label: tickLabel(value) }));
  for (const tick of xTicks) {
    const x = coord(plot.x(tick.value));
    parts.push(`<line x1="${x}" x2="${x}" y1="${bottom}" y2="${bottom + 4}" class="axis"/>`);
    parts.push(
      `<text x="${x}" y="${bottom + 16}" class="tick" text-anchor="middle">${escapeXml(tick.label)}</text>`,
    );
  }
  parts.push(
    `<text x="${coord((left + right) / 2)}" y="${height - 6}" class="axis-title" text-anchor="middle">` +
      `${escapeXml(labels.x)}</text>`,
    `<text transform="translate(14 ${coord((top + bottom) / 2)}) rotate(-90)" class="axis-title"` +
      ` text-anchor="middle">${escapeXml(labels.y)}</text>`,
  );
  return parts.join('');
}

export function polyline(
  plot: Plot,
  points: readonly Point[],
  style: { stroke: string; width?: number; dash?: string },
): string {
  if (points.length === 0) return '';
  const coords = points.map(([x, y]) => `${coord(plot.x(x))},${coord(plot.y(y))}`).join(' ');
  const dash = style.dash ? ` stroke-dasharray="${style.dash}"` : '';
  return (
    `<polyline points="${coords}" fill="none" stroke="${style.stroke}" stroke-width="${style.width ?? 1.5}"` +
    `${dash} stroke-linejoin="round"/>`
  );
}

/** Vertical bars from y = 0 (or the bottom of the domain when it is above 0), each with a tooltip. */
export function bars(
  plot: Plot,
  items: ReadonlyArray<{ x0: number; x1: number; y: number; title: string }>,
  fill: string,
): string {
  const base = plot.y(Math.max(0, plot.yDomain[0]));
  return items
    .map((bar) => {
      const x0 = plot.x(bar.x0);
      const x1 = plot.x(bar.x1);
      const top = plot.y(bar.y);
      const x = Math.min(x0, x1);
      const y = Math.min(top, base);
      return (
        `<rect x="${coord(x)}" y="${coord(y)}" width="${coord(Math.abs(x1 - x0))}"` +
        ` height="${coord(Math.abs(base - top))}" fill="${fill}"><title>${escapeXml(bar.title)}</title></rect>`
      );
    })
    .join('');
}

function shapeElement(shape: MarkerShape, cx: number, cy: number, size: number, paint: string): string {
  const r = size / 2;
  const at = (dx: number, dy: number) => `${coord(cx + dx)},${coord(cy + dy)}`;
  switch (shape) {
    case 'circle':
      return `<circle cx="${coord(cx)}" cy="${coord(cy)}" r="${coord(r)}"${paint}`;
    case 'square':
      return `<rect x="${coord(cx - r)}" y="${coord(cy - r)}" width="${coord(size)}" height="${coord(size)}"${paint}`;
    case 'diamond':
      return `<polygon points="${at(0, -r)} ${at(r, 0)} ${at(0, r)} ${at(-r, 0)}"${paint}`;
    case 'triangle-up':
      return `<polygon points="${at(0, -r)} ${at(r, r)} ${at(-r, r)}"${paint}`;
    case 'triangle-down':
      return `<polygon points="${at(-r, -r)} ${at(r, -r)} ${at(0, r)}"${paint}`;
  }
}

/** One marker centred on (cx, cy) in pixels; hollow markers are outlined in `colour`. */
export function marker(
  shape: MarkerShape,
  cx: number,
  cy: number,
  style: { colour: string; filled: boolean; size?: number; title?: string },
): string {
  const paint = style.filled
    ? ` fill="${style.colour}" stroke="none"`
    : ` fill="none" stroke="${style.colour}" stroke-width="1.2"`;
  const element = shapeElement(shape, cx, cy, style.size ?? 7, paint);
  return style.title
    ? `${element}><title>${escapeXml(style.title)}</title></${tagOf(shape)}>`
    : `${element}/>`;
}

function tagOf(shape: MarkerShape): string {
  return shape === 'circle' ? 'circle' : shape === 'square' ? 'rect' : 'polygon';
}

export type LegendItem =
  | { label: string; kind: 'line'; colour: string; dash?: string }
  | { label: string; kind: 'marker'; shape: MarkerShape; colour: string; filled: boolean };

/** A legend in one row from (x, y) in pixels, inside the chart it explains. */
export function legend(items: readonly LegendItem[], x: number, y: number): string {
  const parts: string[] = [];
  let cursor = x;
  for (const item of items) {
    if (item.kind === 'line') {
      const dash = item.dash ? ` stroke-dasharray="${item.dash}"` : '';
      parts.push(
        `<line x1="${cursor}" x2="${cursor + 18}" y1="${y}" y2="${y}" stroke="${item.colour}" stroke-width="2"${dash}/>`,
      );
      cursor += 22;
    } else {
      parts.push(marker(item.shape, cursor + 5, y, { colour: item.colour, filled: item.filled }));
      cursor += 14;
    }
    parts.push(`<text x="${cursor}" y="${y}" class="legend" dy="0.32em">${escapeXml(item.label)}</text>`);
    // An estimate of the label's width: SVG cannot measure text without a script.
    cursor += item.label.length * 6.5 + 14;
  }
  return `<g class="legend">${parts.join('')}</g>`;
}

/**
 * At most about `maxPoints` points of a path sorted by x: the path is cut into buckets and each keeps its lowest
 * and highest point (in x order), so spikes survive the thinning. The first and last points are always kept.
 */
export function thinPath(points: readonly Point[], maxPoints = 2000): Point[] {
  if (points.length <= maxPoints || maxPoints < 4) return [...points];
  const inner = points.slice(1, -1);
  const buckets = Math.floor((maxPoints - 2) / 2);
  const size = Math.ceil(inner.length / buckets);
  const out: Point[] = [points[0]];
  for (let start = 0; start < inner.length; start += size) {
    let low = start;
    let high = start;
    for (let i = start + 1; i < Math.min(start + size, inner.length); i++) {
      if (inner[i][1] < inner[low][1]) low = i;
      if (inner[i][1] > inner[high][1]) high = i;
    }
    if (low === high) out.push(inner[low]);
    else out.push(inner[Math.min(low, high)], inner[Math.max(low, high)]);
  }
  out.push(points[points.length - 1]);
  return out;
}

/** A centred note inside an empty chart. */
export function emptyNote(plot: Plot, text: string): string {
  return (
    `<text x="${coord(plot.width / 2)}" y="${coord(plot.height / 2)}" class="empty" text-anchor="middle">` +
    `${escapeXml(text)}</text>`
  );
}
