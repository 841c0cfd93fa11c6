import type { SignUpAuthMethod, SignUpRuleEvaluationStatus, SignUpRulesTestResult } from "@gatehouse/js";
import { Button } from "@gatehouse/react/ui";
import { useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { Badge, Card, Field, Table } from "../../ui/components.tsx";
import { Select, TextField, useFieldState } from "../../ui/fields.tsx";
import { errorMessage } from "../../ui/hooks.ts";
import { actionLabel, type SignUpRule } from "./sign-up-rules-form.tsx";

const AUTH_METHODS: { value: SignUpAuthMethod; label: string }[] = [
  { value: "password", label: "Password" },
  { value: "otp", label: "Email code or magic link" },
  { value: "oauth", label: "OAuth" },
  { value: "passkey", label: "Passkey" },
];

const STATUS_WORDS: Record<
  SignUpRuleEvaluationStatus | "not_reached",
  { text: string; tone?: "success" | "danger" | "warning" }
> = {
  matched: { text: "Matched", tone: "success" },
  not_matched: { text: "No match" },
  disabled: { text: "Disabled" },
  missing_condition: { text: "No condition", tone: "warning" },
  error: { text: "Error", tone: "danger" },
  not_reached: { text: "Not reached" },
};

function outcomeWords(result: SignUpRulesTestResult, rules: SignUpRule[]): string {
  const name = (id: string | null) => {
    const rule = rules.find((r) => r.id === id);
    return rule?.displayName || id || "";
  };
  const { outcome } = result;
  const restricted = outcome.restricted_because_of_rule_id
    ? `, restricted by “${name(outcome.restricted_because_of_rule_id)}”`
    : "";
  switch (outcome.decision) {
    case "allow":
      return `Allowed by “${name(outcome.decision_rule_id)}”${restricted}`;
    case "reject":
      return `Rejected by “${name(outcome.decision_rule_id)}”`;
    case "default-allow":
      return `Allowed by the default action${restricted}`;
    case "default-reject":
      return "Rejected by the default action";
  }
}

/** A sample sign-up evaluated against the saved rules (`POST /internal/sign-up-rules-test`; nothing is logged). */
export function SignUpRulesTester({ rules }: { rules: SignUpRule[] }) {
  const { app } = useProjectContext();
  const email = useFieldState("someone@example.com");
  const [authMethod, setAuthMethod] = useState<SignUpAuthMethod>("password");
  const [oauthProvider, setOauthProvider] = useState("github");
  const [countryCode, setCountryCode] = useState("");
  const [turnstileResult, setTurnstileResult] = useState<"ok" | "invalid" | "error">("ok");
  const [result, setResult] = useState<SignUpRulesTestResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(
        await app.testSignUpRules({
          email: email.value.trim() || null,
          authMethod,
          oauthProvider: authMethod === "oauth" ? oauthProvider.trim() || null : null,
          countryCode: countryCode.trim() || null,
          turnstileResult,
        }),
      );
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  const evaluated = new Map(
    (result?.evaluations ?? []).map((evaluation) => [evaluation.rule_id, evaluation]),
  );
  return (
    <Card
      title="Try a sign-up"
      description="Runs a sample sign-up through the saved rules. Nothing is logged and no account is made."
      testId="sign-up-rules-tester"
    >
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <div className="grid2">
          <TextField
            label="Email"
            hint="Leave empty for a sign-up without an address."
            name="testEmail"
            {...email}
          />
          <Field label="Sign-up method">
            <Select
              name="testAuthMethod"
              value={authMethod}
              onChange={setAuthMethod}
              options={AUTH_METHODS.map((method) => [method.value, method.label] as const)}
            />
          </Field>
          {authMethod === "oauth" ? (
            <TextField
              label="OAuth provider"
              name="testOauthProvider"
              value={oauthProvider}
              onChange={setOauthProvider}
            />
          ) : null}
          <TextField
            label="Country"
            hint="Two letters (US, DE…); empty: from your own address."
            name="testCountryCode"
            value={countryCode}
            maxLength={2}
            onChange={setCountryCode}
          />
          <Field
            label="Bot challenge"
            hint="Sign-ups on this server run no bot challenge yet; they score as passed."
          >
            <Select name="testTurnstileResult" value={turnstileResult} onChange={setTurnstileResult}>
              <option value="ok">Passed</option>
              <option value="invalid">Failed</option>
              <option value="error">Could not be checked</option>
            </Select>
          </Field>
        </div>
        <div className="row">
          <Button type="submit" loading={busy}>
            Test
          </Button>
        </div>
      </form>
      {error ? (
        <div className="alert danger" role="alert">
          {error}
        </div>
      ) : null}
      {result ? (
        <div className="stack" data-testid="sign-up-rules-test-result">
          <div
            className={`alert ${result.outcome.should_allow ? "success" : "danger"}`}
            data-testid="sign-up-rules-outcome"
            data-decision={result.outcome.decision}
          >
            {outcomeWords(result, rules)}
          </div>
          <p className="muted small">
            As evaluated: {result.context.email || "no email"}
            {result.context.country_code ? ` from ${result.context.country_code}` : ", country unknown"}, bot
            score {result.context.risk_scores.bot}, free-trial abuse score{" "}
            {result.context.risk_scores.free_trial_abuse}.
          </p>
          <Table testId="sign-up-rules-test-table">
            <thead>
              <tr>
                <th>Rule</th>
                <th>Action</th>
                <th>Result</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((rule) => {
                const evaluation = evaluated.get(rule.id);
                const status = STATUS_WORDS[evaluation?.status ?? "not_reached"];
                return (
                  <tr key={rule.id} data-rule-id={rule.id} data-status={evaluation?.status ?? "not_reached"}>
                    <td>
                      <strong>{rule.displayName || rule.id}</strong>
                      {evaluation?.error ? <div className="small field-error">{evaluation.error}</div> : null}
                    </td>
                    <td>{actionLabel(rule.action.type)}</td>
                    <td>
                      <Badge tone={status.tone}>{status.text}</Badge>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        </div>
      ) : null}
    </Card>
  );
}
