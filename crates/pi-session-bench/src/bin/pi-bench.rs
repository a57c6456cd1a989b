//! pi-bench: our CLI and the real pi side by side on one corpus (see `bench/README.md`).

#[cfg(unix)]
fn main() -> std::process::ExitCode {
    pi_session_bench::bench::main()
}

#[cfg(not(unix))]
fn main() -> std::process::ExitCode {
    eprintln!("pi-bench runs on Unix only (it measures its children with wait4)");
    std::process::ExitCode::from(2)
}
