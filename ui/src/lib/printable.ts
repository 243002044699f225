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
