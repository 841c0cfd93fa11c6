/**
 * The Metrics page: `GET /internal/metrics` drawn for owners. Totals first, then daily sign-ups and daily active
 * users (line charts), sign-in methods (a bar chart), users by country, and the newest and latest active users.
 * The charts come from a chunk loaded on demand (metrics-charts.tsx), so recharts never weighs on other pages;
 * each chart has its figures in a table for screen readers too.
 */
import type { MetricsDataPoint, MetricsRecentUser, MetricsResponse } from "@gatehouse/js";
import { formatDate } from "@gatehouse/react/ui";
import { lazy, type ReactNode, Suspense, useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { AsyncBody } from "../../ui/async.tsx";
import { Card, Loading, PageHead, Toggle } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import "./metrics.css";
import { UserLink } from "../../shared/user-link.tsx";
import { usePageTitle } from "../../ui/page-title.ts";

const DailyChart = lazy(() =>
  import("./metrics-charts.tsx").then((module) => ({ default: module.DailyChart })),
);
const LoginMethodsChart = lazy(() =>
  import("./metrics-charts.tsx").then((module) => ({ default: module.LoginMethodsChart })),
);

const numberFormat = new Intl.NumberFormat("en");
const format = (value: number) => numberFormat.format(value);

/** A country's name from its ISO code, in English; the code itself where the browser does not know it. */
function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
}

function Stat(props: { label: string; value: number; testId: string; hint?: string }) {
  return (
    <div className="metrics-stat" data-testid={props.testId}>
      <div className="metrics-stat-label">{props.label}</div>
      <div className="metrics-stat-value" data-value={props.value}>
        {format(props.value)}
      </div>
      {props.hint ? <div className="muted small">{props.hint}</div> : null}
    </div>
  );
}

/** The figures behind a chart, for screen readers (and for checking the chart against the API). */
function DataTable(props: { caption: string; rows: [string, number][]; testId: string }) {
  return (
    <table className="metrics-sr-only" data-testid={props.testId}>
      <caption>{props.caption}</caption>
      <tbody>
        {props.rows.map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ChartCard(props: {
  title: string;
  description: string;
  points: MetricsDataPoint[];
  testId: string;
}) {
  const total = props.points.reduce((sum, point) => sum + point.activity, 0);
  return (
    <Card title={props.title} description={props.description} testId={`${props.testId}-card`}>
      <Suspense fallback={<Loading rows={5} />}>
        <DailyChart points={props.points} label={props.title} testId={props.testId} />
      </Suspense>
      <DataTable
        caption={`${props.title}, ${format(total)} over 31 days`}
        rows={props.points.map((point) => [point.date, point.activity])}
        testId={`${props.testId}-data`}
      />
    </Card>
  );
}

function UserList(props: {
  users: MetricsRecentUser[];
  testId: string;
  when: (user: MetricsRecentUser) => ReactNode;
}) {
  const { project } = useProjectContext();
  if (props.users.length === 0) return <p className="muted">Nobody yet.</p>;
  return (
    <div className="stack" data-testid={props.testId}>
      {props.users.map((user) => (
        <UserLink
          key={user.id}
          projectId={project.id}
          user={{
            id: user.id,
            name: user.display_name,
            email: user.primary_email,
            imageUrl: user.profile_image_url,
          }}
          detail={props.when(user)}
        />
      ))}
    </div>
  );
}

const when = (millis: number | null) => formatDate(millis === null ? null : new Date(millis));

function MetricsBody({ metrics }: { metrics: MetricsResponse }) {
  const auth = metrics.auth_overview;
  const today = metrics.daily_active_users.at(-1)?.activity ?? 0;
  const countries = Object.entries(metrics.users_by_country).sort(
    (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
  );
  const countryTotal = countries.reduce((sum, [, count]) => sum + count, 0);
  return (
    <>
      <div className="metrics-stats">
        <Stat label="Total users" value={metrics.total_users} testId="metric-total-users" />
        <Stat label="Active today" value={today} testId="metric-active-today" />
        <Stat label="Active in 31 days" value={auth.mau} testId="metric-mau" />
        <Stat label="Verified" value={auth.verified_users} testId="metric-verified" />
        <Stat label="Anonymous" value={auth.anonymous_users} testId="metric-anonymous" />
        <Stat label="Teams" value={auth.total_teams} testId="metric-teams" />
        <Stat label="Emails sent" value={metrics.email_overview.emails_sent} testId="metric-emails-sent" />
      </div>
      <div className="grid2">
        <ChartCard
          title="Daily sign-ups"
          description="New users per day, last 31 days (UTC)."
          points={metrics.daily_users}
          testId="daily-users-chart"
        />
        <ChartCard
          title="Daily active users"
          description="Users who refreshed a session that day."
          points={metrics.daily_active_users}
          testId="daily-active-chart"
        />
      </div>
      <div className="grid2">
        <Card
          title="Sign-in methods"
          description="Methods users have set up, by kind."
          testId="login-methods-card"
        >
          {metrics.login_methods.length === 0 ? (
            <p className="muted">No sign-in methods yet.</p>
          ) : (
            <Suspense fallback={<Loading rows={3} />}>
              <LoginMethodsChart methods={metrics.login_methods} />
            </Suspense>
          )}
          <DataTable
            caption="Sign-in methods"
            rows={metrics.login_methods.map((entry) => [entry.method, entry.count])}
            testId="login-methods-data"
          />
        </Card>
        <Card
          title="Users by country"
          description="Where active users last refreshed a session from, last 31 days."
          testId="countries-card"
          flush
        >
          {countries.length === 0 ? (
            <p className="muted card-body">No located activity yet.</p>
          ) : (
            <table className="table" data-testid="countries-table">
              <thead>
                <tr>
                  <th>Country</th>
                  <th className="metrics-number">Users</th>
                  <th className="metrics-share">Share</th>
                </tr>
              </thead>
              <tbody>
                {countries.map(([code, count]) => (
                  <tr key={code} data-country={code}>
                    <td>
                      {countryName(code)} <span className="muted mono">{code}</span>
                    </td>
                    <td className="metrics-number" data-value={count}>
                      {format(count)}
                    </td>
                    <td className="metrics-share">
                      <span className="metrics-bar" style={{ width: `${(count / countryTotal) * 100}%` }} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
      </div>
      <div className="grid2">
        <Card title="Recent sign-ups" description="The newest users.">
          <UserList
            users={metrics.recently_registered.slice(0, 8)}
            testId="metrics-recent-signups"
            when={(user) => `Signed up ${when(user.signed_up_at_millis)}`}
          />
        </Card>
        <Card title="Recently active" description="The users seen last.">
          <UserList
            users={metrics.recently_active}
            testId="metrics-recently-active"
            when={(user) => `Active ${when(user.last_active_at_millis)}`}
          />
        </Card>
      </div>
    </>
  );
}

export function MetricsPage() {
  const { app } = useProjectContext();
  usePageTitle("Metrics");
  const [includeAnonymous, setIncludeAnonymous] = useState(false);
  const state = useAsync(() => app.getMetrics({ includeAnonymous }), [app, includeAnonymous]);
  return (
    <>
      <PageHead
        title="Metrics"
        description="Sign-ups, activity and sign-in methods of the last 31 days."
        actions={
          <Toggle
            label="Include anonymous users"
            checked={includeAnonymous}
            onChange={setIncludeAnonymous}
            name="includeAnonymous"
          />
        }
      />
      <div className="metrics-page" data-testid="metrics-page">
        <AsyncBody state={state} rows={8}>
          {(metrics) => <MetricsBody metrics={metrics} />}
        </AsyncBody>
      </div>
    </>
  );
}
