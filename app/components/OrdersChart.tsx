/** A small stacked bar chart of orders per day (inline SVG, no chart library). */
export interface DayBucket {
  day: string; // YYYY-MM-DD
  done: number;
  inProgress: number;
  problems: number;
}

const COLORS = { done: "#29845a", inProgress: "#91d0ff", problems: "#e51c00" } as const;
const LABELS = { done: "Paid and after", inProgress: "In progress", problems: "Held or failed" };

export function OrdersChart({ days }: { days: DayBucket[] }) {
  const width = 560;
  const height = 140;
  const pad = 20;
  const max = Math.max(1, ...days.map((d) => d.done + d.inProgress + d.problems));
  const slot = (width - pad) / Math.max(1, days.length);
  const bar = Math.max(4, slot * 0.6);
  const scale = (n: number) => (n / max) * (height - pad - 10);
  return (
    <figure style={{ margin: 0 }}>
      <svg
        role="img"
        aria-label="Orders received per day over the last 14 days"
        viewBox={`0 0 ${width} ${height}`}
        width="100%"
        style={{ maxWidth: width }}
      >
        <line x1={pad} y1={height - pad} x2={width} y2={height - pad} stroke="#c9cccf" />
        <text x={0} y={12} fontSize="10" fill="#616161">
          {max}
        </text>
        {days.map((d, i) => {
          const x = pad + i * slot + (slot - bar) / 2;
          let y = height - pad;
          const parts = (["done", "inProgress", "problems"] as const).map((k) => {
            const h = scale(d[k]);
            y -= h;
            return h > 0 ? (
              <rect key={k} x={x} y={y} width={bar} height={h} fill={COLORS[k]}>
                <title>{`${d.day}: ${d[k]} ${LABELS[k].toLowerCase()}`}</title>
              </rect>
            ) : null;
          });
          return (
            <g key={d.day}>
              {parts}
              {i % 2 === 0 ? (
                <text
                  x={x + bar / 2}
                  y={height - 6}
                  fontSize="9"
                  textAnchor="middle"
                  fill="#616161"
                >
                  {d.day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption style={{ display: "flex", gap: 12, fontSize: 12, color: "#616161" }}>
        {(Object.keys(COLORS) as (keyof typeof COLORS)[]).map((k) => (
          <span key={k}>
            <span
              style={{
                display: "inline-block",
                width: 10,
                height: 10,
                background: COLORS[k],
                marginRight: 4,
              }}
            />
            {LABELS[k]}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
