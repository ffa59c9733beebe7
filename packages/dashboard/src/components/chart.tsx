import type { Usage } from '../types';

/**
 * Units per day of the month as an inline SVG bar chart (no chart library: the page loads
 * nothing but itself). Every day of the month has a slot, days without calls stay empty, and a
 * table of the same numbers follows for screen readers and exact values.
 */
export function DailyChart(props: { usage: Usage }) {
  const { month, days } = props.usage;
  const [year, mon] = month.split('-').map(Number) as [number, number];
  const length = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  const byDate = new Map(days.map((day) => [day.date, day]));
  const max = Math.max(1, ...days.map((day) => day.units));
  const width = 960;
  const height = 200;
  const left = 40;
  const bottom = 20;
  const slot = (width - left) / length;
  const bar = Math.max(2, slot * 0.7);
  const scale = (units: number) => ((height - bottom - 10) * units) / max;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-labelledby="chart-title"
        data-testid="usage-chart"
      >
        <title id="chart-title">{`Units per day in ${month}, highest ${max.toLocaleString('en-US')}`}</title>
        <line x1={left} y1={height - bottom} x2={width} y2={height - bottom} class="axis" />
        <text x={left - 6} y={height - bottom} class="tick" text-anchor="end">
          0
        </text>
        <text x={left - 6} y={12} class="tick" text-anchor="end">
          {max.toLocaleString('en-US')}
        </text>
        {Array.from({ length }, (_, i) => {
          const date = `${month}-${String(i + 1).padStart(2, '0')}`;
          const units = byDate.get(date)?.units ?? 0;
          const x = left + i * slot + (slot - bar) / 2;
          const h = scale(units);
          return (
            <g key={date}>
              {units > 0 ? (
                <rect x={x} y={height - bottom - h} width={bar} height={h} class="bar" data-date={date}>
                  <title>{`${date}: ${units.toLocaleString('en-US')} units`}</title>
                </rect>
              ) : null}
              {(i + 1) % 5 === 1 ? (
                <text x={x + bar / 2} y={height - 5} class="tick" text-anchor="middle">
                  {i + 1}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption>Units per day (UTC), {month}</figcaption>
    </figure>
  );
}
