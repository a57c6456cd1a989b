// Prevents an extra console window on Windows in release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

/// Big blocks on huge pages (`BigPages`): opening a big session fills tens of megabytes at once.
#[global_allocator]
static ALLOC: pi_session::session::BigPages = pi_session::session::BigPages;

fn main() {
    pi_session_explorer::run()
}
