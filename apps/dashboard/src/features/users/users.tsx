import type { ServerUser } from "@gatehouse/js";
import { type FormEvent, useCallback, useEffect, useMemo, useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, navigate, useLocation } from "../../router.tsx";
import { providerName } from "../../shared/oauth-provider-names.ts";
import { AsyncCard } from "../../ui/async.tsx";
import {
  Avatar,
  Badge,
  Button,
  ConfirmButton,
  Empty,
  Field,
  formatDate,
  Modal,
  PageHead,
  rowClick,
  SortHeader,
  Table,
} from "../../ui/components.tsx";
import { describeError, looksLikeEmail } from "../../ui/errors.ts";
import { errorMessage, useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { useToast } from "../../ui/toast.tsx";
import "./users.css";
import { UserStatus } from "./user-status.tsx";
import {
  AUTH_METHOD_LABELS,
  AUTH_METHODS,
  hasFilters,
  listAllUsers,
  listUsersPage,
  PAGE_SIZE,
  searchOfView,
  signInMethods,
  type UsersView,
  usersCsv,
  viewFromSearch,
} from "./users-api.ts";

/** Users, a page at a time through the API's cursor (keyset paging stays fast however many users there are). */
export function UsersPage() {
  const { app, project } = useProjectContext();
  usePageTitle("Users");
  const { search: urlSearch } = useLocation();
  const view = useMemo(() => viewFromSearch(urlSearch), [urlSearch]);
  const basePath = projectPath(project.id, "users");
  /** Changes the view in the URL; any change but paging starts again at the first page. */
  const setView = useCallback(
    (change: Partial<UsersView>, options: { replace?: boolean } = {}) => {
      const next = { ...view, cursors: [], ...change };
      navigate(`${basePath}${searchOfView(next)}`, options);
    },
    [view, basePath],
  );
  const [query, setQuery] = useState(view.query);
  const [creating, setCreating] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());

  useEffect(() => {
    if (query.trim() === view.query) return;
    const timer = setTimeout(() => setView({ query: query.trim() }, { replace: true }), 250);
    return () => clearTimeout(timer);
  }, [query, view.query, setView]);
  // Back and forward move through the URL: the search box follows it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a change of the URL's query resets the box
  useEffect(() => {
    if (query.trim() !== view.query) setQuery(view.query);
  }, [view.query]);

  const viewKey = searchOfView(view);
  const users = useAsync(() => listUsersPage(app, view), [app, viewKey]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page or filter starts a new selection
  useEffect(() => setSelected(new Set()), [viewKey]);

  const page = users.data?.items ?? [];
  const total = users.data?.total;
  const pageCount = total === undefined ? null : Math.max(1, Math.ceil(total / PAGE_SIZE));
  const sortBy = (column: UsersView["sort"]) =>
    setView({ sort: column, descending: view.sort === column ? !view.descending : true });
  const direction = (column: UsersView["sort"]) =>
    view.sort === column ? (view.descending ? "descending" : "ascending") : null;
  const allSelected = page.length > 0 && page.every((user) => selected.has(user.id));
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };

  return (
    <>
      <PageHead
        title="Users"
        description="Everyone who signed up to your app."
        actions={
          <>
            <ExportButton view={view} />
            <Button variant="primary" onClick={() => setCreating(true)}>
              <Icon name="plus" /> Create user
            </Button>
          </>
        }
      />
      <AsyncCard
        flush
        state={users}
        rows={6}
        isEmpty={(data) => data.items.length === 0}
        toolbar={
          <div className="stack users-toolbar">
            <div className="row users-filters" data-testid="user-filters">
              <input
                type="search"
                name="search"
                aria-label="Search users"
                placeholder="Search by name, email or user ID"
                value={query}
                onChange={(e) => setQuery(e.target.value)}
                className="users-search"
              />
              <FilterSelect
                label="Email"
                name="verified"
                value={view.verified}
                options={[
                  ["yes", "Verified"],
                  ["no", "Not verified"],
                ]}
                onChange={(verified) => setView({ verified })}
              />
              <FilterSelect
                label="Restricted"
                name="restricted"
                value={view.restricted}
                options={[
                  ["yes", "Restricted"],
                  ["no", "Not restricted"],
                ]}
                onChange={(restricted) => setView({ restricted })}
              />
              <FilterSelect
                label="Anonymous"
                name="anonymous"
                value={view.anonymous}
                anyLabel="Hidden"
                options={[
                  ["include", "Included"],
                  ["only", "Only anonymous"],
                ]}
                onChange={(anonymous) => setView({ anonymous })}
              />
              <FilterSelect
                label="Sign-in method"
                name="method"
                value={view.method}
                options={AUTH_METHODS.map((method) => [method, AUTH_METHOD_LABELS[method]] as const)}
                onChange={(method) => setView({ method })}
              />
              <FilterSelect
                label="MFA"
                name="mfa"
                value={view.mfa}
                options={[
                  ["yes", "On"],
                  ["no", "Off"],
                ]}
                onChange={(mfa) => setView({ mfa })}
              />
            </div>
            <div className="row users-summary">
              <span className="muted small" data-testid="users-total" aria-live="polite">
                {total === undefined ? "\u00a0" : `${total} ${total === 1 ? "user" : "users"}`}
                {hasFilters(view) && total !== undefined
                  ? ` ${total === 1 ? "matches" : "match"} these filters`
                  : ""}
              </span>
              {hasFilters(view) ? (
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => {
                    setQuery("");
                    setView({
                      query: "",
                      verified: null,
                      restricted: null,
                      anonymous: null,
                      method: null,
                      mfa: null,
                    });
                  }}
                >
                  Clear filters
                </Button>
              ) : null}
              {selected.size > 0 ? (
                <BulkActions
                  users={page.filter((user) => selected.has(user.id))}
                  onDone={async () => {
                    setSelected(new Set());
                    await users.reload();
                  }}
                />
              ) : null}
            </div>
          </div>
        }
        empty={
          <Empty
            icon={<Icon name="users" size={22} />}
            title={hasFilters(view) ? "No matching users" : "No users yet"}
          >
            {hasFilters(view)
              ? "Try another name, email or ID, or clear the filters."
              : "Users appear here when they sign up to your app, or create one yourself."}
          </Empty>
        }
        footer={
          <>
            <span className="muted small pager-label">
              Page {view.cursors.length + 1}
              {pageCount === null ? "" : ` of ${pageCount}`}
            </span>
            <Button
              size="sm"
              disabled={view.cursors.length === 0}
              onClick={() => setView({ cursors: view.cursors.slice(0, -1) })}
            >
              Previous
            </Button>
            <Button
              size="sm"
              disabled={!users.data?.nextCursor}
              onClick={() => setView({ cursors: [...view.cursors, users.data!.nextCursor!] })}
            >
              Next
            </Button>
          </>
        }
      >
        {(data) => (
          <Table testId="users-table">
            <thead>
              <tr>
                <th className="select-cell">
                  <input
                    type="checkbox"
                    aria-label="Select all users on this page"
                    checked={allSelected}
                    onChange={() =>
                      setSelected(allSelected ? new Set() : new Set(data.items.map((user) => user.id)))
                    }
                  />
                </th>
                <th>User</th>
                <th>Status</th>
                <th>Sign-in</th>
                <SortHeader
                  direction={direction("signed_up")}
                  onSort={() => sortBy("signed_up")}
                  testId="sort-signed-up"
                >
                  Signed up
                </SortHeader>
                <SortHeader
                  direction={direction("last_active")}
                  onSort={() => sortBy("last_active")}
                  testId="sort-last-active"
                >
                  Last active
                </SortHeader>
              </tr>
            </thead>
            <tbody style={{ opacity: users.loading ? 0.6 : 1 }}>
              {data.items.map((user) => {
                const to = projectPath(project.id, `users/${user.id}`);
                const name = user.displayName ?? user.primaryEmail ?? "Anonymous user";
                return (
                  <tr key={user.id} className="clickable" onClick={rowClick(to)}>
                    <td className="select-cell">
                      <input
                        type="checkbox"
                        aria-label={`Select ${name}`}
                        checked={selected.has(user.id)}
                        onChange={() => toggle(user.id)}
                      />
                    </td>
                    <td>
                      <div className="user-cell">
                        <Avatar
                          name={user.displayName ?? user.primaryEmail}
                          seed={user.id}
                          image={user.profileImageUrl}
                        />
                        <div>
                          <Link to={to} className="name row-link">
                            {name}
                          </Link>
                          <div className="muted small">{user.primaryEmail ?? user.id}</div>
                        </div>
                      </div>
                    </td>
                    <td>
                      <UserStatus user={user} />
                    </td>
                    <td className="muted methods-cell">
                      {signInMethods(user).map(methodName).join(", ") || "—"}
                      {user.isMultiFactorRequired ? (
                        <>
                          {" "}
                          <Badge tone="accent">MFA</Badge>
                        </>
                      ) : null}
                    </td>
                    <td className="muted">{formatDate(user.signedUpAt)}</td>
                    <td className="muted">{formatDate(user.lastActiveAt)}</td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        )}
      </AsyncCard>
      {creating ? <CreateUserModal onClose={() => setCreating(false)} onCreated={users.reload} /> : null}
    </>
  );
}

function methodName(method: string): string {
  if (method === "password") return "Password";
  if (method === "otp") return "Email code";
  if (method === "passkey") return "Passkey";
  return providerName(method);
}

function FilterSelect<T extends string>(props: {
  label: string;
  name: string;
  value: T | null;
  options: readonly (readonly [T, string])[];
  anyLabel?: string;
  onChange: (value: T | null) => void;
}) {
  return (
    <label className="filter-select">
      <span className="muted small">{props.label}</span>
      <select
        name={props.name}
        aria-label={props.label}
        value={props.value ?? ""}
        onChange={(e) => props.onChange(e.target.value ? (e.target.value as T) : null)}
      >
        <option value="">{props.anyLabel ?? "Any"}</option>
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Restrict or delete the selected users, each after a confirmation that says how many. */
function BulkActions({ users, onDone }: { users: ServerUser[]; onDone: () => Promise<void> }) {
  const count = `${users.length} ${users.length === 1 ? "user" : "users"}`;
  const runAll = async (action: (user: ServerUser) => Promise<unknown>) => {
    const results = await Promise.allSettled(users.map(action));
    await onDone();
    const failed = results.filter((result) => result.status === "rejected").length;
    if (failed > 0) throw new Error(`${failed} of ${users.length} could not be changed; the others were.`);
  };
  return (
    <div className="row bulk-actions" data-testid="bulk-actions">
      <span className="small">{count} selected</span>
      <ConfirmButton
        size="sm"
        variant="primary"
        label="Restrict"
        title={`Restrict ${count}?`}
        description="Restricted users cannot use your app until you lift the restriction on their page."
        confirmLabel={`Restrict ${count}`}
        success={`Restricted ${count}`}
        onConfirm={() => runAll((user) => user.update({ restrictedByAdmin: true }))}
      />
      <ConfirmButton
        size="sm"
        label="Delete"
        title={`Delete ${count}?`}
        description="Their accounts, sessions and team memberships are deleted for good."
        confirmLabel={`Delete ${count}`}
        success={`Deleted ${count}`}
        onConfirm={() => runAll((user) => user.delete())}
      />
    </div>
  );
}

/** The users of the current filter as a CSV file, all pages of them, read through the list API. */
function ExportButton({ view }: { view: UsersView }) {
  const { app, project } = useProjectContext();
  const toast = useToast();
  const [progress, setProgress] = useState<number | null>(null);
  const exportCsv = async () => {
    setProgress(0);
    try {
      const all = await listAllUsers(app, view, setProgress);
      const url = URL.createObjectURL(new Blob([usersCsv(all)], { type: "text/csv;charset=utf-8" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = `users-${project.id}-${new Date().toISOString().slice(0, 10)}.csv`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      toast.success(`Exported ${all.length} ${all.length === 1 ? "user" : "users"}`);
    } catch (caught) {
      toast.error(errorMessage(caught));
    } finally {
      setProgress(null);
    }
  };
  return (
    <Button onClick={exportCsv} loading={progress !== null}>
      {progress === null ? "Export CSV" : `Exporting… ${progress}`}
    </Button>
  );
}

function CreateUserModal(props: { onClose: () => void; onCreated: () => Promise<void> }) {
  const { app, project } = useProjectContext();
  const toast = useToast();
  const [email, setEmail] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [password, setPassword] = useState("");
  const [verified, setVerified] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (email.trim() && !looksLikeEmail(email.trim())) {
      setError("Enter a valid e-mail address, like name@example.com.");
      return;
    }
    setBusy(true);
    try {
      const user = await app.createUser({
        primaryEmail: email.trim() || null,
        primaryEmailVerified: verified,
        primaryEmailAuthEnabled: email.trim() !== "",
        ...(displayName.trim() ? { displayName: displayName.trim() } : {}),
        ...(password ? { password } : {}),
      });
      toast.success("User created");
      await props.onCreated();
      props.onClose();
      navigate(projectPath(project.id, `users/${user.id}`));
    } catch (caught) {
      const described = describeError(caught, {
        primary_email: "E-mail",
        display_name: "Display name",
        password: "Password",
      });
      setError(Object.values(described.fields)[0] ?? described.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title="Create user"
      description="The user can sign in with this email (and password, if you set one)."
      onClose={props.onClose}
    >
      <form className="stack" onSubmit={submit} style={{ gap: 14 }}>
        <Field label="Email">
          <input type="email" name="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Display name">
          <input
            type="text"
            name="displayName"
            value={displayName}
            onChange={(e) => setDisplayName(e.target.value)}
          />
        </Field>
        <Field label="Password" hint="Optional.">
          <input
            type="password"
            name="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <label className="checkbox">
          <input type="checkbox" checked={verified} onChange={(e) => setVerified(e.target.checked)} /> Email
          is verified
        </label>
        {error ? (
          <div className="alert danger" role="alert">
            {error}
          </div>
        ) : null}
        <div className="row end">
          <Button onClick={props.onClose}>Cancel</Button>
          <Button type="submit" variant="primary" loading={busy}>
            Create user
          </Button>
        </div>
      </form>
    </Modal>
  );
}
