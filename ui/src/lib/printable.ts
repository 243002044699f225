// Names read from the desktop app's store are untrusted: shown with control characters made
// visible, and shortened where a table has no room (the full name goes in the tooltip).

/** A folder name as found, with control characters made visible. */
export function visible(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) =>
    c === '\n' ? '\\n' : `\\u{${c.charCodeAt(0).toString(16)}}`,
  );
}

/** A uuid shortened for a table. */
export function short(name: string): string {
  return name.length > 13 ? `${visible(name).slice(0, 8)}…` : visible(name);
}

/** What a person typed, for showing as typed: line breaks and tabs stay (`\r\n` and the Unicode
 *  line separators become line breaks); every other control character is shown, never acted
 *  on — C0 and DEL as their Unicode control pictures (ESC as ␛), C1 controls and bidirectional
 *  overrides as `\u{…}` — so a pasted escape sequence reads as text and never draws as a box or
 *  reorders what follows it. */
export function typedText(text: string): string {
  return text
    .replace(/\r\n|\u2028|\u2029/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) =>
      String.fromCharCode(c === '\u007f' ? 0x2421 : 0x2400 + c.charCodeAt(0)),
    )
    .replace(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}
