/**
 * The building blocks of the rendered-config schema (schema.ts and the sections it gathers from their own files):
 * strict sections filled with their defaults, record entries, and maps from id to entry. `null` means "no value
 * here" throughout (see schema.ts).
 */
import { z } from "zod";
import { isPlainObject } from "./json.ts";

/** Removes `null` entries of a plain object, so that null means "use the default" / "no such entry". */
export function dropNullEntries(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && item !== undefined) out[key] = item;
  }
  return out;
}

/** A strict object that is filled with its defaults when absent or null. */
export function section<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.preprocess(dropNullEntries, z.strictObject(shape)).prefault({});
}

/** A strict object used as a record entry (no default: the entry exists only when some level defines it). */
export function entry<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.preprocess(dropNullEntries, z.strictObject(shape));
}

/** A map from id to entry; empty by default; null entries are removed. */
export function record<Value extends z.ZodType>(key: z.ZodType<string, string>, value: Value) {
  return z.preprocess(dropNullEntries, z.record(key, value)).prefault({});
}
