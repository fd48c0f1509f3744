/**
 * Whether the programs of a terminal's session are still working (Linux, from /proc): a
 * process of the session running or in uninterruptible sleep means output may still come (a
 * script between two dialogs, a program starting), while all of them asleep means they wait,
 * usually for a key. Where /proc is not there, nothing is known and nothing is held.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** True when a process of session `sessionId` is running (state R) or in uninterruptible sleep (D); false when all sleep or /proc cannot tell. */
export function sessionBusy(sessionId: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp session …; comm may hold spaces and parentheses, so read after the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[3]) !== sessionId) continue;
    const state = fields[0];
    if (state === 'R' || state === 'D') return true;
  }
  return false;
}
