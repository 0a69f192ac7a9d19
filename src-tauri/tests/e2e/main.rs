//! The real app end to end, in a real window under Xvfb, driven through tauri-driver + WebKitWebDriver: ingest a
//! fixture PDF through the UI, ask, inspect, drag a threshold and see a chunk's reason change with no new request
//! to the judge (a loopback server speaking Jev's wire format); open a passage on its page and check, in the
//! screen's pixels, that its highlight lies on its text. Screenshots of each view land in
//! `test-artifacts/e2e/`. Needs `Xvfb`, `WebKitWebDriver` and `tauri-driver` (scripts/setup.sh installs them).

mod app;
mod big_run;
use ragsift_test_support::http;
mod repaint;
mod webdriver;
mod xwd;

use app::{launch, repo, window_test};
use http::{jev_judgment, Request, Server};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};
use webdriver::Session;

/// Jev at the HTTP boundary: every passage relevant at 0.60 with evidence 0.80, so the default policy keeps it
/// and an is_relevant threshold of 0.75 drops it. rag-jev's own request (the `relevant` question, for imported
/// candidates) is answered 0.9 for a passage about refunds and 0.1 otherwise.
fn jev_server() -> Server {
    Server::with_handler(|r: &Request| {
        let body: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
        if body["questions"].get("relevant").is_none() {
            return jev_judgment(0.60, 0.80, 0.70);
        }
        let text = body["state"]["passage"]["text"].as_str().unwrap_or_default();
        let p = if text.contains("refund") { 0.9 } else { 0.1 };
        let reply = json!({"model": "jev-1.13.0", "answers": {"relevant": {"type": "noul", "noul": p}},
            "usage": {"input_tokens": 40, "output_tokens": 1}});
        http::Reply::Json(200, vec![], reply.to_string())
    })
}

fn reasons(s: &Session, css: &str) -> Vec<(String, String)> {
    s.find_all(css)
        .iter()
        .map(|e| {
            (
                s.attribute(e, "data-chunk-id").unwrap_or_default(),
                s.attribute(e, "data-reason").unwrap_or_default(),
            )
        })
        .collect()
}

/// Ingests one file through the Library view's path field and waits until it is listed beside the documents
/// already there (the finished batch of an earlier ingest is replaced by this one's).
fn ingest(s: &Session, file: &Path, long: Duration) {
    s.click("[data-testid=nav-library]");
    s.wait("[data-testid=view-library]", Duration::from_secs(20));
    let before = s.find_all("[data-testid=doc-row]").len();
    s.type_into(
        "[data-testid=ingest-path]",
        file.canonicalize().unwrap().to_str().unwrap(),
    );
    s.click("[data-testid=ingest-add]");
    let start = Instant::now();
    while s.find_all("[data-testid=doc-row]").len() <= before {
        let failed = s.find("[data-testid=file-row][data-status=failed]");
        if failed.is_some() || start.elapsed() > long {
            let body = s.script("return document.body.innerText.slice(0, 2000)", json!([]));
            panic!("{} was not listed; the page says:\n{body}", file.display());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let row = s.wait("[data-testid=file-row][data-status]", Duration::from_secs(60));
    assert_eq!(s.attribute(&row, "data-status").as_deref(), Some("ingested"));
}

/// Asks in Chat and waits for the streamed answer to finish (after the answers already there); returns its text.
fn ask(s: &Session, question: &str, long: Duration) -> String {
    const DONE: &str = "[data-testid=answer][data-state=done]";
    s.click("[data-testid=nav-chat]");
    let before = s.find_all(DONE).len();
    s.type_into("[data-testid=chat-input]", question);
    s.click("[data-testid=chat-send]");
    assert_eq!(
        s.wait_all(DONE, before + 1, long),
        before + 1,
        "an answer to {question:?}"
    );
    let answer = s.find_all(DONE).pop().unwrap();
    assert!(s.attribute(&answer, "data-run-id").is_some_and(|id| !id.is_empty()));
    s.text(&answer)
}

/// A screenshot's pixels (8-bit, 1–4 channels), to read what is on the screen where an element is.
struct Pixels {
    width: usize,
    height: usize,
    channels: usize,
    data: Vec<u8>,
}

impl Pixels {
    fn of_png(bytes: &[u8]) -> Pixels {
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .expect("the screenshot is a PNG");
        let mut data = vec![0; reader.output_buffer_size().expect("a screenshot of a sane size")];
        let info = reader.next_frame(&mut data).expect("the screenshot's pixels");
        assert_eq!(info.bit_depth, png::BitDepth::Eight, "an 8-bit screenshot");
        let (width, height) = (info.width as usize, info.height as usize);
        let channels = info.line_size / width;
        data.truncate(info.line_size * height);
        Pixels {
            width,
            height,
            channels,
            data,
        }
    }

    fn rgb(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * self.channels;
        if self.channels >= 3 {
            [self.data[i], self.data[i + 1], self.data[i + 2]]
        } else {
            [self.data[i]; 3]
        }
    }

    /// The fraction of the pixels in `[x0, x1) × [y0, y1)` (screen pixels, clipped to the screen) darker than
    /// mid-grey: text ink on a page.
    fn ink(&self, [x0, y0, x1, y1]: [f64; 4]) -> f64 {
        let clip = |v: f64, max: usize| (v.round().max(0.0) as usize).min(max);
        let (x0, x1) = (clip(x0, self.width), clip(x1, self.width));
        let (y0, y1) = (clip(y0, self.height), clip(y1, self.height));
        let (mut dark, mut all) = (0usize, 0usize);
        for y in y0..y1 {
            for x in x0..x1 {
                let [r, g, b] = self.rgb(x, y).map(f64::from);
                all += 1;
                dark += usize::from(0.299 * r + 0.587 * g + 0.114 * b < 128.0);
            }
        }
        if all == 0 {
            0.0
        } else {
            dark as f64 / all as f64
        }
    }

    /// Where the marker [`MARKER_JS`] puts at the viewport's corner is on the screen: its top-left pixel and the
    /// screen pixels per CSS pixel.
    fn marker(&self) -> Option<(f64, f64, f64)> {
        let magenta = |[r, g, b]: [u8; 3]| r > 235 && g < 20 && b > 235;
        let (mut left, mut top, mut right) = (usize::MAX, usize::MAX, 0usize);
        for y in 0..self.height {
            for x in 0..self.width {
                if magenta(self.rgb(x, y)) {
                    if top == usize::MAX {
                        top = y;
                    }
                    left = left.min(x);
                    right = right.max(x);
                }
            }
            if top != usize::MAX && y > top + 64 {
                break;
            }
        }
        (top != usize::MAX).then(|| (left as f64, top as f64, (right + 1 - left) as f64 / MARKER_PX))
    }
}

/// The marker's size in CSS pixels.
const MARKER_PX: f64 = 24.0;
/// A magenta square at the viewport's top-left corner, above everything: found in a screenshot, it says where the
/// viewport is on the screen (and at what scale), whatever the window's position and decorations.
const MARKER_JS: &str = "const m = document.createElement('div'); m.id = 'e2e-marker';\
     Object.assign(m.style, {position: 'fixed', left: '0px', top: '0px', width: '24px', height: '24px',\
       background: '#ff00ff', zIndex: '2147483647', pointerEvents: 'none'});\
     document.body.appendChild(m);";

/// The Page view's largest highlight box (scrolled into view), the page image and what clips it (viewport
/// rectangles in CSS pixels, `[left, top, right, bottom]`), and, read from the decoded page image in a canvas, the
/// ink under the box and in a strip of the page's side margins at the same height (fractions of the image).
const PAGE_BOX_JS: &str = "const view = document.querySelector('[data-testid=view-page]');\
     const img = view && view.querySelector('[data-testid=page-image]');\
     const area = (el) => { const b = el.getBoundingClientRect(); return b.width * b.height; };\
     const box = view && [...view.querySelectorAll('[data-testid=page-box]')].sort((a, b) => area(b) - area(a))[0];\
     if (!img || !box || !img.complete || !img.naturalWidth) return null;\
     box.scrollIntoView({block: 'nearest', inline: 'nearest'});\
     const r = (el) => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };\
     const clip = img.closest('.page-figure-scroll') || img.parentElement;\
     const out = {box: r(box), image: r(img), clip: r(clip), viewport: [0, 0, innerWidth, innerHeight],\
       boxes: view.querySelectorAll('[data-testid=page-box]').length, label: box.getAttribute('aria-label'),\
       chunk: box.getAttribute('data-chunk-id')};\
     try {\
       const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;\
       const g = c.getContext('2d'); g.drawImage(img, 0, 0);\
       const d = g.getImageData(0, 0, c.width, c.height).data;\
       const ink = (f) => {\
         const at = (v, n) => Math.max(0, Math.min(n, Math.round(v * n)));\
         let dark = 0, all = 0;\
         for (let y = at(f[1], c.height); y < at(f[3], c.height); y++)\
           for (let x = at(f[0], c.width); x < at(f[2], c.width); x++) {\
             const i = (y * c.width + x) * 4; all++;\
             if (0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2] < 128) dark++;\
           }\
         return all ? dark / all : 0;\
       };\
       const [bx0, by0, bx1, by1] = out.box, [ix0, iy0, ix1, iy1] = out.image;\
       const [w, h] = [ix1 - ix0, iy1 - iy0];\
       const f = [(bx0 - ix0) / w, (by0 - iy0) / h, (bx1 - ix0) / w, (by1 - iy0) / h];\
       const mw = Math.min(f[2] - f[0], 0.05);\
       out.natural = {at: f, box: ink(f),\
         margin: Math.min(ink([0.005, f[1], 0.005 + mw, f[3]]), ink([0.995 - mw, f[1], 0.995, f[3]]))};\
     } catch (e) { out.natural = {error: String(e)}; }\
     return out;";

fn rect(v: &serde_json::Value) -> [f64; 4] {
    let a = |i: usize| v[i].as_f64().unwrap_or(f64::NAN);
    [a(0), a(1), a(2), a(3)]
}

fn intersect(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [a[0].max(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].min(b[3])]
}

/// The Page view, opened on a chunk, lays the chunk's boxes over the page image, and its largest box sits on the
/// chunk's text: inside it at least 2% of the screen's pixels are darker than mid-grey (text ink, read from the
/// real window's screenshot), and a strip of the same height in the page's side margin has at most a third as
/// many. The decoded page image, read in a canvas under the same box, must say the same.
fn highlight_sits_on_its_text(s: &Session, shots: &app::Shots, name: &str) {
    // The overlay, or the note saying why there is none (a chunk without boxes), once the page image is in.
    let shown = s.wait(
        "[data-testid=view-page] [data-testid=page-box], [data-testid=view-page] [data-testid=page-no-boxes]",
        Duration::from_secs(30),
    );
    assert_eq!(
        s.attribute(&shown, "data-testid").as_deref(),
        Some("page-box"),
        "the chunk opened has no highlight on its page: {}",
        s.text(&shown)
    );
    // The image decodes and the box scrolls into view.
    let start = Instant::now();
    let geometry = loop {
        let g = s.script(PAGE_BOX_JS, json!([]));
        if !g.is_null() || start.elapsed() > Duration::from_secs(20) {
            break g;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(!geometry.is_null(), "the page image never loaded under the highlight");
    std::thread::sleep(Duration::from_millis(600));
    let geometry = s.script(PAGE_BOX_JS, json!([]));
    assert!(
        geometry["label"].as_str().is_some_and(|l| !l.is_empty()),
        "the highlight has an accessible label: {geometry}"
    );

    s.script(MARKER_JS, json!([]));
    std::thread::sleep(Duration::from_millis(400));
    let png = s.screenshot();
    s.script("document.getElementById('e2e-marker')?.remove()", json!([]));
    std::fs::write(shots.0.join(format!("{name}.png")), &png).unwrap();
    let screen = Pixels::of_png(&png);
    let (ox, oy, scale) = screen
        .marker()
        .expect("the viewport's corner marker is on the screenshot");

    // The part of the box on the screen, a few pixels inside its edges (its outline is drawn there).
    let (bx, image) = (rect(&geometry["box"]), rect(&geometry["image"]));
    let seen = intersect(
        intersect(bx, image),
        intersect(rect(&geometry["clip"]), rect(&geometry["viewport"])),
    );
    let inset = 3.0;
    let seen = [seen[0] + inset, seen[1] + inset, seen[2] - inset, seen[3] - inset];
    assert!(
        seen[2] - seen[0] >= 12.0 && seen[3] - seen[1] >= 8.0,
        "the highlight is not in view: {geometry}"
    );
    let on_screen = |[x0, y0, x1, y1]: [f64; 4]| [ox + x0 * scale, oy + y0 * scale, ox + x1 * scale, oy + y1 * scale];
    let margin_width = (seen[2] - seen[0]).min(0.05 * (image[2] - image[0]));
    let left = [image[0] + inset, seen[1], image[0] + inset + margin_width, seen[3]];
    let right = [image[2] - inset - margin_width, seen[1], image[2] - inset, seen[3]];
    let ink = screen.ink(on_screen(seen));
    let margin = screen.ink(on_screen(left)).min(screen.ink(on_screen(right)));
    let natural = &geometry["natural"];
    let figure = json!({"page_highlight_ink": {
        "screen": {"box": ink, "margin": margin, "viewport_at": [ox, oy], "scale": scale},
        "page_image": natural, "boxes": geometry["boxes"], "chunk": geometry["chunk"]}});
    println!("{figure}");
    assert!(
        ink >= 0.02,
        "the highlight covers no text on the screen ({:.1}% dark pixels): {figure}",
        100.0 * ink
    );
    assert!(
        margin <= ink / 3.0,
        "the page's margin beside the highlight is as dark as the highlight: {figure}"
    );
    // The same under the box in the decoded page image (where the canvas can be read).
    match (natural["box"].as_f64(), natural["margin"].as_f64()) {
        (Some(b), Some(m)) => {
            assert!(b >= 0.02, "no text ink under the box in the page image: {figure}");
            assert!(m <= b / 3.0, "the page image's margin is as dark as the box: {figure}");
        }
        _ => eprintln!("the page image could not be read in a canvas ({natural}); the screen's pixels were checked"),
    }
}

/// At the window's size (1280×800 by default), every row of the Inspector's judge table shows its decision, its
/// reason and what its passage says inside the window's width, and the table needs no horizontal scroll.
fn reasons_fit_the_window(s: &Session) {
    let fit = s.script(
        "const wrap = document.querySelector('[data-testid=view-inspector] .judge-table-wrap');\
         const out = { width: window.innerWidth, rows: 0, outside: [], scroll: wrap.scrollWidth - wrap.clientWidth,\
           page: document.documentElement.scrollWidth - window.innerWidth };\
         for (const row of document.querySelectorAll('[data-testid=view-inspector] [data-testid=judge-row]')) {\
           out.rows++;\
           for (const sel of ['[data-testid=decision-cell] > span', '[data-testid=decision-cell] .reason',\
                              '[data-testid=passage-snippet]']) {\
             const el = row.querySelector(sel); const b = el && el.getBoundingClientRect();\
             if (!b || b.width === 0 || b.left < 0 || b.right > window.innerWidth) out.outside.push(sel);\
           }\
         }\
         return out;",
        serde_json::json!([]),
    );
    let width = fit["width"].as_f64().unwrap_or(0.0);
    assert!((1200.0..=1280.0).contains(&width), "the default window width: {fit}");
    assert!(fit["rows"].as_u64().unwrap_or(0) > 0, "{fit}");
    assert_eq!(
        fit["outside"].as_array().map(Vec::len),
        Some(0),
        "a decision, reason or snippet off-screen: {fit}"
    );
    assert!(
        fit["scroll"].as_f64().unwrap_or(1.0) <= 0.0,
        "the judge table scrolls sideways: {fit}"
    );
    assert!(
        fit["page"].as_f64().unwrap_or(1.0) <= 0.0,
        "the page scrolls sideways: {fit}"
    );
}

/// A two-column IEEE paper (Microsoft Word 2010) from `fixtures/qa/`.
const PAPER: &str = "fixtures/qa/documents/TLSH_CTC_final.pdf";
/// AVRDUDE 7.1's user manual (pdfTeX, 61 pages; `fixtures/manuals/README.md`).
const MANUAL: &str = "fixtures/manuals/avrdude.pdf";
/// Answered by a setting in the manual's STK600 notes (§5.1, page 45): the target voltage for high-voltage
/// programming.
const MANUAL_QUESTION: &str = "What target voltage does high-voltage programming on the STK600 require?";
const MANUAL_ANSWER: &str = "4.5 V";

/// The Inspector's judge table scrolled to its top and, if no dropped passage shows there, to the first one: a
/// row the policy dropped is in the window with its decision and its reason (non-empty) in view. Returns the
/// row's reason and what it shows.
fn a_dropped_row_in_view(s: &Session) -> serde_json::Value {
    const JS: &str = "const table = document.querySelector('[data-testid=view-inspector] [data-testid=judge-table]');\
         if (arguments[0]) table.scrollIntoView({block: 'start'});\
         const rows = [...document.querySelectorAll('[data-testid=view-inspector] [data-testid=judge-row].row-dropped')];\
         const inView = (el) => { const b = el && el.getBoundingClientRect();\
           return !!b && b.width > 0 && b.top >= 0 && b.bottom <= window.innerHeight && b.left >= 0\
             && b.right <= window.innerWidth; };\
         const seen = rows.find((r) => inView(r.querySelector('[data-testid=decision-cell] .dropped'))\
           && inView(r.querySelector('[data-testid=decision-cell] .reason')));\
         if (!seen) { if (rows[0]) rows[0].scrollIntoView({block: 'center'}); return {dropped: rows.length}; }\
         return {dropped: rows.length, reason: seen.getAttribute('data-reason'),\
           decision: seen.querySelector('[data-testid=decision-cell] .dropped').textContent,\
           label: seen.querySelector('[data-testid=decision-cell] .reason').textContent,\
           passage: seen.querySelector('[data-testid=passage-snippet]')?.textContent};";
    let first = s.script(JS, json!([true]));
    let row = if first["reason"].is_string() {
        first
    } else {
        std::thread::sleep(Duration::from_millis(300));
        s.script(JS, json!([false]))
    };
    assert!(
        row["dropped"].as_u64().unwrap_or(0) > 0,
        "the policy dropped no passage: {row}"
    );
    assert!(
        row["label"].as_str().is_some_and(|l| !l.trim().is_empty()),
        "a dropped passage's reason is in the window: {row}"
    );
    row
}

#[test]
fn a_real_paper_with_the_offline_judge() {
    let Some(w) = window_test() else {
        return;
    };
    let (home, shots) = (&w.home, &w.shots);
    let app = launch(home.path(), &[]);
    let s = &app.session;
    let long = Duration::from_secs(300);
    // A real library: a two-column IEEE paper (Word) and a software manual (pdfTeX) with tables of settings.
    ingest(s, &repo().join(PAPER), long);
    ingest(s, &repo().join(MANUAL), long);
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "1a-library-paper-and-manual");
    let answer = ask(
        s,
        "How many bits is the hash value Ssdeep computes for each segment of a file?",
        long,
    );
    assert!(
        answer.contains("6 bit"),
        "the extractive answer quotes the evidence: {answer}"
    );
    assert!(!answer.contains("Context information"), "{answer}");
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "2-chat");
    s.click("[data-testid=open-inspector]");
    s.wait("[data-testid=judge-row]", Duration::from_secs(20));
    assert!(
        !s.find_all("[data-testid=not-assessed]").is_empty(),
        "the contradicted premise shows as not assessed"
    );
    let defaults = s.wait("[data-testid=judge-defaults-source]", Duration::from_secs(5));
    assert!(s.text(&defaults).contains("local judge"), "{}", s.text(&defaults));
    std::thread::sleep(Duration::from_millis(300));
    reasons_fit_the_window(s);
    shots.take(s, "3-inspector");
    // The judge table at the window's size: every passage's decision and reason in view (the README's picture).
    s.script(
        "document.querySelector('[data-testid=view-inspector] [data-testid=judge-table]').scrollIntoView({block: 'start'});",
        json!([]),
    );
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "3a-inspector-reasons");

    // A passage opens on its page, highlighted on the page image where its text is.
    s.click("[data-testid=judge-row] button.link");
    s.wait(
        "[data-testid=view-page] [data-testid=chunk-highlight]",
        Duration::from_secs(20),
    );
    highlight_sits_on_its_text(s, shots, "3b-page-highlight");

    // The manual: a question one of its settings answers. The judge table shows the passages the policy dropped
    // with their reasons, and Replay the candidates' scores as ticks on its sliders (the README's pictures).
    let answer = ask(s, MANUAL_QUESTION, long);
    assert!(
        answer.contains(MANUAL_ANSWER),
        "the extractive answer quotes the setting: {answer}"
    );
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "2b-chat-manual");
    s.script(
        "[...document.querySelectorAll('[data-testid=open-inspector]')].pop().click();",
        json!([]),
    );
    s.wait("[data-testid=judge-row]", Duration::from_secs(20));
    let query = s.wait("[data-testid=view-inspector]", Duration::from_secs(5));
    assert!(
        s.text(&query).contains(MANUAL_QUESTION),
        "the Inspector shows the manual's run"
    );
    reasons_fit_the_window(s);
    let dropped = a_dropped_row_in_view(s);
    println!("{}", json!({"manual_dropped_row": dropped}));
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "3d-inspector-manual-dropped");
    s.click("[data-testid=nav-replay]");
    s.wait("[data-testid=replay-row]", Duration::from_secs(20));
    let ticks = s.wait("[data-testid=ticks-threshold-is_relevant]", Duration::from_secs(10));
    let values = s.attribute(&ticks, "data-values").unwrap_or_default();
    let rows = s.find_all("[data-testid=replay-row]").len();
    assert_eq!(values.split(',').count(), rows, "one tick per candidate: {values}");
    assert!(
        !s.find_all("[data-testid=replay-row] .dropped").is_empty(),
        "Replay shows the dropped passages too"
    );
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "3c-replay-ticks");

    // The CLI ingests into the same library while the app is open: the Library view follows without a restart,
    // and the app's next question retrieves the new document.
    s.click("[data-testid=nav-library]");
    let rows = s.wait_all("[data-testid=doc-row]", 2, Duration::from_secs(20));
    let notes = tempfile::tempdir().unwrap();
    let note = notes.path().join("skerryvore.md");
    std::fs::write(
        &note,
        "# Skerryvore log\n\nThe keeper of the Skerryvore lighthouse logs the fog signal every 37 minutes, and \
         reports each missed signal to the Northern Lighthouse Board.\n",
    )
    .unwrap();
    let cli = std::env::current_exe().unwrap().parent().unwrap().join("../ragsift");
    let out = std::process::Command::new(&cli)
        .arg("--home")
        .arg(home.path())
        .arg("ingest")
        .arg(&note)
        .output()
        .expect("the ragsift CLI is built next to this test (cargo test --workspace)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let followed = s.wait_all("[data-testid=doc-row]", rows + 1, Duration::from_secs(10));
    assert_eq!(followed, rows + 1, "the Library view shows the CLI's document");
    // The chat keeps the earlier answers: `ask` waits for the next one, and reads that.
    let answer = ask(
        s,
        "How often does the keeper of the Skerryvore lighthouse log the fog signal?",
        long,
    );
    assert!(
        answer.contains("37 minutes"),
        "the app retrieves what the CLI ingested: {answer}"
    );
    shots.take(s, "4-followed-cli");
    s.quit();
}

#[test]
fn ingest_ask_inspect_and_replay_in_the_real_window() {
    let Some(w) = window_test() else {
        return;
    };
    let (home, shots) = (&w.home, &w.shots);
    let judge = jev_server();
    let app = launch(
        home.path(),
        &[("TYPESAFE_API_KEY", "e2e-test-key"), ("TYPESAFE_BASE_URL", &judge.url)],
    );
    let s = &app.session;
    let app = app.app.clone();
    let long = Duration::from_secs(240);

    // Library: ingest a fixture PDF by path.
    ingest(s, &repo().join("fixtures/pdf/multipage.pdf"), long);
    shots.take(s, "1-library");

    // Chat: ask and wait for the streamed answer.
    ask(s, "How long is the battery warranty?", long);
    shots.take(s, "2-chat-jev");
    let judged = judge.requests().len();
    assert!(judged > 0, "the judge server was never asked");

    // Inspector: the judge table with the run's decisions.
    s.click("[data-testid=open-inspector]");
    s.wait("[data-testid=judge-row]", Duration::from_secs(20));
    let before = reasons(s, "[data-testid=judge-row]");
    assert!(
        !before.is_empty() && before.iter().all(|(_, r)| r == "retained"),
        "{before:?}"
    );
    shots.take(s, "3-inspector-jev");

    // Replay: drag the relevance threshold above the judge's 0.60; reasons change with no judge call.
    s.click("[data-testid=nav-replay]");
    s.wait("[data-testid=replay-row]", Duration::from_secs(20));
    s.script(
        "const el = document.querySelector('[data-testid=threshold-is_relevant]');\
         const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;\
         for (const v of ['0.55', '0.65', '0.75']) { set.call(el, v); el.dispatchEvent(new Event('input', {bubbles: true})); }",
        json!([]),
    );
    let start = Instant::now();
    let after = loop {
        let now = reasons(s, "[data-testid=replay-row]");
        if now.iter().any(|(_, r)| r == "not_relevant") || start.elapsed() > Duration::from_secs(10) {
            break now;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        after.iter().any(|(_, r)| r == "not_relevant"),
        "no reason changed: {after:?}"
    );
    assert_eq!(judge.requests().len(), judged, "replay called the judge");
    std::thread::sleep(Duration::from_millis(800));
    let settled = reasons(s, "[data-testid=replay-row]");
    assert!(
        settled.iter().all(|(_, r)| r == "not_relevant"),
        "the replay did not settle: {settled:?}"
    );
    let changed = s.find_all("[data-testid=replay-row][data-changed=true]").len();
    assert_eq!(
        changed,
        settled.len(),
        "changed rows are marked against the run's selection"
    );
    shots.take(s, "4-replay");

    // Repaint after each slider move, through the real IPC: input event → the frame after the new selection.
    let moves: Vec<(&str, f64)> = (0..30)
        .map(|i| ("threshold-is_relevant", 0.30 + 0.02 * f64::from(i)))
        .collect();
    repaint::clear(s);
    repaint::drag(s, &moves, Duration::from_millis(120));
    let repaints = repaint::Repaints::read(s);
    assert!(
        repaints.ms.len() >= moves.len() / 2,
        "too few repaints measured: {:?}",
        repaints.ms
    );
    let figure = json!({"replay_repaint_ms_real_ipc":
        repaints.figure(json!({"candidates": after.len(), "app": app.clone()}))});
    println!("{figure}");
    std::fs::write(shots.0.join("replay-repaint.json"), figure.to_string()).unwrap();
    assert_eq!(judge.requests().len(), judged, "replay called the judge");

    // A passage opens at its page with the chunk highlighted.
    s.click("[data-testid=nav-inspector]");
    s.click("[data-testid=judge-row] button.link");
    s.wait("[data-testid=chunk-highlight]", Duration::from_secs(20));
    s.wait(
        "[data-testid=view-page] [data-testid=page-box]",
        Duration::from_secs(20),
    );
    std::thread::sleep(Duration::from_millis(500));
    shots.take(s, "5-page");

    // Evaluation over rag-jev's files: metrics per policy and the sweep plot, from saved traces (no judge call).
    s.click("[data-testid=nav-eval]");
    let eval = repo().join("fixtures/eval").canonicalize().unwrap();
    s.type_into("[data-testid=eval-cases]", eval.join("cases.json").to_str().unwrap());
    s.type_into("[data-testid=eval-traces]", eval.join("traces.json").to_str().unwrap());
    s.click("[data-testid=eval-run]");
    s.wait("[data-testid=eval-metrics]", Duration::from_secs(30));
    s.wait("[data-testid=sweep-plot] path", Duration::from_secs(10));
    assert_eq!(
        judge.requests().len(),
        judged,
        "evaluation from saved traces called the judge"
    );
    std::thread::sleep(Duration::from_millis(400));
    shots.take(s, "7-evaluation");

    // The tuning loop: label two chunks in the Inspector (kept as spans), calibrate the judge from them, open the
    // run's operating curve in Replay, click a point, and Replay takes that setting.
    s.click("[data-testid=nav-inspector]");
    for row in 1..=2 {
        s.click(&format!(
            "[data-testid=judge-row]:nth-child({row}) [data-testid=label-relevant]"
        ));
        s.wait(
            &format!("[data-testid=judge-row]:nth-child({row}) .label-buttons[data-state=relevant]"),
            Duration::from_secs(20),
        );
    }
    s.click("[data-testid=nav-eval]");
    s.click("[data-testid=calibrate-judge]");
    s.wait("[data-testid=judge-calibration-report]", Duration::from_secs(60));
    let labelled = s.script(
        "return document.querySelector('[data-testid=judge-calibration-report]').innerText",
        json!([]),
    );
    assert!(
        labelled.as_str().unwrap_or_default().starts_with("1 labelled"),
        "the labelled run was calibrated from: {labelled}"
    );
    s.click("[data-testid=nav-replay]");
    s.wait("[data-testid=curve-point]", Duration::from_secs(30));
    shots.take(s, "10-operating-curve");
    let picked = s.script(
        "const p = document.querySelector('[data-testid=curve-point][data-current=false]') \
           || document.querySelector('[data-testid=curve-point]');\
         p.dispatchEvent(new MouseEvent('click', {bubbles: true}));\
         return [document.querySelector('[data-testid=curve-parameter]').value, Number(p.dataset.value)];",
        json!([]),
    );
    let (parameter, value) = (picked[0].as_str().unwrap().to_string(), picked[1].as_f64().unwrap());
    let slider = match parameter.as_str() {
        "min_relevance" => "min-relevance".to_string(),
        "top_n" => "top-n".to_string(),
        "max_context_tokens" => "token-budget".to_string(),
        key => format!("threshold-{key}"),
    };
    let start = Instant::now();
    let shown = loop {
        let v = s.script(
            "return Number(document.querySelector(`[data-testid=${arguments[0]}]`).value)",
            json!([slider]),
        );
        let v = v.as_f64().unwrap_or(f64::NAN);
        if (v - value).abs() < 1e-6 || start.elapsed() > Duration::from_secs(10) {
            break v;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        (shown - value).abs() < 1e-6,
        "{parameter}: the curve point {value} is not in Replay ({shown})"
    );
    assert_eq!(
        judge.requests().len(),
        judged,
        "labels, calibration and curves called the judge"
    );
    shots.take(s, "11-curve-picked");

    // Import another retriever's candidates from a JSON file (rag-jev's eval case: labels and all), replay the run
    // with its labels (evidence recall shown), then export it as a portable run file.
    let candidates = home.path().join("candidates.json");
    let case = json!({
        "query": "How many days do I have to request a refund?",
        "documents": [
            {"id": "ship", "text": "Orders ship within 5 business days.", "metadata": {"source": "shipping.md"}},
            {"id": "refund", "text": "You may request a refund within 30 days of purchase.", "metadata": {"source": "refunds.md", "page": 2}},
            {"id": "hours", "text": "The support line is open from 9 to 5.", "metadata": {"source": "support.md"}},
        ],
        "relevant_ids": ["refund", "hours"], "mode": "filter", "min_relevance": 0.5,
    });
    std::fs::write(&candidates, case.to_string()).unwrap();
    s.click("[data-testid=nav-import]");
    s.type_into("[data-testid=import-path]", candidates.to_str().unwrap());
    s.click("[data-testid=import-file]");
    s.wait("[data-testid=import-result]", long);
    assert_eq!(
        judge.requests().len(),
        judged + 3,
        "one rag-jev request per imported candidate"
    );
    shots.take(s, "8-import");
    s.click("[data-testid=import-open-replay]");
    // The Replay view re-mounts for the imported run (the earlier run's panel had labels too): read it afresh.
    let start = Instant::now();
    let recall = loop {
        let v = s.script(
            "const h = document.querySelector('[data-testid=view-replay] .trace-head');\
             const r = document.querySelector('[data-testid=label-recall]');\
             return h && h.innerText.includes('(imported)') && r ? r.innerText : '';",
            json!([]),
        );
        let v = v.as_str().unwrap_or_default().to_string();
        if v == "50%" || start.elapsed() > Duration::from_secs(30) {
            break v;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(recall, "50%", "one of the two labelled passages is selected");
    assert_eq!(s.find_all("[data-testid=replay-row]").len(), 3);
    let exported = home.path().join("exported-run.json");
    s.type_into("[data-testid=export-path]", exported.to_str().unwrap());
    s.click("[data-testid=export-run]");
    s.wait("[data-testid=export-done]", Duration::from_secs(20));
    let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&exported).unwrap()).unwrap();
    assert_eq!(file["format"], "ragsift-run");
    assert_eq!(file["trace"]["origin"], "imported");
    assert_eq!(file["trace"]["labels"]["relevant_ids"], json!(["refund", "hours"]));
    assert_eq!(judge.requests().len(), judged + 3, "replay and export called the judge");
    shots.take(s, "9-replay-labels");

    // The settings view renders.
    s.click("[data-testid=nav-settings]");
    s.wait("[data-testid=view-settings]", Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "6-settings");
    s.quit();
}

/// Thousands of candidates (issue 15, part 4): a 2,000-candidate run, imported from a run file, replays in the
/// real window within a 60 Hz frame through the real IPC — the tables hold only the rows in view, and a replay
/// sends only the decisions that differ from the run's.
#[test]
fn heavy_two_thousand_candidates_replay_in_the_real_window() {
    let Some(w) = window_test() else {
        return;
    };
    let (home, shots) = (&w.home, &w.shots);
    let n = 2000;
    let run = big_run::trace(n);
    let file = home.path().join("big-run.json");
    big_run::write(&run, &file);
    let app = launch(home.path(), &[]);
    let s = &app.session;

    s.click("[data-testid=nav-import]");
    s.type_into("[data-testid=import-run-path]", file.to_str().unwrap());
    s.click("[data-testid=import-run]");
    s.wait("[data-testid=import-run-result]", Duration::from_secs(60));
    s.click("[data-testid=nav-replay]");
    s.click(&format!("[data-testid=run-item][data-run-id='{}']", run.run_id));
    let table = format!("[data-testid=replay-table][aria-rowcount='{}']", n + 1);
    s.wait(&table, Duration::from_secs(60));
    s.wait("[data-testid=replay-row]", Duration::from_secs(20));
    let in_dom = s.find_all("[data-testid=replay-row]").len();
    assert!(
        in_dom > 0 && in_dom < 150,
        "{in_dom} of {n} rows in the DOM: the table is not windowed"
    );
    let before = reasons(s, "[data-testid=replay-row]");

    // Drag the relevance threshold up, then the evidence threshold down, as a user does: one slider at a time,
    // after a look at the run, and a second to reach the other slider. Every move repaints.
    let drag = |slider: &'static str, from: f64, to: f64| -> Vec<(&str, f64)> {
        (0..30)
            .map(|i| (slider, from + (to - from) * f64::from(i) / 29.0))
            .collect()
    };
    repaint::clear(s);
    std::thread::sleep(Duration::from_millis(1500));
    repaint::drag(
        s,
        &drag("threshold-is_relevant", 0.30, 0.70),
        Duration::from_millis(120),
    );
    std::thread::sleep(Duration::from_millis(1000));
    let moves = drag("threshold-contains_answer_evidence", 0.70, 0.40);
    repaint::drag(s, &moves, Duration::from_millis(120));
    std::thread::sleep(Duration::from_millis(500));
    let repaints = repaint::Repaints::read(s);
    assert!(
        repaints.ms.len() >= moves.len(),
        "too few repaints measured: {:?}",
        repaints.ms
    );
    let (median, p95) = (repaints.median(), repaints.p95());
    let figure = json!({"replay_repaint_ms_real_ipc_2000": repaints.figure(json!({
        "candidates": n, "median_parts": repaint::median_parts(s), "ipc_bytes": big_run::ipc_bytes(&run),
        "app": app.app.clone()
    }))});
    println!("{figure}");
    std::fs::write(shots.0.join("replay-repaint-2000.json"), figure.to_string()).unwrap();
    let after = reasons(s, "[data-testid=replay-row]");
    assert_ne!(before, after, "the rows in view did not follow the thresholds");
    assert!(
        s.find("[data-testid=view-replay] [data-testid=error-banner]").is_none(),
        "the replay reported an error"
    );
    shots.take(s, "12-replay-2000");

    // The Inspector over the same run: its judge table is windowed too.
    s.click("[data-testid=nav-inspector]");
    s.wait(
        &format!("[data-testid=judge-table][aria-rowcount='{}']", n + 1),
        Duration::from_secs(30),
    );
    let judge_rows = s.find_all("[data-testid=judge-row]").len();
    assert!(judge_rows > 0 && judge_rows < 150, "{judge_rows} judge rows in the DOM");
    shots.take(s, "13-inspector-2000");
    s.quit();

    // Issue 15's target is one 60 Hz frame at the median and two at p95. In this window (Xvfb, no GPU, 2 cores;
    // the app draws without compositing, see `webview_env.rs`) the release build's p95 is within two frames
    // (25–28 ms) and its median is at one (16–17 ms, at the page timer's 1 ms resolution); the debug build is
    // slower — see BENCHMARKS.md. What is asserted is a regression guard an order of magnitude above a frame; the
    // figures are recorded beside it.
    assert!(
        median <= 250.0,
        "median repaint {median:.1} ms: replay over 2,000 candidates regressed: {figure}"
    );
    assert!(
        p95 <= 500.0,
        "p95 repaint {p95:.1} ms: replay over 2,000 candidates regressed: {figure}"
    );
}

/// A selection served to a running application (`ragsift serve`'s path: judged, then stored as a `served` run by
/// another process on the same library) appears in the open app's run list within seconds, with no restart, and
/// opens in Replay as served to that client.
#[test]
fn a_served_selection_appears_in_the_open_app() {
    let Some(w) = window_test() else {
        return;
    };
    let app = launch(w.home.path(), &[]);
    let s = &app.session;
    s.click("[data-testid=nav-replay]");
    std::thread::sleep(Duration::from_millis(1500));

    // Another process's workbench on the same library serves one selection with the offline judge.
    let wb = ragsift_engine::workbench::Workbench::open(Some(w.home.path())).unwrap();
    let request = ragsift_engine::eval::select::parse_request(
        &json!({"query": "How long is the battery warranty?", "min_relevance": 0.3, "documents": [
            {"id": "warranty", "text": "The battery warranty lasts two years from the date of purchase."},
            {"id": "holidays", "text": "Our offices are closed on public holidays."}]})
        .to_string(),
    )
    .unwrap();
    let local = ragsift_engine::workbench::JudgeKind::Local;
    let passthrough = ragsift_engine::eval::select::OnError::Passthrough;
    let selection = wb.select_candidates(&request, local, passthrough).unwrap().unwrap();
    let served = Instant::now();
    let run = wb.record_served(local, &request, &selection, "e2e-client/1.0").unwrap();

    let item = format!("[data-testid=run-item][data-run-id='{run}']");
    s.wait(&item, Duration::from_secs(10));
    let seen = served.elapsed();
    assert!(seen < Duration::from_secs(5), "the served run took {seen:?} to appear");
    s.click(&item);
    let head = s.wait("[data-testid=replay-run-head]", Duration::from_secs(20));
    assert!(s.text(&head).contains("served to e2e-client/1.0"), "{}", s.text(&head));
    assert!(
        s.find(&format!("{item} [data-testid=served-badge]")).is_some(),
        "no served badge in the list"
    );
    // The run's policy, as the application would set it: rag-jev's options here (a filter at 0.30).
    s.click("[data-testid=policy-snippets-toggle]");
    s.wait("[data-testid=policy-snippets]", Duration::from_secs(10));
    let policy = s.script(
        "return document.querySelector('[data-testid=policy-snippets]').textContent",
        json!([]),
    );
    let policy = policy.as_str().unwrap_or_default();
    assert!(
        policy.contains("Policy(mode=\"filter\", min_relevance=0.30"),
        "{policy}"
    );

    // A running `ragsift serve` on this library (its status file, naming a live process) shows in the status line.
    let status = ragsift_engine::workbench::ServeStatus {
        address: "http://127.0.0.1:8765".into(),
        pid: std::process::id(),
        recording: true,
        token: true,
        served: 12,
        started_at: 0,
        jev_proxy: true,
    };
    ragsift_engine::workbench::write_serve_status(w.home.path(), Some(&status)).unwrap();
    let line = s.wait("[data-testid=serving]", Duration::from_secs(10));
    let text = s.text(&line);
    assert!(
        text.contains("http://127.0.0.1:8765") && text.contains("12 served"),
        "{text}"
    );
    s.click("[data-testid=serving-connect]");
    s.wait("[data-testid=serving-snippets]", Duration::from_secs(10));
    // textContent: the list scrolls inside the narrow sidebar, and rendered text leaves out what is scrolled away.
    let snippets = s.script(
        "return document.querySelector('[data-testid=serving-snippets]').textContent",
        json!([]),
    );
    let snippets = snippets.as_str().unwrap_or_default().to_string();
    assert!(
        snippets.contains("TYPESAFE_BASE_URL=http://127.0.0.1:8765"),
        "{snippets}"
    );
    assert!(snippets.contains("ContextSelectorClient"), "{snippets}");
    w.shots.take(s, "8-served-run");
    ragsift_engine::workbench::write_serve_status(w.home.path(), None).unwrap();
    let gone = Instant::now();
    while s.find("[data-testid=serving]").is_some() {
        assert!(
            gone.elapsed() < Duration::from_secs(10),
            "the status line stayed after the service stopped"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn the_first_run_offers_the_samples_and_a_question_that_drops_a_passage() {
    let Some(w) = window_test() else {
        return;
    };
    let app = launch(w.home.path(), &[]);
    let s = &app.session;
    let long = Duration::from_secs(300);
    // An empty library: the samples are offered, one click adds them with progress.
    s.wait("[data-testid=first-run-offer]", Duration::from_secs(20));
    w.shots.take(s, "0-first-run");
    s.click("[data-testid=first-run-ingest]");
    assert_eq!(
        s.wait_all("[data-testid=doc-row]", 3, long),
        3,
        "the three samples are listed"
    );
    assert_eq!(s.find_all("[data-testid=file-row][data-status=ingested]").len(), 3);
    assert!(
        s.find("[data-testid=first-run-offer]").is_none(),
        "no offer on a library with documents"
    );
    // Three questions; the first opens the Inspector on a passage the judge dropped, with its reason.
    s.wait("[data-testid=first-run-suggestions]", Duration::from_secs(10));
    assert_eq!(s.find_all("[data-testid=first-run-suggestions] li").len(), 3);
    w.shots.take(s, "0a-first-run-questions");
    s.click("[data-testid=suggestion-ask-judge_drops]");
    s.wait("[data-testid=view-inspector] [data-testid=judge-row]", long);
    let dropped = a_dropped_row_in_view(s);
    assert!(dropped["reason"].is_string(), "{dropped}");
    w.shots.take(s, "0b-first-run-inspector");
    // The second opens Replay, where the sliders are.
    s.click("[data-testid=nav-library]");
    s.click("[data-testid=suggestion-ask-threshold_matters]");
    s.wait("[data-testid=view-replay] [data-testid=replay-run-head]", long);
    // In Chat: a right answer marked well supported (the number on hover), and an unanswerable question answered
    // "the documents do not say".
    let answer = ask(s, "What was the water temperature in the upper pool?", long);
    assert!(answer.contains("19 °C"), "{answer}");
    let support = s
        .find_all("[data-testid=answer-support]")
        .pop()
        .expect("a support badge");
    assert_eq!(
        s.attribute(&support, "data-level").as_deref(),
        Some("well"),
        "{}",
        s.text(&support)
    );
    let title = s.attribute(&support, "title").unwrap_or_default();
    assert!(title.starts_with("Support 0.9"), "the number on hover: {title}");
    w.shots.take(s, "0c-first-run-well-supported");
    let answer = ask(s, "Who won the 1998 football World Cup?", long);
    assert!(answer.contains("The documents do not say"), "{answer}");
}

/// Sets a `<select>` or `<input>` the way a person does: its value, then the events the form listens to.
fn set_value(s: &Session, css: &str, value: &str) {
    s.script(
        "const el = document.querySelector(arguments[0]);\
         const proto = el.tagName === 'SELECT' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;\
         Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, arguments[1]);\
         el.dispatchEvent(new Event('input', {bubbles: true}));\
         el.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([css, value]),
    );
}

/// A local decision model in the real window: Settings offers Ollama, *Test connection* asks an Ollama-like
/// server (no key, its wire and limits) and shows its answer, an ask is judged by it, and the Inspector's judge
/// stage names `ollama · d1-omni:600m`. The first of the library's passages the server sees always fails (500), so
/// one passage is kept unscreened under Spring's fail-open.
#[test]
fn a_local_decision_model_judges_in_the_real_window() {
    let Some(w) = window_test() else {
        return;
    };
    let (home, shots) = (&w.home, &w.shots);
    let failing: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);
    let pulled = vec!["d1-omni:600m".to_string()];
    let ollama = Server::with_handler(move |r: &Request| {
        let body: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
        // The first passage of the library it sees (not Settings' probe about the sky) always fails.
        if let Some(passage) = body["state"]["passage"].as_str().filter(|p| !p.contains("clear day")) {
            let mut first = failing.lock().unwrap();
            if first.get_or_insert_with(|| passage.to_string()) == passage {
                return http::Reply::Json(500, vec![], r#"{"error":"model runner crashed"}"#.into());
            }
        }
        ragsift_test_support::decision::ollama_reply(&pulled, r)
    });
    let app = launch(home.path(), &[]);
    let s = &app.session;
    let long = Duration::from_secs(240);
    ingest(s, &repo().join("fixtures/pdf/multipage.pdf"), long);

    s.click("[data-testid=nav-settings]");
    s.wait("[data-testid=judge-kind]", Duration::from_secs(20));
    set_value(s, "[data-testid=judge-kind]", "ollama");
    s.wait("[data-testid=judge-base-url]", Duration::from_secs(10));
    set_value(s, "[data-testid=judge-base-url]", &ollama.url);
    s.click("[data-testid=judge-test]");
    let ok = s.wait("[data-testid=judge-test-ok]", Duration::from_secs(30));
    assert!(s.text(&ok).contains("ollama · d1-omni:600m"), "{}", s.text(&ok));
    shots.take(s, "settings-ollama-judge");
    s.click("[data-testid=settings-save]");
    std::thread::sleep(Duration::from_millis(800));

    ask(s, "How long is the battery warranty?", long);
    let asked = ollama.requests().iter().filter(|r| r.path == "/v1/systemone").count();
    assert!(asked > 1, "the Ollama-like server judged the passages");
    assert!(ollama.requests().iter().all(|r| r.header("authorization").is_none()));
    s.click("[data-testid=open-inspector]");
    let stage = s.wait("[data-testid=stage-5] h3", Duration::from_secs(20));
    let head = s.text(&stage);
    assert!(head.contains("ollama · d1-omni:600m"), "{head}");
    s.wait("[data-testid=judge-partial]", Duration::from_secs(10));
    shots.take(s, "inspector-ollama-judge");

    // Replay under Spring AI 2.1's filter: the failed passage is kept (fail-open) until failClosed drops it, with
    // no call to the judge.
    let calls = ollama.requests().len();
    s.click("[data-testid=nav-replay]");
    s.wait("[data-testid=replay-row]", Duration::from_secs(20));
    set_value(s, "[data-testid=mode]", "decision_filter");
    s.wait("[data-testid=fail-closed]", Duration::from_secs(10));
    let settle = |want: &str| {
        let start = Instant::now();
        loop {
            let now = reasons(s, "[data-testid=replay-row]");
            if now.iter().any(|(_, r)| r == want) || start.elapsed() > Duration::from_secs(10) {
                break now;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let open = settle("failed_kept");
    assert_eq!(open.iter().filter(|(_, r)| r == "failed_kept").count(), 1, "{open:?}");
    s.click("[data-testid=fail-closed]");
    let closed = settle("failed_dropped");
    assert_eq!(
        closed.iter().filter(|(_, r)| r == "failed_dropped").count(),
        1,
        "{closed:?}"
    );
    assert!(!closed.iter().any(|(_, r)| r == "failed_kept"), "{closed:?}");
    assert_eq!(ollama.requests().len(), calls, "replay called the judge");
    shots.take(s, "replay-fail-closed");
}
