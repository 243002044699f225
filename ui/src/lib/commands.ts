// The IPC surface, declared once in Rust (src-tauri/src/ipc.rs) and generated into
// ./bindings/Commands.ts: every command the shell registers, with its arguments and its result.
// - the backends (./backend) call the shell only through `Commands`, so a wrong name, argument or
//   result type is a compile error;
// - the development demo backend implements `Commands` as a handler map, so the compiler checks it
//   handles every command with the right types.
import type { Commands } from './bindings/Commands';
import type { SettingsPatch } from './types';

export type { Commands, SettingsPatch };

export type Command = keyof Commands;
export type Args<K extends Command> = Commands[K]['args'];
export type Result<K extends Command> = Commands[K]['result'];

/** A backend that answers every command (the demo): checked by the compiler. */
export type Handlers = { [K in Command]: (args: Args<K>) => Result<K> | Promise<Result<K>> };
