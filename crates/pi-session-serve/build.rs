//! Embeds the built UI (`ui/dist`) and the window's CSP (`tauri.conf.json`) in the binary, so a
//! remote box needs only `pi-session`. Without `ui/dist` the build still works: the server then
//! answers with a page saying the UI was not built.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let repo = manifest.join("../..").canonicalize().unwrap();
    let dist = repo.join("ui/dist");
    let conf = repo.join("tauri.conf.json");
    println!("cargo:rerun-if-changed={}", dist.display());
    println!("cargo:rerun-if-changed={}", conf.display());

    let mut files = Vec::new();
    if dist.join("index.html").is_file() {
        walk(&dist, &mut files);
    }
    let mut src = String::from("/// The built UI: (path under ui/dist, bytes).\npub static ASSETS: &[(&str, &[u8])] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let rel = f.strip_prefix(&dist).unwrap().to_string_lossy().replace('\\', "/");
        writeln!(src, "    ({rel:?}, include_bytes!({:?})),", f.display().to_string()).unwrap();
    }
    src.push_str("];\n");

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
