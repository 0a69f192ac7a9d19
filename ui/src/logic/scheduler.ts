export type Raf = (cb: () => void) => unknown;

export type LatestScheduler<V> = {
  /** Ask for `value` to be processed; superseded values are dropped. */
  schedule(value: V): void;
  /** Forget pending work and ignore responses still in flight. */
  reset(): void;
  /** Requests actually issued (for tests and diagnostics). */
  readonly issued: number;
};

/**
 * "Latest wins", coalesced per animation frame: the first value in a frame is sent at once (no added latency);
 * later values in the same frame, or while a request is in flight, collapse to the newest, sent when both the
 * frame has turned and the previous request has answered. Responses older than the newest issued one are dropped.
 */
export function createLatestScheduler<V, R>(
  run: (value: V) => Promise<R>,
  apply: (result: R, value: V) => void,
  onError: (error: unknown, value: V) => void = () => {},
  raf: Raf = (cb) => requestAnimationFrame(() => cb()),
): LatestScheduler<V> {
  let pending: { value: V } | null = null;
  let inFlight = false;
  let frameLocked = false;
  let issued = 0;
  let generation = 0;

  const pump = () => {
    if (!pending || inFlight || frameLocked) return;
    const { value } = pending;
    pending = null;
    const seq = ++issued;
    const gen = generation;
    inFlight = true;
    frameLocked = true;
    raf(() => {
      frameLocked = false;
      pump();
    });
    run(value).then(
      (r) => {
        inFlight = false;
        if (gen === generation && seq === issued && !pending) apply(r, value);
        pump();
      },
      (e) => {
        inFlight = false;
        if (gen === generation && seq === issued && !pending) onError(e, value);
        pump();
      },
    );
  };

  return {
    schedule(value: V) {
      pending = { value };
      pump();
    },
    reset() {
      pending = null;
      generation++;
    },
    get issued() {
      return issued;
    },
  };
}
