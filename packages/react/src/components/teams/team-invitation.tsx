import { useState } from "react";
import { useStrings } from "../../context.ts";
import { useGatehouseApp, useUser } from "../../hooks.ts";
import { PageBoundary } from "../../internal/boundary.tsx";
import { describeError } from "../../internal/errors.ts";
import { UsersIcon } from "../../internal/icons.tsx";
import { useOnce, useQueryParam } from "../../internal/once.ts";
import { appNavigate } from "../../internal/router.ts";
import { Alert, Button, CardHeader, CardPage, DoneCard } from "../../internal/ui.tsx";
import { useFormAction } from "../../internal/use-action.ts";
import { BadLinkCard } from "../password-pages.tsx";

/** The page of a team invitation e-mail: shows the team and lets the signed-in user join it. */
export function TeamInvitation({ code: givenCode }: { code?: string }) {
  const s = useStrings();
  const code = useQueryParam("code", givenCode);
  if (!code) return <BadLinkCard message={s.linkMissingCode} />;
  return (
    <PageBoundary>
      <Invitation code={code} />
    </PageBoundary>
  );
}

function Invitation({ code }: { code: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ includeRestricted: true });
  if (!user) {
    return (
      <CardPage>
        <CardHeader title={s.teamInvitationTitle} subtitle={s.invitationSignIn} icon={<UsersIcon />} />
        <div className="gh-stack-sm">
          <Button block onClick={() => app.redirectToSignIn()}>
            {s.signIn}
          </Button>
          <Button block variant="secondary" onClick={() => app.redirectToSignUp()}>
            {s.signUpLink}
          </Button>
        </div>
      </CardPage>
    );
  }
  return <AcceptInvitation code={code} userId={user.id} />;
}

function AcceptInvitation({ code, userId }: { code: string; userId: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const detailsKey = `team-invitation:${userId}:${code}`;
  const details = useOnce(detailsKey, () => app.getTeamInvitationDetails(code));
  const [joined, setJoined] = useState(false);
  const action = useFormAction();

  if (!details.ok) return <BadLinkCard message={describeError(details.error, s, { link: true }).message} />;
  if (details.value.status === "error" && !joined) {
    return <BadLinkCard message={describeError(details.value.error, s, { link: true }).message} />;
  }
  const teamName = details.value.status === "ok" ? details.value.data.teamDisplayName : "";
  if (joined) {
    return <DoneCard title={s.teamInvitationTitle} subtitle={s.joinedTeam(teamName)} continueHome />;
  }
  return (
    <CardPage>
      <CardHeader
        title={s.teamInvitationTitle}
        subtitle={s.teamInvitationQuestion(teamName)}
        icon={<UsersIcon />}
      />
      <div className="gh-stack">
        {action.error ? <Alert>{action.error}</Alert> : null}
        <div className="gh-stack-sm">
          <Button
            block
            loading={action.pending}
            onClick={() =>
              action.run(async () => {
                const result = await app.acceptTeamInvitation(code);
                if (result.status === "error") action.fail(result.error, { link: true });
                else setJoined(true);
              })
            }
          >
            {s.joinTeam}
          </Button>
          <Button
            block
            variant="secondary"
            disabled={action.pending}
            onClick={() => appNavigate(app, app.urls.home)}
          >
            {s.ignoreInvitation}
          </Button>
        </div>
      </div>
    </CardPage>
  );
}
