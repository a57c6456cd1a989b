#!/usr/bin/env node
// appender.mjs — a second writer for the concurrency test: appends pi-shaped message lines to a
// session file exactly the way pi 0.73.1 does (one `fs.appendFileSync` of `JSON.stringify(entry) + "\n"`
// per entry), each a child of the line it appended before, in a tight loop with tiny random sleeps.
//
//   node appender.mjs FILE COUNT PARENT_ID [SEED] [STOP_FILE]
//
// Appends COUNT lines; with STOP_FILE, keeps appending after that until STOP_FILE exists.
// Prints one JSON line at the end: {"appended": N, "ids": [...], "ms": elapsed}.

import { appendFileSync, existsSync } from "node:fs";
import { entry, message, text, usage } from "../lib/sessions.mjs";

const [file, countArg, parentArg, seedArg, stopFile] = process.argv.slice(2);
const count = Number(countArg);
if (!file || !Number.isInteger(count) || count < 1 || !parentArg) {
	console.error("usage: node appender.mjs FILE COUNT PARENT_ID [SEED] [STOP_FILE]");
	process.exit(2);
}

let state = (Number(seedArg ?? Date.now()) >>> 0) || 1;
const rand = () => {
	// xorshift32
	state ^= state << 13;
	state >>>= 0;
	state ^= state >>> 17;
	state ^= state << 5;
	state >>>= 0;
	return state / 4294967296;
};

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepMs = (ms) => Atomics.wait(sleeper, 0, 0, ms);

// Ids: 8 lowercase hex as pi's, unique within this run, and marked so the test can tell them apart.
const ids = [];
const seen = new Set();
function newId(i) {
	for (;;) {
		const id = (0xa0000000 + ((i * 2654435761 + Math.floor(rand() * 0x100000)) % 0x10000000)).toString(16);
		if (!seen.has(id)) {
			seen.add(id);
			return id;
		}
	}
}

const vocabulary = "the parser cache login test build config path window index retry token model context tree".split(" ");
const words = (n) => Array.from({ length: n }, () => vocabulary[Math.floor(rand() * vocabulary.length)]).join(" ");

const started = Date.now();
let parent = parentArg;
for (let i = 0; i < count || (stopFile && !existsSync(stopFile)); i++) {
	const id = newId(i);
	const now = Date.now();
	// Mostly short lines; now and then one of 5–40 KB (several pages: a single large write).
	const size = rand() < 0.08 ? 800 + Math.floor(rand() * 6000) : 3 + Math.floor(rand() * 40);
	const msg =
		i % 2 === 0
			? message.user(words(size), now)
			: message.assistant({ content: [text(words(size))], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage({ input: 1000 + i, output: 50 }), timestamp: now });
	appendFileSync(file, `${JSON.stringify(entry.message({ id, parentId: parent, timestamp: new Date(now).toISOString() }, msg))}\n`);
	ids.push(id);
	parent = id;
	const r = rand();
	if (i >= count) sleepMs(15 + Math.floor(rand() * 10)); // past COUNT: keep the file growing, slowly
	else if (r < 0.6) sleepMs(Math.floor(rand() * 4));
	else if (r < 0.9) sleepMs(Math.floor(rand() * 10));
}
console.log(JSON.stringify({ appended: ids.length, ids, ms: Date.now() - started }));
