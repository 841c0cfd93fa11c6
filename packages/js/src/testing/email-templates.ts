/** An owner's email template (TSX source) greeting `variables.name`, with "Hello <name>" as its subject. */
export const GREETING_TEMPLATE = `import { Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";
import { type } from "arktype";
export const variablesSchema = type({ name: "string" });
export function EmailTemplate({ variables }: Props<typeof variablesSchema.infer>) {
  return (
    <>
      <Subject value={"Hello " + variables.name} />
      <NotificationCategory value="Transactional" />
      <Text>Greetings, {variables.name}</Text>
    </>
  );
}`;
