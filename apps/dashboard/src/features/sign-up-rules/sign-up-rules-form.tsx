import type { SignUpRuleActionType } from "@gatehouse/js";
import { Button } from "@gatehouse/react/ui";
import { useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { Field, FormError } from "../../ui/components.tsx";
import { Checkbox, Select, TextAreaField, TextField } from "../../ui/fields.tsx";
import { useSubmit } from "../../ui/hooks.ts";
import { Modal } from "../../ui/modal.tsx";

/** A rule as the config holds it (`auth.signUpRules.<id>`), read with the server's defaults. */
export type SignUpRule = {
  id: string;
  enabled: boolean;
  displayName: string;
  priority: number;
  condition: string;
  action: { type: SignUpRuleActionType; message?: string };
};

export const ACTIONS: { type: SignUpRuleActionType; label: string; hint: string }[] = [
  { type: "reject", label: "Reject", hint: "The sign-up fails with SIGN_UP_REJECTED." },
  { type: "restrict", label: "Restrict", hint: "The account is made, restricted; later rules still run." },
  { type: "allow", label: "Allow", hint: "The sign-up goes through; later rules do not run." },
  { type: "log", label: "Log only", hint: "Counted in the triggers; later rules still run." },
];

export function actionLabel(type: SignUpRuleActionType): string {
  return ACTIONS.find((action) => action.type === type)?.label ?? type;
}

const RULE_ID = /^[A-Za-z0-9_:$-]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The rules of a rendered config, in the order the server evaluates them (priority, then id). */
export function readRules(config: Record<string, unknown>): SignUpRule[] {
  const auth = isRecord(config.auth) ? config.auth : {};
  const entries = isRecord(auth.signUpRules) ? auth.signUpRules : {};
  return Object.entries(entries)
    .map(([id, raw]): SignUpRule => {
      const entry = isRecord(raw) ? raw : {};
      const action = isRecord(entry.action) ? entry.action : {};
      const type = ACTIONS.some((a) => a.type === action.type)
        ? (action.type as SignUpRuleActionType)
        : "allow";
      return {
        id,
        enabled: entry.enabled === true,
        displayName: typeof entry.displayName === "string" ? entry.displayName : "",
        priority: typeof entry.priority === "number" && entry.priority >= 0 ? entry.priority : 0,
        condition: typeof entry.condition === "string" ? entry.condition : "",
        action: typeof action.message === "string" ? { type, message: action.message } : { type },
      };
    })
    .sort((a, b) => b.priority - a.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function readDefaultAction(config: Record<string, unknown>): "allow" | "reject" {
  const auth = isRecord(config.auth) ? config.auth : {};
  return auth.signUpRulesDefaultAction === "reject" ? "reject" : "allow";
}

/** The config entry of a rule, as the dashboard writes it: the whole entry, replacing what was there. */
export function ruleEntry(rule: SignUpRule) {
  return {
    enabled: rule.enabled,
    ...(rule.displayName ? { displayName: rule.displayName } : {}),
    priority: rule.priority,
    condition: rule.condition,
    action: { type: rule.action.type, ...(rule.action.message ? { message: rule.action.message } : {}) },
  };
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
}

/** Adds a rule (`rule` null) or edits one; saves the entry into the project's config. */
export function RuleFormModal(props: {
  rule: SignUpRule | null;
  existingIds: string[];
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const { project } = useProjectContext();
  const editing = props.rule;
  const [displayName, setDisplayName] = useState(editing?.displayName ?? "");
  const [id, setId] = useState(editing?.id ?? "");
  const [condition, setCondition] = useState(editing?.condition ?? "");
  const [action, setAction] = useState<SignUpRuleActionType>(editing?.action.type ?? "reject");
  const [message, setMessage] = useState(editing?.action.message ?? "");
  const [priority, setPriority] = useState(String(editing?.priority ?? 0));
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const { busy, error, run } = useSubmit();

  const ruleId = editing ? editing.id : id || slug(displayName);
  const idProblem = editing
    ? null
    : !ruleId
      ? "Give the rule a name or an id."
      : !RULE_ID.test(ruleId)
        ? "Letters, digits, -, _, : and $ only."
        : props.existingIds.includes(ruleId)
          ? "A rule with this id exists."
          : null;
  const priorityNumber = Number(priority);
  const priorityProblem =
    priority.trim() !== "" && Number.isInteger(priorityNumber) && priorityNumber >= 0
      ? null
      : "A whole number, 0 or more.";
  const conditionProblem = condition.trim() ? null : "Write the condition the sign-up must meet.";
  const invalid = Boolean(idProblem || priorityProblem || conditionProblem);

  const save = () =>
    run(async () => {
      const rule: SignUpRule = {
        id: ruleId,
        enabled,
        displayName: displayName.trim(),
        priority: priorityNumber,
        condition: condition.trim(),
        action: { type: action, ...(message.trim() ? { message: message.trim() } : {}) },
      };
      await project.updateConfig({ [`auth.signUpRules.${rule.id}`]: ruleEntry(rule) });
      await props.onSaved();
      props.onClose();
    });

  return (
    <Modal
      wide
      title={editing ? `Edit ${editing.displayName || editing.id}` : "Add a sign-up rule"}
      description="Rules run on every new account (password, email code, OAuth, and anonymous users signing up), highest priority first."
      onClose={() => !busy && props.onClose()}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose} disabled={busy}>
            Cancel
          </Button>
          <Button loading={busy} disabled={invalid} onClick={save}>
            {editing ? "Save rule" : "Add rule"}
          </Button>
        </>
      }
    >
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          if (!invalid) void save();
        }}
      >
        <div className="grid2">
          <TextField
            label="Name"
            hint="For you; shown in the user's restriction details."
            name="ruleDisplayName"
            value={displayName}
            onChange={setDisplayName}
          />
          {editing ? (
            <Field label="Rule id">
              <input type="text" name="ruleId" value={editing.id} readOnly />
            </Field>
          ) : (
            <Field label="Rule id" hint={`Saved as ${ruleId || "…"}`} error={idProblem}>
              <input
                type="text"
                name="ruleId"
                value={id}
                placeholder={slug(displayName) || "block-disposable-email"}
                onChange={(event) => setId(event.target.value.trim())}
              />
            </Field>
          )}
        </div>
        <TextAreaField
          label="Condition (CEL)"
          hint='Variables: email, emailDomain, countryCode, authMethod (password, otp, oauth, passkey), oauthProvider, riskScores.bot, riskScores.free_trial_abuse. E.g. emailDomain == "mailinator.com" || countryCode in ["XX"]'
          error={condition ? null : conditionProblem}
          name="ruleCondition"
          rows={3}
          spellCheck={false}
          value={condition}
          onChange={setCondition}
        />
        <div className="grid2">
          <Field label="Action" hint={ACTIONS.find((a) => a.type === action)?.hint}>
            <Select
              name="ruleAction"
              value={action}
              onChange={setAction}
              options={ACTIONS.map((option) => [option.type, option.label] as const)}
            />
          </Field>
          <TextField
            label="Priority"
            hint="Higher runs first; equal priorities run by id."
            error={priorityProblem}
            name="rulePriority"
            type="number"
            min={0}
            step={1}
            value={priority}
            onChange={setPriority}
          />
        </div>
        <TextField
          label="Message"
          hint="A note for you. People who are rejected see a generic message, so the rule cannot be worked around."
          name="ruleMessage"
          value={message}
          onChange={setMessage}
        />
        <Checkbox className="row" name="ruleEnabled" checked={enabled} onChange={setEnabled}>
          Enabled
        </Checkbox>
        <FormError error={error} />
        <button type="submit" hidden />
      </form>
    </Modal>
  );
}
