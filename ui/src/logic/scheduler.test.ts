import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLatestScheduler } from "./scheduler";

// A fake animation frame driven by fake timers: one frame every 16 ms.
const raf = (cb: () => void) => setTimeout(cb, 16);

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("createLatestScheduler", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends the first value immediately", async () => {
    const run = vi.fn(async (v: number) => v * 2);
    const apply = vi.fn();
    const s = createLatestScheduler(run, apply, undefined, raf);
    s.schedule(1);
    expect(run).toHaveBeenCalledWith(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(apply).toHaveBeenCalledWith(2, 1);
  });

  it("coalesces values within a frame to the latest", async () => {
    const run = vi.fn(async (v: number) => v);
    const apply = vi.fn();
    const s = createLatestScheduler(run, apply, undefined, raf);
    s.schedule(1);
    s.schedule(2);
    s.schedule(3);
    await vi.advanceTimersByTimeAsync(0);
    expect(run.mock.calls.map((c) => c[0])).toEqual([1]);
    await vi.advanceTimersByTimeAsync(16);
    expect(run.mock.calls.map((c) => c[0])).toEqual([1, 3]);
    // the response for 1 arrived while 3 was pending: stale, dropped
    expect(apply.mock.calls.map((c) => c[0])).toEqual([3]);
  });

  it("drops a stale response when a newer value is pending", async () => {
    const d1 = deferred<string>();
    const run = vi.fn((v: number) => (v === 1 ? d1.promise : Promise.resolve(`r${v}`)));
    const apply = vi.fn();
    const s = createLatestScheduler(run, apply, undefined, raf);
    s.schedule(1);
    await vi.advanceTimersByTimeAsync(20);
    s.schedule(2); // in flight: waits
    expect(run).toHaveBeenCalledTimes(1);
    d1.resolve("r1");
    await vi.advanceTimersByTimeAsync(0);
    expect(apply.mock.calls.map((c) => c[0])).toEqual(["r2"]);
  });

  it("ignores responses after reset", async () => {
    const d = deferred<number>();
    const apply = vi.fn();
    const s = createLatestScheduler(() => d.promise, apply, undefined, raf);
    s.schedule(1);
    s.reset();
    d.resolve(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(apply).not.toHaveBeenCalled();
  });

  it("reports errors of the latest request only", async () => {
    const onError = vi.fn();
    const s = createLatestScheduler((v: number) => (v < 0 ? Promise.reject(new Error("bad")) : Promise.resolve(v)), vi.fn(), onError, raf);
    s.schedule(-1);
    await vi.advanceTimersByTimeAsync(0);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(s.issued).toBe(1);
  });
});
