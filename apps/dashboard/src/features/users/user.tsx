import type { ServerUser } from "@gatehouse/js";
import { Avatar, avatarColor, formatDate, LabelValues } from "@gatehouse/react/ui";
import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, navigate } from "../../router.tsx";
import { providerName } from "../../shared/oauth-provider-names.ts";
import { DetailPage } from "../../ui/async.tsx";
import { ActionButton, Badge, Card, PageHead } from "../../ui/components.tsx";
import { TextField, useFieldState } from "../../ui/fields.tsx";
import { MetadataCard } from "../../ui/metadata-card.tsx";
import { ConfirmButton } from "../../ui/modal.tsx";
import { PageTitle, usePageTitle } from "../../ui/page-title.ts";
import { Impersonate } from "./user-impersonate.tsx";
import { UserActivity } from "./user-sections.tsx";
import { UserStatus } from "./user-status.tsx";

/** Keyed by user so that moving from one user to another starts every card (and its loaded lists) afresh. */
export function UserPage({ userId }: { userId: string }) {
  return <UserPageContent key={userId} userId={userId} />;
}

function UserPageContent({ userId }: { userId: string }) {
  const { app, project } = useProjectContext();
  usePageTitle("User");
  const crumb = <Link to={projectPath(project.id, "users")}>← Users</Link>;
  return (
    <DetailPage noun="user" load={() => app.getUser(userId)} deps={[app, userId]} crumb={crumb}>
      {(u, reload) => (
        <>
          <PageTitle parts={[u.displayName ?? u.primaryEmail ?? "Anonymous user", "Users"]} />
          <PageHead
            crumb={crumb}
            title={
              <span className="row" style={{ gap: 14 }}>
                <Avatar
                  large
                  name={u.displayName ?? u.primaryEmail}
                  color={avatarColor(u.id)}
                  imageUrl={u.profileImageUrl}
                />
                <span>
                  {u.displayName ?? u.primaryEmail ?? "Anonymous user"}
                  <div className="muted small mono" style={{ fontWeight: 400 }}>
                    {u.id}
                  </div>
                </span>
              </span>
            }
            actions={
              <>
                <UserStatus user={u} />
                <Impersonate user={u} />
              </>
            }
          />
          <div className="grid2">
            <ProfileCard user={u} reload={reload} />
            <DangerCard user={u} reload={reload} />
          </div>
          <MetadataCard
            owner="user"
            value={u}
            save={async (update) => {
              await u.update(update);
              await reload();
            }}
          />
          <UserActivity user={u} />
        </>
      )}
    </DetailPage>
  );
}

function ProfileCard({ user, reload }: { user: ServerUser; reload: () => Promise<void> }) {
  const [displayName, setDisplayName] = useState(user.displayName ?? "");
  const [email, setEmail] = useState(user.primaryEmail ?? "");
  const dirty = displayName !== (user.displayName ?? "") || email !== (user.primaryEmail ?? "");
  return (
    <Card
      title="Profile"
      footer={
        <ActionButton
          disabled={!dirty}
          success="Profile saved"
          onClick={async () => {
            await user.update({
              displayName: displayName.trim() || null,
              primaryEmail: email.trim() || null,
            });
            await reload();
          }}
        >
          Save profile
        </ActionButton>
      }
    >
      <TextField label="Display name" name="displayName" value={displayName} onChange={setDisplayName} />
      <TextField label="Primary email" type="email" name="primaryEmail" value={email} onChange={setEmail} />
      <LabelValues
        rows={[
          {
            label: "Email verified",
            value: user.primaryEmailVerified ? (
              <Badge tone="success">Verified</Badge>
            ) : (
              <Badge>Not verified</Badge>
            ),
          },
          { label: "Signed up", value: formatDate(user.signedUpAt) },
          { label: "Last active", value: formatDate(user.lastActiveAt) },
          {
            label: "Sign-in methods",
            value: (
              <>
                {user.hasPassword ? <Badge>Password</Badge> : null}
                {user.otpAuthEnabled ? <Badge>Magic link / OTP</Badge> : null}
                {user.passkeyAuthEnabled ? <Badge>Passkey</Badge> : null}
                {user.isMultiFactorRequired ? <Badge tone="accent">MFA</Badge> : null}
                {user.oauthProviders.map((provider) => (
                  <Badge key={provider.id}>{providerName(provider.id)}</Badge>
                ))}
                {!user.hasPassword &&
                !user.otpAuthEnabled &&
                !user.passkeyAuthEnabled &&
                !user.oauthProviders.length ? (
                  <span className="muted">None yet</span>
                ) : null}
              </>
            ),
            className: "row",
          },
        ]}
      />
    </Card>
  );
}

function DangerCard({ user, reload }: { user: ServerUser; reload: () => Promise<void> }) {
  const { project } = useProjectContext();
  const reason = useFieldState(user.restrictedByAdminReason ?? "");
  return (
    <Card title="Access" description="Restrict a user to block their sign-ins, or delete them for good.">
      {user.restrictedByAdmin ? (
        <div className="alert danger">
          Restricted{user.restrictedByAdminReason ? `: ${user.restrictedByAdminReason}` : ""}
        </div>
      ) : null}
      <TextField label="Reason shown to the user" hint="Optional." name="restrictReason" {...reason} />
      <div className="row">
        {user.restrictedByAdmin ? (
          <ActionButton
            variant="secondary"
            success="User unrestricted"
            onClick={async () => {
              await user.update({ restrictedByAdmin: false, restrictedByAdminReason: null });
              await reload();
            }}
          >
            Lift restriction
          </ActionButton>
        ) : (
          <ConfirmButton
            label="Restrict user"
            title="Restrict this user?"
            description="They stay signed up but are treated as restricted until you lift it."
            confirmLabel="Restrict"
            success="User restricted"
            onConfirm={async () => {
              await user.update({
                restrictedByAdmin: true,
                restrictedByAdminReason: reason.value.trim() || null,
              });
              await reload();
            }}
          />
        )}
        <ConfirmButton
          label="Delete user"
          title="Delete this user?"
          description="Their sessions, contact channels, memberships and data are removed. This cannot be undone."
          success="User deleted"
          onConfirm={async () => {
            await user.delete();
            navigate(projectPath(project.id, "users"));
          }}
        />
      </div>
    </Card>
  );
}
