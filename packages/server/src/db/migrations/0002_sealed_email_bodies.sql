ALTER TABLE "sent_emails" ADD COLUMN "body_encrypted" text;--> statement-breakpoint
-- Rows from before this migration hold their whole message, codes and links included, in the clear. Delivered and
-- failed ones keep only what the sent list shows: the body goes, and the sign-in code in a magic-link subject too.
-- Rows still waiting are left as they are: the worker sends them as an older version would have, then redacts them
-- (features/emails/worker.ts, legacyMessage).
UPDATE "sent_emails"
SET "subject" = regexp_replace("subject", 'Your code is \S+', 'Your code is [redacted]'),
  "html" = '[redacted]',
  "text" = '[redacted]'
WHERE "status" IN ('sent', 'failed');
