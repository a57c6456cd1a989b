// Light / dark theme: a class on <html>, remembered in localStorage, default from the system.

const KEY = "pi-explorer-theme";
export type Theme = "light" | "dark";

function initial(): Theme {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved === "light" || saved === "dark") return saved;
  } catch {
    /* storage unavailable */
  }
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function apply(t: Theme) {
  const el = document.documentElement;
  el.classList.toggle("dark", t === "dark");
  el.classList.toggle("light", t === "light");
}

class ThemeState {
  current = $state<Theme>("light");

  init() {
    this.current = initial();
    apply(this.current);
  }

  toggle() {
    this.set(this.current === "dark" ? "light" : "dark");
  }

  set(t: Theme) {
    this.current = t;
    apply(t);
    try {
      localStorage.setItem(KEY, t);
    } catch {
      /* storage unavailable */
    }
  }
}

export const theme = new ThemeState();
