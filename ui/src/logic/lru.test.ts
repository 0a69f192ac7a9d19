import { describe, expect, it } from "vitest";
import { Lru } from "./lru";

describe("the trace cache", () => {
  it("keeps the entries used last, up to its limit", () => {
    const c = new Lru<string, number>(2);
    c.set("a", 1);
    c.set("b", 2);
    expect(c.get("a")).toBe(1); // a is now newer than b
    c.set("c", 3);
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBe(1);
    expect(c.get("c")).toBe(3);
    expect(c.size).toBe(2);
  });

  it("replaces a value without growing, and refuses a limit below one", () => {
    const c = new Lru<string, number>(1);
    c.set("a", 1);
    c.set("a", 2);
    expect([c.size, c.get("a")]).toEqual([1, 2]);
    expect(() => new Lru<string, number>(0)).toThrow();
  });
});
