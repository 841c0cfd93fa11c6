import { Avatar, avatarColor, Button, formatDate, Pager } from "@gatehouse/react/ui";
import { useCallback, useEffect, useMemo, useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, navigate, useLocation } from "../../router.tsx";
import { providerName } from "../../shared/oauth-provider-names.ts";
import { AsyncCard } from "../../ui/async.tsx";
import { Badge, Empty, PageHead, rowClick, SortHeader, Table } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { CreateUserModal } from "./create-user-modal.tsx";
import { BulkActions, ExportButton, FilterSelect } from "./users-toolbar.tsx";
import "./users.css";
import { TextInput } from "../../ui/fields.tsx";
import { UserStatus } from "./user-status.tsx";
import {
  AUTH_METHOD_LABELS,
  AUTH_METHODS,
  hasFilters,
  listUsersPage,
  PAGE_SIZE,
  searchOfView,
  signInMethods,
  type UsersView,
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
            <Button onClick={() => setCreating(true)}>
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
              <TextInput
                type="search"
                name="search"
                aria-label="Search users"
                placeholder="Search by name, email or user ID"
                value={query}
                onChange={setQuery}
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
                {total === undefined
                  ? "\u00a0"
                  : `${users.data?.totalIsEstimate ? "about " : ""}${total} ${total === 1 ? "user" : "users"}`}
                {hasFilters(view) && total !== undefined
                  ? ` ${total === 1 ? "matches" : "match"} these filters`
                  : ""}
              </span>
              {hasFilters(view) ? (
                <Button
                  small
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
          <Pager
            page={view.cursors.length + 1}
            pageCount={pageCount}
            onPrevious={
              view.cursors.length > 0 ? () => setView({ cursors: view.cursors.slice(0, -1) }) : null
            }
            onNext={
              users.data?.nextCursor
                ? () => setView({ cursors: [...view.cursors, users.data!.nextCursor!] })
                : null
            }
          />
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
                          color={avatarColor(user.id)}
                          imageUrl={user.profileImageUrl}
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
