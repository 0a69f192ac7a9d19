// Headless Chromium test of the built UI with Tauri's IPC mocked at the boundary (mock-ipc.js):
// replay repaint latency over 200 and 2,000 candidates (windowed tables), plus light/dark screenshots of every view.
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const dist = join(root, "dist");
const results = join(root, "test-results");
const shots = join(results, "screenshots");
mkdirSync(shots, { recursive: true });

// The app's CSP from src-tauri/tauri.conf.json, so a CSP violation shows up here too.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-src 'none'";
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png", ".json": "application/json" };

const server = createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  let file = normalize(join(dist, decodeURIComponent(url.pathname)));
  if (!file.startsWith(dist)) { res.writeHead(403).end(); return; }
  try { if (statSync(file).isDirectory()) file = join(file, "index.html"); } catch { file = join(dist, "index.html"); }
  try {
    const body = readFileSync(file);
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "content-security-policy": CSP });
    res.end(body);
  } catch { res.writeHead(404).end(); }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}/`;

const failures = [];
const check = (ok, msg) => { if (!ok) failures.push(msg); console.log(`${ok ? "ok  " : "FAIL"} ${msg}`); };

const userDataDir = mkdtempSync(join(tmpdir(), "ragsift-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1280, height: 800 },
});
const problems = [];
try {
  await context.addInitScript({ path: join(here, "mock-ipc.js") });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });

  // ---- Replay repaint, over 200 and over 2,000 candidates (the table is windowed: only rows in view are in the DOM) ----
  const rowCount = (table) => page.$eval(`[data-testid="${table}"]`, (el) => Number(el.getAttribute("aria-rowcount")) - 1);
  const rendered = (css) => page.locator(css).count();
  /** Drags threshold-is_relevant over 40 values; returns the repaint figures (input → painted frame). */
  async function measureRepaint(runId, candidates) {
    await page.goto(`${base}#/replay?run=${runId}`);
    await page.waitForFunction((n) => document.querySelector('[data-testid="view-replay"] [data-testid="replay-table"]')?.getAttribute("aria-rowcount") === String(n + 1), candidates);
    await page.waitForSelector('[data-testid="view-replay"] [data-testid="replay-row"]');
    const total = await rowCount("replay-table");
    const inDom = await rendered('[data-testid="view-replay"] [data-testid="replay-row"]');
    check(total === candidates, `replay of ${runId} has ${candidates} candidate rows (aria-rowcount: ${total})`);
    check(inDom > 0 && inDom < Math.min(candidates, 150), `only the rows in view are rendered (${inDom} of ${candidates})`);
    const before = await page.$$eval('[data-testid="replay-row"]', (els) => els.map((e) => e.getAttribute("data-reason")));

    await page.evaluate(() => performance.clearMeasures("replay-repaint"));
    const values = [];
    for (let k = 0; k < 40; k++) values.push((0.05 + (k * 0.9) / 39).toFixed(2));
    for (let k = 0; k < values.length; k++) {
      await page.evaluate((v) => {
        const el = document.querySelector('[data-testid="threshold-is_relevant"]');
        el.value = v;
        el.dispatchEvent(new Event("input", { bubbles: true }));
      }, values[k]);
      await page.waitForFunction((n) => performance.getEntriesByName("replay-repaint").length >= n, k + 1, { timeout: 5000 });
      if (k === 20 && runId === "fixture-run") {
        await page.screenshot({ path: join(shots, "replay-moved-light.png") });
      }
    }
    // The rows in view (the top of the table) follow the new selection.
    const after = await page.$$eval('[data-testid="replay-row"]', (els) => els.map((e) => e.getAttribute("data-reason")));
    check(after.some((r, i) => r !== before[i]), `${runId}: moving threshold-is_relevant changed at least one row's data-reason`);
    const changedRows = await page.locator('[data-testid="replay-row"][data-changed="true"]').count();
    check(changedRows > 0, `${runId}: rows differing from the run's selection are flagged (data-changed=true: ${changedRows})`);
    const durations = await page.evaluate(() => performance.getEntriesByName("replay-repaint").map((e) => e.duration));
    const sorted = [...durations].sort((a, b) => a - b);
    const q = (p) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
    const stats = { median: +q(0.5).toFixed(2), p95: +q(0.95).toFixed(2), max: +sorted[sorted.length - 1].toFixed(2), n: sorted.length, candidates: total };
    check(stats.n >= 40, `${runId}: collected ${stats.n} repaint measures`);
    check(stats.median < 16.7, `${runId}: median repaint ${stats.median} ms < 16.7 ms`);
    check(stats.p95 < 33, `${runId}: p95 repaint ${stats.p95} ms < 33 ms`);
    return stats;
  }
  /** Scrolls a windowed table to its end: the last row renders, with its test id, under a header still in view. */
  async function scrollToEnd(wrapCss, rowCss, lastId) {
    await page.$eval(wrapCss, (el) => { el.scrollTop = el.scrollHeight; });
    await page.waitForSelector(`${rowCss}[data-chunk-id="${lastId}"]`, { timeout: 5000 });
    const last = await page.$eval(`${rowCss}[data-chunk-id="${lastId}"]`, (tr) => {
      const box = tr.getBoundingClientRect();
      const view = tr.closest(".table-wrap").getBoundingClientRect();
      return box.bottom <= view.bottom + 1 && box.top >= view.top;
    });
    check(last, `${wrapCss}: scrolled to the end, the last row (${lastId}) is in view`);
    const [headTop, wrapTop] = await page.$eval(wrapCss, (el) => [el.querySelector("th").getBoundingClientRect().top, el.getBoundingClientRect().top]);
    check(Math.abs(headTop - wrapTop) < 2, `${wrapCss}: the header stays in view at the end of the table`);
    await page.$eval(wrapCss, (el) => { el.scrollTop = 0; });
  }

  /** The Page view lays the chosen chunk's boxes over the page image (percentages of it), follows the chunk pointed
   * at, and says why a chunk ingested before positions were kept has none. */
  async function checkPageOverlay() {
    const view = '[data-testid="view-page"]';
    await page.waitForFunction(() => document.querySelector('[data-testid="page-image"]')?.complete);
    const want = await page.evaluate(() => window.__MOCK_PAGE_BOXES__);
    const boxes = await page.$$eval(`${view} [data-testid="page-box"]`, (els) => els.map((el) => {
      const img = el.parentElement.querySelector("img").getBoundingClientRect();
      const r = el.getBoundingClientRect();
      return {
        style: [el.style.left, el.style.top, el.style.width, el.style.height], label: el.getAttribute("aria-label"),
        chunk: el.getAttribute("data-chunk-id"), position: getComputedStyle(el).position,
        // Where it sits, in fractions of the rendered image.
        at: [(r.left - img.left) / img.width, (r.top - img.top) / img.height, (r.right - img.left) / img.width, (r.bottom - img.top) / img.height],
      };
    }));
    const highlighted = await page.locator(`${view} [data-testid="chunk-highlight"]`).count();
    check(boxes.length === 2, `the Page view overlays the chunk's 2 boxes on this page, not the one on the next page (${boxes.length})`);
    check(boxes[0]?.style.join(" ") === "10% 30% 80% 15%" && boxes[1]?.style.join(" ") === "10% 46% 45% 6%",
      `the boxes are placed in percent of the page image (${boxes.map((b) => b.style.join(" ")).join(" | ")})`);
    const off = Math.max(...boxes.flatMap((b, k) => { const w = want[k]; return [b.at[0] - w.x0, b.at[1] - w.y0, b.at[2] - w.x1, b.at[3] - w.y1].map(Math.abs); }));
    check(boxes.length === 2 && off < 0.005, `the boxes lie where the fractions say on the rendered image (largest error ${off.toFixed(4)})`);
    check(boxes.every((b) => b.position === "absolute" && /on the page/.test(b.label ?? "")), `the boxes are positioned absolutely, with a label (${boxes[0]?.label})`);
    check(highlighted === 1, "the text keeps the chunk's highlight beside the image");
    check((await page.locator(`${view} [data-testid="page-no-boxes"]`).count()) === 0, "no 'not marked' note for a chunk with boxes on this page");
    const furniture = await page.$$eval(`${view} [data-testid="page-furniture"] li`, (els) => els.map((el) => el.textContent));
    check(furniture.length === 2 && /SLUSA75B/.test(furniture[0] ?? ""), `the page's furniture is listed apart from its text (${furniture.join(" | ")})`);
    const inText = await page.locator(`${view} [data-testid="page-text"]`).textContent();
    check(!/SLUSA75B/.test(inText ?? ""), "the furniture is not in the page text");
    const section = await page.locator(`${view} [data-testid="chunk-section"]`).textContent();
    check(section === "3 Method › 3.2 Training", `the chunk's section path is shown (${section})`);
    // Pointing at another chunk in the text moves the overlay to it.
    await page.hover(`${view} [data-testid="page-text"] [data-chunk-id="other-1"]`);
    await page.waitForSelector(`${view} [data-testid="page-box"][data-chunk-id="other-1"]`, { timeout: 5000 });
    const pointed = await page.$$eval(`${view} [data-testid="page-box"]`, (els) => els.map((el) => el.style.top));
    check(pointed.join() === "8%", `hovering another chunk moves the overlay to its box (${pointed.join()})`);
    // A chunk without boxes (ingested before positions were kept): no overlay, and a note saying why.
    await page.mouse.move(5, 5);
    await page.click(`${view} [data-testid="chunk-pick"][data-chunk-id="other-2"]`);
    await page.waitForSelector(`${view} [data-testid="page-no-boxes"]`, { timeout: 5000 });
    const none = await page.locator(`${view} [data-testid="page-box"]`).count();
    const note = await page.locator(`${view} [data-testid="page-no-boxes"]`).textContent();
    check(none === 0 && /before .*positions/.test(note ?? "") && /[Rr]e-ingest/.test(note ?? ""), `a chunk without boxes has no overlay and a note (${none}; ${note})`);
    // Selecting the first chunk back by its button.
    const firstId = await page.locator(`${view} [data-testid="chunk-pick"]`).nth(1).getAttribute("data-chunk-id");
    await page.click(`${view} [data-testid="chunk-pick"] >> nth=1`);
    await page.waitForSelector(`${view} [data-testid="page-box"][data-chunk-id="${firstId}"]`, { timeout: 5000 });
    check(true, "choosing a chunk in the chunk bar highlights it on the image");
  }

  const stats = await measureRepaint("fixture-run", 200);
  await scrollToEnd('[data-testid="view-replay"] .replay-table-wrap', '[data-testid="replay-row"]', "chunk-199");
  const stats2000 = await measureRepaint("big-run", 2000);
  await scrollToEnd('[data-testid="view-replay"] .replay-table-wrap', '[data-testid="replay-row"]', "big-1999");
  const bytes = await page.evaluate(() => ({
    near_the_run: window.__MOCK_REPLAY_SIZES__("big-run", { ...window.__MOCK_SETTINGS__.policy, thresholds: { ...window.__MOCK_SETTINGS__.policy.thresholds, is_relevant: 0.5 } }),
    far_from_the_run: window.__MOCK_REPLAY_SIZES__("big-run", { ...window.__MOCK_SETTINGS__.policy, thresholds: { ...window.__MOCK_SETTINGS__.policy.thresholds, is_relevant: 0.9 } }),
  }));
  const line = JSON.stringify({ replay_repaint_ms: stats, replay_repaint_ms_2000: stats2000, replay_ipc_bytes_2000: bytes });
  console.log(line);
  writeFileSync(join(results, "replay-repaint.json"), line + "\n");
  // The Inspector over 2,000 candidates: the judge table and the variant's hits are windowed too.
  await page.goto(`${base}#/inspector?run=big-run`);
  await page.waitForFunction(() => document.querySelector('[data-testid="judge-table"]')?.getAttribute("aria-rowcount") === "2001");
  const judgeInDom = await rendered('[data-testid="judge-row"]');
  check(judgeInDom > 0 && judgeInDom < 150, `the Inspector renders ${judgeInDom} of 2,000 judge rows`);
  const allRows = await page.locator('[data-testid="view-inspector"] tr').count();
  check(allRows < 600, `the Inspector's three candidate tables hold ${allRows} rows in the DOM, not 3 × 2,000`);
  await scrollToEnd('[data-testid="view-inspector"] .judge-table-wrap', '[data-testid="judge-row"]', "big-1999");

  // ---- Screenshots of every view, light and dark ----
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.click('[data-testid="nav-library"]');
    await page.waitForSelector('[data-testid="doc-row"]');
    if (scheme === "light") {
      await page.fill('[data-testid="ingest-path"]', "/in");
      await page.click('[data-testid="ingest-add"]');
      await page.waitForSelector('[data-testid="file-row"][data-status="failed"]');
      const statuses = await page.$$eval('[data-testid="file-row"]', (els) => els.map((e) => e.getAttribute("data-status")));
      check(statuses.join() === "ingested,failed", `ingest batch rows end as ingested, failed (${statuses.join()})`);
      const msg = await page.locator(".file-error").first().textContent();
      check(/password-protected/.test(msg ?? ""), "encrypted PDF explained in plain words");
    }
    await page.screenshot({ path: join(shots, `library-${scheme}.png`) });

    await page.click('[data-testid="nav-chat"]');
    await page.fill('[data-testid="chat-input"]', "What does fault code E1xx mean?");
    await page.press('[data-testid="chat-input"]', "Enter");
    await page.waitForSelector('[data-testid="answer"][data-state="done"]');
    const cites = await page.locator('[data-testid="citation"]').count();
    check(cites >= 4, `answer renders citation buttons (${cites})`);
    const supportWords = await page.locator('[data-testid="answer-support"]').first().innerText().catch(() => "");
    check(supportWords.includes("weakly supported — check the source"), `Chat says how well the answer is supported ("${supportWords}")`);
    if (scheme === "light") {
      const quote = page.locator('[data-testid="answer"][data-state="done"] [data-testid="answer-quote"]').first();
      const quoted = await quote.innerText();
      const inside = await quote.locator('[data-testid="citation"]').count();
      check(quoted.includes("[3, 1]") && inside === 0, `a quote's own brackets "[3, 1]" are text, not citation chips (${inside} chips inside "${quoted}")`);
      const marked = await page.locator('.sources [data-testid="quoted-sentence"]').first().innerText().catch(() => "");
      check(marked.includes("reset after cooling"), `the Sources panel marks the quoted sentence in its passage ("${marked}")`);
      const focused = await page.evaluate(() => document.activeElement?.getAttribute("data-testid"));
      check(focused === "chat-input", `Chat focuses the question box (${focused})`);
    }
    await page.screenshot({ path: join(shots, `chat-${scheme}.png`) });

    if (scheme === "light") {
      // A source's section path shows beside its title in Chat's Sources.
      const sourceSections = await page.locator('.sources [data-testid="section-path"]').allTextContents();
      check(sourceSections.some((t) => t.includes("3 Method › 3.2 Training")), `Chat's sources show their section path (${sourceSections.join(" | ")})`);
    }
    await page.click('[data-testid="citation"] >> nth=0');
    await page.waitForSelector('[data-testid="view-page"] [data-testid="chunk-highlight"]');
    await page.waitForSelector('[data-testid="view-page"] [data-testid="page-box"]');
    if (scheme === "light") await checkPageOverlay();
    await page.screenshot({ path: join(shots, `page-${scheme}.png`) });

    await page.click('[data-testid="nav-chat"]');
    await page.click('[data-testid="open-inspector"] >> nth=0');
    await page.waitForSelector('[data-testid="judge-row"]');
    // (The Inspector showed the 2,000-candidate run before: wait for the chat's run to replace it.)
    await page.waitForFunction(() => document.querySelector('[data-testid="judge-table"]')?.getAttribute("aria-rowcount") === "201", null, { timeout: 5000 }).catch(() => {});
    const judgeRows = await rowCount("judge-table");
    check(judgeRows === 200, `inspector judge table has 200 rows (aria-rowcount: ${judgeRows})`);
    const supportNumber = await page.locator('[data-testid="support-probability"]').innerText().catch(() => "");
    check(supportNumber === "0.62", `the Inspector shows the support probability (${supportNumber})`);
    if (scheme === "light") {
      // Reason first at 1280 px: every rendered row's decision, reason and snippet lie inside the viewport's width,
      // and the table needs no horizontal scroll.
      const fit = await page.evaluate(() => {
        const wrap = document.querySelector('[data-testid="view-inspector"] .judge-table-wrap');
        const out = { rows: 0, outside: [], scroll: wrap ? wrap.scrollWidth - wrap.clientWidth : -1, page: document.documentElement.scrollWidth - window.innerWidth };
        for (const row of document.querySelectorAll('[data-testid="view-inspector"] [data-testid="judge-row"]')) {
          out.rows++;
          for (const sel of ['[data-testid="decision-cell"] > span', '[data-testid="decision-cell"] .reason', '[data-testid="passage-snippet"]']) {
            const el = row.querySelector(sel);
            const b = el?.getBoundingClientRect();
            if (!b || b.width === 0 || b.left < 0 || b.right > window.innerWidth) out.outside.push(`${row.getAttribute("aria-rowindex")} ${sel}`);
          }
        }
        return out;
      });
      check(fit.rows > 0 && fit.outside.length === 0 && fit.scroll <= 0 && fit.page <= 0,
        `the Inspector's decision, reason and snippet fit 1280 px with no horizontal scroll (${fit.rows} rows; outside: ${fit.outside.slice(0, 3).join(", ") || "none"}; scroll ${fit.scroll}, page ${fit.page})`);
      const snippet = await page.locator('[data-testid="judge-row"] [data-testid="passage-snippet"]').first().innerText();
      const marked = await page.locator('[data-testid="judge-row"] [data-testid="passage-snippet"] mark').count();
      check(snippet.length > 0 && marked > 0, `each row shows what its passage says, the question's words marked (${marked} marks)`);
      await page.locator('[data-testid="judge-row"] [data-testid="passage-expand"]').first().click();
      check(await page.locator('[data-testid="judge-row"] [data-testid="passage-full"]').count() === 1, "a row expands inline to the whole passage");
      await page.locator('[data-testid="judge-row"] [data-testid="passage-expand"]').first().click();
    }
    await page.screenshot({ path: join(shots, `inspector-${scheme}.png`) });

    await page.click('[data-testid="nav-replay"]');
    await page.waitForSelector('[data-testid="view-replay"] [data-testid="replay-row"]');
    if (scheme === "light") {
      const groupings = await page.$$eval('[data-testid="replay-group-by"] option', (os) => os.map((o) => `${o.value}:${o.textContent}`));
      check(groupings.join() === "none:none,document:document,page:page,section:section", `Replay offers grouping by section (${groupings.join()})`);
      // Shadow mode is a filter not applied: Rust's integrity warning (here the mock's) shows as a banner.
      await page.locator('label.check', { hasText: "shadow" }).locator("input").check();
      await page.waitForSelector('[data-testid="integrity-warnings"] li[data-kind="not_applied"]');
      check(true, "an integrity warning shows when the filter is not applied (shadow)");
      await page.locator('label.check', { hasText: "shadow" }).locator("input").uncheck();
      await page.waitForSelector('[data-testid="integrity-warnings"]', { state: "detached" });
      // The relevance slider's ticks are the candidates' relevance scores; a drag across one tick flips that row.
      const tickValues = (await page.getAttribute('[data-testid="ticks-threshold-is_relevant"]', "data-values")).split(",").map(Number);
      const rowTotal = Number(await page.getAttribute('[data-testid="replay-table"]', "aria-rowcount")) - 1;
      check(tickValues.length === rowTotal && tickValues.every((v) => v >= 0 && v <= 1),
        `the relevance slider has a tick per candidate's score (${tickValues.length} ticks, ${rowTotal} candidates)`);
      // Pin a passage the run dropped: the replay keeps it, as `pinned`.
      const dropped = page.locator('[data-testid="replay-row"][data-reason="not_relevant"]').first();
      const id = await dropped.getAttribute("data-chunk-id");
      await dropped.locator('[data-testid="replay-pin"]').check();
      await page.waitForSelector(`[data-testid="replay-row"][data-chunk-id="${id}"][data-reason="pinned"]`);
      check(true, "a pin from the Replay table keeps a dropped passage (pinned)");
      await page.click('[data-testid="regenerate"]');
      await page.waitForSelector('[data-testid="regenerate-compare"] .sources');
    }
    await page.screenshot({ path: join(shots, `replay-${scheme}.png`) });

    await page.click('[data-testid="nav-settings"]');
    await page.waitForSelector('[data-testid="settings-save"]');
    await page.screenshot({ path: join(shots, `settings-${scheme}.png`) });
    if (scheme === "light") {
      // The defaults as loaded save unchanged: the form adds, drops and rewrites nothing.
      await page.click('[data-testid="settings-save"]');
      await page.waitForFunction(() => window.__MOCK_SAVED_SETTINGS__ !== undefined);
      const same = await page.evaluate(() => JSON.stringify(window.__MOCK_SAVED_SETTINGS__) === JSON.stringify(window.__MOCK_SETTINGS__));
      check(same, "the Settings form saves the loaded settings unchanged");
      const errors = await page.locator('[data-testid="view-settings"] [aria-invalid="true"]').count();
      check(errors === 0, `no field is flagged on the loaded settings (${errors})`);
      await page.click('[data-testid="clear-judgment-cache"]');
      const note = await page.locator('[data-testid="cache-cleared"]').textContent();
      check(note.includes("42"), `clearing the judgment cache says how many answers went (${note})`);
      // The judges come from Rust's list; a decision model shows its URL, model and key fields and can be tested.
      const kinds = await page.locator('[data-testid="judge-kind"] option').evaluateAll((os) => os.map((o) => o.value));
      check(kinds.join(",") === "auto,jev,systemone,ollama,openai,local,none", `every judge is offered (${kinds})`);
      await page.selectOption('[data-testid="judge-kind"]', "ollama");
      const placeholder = await page.getAttribute('[data-testid="judge-base-url"]', "placeholder");
      check(placeholder === "http://localhost:11434", `Ollama's default URL is shown (${placeholder})`);
      await page.click('[data-testid="judge-test"]');
      const ok = await page.locator('[data-testid="judge-test-ok"]').textContent();
      check(ok.includes("ollama · d1-omni:600m") && ok.includes("0.93"), `Test connection shows the model's answer (${ok})`);
      await page.fill('[data-testid="judge-model"]', "nimble:350m");
      await page.click('[data-testid="judge-test"]');
      const failed = await page.locator('[data-testid="judge-test-error"]').textContent();
      check(failed.includes("ollama pull nimble:350m"), `Test connection says why not, in plain words (${failed})`);
      await page.selectOption('[data-testid="judge-kind"]', "local");
      check((await page.locator('[data-testid="judge-base-url"]').count()) === 0, "the local judge has no URL to set");
      await page.selectOption('[data-testid="judge-kind"]', "auto");
    }

    await page.click('[data-testid="nav-eval"]');
    if (scheme === "light") {
      // Compare judges: judge a run again with Ollama, and see κ per question ("not assessed" where it is undefined).
      await page.waitForSelector('[data-testid="cj-a"] option:nth-child(2)', { state: "attached" });
      const first = await page.locator('[data-testid="cj-a"] option').nth(1).getAttribute("value");
      await page.selectOption('[data-testid="cj-a"]', first);
      await page.selectOption('[data-testid="cj-kind"]', "ollama");
      await page.click('[data-testid="cj-rejudge"]');
      await page.waitForSelector('[data-testid="cj-result"]');
      const kappas = await page.locator('[data-testid="cj-kappa"]').allTextContents();
      check(kappas.join("|") === "0.40|not assessed", `compare judges shows κ per question (${kappas.join("|")})`);
      const head = await page.locator('[data-testid="cj-result"] p').first().textContent();
      check(head.includes("ollama · d1-omni:600m"), `the comparison names both judges (${head})`);
    }
    await page.fill('[data-testid="eval-cases"]', "/cases.json");
    await page.click('[data-testid="eval-run"]');
    await page.waitForSelector('[data-testid="sweep-plot"] path.line-precision');
    await page.screenshot({ path: join(shots, `eval-${scheme}.png`), fullPage: true });
  }

  // ---- Import candidates → Replay with labels → Export ----
  await page.click('[data-testid="nav-import"]');
  await page.fill('[data-testid="import-json"]', JSON.stringify({ query: "q", documents: [{ id: "a", text: "t" }], relevant_ids: ["a"] }));
  await page.click('[data-testid="import-submit"]');
  await page.waitForSelector('[data-testid="import-result"]');
  await page.waitForSelector('[data-testid="view-import"] [data-testid="judge-row"]');
  {
    // Right after the import, every imported candidate is listed reason first, as the Inspector lists a run's: its
    // decision and reason from the run's selection, and what its passage says; all of it inside 1280 px.
    const run = await page.evaluate(() => window.__TAURI_INTERNALS__.invoke("run", { id: "imported-run" }));
    const rows = await page.$$eval('[data-testid="view-import"] [data-testid="judge-row"]', (rs) => rs.map((r) => ({
      id: r.getAttribute("data-chunk-id"),
      reason: r.getAttribute("data-reason"),
      decision: r.querySelector('[data-testid="decision-cell"] > span')?.textContent ?? "",
      reasonText: r.querySelector('[data-testid="decision-cell"] .reason')?.textContent ?? "",
      snippet: r.querySelector('[data-testid="passage-snippet"]')?.textContent ?? "",
      inside: ['[data-testid="decision-cell"] > span', '[data-testid="decision-cell"] .reason', '[data-testid="passage-snippet"]'].every((sel) => {
        const b = r.querySelector(sel)?.getBoundingClientRect();
        return !!b && b.width > 0 && b.left >= 0 && b.right <= window.innerWidth;
      }),
    })));
    const wanted = run.candidates.map((c) => {
      const d = run.selection.decisions.find((x) => x.chunk_id === c.chunk_id);
      return { id: c.chunk_id, reason: d.reason, decision: d.selected === null ? "passed" : d.selected ? `kept${d.rank != null ? ` #${d.rank}` : ""}` : "dropped", text: c.text };
    });
    const wrong = wanted.filter((w, i) => {
      const r = rows[i];
      return !r || r.id !== w.id || r.reason !== w.reason || r.decision !== w.decision || !r.reasonText.trim() ||
        !r.snippet.trim() || !w.text.includes(r.snippet.replace(/^…\s*|\s*…$/g, "").slice(0, 20)) || !r.inside;
    });
    check(rows.length === wanted.length && wrong.length === 0,
      `the import view lists each imported candidate (${rows.length} of ${wanted.length}) with its decision, reason and snippet from the run's selection (wrong: ${wrong.map((w) => w.id).join(", ") || "none"})`);
    const kept = rows.filter((r) => r.decision.startsWith("kept")).length;
    check(kept > 0 && kept < rows.length, `the imported candidates show both kept and dropped (${kept} of ${rows.length} kept)`);
    const scroll = await page.evaluate(() => {
      const wrap = document.querySelector('[data-testid="view-import"] .judge-table-wrap');
      return { table: wrap ? wrap.scrollWidth - wrap.clientWidth : -1, page: document.documentElement.scrollWidth - window.innerWidth };
    });
    check(scroll.table <= 0 && scroll.page <= 0, `the import view's candidates fit 1280 px with no horizontal scroll (table ${scroll.table}, page ${scroll.page})`);
  }
  await page.screenshot({ path: join(shots, "import-light.png") });
  await page.click('[data-testid="import-open-replay"]');
  await page.waitForSelector('[data-testid="view-replay"] [data-testid="label-recall"]');
  const recall = await page.locator('[data-testid="label-recall"]').textContent();
  check(/^\d+%$/.test(recall ?? ""), `replay of an imported run shows evidence recall from its labels (${recall})`);
  const importedRows = await page.locator('[data-testid="view-replay"] [data-testid="replay-row"]').count();
  check(importedRows === 6, `the imported run's candidates are the replay rows (${importedRows})`);
  // A drag across one tick flips exactly that row (the imported run: six candidates, all on screen).
  {
    const setRelevance = async (v) => {
      await page.evaluate((x) => {
        const el = document.querySelector('[data-testid="threshold-is_relevant"]');
        el.value = String(x);
        el.dispatchEvent(new Event("input", { bubbles: true }));
      }, v);
      await page.waitForFunction((x) => document.querySelector('[data-testid="threshold-is_relevant"]')?.value === String(x), v);
      await page.waitForTimeout(400);
    };
    const rendered = async () => page.$$eval('[data-testid="replay-row"]', (rs) => rs.map((r) => [r.getAttribute("data-chunk-id"), r.getAttribute("data-reason")]));
    const tickValues = (await page.getAttribute('[data-testid="ticks-threshold-is_relevant"]', "data-values")).split(",").map(Number);
    const ids = (await rendered()).map(([id]) => id);
    let done = false;
    for (const [k, id] of ids.entries()) {
      const v = tickValues[k];
      const lo = Math.floor(v * 100) / 100;
      if (lo < 0.05 || tickValues.filter((x) => x >= lo && x < lo + 0.01).length !== 1) continue;
      const target = { id, v, lo: Number(lo.toFixed(2)), hi: Number((lo + 0.01).toFixed(2)) };
      await setRelevance(target.lo);
      const before = new Map(await rendered());
      if (!["retained", "no_evidence"].includes(before.get(id))) continue;
      await setRelevance(target.hi);
      const after = new Map(await rendered());
      const flipped = [...after].filter(([c, r]) => before.get(c) !== r).map(([c]) => c);
      check(flipped.length === 1 && flipped[0] === target.id && after.get(id) === "not_relevant",
        `dragging the relevance slider across one tick (${target.v} between ${target.lo} and ${target.hi}) flips exactly its row (${flipped.join(", ") || "none"})`);
      const flipTicks = Number(await page.getAttribute('[data-testid="ticks-threshold-is_relevant"]', "data-flip"));
      check(flipTicks >= 1, `the tick at the slider's value is marked as flipping (${flipTicks})`);
      done = true;
      break;
    }
    if (!done) check(false, `a tick alone in its step and decided by relevance in the imported run (${tickValues.join(", ")})`);
    await page.click('[data-testid="judge-defaults"]');
  }
  // Marking a passage relevant stores the label and re-measures.
  const unmarked = page.locator('[data-testid="replay-row"][data-chunk-id="chunk-000"] [data-testid="replay-relevant"]');
  await unmarked.check();
  await page.waitForFunction(() => window.__MOCK_IPC_CALLS__.includes("set_run_labels"));
  check(true, "ticking Relevant saves the run's labels");
  await page.fill('[data-testid="export-path"]', "/tmp/run.json");
  await page.click('[data-testid="export-run"]');
  await page.waitForSelector('[data-testid="export-done"]');
  const exported = await page.evaluate(() => window.__MOCK_EXPORTED__);
  check(exported?.[0] === "imported-run" && exported?.[1] === "/tmp/run.json", `Export writes the shown run to the typed path (${exported})`);
  await page.screenshot({ path: join(shots, "replay-labels-light.png") });

  // ---- Tuning: label in the Inspector, variant ablation, operating curve → Replay, judge calibration ----
  await page.click('[data-testid="nav-replay"]');
  await page.locator('[data-testid="view-replay"] [data-testid="run-item"][data-run-id="fixture-run"]').click();
  await page.click('[data-testid="nav-inspector"]');
  await page.waitForSelector('[data-testid="ablation"] tbody tr');
  await page.locator('[data-testid="judge-row"] [data-testid="label-relevant"]').first().click();
  await page.waitForFunction(() => (window.__MOCK_LABELS__ || []).length === 1);
  check(true, "the Inspector labels a chunk relevant (label_chunk)");
  const cal = await page.locator('[data-testid="calibrated"]').count();
  check(cal > 0, `the Inspector shows calibrated probabilities beside raw (${cal})`);
  await page.click('[data-testid="nav-replay"]');
  await page.waitForSelector('[data-testid="curve-point"][data-current="true"]');
  await page.locator('[data-testid="curve-point"][data-value="0.75"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="threshold-is_relevant"]')?.value === "0.75");
  check(true, "clicking a curve point sets that threshold in Replay");
  await page.check('[data-testid="thresholds-calibrated"]');
  await page.waitForFunction(() => window.__MOCK_REPLAY_CALIBRATED__ === true);
  check(!(await page.evaluate(() => window.__MOCK_IPC_CALLS__.includes("raw_thresholds"))),
    "thresholds in calibrated probability are mapped to raw by Rust in the replay call itself (one call)");
  await page.screenshot({ path: join(shots, "replay-curve-light.png"), fullPage: true });
  await page.click('[data-testid="nav-eval"]');
  await page.click('[data-testid="calibrate-judge"]');
  await page.waitForSelector('[data-testid="reliability-after"] circle');
  check((await page.locator('[data-testid="label-row"]').count()) === 1, "the label list shows the stored span");
  // Compare runs on the user's labels by default: no cases file, no export step.
  const labelsSource = page.locator('[data-testid="cmp-source-labels"]');
  const labelsText = await page.locator('label', { has: labelsSource }).textContent();
  check(await labelsSource.isChecked() && /Your labels \(1 labelled question\)/.test(labelsText ?? ""), `compare's default source is the labels (${labelsText})`);
  check((await page.locator('[data-testid="cmp-cases"]').count()) === 0 && await page.isEnabled('[data-testid="cmp-run"]'), "Compare is enabled on the labels without a path");
  await page.click('[data-testid="cmp-run"]');
  await page.waitForSelector('[data-testid="compare-questions"] tbody tr');
  const source = await page.evaluate(() => window.__MOCK_COMPARE_SOURCE__);
  check(source?.kind === "labels" && !("path" in source), `compare asks Rust for the labels source (${JSON.stringify(source)})`);
  const kept = page.locator('[data-testid="compare-questions"] [data-testid="compare-passage"]').first();
  const keptText = await kept.textContent();
  const marked = await kept.locator('[data-testid="passage-snippet"] mark').allTextContents();
  check(/Fault code E1xx means the DC isolation check failed/.test(keptText ?? "") && /warranty-terms\.pdf p\. 8/.test(keptText ?? ""),
    `compare shows the passage only A kept as a snippet with its document and page (${keptText})`);
  check(marked.some((w) => /^e1xx$/i.test(w)), `the snippet marks the question's words (${marked.join(", ")})`);
  await page.locator('[data-testid="compare"]').screenshot({ path: join(shots, "compare-light.png") });
  // The alternative: a cases file, which needs its path.
  await page.check('[data-testid="cmp-source-file"]');
  check(!(await page.isEnabled('[data-testid="cmp-run"]')), "Compare on a cases file waits for its path");
  await page.fill('[data-testid="cmp-cases"]', "/cases.json");
  await page.click('[data-testid="cmp-run"]');
  await page.waitForFunction(() => window.__MOCK_COMPARE_SOURCE__?.kind === "file");
  const fileSource = await page.evaluate(() => window.__MOCK_COMPARE_SOURCE__);
  check(fileSource.path === "/cases.json", `compare on a file sends its path (${JSON.stringify(fileSource)})`);
  await page.locator('[data-testid="judge-calibration"]').screenshot({ path: join(shots, "judge-calibration-light.png") });

  // ---- Calibration in the Evaluation view: grid, frozen choice, held-out intervals ----
  await page.click('[data-testid="nav-eval"]');
  await page.fill('[data-testid="cal-dev"]', "/dev.json");
  await page.fill('[data-testid="cal-heldout"]', "/heldout.json");
  await page.fill('[data-testid="cal-report"]', "/report.json");
  await page.click('[data-testid="cal-run"]');
  await page.waitForSelector('[data-testid="cal-interval-tokens"]');
  const chosen = await page.locator('[data-testid="cal-grid"] tr[data-chosen="true"]').count();
  check(chosen === 1, `the calibration grid marks one frozen choice (${chosen})`);
  const interval = await page.locator('[data-testid="cal-interval-tokens"]').textContent();
  check(/to/.test(interval ?? ""), `the held-out token difference shows its interval (${interval})`);
  await page.locator('[data-testid="calibration"]').screenshot({ path: join(shots, "calibration-light.png") });

  // ---- Blinded review: open a packet, judge both answers, export the CSV ----
  await page.click('[data-testid="nav-review"]');
  await page.fill('[data-testid="review-path"]', "/packet.json");
  await page.click('[data-testid="review-open"]');
  await page.waitForSelector('[data-testid="review-item"]');
  const hint = await page.locator('[data-testid="view-review"]').textContent();
  check(!/baseline answer|selected answer/i.test(hint.replace(/one from the baseline context and one from the selection/, "")), "the review view never says which answer is which");
  await page.locator('[data-testid="review-correct-A"] input').first().check();
  await page.locator('[data-testid="review-correct-B"] input').nth(1).check();
  await page.fill('[data-testid="review-csv"]', "/tmp/labels.csv");
  await page.click('[data-testid="review-export"]');
  await page.waitForSelector('[data-testid="review-exported"]');
  const sent = await page.evaluate(() => window.__MOCK_REVIEW_LABELS__);
  check(sent?.length === 2 && sent.some((l) => l.anonymous_answer === "A" && l.semantically_correct === "yes") && sent.some((l) => l.anonymous_answer === "B" && l.semantically_correct === "no"),
    `the review exports one label per answer (${JSON.stringify(sent)})`);
  await page.screenshot({ path: join(shots, "review-light.png") });

  // Keyboard: Alt+1 goes to the Library.
  await page.keyboard.press("Alt+1");
  check(await page.locator('[data-testid="view-library"]').isVisible(), "Alt+1 switches to the Library");
  const store = (await page.locator('[data-testid="library-store"]').textContent()) ?? "";
  check(store.includes("SQLite + usearch") && store.includes("1.2 MB"), `the Library shows its store and size: ${store}`);
  // Rename a document in place: a blank title is refused with the Rust error, a real one is kept and marked.
  const firstRow = page.locator('[data-testid="doc-row"]').first();
  await firstRow.locator('[data-testid="doc-rename"]').click();
  await firstRow.locator('[data-testid="doc-title-input"]').fill("   ");
  await firstRow.locator('[data-testid="doc-title-input"]').press("Enter");
  await firstRow.locator('[data-testid="doc-title-error"]').waitFor();
  check(/blank/.test((await firstRow.locator('[data-testid="doc-title-error"]').textContent()) ?? ""), "a blank title is refused with its reason");
  await firstRow.locator('[data-testid="doc-title-input"]').fill("  Attention Is  All You Need ");
  await firstRow.locator('[data-testid="doc-title-save"]').click();
  await firstRow.locator('[data-testid="doc-title"]').waitFor();
  const renamed = (await firstRow.locator('[data-testid="doc-title"]').textContent()) ?? "";
  check(renamed === "Attention Is All You Need", `the Library shows the new title: ${renamed}`);
  check((await firstRow.textContent() ?? "").includes("(renamed)"), "a renamed document is marked");
  check(problems.length === 0, `no page errors or console errors${problems.length ? `: ${problems.join(" | ")}` : ""}`);
} catch (e) {
  failures.push(String(e?.stack ?? e));
  console.error(e);
} finally {
  await context.close();
  server.close();
  rmSync(userDataDir, { recursive: true, force: true });
}

if (failures.length) {
  console.error(`\n${failures.length} browser check(s) failed`);
  process.exit(1);
}
console.log("\nbrowser checks passed; screenshots in test-results/screenshots/");
