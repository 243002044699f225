// Where the Claude home's space goes, as the Storage view shows it.
import * as api from './api';
import type { StorageReport } from './types';

/** The storage report of the Claude home, read now. */
export const storageReport = (): Promise<StorageReport> => api.storage();

/** How wide a bar for `bytes` of `most` is, in percent: any bytes at all show as a sliver. */
export function barWidth(bytes: number, most: number): number {
  if (bytes <= 0 || most <= 0) return 0;
  return Math.max(1, Math.round((bytes / most) * 100));
}

/** The ages a person can sweep debug logs by, in days. */
export const DEBUG_AGES = [7, 30, 90] as const;
