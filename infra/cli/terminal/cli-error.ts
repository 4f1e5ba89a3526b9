/** An error the CLI reports as one line and exit code 1, without a stack. */
export class CliError extends Error {
  override readonly name = 'CliError';
}
