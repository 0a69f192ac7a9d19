// The pattern every long action in the app follows, once: a job the status bar shows (and can cancel) while it
// runs, the error of the last attempt for an ErrorBanner, and the job cleared however it ends.
import { useState } from "preact/hooks";
import { endJob, startJob } from "./state";

export type JobRunner = {
  /** The running job's id, or null when idle (disables the form's button). */
  job: string | null;
  /** The last attempt's failure, or null. */
  error: unknown;
  setError: (e: unknown) => void;
  /** Runs `work` as a job labelled `label`: the error is cleared first and kept on failure (then `undefined`). */
  run: <T>(label: string, work: (id: string) => Promise<T>) => Promise<T | undefined>;
};

export function useJob(): JobRunner {
  const [job, setJob] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = async <T,>(label: string, work: (id: string) => Promise<T>): Promise<T | undefined> => {
    const id = startJob(label);
    setJob(id);
    setError(null);
    try {
      return await work(id);
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      endJob(id);
      setJob(null);
    }
  };
  return { job, error, setError, run };
}
