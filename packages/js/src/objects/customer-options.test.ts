import { describe, expect, it } from "vitest";
import { type CustomerOptions, customerOf } from "./customers.ts";

describe("customerOf", () => {
  it("reads the one customer the options name", () => {
    expect(customerOf({ userId: "u1" })).toEqual({ type: "user", id: "u1" });
    expect(customerOf({ teamId: "t1" })).toEqual({ type: "team", id: "t1" });
    expect(customerOf({ customCustomerId: "org-1" })).toEqual({ type: "custom", id: "org-1" });
    // An id left undefined beside the one given names nothing, as when an app spreads optional fields.
    expect(customerOf({ userId: "u1", teamId: undefined } as unknown as CustomerOptions)).toEqual({
      type: "user",
      id: "u1",
    });
  });

  it("refuses several customer ids at once, and none", () => {
    expect(() => customerOf({ userId: "u1", teamId: "t1" } as unknown as CustomerOptions)).toThrow(
      "Name one customer: userId, teamId or customCustomerId, not userId and teamId.",
    );
    expect(() =>
      customerOf({ teamId: "t1", customCustomerId: "org-1" } as unknown as CustomerOptions),
    ).toThrow(/not teamId and customCustomerId/);
    expect(() => customerOf({} as CustomerOptions)).toThrow(TypeError);
  });
});
