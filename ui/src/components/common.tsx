import type { ComponentChildren } from "preact";
import { IpcFailure } from "../api";
import type { IntegrityWarning, Reason } from "../api";
import { presentIpcError } from "../logic/errors";
import { sectionPath } from "../logic/pageBoxes";
import { REASON_EXPLAIN, REASON_LABEL, reasonTone } from "../logic/reasons";
import { go } from "../state";

export function Banner(props: { tone: "error" | "warning" | "info" | "quiet"; title?: string; children?: ComponentChildren; testid?: string }) {
  return (
    <div class={`banner banner-${props.tone}`} role={props.tone === "error" ? "alert" : "status"} data-testid={props.testid}>
      {props.title && <strong>{props.title}</strong>}
      {props.title && props.children ? " — " : null}
      {props.children}
    </div>
  );
}

/** The policy's threshold-integrity warnings (Rust's words and numbers), or nothing when there are none. */
export function IntegrityWarnings(props: { warnings: IntegrityWarning[] | undefined }) {
  const ws = props.warnings ?? [];
  if (!ws.length) return null;
  return (
    <Banner tone="warning" testid="integrity-warnings" title={`Threshold integrity: ${ws.length} warning${ws.length > 1 ? "s" : ""}`}>
      <ul class="integrity-list">
        {ws.map((w) => <li key={`${w.kind}-${w.subject}`} data-kind={w.kind}>{w.message}</li>)}
      </ul>
    </Banner>
  );
}

/** An IPC failure in plain words, branching on its code (setup → Settings, auth → key, cancelled → quiet). */
export function ErrorBanner(props: { error: unknown; onDismiss?: () => void }) {
  const e = props.error;
  if (!e) return null;
  const f = e instanceof IpcFailure ? e : new IpcFailure("internal", e instanceof Error ? e.message : String(e));
  const p = presentIpcError(f.code);
  if (p.tone === "quiet") return <div class="quiet-note" role="status">Cancelled.</div>;
  return (
    <div class={`banner banner-${p.tone}`} role="alert" data-testid="error-banner" data-code={f.code}>
      <strong>{p.title}</strong>
      {f.message ? <span> — {f.message}</span> : null}
      {p.hint ? <div class="banner-hint">{p.hint}</div> : null}
      <div class="banner-actions">
        {(f.code === "setup" || f.code === "auth" || f.code === "unreachable") && (
          <button type="button" class="btn btn-small" onClick={() => go("settings")}>Open Settings</button>
        )}
        {props.onDismiss && <button type="button" class="btn btn-small btn-ghost" onClick={props.onDismiss}>Dismiss</button>}
      </div>
    </div>
  );
}

export function ReasonTag(props: { reason: Reason | null | undefined }) {
  const r = props.reason;
  if (!r) return <span class="muted">—</span>;
  return (
    <span class={`reason reason-${reasonTone(r)}`} title={REASON_EXPLAIN[r]}>
      {REASON_LABEL[r]}
    </span>
  );
}

/** A probability in [0, 1] as a horizontal bar with its number. */
export function ProbBar(props: { value: number | null | undefined; threshold?: number | null; label?: string }) {
  const v = props.value;
  if (v == null || !Number.isFinite(v)) return <span class="prob muted">—</span>;
  const pct = Math.max(0, Math.min(1, v)) * 100;
  return (
    <span class="prob" title={props.label ? `${props.label}: ${v.toFixed(3)}` : v.toFixed(3)}>
      <span class="prob-track">
        <span class="prob-fill" style={{ width: `${pct}%` }} />
        {props.threshold != null && <span class="prob-thr" style={{ left: `${props.threshold * 100}%` }} />}
      </span>
      <span class="num">{v.toFixed(2)}</span>
    </span>
  );
}

export function Progress(props: { value: number | null; label?: string }) {
  const v = props.value;
  return (
    <span class={`progress${v == null ? " progress-indeterminate" : ""}`} role="progressbar" aria-label={props.label}
      aria-valuemin={0} aria-valuemax={100} aria-valuenow={v == null ? undefined : Math.round(v * 100)}>
      <span class="progress-fill" style={v == null ? undefined : { width: `${Math.round(v * 100)}%` }} />
    </span>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <div class="empty">{props.children}</div>;
}

export function CopyButton(props: { text: string; label?: string }) {
  return (
    <button type="button" class="btn btn-small" onClick={(e) => {
      const btn = e.currentTarget as HTMLButtonElement;
      void navigator.clipboard?.writeText(props.text).then(
        () => { btn.textContent = "Copied"; setTimeout(() => (btn.textContent = props.label ?? "Copy"), 1200); },
        () => { btn.textContent = "Copy failed"; },
      );
    }}>{props.label ?? "Copy"}</button>
  );
}

/** A passage's heading path, short and muted beside its title and pages ("· 3 Method › 3.2 Training"); nothing
 * when it has none (a chunk ingested before headings were kept, or a document without headings). */
export function SectionPath(props: { section: readonly string[] | null | undefined }) {
  const s = sectionPath(props.section);
  return s ? <span class="muted small section-path" data-testid="section-path" title={`Section: ${s}`}> · {s}</span> : null;
}
