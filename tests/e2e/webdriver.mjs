// A small W3C WebDriver client over fetch, enough to drive the app through tauri-driver.

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

export class WebDriverError extends Error {}

export class Driver {
	constructor(base, sessionId) {
		this.base = base;
		this.id = sessionId;
	}

	static async start(base, application, { args = [], env } = {}) {
		const caps = { capabilities: { alwaysMatch: { "tauri:options": { application, args, ...(env ? { env } : {}) } } } };
		const res = await call(base, "POST", "/session", caps);
		return new Driver(base, res.sessionId);
	}

	async cmd(method, path, body) {
		return call(this.base, method, `/session/${this.id}${path}`, body);
	}

	async quit() {
		try {
			await this.cmd("DELETE", "");
		} catch {
			// already gone
		}
	}

	async find(css) {
		const r = await this.cmd("POST", "/element", { using: "css selector", value: css });
		return new El(this, r[ELEMENT]);
	}

	async findAll(css) {
		const r = await this.cmd("POST", "/elements", { using: "css selector", value: css });
		return r.map((e) => new El(this, e[ELEMENT]));
	}

	/** Waits until `css` matches (and, if given, `pred(el)` holds). */
	async waitFor(css, { timeout = 10000, pred, what } = {}) {
		const end = Date.now() + timeout;
		let last;
		while (Date.now() < end) {
			try {
				const els = await this.findAll(css);
				for (const el of els) {
					if (!pred || (await pred(el))) return el;
				}
			} catch (e) {
				last = e;
			}
			await sleep(100);
		}
		throw new WebDriverError(`timed out waiting for ${what ?? css}${last ? ` (${last.message})` : ""}`);
	}

	/** Clicks what `css` matches once it takes the click: found again and clicked again while
	 *  the view re-renders under it (a stale element) or something still covers it. */
	async clickWhen(css, { timeout = 10000, what } = {}) {
		const end = Date.now() + timeout;
		let last;
		while (Date.now() < end) {
			try {
				return await (await this.find(css)).click();
			} catch (e) {
				if (!/stale element|click intercepted|not interactable|no such element/i.test(e.message)) throw e;
				last = e;
			}
			await sleep(100);
		}
		throw new WebDriverError(`timed out clicking ${what ?? css}${last ? ` (${last.message})` : ""}`);
	}

	/** Waits for an element whose text contains `text`. */
	async waitForText(css, text, opts = {}) {
		return this.waitFor(css, { ...opts, what: `${css} containing ${JSON.stringify(text)}`, pred: async (el) => (await el.text()).includes(text) });
	}

	async exec(script, args = []) {
		return this.cmd("POST", "/execute/sync", { script, args });
	}

	async execAsync(script, args = []) {
		return this.cmd("POST", "/execute/async", { script, args });
	}

	async screenshot() {
		return Buffer.from(await this.cmd("GET", "/screenshot"), "base64");
	}

	/** Sends keys to the focused element (W3C key codes for specials). */
	async keys(text) {
		const actions = [];
		for (const ch of text) actions.push({ type: "keyDown", value: ch }, { type: "keyUp", value: ch });
		await this.cmd("POST", "/actions", { actions: [{ type: "key", id: "kbd", actions }] });
		await this.cmd("DELETE", "/actions");
	}
}

export class El {
	constructor(driver, id) {
		this.d = driver;
		this.id = id;
	}
	click() {
		return this.d.cmd("POST", `/element/${this.id}/click`, {});
	}
	/** The element's innerText (WebKitWebDriver's own text command skips clipped text). */
	async text() {
		return this.d.exec("return arguments[0].innerText", [{ [ELEMENT]: this.id }]);
	}
	attr(name) {
		return this.d.cmd("GET", `/element/${this.id}/attribute/${name}`);
	}
	type(text) {
		return this.d.cmd("POST", `/element/${this.id}/value`, { text });
	}
	clear() {
		return this.d.cmd("POST", `/element/${this.id}/clear`, {});
	}
	async find(css) {
		const r = await this.d.cmd("POST", `/element/${this.id}/element`, { using: "css selector", value: css });
		return new El(this.d, r[ELEMENT]);
	}
	async findAll(css) {
		const r = await this.d.cmd("POST", `/element/${this.id}/elements`, { using: "css selector", value: css });
		return r.map((e) => new El(this.d, e[ELEMENT]));
	}
}

export const Keys = {
	up: "\uE013",
	down: "\uE015",
	left: "\uE012",
	right: "\uE014",
	enter: "\uE007",
	escape: "\uE00C",
	pageUp: "\uE00E",
	pageDown: "\uE00F",
	home: "\uE011",
	end: "\uE010",
	backspace: "\uE003",
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function call(base, method, path, body) {
	const res = await fetch(base + path, {
		method,
		headers: { "content-type": "application/json" },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const json = await res.json().catch(() => ({}));
	if (!res.ok || json?.value?.error) {
		const v = json.value ?? {};
		throw new WebDriverError(`${method} ${path}: ${v.error ?? res.status} ${v.message ?? ""}`.trim());
	}
	return json.value;
}
