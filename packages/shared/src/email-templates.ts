/**
 * The built-in email templates' fixed ids (PROTOCOL-EXTRA §1.1), by the legacy type the reference's older template
 * API named them with. The server ships these templates; the SDK reads a template's legacy `type` from its id.
 */
export const BUILT_IN_EMAIL_TEMPLATE_IDS = {
  email_verification: "e7d009ce-8d47-4528-b245-5bf119f2ffa3",
  password_reset: "a70fb3a4-56c1-4e42-af25-49d25603abd0",
  magic_link: "822687fe-8d0a-4467-a0d1-416b6e639478",
  team_invitation: "e84de395-2076-4831-9c19-8e9a96a868e4",
  sign_in_invitation: "066dd73c-36da-4fd0-b6d6-ebf87683f8bc",
  payment_receipt: "70372aee-0441-4d80-974c-2e858e40123a",
  payment_failed: "f64b1afe-27ec-4a28-a277-7178f3261f9a",
} as const;

/** A legacy email template type: `email_verification`, `password_reset`, … */
export type EmailTemplateType = keyof typeof BUILT_IN_EMAIL_TEMPLATE_IDS;
