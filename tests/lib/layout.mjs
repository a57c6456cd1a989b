// The layout rule of the views' measured lists (the transcript, the Context view), checked in
// the page by both end-to-end suites: the rows drawn, in order, each with its offset and height,
// and the pairs where a row does not start where the one above it ends (drawn over it or apart).

/**
 * Runs in the page: `container` is the element holding the row slots (each placed with a
 * `translateY`). Returns null when it is not there.
 */
export function rowLayout(container) {
	const box = document.querySelector(container);
	if (!box) return null;
	const rows = [...box.children]
		.filter((e) => e.style.transform)
		.map((e) => ({ top: Number(/translateY\(([-\d.]+)px\)/.exec(e.style.transform)?.[1]), h: e.offsetHeight }))
		.sort((a, b) => a.top - b.top);
	const bad = [];
	for (let k = 0; k + 1 < rows.length; k++) {
		if (Math.abs(rows[k + 1].top - (rows[k].top + rows[k].h)) > 1) bad.push({ row: k, ...rows[k], next: rows[k + 1].top });
	}
	return { rows, bad };
}

/** [`rowLayout`] as a WebDriver script (its argument: the container's selector). */
export const rowLayoutScript = `return (${rowLayout.toString()})(arguments[0]);`;
