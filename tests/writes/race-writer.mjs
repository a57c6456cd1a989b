#!/usr/bin/env node
// race-writer.mjs — a second writer for the race tests (crates/pi-session-cli/tests/race.rs):
// appends pi-shaped message lines to a session file, each a child of the line it appended
// before, one every INTERVAL ms, until STOP_FILE exists.
//
//   node race-writer.mjs FILE PARENT_ID MODE INTERVAL_MS STOP_FILE [SPLIT_PAUSE_MS]
//
// MODE says how a line is written:
//   whole             open, one write, close per line: `appendFileSync`, exactly as pi does
//   split             open per line, the line in two write() calls SPLIT_PAUSE_MS apart, close
//   persistent        one descriptor kept open for the whole run, one write per line
//   persistent-split  one descriptor kept open, each line in two write() calls
//
// Prints one JSON line at the end: {"appended": N, "ids": [...], "ms": elapsed}.

import { appendFileSync, closeSync, existsSync, openSync, writeSync } from "node:fs";
import { entry, message, text } from "../lib/sessions.mjs";

const [file, parentArg, mode, intervalArg, stopFile, pauseArg] = process.argv.slice(2);
const interval = Number(intervalArg);
const pause = Number(pauseArg ?? 1);
const modes = ["whole", "split", "persistent", "persistent-split"];
if (!file || !parentArg || !modes.includes(mode) || !(interval >= 0) || !stopFile) {
	console.error("usage: node race-writer.mjs FILE PARENT_ID whole|split|persistent|persistent-split INTERVAL_MS STOP_FILE [SPLIT_PAUSE_MS]");
	process.exit(2);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepMs = (ms) => Atomics.wait(sleeper, 0, 0, ms);

const persistent = mode.startsWith("persistent") ? openSync(file, "a") : null;
const split = mode.endsWith("split");

function write(line) {
	if (mode === "whole") {
		appendFileSync(file, line);
		return;
	}
	const fd = persistent ?? openSync(file, "a");
	const bytes = Buffer.from(line);
	if (split) {
		const half = Math.floor(bytes.length / 2);
		writeSync(fd, bytes, 0, half);
		sleepMs(pause);
		writeSync(fd, bytes, half, bytes.length - half);
	} else {
		writeSync(fd, bytes);
	}
	if (persistent === null) closeSync(fd);
}

const started = Date.now();
const ids = [];
let parent = parentArg;
for (let i = 0; !existsSync(stopFile); i++) {
	// 8 hex as pi's ids are (a counter, so a run is easy to read).
	const id = `c${(i + 1).toString(16).padStart(7, "0")}`;
	const now = Date.now();
	const msg = i % 2 === 0 ? message.user(`writer line ${i}`, now) : message.assistant({ content: [text(`reply ${i}`)], timestamp: now });
	write(`${JSON.stringify(entry.message({ id, parentId: parent, timestamp: new Date(now).toISOString() }, msg))}\n`);
	ids.push(id);
	parent = id;
	sleepMs(interval);
}
if (persistent !== null) closeSync(persistent);
console.log(JSON.stringify({ appended: ids.length, ids, ms: Date.now() - started }));
