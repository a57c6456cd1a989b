/** Messages or hidden entries fetched at a time (context_page, hidden_page). */
export const PAGE = 100;
