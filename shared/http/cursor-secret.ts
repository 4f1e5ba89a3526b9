/**
 * The key that signs reporting cursors: configuration, never a constant in code. Locally
 * `CXM_CURSOR_SECRET` (generated into CXM_HOME); in the cloud `CXM_CURSOR_SECRET_ARN`, a Secrets
 * Manager secret read through Powertools Parameters (cached for five minutes). Checked when the
 * function starts, so a function without either fails at cold start, not on the first request.
 */
const MIN_LENGTH = 32;

export function cursorSecretSource(): () => Promise<string> {
  const direct = process.env.CXM_CURSOR_SECRET;
  if (direct !== undefined && direct !== '') {
    if (direct.length < MIN_LENGTH) throw new Error(`CXM_CURSOR_SECRET must be at least ${MIN_LENGTH} characters`);
    return async () => direct;
  }
  const arn = process.env.CXM_CURSOR_SECRET_ARN;
  if (!arn) throw new Error('neither CXM_CURSOR_SECRET nor CXM_CURSOR_SECRET_ARN is set: reporting cursors cannot be signed');
  return async () => {
    // Loaded on first use: the Secrets Manager client is not part of every cold start's work.
    const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
    const secret = await getSecret(arn, { maxAge: 300 });
    if (typeof secret !== 'string' || secret.length < MIN_LENGTH) throw new Error('the cursor secret is missing or too short');
    return secret;
  };
}
