// The status line of a `ragsift serve` running on this library, with the ways to point an application at it
// (texts from Rust: ServeStatus::snippets), each ready to copy.
import { useState } from "preact/hooks";
import { api } from "../api";
import type { ServeSnippet } from "../api";
import { serving } from "../state";

/** Snippets, each with a Copy button (texts from Rust). */
export function SnippetList(props: { snippets: ServeSnippet[]; testid: string; class?: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async (sn: ServeSnippet) => {
    await navigator.clipboard?.writeText(sn.text).catch(() => {});
    setCopied(sn.client);
  };
  return (
    <ul class={`snippets ${props.class ?? ""}`} data-testid={props.testid}>
      {props.snippets.map((sn) => (
        <li key={sn.client}>
          <div class="snippet-head">{sn.client}
            <button type="button" class="btn btn-small" onClick={() => copy(sn)}>{copied === sn.client ? "Copied" : "Copy"}</button>
          </div>
          <pre class="snippet">{sn.text}</pre>
        </li>
      ))}
    </ul>
  );
}

export function Serving() {
  const [snippets, setSnippets] = useState<ServeSnippet[] | null>(null);
  const s = serving.value;
  if (!s) return null;
  const toggle = async () => {
    if (snippets) return setSnippets(null);
    setSnippets(await api.serveSnippets().catch(() => []));
  };
  return (
    <div class="muted small serving" role="status" data-testid="serving"
      title={`ragsift serve (pid ${s.pid}): rag-jev's service${s.jev_proxy ? " and a Jev proxy" : ""} on this library`}>
      serving {s.address}<br />
      {s.recording ? "recording" : "not recording"} · {s.served} served
      <button type="button" class="btn btn-small btn-ghost" data-testid="serving-connect" onClick={toggle}>
        {snippets ? "Hide" : "Connect an app…"}
      </button>
      {snippets && <SnippetList snippets={snippets} testid="serving-snippets" />}
    </div>
  );
}
