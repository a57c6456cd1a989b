//! The window's CSP (`tauri.conf.json`) for the binary, and `ui/dist` made to exist (rust-embed
//! embeds it, src/assets.rs): a remote box needs only `pi-session`. Without a built UI the build
//! still works: the server then answers with a page saying the UI was not built.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let repo = manifest.join("../..").canonicalize().unwrap();
    let dist = repo.join("ui/dist");
    let conf = repo.join("tauri.conf.json");
    // A new UI build (new hashed file names) rebuilds the crate, which embeds it again.
    println!("cargo:rerun-if-changed={}", dist.display());
    println!("cargo:rerun-if-changed={}", conf.display());

    // rust-embed reads ui/dist when the crate compiles; an empty folder stands in when the UI
    // was not built (the server then says so).
    std::fs::create_dir_all(&dist).unwrap();
    let mut src = String::new();
    // The window's CSP, directive by directive, in the order of tauri.conf.json.
    let text = std::fs::read_to_string(&conf).expect("tauri.conf.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("tauri.conf.json is JSON");
    let csp = json["app"]["security"]["csp"].as_object().expect("tauri.conf.json: app.security.csp is an object");
    src.push_str("/// The window's CSP (tauri.conf.json), as (directive, sources).\npub static WINDOW_CSP: &[(&str, &str)] = &[\n");
    for (k, v) in csp {
        writeln!(src, "    ({k:?}, {:?}),", v.as_str().expect("CSP sources are strings")).unwrap();
    }
    src.push_str("];\n");
    std::fs::write(PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("assets.rs"), src).unwrap();
}
