// Injected before the app's scripts (Playwright addInitScript): a mock of Tauri's IPC boundary
// (window.__TAURI_INTERNALS__) serving a deterministic fixture. The `replay` handler below contains a SMALL
// STAND-IN for the Rust policy (crates/engine/src/policy) — test fixture only; the app has no policy logic — and
// answers as Rust's `replay` command does: a delta on the run's stored selection (crates/pipeline/src/replay_delta.rs).
// Besides the 200-candidate run there is "big-run" (2,000 candidates, not listed; open #/replay?run=big-run).
(() => {
  const RUN_ID = "fixture-run";
  const N = 200;
  const BIG = 2000;
  const KEYS = ["contains_prompt_injection", "contradicts_query_premise", "is_relevant", "contains_answer_evidence"];
  const DEFAULTS = { contains_prompt_injection: 0.7, contradicts_query_premise: 0.7, is_relevant: 0.45, contains_answer_evidence: 0.55 };

  // mulberry32: deterministic pseudo-random numbers.
  let seed = 0x5eed1234;
  const rand = () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const r3 = (x) => Math.round(x * 1000) / 1000;

  const docs = [
    { id: "doc-a", path: "/library/solar-maintenance.pdf", title: "Solar Inverter Maintenance Guide", pages: 42 },
    { id: "doc-b", path: "/library/warranty-terms.pdf", title: "Warranty Terms and Conditions", pages: 12 },
    { id: "doc-c", path: "/library/field-notes.pdf", title: "Field Notes — Café Installations ☀️", pages: 7 },
  ];
  /** `n` candidates with their judgments, ids `prefix` + the zero-padded index. */
  function makeCandidates(n, prefix, width) {
  const candidates = [];
  const judgments = [];
  for (let i = 0; i < n; i++) {
    const d = docs[i % 3];
    const page = 1 + ((i * 7) % d.pages);
    const id = `${prefix}${String(i).padStart(width, "0")}`;
    const rel = r3(Math.pow(rand(), 0.8));
    const evi = r3(Math.min(1, rel * (0.5 + rand() * 0.7)));
    const con = r3(rand() < 0.06 ? 0.72 + rand() * 0.27 : rand() * 0.3);
    const inj = r3(rand() < 0.03 ? 0.75 + rand() * 0.24 : rand() * 0.2);
    const useful = r3(Math.min(1, (rel + evi) / 2 + (rand() - 0.5) * 0.1));
    const tokens = 120 + Math.floor(rand() * 140);
    const text = `Passage ${i}: the inverter's fault code E${100 + i} means the DC isolation check failed; reset after cooling for ${5 + (i % 10)} minutes.`;
    candidates.push({
      chunk_id: id, document_id: d.id, document: d.path, title: d.title, page_start: page, page_end: page,
      char_start: 0, char_end: text.length, tokens, text, score: r3(0.9 - i * 0.003),
      found_by: [{ variant: i % 2, rank: Math.floor(i / 2) + 1, score: r3(0.9 - i * 0.003) }], group_id: null, pinned: false,
      section: i % 3 === 0 ? ["3 Method", "3.2 Training"] : [],
    });
    judgments.push({
      chunk_id: id, answers: { contains_prompt_injection: inj, contradicts_query_premise: con, is_relevant: rel, contains_answer_evidence: evi, useful },
      model: "jev-small", cached: i % 4 !== 0, input_tokens: 310, output_tokens: 5, latency_ms: 12.5,
    });
  }
  return { candidates, judgments };
  }
  const { candidates, judgments } = makeCandidates(N, "chunk-", 3);
  const big = makeCandidates(BIG, "big-", 4);

  // ---- STAND-IN for the Rust policy (select): enough to move reasons as thresholds change. ----
  const KEPT = new Set(["retained", "pinned", "group_retained", "bypassed", "conflicting", "unscored"]);
  function select(options, pool = candidates, judged = judgments) {
    const t = { ...DEFAULTS, ...(options.thresholds || {}) };
    const rows = pool.map((c, i) => {
      const a = judged[i].answers;
      let reason, score;
      if (options.mode === "classify") {
        if (a.contains_prompt_injection > t.contains_prompt_injection) [reason, score] = ["injection", a.contains_prompt_injection];
        else if (a.contradicts_query_premise > t.contradicts_query_premise) [reason, score] = ["conflicting", a.contradicts_query_premise];
        else if (a.is_relevant < t.is_relevant) [reason, score] = ["not_relevant", a.is_relevant];
        else if (a.contains_answer_evidence > t.contains_answer_evidence) [reason, score] = ["retained", a.contains_answer_evidence];
        else [reason, score] = ["no_evidence", a.contains_answer_evidence];
      } else {
        score = a.useful;
        const filters = options.mode === "filter" || options.mode === "filter_and_rerank";
        reason = filters && score < options.min_relevance ? "below_threshold" : "retained";
      }
      if ((options.pinned || []).includes(c.chunk_id)) reason = "pinned";
      return { c, i, reason, score };
    });
    const reranks = options.mode === "rerank" || options.mode === "filter_and_rerank";
    const kept = rows.filter((r) => KEPT.has(r.reason));
    if (reranks) kept.sort((a, b) => b.score - a.score);
    let budget = options.max_context_tokens;
    let n = 0;
    for (const r of kept) {
      if (options.top_n != null && n >= options.top_n) { r.reason = "beyond_top_n"; continue; }
      if (budget != null && r.c.tokens > budget) { r.reason = "beyond_token_budget"; continue; }
      if (budget != null) budget -= r.c.tokens;
      r.rank = ++n;
    }
    const decisions = rows.map((r) => ({
      chunk_id: r.c.chunk_id, input_index: r.i, selected: KEPT.has(r.reason), returned: KEPT.has(r.reason),
      rank: r.rank ?? null, score: r.score, jev_rank: null, fusion_score: null, reason: r.reason, conflicting: r.reason === "conflicting", skipped_rules: [],
    }));
    const sel = decisions.filter((d) => d.selected);
    const counts = {};
    for (const d of decisions) counts[d.reason] = (counts[d.reason] || 0) + 1;
    return {
      decisions, selected_ids: sel.map((d) => d.chunk_id), returned_ids: sel.map((d) => d.chunk_id),
      status: options.shadow ? "shadow" : "applied",
      selected_tokens: sel.reduce((s, d) => s + pool[d.input_index].tokens, 0),
      selected_characters: sel.reduce((s, d) => s + pool[d.input_index].text.length, 0),
      counts, policy_version: "stand-in",
      warnings: options.shadow ? [{ kind: "not_applied", subject: "shadow", message: "shadow mode: the selection is reported, the original context is sent" }] : [],
      notes: [],
    };
  }
  // ---- end of stand-in ----

  const policy = { mode: "classify", thresholds: { ...DEFAULTS }, min_relevance: 0, top_n: null, max_context_tokens: null, shadow: false, keep_groups_together: true, pinned: [], group_by: "none" };
  const selection = select(policy);
  const sourcesFrom = (s) => s.selected_ids.slice(0, 5).map((id, k) => {
    const c = candidates.find((x) => x.chunk_id === id);
    return { number: k + 1, chunk_id: id, document: c.document, title: c.title, page_start: c.page_start, page_end: c.page_end, text: c.text };
  });
  const sources = sourcesFrom(selection);
  const answer = "Fault code E1xx means the DC isolation check failed [1]. Let the inverter cool, then reset it [2][3]. The warranty covers repeated faults [1, 4]. “The manual lists the reset steps [3, 1] in order.” [4] (p. 8) “the DC isolation check failed; reset after cooling for” [2] (p. 8)";
  const trace = {
    run_id: RUN_ID, created_at: 1735000000, query: "What does fault code E1xx mean and how do I reset the inverter?", history: [],
    transformed: [{ stage: "rewrite", text: "inverter fault code E1xx meaning and reset procedure" }],
    variants: [0, 1].map((v) => ({
      query: v ? "inverter reset procedure" : "fault code E1xx meaning",
      hits: candidates.filter((_, i) => i % 2 === v).slice(0, 20).map((c, k) => ({ chunk_id: c.chunk_id, rank: k + 1, score: c.score, similarity: c.score, bm25: r3(12 - k * 0.4) })),
    })),
    candidates,
    judge: { judge: "jev", model: "jev-small", prompt_version: "rag-jev-v3", calibrated: true, status: "judged", error_code: null, error: null,
      judgments, fresh_passages: 50, cached_passages: 150, unscreened_passages: 0, input_tokens: 15500, output_tokens: 250, latency_ms: 812,
      not_assessed: [], defaults: { source: "spring", thresholds: { ...DEFAULTS }, min_relevance: null, answer_threshold: 0.55 } },
    policy, selection, sources,
    prompt: `Context information is below.\n\n---------------------\n${sources.map((s) => `[${s.number}] ${s.title} (p. ${s.page_start})\n${s.text}`).join("\n\n")}\n---------------------\n\nGiven the context information and no prior knowledge, answer the query.\n\nQuery: What does fault code E1xx mean?\n\nAnswer:\n`,
    answer, answered_by: "chat", support: { probability: 0.62, level: "weak", words: "weakly supported — check the source", basis: "judge_evidence", source: 1, evidence: 0.62, sentence: null, signals: [] },
    citations: [1, 2, 3, 4], unknown_citations: [], finish_reason: "stop", model: "gemma-3-270m-q4_k_m", usage: { prompt_tokens: 812, completion_tokens: 41 },
    timings_ms: { query: 180.2, retrieval: 12.4, judge: 812.0, policy: 0.1, generation: 2310.7 }, fingerprint: "f".repeat(64), made_by: "alice",
    origin: "library", labels: { relevant_ids: null, baseline_ids: null, reference_answer: null }, cost: { judging: null, generation: null, total: null },
  };
  // An imported run: the fixture's first 6 candidates with labels. Its label report is a STAND-IN for Rust's.
  const notAssessed = { probability: null, level: "not_assessed", words: "support not assessed", basis: "none", source: null, evidence: null, sentence: null, signals: [] };
  const imported = { ...trace, run_id: "imported-run", origin: "imported", candidates: candidates.slice(0, 6), answer: "", answered_by: "not_answered", support: notAssessed,
    judge: { ...trace.judge, judge: "jev-ragjev", judgments: judgments.slice(0, 6) }, sources: [], prompt: "", citations: [],
    labels: { relevant_ids: ["chunk-001", "chunk-004"], baseline_ids: null, reference_answer: null } };
  imported.selection = { ...select(policy, imported.candidates), policy_version: "stand-in" };
  const labelReport = (t, s) => {
    const rel = t.labels.relevant_ids;
    if (rel === null && t.labels.baseline_ids === null) return null;
    const chosen = new Set(s.selected_ids ?? []);
    const hit = (rel ?? []).filter((id) => chosen.has(id)).length;
    const tok = (ids) => ids.reduce((n, id) => n + (t.candidates.find((c) => c.chunk_id === id)?.tokens ?? 0), 0);
    const base = t.labels.baseline_ids ?? t.candidates.map((c) => c.chunk_id);
    return { relevant: rel === null ? null : rel.length, evidence_recall: rel && rel.length ? hit / rel.length : null,
      precision: rel === null ? null : chosen.size ? hit / chosen.size : 0, relevant_dropped: (rel ?? []).filter((id) => !chosen.has(id)),
      correctly_empty: rel && rel.length === 0 ? chosen.size === 0 : null, baseline_ids: base, baseline_labelled: t.labels.baseline_ids !== null,
      baseline_tokens: tok(base), selected_tokens: tok([...chosen]) };
  };
  // 2,000 candidates, as imported from another retriever: one variant holding every hit.
  const bigRun = { ...trace, run_id: "big-run", origin: "imported", candidates: big.candidates, answer: "", answered_by: "not_answered", support: notAssessed, sources: [], prompt: "", citations: [],
    variants: [{ query: trace.query, hits: big.candidates.map((c, k) => ({ chunk_id: c.chunk_id, rank: k + 1, score: c.score, similarity: null, bm25: null })) }],
    judge: { ...trace.judge, judgments: big.judgments, fresh_passages: BIG, cached_passages: 0 } };
  bigRun.selection = select(policy, big.candidates, big.judgments);
  const runsById = () => ({ [RUN_ID]: trace, "imported-run": imported, "big-run": bigRun });

  // What Rust's replay command sends (ReplayDelta): the selection's summary, the decisions that differ from the
  // stored ones (rank and returned aside: derived) by position and column (a column only when some value differs),
  // the final order when it is not the decision order, the changes as positions, and the label report without a
  // baseline that is every candidate. (The mock's runs keep their order: no `order`, no gone chunks.)
  const COLUMNS = ["input_index", "selected", "score", "jev_rank", "fusion_score", "reason", "conflicting", "skipped_rules"];
  const same = (a, b) => (Array.isArray(a) ? a.join() === b.join() : a === b);
  const sameButDerived = (a, b) => a.chunk_id === b.chunk_id && COLUMNS.every((c) => same(a[c], b[c]));
  function replayDelta(t, options) {
    const judged = t.judge.judgments;
    const selection = select(options, t.candidates, judged);
    const stored = t.selection.decisions;
    const changes = { now: selection.decisions.flatMap((d, i) => (stored[i].reason !== d.reason || stored[i].selected !== d.selected ? [i] : [])), gone: [] };
    const ranked = selection.decisions.flatMap((d, i) => (d.rank == null ? [] : [[d.rank, i]])).sort((a, b) => a[0] - b[0]);
    const inOrder = ranked.every(([, i], k) => k === 0 || ranked[k - 1][1] < i);
    const labels = labelReport(t, selection);
    if (labels && !labels.baseline_labelled) labels.baseline_ids = [];
    const { decisions, selected_ids: _s, returned_ids: _r, ...summary } = selection;
    const at = decisions.flatMap((d, i) => (sameButDerived(stored[i], d) ? [] : [i]));
    const columns = { at };
    for (const c of COLUMNS) columns[c] = at.every((i) => same(stored[i][c], decisions[i][c])) ? null : at.map((i) => decisions[i][c]);
    return {
      run_id: t.run_id, options, changes, labels,
      selection: { ...summary, decisions: columns, order: null, selected_order: inOrder ? null : ranked.map(([, i]) => i) },
    };
  }
  // The mock's stored fit: a calibrated threshold t is the raw threshold 0.9·t.
  const rawThresholds = (o) => ({ policy: { ...o, thresholds: Object.fromEntries(Object.entries(o.thresholds).map(([k, v]) => [k, r3(v * 0.9)])) }, notes: [] });
  const runsList = [
    { id: RUN_ID, created_at: 1735000000, query: trace.query, judge: "jev", prompt_version: "jev-spring-1", made_by: "alice" },
    { id: "older-run", created_at: 1734900000, query: "Is the warranty void after self-repair?", judge: "local", prompt_version: "local-1+jev-spring-1", made_by: "bob" },
  ];
  const settings = {
    embedding_model: "all-minilm-l6-v2-int8", chunk_tokens: 256, overlap_tokens: 32, max_file_mb: 200, extract_timeout_secs: 120,
    embed_batch: 32, embed_threads: 0, top_k: 12, similarity_threshold: 0, expansion_search: 128, ocr: true, ocr_languages: "eng", store: "", user: "", spring_table: "", embedding_endpoint: "", embedding_server_model: "", embedding_api_key_env: "RAGSIFT_API_KEY",
    chat: { backend: "embedded", model_path: null, answer_model_path: null, endpoint: null, model_name: null, api_key_env: "RAGSIFT_API_KEY", context_length: 4096, threads: 0 },
    judge: { kind: "auto", base_url: null, model: null, request: "spring" }, policy, pipeline: { rewrite: false, variants: 0, search_mode: "hybrid", answer_mode: "auto" },
    idle_unload_secs: 600,
    rates: { judge_input_per_million: null, judge_output_per_million: null, generation_input_per_million: null, generation_output_per_million: null },
  };
  const judgeInfo = { kind: "jev", model: "jev-small", calibrated: true, key_set: true, not_assessed: [],
    defaults: { source: "spring", thresholds: { ...DEFAULTS }, min_relevance: null, answer_threshold: 0.55 } };
  const documents = docs.map((d, k) => ({
    id: d.id, path: d.path, title: d.title, kind: "pdf", checksum: "c".repeat(64), size_bytes: 1_200_000 + k * 1000,
    page_count: d.pages, chunk_count: 60 + k, warning: k === 2 ? "2 pages had no extractable text" : null,
    embedding_model: "all-minilm-l6-v2-int8", ingested_at: 1734800000 + k * 3600, renamed: false,
  }));
  function pageView(documentId, page) {
    const d = docs.find((x) => x.id === documentId) || docs[0];
    const parts = [
      `Section ${page}. Résumé of the café installations ☀️ — naïve checks first.\n\n`,
      "Fault code E1xx: the DC isolation check failed. Switch the inverter off, wait for it to cool, then reset it from the menu.\n\n",
      "If the fault repeats three times within a day, contact support; repeated faults are covered by the warranty 🔧.\n",
    ];
    const text = parts.join("");
    const cp = (s) => Array.from(s).length;
    const a = cp(parts[0]); const b = a + cp(parts[1]);
    const onPage = candidates.filter((c) => c.document_id === d.id && c.page_start === page).slice(0, 1);
    const target = onPage[0] ? onPage[0].chunk_id : "chunk-000";
    // Boxes in fractions of the page from its top-left corner (PAGE_BOXES): the target chunk has two on this page and
    // one on the next (not drawn here); "other-2" was ingested before positions were kept (no boxes).
    return {
      document_id: d.id, title: d.title, path: d.path, page, page_count: d.pages, text, ocr: false,
      furniture: ["SLUSA75B – JULY 2010 – REVISED JANUARY 2020", String(page)],
      chunks: [
        { chunk_id: "other-1", index: 0, char_start: 0, char_end: a + 5, section: ["2 Background"],
          boxes: [{ page, x0: 0.1, y0: 0.08, x1: 0.9, y1: 0.25 }] },
        { chunk_id: target, index: 1, char_start: a, char_end: b, section: ["3 Method", "3.2 Training"],
          boxes: [{ page, ...PAGE_BOXES[0] }, { page, ...PAGE_BOXES[1] }, { page: page + 1, x0: 0.1, y0: 0.05, x1: 0.9, y1: 0.2 }] },
        { chunk_id: "other-2", index: 2, char_start: b - 5, char_end: cp(text), section: [], boxes: [] },
      ],
    };
  }
  const PAGE_BOXES = [{ x0: 0.1, y0: 0.3, x1: 0.9, y1: 0.45 }, { x0: 0.1, y0: 0.46, x1: 0.55, y1: 0.52 }];
  window.__MOCK_PAGE_BOXES__ = PAGE_BOXES;
  // A page rendering (an SVG as a data: URL, as the app's PNG is one): 816 × 1056, a letter page at 96 dpi, with grey
  // bars for lines of text.
  const pageImage = (() => {
    let lines = "";
    for (let y = 80; y < 1000; y += 22) lines += `<rect x="82" y="${y}" width="${y % 3 ? 650 : 480}" height="9" fill="#555"/>`;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="816" height="1056" viewBox="0 0 816 1056"><rect width="816" height="1056" fill="#fff"/>${lines}</svg>`;
    return `data:image/svg+xml,${encodeURIComponent(svg)}`;
  })();
  const evalView = (() => {
    const m = (p) => ({ precision: p, evidence_recall: 1 - p / 2, ndcg: 0.7 + p / 5, relevant_dropped: 1 - p, documents: 8 - p * 4, characters: 4000 - p * 1800, context_tokens: 1000 - p * 450, all_evidence_lost: 0.02, correctly_empty: 0.5 + p / 3, answer_correct: null });
    const points = [];
    for (let k = 0; k <= 20; k++) {
      const th = k / 20;
      points.push({ threshold: th, precision: r3(0.35 + 0.6 * Math.pow(th, 0.7)), evidence_recall: k === 20 ? null : r3(1 - Math.pow(th, 1.8)), selected_mean: r3(8 * (1 - th)) });
    }
    const sweep = { policy: "filter", top_n: null, points };
    return {
      report: { cases: 48, sources: ["cases.json"], models: ["jev-small"], answer_quality: "not measured", context_size_unit: "characters",
        context_tokens_estimator: "chars/4", recall_scope: "evidence recall over the judged candidates", ndcg_cutoff: "candidate count",
        min_relevance: 0.5, top_n: null, usage: { input_tokens: 120000, output_tokens: 2400, note: "scoring performed once" }, scoring_p95_ms: 640,
        summary: { baseline: m(0.41), filter: m(0.78), rerank: m(0.52), filter_and_rerank: m(0.81), fusion: m(0.6) }, rows: [] },
      sweep,
    };
  })();

  // ---- the IPC boundary ----
  const callbacks = new Map();
  let nextId = 1;
  function transformCallback(cb, once) {
    const id = nextId++;
    callbacks.set(id, (data) => { if (once) callbacks.delete(id); return cb && cb(data); });
    return id;
  }
  function emit(channel, messages, delay) {
    // Channel messages as core.js expects them: {index, message}, then {index: n, end: true}.
    return new Promise((resolve) => {
      let i = 0;
      const step = () => {
        const cb = callbacks.get(channel.id);
        if (i < messages.length) { if (cb) cb({ index: i, message: messages[i] }); i++; setTimeout(step, delay); }
        else { if (cb) cb({ index: i, end: true }); resolve(); }
      };
      step();
    });
  }
  const tokens = (text) => text.match(/\S+\s*|\s+/g).map((t) => ({ event: "token", text: t }));
  window.__MOCK_IPC_CALLS__ = [];
  /** JSON bytes of a replay sent whole (as before) and as the delta, for the figures. */
  window.__MOCK_REPLAY_SIZES__ = (runId, options) => {
    const t = runsById()[runId];
    const selection = select(options, t.candidates, t.judge.judgments);
    const d = replayDelta(t, options);
    const full = { ...d, selection, labels: labelReport(t, selection) };
    return { full_bytes: JSON.stringify(full).length, delta_bytes: JSON.stringify(d).length, decisions_sent: d.selection.decisions.at.length, changes: d.changes.now.length };
  };
  window.__MOCK_SETTINGS__ = settings;
  const handlers = {
    app_info: () => ({ version: "0.1.0", home: "/home/user/.local/share/ragsift", documents: 3, runs: 2, embedding_model: settings.embedding_model, chat_model: "gemma-3-270m-q4_k_m", judge: judgeInfo, store: { kind: "sqlite", location: "/home/user/.local/share/ragsift/ragsift.db" }, store_mb: 1.2, problems: [] }),
    documents: () => documents,
    library_activity: () => ({ generation: 7, runs: runsList.length, serving: null }),
    serve_snippets: () => [{ client: "Spring AI (Jev proxy)", text: "spring.ai.systemone.base-url=http://127.0.0.1:8000" }],
    // The fixture library has documents: no samples are offered.
    first_run: () => ({ samples: [], suggestions: [] }),
    // No file was opened with the app.
    opened_files: () => [],
    policy_snippets: (a) => [{ client: "Spring AI", text: `spring.ai.decision.filter.threshold=${a.options.thresholds?.is_relevant ?? 0.5}` }],
    // Sweeps are checked against Rust's own in Vitest (replaySweep.test.ts, a fixture Rust writes); here the view
    // falls back to one replay per move, which is what the repaint figures measure.
    replay_sweep: () => { throw { code: "internal", message: "mock: no sweeps; the view replays per move" }; },
    settings: () => settings,
    check_settings: () => [],
    clear_judgment_cache: () => 42,
    save_settings: (a) => { window.__MOCK_SAVED_SETTINGS__ = a.settings; return a.settings; },
    set_judge_key: (a) => ({ ...judgeInfo, key_set: a.key != null }),
    judge_choices: () => [
      { kind: "auto", label: "auto", hint: "Jev when a key is set, else the local judge", decision: false, default_base_url: null, default_model: null, default_key_env: null },
      { kind: "jev", label: "Jev (TypeSafe)", hint: "TypeSafe's System One API; needs a key", decision: true, default_base_url: "https://api.typesafe.ai", default_model: "jev-latest", default_key_env: "TYPESAFE_API_KEY" },
      { kind: "systemone", label: "System One server", hint: "laya-serve, llmman or a gateway", decision: true, default_base_url: "https://api.typesafe.ai", default_model: "jev-latest", default_key_env: "TYPESAFE_API_KEY" },
      { kind: "ollama", label: "Ollama (local decision model)", hint: "Ollama 0.35+ with a decision model", decision: true, default_base_url: "http://localhost:11434", default_model: "d1-omni:600m", default_key_env: "OLLAMA_API_KEY" },
      { kind: "openai", label: "OpenAI Decisions API", hint: "gpt-6-luna", decision: true, default_base_url: "https://api.openai.com", default_model: "gpt-6-luna", default_key_env: "OPENAI_API_KEY" },
      { kind: "local", label: "local model", hint: "the offline judge", decision: false, default_base_url: null, default_model: null, default_key_env: null },
      { kind: "none", label: "none (no filtering)", hint: "every retrieved passage goes to the prompt", decision: false, default_base_url: null, default_model: null, default_key_env: null },
    ],
    rejudge_run: (a) => { const t = structuredClone(runsById()[a.runId] ?? Object.values(runsById())[0]); t.run_id = "rejudged-1"; t.judge.judge = a.kind; t.judge.model = "d1-omni:600m"; return t; },
    compare_judges: (a) => ({
      a: { run_id: a.a, judge: "jev", model: "jev-1.13.0", prompt_version: "jev-filter-v1+useful-evidence-v1" },
      b: { run_id: a.b, judge: "ollama", model: "d1-omni:600m", prompt_version: "jev-filter-v1+useful-evidence-v1" },
      questions: [
        { question: "is_relevant", passages: 50, agreement: 0.7, kappa: 0.4, disagreements: [{ chunk_id: "c7", snippet: "Premium support is not part of the warranty.", a: 0.81, b: 0.22 }], a_accuracy: 0.8, b_accuracy: 0.7 },
        { question: "contains_prompt_injection", passages: 50, agreement: 1, kappa: null, disagreements: [], a_accuracy: null, b_accuracy: null },
      ],
      unmatched: 0,
    }),
    test_judge: (a) => {
      if ((a.judge.model ?? "d1-omni:600m") !== "d1-omni:600m") throw { code: "judge", message: `the server has no model ${a.judge.model} (ollama pull ${a.judge.model})` };
      return { judge: `${a.judge.kind} · ${a.judge.model ?? "d1-omni:600m"}`, endpoint: "http://localhost:11434/v1/systemone", relevant: 0.93, latency_ms: 41 };
    },
    save_default_policy: () => settings,
    runs: () => runsList,
    run: (a) => { const t = runsById()[a.id]; if (t) return t; throw { code: "not_found", message: `no run '${a.id}'` }; },
    replay: (a) => {
      const t = runsById()[a.runId];
      if (!t) throw { code: "not_found", message: `no run '${a.runId}'` };
      // Through JSON, as Tauri's IPC carries it (its cost counts in the repaint measure).
      // With calibrated thresholds Rust reads them through the judge's fit in the same call.
      const options = a.calibrated ? rawThresholds(a.options).policy : a.options;
      window.__MOCK_REPLAY_CALIBRATED__ = a.calibrated === true;
      const json = JSON.stringify({ ...replayDelta(t, options), threshold_notes: [] });
      (window.__MOCK_REPLAY_BYTES__ ||= []).push(json.length);
      return JSON.parse(json);
    },
    // Rust's PolicyOptions::for_form and judge_form (crates/policy/src/options.rs): every threshold from the options,
    // then the run's judge's defaults, then Spring's; a minimum relevance in every mode.
    policy_form: (a) => {
      const t = runsById()[a.runId];
      if (!t) throw { code: "not_found", message: `no run '${a.runId}'` };
      const d = t.judge.defaults ?? {};
      const spring = { contains_prompt_injection: 0.7, contradicts_query_premise: 0.7, is_relevant: 0.45, contains_answer_evidence: 0.55 };
      const form = (o) => ({ ...o, thresholds: { ...spring, ...(d.thresholds ?? {}), ...o.thresholds }, min_relevance: o.min_relevance ?? d.min_relevance ?? 0 });
      return { options: form(a.options), judge_defaults: form({ ...a.options, thresholds: {}, min_relevance: null }) };
    },
    import_candidates: (a) => {
      const req = JSON.parse(a.json);
      if (!Array.isArray(req.documents)) throw { code: "invalid", message: "invalid candidates: documents: Field required" };
      window.__MOCK_IMPORTED__ = a.judge;
      return imported;
    },
    import_candidates_file: () => imported,
    set_run_labels: (a) => { const t = runsById()[a.runId]; t.labels = a.labels; return t; },
    export_run: (a) => { window.__MOCK_EXPORTED__ = [a.runId, a.path]; return a.path; },
    import_run: () => runsList[0],
    calibrate: (a) => {
      const m = (r, t) => ({ evidence_recall: r, precision: 0.5 + r / 4, context_tokens: t, documents: t / 120 });
      const row = (mode, min, top, r, t, chosen) => ({ version: `${mode}-${min ?? top}`, label: min != null ? `${mode} ≥ ${min}` : `${mode} top ${top}`,
        policy: { ...policy, mode, min_relevance: min, top_n: top, thresholds: {} }, development: m(r, t), eligible: r >= a.form.min_recall, chosen });
      const grid = [row("filter", 0.2, null, 1, 900, false), row("filter", 0.35, null, 0.98, 610, true), row("filter", 0.5, null, 0.9, 420, false), row("rerank", null, 3, 0.85, 380, false)];
      return { grid, frozen_policy: grid[1].policy, frozen_label: grid[1].label, reason: null, min_recall: a.form.min_recall,
        held_out_baseline: m(1, 1100), held_out_frozen: m(0.97, 640),
        context_token_difference: { delta: -460, low: -520, high: -395, questions: 24, independent_units: 12, scope: "paired bootstrap by family" },
        evidence_recall_difference: { delta: -0.03, low: -0.07, high: 0, questions: 24, independent_units: 12, scope: "paired bootstrap by family" },
        development_questions: 30, evaluation_questions: 24, freeze_hash: "a".repeat(64), frozen_path: `${a.form.report}.frozen.json`, report_path: a.form.report };
    },
    open_review_packet: () => ({ packet_id: "p".repeat(16), status: "pending", instructions: "Judge each answer on its own against the question and the evidence.",
      items: [{ item_id: "item-1", query: trace.query, reference_answers: ["The DC isolation check failed."],
        full_candidate_evidence: sources.map((s) => ({ number: s.number, title: s.title, pages: `p. ${s.page_start}`, text: s.text })),
        answers: { A: { text: "It means the DC isolation check failed [1]." }, B: { text: "Reset the inverter." } } }] }),
    compare: (a) => {
      // The typed source of the questions, as Rust's CaseSource crosses IPC: { kind: "labels" } or { kind: "file", path }.
      const src = a.cases;
      if (!src || (src.kind !== "labels" && !(src.kind === "file" && typeof src.path === "string" && src.path))) {
        throw { code: "invalid", message: `mock: bad case source ${JSON.stringify(src)}` };
      }
      window.__MOCK_COMPARE_SOURCE__ = src;
      const side = (id, r, t, fresh) => ({ run_id: id, evidence_recall: r, precision: 0.5, context_tokens: t, documents: 3, candidates: 4, fresh_judgments: fresh, cached_judgments: 4 - fresh, judge_input_tokens: fresh * 100, judge_output_tokens: fresh });
      const sum = (name, r, t, fresh) => ({ config: { name, chunk_tokens: null, options: { ...settings, policy } }, evidence_recall: r, precision: 0.5, context_tokens: t, documents: 3, fresh_judgments: fresh, cached_judgments: 8 - fresh, judge_input_tokens: fresh * 100, judge_output_tokens: fresh });
      return { cases: 2, recall_scope: "labelled evidence either config retrieved", a: sum("A", 1, 900, 8), b: sum("B", 0.5, 400, 0),
        questions: [{ id: "q1", query: trace.query, evidence: 2, a: side("ra", 1, 900, 4), b: side("rb", 0.5, 400, 0), delta: { evidence_recall: -0.5, precision: 0, context_tokens: -500 },
          kept_only_a: [{ chunk_id: "chunk-001", document: "/library/warranty-terms.pdf", page_start: 8, page_end: 8,
            text: "Section 4.2 Error codes. Fault code E1xx means the DC isolation check failed: reset the inverter after it has cooled. Other codes are listed in the appendix." }],
          kept_only_b: [], retrieved_only_a: [], retrieved_only_b: [] }] };
    },
    label_chunk: (a) => { (window.__MOCK_LABELS__ ||= []).push([a.runId, a.chunkId, a.relevant]); return []; },
    label_span: (a) => ({ id: "s1", question: "q", document_id: a.documentId, checksum: "c", page: a.page, char_start: a.charStart, char_end: a.charEnd, text: "span", relevant: true, labelled_by: "alice", labelled_at: 1, run_id: a.runId }),
    labels: () => [{ id: "s1", question: "what does fault code e1xx mean?", document_id: "doc-a", checksum: "c", page: 3, char_start: 10, char_end: 40, text: "the DC isolation check failed", relevant: true, labelled_by: "alice", labelled_at: 1, run_id: RUN_ID }],
    remove_label: () => null,
    update_label: () => null,
    calibrated_scores: (a) => (runsById()[a.runId] ?? trace).judge.judgments.map((j) => ({ is_relevant: r3(j.answers.is_relevant * 0.8), contains_answer_evidence: r3(j.answers.contains_answer_evidence * 0.9) })),
    calibrate_judge: () => ({ runs_read: 2, runs_labelled: 1, stored: "/home/user/.local/share/ragsift/judge-calibration.json", judges: [{ judge: "jev", model: "jev-small", prompt_version: "p", runs: 1,
      questions: { is_relevant: { n: 200, auc: 0.81, brier_raw: 0.21, brier_calibrated: 0.16, method: "platt", note: null,
        bins: [0.1, 0.3, 0.5, 0.7, 0.9].map((p) => ({ p_mean: p, frac_positive: p * 0.6, n: 40 })), bins_calibrated: [0.1, 0.3, 0.5, 0.7, 0.9].map((p) => ({ p_mean: p * 0.6, frac_positive: p * 0.6, n: 40 })) } } }] }),
    run_curves: () => [{ mode: "classify", parameter: "is_relevant", current: 2,
      points: [0.2, 0.35, 0.45, 0.6, 0.75].map((v, i) => ({ value: v, evidence_recall: 1 - i * 0.2, precision: 0.4 + i * 0.1, context_tokens: 4000 - i * 800, documents: 20 - i * 4,
        options: { ...policy, thresholds: { ...DEFAULTS, is_relevant: v } } })) }],
    ablate: () => ({ run_id: RUN_ID, query: trace.query, candidates: N, labelled: false, variants: trace.variants.map((v, i) => ({ variant: i, query: v.query, candidates: v.hits.length, unique_ids: v.hits.slice(0, 3).map((h) => h.chunk_id),
      relevant_found: null, unique_relevant_ids: null, tokens: 2000, unique_tokens: 400, unique_judge_tokens: 930, unique_selected_ids: [], unique_selected_tokens: 0 })) }),
    export_review_labels: (a) => { window.__MOCK_REVIEW_LABELS__ = a.labels; return a.path; },
    page: (a) => pageView(a.documentId, a.page),
    page_image: () => pageImage,
    cancel: () => true,
    remove_document: (a) => documents.find((d) => d.id === a.id),
    rename_document: (a) => {
      const d = documents.find((x) => x.id === a.id);
      if (!d) throw { code: "not_found", message: `no document '${a.id}' in the library` };
      const title = a.title.split(/\s+/).filter(Boolean).join(" ");
      if (!title) throw { code: "invalid", message: "invalid input: a title cannot be blank" };
      d.title = title;
      d.renamed = true;
      return d;
    },
    evaluate: () => evalView,
    ask: async (a) => {
      await emit(a.onEvent, [{ event: "stage", stage: "retrieving" }, { event: "stage", stage: "judging" }, { event: "stage", stage: "generating" }, ...tokens(answer)], 5);
      return trace;
    },
    regenerate: async (a) => {
      const s = select(a.options);
      const t2 = { ...trace, run_id: "regen-run", selection: s, sources: sourcesFrom(s), answer: "After re-selection: reset the inverter once it has cooled [1]." };
      await emit(a.onEvent, [{ event: "stage", stage: "generating" }, ...tokens(t2.answer)], 5);
      return t2;
    },
    ingest: async (a) => {
      await emit(a.onEvent, [
        { event: "scanned", files: 2 },
        { event: "file_started", file: 0, total: 2, path: "/in/new.pdf" },
        { event: "extracted", file: 0, pages: 3, chunks: 9 },
        { event: "embedding", file: 0, done: 9, total: 9 },
        { event: "file_finished", file: 0, total: 2, path: "/in/new.pdf", status: "ingested" },
        { event: "file_started", file: 1, total: 2, path: "/in/locked.pdf" },
        { event: "file_finished", file: 1, total: 2, path: "/in/locked.pdf", status: "failed" },
        { event: "saving" },
      ], 5);
      return { files: [
        { path: "/in/new.pdf", status: "ingested", document_id: "doc-new", pages: 3, chunks: 9, error_code: null, error: null, warning: null },
        { path: "/in/locked.pdf", status: "failed", pages: 0, chunks: 0, error_code: "encrypted", error: "encrypted PDF", warning: null },
      ] };
    },
  };
  window.__TAURI_INTERNALS__ = {
    invoke: async (cmd, args) => {
      window.__MOCK_IPC_CALLS__.push(cmd);
      const h = handlers[cmd];
      if (!h) throw { code: "internal", message: `mock: no handler for ${cmd}` };
      return h(args || {});
    },
    transformCallback,
    unregisterCallback: (id) => callbacks.delete(id),
    runCallback: (id, data) => { const cb = callbacks.get(id); if (cb) cb(data); },
    callbacks,
    convertFileSrc: (p) => p,
  };
})();
