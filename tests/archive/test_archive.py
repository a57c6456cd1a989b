"""The Parquet archive read by the real DuckDB.

Generated sessions in two roots (pi-corpus, plus pi 1.6 `usage` lines appended), exported with
`pi-session export --parquet`; then:
  * row counts, token and cost sums per session equal `pi-session list --json`;
  * the example queries of docs/archive.md run;
  * appending lines and rerunning adds exactly the new rows;
  * a rerun with nothing new writes nothing (no file created or changed).
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[2]
PI_SESSION = os.environ["PI_SESSION_BIN"]
PI_CORPUS = os.environ["PI_CORPUS_BIN"]

checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def listing(roots):
    args = [PI_SESSION, "list", "--json"]
    for r in roots:
        args += ["--sessions-dir", r]
    return json.loads(run(*args))["sessions"]


def export(out, roots, *extra):
    args = [PI_SESSION, "export", "--parquet", str(out), "--json", *extra]
    for r in roots:
        args += ["--sessions-dir", r]
    return json.loads(run(*args))


def snapshot(folder):
    """Every file under the folder with its size and mtime."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in Path(folder).rglob("*") if p.is_file()}


def views(con, out):
    sql = "\n".join(re.findall(r"```sql\n(.*?)```", (REPO / "docs/archive.md").read_text(), re.S)[:1])
    con.execute(sql.replace("'archive/", f"'{out}/"))


def doc_queries(out):
    blocks = re.findall(r"```sql\n(.*?)```", (REPO / "docs/archive.md").read_text(), re.S)
    return [b.replace("'archive/", f"'{out}/") for b in blocks[1:] if "s3://" not in b]


def leaf_of(path):
    """The id of the last entry line (the leaf, as pi would continue from it)."""
    last = None
    for line in Path(path).read_text().splitlines():
        try:
            v = json.loads(line)
        except ValueError:
            continue
        if v.get("type") == "leaf":
            last = v.get("targetId")
        elif v.get("type") != "session" and v.get("id"):
            last = v["id"]
    return last


def append_lines(path, n_messages, n_usage):
    """Appends assistant messages and pi 1.6 `usage` lines (as pi writes them) after the leaf."""
    parent = leaf_of(path)
    lines = []
    for k in range(n_messages + n_usage):
        eid = uuid.uuid4().hex[:8]
        ts = f"2026-11-{10 + k:02d}T12:00:00.000Z"
        usage = {"input": 100 + k, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120 + k,
                 "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003 + k / 1000}}
        if k < n_messages:
            line = {"type": "message", "id": eid, "parentId": parent, "timestamp": ts,
                    "message": {"role": "assistant", "content": [{"type": "text", "text": f"appended {k}"}],
                                "provider": "anthropic", "model": "claude-test", "usage": usage,
                                "stopReason": "stop", "timestamp": 1794312000000 + k}}
        else:
            line = {"type": "usage", "id": eid, "parentId": parent, "timestamp": ts, "kind": "cache_warm",
                    "provider": "anthropic", "model": "claude-test", "usage": usage}
        lines.append(json.dumps(line))
        parent = eid
    with open(path, "a") as f:
        f.write("".join(l + "\n" for l in lines))


def compare_with_list(con, roots, what):
    sessions = listing(roots)
    rows = {r[0]: r[1:] for r in con.execute(
        "SELECT path, count(*), coalesce(sum(total_tokens), 0), coalesce(sum(cost), 0) FROM entries GROUP BY path").fetchall()}
    cur = {r[0]: r[1:] for r in con.execute(
        "SELECT path, entry_count, tokens, cost, machine FROM current_sessions").fetchall()}
    check(len(cur) == len(sessions), f"{what}: {len(cur)} sessions in the archive, {len(sessions)} listed")
    for s in sessions:
        p = s["path"]
        n, tokens, cost = rows.get(p, (0, 0.0, 0.0))
        check(n == s["entryCount"], f"{what}: {p}: {n} entry rows, list says {s['entryCount']}")
        check(math.isclose(tokens, s["tokens"], rel_tol=1e-9, abs_tol=1e-9), f"{what}: {p}: tokens {tokens} != {s['tokens']}")
        check(math.isclose(cost, s["cost"], rel_tol=1e-9, abs_tol=1e-9), f"{what}: {p}: cost {cost} != {s['cost']}")
        c = cur.get(p)
        check(c is not None, f"{what}: {p} missing from sessions")
        check(c[0] == s["entryCount"] and math.isclose(c[1], s["tokens"], abs_tol=1e-9) and math.isclose(c[2], s["cost"], abs_tol=1e-9),
              f"{what}: {p}: sessions row {c} differs from list")
        check(c[3] == s["root"], f"{what}: {p}: machine {c[3]} but root {s['root']}")
    return sessions


def main():
    with tempfile.TemporaryDirectory(prefix="pi-archive-") as tmp:
        tmp = Path(tmp)
        os.environ["PI_SESSION_CACHE_DIR"] = str(tmp / "cache")
        run(PI_CORPUS, str(tmp / "laptop"), "--files", "12", "--mb", "3", "--seed", "11")
        run(PI_CORPUS, str(tmp / "desk"), "--files", "8", "--mb", "2", "--seed", "12")
        roots = [f"laptop={tmp / 'laptop/sessions'}", f"desk={tmp / 'desk/sessions'}"]
        files = sorted((tmp / "laptop/sessions").rglob("*.jsonl")) + sorted((tmp / "desk/sessions").rglob("*.jsonl"))
        # pi 1.6 usage lines in two sessions, one per root.
        append_lines(files[0], 1, 2)
        append_lines(files[-1], 0, 1)
        out = tmp / "archive"

        r1 = export(out, roots)
        con = duckdb.connect()
        views(con, out)
        sessions = compare_with_list(con, roots, "first export")
        total_entries = sum(s["entryCount"] for s in sessions)
        n_entries = con.execute("SELECT count(*) FROM entries").fetchone()[0]
        check(n_entries == total_entries == r1["entryRows"], f"entries: {n_entries} rows, list {total_entries}, report {r1['entryRows']}")
        check(con.execute("SELECT count(*) FROM usage").fetchone()[0] == 3 == r1["usageRows"], "usage rows: 3 expected")
        check(con.execute("SELECT sum(total_tokens) FROM usage").fetchone()[0] == 121 + 122 + 120, "usage tokens")
        machines = sorted(r[0] for r in con.execute("SELECT DISTINCT machine FROM entries").fetchall())
        check(machines == ["desk", "laptop"], f"machines {machines}")
        check(con.execute("SELECT count(*) FROM entries WHERE text IS NOT NULL").fetchone()[0] == 0, "no text without --with-text")
        for q in doc_queries(out):
            res = con.execute(q).fetchall()
            check(len(res) > 0, f"example query returned nothing: {q}")
        share = con.execute(doc_queries(out)[2]).fetchall()
        check(all(0 <= r[1] <= 1 for r in share), f"abandoned share out of range: {share}")
        print(f"first export: {len(sessions)} sessions in 2 roots, {n_entries} entries, {r1['usageRows']} usage rows, "
              f"{len(r1['filesWritten'])} Parquet files, {r1['bytesWritten']} bytes; sums equal list per session")

        # An append and a rerun add exactly the new rows.
        append_lines(files[3], 4, 1)
        append_lines(files[-2], 2, 0)
        r2 = export(out, roots)
        check(r2["entryRows"] == 7 and r2["usageRows"] == 1 and r2["sessionRows"] == 2 and r2["filesChanged"] == 2, f"rerun report {r2}")
        views(con, out)
        n2 = con.execute("SELECT count(*) FROM entries").fetchone()[0]
        check(n2 == n_entries + 7, f"after the append: {n2} entry rows, expected {n_entries + 7}")
        check(con.execute("SELECT count(*) FROM usage").fetchone()[0] == 4, "usage rows after the append")
        dup = con.execute("SELECT count(*) FROM (SELECT path, byte_offset FROM entries GROUP BY ALL HAVING count(*) > 1)").fetchone()[0]
        check(dup == 0, f"{dup} entries exported twice")
        compare_with_list(con, roots, "after the append")
        print(f"append + rerun: +{r2['entryRows']} entry rows, +{r2['usageRows']} usage rows, +{r2['sessionRows']} session snapshots")

        # Nothing new: nothing written.
        before = snapshot(out)
        r3 = export(out, roots)
        check(r3["filesWritten"] == [] and r3["entryRows"] == 0 and r3["filesChanged"] == 0, f"idle rerun report {r3}")
        check(snapshot(out) == before, "an idle rerun changed the archive folder")
        print("idle rerun: nothing written")

        # --with-text fills entries.text (a fresh archive).
        r4 = export(tmp / "with-text", roots, "--with-text")
        views(con, tmp / "with-text")
        texts = con.execute("SELECT count(*) FROM entries WHERE text LIKE 'appended %'").fetchone()[0]
        check(texts == 1 + 4 + 2, f"--with-text: {texts} appended texts found")
        check(r4["entryRows"] == n2, "--with-text exports every entry")
    print(f"archive tests passed ({checks} checks)")


if __name__ == "__main__":
    main()
