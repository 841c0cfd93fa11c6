/**
 * The cost limit of a sign-up rule condition: an upper bound of the work one evaluation can do, worked out from
 * the parsed expression alone, so that a condition over the limit is refused when it is saved (and is an error,
 * never run, if one is stored anyway). The bound counts steps, not time, so it is the same on every machine.
 *
 * The parser's structural limits (cel.ts) keep an expression small, but a small expression can still loop: each
 * macro (`all`, `exists`, `exists_one`, `map`, `filter`) runs its body once per element, and nested macros
 * multiply (`email.split("").all(a, email.split("").all(b, ...))`), as do values that grow (`cel.bind(a, email +
 * email, cel.bind(b, a + a, ...))`). So the walk tracks, for every node, a bound of the steps its evaluation takes
 * and of its value's size: one number for a string's length, a list's or map's number of entries and, through
 * them, the size of any element (a list of strings is bounded by the longer of its length and its longest string).
 * A context string is at most `MAX_INPUT_LENGTH` characters; evaluation refuses a longer one (cel.ts).
 */
import type { ASTNode } from "@marcbachmann/cel-js";

/** The longest context string a condition runs on; an address is at most 254 characters. */
export const MAX_INPUT_LENGTH = 512;
/** About a few milliseconds of the interpreter's work. */
export const MAX_EVALUATION_STEPS = 100_000;
/** The largest string or list an evaluation may build. */
export const MAX_VALUE_SIZE = 100_000;

type Bound = { steps: number; size: number };
type Scope = ReadonlyMap<string, number>;
type Refusal = { reason: string; position: number };

const COMPREHENSIONS = new Set(["all", "exists", "exists_one", "map", "filter"]);
/** The sizes of the context variables (cel.ts's environment); `cel` is the namespace of `cel.bind`. */
const VARIABLE_SIZES: Record<string, number> = {
  email: MAX_INPUT_LENGTH,
  emailDomain: MAX_INPUT_LENGTH,
  countryCode: 2,
  authMethod: 8,
  oauthProvider: MAX_INPUT_LENGTH,
  riskScores: 3,
  cel: 1,
};

class OverLimit extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.reason);
  }
}

function isNode(value: unknown): value is ASTNode {
  return typeof value === "object" && value !== null && "op" in value && "args" in value;
}

function childrenOf(node: ASTNode): ASTNode[] {
  const args: unknown = node.args;
  if (!Array.isArray(args)) return isNode(args) ? [args] : [];
  return args.flat(2).filter(isNode);
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** The bound of a call: macros run their bodies per element, `cel.bind` names a value, split and join build. */
function callBound(node: ASTNode, scope: Scope): Bound | null {
  if (node.op !== "rcall") return null;
  const [name, receiver, args] = node.args as [string, ASTNode, ASTNode[]];
  const variable = args[0]?.op === "id" ? (args[0].args as string) : null;
  if (COMPREHENSIONS.has(name) && variable !== null) {
    const range = walk(receiver, scope);
    const inner = new Map(scope).set(variable, range.size);
    const bodies = args.slice(1).map((body) => walk(body, inner));
    const steps = 1 + range.steps + range.size * (1 + sum(bodies.map((body) => body.steps)));
    const size =
      name === "map" ? Math.max(range.size, bodies.at(-1)!.size) : name === "filter" ? range.size : 1;
    return { steps, size };
  }
  if (name === "bind" && receiver.op === "id" && receiver.args === "cel" && variable !== null) {
    const value = walk(args[1]!, scope);
    const body = walk(args[2]!, new Map(scope).set(variable, value.size));
    return { steps: 1 + value.steps + body.steps, size: body.size };
  }
  if (name === "split" || name === "join") {
    const parts = [receiver, ...args].map((part) => walk(part, scope));
    const [text, separator] = parts;
    const size =
      name === "split" ? text!.size + 1 : text!.size * (text!.size + (separator ? separator.size : 0));
    return { steps: 1 + sum(parts.map((part) => part.steps)) + size, size };
  }
  return null;
}

function walk(node: ASTNode, scope: Scope): Bound {
  const bound = nodeBound(node, scope);
  if (bound.steps > MAX_EVALUATION_STEPS) {
    throw new OverLimit({
      reason: `the condition could take more than ${MAX_EVALUATION_STEPS} evaluation steps (a loop over a long list or text, or loops inside loops)`,
      position: node.pos,
    });
  }
  if (bound.size > MAX_VALUE_SIZE) {
    throw new OverLimit({
      reason: `the condition could build a value of more than ${MAX_VALUE_SIZE} characters or items`,
      position: node.pos,
    });
  }
  return bound;
}

function nodeBound(node: ASTNode, scope: Scope): Bound {
  if (node.op === "value") {
    const value: unknown = node.args;
    return { steps: 1, size: typeof value === "string" || value instanceof Uint8Array ? value.length : 1 };
  }
  if (node.op === "id") {
    const name = node.args as string;
    return { steps: 1, size: scope.get(name) ?? VARIABLE_SIZES[name] ?? MAX_INPUT_LENGTH };
  }
  const call = callBound(node, scope);
  if (call) return call;
  const children = childrenOf(node).map((child) => walk(child, scope));
  const steps = 1 + sum(children.map((child) => child.steps));
  const sizes = children.map((child) => child.size);
  if (node.op === "+") {
    // Concatenation copies both sides.
    const size = sum(sizes);
    return { steps: steps + size, size };
  }
  const entries = node.op === "list" || node.op === "map" ? children.length : 1;
  return { steps, size: Math.max(entries, ...sizes) };
}

/** Why the condition's evaluation could cost more than the limits allow, and where; null when it cannot. */
export function evaluationCostProblem(ast: ASTNode): Refusal | null {
  try {
    walk(ast, new Map());
    return null;
  } catch (error) {
    if (error instanceof OverLimit) return error.refusal;
    throw error;
  }
}
