#!/usr/bin/env node
// documented.mjs — the documented differences between pi-session and the real pi, as tables
// diff.mjs applies (users read the same rows in docs/differences.md), and the helpers they use.
// Each row names the package lines it is asserted against (`oracles`); `f.oracle` is the pi
// under test ({line, version}).

import { UNDEFINED } from "./oracle.mjs";

// ---------------------------------------------------------------- helpers
/** JSON with object keys sorted: deep equality regardless of key order. */
export function canon(v) {
	if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
	if (v && typeof v === "object") {
		return `{${Object.keys(v)
			.filter((k) => v[k] !== undefined)
			.sort()
			.map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
			.join(",")}}`;
	}
	return JSON.stringify(v ?? null);
}
export const same = (a, b) => canon(a) === canon(b);
export const short = (v, n = 300) => {
	const s = typeof v === "string" ? v : JSON.stringify(v);
	return s === undefined ? "undefined" : s.length > n ? `${s.slice(0, n)}…` : s;
};

export const hasDiag = (tree, ...kinds) => tree.diagnostics.some((d) => kinds.includes(d.kind));

/**
 * Predicts whether pi's walk from `leafId` up through the parentIds *as written* loops
 * (`getBranch` and `buildSessionContext` follow `byId.get(parentId)` while parentId is
 * truthy, and never stop on a revisit). Uses the lines as written, from our entry list.
 */
export function rawWalkLoops(tree, leafId) {
	const byId = new Map();
	for (const e of tree.entries) if (e.id !== null) byId.set(e.id, e);
	const seen = new Set();
	for (let e = byId.get(leafId); e; e = e.parentId ? byId.get(e.parentId) : undefined) {
		if (seen.has(e)) return true;
		seen.add(e);
	}
	return false;
}

// ---------------------------------------------------------------- the documented differences
//
// One table, one row per difference, each for the oracles named in `oracles` (the package
// line: 0 = @mariozechner, pinned 0.73.1; 1 = @earendil-works, pinned 1.6.0; all when absent). `applies` looks at the input (our reading of the
// file, which the generic comparison checks everywhere else); `expect` asserts the exact
// documented difference, pushing a message to `bad` for anything else, and rewrites the
// two sides so that the generic comparison that follows checks everything the difference
// does not explain. docs/differences.md describes the same rows for users.

export const DOCUMENTED = [
	{
		id: "no-header",
		exclusive: true, // pi has no entries: no other row can be checked
		title: "Files without a valid session header",
		pi: "0.73.1 discards every entry and replaces the file with a fresh header (new session id) on open; 1.x does the same to an empty file, and refuses any other file (throws 'not a valid pi session', leaves it alone)",
		ours: "shows the entries as they are, read-only, with a missing-header (or empty-file) diagnostic",
		applies: (f) => f.tree.readOnly === "no-header",
		expect(f, pi, me, bad) {
			if (!hasDiag(f.tree, "missing-header", "empty-file")) bad.push("no missing-header or empty-file diagnostic");
			if (f.oracle.line >= 1 && f.size > 0) {
				if (!/not a valid pi session/.test(pi.error ?? "")) bad.push(`pi ${f.oracle.version} did not refuse the file: ${short(pi.error ?? "no error")}`);
				if (pi.piRewroteFileOnOpen !== false) bad.push(`pi ${f.oracle.version} changed the file`);
				delete pi.error;
				return "skip";
			}
			if (pi.entries?.length !== 0) bad.push(`pi kept ${pi.entries?.length} entries`);
			if (pi.piRewroteFileOnOpen !== true) bad.push("pi did not rewrite the file");
			const empty = { leafId: null, path: [], context: { messages: [], model: null, thinkingLevel: "off" } };
			if (!same(pi.view, empty)) bad.push(`pi's view is not empty: ${short(pi.view)}`);
			if (pi.roots?.length || Object.keys(pi.children ?? {}).length || Object.keys(pi.labels ?? {}).length || pi.sessionName !== null)
				bad.push("pi's tree, labels or name are not empty");
			return "skip"; // nothing else is comparable: pi has no entries
		},
	},
	{
		id: "migrated-file",
		title: "Version 1 and 2 files",
		pi: "migrates the file to version 3 and rewrites it on open; its header then says version 3",
		ours: "migrates in memory only, never writes, shows the file read-only and the header as written",
		applies: (f) => f.tree.readOnly === "old-version",
		expect(f, pi, me, bad) {
			if (!hasDiag(f.tree, "old-version")) bad.push("no old-version diagnostic");
			if (pi.piRewroteFileOnOpen !== true) bad.push("pi did not rewrite the file");
			if (pi.header?.version !== 3) bad.push(`pi's header version is ${pi.header?.version}`);
			if (!(typeof f.tree.version !== "number" || f.tree.version < 3)) bad.push(`our version is ${f.tree.version}`);
			me.header = { ...me.header, version: 3 };
		},
	},
	{
		id: "v1-ids",
		title: "Version 1 files: entry ids",
		pi: "gives every entry a fresh random id on each open (and writes them into the file)",
		ours: "gives synthetic ids (v1-<line>) that are stable across reads; compared by position in the file",
		applies: (f) => f.tree.readOnly === "old-version" && (typeof f.tree.version !== "number" || f.tree.version < 2),
		expect(f, pi, me, bad) {
			const mine = f.tree.entries.map((e) => e.id);
			const theirs = (pi.entries ?? []).map((e) => e.id);
			if (mine.length !== theirs.length) {
				bad.push(`entry counts differ: pi ${theirs.length}, ours ${mine.length}`);
				return;
			}
			const map = new Map();
			theirs.forEach((id, i) => {
				if (!/^[0-9a-f]{8}$/.test(id)) bad.push(`pi's migrated id ${id} is not 8 hex digits`);
				if (mine[i] !== `v1-${f.tree.entries[i].line}`) bad.push(`our id ${mine[i]} is not v1-<line>`);
				map.set(id, mine[i]);
			});
			const m = (id) => (map.has(id) ? map.get(id) : id);
			const mapView = (v) => v && { ...v, leafId: m(v.leafId), path: v.path?.map(m) };
			pi.view = mapView(pi.view);
			pi.leafIdAfterLoad = m(pi.leafIdAfterLoad);
			pi.roots = pi.roots?.map(m);
			pi.children = Object.fromEntries(Object.entries(pi.children ?? {}).map(([k, v]) => [m(k), v.map(m)]));
			pi.labels = Object.fromEntries(Object.entries(pi.labels ?? {}).map(([k, v]) => [m(k), v]));
		},
	},
	{
		id: "leaf-line",
		title: "`leaf` lines (newer pi harness) as the last entry line",
		pi: "0.73.1 does not know the type: the leaf is the leaf line itself (its parentId chain), not its targetId",
		ours: "the leaf is the line's targetId (null = before the first entry; a target not in the file leaves the leaf at the line's parent, with a dangling-target diagnostic)",
		applies: (f) => {
			const last = f.tree.entries.findLast((e) => e.id !== null);
			return last?.type === "leaf";
		},
		expect(f, pi, me, bad) {
			const line = f.tree.entries.findLast((e) => e.id !== null);
			if (pi.leafIdAfterLoad !== line.id) bad.push(`pi's leaf is ${pi.leafIdAfterLoad}, not the leaf line ${line.id}`);
			if (f.tree.leafId === line.id) bad.push("our leaf is the leaf line itself");
			const key = f.tree.leafId ?? "null";
			// pi at the leaf line == us at the leaf line; pi at our leaf == our default view.
			// (A walk into a parent cycle hangs in pi: the parent-cycle row checks those.)
			if (!pi.at?.[key] && !pi.timeouts.includes(`at:${key}`)) bad.push(`pi's view at our leaf ${key} is missing`);
			if (!me.at?.[line.id]) bad.push(`our view at the leaf line ${line.id} is missing`);
			pi.timeouts = pi.timeouts.flatMap((t) => (t === "view" ? [`at:${line.id}`] : t === `at:${key}` ? [t, "view"] : [t]));
			// Our navigate lines have parentId = targetId: pi then resumes with the same context.
			const target = f.rawLine(line.line)?.targetId;
			if (line.parentId === target && f.tree.leafId === target && pi.view) {
				const mine = me.view?.context;
				if (!same(pi.view?.context, mine)) bad.push(`navigate line: pi's context at the line is not ours at ${target}`);
			}
			pi.at = { ...pi.at, [line.id]: pi.view };
			pi.view = pi.at?.[key];
			pi.leafIdAfterLoad = me.leafId; // checked above
		},
	},
	{
		id: "duplicate-id",
		title: "An id on more than one line",
		pi: "keeps the later line for lookups but lists that node once per line carrying the id, under each line's parent (e.g. children(1) = [2, 2])",
		ours: "keeps the later line, lists it once, under that line's parent, and reports a duplicate-id diagnostic",
		applies: (f) => hasDiag(f.tree, "duplicate-id"),
		expect(f, pi, me, bad) {
			const counts = new Map();
			for (const e of f.tree.entries) if (e.id !== null) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
			const dups = [...counts].filter(([, n]) => n > 1);
			const occurrences = (t, id) => (t.roots ?? []).filter((x) => x === id).length + Object.values(t.children ?? {}).flat().filter((x) => x === id).length;
			// pi lists the node once per line, under that line's parent: a root when the parent is
			// null, itself or not in the file; nowhere when the parent is a node pi's tree does
			// not reach (inside a parent cycle).
			const ids = new Set(f.tree.entries.map((e) => e.id));
			const shown = new Set([...(pi.roots ?? []), ...Object.values(pi.children ?? {}).flat()]);
			const hasNameless = f.piEntries.some((v) => v?.id === undefined);
			const expected = (id) =>
				f.tree.entries
					.filter((e) => e.id === id)
					.filter((e) => {
						const p = f.rawLine(e.line)?.parentId;
						if (p === undefined) return hasNameless ? shown.has(UNDEFINED) : true;
						return p === null || p === id || typeof p !== "string" || !ids.has(p) || shown.has(p);
					}).length;
			for (const [id, n] of dups) {
				if (occurrences(pi, id) !== expected(id)) bad.push(`pi lists ${id} ${occurrences(pi, id)} times, not once per line under a parent it shows (${expected(id)} of ${n})`);
				if (occurrences(me, id) !== 1) bad.push(`we list ${id} ${occurrences(me, id)} times`);
				if (!f.tree.diagnostics.some((d) => d.kind === "duplicate-id" && d.message.includes(id))) bad.push(`no duplicate-id diagnostic for ${id}`);
			}
			const drop = new Set(dups.map(([id]) => id));
			for (const t of [pi, me]) stripIds(t, drop);
		},
	},
	{
		id: "null-line",
		oracles: [0], // 1.x skips lines whose value is falsy, as we do
		exclusive: true, // pi gives no answer at all
		title: "A line that is just `null`",
		pi: "throws a TypeError while opening the file (it reads `.type` of every parsed line), so the session cannot be opened; /resume leaves it out",
		ours: "skips the line with a not-an-object diagnostic and reads the rest",
		applies: (f) => f.piValues.some((v) => v === null),
		expect(f, pi, me, bad) {
			if (!/Cannot read properties of null/.test(pi.error ?? "")) bad.push(`pi did not throw on the null line: ${short(pi.error ?? "no error")}`);
			if (!hasDiag(f.tree, "not-an-object")) bad.push("no not-an-object diagnostic");
			delete pi.error;
			return "skip"; // pi gave no answer to compare with
		},
	},
	{
		id: "refused-by-pi1",
		oracles: [1],
		exclusive: true, // pi gives no answer at all
		title: "Text before the header that JSON.parse rejects (a UTF-8 byte order mark, U+00A0)",
		pi: "1.x does not trim the file: the header line does not parse, so the file is not a valid pi session (open throws, /resume hides it); 0.73.1 trims the file and reads it",
		ours: "reads it as 0.73.1 does (no 1.x-only entries can be read without the header), with a refused-by-pi1 finding",
		applies: (f) => {
			const old = parseLikePi(f.raw, 0)[0];
			const now = parseLikePi(f.raw, 1)[0];
			const isHeader = (v) => v && v.type === "session" && typeof v.id === "string";
			return isHeader(old) && !isHeader(now);
		},
		expect(f, pi, me, bad) {
			if (!/not a valid pi session/.test(pi.error ?? "")) bad.push(`pi did not refuse the file: ${short(pi.error ?? "no error")}`);
			if (!hasDiag(f.tree, "refused-by-pi1")) bad.push("no refused-by-pi1 diagnostic");
			if (f.tree.readOnly === "no-header") bad.push("we did not read the header");
			delete pi.error;
			return "skip"; // pi gave no answer to compare with
		},
	},
	{
		id: "null-content",
		oracles: [1],
		title: "A user, assistant or toolResult message with `null` or no content, in a file without 1.x-only entries",
		pi: "1.x gives the message with `content: []` in the context",
		ours: "such a file is read with 0.73.1's rules: the message as stored (`content: null`, or no content)",
		applies: (f) => !f.piValues.some(isPi1Only) && f.piEntries.some((v) => v?.type === "message" && NULLABLE.has(v.message?.role) && v.message.content == null),
		expect(f, pi, me, bad) {
			let changed = 0;
			const fix = (view) => {
				if (!view?.context?.messages) return view;
				const messages = view.context.messages.map((m) => {
					if (!NULLABLE.has(m?.role) || m.content != null) return m;
					changed++;
					return { ...m, content: [] };
				});
				return { ...view, context: { ...view.context, messages } };
			};
			me.view = fix(me.view);
			me.at = Object.fromEntries(Object.entries(me.at ?? {}).map(([k, v]) => [k, fix(v)]));
			const seen = [pi.view, ...Object.values(pi.at ?? {})].flatMap((v) => v?.context?.messages ?? []);
			if (seen.some((m) => NULLABLE.has(m?.role) && m.content == null)) bad.push("pi gave a message with null content");
			if (!changed) bad.push("none of our views holds a message with null content");
		},
	},
	{
		id: "missing-id",
		title: "Entry lines without an id (objects without `id`, and JSON values that are not objects)",
		pi: "keeps the line as a nameless node (key undefined) under its parent, or as a root when it has no parentId; an entry without parentId becomes a child of that nameless node; when such a line is last, the leaf is undefined, getBranch() is empty and buildSessionContext() starts from that line",
		ours: "skips the line with a missing-id (or not-an-object) diagnostic; an entry without parentId is a root; the leaf is the last line that has an id",
		applies: (f) => f.tree.readOnly !== "old-version" && f.tree.readOnly !== "no-header" && f.piEntries.some((v) => v?.id === undefined),
		expect(f, pi, me, bad) {
			const nameless = f.piEntries.filter((v) => v?.id === undefined);
			const objects = f.piEntries.filter((v) => v && typeof v === "object" && !Array.isArray(v));
			const count = (kind) => f.tree.diagnostics.filter((d) => d.kind === kind).length;
			const idless = objects.filter((v) => typeof v.id !== "string").length;
			if (count("missing-id") !== idless) bad.push(`${idless} objects without a string id but ${count("missing-id")} missing-id diagnostics`);
			if (count("not-an-object") !== f.piEntries.length - objects.length) bad.push(`${f.piEntries.length - objects.length} non-object lines but ${count("not-an-object")} not-an-object diagnostics`);
			const n = (pi.roots ?? []).filter((x) => x === UNDEFINED).length + Object.values(pi.children ?? {}).flat().filter((x) => x === UNDEFINED).length;
			if (n !== nameless.length) bad.push(`pi lists ${n} nameless nodes for ${nameless.length} lines without an id`);
			// Entries with an id but no parentId key hang under pi's nameless node; ours are roots.
			const orphans = objects.filter((v) => typeof v.id === "string" && !("parentId" in v)).map((v) => v.id);
			if (!same([...(pi.children?.[UNDEFINED] ?? [])].sort(), [...new Set(orphans)].sort())) bad.push(`pi's nameless node has children ${short(pi.children?.[UNDEFINED])}, not the entries without parentId ${short(orphans)}`);
			for (const id of orphans) if (!me.roots.includes(id)) bad.push(`${id} (no parentId) is not one of our roots`);
			delete pi.children?.[UNDEFINED];
			me.roots = me.roots.filter((r) => !orphans.includes(r));
			stripIds(pi, new Set([UNDEFINED]));
			const own = f.piEntries.at(-1);
			if (own === undefined || own?.id !== undefined) return;
			// The last line has no id: pi's leaf is undefined and its context starts at that line.
			if (pi.leafIdAfterLoad !== UNDEFINED) bad.push(`pi's leaf is ${pi.leafIdAfterLoad}, not undefined`);
			const mineLast = f.tree.entries.findLast((e) => e.id !== null);
			if (me.leafId !== (mineLast?.id ?? null)) bad.push(`our leaf ${me.leafId} is not the last line with an id`);
			pi.leafIdAfterLoad = me.leafId; // checked above
			const parent = own && typeof own === "object" ? own.parentId : undefined;
			f.viewChecked = true; // the parent-cycle row leaves this view alone
			if (pi.timeouts.includes("view")) {
				// pi's walk from the nameless line runs into a parent cycle.
				if (!(typeof parent === "string" && rawWalkLoops(f.tree, parent))) bad.push(`pi hung building the context, but the walk from ${parent} does not loop`);
				pi.view = me.view;
				return;
			}
			if (!pi.view || pi.view.leafId !== UNDEFINED || pi.view.path.length !== 0) bad.push(`pi's view is not leaf undefined / path []: ${short(pi.view)}`);
			const empty = { messages: [], model: null, thinkingLevel: "off" };
			const base = parent && f.tree.entries.some((e) => e.id === parent) ? me.at?.[parent]?.context : empty;
			if (!base) {
				bad.push(`cannot build the expected context (no view of ours at ${parent})`);
				return;
			}
			const want = structuredClone(base);
			if (own?.type === "message") {
				want.messages.push(own.message);
				if (own.message?.role === "assistant") want.model = { provider: own.message.provider, modelId: own.message.model };
			} else if (own?.type === "thinking_level_change") want.thinkingLevel = own.thinkingLevel;
			else if (own?.type === "model_change") want.model = { provider: own.provider, modelId: own.modelId };
			else if (own?.type === "custom_message" || own?.type === "branch_summary" || own?.type === "compaction")
				bad.push(`no expectation for an id-less ${own.type} line`);
			if (!same(pi.view?.context, want)) bad.push(`pi's context is not ours at ${parent} plus the id-less line: ${short(pi.view?.context)}`);
			pi.view = me.view; // checked above
		},
	},
	{
		id: "parent-cycle",
		title: "Parent cycles (including an entry that is its own parent) on a walked path",
		pi: "getBranch/buildSessionContext loop forever (the oracle times out); getTree leaves entries of a cycle that no root reaches out of the tree",
		ours: "answers, breaks each cycle at its earliest line (shown as an extra root) and reports parent-cycle / self-parent diagnostics",
		applies: (f) => hasDiag(f.tree, "parent-cycle", "self-parent"),
		expect(f, pi, me, bad) {
			const lineToId = new Map(f.tree.entries.map((e) => [e.line, e.id]));
			const breakers = f.tree.diagnostics.filter((d) => d.kind === "parent-cycle").map((d) => lineToId.get(d.line));
			// Views: a walk that loops in pi must have timed out, and we must have answered.
			const views = [["view", f.viewLeaf], ...Object.keys(me.at ?? {}).map((id) => [`at:${id}`, id])];
			for (const [step, leaf] of views) {
				if (leaf === null || leaf === undefined || leaf === "null") continue;
				if (step === "view" && f.viewChecked) continue;
				const loops = rawWalkLoops(f.tree, leaf);
				const timedOut = pi.timeouts.includes(step);
				if (loops !== timedOut) bad.push(`${step}: pi ${timedOut ? "timed out" : "answered"}, the walk from ${leaf} ${loops ? "loops" : "does not loop"}`);
				if (!loops) continue;
				const mine = step === "view" ? me.view : me.at[leaf];
				if (!mine) bad.push(`${step}: we gave no answer`);
				if (step === "view") pi.view = me.view;
				else pi.at = { ...pi.at, [leaf]: me.at[leaf] };
			}
			// Tree: our roots = pi's roots plus the breakers; what hangs below a breaker is not in pi's tree.
			const myRoots = me.roots.filter((r) => !breakers.includes(r));
			for (const b of breakers) if (!me.roots.includes(b)) bad.push(`cycle breaker ${b} is not one of our roots`);
			if (!same(myRoots, pi.roots)) bad.push(`roots other than the cycle breakers differ: pi ${short(pi.roots)}, ours ${short(me.roots)}`);
			const below = new Set();
			const stack = [...breakers];
			while (stack.length) {
				const id = stack.pop();
				if (below.has(id)) continue;
				below.add(id);
				stack.push(...(f.tree.children[id] ?? [])); // our tree as read, before other rows strip ids
			}
			me.roots = myRoots;
			me.children = Object.fromEntries(Object.entries(me.children).filter(([k]) => !below.has(k)));
		},
	},
	{
		id: "retained-tail",
		title: "Compactions with `retainedTail` (newer pi harness)",
		pi: "0.73.1 ignores the field: after the summary it replays the path from firstKeptEntryId up to the compaction",
		ours: "after the summary come the retainedTail messages, and nothing from before the compaction (the newer harness's rule)",
		applies: (f) => f.tree.entries.some((e) => e.type === "compaction" && Array.isArray(f.rawLine(e.line)?.retainedTail)),
		expect(f, pi, me, bad) {
			const views = [["view", pi.view, me.view], ...Object.keys(me.at ?? {}).map((id) => [`at[${id}]`, pi.at?.[id], me.at[id]])];
			for (const [name, p, m] of views) {
				if (!p?.context || !m?.context || !m.compactionId) continue;
				const line = f.tree.entries.find((e) => e.id === m.compactionId && e.type === "compaction");
				const c = line && f.rawLine(line.line);
				if (!Array.isArray(c?.retainedTail)) continue;
				// pi: summary, the kept range of the path (converted as buildSessionContext does), the rest.
				const pos = m.path.indexOf(c.id);
				const start = m.path.indexOf(c.firstKeptEntryId);
				const kept = start >= 0 && start < pos ? m.path.slice(start, pos) : [];
				const byId = new Map(f.tree.entries.filter((e) => e.id !== null).map((e) => [e.id, e]));
				const piKept = kept.map((id) => convertForContext(f.rawLine(byId.get(id).line))).filter(Boolean);
				const tail = c.retainedTail.length;
				const mm = m.context.messages;
				const pm = p.context.messages;
				if (!same(mm.slice(1, 1 + tail), c.retainedTail)) bad.push(`${name}: our messages after the summary are not the retainedTail`);
				if (!same(pm.slice(1, 1 + piKept.length), piKept)) bad.push(`${name}: pi's messages after the summary are not the kept range`);
				if (!same(pm[0], mm[0]) || !same(pm.slice(1 + piKept.length), mm.slice(1 + tail)))
					bad.push(`${name}: the summary or the messages after the compaction differ`);
				p.context = { ...p.context, messages: mm }; // checked above
			}
		},
	},
];

/**
 * Differences in the session list only (checkList): pi leaves a file out of its list, we list it.
 * `applies` looks at the file's values as pi parses them.
 */
export const LIST_DOCUMENTED = [
	{
		id: "list-null-content",
		title: "A user or assistant message whose `content` is neither text nor a list (e.g. `null`)",
		pi: "the session list (/resume) throws on the message while it reads the file, and leaves the session out (the session itself opens, and its context gets [] for the content)",
		ours: "lists the session",
		applies: (values) =>
			values.some(
				(v) =>
					v?.type === "message" &&
					(v.message?.role === "user" || v.message?.role === "assistant") &&
					"content" in v.message &&
					typeof v.message.content !== "string" &&
					!Array.isArray(v.message.content),
			),
	},
];

/** Roles whose missing or null content pi 1.x turns into `[]`. */
const NULLABLE = new Set(["user", "assistant", "toolResult"]);
/** What only pi 1.x writes: a file holding one of these is read with 1.x's rules (docs/format.md). */
function isPi1Only(v) {
	if (!v || typeof v !== "object") return false;
	if (v.type === "usage" || v.type === "context_edit") return true;
	if (v.type === "message") return v.message?.role === "system";
	if (v.type === "compaction") return v.systemMessage !== undefined || v.usage !== undefined;
	if (v.type === "branch_summary") return v.usage !== undefined;
	return false;
}

/** An entry line as buildSessionContext turns it into a message (undefined: none). */
function convertForContext(e) {
	const ms = (t) => new Date(t).getTime();
	const json = (v) => JSON.parse(JSON.stringify(v));
	if (!e) return undefined;
	if (e.type === "message") return json(e.message);
	if (e.type === "custom_message")
		return json({ role: "custom", customType: e.customType, content: e.content, display: e.display, details: e.details, timestamp: ms(e.timestamp) });
	if (e.type === "branch_summary" && e.summary) return json({ role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: ms(e.timestamp) });
	return undefined;
}

/** Removes ids from roots and children lists (and their own children keys stay). */
export function stripIds(t, drop) {
	t.roots = (t.roots ?? []).filter((x) => !drop.has(x));
	const ch = {};
	for (const [k, v] of Object.entries(t.children ?? {})) {
		const kept = v.filter((x) => !drop.has(x));
		if (kept.length) ch[k] = kept;
	}
	t.children = ch;
}

/**
 * The values pi reads from a file: 0.73.1 `content.trim().split("\n")`, 1.x the same without the
 * trim; blank lines skipped, every line `JSON.parse`d, failures dropped. Used to tell which
 * documented rows apply. `line`: the package line (0 or 1).
 */
export function parseLikePi(text, line) {
	const values = [];
	// 0.73.1 trims the whole file first; 1.x splits it as it is and skips lines whose value is
	// falsy (`null`, `false`, `0`, `""`).
	for (const l of (line >= 1 ? text : text.trim()).split("\n")) {
		if (!l.trim()) continue;
		try {
			const v = JSON.parse(l);
			if (line >= 1 && !v) continue;
			values.push(v);
		} catch {}
	}
	return values;
}
