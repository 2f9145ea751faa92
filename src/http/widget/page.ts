import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** The widget script, read once: served byte for byte as written (no build step). */
export const EMBED_JS = fs.readFileSync(new URL('./embed.js', import.meta.url));
export const EMBED_ETAG = `"${createHash('sha256').update(EMBED_JS).digest('base64url').slice(0, 27)}"`;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The page of GET /book/{event_type_id}: one <booking-widget>, the script from this origin. */
export function bookingPage(eventTypeId: string, publishableKey: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>Book a time</title>
<style>
  body { margin: 0; padding: 1rem; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f6f9; }
  main { max-width: 42rem; margin: 0 auto; }
</style>
<script src="/embed.js" defer></script>
</head>
<body>
<main>
<booking-widget event-type-id="${escapeHtml(eventTypeId)}" publishable-key="${escapeHtml(publishableKey)}"></booking-widget>
</main>
</body>
</html>
`;
}

/**
 * The page runs only its own origin's script and talks only to its own origin; inline styles
 * are the page's and the widget's shadow-root style element.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'";
