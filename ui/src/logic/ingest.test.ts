import { describe, expect, it } from "vitest";
import type { IngestEvent } from "../api";
import { applyReport, initialIngest, reduceIngest, stageText } from "./ingest";

const run = (events: IngestEvent[]) => events.reduce(reduceIngest, initialIngest());

describe("ingest reducer", () => {
  it("tracks a file through extraction, embedding and finish", () => {
    let s = run([
      { event: "scanned", files: 2 },
      { event: "file_started", file: 0, total: 2, path: "/a.pdf" },
      { event: "extracted", file: 0, pages: 3, chunks: 10 },
      { event: "embedding", file: 0, done: 4, total: 10 },
    ]);
    expect(s.scanned).toBe(2);
    expect(s.files[0]).toMatchObject({ path: "/a.pdf", stage: "embedding", pages: 3, chunks: 10, done: 4, total: 10 });
    expect(stageText(s.files[0])).toBe("embedding 4/10");
    expect(s.files[0].fraction).toBeCloseTo(0.15 + 0.8 * 0.4);
    s = reduceIngest(s, { event: "file_finished", file: 0, total: 2, path: "/a.pdf", status: "ingested" });
    expect(s.files[0]).toMatchObject({ stage: "finished", status: "ingested", fraction: 1 });
  });
  it("keeps files ordered by index whatever the event order", () => {
    const s = run([
      { event: "file_started", file: 1, total: 2, path: "/b.pdf" },
      { event: "file_started", file: 0, total: 2, path: "/a.pdf" },
    ]);
    expect(s.files.map((f) => f.path)).toEqual(["/a.pdf", "/b.pdf"]);
    expect(s.scanned).toBe(2);
  });
  it("shows OCR progress and waiting for another writer", () => {
    const s = run([
      { event: "waiting_for_writer", seconds: 3 },
      { event: "scanned", files: 1 },
      { event: "file_started", file: 0, total: 1, path: "/scan.pdf" },
      { event: "ocr", file: 0, page: 2, pages: 5 },
    ]);
    expect(s.waiting).toBe(null);
    expect(stageText(s.files[0])).toBe("OCR page 2/5");
    expect(run([{ event: "waiting_for_writer", seconds: 3 }]).waiting).toBe(3);
  });

  it("marks unfinished files as saving", () => {
    const s = run([
      { event: "file_started", file: 0, total: 2, path: "/a.pdf" },
      { event: "file_finished", file: 0, total: 2, path: "/a.pdf", status: "unchanged" },
      { event: "file_started", file: 1, total: 2, path: "/b.pdf" },
      { event: "saving" },
    ]);
    expect(s.saving).toBe(true);
    expect(s.files.map((f) => f.stage)).toEqual(["finished", "saving"]);
  });
  it("takes statuses and error codes from the final report, adding unseen files", () => {
    const s0 = run([{ event: "file_started", file: 0, total: 1, path: "/a.pdf" }]);
    const s = applyReport(s0, {
      files: [
        { path: "/a.pdf", status: "failed", pages: 0, chunks: 0, error_code: "encrypted", error: "x", warning: null },
        { path: "/b.pdf", status: "ingested", pages: 2, chunks: 5, error_code: null, error: null, warning: "w" },
      ],
    });
    expect(s.finished).toBe(true);
    expect(s.files).toHaveLength(2);
    expect(s.files[0]).toMatchObject({ status: "failed", error_code: "encrypted" });
    expect(s.files[1]).toMatchObject({ path: "/b.pdf", index: 1, status: "ingested", warning: "w" });
  });
});
