import { useEffect, useState } from "preact/hooks";
import { Banner } from "./components/common";
import { Chat } from "./views/Chat";
import { Evaluation } from "./views/Eval";
import { Inspector } from "./views/Inspector";
import { Library } from "./views/Library";
import { PageView } from "./views/PageView";
import { Replay } from "./views/Replay";
import { Import } from "./views/Import";
import { Review } from "./views/Review";
import { Settings } from "./views/Settings";
import { appInfo, appInfoError, cancelAll, currentRunId, FOLLOW_LIBRARY_MS, followLibrary, go, jobs, pageTarget, refreshAppInfo, view, VIEW_LABEL, VIEWS } from "./state";
import { Serving } from "./components/Serving";
import type { ViewName } from "./state";

const COMPONENTS: Record<ViewName, () => preact.JSX.Element> = {
  library: Library, chat: Chat, inspector: Inspector, replay: Replay, page: PageView, settings: Settings, eval: Evaluation, import: Import, review: Review,
};

type Theme = "system" | "light" | "dark";
const THEME_KEY = "ragsift.theme";

function readTheme(): Theme {
  try {
    const t = localStorage.getItem(THEME_KEY);
    return t === "light" || t === "dark" ? t : "system";
  } catch {
    return "system";
  }
}

const systemDark = () => typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;

/** Sets `data-theme` to the palette in force: the user's choice, else the system's. */
function applyTheme(t: Theme) {
  document.documentElement.dataset.theme = t === "system" ? (systemDark() ? "dark" : "light") : t;
}

/** `#/replay?run=ID`, `#/page?doc=ID&page=3&chunk=C`: deep links (used by tests, handy for debugging). */
function readHash() {
  const m = /^#\/([a-z]+)(?:\?(.*))?$/.exec(location.hash);
  if (!m) return;
  const v = m[1] as ViewName;
  if (!VIEWS.includes(v)) return;
  const q = new URLSearchParams(m[2] ?? "");
  const run = q.get("run");
  if (run) currentRunId.value = run;
  const doc = q.get("doc");
  if (doc) pageTarget.value = { documentId: doc, page: Number(q.get("page") ?? "1") || 1, chunkId: q.get("chunk") };
  go(v);
}

export function App() {
  const [theme, setTheme] = useState<Theme>(readTheme);
  const [visited, setVisited] = useState<Set<ViewName>>(() => new Set([view.value]));
  const current = view.value;

  useEffect(() => {
    readHash();
    void refreshAppInfo();
    const onHash = () => readHash();
    addEventListener("hashchange", onHash);
    // Another process (the CLI) may ingest into the same library: follow it without a restart.
    const follow = setInterval(() => void followLibrary(), FOLLOW_LIBRARY_MS);
    return () => {
      removeEventListener("hashchange", onHash);
      clearInterval(follow);
    };
  }, []);

  useEffect(() => {
    if (!visited.has(current)) setVisited(new Set([...visited, current]));
  }, [current]);

  useEffect(() => {
    applyTheme(theme);
    if (theme !== "system" || typeof matchMedia !== "function") return;
    const query = matchMedia("(prefers-color-scheme: dark)");
    const follow = () => applyTheme("system");
    query.addEventListener("change", follow);
    return () => query.removeEventListener("change", follow);
  }, [theme]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.altKey || e.ctrlKey) && !e.shiftKey && !e.metaKey && /^[1-9]$/.test(e.key) && Number(e.key) <= VIEWS.length) {
        e.preventDefault();
        go(VIEWS[Number(e.key) - 1]);
      } else if (e.key === "Escape" && Object.keys(jobs.value).length > 0) {
        e.preventDefault();
        cancelAll();
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  const cycleTheme = () => {
    const next: Theme = theme === "system" ? "dark" : theme === "dark" ? "light" : "system";
    try { localStorage.setItem(THEME_KEY, next); } catch { /* private mode */ }
    setTheme(next);
  };

  const info = appInfo.value;
  const running = Object.values(jobs.value);
  return (
    <div class="app">
      <nav class="nav" aria-label="Views">
        <div class="brand">ragsift</div>
        <ul>
          {VIEWS.map((v, i) => (
            <li key={v}>
              <button type="button" class={`nav-btn${v === current ? " active" : ""}`} data-testid={`nav-${v}`}
                aria-current={v === current ? "page" : undefined} onClick={() => go(v)} title={`${VIEW_LABEL[v]} (Alt+${i + 1})`}>
                <span class="nav-label">{VIEW_LABEL[v]}</span><span class="nav-key">{i + 1}</span>
              </button>
            </li>
          ))}
        </ul>
        <div class="nav-foot">
          {running.length > 0 && (
            <div class="jobs" role="status">
              <span class="spinner" aria-hidden="true" /> {running.join(", ")}
              <button type="button" class="btn btn-small btn-danger" onClick={cancelAll} title="Esc">Cancel</button>
            </div>
          )}
          <Serving />
          {info && <div class="muted small">{info.documents} docs · {info.runs} runs<br />judge: {info.judge.kind}{info.judge.model ? ` · ${info.judge.model}` : ""}</div>}
          <button type="button" class="btn btn-small btn-ghost theme-toggle" onClick={cycleTheme} data-testid="theme-toggle"
            title="Colour theme: system, dark, light">Theme: {theme}</button>
        </div>
      </nav>
      <main class="main">
        {info && info.problems.length > 0 && current !== "settings" && (
          <Banner tone="warning" title="Setup needed" testid="setup-banner">
            {info.problems[0]}{info.problems.length > 1 ? ` (+${info.problems.length - 1} more)` : ""}{" "}
            <button type="button" class="btn btn-small" onClick={() => go("settings")}>Open Settings</button>
          </Banner>
        )}
        {appInfoError.value && appInfoError.value.code === "setup" && (
          <Banner tone="warning" title="Setup needed">{appInfoError.value.message}</Banner>
        )}
        {VIEWS.filter((v) => visited.has(v) || v === current).map((v) => {
          const C = COMPONENTS[v];
          return <div key={v} class="view-host" hidden={v !== current}><C /></div>;
        })}
      </main>
    </div>
  );
}
