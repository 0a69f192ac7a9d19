//! Server-sent events: splits a byte stream into the `data:` payloads of its events.

use std::io::BufRead;

/// Reads events from an SSE stream; yields each event's data (multi-line data joined with `\n`).
/// Comments and other fields are skipped. An I/O error (e.g. a dropped connection) is returned as is.
pub struct Events<R> {
    reader: R,
}

impl<R: BufRead> Events<R> {
    pub fn new(reader: R) -> Self {
        Events { reader }
    }
}

impl<R: BufRead> Iterator for Events<R> {
    type Item = std::io::Result<String>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut data: Option<String> = None;
        loop {
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Err(e) => return Some(Err(e)),
                Ok(0) => return data.map(Ok),
                Ok(_) => {}
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if data.is_some() {
                    return data.map(Ok);
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix("data:") {
                let rest = rest.strip_prefix(' ').unwrap_or(rest);
                match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(rest);
                    }
                    None => data = Some(rest.to_string()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_events() {
        let raw = ": comment\ndata: {\"a\":1}\n\ndata: line1\ndata: line2\nevent: x\n\ndata: [DONE]\n\n";
        let got: Vec<String> = Events::new(raw.as_bytes()).map(|e| e.unwrap()).collect();
        assert_eq!(got, vec!["{\"a\":1}", "line1\nline2", "[DONE]"]);
    }
}
