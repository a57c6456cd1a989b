//! `pi-session serve` as a process: the URL it prints (the token in the fragment) works as
//! printed, also bound to another loopback address; the warning when it listens beyond this
//! machine says what the token allows; and with `ulimit -n 1024`, beside 1,000 connections that
//! never finish their headers, the token holder is answered within a second, and the idle ones
//! are closed after the default header timeout.

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");

struct Serve {
    child: Child,
    addr: SocketAddr,
    token: String,
    url: String,
    stderr: BufReader<std::process::ChildStderr>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `pi-session serve` (through `sh -c 'ulimit -n N; exec …'` when `files` is given) and
/// reads the URL it prints.
fn serve(root: &Path, cache: &Path, extra: &[&str], files: Option<u32>) -> Serve {
    let mut cmd = match files {
        Some(n) => {
            let mut c = Command::new("sh");
            c.args(["-c", &format!("ulimit -n {n} && exec \"$0\" \"$@\""), BIN]);
            c
        }
        None => Command::new(BIN),
    };
    cmd.arg("serve").arg("--sessions-dir").arg(root).args(["--no-watch"]).args(extra);
    let mut child = cmd.env("PI_SESSION_CACHE_DIR", cache).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().to_string();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let rest = url.strip_prefix("http://").unwrap_or_else(|| panic!("printed {url:?}"));
    let (addr, token) = rest.split_once("/#token=").unwrap_or_else(|| panic!("no token in the fragment: {url}"));
    Serve { addr: addr.parse().unwrap(), token: token.to_string(), url, child, stderr }
}

fn request(addr: SocketAddr, host: &str, head: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "{head}\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let status = raw.split(' ').nth(1).unwrap().parse().unwrap();
    (status, raw)
}

fn app_info(s: &Serve, host: &str) -> (u16, String) {
    request(s.addr, host, &format!("POST /api/app_info HTTP/1.1\r\nAuthorization: Bearer {}\r\nContent-Type: application/json", s.token), "{}")
}

fn demo(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("sessions");
    common::copy_tree(&common::demo_sessions(), &root);
    root
}

#[test]
fn the_printed_url_works_as_printed_also_on_another_loopback_address() {
    let dir = tempfile::tempdir().unwrap();
    let root = demo(dir.path());
    for listen in ["127.0.0.1:0", "127.0.0.2:0"] {
        let s = serve(&root, &dir.path().join("cache"), &["--listen", listen], None);
        let host = s.addr.to_string();
        assert_eq!(s.url, format!("http://{}:{}/#token={}", listen.trim_end_matches(":0"), s.addr.port(), s.token));
        let (status, page) = request(s.addr, &host, "GET / HTTP/1.1", "");
        assert!(status == 200 || status == 503, "{listen}: {page}");
        assert!(!page.contains(&s.token), "the page holds no token");
        let (status, body) = app_info(&s, &host);
        assert_eq!(status, 200, "{listen}: {body}");
        // Through a tunnel the browser names another local port: answered too.
        let (status, _) = app_info(&s, &format!("localhost:{}", s.addr.port() + 1));
        assert_eq!(status, 200);
        // Another loopback address than the bound one is not.
        let (status, _) = app_info(&s, &format!("127.0.0.3:{}", s.addr.port()));
        assert_eq!(status, 403);
        let (status, _) = app_info(&s, "localhost:evil");
        assert_eq!(status, 403);
    }
}

/// The warning line, read from stderr up to the `serving` line.
fn warning(s: &mut Serve) -> String {
    let mut all = String::new();
    for _ in 0..5 {
        let mut l = String::new();
        if s.stderr.read_line(&mut l).unwrap() == 0 {
            break;
        }
        all.push_str(&l);
        if l.contains("serving") {
            break;
        }
    }
    all
}

#[test]
fn listening_beyond_this_machine_warns_of_what_the_token_allows() {
    let dir = tempfile::tempdir().unwrap();
    let root = demo(dir.path());
    let cache = dir.path().join("cache");
    let mut w = serve(&root, &cache, &["--listen", "0.0.0.0:0", "--allow-writes"], None);
    let text = warning(&mut w);
    assert!(text.contains("warning") && text.contains("read the sessions") && text.contains("write to them"), "{text}");
    assert!(text.contains("writes allowed"), "{text}");
    let mut r = serve(&root, &cache, &["--listen", "0.0.0.0:0"], None);
    let text = warning(&mut r);
    assert!(text.contains("warning") && text.contains("read the sessions") && !text.contains("write to them"), "{text}");
    let mut ro = serve(&root, &cache, &["--listen", "0.0.0.0:0", "--allow-writes", "--read-only"], None);
    let text = warning(&mut ro);
    assert!(!text.contains("write to them") && text.contains("read-only"), "{text}");
    let mut local = serve(&root, &cache, &["--listen", "127.0.0.1:0", "--allow-writes"], None);
    let text = warning(&mut local);
    assert!(!text.contains("warning"), "{text}");
}

/// Raises this process's soft open-file limit to its hard one (the test holds 1,000 sockets).
fn raise_own_fd_limit() {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim), 0);
        lim.rlim_cur = lim.rlim_max;
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &lim), 0);
    }
}

#[test]
fn with_ulimit_1024_a_thousand_idle_connections_do_not_lock_out_the_token_holder() {
    raise_own_fd_limit();
    let dir = tempfile::tempdir().unwrap();
    let root = demo(dir.path());
    let before: Vec<Vec<u8>> = common_files(&root);
    let s = serve(&root, &dir.path().join("cache"), &["--listen", "127.0.0.1:0"], Some(1024));
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", s.child.id())).unwrap();
    let files = limits.lines().find(|l| l.starts_with("Max open files")).unwrap().to_string();
    assert_eq!(files.split_whitespace().skip(3).take(2).collect::<Vec<_>>(), ["1024", "1024"], "{files}");
    let host = s.addr.to_string();

    let t0 = Instant::now();
    let mut idle: Vec<(Instant, TcpStream)> = (0..1000)
        .map(|_| {
            let mut c = TcpStream::connect(s.addr).unwrap();
            write!(c, "GET / HTTP/1.1\r\nHost: {host}\r\nX-Slow: ").unwrap();
            (Instant::now(), c)
        })
        .collect();
    println!("1,000 half-sent connections opened in {:?}", t0.elapsed());
    std::thread::sleep(Duration::from_millis(200));
    let held = std::fs::read_dir(format!("/proc/{}/fd", s.child.id())).unwrap().count();
    println!("the server holds {held} descriptors (limit 1024)");
    assert!(held < 1024, "{held}");

    let t = Instant::now();
    let (status, body) = app_info(&s, &host);
    let took = t.elapsed();
    println!("the token holder's app_info beside them: {took:?}");
    assert_eq!(status, 200, "{body}");
    assert!(took < Duration::from_secs(1), "answered after {took:?}");

    // The newest idle connection (never evicted: older ones went first) is closed by the default
    // header timeout, 10 s after it was opened.
    let (opened, mut last) = idle.pop().unwrap();
    last.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let closed = loop {
        match last.read(&mut [0u8; 256]) {
            Ok(0) => break opened.elapsed(),
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break opened.elapsed(),
        }
        assert!(opened.elapsed() < Duration::from_secs(15), "still open after 15 s");
    };
    println!("the newest idle connection was closed after {closed:?}");
    assert!(closed >= Duration::from_millis(9_500) && closed < Duration::from_secs(12), "closed after {closed:?}");
    assert_eq!(app_info(&s, &host).0, 200, "the server still answers");
    drop(idle);
    drop(s);
    assert_eq!(common_files(&root), before, "files changed");
}

/// The bytes of every session file under `root`, in path order.
fn common_files(root: &Path) -> Vec<Vec<u8>> {
    fn walk(d: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out)
            } else {
                out.push(p)
            }
        }
    }
    let mut paths = Vec::new();
    walk(root, &mut paths);
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}
