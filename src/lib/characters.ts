/**
 * Whether `text` holds more than `max` characters, counted as people count them: code points, so
 * an emoji (two UTF-16 units) is one, as JSON Schema's maxLength counts them in the route schemas.
 * Text of at most `max` UTF-16 units is never longer, so most values are decided without a walk.
 */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // a high surrogate followed by a low one is one code point
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++count > max) return true;
  }
  return false;
}
