import { describe, expect, it } from "vitest";
import { fileErrorText, presentIpcError, statusLabel } from "./errors";

describe("error words", () => {
  it("explains ingest error codes in plain words", () => {
    expect(fileErrorText("encrypted")).toBe("This PDF is password-protected. Remove the password and add it again.");
    expect(fileErrorText("no_text")).not.toContain("not supported");
    expect(fileErrorText("no_text", "a.pdf: no text found on pages 1–2, also not by OCR")).toBe(
      "a.pdf: no text found on pages 1–2, also not by OCR",
    );
    expect(fileErrorText("encrypted", "failed before (unchanged): a.pdf: the PDF is encrypted")).toBe(
      "Failed before and unchanged since, so not read again: This PDF is password-protected. Remove the password and add it again.",
    );
    expect(fileErrorText("corrupt")).toBe("The file is damaged or not a valid PDF.");
    for (const c of ["too_large", "timeout", "unsupported", "not_found", "io"]) expect(fileErrorText(c).length).toBeGreaterThan(10);
  });
  it("falls back to the backend message, then the code", () => {
    expect(fileErrorText("weird", "disk on fire")).toBe("disk on fire");
    expect(fileErrorText("weird")).toBe("Failed (weird).");
    expect(fileErrorText(null)).toBe("Failed.");
  });
  it("presents IPC codes", () => {
    expect(presentIpcError("cancelled").tone).toBe("quiet");
    expect(presentIpcError("setup").hint).toContain("Settings");
    expect(presentIpcError("auth").hint).toContain("API key");
    expect(presentIpcError("unreachable").hint).toContain("endpoint");
    expect(presentIpcError("stale").hint).toContain("Ask again");
  });
  it("labels unchanged files as not re-embedded", () => {
    expect(statusLabel("unchanged")).toBe("unchanged — not re-embedded");
  });
});
