/**
 * Whether a process still runs, for the folders one process makes while others wait on it (the
 * local stage's synthesis, a test run's shared assemblies): a folder whose maker is gone is taken
 * over rather than waited on for ever.
 */

/**
 * Whether the process `pid` runs. Signal 0 is sent nowhere; a process of another user refuses it
 * (EPERM) and still runs. A pid that is no positive integer (an empty or torn pid file) runs nothing:
 * `kill(0, 0)` would ask about this process's whole group instead.
 *
 * @example isProcessAlive(Number(readFileSync(pidFile, 'utf8')))
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
