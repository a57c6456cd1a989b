/** Messages or hidden entries fetched at a time (context_page, hidden_page). */
export const PAGE = 100;

import type { ContextMessage } from "../../lib/bindings/ContextMessage";
import { obj, str } from "../../lib/entry";

/** A context message's role as shown: a tool result by its tool; `short` for the inspector's
 *  narrow column ("branch sum.", "summary"), else the full names of the Context view. */
export function roleLabel(m: ContextMessage, short = false): string {
  switch (m.role) {
    case "toolResult":
      return str(obj(m.message)?.toolName) || "tool";
    case "bashExecution":
      return "bash";
    case "branchSummary":
      return short ? "branch sum." : "branch summary";
    case "compactionSummary":
      return short ? "summary" : "compaction summary";
    default:
      return m.role;
  }
}
