/**
 * The Metrics page's charts, drawn with recharts. This module is loaded on demand (React.lazy in metrics.tsx), so
 * recharts and its dependencies are a chunk of their own that only the Metrics page fetches. Colours are read from
 * the dashboard's CSS variables when drawn, and drawn again when the theme changes.
 */
import type { MetricsDataPoint } from "@gatehouse/js";
import { useMemo } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { useTheme } from "../../ui/theme.tsx";

type Palette = { line: string; grid: string; text: string; panel: string; border: string };

/** The theme's colours as values: SVG attributes do not resolve `var(...)` everywhere. */
function usePalette(): Palette {
  const theme = useTheme();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the theme changes what the variables hold.
  return useMemo(() => {
    const style = getComputedStyle(document.documentElement);
    const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
    return {
      line: read("--gh-primary", "#4f46e5"),
      grid: read("--gh-border", "#e5e7eb"),
      text: read("--gh-text-muted", "#6b7280"),
      panel: read("--gh-surface", "#ffffff"),
      border: read("--gh-border", "#e5e7eb"),
    };
  }, [theme]);
}

/** `2030-06-15` as `Jun 15`, in UTC like the server's days. */
export function shortDay(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString("en", {
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });
}

function tooltipStyle(palette: Palette) {
  return {
    contentStyle: {
      background: palette.panel,
      border: `1px solid ${palette.border}`,
      borderRadius: 8,
      fontSize: 12,
    },
    labelStyle: { color: palette.text },
  };
}

export function DailyChart(props: { points: MetricsDataPoint[]; label: string; testId: string }) {
  const palette = usePalette();
  return (
    <div className="metrics-chart" data-testid={props.testId}>
      <ResponsiveContainer width="100%" height={220}>
        <LineChart data={props.points} margin={{ top: 8, right: 12, bottom: 0, left: -16 }}>
          <CartesianGrid stroke={palette.grid} strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="date"
            tickFormatter={shortDay}
            tick={{ fill: palette.text, fontSize: 11 }}
            stroke={palette.grid}
            minTickGap={24}
          />
          <YAxis allowDecimals={false} tick={{ fill: palette.text, fontSize: 11 }} stroke={palette.grid} />
          <Tooltip
            {...tooltipStyle(palette)}
            labelFormatter={(date) => shortDay(String(date))}
            formatter={(value) => [value, props.label]}
          />
          <Line
            type="monotone"
            dataKey="activity"
            name={props.label}
            stroke={palette.line}
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

export function LoginMethodsChart(props: { methods: { method: string; count: number }[] }) {
  const palette = usePalette();
  const height = Math.max(120, props.methods.length * 36 + 24);
  return (
    <div className="metrics-chart" data-testid="login-methods-chart">
      <ResponsiveContainer width="100%" height={height}>
        <BarChart data={props.methods} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid stroke={palette.grid} strokeDasharray="3 3" horizontal={false} />
          <XAxis
            type="number"
            allowDecimals={false}
            tick={{ fill: palette.text, fontSize: 11 }}
            stroke={palette.grid}
          />
          <YAxis
            type="category"
            dataKey="method"
            width={80}
            tick={{ fill: palette.text, fontSize: 12 }}
            stroke={palette.grid}
          />
          <Tooltip {...tooltipStyle(palette)} cursor={{ fill: palette.grid, opacity: 0.4 }} />
          <Bar
            dataKey="count"
            name="Methods"
            fill={palette.line}
            radius={[0, 4, 4, 0]}
            isAnimationActive={false}
          />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
