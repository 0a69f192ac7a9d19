import type { Settings } from "../api";

/** Field path → message. Empty when valid. Mirrors (and extends) Settings::validate on the Rust side. */
export type FieldErrors = Record<string, string>;

const isHttpUrl = (s: string) => /^https?:\/\/[^\s/]+/i.test(s.trim());

function intIn(errors: FieldErrors, key: string, v: number, min: number, max: number, what: string) {
  if (!Number.isFinite(v) || !Number.isInteger(v)) errors[key] = `${what} must be a whole number.`;
  else if (v < min || v > max) errors[key] = `${what} must be between ${min} and ${max}.`;
}

export function validateSettings(s: Settings): FieldErrors {
  const e: FieldErrors = {};
  if (!s.embedding_model.trim()) e["embedding_model"] = "Choose an embedding model id.";
  intIn(e, "chunk_tokens", s.chunk_tokens, 16, 8192, "Chunk size");
  intIn(e, "overlap_tokens", s.overlap_tokens, 0, 4096, "Overlap");
  if (!e["chunk_tokens"] && !e["overlap_tokens"] && s.overlap_tokens >= s.chunk_tokens / 2)
    e["overlap_tokens"] = `Overlap must be less than half of the chunk size (< ${Math.ceil(s.chunk_tokens / 2)}).`;
  intIn(e, "top_k", s.top_k, 1, 200, "Top-k");
  if (!Number.isFinite(s.similarity_threshold) || s.similarity_threshold < 0 || s.similarity_threshold > 1)
    e["similarity_threshold"] = "Similarity threshold must be between 0 and 1.";
  intIn(e, "pipeline.variants", s.pipeline.variants, 1, 8, "Variants");

  if (s.chat.backend === "embedded") {
    const p = (s.chat.model_path ?? "").trim();
    if (p && !p.toLowerCase().endsWith(".gguf")) e["chat.model_path"] = "The model file must be a .gguf file.";
    intIn(e, "chat.context_length", s.chat.context_length, 512, 262144, "Context length");
    intIn(e, "chat.threads", s.chat.threads, 0, 256, "Threads");
  } else if (s.chat.backend === "openai") {
    if (!isHttpUrl(s.chat.endpoint ?? "")) e["chat.endpoint"] = "Enter the server URL, starting with http:// or https://.";
    if (!(s.chat.model_name ?? "").trim()) e["chat.model_name"] = "Enter the model name the server knows (e.g. llama3.2).";
    if (s.chat.api_key_env && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(s.chat.api_key_env))
      e["chat.api_key_env"] = "An environment variable name: letters, digits and _ only.";
  } else {
    e["chat.backend"] = "Choose embedded or OpenAI-compatible.";
  }

  if (s.judge.kind === "jev" || s.judge.kind === "auto") {
    const u = (s.judge.base_url ?? "").trim();
    if (s.judge.kind === "jev" && !u) e["judge.base_url"] = "Enter the Jev base URL (http(s)://…).";
    else if (u && !isHttpUrl(u)) e["judge.base_url"] = "The URL must start with http:// or https://.";
  }
  return e;
}
