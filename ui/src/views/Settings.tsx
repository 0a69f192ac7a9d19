import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { ChatBackend, JevRequest, JudgeChoice, JudgeInfo, JudgeProbe, SearchMode, Settings as S } from "../api";
import { Banner, ErrorBanner } from "../components/common";
import { appInfo, refreshAppInfo } from "../state";

/** Field path → message, from Rust's `Settings::problems` (the same rules `save_settings` applies). */
type FieldErrors = Record<string, string>;

/** Asks the backend which fields are wrong; numbers that are not numbers never reach it. */
async function check(s: S): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const numbers: [string, number][] = [
    ["chunk_tokens", s.chunk_tokens], ["overlap_tokens", s.overlap_tokens], ["top_k", s.top_k],
    ["similarity_threshold", s.similarity_threshold], ["pipeline.variants", s.pipeline.variants],
    ["chat.context_length", s.chat.context_length], ["chat.threads", s.chat.threads],
  ];
  for (const [field, v] of numbers) if (!Number.isFinite(v)) errors[field] = "Enter a number.";
  if (Object.keys(errors).length) return errors;
  for (const p of await api.checkSettings(s)) errors[p.field] ??= p.message.charAt(0).toUpperCase() + p.message.slice(1) + ".";
  return errors;
}

type FieldProps = { label: string; name: string; errors: FieldErrors; hint?: string; children: preact.ComponentChildren };
function Field(p: FieldProps) {
  const err = p.errors[p.name];
  return (
    <div class={`field${err ? " field-error" : ""}`}>
      <label for={`f-${p.name}`}>{p.label}</label>
      {p.children}
      {err ? <span class="field-msg" id={`f-${p.name}-err`} role="alert">{err}</span> : p.hint ? <span class="field-hint muted">{p.hint}</span> : null}
    </div>
  );
}

const num = (e: Event) => Number((e.target as HTMLInputElement).value);
const str = (e: Event) => (e.target as HTMLInputElement).value;
const opt = (e: Event) => { const v = (e.target as HTMLInputElement).value; return v.trim() === "" ? null : v; };

export function Settings() {
  const [s, setS] = useState<S | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  const [cleared, setCleared] = useState<number | null>(null);
  const [key, setKey] = useState("");
  const [judge, setJudge] = useState<JudgeInfo | null>(null);
  const [choices, setChoices] = useState<JudgeChoice[]>([]);
  const [probe, setProbe] = useState<{ ok: JudgeProbe } | { error: string } | "testing" | null>(null);

  useEffect(() => {
    api.settings().then(setS, setError);
    api.judgeChoices().then(setChoices, setError);
    void refreshAppInfo();
  }, []);
  useEffect(() => { if (appInfo.value) setJudge(appInfo.value.judge); }, [appInfo.value]);

  if (!s) return <section class="view view-settings" data-testid="view-settings" aria-label="Settings"><h1>Settings</h1><ErrorBanner error={error} /></section>;

  const choice = choices.find((c) => c.kind === s.judge.kind);
  const set = (f: (d: S) => void) => {
    const d: S = structuredClone(s);
    f(d);
    setS(d);
    setSaved(false);
    if (Object.keys(errors).length) void check(d).then(setErrors, setError);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      const errs = await check(s);
      setErrors(errs);
      if (Object.keys(errs).length) return;
      setS(await api.saveSettings(s));
      setError(null);
      setSaved(true);
      void refreshAppInfo();
    } catch (err) {
      setError(err);
    }
  };
  const clearCache = async () => {
    try {
      setCleared(await api.clearJudgmentCache());
      setError(null);
    } catch (err) {
      setError(err);
    }
  };
  const testConnection = async () => {
    setProbe("testing");
    try {
      setProbe({ ok: await api.testJudge(s.judge) });
    } catch (err) {
      setProbe({ error: err instanceof Error ? err.message : String((err as { message?: string })?.message ?? err) });
    }
  };
  const saveKey = async (k: string | null) => {
    try {
      setJudge(await api.setJudgeKey(k));
      setKey("");
      setError(null);
    } catch (err) {
      setError(err);
    }
  };
  const info = appInfo.value;
  const a = (name: string) => ({ id: `f-${name}`, "aria-invalid": errors[name] ? true : undefined, "aria-describedby": errors[name] ? `f-${name}-err` : undefined });

  return (
    <section class="view view-settings" data-testid="view-settings" aria-label="Settings">
      <header class="view-head"><h1>Settings</h1></header>
      {info && info.problems.length > 0 && (
        <Banner tone="warning" title="Setup">
          <ul class="plain">{info.problems.map((p, i) => <li key={i}>{p}</li>)}</ul>
        </Banner>
      )}
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      <form class="settings-form" onSubmit={save} noValidate>
        <fieldset class="panel">
          <legend>Judge</legend>
          <Field label="Judge" name="judge.kind" errors={errors} hint={choice?.hint ?? ""}>
            <select {...a("judge.kind")} class="input" data-testid="judge-kind" value={s.judge.kind}
              onChange={(e) => set((d) => {
                const kind = str(e) as S["judge"]["kind"];
                // Base URL, model and key variable belong to the judge they were set for.
                if (kind !== d.judge.kind) { d.judge.base_url = null; d.judge.model = null; d.judge.key_env = null; }
                d.judge.kind = kind;
                setProbe(null);
              })}>
              {choices.map((c) => <option key={c.kind} value={c.kind}>{c.label}</option>)}
            </select>
          </Field>
          {(choice?.decision ?? false) && <>
            <Field label="Base URL" name="judge.base_url" errors={errors} hint="with or without /v1/systemone or /v1/decisions">
              <input {...a("judge.base_url")} class="input" data-testid="judge-base-url" value={s.judge.base_url ?? ""} placeholder={choice?.default_base_url ?? "https://…"} onInput={(e) => set((d) => (d.judge.base_url = opt(e)))} />
            </Field>
            <Field label="Model" name="judge.model" errors={errors} hint={`empty: ${choice?.default_model ?? "the server's default"}`}>
              <input {...a("judge.model")} class="input" data-testid="judge-model" value={s.judge.model ?? ""} placeholder={choice?.default_model ?? ""} onInput={(e) => set((d) => (d.judge.model = opt(e)))} />
            </Field>
            <Field label="Key variable" name="judge.key_env" errors={errors} hint="the environment variable read when no key is stored; a server on this machine needs none">
              <input {...a("judge.key_env")} class="input" value={s.judge.key_env ?? ""} placeholder={choice?.default_key_env ?? ""} onInput={(e) => set((d) => (d.judge.key_env = opt(e)))} />
            </Field>
            <div class="field">
              <label for="f-judge-test">Connection</label>
              <div class="inline">
                <button type="button" id="f-judge-test" class="btn" data-testid="judge-test" disabled={probe === "testing"} onClick={testConnection}>Test connection</button>
                {probe === "testing" && <span class="muted" role="status">Asking the judge…</span>}
                {probe && probe !== "testing" && "ok" in probe && (
                  <span role="status" data-testid="judge-test-ok">{probe.ok.judge} answered in {Math.round(probe.ok.latency_ms)} ms
                    {probe.ok.relevant != null ? ` (relevance ${probe.ok.relevant.toFixed(2)} on a sample passage)` : " (its answer was not assessed)"}</span>
                )}
                {probe && probe !== "testing" && "error" in probe && <span class="field-msg" role="alert" data-testid="judge-test-error">{probe.error}</span>}
              </div>
              <span class="field-hint muted">One small call with the settings above (not saved).</span>
            </div>
          </>}
          <Field label="Request" name="judge.request" errors={errors} hint="spring: the four filter questions and usefulness; rag-jev and contextual: rag-jev's own requests (usefulness only)">
            <select {...a("judge.request")} class="input" value={s.judge.request ?? "spring"} onChange={(e) => set((d) => (d.judge.request = str(e) as JevRequest))}>
              <option value="spring">Spring's questions, per passage</option><option value="rag-jev">rag-jev's request, per passage</option><option value="contextual">contextual: all passages in one request</option>
            </select>
          </Field>
          <div class="field">
            <label for="f-judge-key">API key</label>
            <div class="inline">
              <input id="f-judge-key" class="input" type="password" autocomplete="off" value={key} placeholder={judge?.key_set ? "a key is set (hidden)" : "no key set"}
                onInput={(e) => setKey(str(e))} data-testid="judge-key" />
              <button type="button" class="btn" disabled={!key.trim()} onClick={() => saveKey(key.trim())}>Save key</button>
              <button type="button" class="btn btn-ghost" disabled={!judge?.key_set} onClick={() => saveKey(null)}>Forget key</button>
            </div>
            <span class="field-hint muted">{judge ? (judge.key_set ? "A key is stored (outside settings.json)." : "No key stored.") : ""} Active judge: {judge ? `${judge.kind} ${judge.model}${judge.calibrated ? " (calibrated)" : ""}` : "—"}</span>
          </div>
          <div class="field">
            <label for="f-clear-cache">Judgment cache</label>
            <div class="inline">
              <button type="button" id="f-clear-cache" class="btn" data-testid="clear-judgment-cache" onClick={clearCache}>Clear cached judgments</button>
              {cleared !== null && <span class="muted" role="status" data-testid="cache-cleared">Cleared {cleared} cached answers; the next answers ask the judge again.</span>}
            </div>
            <span class="field-hint muted">Stored runs keep their own judgments and still replay.</span>
          </div>
                  <Field label="Unload idle models after (seconds)" name="idle_unload_secs" errors={errors} hint="0 keeps them loaded; the next job reloads them, with progress">
            <input {...a("idle_unload_secs")} class="input input-num" type="number" min={0} step={60} value={s.idle_unload_secs}
              onInput={(e) => set((d) => (d.idle_unload_secs = Math.max(0, Math.round(num(e)) || 0)))} />
          </Field>
          <fieldset class="rates">
            <legend class="small">Cost rates per million tokens (empty: unknown; runs then show the cost as unknown)</legend>
            <div class="field-row">
              {([["judge_input_per_million", "Judge input"], ["judge_output_per_million", "Judge output"], ["generation_input_per_million", "Generation input"], ["generation_output_per_million", "Generation output"]] as const).map(([k, label]) => (
                <Field key={k} label={label} name={`rates.${k}`} errors={errors}>
                  <input {...a(`rates.${k}`)} class="input input-num" type="number" min={0} step="any" data-testid={`rate-${k}`} value={s.rates[k] ?? ""}
                    onInput={(e) => set((d) => { const v = opt(e); d.rates[k] = v === null ? null : Number(v); })} />
                </Field>
              ))}
            </div>
          </fieldset>
        </fieldset>
        <fieldset class="panel">
          <legend>Language model</legend>
          <Field label="Backend" name="chat.backend" errors={errors}>
            <select {...a("chat.backend")} class="input" value={s.chat.backend} onChange={(e) => set((d) => (d.chat.backend = str(e) as ChatBackend))}>
              <option value="embedded">embedded (GGUF file)</option><option value="openai">OpenAI-compatible server</option>
            </select>
          </Field>
          {s.chat.backend === "embedded" ? (
            <>
              <Field label="GGUF model file" name="chat.model_path" errors={errors} hint="empty: the model set-up installed">
                <input {...a("chat.model_path")} class="input" value={s.chat.model_path ?? ""} placeholder="/path/to/model.gguf" onInput={(e) => set((d) => (d.chat.model_path = opt(e)))} />
              </Field>
              <Field label="Answer model (grounded answers)" name="chat.answer_model_path" errors={errors} hint="an instruction GGUF beside a base model; empty: the one set-up installed">
                <input {...a("chat.answer_model_path")} class="input" value={s.chat.answer_model_path ?? ""} placeholder="/path/to/instruct-model.gguf" onInput={(e) => set((d) => (d.chat.answer_model_path = opt(e)))} />
              </Field>
              <Field label="Context length (tokens)" name="chat.context_length" errors={errors}>
                <input {...a("chat.context_length")} class="input input-num" type="number" value={s.chat.context_length} onInput={(e) => set((d) => (d.chat.context_length = num(e)))} />
              </Field>
              <Field label="Threads" name="chat.threads" errors={errors} hint="0 = all cores">
                <input {...a("chat.threads")} class="input input-num" type="number" value={s.chat.threads} onInput={(e) => set((d) => (d.chat.threads = num(e)))} />
              </Field>
            </>
          ) : (
            <>
              <Field label="Endpoint URL" name="chat.endpoint" errors={errors} hint="e.g. http://localhost:11434 for Ollama">
                <input {...a("chat.endpoint")} class="input" value={s.chat.endpoint ?? ""} placeholder="http://localhost:11434" onInput={(e) => set((d) => (d.chat.endpoint = opt(e)))} />
              </Field>
              <Field label="Model name" name="chat.model_name" errors={errors}>
                <input {...a("chat.model_name")} class="input" value={s.chat.model_name ?? ""} placeholder="llama3.2" onInput={(e) => set((d) => (d.chat.model_name = opt(e)))} />
              </Field>
              <Field label="API key environment variable" name="chat.api_key_env" errors={errors}>
                <input {...a("chat.api_key_env")} class="input" value={s.chat.api_key_env} onInput={(e) => set((d) => (d.chat.api_key_env = str(e)))} />
              </Field>
            </>
          )}
        </fieldset>
        <fieldset class="panel">
          <legend>Retrieval</legend>
          <Field label="Embedding model id" name="embedding_model" errors={errors} hint="changing it needs re-ingesting">
            <input {...a("embedding_model")} class="input" value={s.embedding_model} onInput={(e) => set((d) => (d.embedding_model = str(e)))} />
          </Field>
          <Field label="Top-k" name="top_k" errors={errors}>
            <input {...a("top_k")} class="input input-num" type="number" value={s.top_k} onInput={(e) => set((d) => (d.top_k = num(e)))} />
          </Field>
          <Field label="Similarity threshold" name="similarity_threshold" errors={errors}>
            <input {...a("similarity_threshold")} class="input input-num" type="number" step={0.01} value={s.similarity_threshold} onInput={(e) => set((d) => (d.similarity_threshold = num(e)))} />
          </Field>
          <Field label="Search mode" name="pipeline.search_mode" errors={errors}>
            <select {...a("pipeline.search_mode")} class="input" value={s.pipeline.search_mode} onChange={(e) => set((d) => (d.pipeline.search_mode = str(e) as SearchMode))}>
              <option value="vector">vector</option><option value="keyword">keyword</option><option value="hybrid">hybrid</option>
            </select>
          </Field>
          <Field label="Query variants" name="pipeline.variants" errors={errors}>
            <input {...a("pipeline.variants")} class="input input-num" type="number" value={s.pipeline.variants} onInput={(e) => set((d) => (d.pipeline.variants = num(e)))} />
          </Field>
          <div class="field"><label class="check"><input type="checkbox" checked={s.pipeline.rewrite} onChange={(e) => set((d) => (d.pipeline.rewrite = (e.target as HTMLInputElement).checked))} /> Rewrite the question before searching</label></div>
        </fieldset>
        <fieldset class="panel">
          <legend>Selection and answers</legend>
          <div class="field" data-testid="settings-defaults">
            <span>Thresholds in force: {Object.keys(s.policy.thresholds).length === 0
              ? <>the active judge's own defaults — {judge?.defaults ? (judge.defaults.source === "spring" ? "Spring AI's (0.70 / 0.70 / 0.45 / 0.55)" : `the local judge's fitted operating points (${judge.defaults.source})`) : "none (no judge)"}</>
              : <>saved values ({Object.entries(s.policy.thresholds).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(", ")})</>}
              {judge && judge.not_assessed.length > 0 && <span class="muted"> · not assessed by this judge: {judge.not_assessed.join(", ")}</span>}</span>
            {Object.keys(s.policy.thresholds).length > 0 && (
              <button type="button" class="btn btn-ghost" data-testid="use-judge-defaults" onClick={() => set((d) => { d.policy.thresholds = {}; d.policy.min_relevance = null; })}>Use the judge's defaults</button>
            )}
          </div>
          <Field label="Answer mode" name="pipeline.answer_mode" errors={errors} hint="auto: quoted sentences for a base model, generated for an instruction model or server; grounded: the answer model's claim, checked against the sentence it cites">
            <select {...a("pipeline.answer_mode")} class="input" value={s.pipeline.answer_mode} onChange={(e) => set((d) => (d.pipeline.answer_mode = str(e) as S["pipeline"]["answer_mode"]))}>
              <option value="auto">auto</option><option value="extractive">extractive (quote the passages)</option><option value="grounded">grounded (the model answers, each claim checked against the sentence it cites)</option><option value="generative">generative (the language model writes)</option>
            </select>
          </Field>
        </fieldset>
        <fieldset class="panel">
          <legend>Library store</legend>
          <Field label="Store" name="store" errors={errors} hint="empty: this machine (SQLite + usearch); or postgres://user@host:5432/db for a team library. No password here: put it in PGPASSWORD, or the whole URL in RAGSIFT_STORE_URL or <home>/store-url (mode 0600). Takes effect on restart.">
            <input {...a("store")} class="input mono" value={s.store ?? ""} placeholder="postgres://you@db.example:5432/team" onInput={(e) => set((d) => (d.store = str(e)))} />
          </Field>
          <Field label="Spring AI table" name="spring_table" errors={errors} hint="schema.table of a Spring AI PgVectorStore in the store's database, opened read-only (empty: ragsift's own tables)">
            <input {...a("spring_table")} class="input mono" value={s.spring_table ?? ""} placeholder="public.vector_store" onInput={(e) => set((d) => (d.spring_table = str(e)))} />
          </Field>
          <Field label="Embeddings server" name="embedding_endpoint" errors={errors} hint="an OpenAI-compatible /v1/embeddings server that embeds queries, for an index built by its model (empty: the local model)">
            <input {...a("embedding_endpoint")} class="input mono" value={s.embedding_endpoint ?? ""} placeholder="http://localhost:8080" onInput={(e) => set((d) => (d.embedding_endpoint = str(e)))} />
          </Field>
          <Field label="Server embedding model" name="embedding_server_model" errors={errors}>
            <input {...a("embedding_server_model")} class="input" value={s.embedding_server_model ?? ""} placeholder="text-embedding-3-small" onInput={(e) => set((d) => (d.embedding_server_model = str(e)))} />
          </Field>
          <Field label="Your name on runs" name="user" errors={errors} hint="a shared library shows who made each run (empty: your login name)">
            <input {...a("user")} class="input" value={s.user ?? ""} onInput={(e) => set((d) => (d.user = str(e)))} />
          </Field>
        </fieldset>
        <fieldset class="panel">
          <legend>Chunking</legend>
          <Field label="Chunk size (tokens)" name="chunk_tokens" errors={errors}>
            <input {...a("chunk_tokens")} class="input input-num" type="number" value={s.chunk_tokens} onInput={(e) => set((d) => (d.chunk_tokens = num(e)))} />
          </Field>
          <Field label="Overlap (tokens)" name="overlap_tokens" errors={errors} hint="less than half the chunk size">
            <input {...a("overlap_tokens")} class="input input-num" type="number" value={s.overlap_tokens} onInput={(e) => set((d) => (d.overlap_tokens = num(e)))} />
          </Field>
          <Field label="OCR for scanned pages" name="ocr" errors={errors} hint="Tesseract reads pages without a text layer, when it is installed">
            <input {...a("ocr")} type="checkbox" checked={s.ocr ?? true} onChange={(e) => set((d) => (d.ocr = (e.target as HTMLInputElement).checked))} />
          </Field>
          <Field label="OCR languages" name="ocr_languages" errors={errors} hint="Tesseract codes joined by +, e.g. eng+deu (each needs tesseract-ocr-<code>)">
            <input {...a("ocr_languages")} class="input" value={s.ocr_languages ?? "eng"} onInput={(e) => set((d) => (d.ocr_languages = str(e)))} />
          </Field>
        </fieldset>
        <div class="form-actions">
          <button type="submit" class="btn btn-primary" data-testid="settings-save">Save settings</button>
          {Object.keys(errors).length > 0 && <span class="field-msg">Fix the marked fields first.</span>}
          {saved && <span class="ok" role="status">Saved.</span>}
        </div>
      </form>
      {info && (
        <div class="panel about">
          <h2>About</h2>
          <dl class="kv-list">
            <dt>Version</dt><dd>{info.version}</dd>
            <dt>Library home</dt><dd class="mono">{info.home}</dd>
            <dt>Store</dt><dd class="mono" data-testid="store-info">{info.store.kind === "postgres" ? "PostgreSQL + pgvector" : "SQLite + usearch"} · {info.store.location} · {info.store_mb.toFixed(1)} MB</dd>
            <dt>Documents / runs</dt><dd>{info.documents} / {info.runs}</dd>
            <dt>Embedding model</dt><dd>{info.embedding_model}</dd>
            <dt>Chat model</dt><dd>{info.chat_model}</dd>
          </dl>
        </div>
      )}
    </section>
  );
}
