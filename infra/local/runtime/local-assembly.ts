/**
 * The cloud assembly bundle mode serves from: the stack of the `local` stage, synthesized by CDK
 * as `cdk synth` would (the same feature flags from cdk.json, the same constructs, esbuild bundles
 * with the stack's settings; only CDK's checks of the templates are left out, see synthesize),
 * into `<assembly root>/<stage>-<inputs hash>/`. A synthesis is reused while its inputs are
 * unchanged: the sources of functions/, shared/ and infra/, the lock file, package.json, cdk.json
 * and tsconfig.json. Each is written under a temporary name and renamed into place when complete,
 * so concurrent starts (a test run beside `npm start`) never see half of one.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stackName } from '#infra/stage-names';
import { PROJECT_ROOT } from '../../project-root.ts';
import { isProcessAlive } from './process-alive.ts';

/**
 * Where the assemblies live: the user's cache directory (`$XDG_CACHE_HOME` or `~/.cache`), one
 * folder per checkout, created private to the user. Outside the project tree on purpose, as a
 * deployed bundle is (Lambda's task root has no node_modules above it): a module a bundle left
 * external fails to load here too instead of being found in the project's node_modules.
 * CXM_ASSEMBLY_ROOT overrides it.
 */
function assemblyRoot(): string {
  if (process.env.CXM_ASSEMBLY_ROOT) return process.env.CXM_ASSEMBLY_ROOT;
  const checkout = createHash('sha256').update(PROJECT_ROOT).digest('hex').slice(0, 8);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'cxm', `assemblies-${checkout}`);
}

/** infra/cli is left out: the stack never imports the CLI; so is what Maven builds for the local engine. */
const INPUT_DIRECTORIES = ['functions', 'shared', 'infra'];
const IGNORED_DIRECTORIES = [join('infra', 'cli'), join('infra', 'local', 'emulators', 'opensearch', 'target')];
const INPUT_FILES = ['package-lock.json', 'package.json', 'cdk.json', 'tsconfig.json'];
/** Synthesized assemblies kept besides the current one (older ones are deleted). */
const KEEP_OTHERS = 2;

function listFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && IGNORED_DIRECTORIES.includes(relative(PROJECT_ROOT, path))) continue;
    if (entry.isDirectory()) files.push(...listFiles(path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** A hash of everything the synthesized stack and its bundles are made from. */
function assemblyInputsHash(): string {
  const hash = createHash('sha256');
  const files = [
    ...INPUT_DIRECTORIES.flatMap((dir) => listFiles(join(PROJECT_ROOT, dir))),
    ...INPUT_FILES.map((file) => join(PROJECT_ROOT, file)),
  ].sort();
  for (const file of files) {
    hash.update(relative(PROJECT_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

export interface LocalAssembly {
  /** The cloud assembly directory. */
  dir: string;
  /** The stack's artifact id in the assembly. */
  stackId: string;
}

/** Where the local stage's lists search: each backend is a synthesis of its own (its lists are other bundles). */
export type AssemblyBackend = 'dynamodb' | 'opensearch';

/** The assemblies' folder names: `local-<hash>` for DynamoDB, `local-opensearch-<hash>`. */
function variant(stage: string, backend: AssemblyBackend): string {
  return backend === 'dynamodb' ? stage : `${stage}-opensearch`;
}

/**
 * Where the stage's synthesis of the current sources is, or will be once ensureLocalAssembly has
 * made it: complete when its `manifest.json` exists (it is renamed into place whole).
 *
 * @example existsSync(join(localAssemblyDir('local', 'dynamodb'), 'manifest.json')) // synthesized already
 */
export function localAssemblyDir(stage: string, backend: AssemblyBackend): string {
  return join(assemblyRoot(), `${variant(stage, backend)}-${assemblyInputsHash()}`);
}

/**
 * Synthesizes the local stage's stack, or reuses the synthesis of the same inputs. `dir` is
 * `localAssemblyDir(stage)`, passed by a caller that has hashed the inputs already.
 */
export async function ensureLocalAssembly(
  stage: string,
  backend: AssemblyBackend,
  log: (line: string) => void = () => undefined,
  dir = localAssemblyDir(stage, backend),
): Promise<LocalAssembly> {
  const stackId = stackName(stage);
  const root = assemblyRoot();
  if (!existsSync(join(dir, 'manifest.json')) && synthesisUnderWay(dir)) {
    log(`waiting for the synthesis of the ${stage} stack another process is making into ${dir}...`);
    while (!existsSync(join(dir, 'manifest.json')) && synthesisUnderWay(dir)) await sleep(250);
  }
  if (existsSync(join(dir, 'manifest.json'))) {
    // Marks it as recently used, so that pruning (by age) keeps it.
    const now = new Date();
    utimesSync(dir, now, now);
    return { dir, stackId };
  }

  mkdirSync(root, { recursive: true, mode: 0o700 });
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  // Made before the synthesis starts: another process that finds it waits instead of synthesizing too.
  mkdirSync(staging);
  log(
    `synthesizing the ${stage} stack (reporting on ${backend}) and bundling its functions into ${dir} (once per change of the sources)...`,
  );
  const started = Date.now();
  try {
    await synthesize(stage, backend, staging);
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another process finished the same synthesis first: use it.
      if (!existsSync(join(dir, 'manifest.json'))) throw error;
      rmSync(staging, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  log(`synthesized in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  pruneOthers(root, dir, variant(stage, backend));
  return { dir, stackId };
}

/** Whether a live process is synthesizing into `dir`: its staging folder (`<dir>.tmp-<pid>-<ms>`) exists. */
function synthesisUnderWay(dir: string): boolean {
  const prefix = `${basename(dir)}.tmp-`;
  const names = existsSync(dirname(dir)) ? readdirSync(dirname(dir)) : [];
  // A folder whose process is gone is a synthesis cut short, which pruning deletes.
  return names.some(
    (name) => name.startsWith(prefix) && isProcessAlive(Number(name.slice(prefix.length).split('-')[0])),
  );
}

const CDK_APP = join(PROJECT_ROOT, 'infra', 'cdk', 'app.ts');

/**
 * Runs the CDK app (infra/cdk/app.ts, cdk-nag included) in a child Node, as the `cdk` CLI runs it: the
 * output directory in CDK_OUTDIR, cdk.json's context (feature flags) plus the stage in
 * CDK_CONTEXT_JSON, asset metadata on. A child, because CDK bundles synchronously: the caller's
 * event loop (a gateway answering "starting", DynamoDB Local's readiness checks) keeps running.
 * Its output (CDK's bundling lines) is shown only when it fails.
 *
 * Without CDK's built-in CloudFormation validation (`CDK_VALIDATION=false`, as `cdk synth
 * --no-validation`): it reads the templates and changes nothing in the assembly, and its engine
 * cost this synthesis about 5 of its 10 CPU-s. What a deploy synthesizes is held to it by
 * test/infra/cloudformation-validate.test.ts, on the template of every kind of stage.
 */
function synthesize(stage: string, backend: AssemblyBackend, outdir: string): Promise<void> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const context = { ...cdkJson.context, stage, reportingBackend: backend, 'aws:cdk:enable-asset-metadata': true };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', CDK_APP],
      {
        cwd: PROJECT_ROOT,
        maxBuffer: 64 * 1024 * 1024,
        env: {
          ...process.env,
          CDK_OUTDIR: outdir,
          CDK_CONTEXT_JSON: JSON.stringify(context),
          CDK_DISABLE_VERSION_CHECK: '1',
          CDK_VALIDATION: 'false',
        },
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`synthesizing the ${stage} stack failed: ${error.message}\n${stdout}${stderr}`));
        else resolve();
      },
    );
  });
}

/** Deletes older assemblies of the variant (temporary ones left by a killed synthesis too), keeping a few. */
function pruneOthers(root: string, current: string, variantName: string): void {
  // Another process may rename or delete an entry meanwhile: a vanished one is simply skipped.
  // A variant's names are `<variant>-<16 hex digits>`, so `local-` never takes `local-opensearch-`.
  const mine = new RegExp(`^${variantName}-[0-9a-f]{16}(\\.tmp-|$)`);
  const others = readdirSync(root)
    .filter((name) => mine.test(name) && join(root, name) !== current)
    .flatMap((name) => {
      const stats = statSync(join(root, name), { throwIfNoEntry: false });
      return stats ? [{ path: join(root, name), mtime: stats.mtimeMs }] : [];
    })
    .sort((a, b) => b.mtime - a.mtime);
  const hourAgo = Date.now() - 3600_000;
  others.forEach((other, index) => {
    const stale = other.path.includes('.tmp-') ? other.mtime < hourAgo : index >= KEEP_OTHERS;
    if (stale) rmSync(other.path, { recursive: true, force: true });
  });
}
