//! `POST /api/<command>`: the command's arguments as a JSON object (the window's names:
//! `path`, `leafId`, `toId`, …), answered by the app's dispatch of the command table as the
//! window's are, with the command's JSON or `{code, message}` and the status for the code.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::{ServeError, Shared};

pub(crate) async fn handle(State(st): State<Arc<Shared>>, Path(command): Path<String>, body: Bytes) -> Response {
    let args: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => return ServeError::BadArgs { command, message: e.to_string() }.into_response(),
        }
    };
    let app = st.app.clone();
    match tokio::task::spawn_blocking(move || app.call(&command, args)).await {
        Ok(Ok(json)) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Ok(Err(e)) => ServeError::from(e).into_response(),
        Err(e) => ServeError::from(pi_session_app::api::ApiError { code: pi_session_app::api::ErrorCode::Internal, message: e.to_string() }).into_response(),
    }
}
