/**
 * Ties a response schema to its type in @gatehouse/shared's wire contract, so that a schema (and so what the
 * router lets through) cannot drift from what the SDK reads without failing the typecheck.
 */
import type { z } from "zod";

/** True when A and B are the same type (not merely assignable either way: an extra optional field counts). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Flattens intersections and mapped types into one object type, so that equal shapes compare equal. */
type Flat<T> = T extends (infer U)[]
  ? Flat<U>[]
  : T extends object
    ? T extends (...args: never[]) => unknown
      ? T
      : { [K in keyof T]: Flat<T[K]> }
    : T;

type Mismatch<W> = { "the schema's output differs from its wire type": W };

/**
 * `wire<WireUser>()(z.object({...}))` returns the schema unchanged and fails to compile when the schema's output is
 * not exactly `W`. Curried because TypeScript cannot take `W` explicitly and infer the schema's type in one call.
 */
export function wire<W>() {
  return <S extends z.ZodType>(
    schema: S & (Same<Flat<z.output<S>>, Flat<W>> extends true ? unknown : Mismatch<W>),
  ): S => schema;
}

/** For shapes whose schema passes unknown fields through: the output needs only to fit the wire type. */
export function wireFit<W>() {
  return <S extends z.ZodType>(schema: S & (z.output<S> extends W ? unknown : Mismatch<W>)): S => schema;
}

/** True when every field of W is one the schema takes, and W's values are ones it accepts. */
type Accepts<Input, W> = [Exclude<keyof W, keyof Input>] extends [never]
  ? [W] extends [Input]
    ? true
    : false
  : false;

/**
 * For request bodies: fails to compile unless every body of the wire type `W` (what @gatehouse/js sends) is one the
 * schema's input takes, field names included. The schema may take more (older SDKs' fields, stricter values).
 */
export function wireRequest<W>() {
  return <S extends z.ZodType>(
    schema: S & (Accepts<z.input<S>, W> extends true ? unknown : Mismatch<W>),
  ): S => schema;
}
