// The browser test's IPC mock (tests/browser/mock-ipc.js) is held to the generated bindings: every handler answers
// a command Rust registers, reads only the arguments that command sends, and every command the app calls through
// api.ts has a handler. A command renamed, removed or given other arguments in Rust fails here, not in a browser.
import { describe, expect, it } from "vitest";
import api from "../api.ts?raw";
import bindings from "../bindings.ts?raw";
import mock from "../../tests/browser/mock-ipc.js?raw";

/** Each command the bindings invoke, with the argument names it sends. */
function commands(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of bindings.matchAll(/__TAURI_INVOKE[^(]*\("([a-z_0-9]+)"(?:, \{ ([^}]*) \})?\)/g)) {
    out.set(m[1], new Set((m[2] ?? "").split(",").map((s: string) => s.trim()).filter(Boolean)));
  }
  return out;
}

/** The mock's handlers (the `handlers` object, one per line at four spaces), each with the `a.x` it reads. */
function handlers(): Map<string, Set<string>> {
  const start = mock.indexOf("const handlers = {");
  const end = mock.indexOf("window.__TAURI_INTERNALS__ = {", start);
  const body = mock.slice(start, end).split("\n");
  const out = new Map<string, Set<string>>();
  let current: string | null = null;
  for (const line of body) {
    const head = /^ {4}([a-z_0-9]+): /.exec(line);
    if (head) {
      current = head[1];
      out.set(current, new Set());
    }
    if (current) for (const m of line.matchAll(/\ba\.([A-Za-z_0-9]+)/g)) out.get(current)!.add(m[1]);
  }
  return out;
}

/** The commands api.ts calls (`commands.someName(` → `some_name`). */
function called(): Set<string> {
  const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return new Set([...api.matchAll(/commands\.([A-Za-z0-9]+)\(/g)].map((m) => snake(m[1])));
}

describe("the browser test's IPC mock", () => {
  const cmds = commands();
  const mocked = handlers();

  it("reads the bindings and the mock", () => {
    expect(cmds.size).toBeGreaterThan(40);
    expect(cmds.get("replay")).toEqual(new Set(["runId", "options", "calibrated"]));
    expect(mocked.get("replay")).toEqual(new Set(["runId", "options", "calibrated"]));
  });

  it("answers only commands Rust registers, reading only the arguments each sends", () => {
    for (const [name, reads] of mocked) {
      expect(cmds.has(name), `mock handler ${name} answers no command`).toBe(true);
      for (const arg of reads) expect(cmds.get(name)!.has(arg), `${name} reads a.${arg}, which Rust does not send`).toBe(true);
    }
  });

  it("has a handler for every command the app calls", () => {
    const missing = [...called()].filter((c) => cmds.has(c) && !mocked.has(c));
    expect(missing).toEqual([]);
  });
});
