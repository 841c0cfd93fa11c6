/**
 * The entry of every compiled email (compile.ts): it runs inside the sandbox, so it is kept as source text. It
 * defines `globalThis.__gatehouseRender(inputJson)`, which renders the template inside the theme and returns
 * `{html, subject?, notificationCategory?}` as JSON.
 *
 * The template's own component is called directly (not through React), so that the `<Subject>` and
 * `<NotificationCategory>` markers can be found by walking the element tree it returns (PROTOCOL-EXTRA §1.2).
 * A component that suspends (React Email's `<Tailwind>` loads its compiler asynchronously) makes the render throw;
 * the sandbox then runs the pending promise jobs and calls the function again, which then finds the work done.
 */
export const SANDBOX_DRIVER_SOURCE = `
import "gatehouse:ark-config";
import * as React from "react";
import { renderToStaticMarkup } from "react-dom/server.browser";
import * as templateModule from "gatehouse:template";
import * as themeModule from "gatehouse:theme";

const DOCTYPE =
  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">';
const CATEGORIES = ["Transactional", "Marketing"];

function isArkErrors(value) {
  return value !== null && typeof value === "object" && value[" arkKind"] === "errors";
}

function collectMarkers(node, found, depth) {
  if (depth > 200 || node === null || node === undefined || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const child of node) collectMarkers(child, found, depth + 1);
    return;
  }
  if (!React.isValidElement(node)) return;
  const marker = node.type && node.type.__gatehouseMarker;
  if (marker === "subject" || marker === "notificationCategory") found[marker].push(node.props.value);
  collectMarkers(node.props.children, found, depth + 1);
}

function single(values, name) {
  if (values.length > 1) throw new Error("The template renders " + values.length + " <" + name + "> elements; it may render only one.");
  if (values.length === 0) return undefined;
  if (typeof values[0] !== "string") throw new Error("The value of <" + name + "> must be a string.");
  return values[0];
}

globalThis.__gatehouseRender = function (inputJson) {
  const input = JSON.parse(inputJson);
  const EmailTemplate = templateModule.EmailTemplate;
  if (typeof EmailTemplate !== "function") throw new Error("The template must export a function component named EmailTemplate.");
  const EmailTheme = themeModule.EmailTheme;
  if (typeof EmailTheme !== "function") throw new Error("The theme must export a function component named EmailTheme.");

  let variables = input.variables || {};
  const previewVariables = EmailTemplate.PreviewVariables;
  if (input.preview && previewVariables && typeof previewVariables === "object") variables = { ...previewVariables, ...variables };
  const schema = templateModule.variablesSchema;
  if (schema !== undefined) {
    if (typeof schema !== "function") throw new Error("variablesSchema must be an arktype type or a function.");
    const checked = schema(variables);
    if (isArkErrors(checked)) throw new Error("The variables do not match variablesSchema: " + checked.summary);
    if (checked instanceof Error) throw checked;
    variables = checked;
  }

  const content = EmailTemplate({ user: input.user, project: input.project, variables });
  const found = { subject: [], notificationCategory: [] };
  collectMarkers(content, found, 0);
  const subject = single(found.subject, "Subject");
  const notificationCategory = single(found.notificationCategory, "NotificationCategory");
  if (notificationCategory !== undefined && !CATEGORIES.includes(notificationCategory)) {
    throw new Error('<NotificationCategory> must be "Transactional" or "Marketing", not "' + notificationCategory + '".');
  }

  let themeProps = { unsubscribeLink: input.unsubscribeLink, projectLogos: input.projectLogos || {} };
  const previewProps = EmailTheme.PreviewProps;
  if (input.preview && previewProps && typeof previewProps === "object") themeProps = { ...themeProps, ...previewProps };
  const html = renderToStaticMarkup(React.createElement(EmailTheme, themeProps, content));
  return JSON.stringify({ html: DOCTYPE + html, subject, notificationCategory });
};
`;

/** Runs before any owner module: arktype reads its config when it is first imported (PROTOCOL-EXTRA §1.2). */
export const ARK_CONFIG_SOURCE = `
import { configure } from "arktype/config";
configure({ onUndeclaredKey: "delete" });
`;
