/**
 * The cloud assembly bundle mode serves from: the stack of the `local` stage, synthesized by CDK
 * exactly as `cdk synth` would (the same feature flags from cdk.json, the same constructs, esbuild
 * bundles with the stack's settings), into `<assembly root>/<stage>-<inputs hash>/`. A synthesis is reused
 * while its inputs are unchanged: the sources of functions/, shared/ and infra/, the lock file,
 * package.json, cdk.json and tsconfig.json. Each is written under a temporary name and renamed
 * into place when complete, so concurrent starts (a test run beside `npm start`) never see half of one.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../project-root.ts';
import { stackName } from '../stack-names.ts';

/**
 * Where the assemblies live: outside the project tree, as a deployed bundle is (Lambda's task root
 * has no node_modules above it), so a module a bundle left external fails to load here too instead
 * of being found in the project's node_modules. One directory per checkout. CXM_ASSEMBLY_ROOT
 * overrides it.
 */
export function assemblyRoot(): string {
  const checkout = createHash('sha256').update(PROJECT_ROOT).digest('hex').slice(0, 8);
  return process.env.CXM_ASSEMBLY_ROOT || join(tmpdir(), `cxm-assemblies-${checkout}`);
}

const INPUT_DIRECTORIES = ['functions', 'shared', 'infra'];
const INPUT_FILES = ['package-lock.json', 'package.json', 'cdk.json', 'tsconfig.json'];
/** Synthesized assemblies kept besides the current one (older ones are deleted). */
const KEEP_OTHERS = 2;

function listFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...listFiles(path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** A hash of everything the synthesized stack and its bundles are made from. */
export function assemblyInputsHash(): string {
  const hash = createHash('sha256');
  const files = [...INPUT_DIRECTORIES.flatMap((dir) => listFiles(join(PROJECT_ROOT, dir))), ...INPUT_FILES.map((file) => join(PROJECT_ROOT, file))].sort();
  for (const file of files) {
    hash.update(relative(PROJECT_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

export interface LocalAssembly {
  /** The cloud assembly directory. */
  dir: string;
  /** True when an earlier synthesis with the same inputs was reused. */
  reused: boolean;
  /** The stack's artifact id in the assembly. */
  stackId: string;
}

/** Synthesizes the local stage's stack, or reuses the synthesis of the same inputs. */
export async function ensureLocalAssembly(stage: string, log: (line: string) => void = () => undefined): Promise<LocalAssembly> {
  const stackId = stackName(stage);
  const root = assemblyRoot();
  const dir = join(root, `${stage}-${assemblyInputsHash()}`);
  if (existsSync(join(dir, 'manifest.json'))) return { dir, reused: true, stackId };

  mkdirSync(root, { recursive: true });
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  log(`synthesizing the ${stage} stack and bundling its functions into ${dir} (once per change of the sources)...`);
  const started = Date.now();
  try {
    await synthesize(stage, staging);
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
  pruneOthers(root, dir, stage);
  return { dir, reused: false, stackId };
}

const SYNTH_SCRIPT = fileURLToPath(new URL('./synth-stage.ts', import.meta.url));

/** Runs synth-stage.ts in a child Node; its output (CDK's bundling lines) is shown only when it fails. */
function synthesize(stage: string, outdir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', SYNTH_SCRIPT, stage, outdir],
      { cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`synthesizing the ${stage} stack failed: ${error.message}\n${stdout}${stderr}`));
        else resolve();
      },
    );
  });
}

/** Deletes older assemblies of the stage (temporary ones left by a killed synthesis too), keeping a few. */
function pruneOthers(root: string, current: string, stage: string): void {
  const others = readdirSync(root)
    .filter((name) => name.startsWith(`${stage}-`) && join(root, name) !== current)
    .map((name) => ({ path: join(root, name), mtime: statSync(join(root, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  const hourAgo = Date.now() - 3600_000;
  others.forEach((other, index) => {
    const stale = other.path.includes('.tmp-') ? other.mtime < hourAgo : index >= KEEP_OTHERS;
    if (stale) rmSync(other.path, { recursive: true, force: true });
  });
}
