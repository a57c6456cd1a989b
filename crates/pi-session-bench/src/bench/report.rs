//! The report: rows per corpus, a JSON object, failures, and the ratios printed first.

use serde_json::Value;

#[derive(Default)]
pub(super) struct Report {
    pub(super) rows: Vec<(String, String, String)>,
    pub(super) json: serde_json::Map<String, Value>,
    pub(super) failures: Vec<String>,
}

impl Report {
    pub(super) fn section(&mut self, title: &str) {
        self.rows.push((format!("— {title}"), String::new(), String::new()));
        eprintln!("pi-bench: {title}…");
    }

    pub(super) fn row(&mut self, what: &str, value: String, note: String) {
        eprintln!("pi-bench:   {what}: {value} {note}");
        self.rows.push((what.to_string(), value, note));
    }

    pub(super) fn set(&mut self, key: &str, v: Value) {
        self.json.insert(key.to_string(), v);
    }

    pub(super) fn fail(&mut self, what: &str, msg: String) {
        self.row(what, "FAILED".into(), msg.clone());
        self.failures.push(format!("{what}: {msg}"));
    }

    pub(super) fn print(&self) {
        let w0 = self.rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
        let w1 = self.rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
        for (a, b, c) in &self.rows {
            if b.is_empty() && c.is_empty() {
                println!("{a}");
            } else {
                println!("  {a:<w0$}  {b:>w1$}  {c}", w0 = w0 - 2);
            }
        }
    }
}

pub(super) fn secs(s: f64) -> String {
    if s < 0.001 {
        format!("{:.3} ms", s * 1e3)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

pub(super) fn mb(kb: u64) -> String {
    format!("{:.0} MB", kb as f64 / 1024.0)
}

pub(super) fn gbps(bytes: u64, s: f64) -> f64 {
    bytes as f64 / 1e9 / s
}

pub(super) fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// A ratio for the summary table.
pub(super) struct Ratio {
    pub(super) key: String,
    pub(super) label: String,
    /// The ratio (for the floor's rows, of whole processes).
    pub(super) value: f64,
    /// The floor's rows: the same ratio in process, shown after the whole-process one.
    pub(super) in_process: Option<f64>,
    /// An absolute figure rather than a ratio (entries per second per core, MB).
    pub(super) unit: &'static str,
}

impl Ratio {
    pub(super) fn show(&self) -> String {
        match (self.unit, self.in_process) {
            ("×", Some(i)) => format!("{:.1}× / {i:.1}×", self.value),
            ("×", None) => format!("{:.1}×", self.value),
            ("k/s", _) => format!("{:.0} k/s", self.value / 1e3),
            (u, _) => format!("{:.0} {u}", self.value),
        }
    }
}

