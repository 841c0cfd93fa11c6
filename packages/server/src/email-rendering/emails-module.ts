/**
 * The virtual module templates and themes import as `@stackframe/emails` (the protocol's name) or
 * `@gatehouse/emails`. Its source is bundled into every sandboxed render, so it is kept here as TSX text rather than
 * as a module of the server: it runs inside the sandbox, never in the server process.
 *
 * `Subject` and `NotificationCategory` render nothing; the sandbox driver finds them by walking the element tree the
 * template returns and recognises them by the `__gatehouseMarker` static below.
 */
export const EMAILS_MODULE_SOURCE = `
import * as React from "react";
import { Img } from "@react-email/components";

export function Subject(_props: { value: string }) {
  return null;
}
Subject.__gatehouseMarker = "subject";

export function NotificationCategory(_props: { value: "Transactional" | "Marketing" }) {
  return null;
}
NotificationCategory.__gatehouseMarker = "notificationCategory";

export type ProjectLogos = {
  logoUrl?: string;
  logoFullUrl?: string;
  logoDarkModeUrl?: string;
  logoFullDarkModeUrl?: string;
};

export type Props<V = Record<string, unknown>> = {
  variables: V;
  user: { displayName: string | null };
  project: { displayName: string };
};

export type ThemeProps = {
  children?: React.ReactNode;
  unsubscribeLink?: string;
  projectLogos: ProjectLogos;
};

export function Logo(props: { logoUrl?: string; alt?: string }) {
  if (!props.logoUrl) return null;
  return <Img src={props.logoUrl} alt={props.alt ?? "Logo"} height="32" style={{ display: "block", height: "32px" }} />;
}

export function FullLogo(props: { logoFullUrl?: string; alt?: string }) {
  if (!props.logoFullUrl) return null;
  return <Img src={props.logoFullUrl} alt={props.alt ?? "Logo"} height="32" style={{ display: "block", height: "32px" }} />;
}

/** Dark mode prefers the full dark logo, then the dark logo; light mode the full logo, then the plain one. */
export function ProjectLogo(props: { data?: ProjectLogos; mode?: "light" | "dark" }) {
  const data = props.data ?? {};
  if (props.mode === "dark") {
    if (data.logoFullDarkModeUrl) return <FullLogo logoFullUrl={data.logoFullDarkModeUrl} />;
    if (data.logoDarkModeUrl) return <Logo logoUrl={data.logoDarkModeUrl} />;
    return null;
  }
  if (data.logoFullUrl) return <FullLogo logoFullUrl={data.logoFullUrl} />;
  if (data.logoUrl) return <Logo logoUrl={data.logoUrl} />;
  return null;
}
`;
