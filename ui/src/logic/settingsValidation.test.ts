import { describe, expect, it } from "vitest";
import type { Settings } from "../api";
import { validateSettings } from "./settingsValidation";

export function defaults(): Settings {
  return {
    embedding_model: "all-minilm-l6-v2-int8", chunk_tokens: 256, overlap_tokens: 32, max_file_mb: 200,
    extract_timeout_secs: 120, embed_batch: 32, embed_threads: 0, top_k: 4, similarity_threshold: 0,
    expansion_search: 128,
    chat: { backend: "embedded", model_path: null, endpoint: null, model_name: null, api_key_env: "RAGSIFT_API_KEY", context_length: 4096, threads: 0 },
    judge: { kind: "auto", base_url: null, model: null },
    policy: { mode: "classify", thresholds: {}, min_relevance: 0, top_n: null, max_context_tokens: null, shadow: false, keep_groups_together: true },
    pipeline: { rewrite: false, variants: 1, mode: "vector", answer_mode: "auto" },
  };
}

describe("validateSettings", () => {
  it("accepts the defaults", () => {
    expect(validateSettings(defaults())).toEqual({});
  });
  it("requires overlap below half the chunk size", () => {
    const s = defaults();
    s.overlap_tokens = 128;
    expect(validateSettings(s)["overlap_tokens"]).toMatch(/less than half/);
  });
  it("checks ranges and whole numbers", () => {
    const s = defaults();
    s.chunk_tokens = 8;
    s.top_k = 2.5;
    s.similarity_threshold = 1.5;
    const e = validateSettings(s);
    expect(e["chunk_tokens"]).toMatch(/between 16/);
    expect(e["top_k"]).toMatch(/whole number/);
    expect(e["similarity_threshold"]).toMatch(/between 0 and 1/);
  });
  it("requires a .gguf model file for the embedded backend", () => {
    const s = defaults();
    s.chat.model_path = "/models/gemma.bin";
    expect(validateSettings(s)["chat.model_path"]).toMatch(/\.gguf/);
    s.chat.model_path = "/models/gemma.GGUF";
    expect(validateSettings(s)["chat.model_path"]).toBeUndefined();
  });
  it("requires an http(s) endpoint and a model name for OpenAI-compatible servers", () => {
    const s = defaults();
    s.chat.backend = "openai";
    s.chat.endpoint = "localhost:11434";
    const e = validateSettings(s);
    expect(e["chat.endpoint"]).toMatch(/http:\/\//);
    expect(e["chat.model_name"]).toBeDefined();
    s.chat.endpoint = "http://localhost:11434";
    s.chat.model_name = "llama3.2";
    expect(validateSettings(s)).toEqual({});
  });
  it("requires a Jev base URL when the judge is Jev", () => {
    const s = defaults();
    s.judge.kind = "jev";
    expect(validateSettings(s)["judge.base_url"]).toBeDefined();
    s.judge.base_url = "ftp://x";
    expect(validateSettings(s)["judge.base_url"]).toMatch(/http/);
    s.judge.base_url = "https://jev.example";
    expect(validateSettings(s)["judge.base_url"]).toBeUndefined();
  });
});
