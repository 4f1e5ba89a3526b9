/** The `cxm` bin (cxm.mjs): runs the CLI on this process's arguments, streams, environment and signals, then exits with its code. */
import { runCli } from './run-cli.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signals: process,
});
// A failed or interrupted run may leave work in flight (requests, timers): it ends here.
if (code === 0) process.exitCode = 0;
else process.exit(code);
