//! `GET /openapi.json` (no token, as FastAPI serves it): an OpenAPI 3.1 description of this service's routes, the
//! request bodies' schemas drawn from the same tables that check them ([`schema::json_schema`]).

use crate::guard::reply;
use axum::http::StatusCode;
use axum::response::Response;
use ragsift_workbench::eval::select::schema::{self, Field};
use serde_json::{json, Map, Value};

/// A request body: its model's name and fields.
type BodyModel = Option<(&'static str, &'static [Field])>;

/// The routes: method, path, summary, the request body's model, and whether a token is needed.
const ROUTES: &[(&str, &str, &str, BodyModel, bool)] = &[
    (
        "get",
        "/healthz",
        "Health: 200 once the judge is loaded, 503 before",
        None,
        false,
    ),
    ("get", "/v1/config", "What this service can do", None, true),
    ("get", "/v1/recordings", "The example bundles", None, true),
    ("get", "/v1/recordings/{case_id}", "One example bundle", None, true),
    ("get", "/v1/examples", "The example cases", None, true),
    (
        "get",
        "/v1/fixtures/{case_id}",
        "An example's run view from hand-authored scores",
        None,
        true,
    ),
    (
        "post",
        "/v1/runs",
        "Score a study request live and return its run view",
        Some(("StudyRequest", schema::STUDY_REQUEST)),
        true,
    ),
    (
        "post",
        "/v1/replay",
        "Replay a scored run under another policy",
        Some(("ReplayRequest", schema::REPLAY_REQUEST)),
        true,
    ),
    (
        "post",
        "/v1/import",
        "Replay and keep a scored run with its recorded answers",
        Some(("ReplayBundle", schema::REPLAY_BUNDLE)),
        true,
    ),
    (
        "post",
        "/v1/compare",
        "Compare answers (503: this service generates none)",
        Some(("ReplayRequest", schema::REPLAY_REQUEST)),
        true,
    ),
    (
        "post",
        "/v1/select",
        "Judge and select the candidates",
        Some(("SelectRequest", schema::SELECT_REQUEST)),
        true,
    ),
];

/// `GET /openapi.json`.
pub async fn openapi() -> Response {
    reply(StatusCode::OK, &document())
}

/// The OpenAPI document.
pub fn document() -> Value {
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for (method, path, summary, body, token) in ROUTES {
        let mut op = json!({
            "summary": summary,
            "responses": {"200": {"description": "Successful Response", "content": {"application/json": {}}}},
        });
        if let Some((name, fields)) = body {
            schemas.insert(name.to_string(), schema::json_schema(fields));
            op["requestBody"] = json!({"required": true, "content": {"application/json": {
                "schema": {"$ref": format!("#/components/schemas/{name}")}}}});
            op["responses"]["422"] = json!({"description": "Validation Error: {error: invalid_request, issues}"});
        }
        if *token {
            op["security"] = json!([{"bearer": []}]);
        }
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        entry[*method] = op;
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "ragsift serve",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "rag-jev 0.2.0's selection service over a ragsift library: select useful context from \
                existing retrieval results, every selection kept as a run to inspect and replay.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_is_described_with_its_body_schema() {
        let doc = document();
        for (method, path, ..) in ROUTES {
            assert!(doc["paths"][path][method].is_object(), "{method} {path}");
        }
        let select = &doc["components"]["schemas"]["SelectRequest"];
        assert_eq!(select["required"], json!(["query", "documents"]));
        assert_eq!(select["additionalProperties"], false);
        assert_eq!(select["properties"]["top_n"]["anyOf"][0]["maximum"], 256);
        assert_eq!(
            select["properties"]["documents"]["items"]["properties"]["text"]["maxLength"],
            60_000
        );
    }
}
