import { navigate, useGatehouseApp, useProject, useUser } from "@gatehouse/react";
import type { ReactNode } from "react";

function HeroButton(props: { secondary?: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      className={props.secondary ? "demo-button demo-button-secondary" : "demo-button"}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}

export function HomePage() {
  const app = useGatehouseApp();
  const user = useUser();
  const project = useProject();
  return (
    <main className="demo-main">
      <section className="demo-hero">
        <p className="demo-eyebrow">{project.displayName}</p>
        {user ? (
          <>
            <h1 data-testid="welcome">Welcome back, {user.displayName ?? user.primaryEmail}</h1>
            <p className="demo-lead">You are signed in. Your notes, teams and settings are one click away.</p>
            <div className="demo-actions">
              <HeroButton onClick={() => navigate("/protected")}>Open your notes</HeroButton>
              <HeroButton secondary onClick={() => app.redirectToAccountSettings()}>
                Account settings
              </HeroButton>
            </div>
          </>
        ) : (
          <>
            <h1 data-testid="welcome">Notes for teams that move fast</h1>
            <p className="demo-lead">
              This demo app signs users in with Gatehouse: passwords, e-mail codes, passkeys, OAuth and teams.
            </p>
            <div className="demo-actions">
              <HeroButton onClick={() => app.redirectToSignUp()}>Create an account</HeroButton>
              <HeroButton secondary onClick={() => app.redirectToSignIn()}>
                Sign in
              </HeroButton>
            </div>
          </>
        )}
      </section>
      <section className="demo-features" aria-label="Features">
        <article>
          <h2>Sign in your way</h2>
          <p>
            Password, a code by e-mail, a passkey or your GitHub account: whatever {project.displayName}{" "}
            enables.
          </p>
        </article>
        <article>
          <h2>Teams built in</h2>
          <p>Create a team, invite people by e-mail and switch between teams from the header.</p>
        </article>
        <article>
          <h2>Secure by default</h2>
          <p>Two-factor authentication, session management and API keys live in your account settings.</p>
        </article>
      </section>
    </main>
  );
}
