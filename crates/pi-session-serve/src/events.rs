//! Live updates as server-sent events on `/api/events`: `root-changed` and `index-progress`,
//! with the payloads the window's events carry.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::stream::Stream;
use pi_session_app::service::AppEvent;
use tokio::sync::broadcast;

use crate::Shared;

fn to_sse(e: &AppEvent) -> Option<SseEvent> {
    Some(SseEvent::default().event(e.name()).data(serde_json::to_string(e).ok()?))
}

pub(crate) async fn stream(State(st): State<Arc<Shared>>) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let rx = st.events.subscribe();
    let s = futures_util::stream::unfold(rx, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(e) => {
                    if let Some(ev) = to_sse(&e) {
                        return Some((Ok(ev), rx));
                    }
                }
                // A slow reader missed some: tell it the root changed, so it reloads.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    return Some((Ok(SseEvent::default().event("root-changed").data(r#"{"changed":[],"added":[],"removed":[]}"#)), rx));
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(s).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
