import type { GatehouseClientApp } from "@gatehouse/js";
import { createContext, useContext } from "react";
import { defaultStrings, type GatehouseStrings } from "./strings.ts";

export type GatehouseTheme = "light" | "dark" | "system";

export type GatehouseContextValue = {
  app: GatehouseClientApp;
  theme: GatehouseTheme;
  strings: GatehouseStrings;
};

export const GatehouseContext = createContext<GatehouseContextValue | null>(null);

export function useGatehouseContext(): GatehouseContextValue {
  const value = useContext(GatehouseContext);
  if (value === null) {
    throw new Error("Gatehouse components and hooks must be used inside <GatehouseProvider app={...}>.");
  }
  return value;
}

/** The texts of the nearest provider (the defaults outside one, so that error screens still render). */
export function useStrings(): GatehouseStrings {
  return useContext(GatehouseContext)?.strings ?? defaultStrings;
}
