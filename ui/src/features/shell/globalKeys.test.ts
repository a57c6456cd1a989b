import { describe, expect, it } from "vitest";
import { globalAction, isTextField, nextPane } from "./globalKeys";

const key = (k: string, mods: { shiftKey?: boolean; ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean } = {}, inField = false) => globalAction({ key: k, ...mods }, inField);

describe("keys of every view", () => {
  it("map undo, redo, views, panes, the resume command, notifications and help", () => {
    expect(key("z", { ctrlKey: true })).toEqual({ t: "undo" });
    expect(key("Z", { ctrlKey: true, shiftKey: true })).toEqual({ t: "redo" });
    expect(key("y", { ctrlKey: true })).toEqual({ t: "redo" });
    expect(key("z", { metaKey: true })).toEqual({ t: "undo" });
    expect(key("1")).toEqual({ t: "view", tab: "tree" });
    expect(key("3")).toEqual({ t: "view", tab: "transcript" });
    expect(key("6")).toEqual({ t: "view", tab: "dashboard" });
    expect(key("7")).toBeNull();
    expect(key("F6")).toEqual({ t: "pane", dir: 1 });
    expect(key("F6", { shiftKey: true })).toEqual({ t: "pane", dir: -1 });
    expect(key("y")).toEqual({ t: "copy-resume" });
    expect(key("t")).toEqual({ t: "toasts" });
    expect(key("H")).toEqual({ t: "history" });
    expect(key("?")).toEqual({ t: "help" });
    expect(key("1", { altKey: true })).toBeNull();
  });

  it("leave text fields their keys, F6 aside", () => {
    expect(key("z", { ctrlKey: true }, true)).toBeNull();
    expect(key("1", {}, true)).toBeNull();
    expect(key("y", {}, true)).toBeNull();
    expect(key("F6", {}, true)).toEqual({ t: "pane", dir: 1 });
    const input = document.createElement("input");
    expect(isTextField(input)).toBe(true);
    input.type = "checkbox";
    expect(isTextField(input)).toBe(false);
    expect(isTextField(document.createElement("textarea"))).toBe(true);
    expect(isTextField(document.createElement("button"))).toBe(false);
    expect(isTextField(null)).toBe(false);
  });

  it("go through the panes present, round and round", () => {
    const all = ["sessions", "view", "inspector", "toasts"] as const;
    expect(nextPane(null, [...all], 1)).toBe("sessions");
    expect(nextPane("sessions", [...all], 1)).toBe("view");
    expect(nextPane("toasts", [...all], 1)).toBe("sessions");
    expect(nextPane("sessions", [...all], -1)).toBe("toasts");
    // No inspector beside the fork graph, no notifications: view → sessions.
    expect(nextPane("view", ["sessions", "view"], 1)).toBe("sessions");
    expect(nextPane("inspector", ["sessions", "view"], 1)).toBe("sessions");
    expect(nextPane(null, [], 1)).toBeNull();
  });
});
