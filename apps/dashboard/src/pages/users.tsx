import type { ServerUser } from "@gatehouse/js";
import { type FormEvent, useEffect, useState } from "react";
import { projectPath, useProjectContext } from "../project-context.tsx";
import { navigate } from "../router.tsx";
import { AsyncCard } from "../ui/async.tsx";
import {
  Avatar,
  Badge,
  Button,
  Empty,
  Field,
  formatDate,
  Modal,
  PageHead,
  Table,
} from "../ui/components.tsx";
import { useAsync } from "../ui/hooks.ts";
import { Icon } from "../ui/icons.tsx";
import { useToast } from "../ui/toast.tsx";

const PAGE_SIZE = 25;

export function UserStatus({ user }: { user: ServerUser }) {
  if (user.isAnonymous) return <Badge>Anonymous</Badge>;
  if (user.restrictedByAdmin) return <Badge tone="danger">Restricted</Badge>;
  if (user.primaryEmail && !user.primaryEmailVerified) return <Badge tone="warning">Unverified</Badge>;
  return <Badge tone="success">Active</Badge>;
}

/** Users, a page at a time through the API's cursor (keyset paging stays fast however many users there are). */
export function UsersPage() {
  const { app, project } = useProjectContext();
  const [query, setQuery] = useState("");
  const [search, setSearch] = useState("");
  const [includeAnonymous, setIncludeAnonymous] = useState(false);
  const [desc, setDesc] = useState(true);
  // The cursors of the pages before this one; the first page has none.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [creating, setCreating] = useState(false);

  useEffect(() => {
    const timer = setTimeout(() => setSearch(query.trim()), 250);
    return () => clearTimeout(timer);
  }, [query]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new filter starts again at the first page
  useEffect(() => setCursors([undefined]), [search, includeAnonymous, desc]);

  const cursor = cursors[cursors.length - 1];
  const users = useAsync(
    () =>
      app.listUsers({
        limit: PAGE_SIZE,
        orderBy: "signedUpAt",
        desc,
        includeAnonymous,
        // Owners must see every account, including restricted ones, to manage them.
        includeRestricted: true,
        ...(search ? { query: search } : {}),
        ...(cursor ? { cursor } : {}),
      }),
    [app, search, includeAnonymous, desc, cursor],
  );

  return (
    <>
      <PageHead
        title="Users"
        description="Everyone who signed up to your app."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            <Icon name="plus" /> Create user
          </Button>
        }
      />
      <AsyncCard
        flush
        state={users}
        rows={6}
        toolbar={
          <div className="row" style={{ flex: 1 }}>
            <input
              type="search"
              name="search"
              placeholder="Search by name, email or user ID"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              style={{ maxWidth: 360 }}
            />
            <label className="checkbox">
              <input
                type="checkbox"
                name="includeAnonymous"
                checked={includeAnonymous}
                onChange={(e) => setIncludeAnonymous(e.target.checked)}
              />
              Include anonymous users
            </label>
          </div>
        }
        empty={
          <Empty icon={<Icon name="users" size={22} />} title={search ? "No matching users" : "No users yet"}>
            {search
              ? "Try another name, email or ID."
              : "Users appear here when they sign up to your app, or create one yourself."}
          </Empty>
        }
        footer={
          <>
            <span className="muted small pager-label">Page {cursors.length}</span>
            <Button size="sm" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous
            </Button>
            <Button
              size="sm"
              disabled={!users.data?.nextCursor}
              onClick={() => setCursors([...cursors, users.data!.nextCursor!])}
            >
              Next
            </Button>
          </>
        }
      >
        {(page) => (
          <Table testId="users-table">
            <thead>
              <tr>
                <th>User</th>
                <th>Status</th>
                <th className="th-sort" onClick={() => setDesc(!desc)} data-testid="sort-signed-up">
                  Signed up {desc ? "↓" : "↑"}
                </th>
                <th>Last active</th>
              </tr>
            </thead>
            <tbody style={{ opacity: users.loading ? 0.6 : 1 }}>
              {page.map((user) => (
                <tr
                  key={user.id}
                  className="clickable"
                  onClick={() => navigate(projectPath(project.id, `users/${user.id}`))}
                >
                  <td>
                    <div className="user-cell">
                      <Avatar
                        name={user.displayName ?? user.primaryEmail}
                        seed={user.id}
                        image={user.profileImageUrl}
                      />
                      <div>
                        <div className="name">
                          {user.displayName ?? user.primaryEmail ?? "Anonymous user"}
                        </div>
                        <div className="muted small">{user.primaryEmail ?? user.id}</div>
                      </div>
                    </div>
                  </td>
                  <td>
                    <UserStatus user={user} />
                  </td>
                  <td className="muted">{formatDate(user.signedUpAt)}</td>
                  <td className="muted">{formatDate(user.lastActiveAt)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </AsyncCard>
      {creating ? <CreateUserModal onClose={() => setCreating(false)} onCreated={users.reload} /> : null}
    </>
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
    setBusy(true);
    setError(null);
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
      setError(caught instanceof Error ? caught.message : String(caught));
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
