import { isKnownError } from "@gatehouse/js";
import { type FormEvent, useState } from "react";
import { dashboardApp } from "../gatehouse.ts";
import { Link, navigate } from "../router.tsx";
import { Button, Card, Field } from "../ui/components.tsx";
import { errorMessage } from "../ui/hooks.ts";
import { BrandMark } from "../ui/icons.tsx";

function AuthCard(props: { title: string; subtitle: string; children: React.ReactNode }) {
  return (
    <div className="auth-page">
      <div className="auth-card">
        <Card>
          <div className="auth-title">
            <BrandMark size={40} />
            <h1>{props.title}</h1>
            <p className="muted">{props.subtitle}</p>
          </div>
          {props.children}
        </Card>
      </div>
    </div>
  );
}

/** Email and password sign-in or sign-up for dashboard users (the `internal` project). */
export function PasswordAuthPage({ mode }: { mode: "sign-in" | "sign-up" }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signUp = mode === "sign-up";

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const result = signUp
        ? await dashboardApp.signUpWithCredential({ email, password, noRedirect: true })
        : await dashboardApp.signInWithCredential({ email, password, noRedirect: true });
      if (result.status === "error") {
        setError(
          isKnownError(result.error, "EMAIL_PASSWORD_MISMATCH")
            ? "Wrong email or password."
            : errorMessage(result.error),
        );
        return;
      }
      const returnTo = new URLSearchParams(window.location.search).get("after_auth_return_to");
      navigate(returnTo?.startsWith("/") && !returnTo.startsWith("//") ? returnTo : "/", { replace: true });
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard
      title={signUp ? "Create your account" : "Sign in to Gatehouse"}
      subtitle={signUp ? "Start managing authentication for your apps." : "Welcome back."}
    >
      <form className="stack" onSubmit={submit} style={{ gap: 14 }}>
        <Field label="Email">
          <input
            type="email"
            name="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </Field>
        <Field label="Password">
          <input
            type="password"
            name="password"
            autoComplete={signUp ? "new-password" : "current-password"}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        {error ? (
          <div className="alert danger" role="alert">
            {error}
          </div>
        ) : null}
        <Button type="submit" variant="primary" className="block" loading={busy}>
          {signUp ? "Create account" : "Sign in"}
        </Button>
        <p className="muted small" style={{ textAlign: "center" }}>
          {signUp ? "Already have an account? " : "New to Gatehouse? "}
          <Link to={signUp ? "/handler/sign-in" : "/handler/sign-up"}>
            {signUp ? "Sign in" : "Create an account"}
          </Link>
        </p>
      </form>
    </AuthCard>
  );
}

export function SignOutPage() {
  return (
    <AuthCard title="Signing out…" subtitle="See you soon.">
      <Button
        onClick={async () => {
          await dashboardApp.signOut({ redirectUrl: "/handler/sign-in" });
        }}
      >
        Sign out
      </Button>
    </AuthCard>
  );
}
