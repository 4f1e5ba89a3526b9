/**
 * An import file that cannot be loaded (check-import-entry.ts,
 * infra/cli/import/read-import-file.ts): the CLI reports it like a CliError. Its own module, so
 * the CLI can recognise it without loading the import path and its validators.
 */
export class ImportError extends Error {
  override readonly name = 'ImportError';
}
