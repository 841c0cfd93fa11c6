import type { Team } from "@gatehouse/js";
import { type FormEvent, Suspense, useState } from "react";
import { useStrings } from "../../context.ts";
import {
  useGatehouseApp,
  usePermissions,
  useTeamInvitations,
  useTeamMembers,
  useTeams,
  useUser,
} from "../../hooks.ts";
import { PageBoundary, SectionBoundary } from "../../internal/boundary.tsx";
import { invalidateLists, preloadTeamLists } from "../../internal/caches.ts";
import { TextField } from "../../internal/fields.tsx";
import { appNavigate } from "../../internal/router.ts";
import { Alert, Avatar, Button, formatDate, Loading, Root, Section } from "../../internal/ui.tsx";
import { useAction, useFormAction, useSaveForm } from "../../internal/use-action.ts";
import { required, validateEmail } from "../../internal/validation.ts";
import { List, ListRow } from "../../ui/list.tsx";

export type TeamSettingsProps = {
  /** The team to manage; the user's selected team by default. */
  teamId?: string;
};

/** Settings of one of the user's teams: name, the user's profile in it, members, invitations, leave and delete. */
export function TeamSettings(props: TeamSettingsProps) {
  return (
    <PageBoundary>
      <Root>
        <div className="gh-page gh-page-wide">
          <div className="gh-settings-main" style={{ width: "100%", maxWidth: 720 }}>
            <TeamSettingsSections {...props} />
          </div>
        </div>
      </Root>
    </PageBoundary>
  );
}

export function TeamSettingsSections({ teamId }: TeamSettingsProps) {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ or: "redirect", includeRestricted: true });
  const teams = useTeams();
  const team = teams.find((candidate) => candidate.id === (teamId ?? user.selectedTeamId));
  if (!team) return <Alert tone="info">{s.teamNotFound}</Alert>;
  // Everything the sections read, started together.
  preloadTeamLists(app, user.id, team.id, ["teamPermissions", "teamUsers", "teamInvitations"]);
  return (
    <>
      <h1 className="gh-title">{s.teamSettingsOf(team.displayName)}</h1>
      <Suspense fallback={<Loading />}>
        <TeamSections team={team} />
      </Suspense>
    </>
  );
}

function TeamSections({ team }: { team: Team }) {
  const s = useStrings();
  const permissions = new Set(usePermissions(team).map((permission) => permission.id));
  return (
    <>
      {permissions.has("$update_team") ? <TeamNameSection team={team} /> : null}
      <TeamProfileSection team={team} />
      {permissions.has("$read_members") ? (
        <Section title={s.teamMembers}>
          <SectionBoundary fallback={<Loading />}>
            <MembersList team={team} />
          </SectionBoundary>
        </Section>
      ) : null}
      {permissions.has("$invite_members") ? (
        <Section title={s.inviteMember}>
          <InviteForm team={team} />
          <SectionBoundary fallback={<Loading />}>
            <InvitationsList team={team} />
          </SectionBoundary>
        </Section>
      ) : null}
      <LeaveOrDeleteSection team={team} canDelete={permissions.has("$delete_team")} />
    </>
  );
}

function TeamNameSection({ team }: { team: Team }) {
  const s = useStrings();
  const [name, setName] = useState(team.displayName);
  const [missing, setMissing] = useState<string>();
  const [saved, setSaved] = useState(false);
  const action = useFormAction();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const error = required(name, s);
    setMissing(error);
    setSaved(false);
    if (error) return action.reset();
    void action.run(async () => {
      await team.update({ displayName: name.trim() });
      setSaved(true);
    });
  };
  return (
    <Section title={s.teamGeneral}>
      <form className="gh-inline-form" onSubmit={onSubmit} noValidate>
        <TextField
          label={s.teamName}
          name="teamName"
          value={name}
          onValueChange={setName}
          error={missing ?? action.error}
        />
        <Button type="submit" loading={action.pending} style={{ marginTop: 25 }}>
          {saved && name === team.displayName ? s.saved : s.save}
        </Button>
      </form>
    </Section>
  );
}

function TeamProfileSection({ team }: { team: Team }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ or: "throw", includeRestricted: true });
  const members = useTeamMembers(team);
  const mine = members.find((member) => member.id === user.id);
  const [name, setName] = useState(mine?.teamProfile.displayName ?? user.displayName ?? "");
  const { action, saved, onSubmit } = useSaveForm(async () => {
    const profile = await user.getTeamProfile(team);
    await profile.update({ displayName: name.trim() });
    invalidateLists(app, "teamUsers");
  });
  return (
    <Section title={s.yourTeamProfile}>
      <form className="gh-inline-form" onSubmit={onSubmit} noValidate>
        <TextField
          label={s.teamDisplayName}
          name="teamDisplayName"
          value={name}
          onValueChange={setName}
          error={action.error}
        />
        <Button type="submit" loading={action.pending} style={{ marginTop: 25 }}>
          {saved ? s.saved : s.save}
        </Button>
      </form>
    </Section>
  );
}

function MembersList({ team }: { team: Team }) {
  const s = useStrings();
  const user = useUser({ or: "throw", includeRestricted: true });
  const members = useTeamMembers(team);
  return (
    <List label={s.teamMembers}>
      {members.map((member) => (
        <ListRow
          key={member.id}
          leading={
            <Avatar name={member.teamProfile.displayName} imageUrl={member.teamProfile.profileImageUrl} />
          }
          title={
            <>
              {member.teamProfile.displayName ?? s.unnamedMember}
              {member.id === user.id ? <span className="gh-badge">{s.you}</span> : null}
            </>
          }
        />
      ))}
    </List>
  );
}

function InviteForm({ team }: { team: Team }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const [email, setEmail] = useState("");
  const [invalid, setInvalid] = useState<string>();
  const [sentTo, setSentTo] = useState<string>();
  const action = useFormAction();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const error = validateEmail(email, s);
    setInvalid(error);
    setSentTo(undefined);
    if (error) return action.reset();
    void action.run(async () => {
      await team.inviteUser({ email: email.trim() });
      invalidateLists(app, "teamInvitations");
      setSentTo(email.trim());
      setEmail("");
    });
  };
  return (
    <form className="gh-stack-sm" onSubmit={onSubmit} noValidate>
      {sentTo ? <Alert tone="success">{s.invitationSent(sentTo)}</Alert> : null}
      <div className="gh-inline-form">
        <TextField
          label={s.inviteEmail}
          type="email"
          name="inviteEmail"
          placeholder={s.emailPlaceholder}
          value={email}
          onValueChange={setEmail}
          error={invalid ?? action.error}
        />
        <Button type="submit" loading={action.pending} style={{ marginTop: 25 }}>
          {s.sendInvitation}
        </Button>
      </div>
    </form>
  );
}

function InvitationsList({ team }: { team: Team }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const invitations = useTeamInvitations(team);
  const [run, pending] = useAction();
  return (
    <div className="gh-stack-sm">
      <h3 className="gh-subsection-title">{s.teamInvitations}</h3>
      {invitations.length === 0 ? (
        <p className="gh-empty">{s.noInvitations}</p>
      ) : (
        <List>
          {invitations.map((invitation) => (
            <ListRow
              key={invitation.id}
              title={invitation.recipientEmail}
              meta={s.invitationExpires(formatDate(invitation.expiresAt))}
              actions={
                <Button
                  small
                  variant="secondary"
                  disabled={pending}
                  onClick={() =>
                    run(async () => {
                      await invitation.revoke();
                      invalidateLists(app, "teamInvitations");
                    })
                  }
                >
                  {s.revokeInvitation}
                </Button>
              }
            />
          ))}
        </List>
      )}
    </div>
  );
}

function LeaveOrDeleteSection({ team, canDelete }: { team: Team; canDelete: boolean }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ or: "throw", includeRestricted: true });
  const action = useFormAction();
  const act = (change: () => Promise<void>) =>
    action.run(async () => {
      await change();
      appNavigate(app, app.urls.accountSettings);
    });
  return (
    <Section
      title={canDelete ? s.leaveOrDeleteTeam : s.leaveTeamTitle}
      description={canDelete ? s.deleteTeamDescription : undefined}
      danger
    >
      {action.error ? <Alert>{action.error}</Alert> : null}
      <div className="gh-row-actions">
        <Button
          variant="danger-outline"
          disabled={action.pending}
          onClick={() => {
            if (window.confirm(s.leaveTeamConfirm(team.displayName))) void act(() => user.leaveTeam(team));
          }}
        >
          {s.leaveTeam}
        </Button>
        {canDelete ? (
          <Button
            variant="danger"
            disabled={action.pending}
            onClick={() => {
              if (window.confirm(s.deleteTeamDescription)) void act(() => team.delete());
            }}
          >
            {s.deleteTeam}
          </Button>
        ) : null}
      </div>
    </Section>
  );
}
